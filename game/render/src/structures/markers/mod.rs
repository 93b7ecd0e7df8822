//! The block tool's markers, pass `"markers"`, unlit and see-through over the picture:
//!
//! * **ghost**: the block to be placed, a box of its size at its cells, in its material's colour
//!   where it fits (never the would-fall tint's orange) and red `#ef4444` where it does not, at
//!   alpha 0.3, so that the aimed face shows through it (front faces only, so each pixel is
//!   blended once);
//! * **outline**: the aimed block's 12 edges as lines, 2 cm outside the block, near black;
//! * **would-fall tint**: the blocks that would fall, meshed by the block mesher, in orange at
//!   alpha 0.5 over their own surfaces: each vertex moved 2 cm toward the eye so that the tint
//!   wins the depth test (`LESS_OR_EQUAL`) against the surfaces it covers, with no depth write.
//!
//! Ghost and outline are 60 vertices written each frame into a host-visible buffer of the frame
//! in flight. The tint is meshed again only when its list of blocks or the store's revision
//! changes, into a host-visible buffer of its own (the old one retired until the frames that
//! read it have run).
//!
//! `geometry` builds the ghost's and the outline's vertices; `pipelines` makes the two
//! pipelines.

mod geometry;
mod pipelines;

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, Buffer, BufferDesc, FrameRing, Gpu, GpuResult, Image, Load, MemoryLocation, Pipeline,
    PipelineLayout, ShaderLibrary, TransientUse,
};

use self::geometry::{
    block_box, linear, push_box, push_edges, GHOST_VERTICES, OUTLINE, OUTLINE_MARGIN,
    OUTLINE_VERTICES,
};
use crate::target::RenderTarget;
use blockfall_game::blocks::mesher::{mesh_blocks, BlockMesh};
use blockfall_game::blocks::store::{Block, BlockId, BlockStore};
use blockfall_game::camera::Camera;

pub use self::geometry::MarkerVertex;

/// The name of the frame pass (label and timing).
pub const PASS_NAME: &str = "markers";

/// The would-fall tint: `#f97316`.
pub const FITS: [u8; 3] = [0xf9, 0x73, 0x16];
/// The ghost where the block does not fit: `#ef4444`.
pub const BLOCKED: [u8; 3] = [0xef, 0x44, 0x44];
/// The ghost's opacity.
pub const GHOST_ALPHA: f32 = 0.3;
/// The ghost's colour where the block fits: its material's (sRGB).
pub fn ghost_colour(block: &Block) -> [u8; 3] {
    blockfall_game::blocks::materials::MATERIALS
        .get(usize::from(block.material))
        .map_or(FITS, |material| material.colour)
}

/// The would-fall tint's opacity.
pub const TINT_ALPHA: f32 = 0.5;
/// How far the tint's vertices are moved toward the eye, in meters.
const TINT_TOWARD_EYE: f32 = 0.02;

/// What the markers show this frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MarkerView {
    /// The block to be placed, and whether it fits where it would go.
    pub ghost: Option<(Block, bool)>,
    /// The aimed block.
    pub outline: Option<Block>,
    /// The blocks that would fall (ids in the store passed to the record).
    pub tint: Vec<BlockId>,
}

/// The push constants of `markers.vert` (`shaders/markers.glsl`): 80 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MarkerPush {
    pub view_projection: [f32; 16],
    /// xyz: the eye; w: how far vertices move toward it.
    pub eye: [f32; 4],
}

/// The tint's mesh, and what it was made from.
struct Tint {
    buffer: Buffer,
    vertices: u32,
    ids: Vec<BlockId>,
    revision: u64,
}

/// Draws the markers.
pub struct MarkersRenderer {
    device: Arc<gpu::Device>,
    layout: PipelineLayout,
    /// Blended triangles, back faces culled, depth tested, not written.
    surfaces: Pipeline,
    /// Blended lines, depth tested, not written.
    lines: Pipeline,
    tint: Option<Tint>,
    mesh: BlockMesh,
    draws_last_frame: u32,
}

impl MarkersRenderer {
    /// The pipelines and the per-frame buffers; `colour_format` is the target's format.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
    ) -> GpuResult<Self> {
        let device = gpu.device.clone();
        let (layout, surfaces, lines) = pipelines::create(&device, shaders, colour_format)?;
        Ok(Self {
            device,
            layout,
            surfaces,
            lines,
            tint: None,
            mesh: BlockMesh::new(),
            draws_last_frame: 0,
        })
    }

    /// Forgets the would-fall tint (a new world is drawn next: its store's revision and block
    /// ids may repeat the old one's); the pipelines and buffers stay.
    pub fn forget_all(&mut self) {
        self.tint = None;
    }

    /// Draw calls recorded in the last frame (at most three).
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Records the markers pass ("markers", labelled and timed) into the frame being recorded,
    /// loading and storing `target` and `depth` as the blocks' pass does. `store` holds the
    /// tinted blocks.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        depth: &Image,
        view: &Camera,
        store: &BlockStore,
        markers: &MarkerView,
    ) -> GpuResult<()> {
        let device = self.device.clone();
        self.update_tint(store, &markers.tint)?;

        let mut vertices = Vec::with_capacity(GHOST_VERTICES + OUTLINE_VERTICES);
        if let Some((block, fits)) = markers.ghost {
            let colour = linear(
                if fits { ghost_colour(&block) } else { BLOCKED },
                GHOST_ALPHA,
            );
            let (low, high) = block_box(&block, 0.0);
            push_box(&mut vertices, low, high, colour);
        }
        let ghost_vertices = vertices.len() as u32;
        if let Some(block) = markers.outline {
            let (low, high) = block_box(&block, OUTLINE_MARGIN);
            push_edges(&mut vertices, low, high, OUTLINE);
        }
        let outline_vertices = vertices.len() as u32 - ghost_vertices;
        // Ghost then outline vertices, in the frame's transient memory.
        let written = if vertices.is_empty() {
            None
        } else {
            Some(frames.transient(TransientUse::Vertex, &vertices)?)
        };

        // Vertices only, written by the host (the tint's buffer, the frame's transient memory):
        // no buffer reads to declare.
        let mut pass = frames
            .pass(PASS_NAME)
            .draws_into(&target, Load::Keep)
            .depth(depth, Load::Keep)
            .draw(&device)?;
        let mut view_projection = [0.0; 16];
        view_projection.copy_from_slice(view.view_projection.as_slice());
        let push = |toward_eye: f32| MarkerPush {
            view_projection,
            eye: [view.eye.x, view.eye.y, view.eye.z, toward_eye],
        };
        let mut draws = 0;
        // The frame ring waited for this slot's last frame before `begin`, so the host write
        // above touches nothing the GPU reads. Every draw stays within the vertices written.
        if let Some(tint) = &self.tint {
            pass.bind_pipeline(&self.surfaces);
            pass.push(&self.layout, &push(TINT_TOWARD_EYE));
            pass.bind_vertices(0, &tint.buffer, 0)?;
            pass.draw(0..tint.vertices, 0..1);
            draws += 1;
        }
        if let Some(written) = &written {
            pass.bind_vertices(0, frames.transient_buffer(written)?, written.offset)?;
        }
        if ghost_vertices > 0 {
            pass.bind_pipeline(&self.surfaces);
            pass.push(&self.layout, &push(0.0));
            pass.draw(0..ghost_vertices, 0..1);
            draws += 1;
        }
        if outline_vertices > 0 {
            pass.bind_pipeline(&self.lines);
            pass.push(&self.layout, &push(0.0));
            pass.draw(ghost_vertices..ghost_vertices + outline_vertices, 0..1);
            draws += 1;
        }
        drop(pass);
        self.draws_last_frame = draws;
        Ok(())
    }

    /// Meshes the tint again when its blocks or the store changed.
    fn update_tint(&mut self, store: &BlockStore, ids: &[BlockId]) -> GpuResult<()> {
        let same = self
            .tint
            .as_ref()
            .is_some_and(|tint| tint.ids == ids && tint.revision == store.revision());
        if same || (ids.is_empty() && self.tint.is_none()) {
            return Ok(());
        }
        // Dropping the old buffer retires it until the frames that read it have run.
        self.tint = None;
        self.mesh.clear();
        mesh_blocks(store, ids.iter().copied(), &mut self.mesh);
        if self.mesh.is_empty() {
            return Ok(());
        }
        let colour = linear(FITS, TINT_ALPHA);
        let vertices: Vec<MarkerVertex> = self
            .mesh
            .indices
            .iter()
            .map(|&index| MarkerVertex {
                position: self.mesh.positions[index as usize],
                colour,
            })
            .collect();
        let mut buffer = Buffer::new(
            &self.device,
            &BufferDesc {
                name: "markers: would-fall tint",
                size: (vertices.len() * std::mem::size_of::<MarkerVertex>()) as u64,
                usage: vk::BufferUsageFlags::VERTEX_BUFFER,
                location: MemoryLocation::CpuToGpu,
            },
        )?;
        buffer.write(0, &vertices)?;
        self.tint = Some(Tint {
            buffer,
            vertices: vertices.len() as u32,
            ids: ids.to_vec(),
            revision: store.revision(),
        });
        Ok(())
    }
}
