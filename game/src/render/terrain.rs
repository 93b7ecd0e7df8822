//! The terrain on screen: every chunk of a [`TerrainMeshes`] drawn from its arenas through the
//! draw commands the GPU wrote, with the terrain material of `shaders/terrain.frag`.
//!
//! * **Geometry**: binding 0 is the vertex arena (position xyz, normal xyz, in the chunk's
//!   padded-grid units), the index buffer the index arena (indices relative to the chunk's first
//!   vertex, which the draw's `vertexOffset` adds). Each chunk's vertices are moved to the world
//!   by its padded origin ([`ChunkCoord::padded_origin`]), which the draw's push constants carry.
//! * **Draws**: one `vkCmdDrawIndexedIndirect` per resident chunk in view, reading the command
//!   the GPU wrote into the chunk's slot, nearest chunk first (so that early depth rejects most
//!   hidden fragments). Chunks wholly outside the [`Camera`]'s frustum or wholly in the
//!   complete fog are not drawn: about two thirds of the resident chunks at the start. A single
//!   indirect draw over every slot (`multiDrawIndirect`, the origin looked up by
//!   `gl_InstanceIndex`) would draw them all; culling on the GPU (a compute pass writing a
//!   compacted command list and a count for `vkCmdDrawIndexedIndirectCount`) is the step that
//!   would make one call pay.
//! * **Material**: triplanar (weights `|n|⁴`, one repeat per 4 m) from the terrain texture array
//!   ([`terrain_array`]) in the bindless table; rock on steep faces, grass on flat high ground,
//!   sand on flat low ground, dirt in between, blended smoothly ([`TerrainLook`]).
//! * **Light**: the sun from the upper right of the first view plus the sky's ambient light,
//!   both scaled by the sky light: binding 1 is the light arena (one float per vertex, at the
//!   vertex's index, so `vertexOffset` serves both bindings), which the compute pass blends from
//!   the chunk's light grid (`game::terrain::sky_light`, made on the CPU workers by
//!   `game::terrain::streaming`) at each vertex.
//! * **Fog**: toward the sky colour from half the view radius, complete at 95% of it (8 chunks:
//!   128 m to 243 m; the [`Camera`]'s fog distance; docs/terrain.md), so the edge of the loaded
//!   chunks is never seen.
//! * **Wireframe**: a second pipeline with `polygonMode = LINE`, only where the device has
//!   `fillModeNonSolid` turned on; otherwise [`TerrainRenderer::set_wireframe`] logs why and
//!   the terrain stays filled.

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::pipeline::{vertex_attribute, vertex_binding};
use blockfall_engine::gpu::{
    self, BoundTexture, FrameRing, Gpu, GpuResult, GraphicsPipelineDesc, Image, ImageAccess,
    ImageDesc, Pipeline, PipelineLayout, ShaderLibrary, TextureSlot,
};
use blockfall_engine::meshing::terrain_meshes::{DRAW_BYTES, LIGHT_BYTES, VERTEX_BYTES};
use blockfall_engine::meshing::TerrainMeshes;
use ultraviolet::Vec3;

use super::frustum::Frustum;
use super::pass::bindless_pass;
use super::target::{DepthTarget, RenderTarget, DEPTH_FORMAT};
use super::textures::{linear_to_srgb, terrain_array};
use crate::camera::{Camera, Marker};
use crate::terrain::chunks::{ChunkCoord, CHUNK_SIZE};

/// The world's sky, in linear light: the clear colour behind the terrain and the colour its fog
/// fades into, for the blocks', pieces' and markers' passes too (`super::structures`). Not the
/// test scene's own clear colour ([`super::test_scene::TEST_SCENE_SKY`]).
pub const WORLD_SKY: [f32; 3] = [0.45, 0.66, 0.9];
/// The name of the frame pass (label and timing).
pub const PASS_NAME: &str = "terrain";

/// Texture size of a terrain layer.
const TEXTURE_SIZE: u32 = 256;

/// The push constants of `terrain.vert` / `terrain.frag` (`shaders/terrain.glsl`): 128 bytes,
/// what every device offers. (The sun's direction is a constant of the shader.)
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainPush {
    pub view_projection: [f32; 16],
    /// xyz: the eye; w: the distance at which the fog is complete.
    pub camera: [f32; 4],
    /// rgb: the sky colour (linear), also the fog's; w: [`TerrainLook::ground`].
    pub sky: [f32; 4],
    /// xyz: the middle of the terrain tool's sphere; w: its radius, 0 for no marker.
    pub marker: [f32; 4],
    /// xyz: the drawn chunk's padded origin; w: the bindless slot of the terrain array.
    pub chunk: [i32; 4],
}

/// Where the terrain's layers go: flat ground more than 14 m (give or take 2 m) below the
/// spawn's ground is sand, flat ground from 4 m (give or take 4 m) below it up is grass; steep
/// faces are rock whatever the height (`terrain.frag`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerrainLook {
    /// The ground's height at the spawn point, in meters.
    pub ground: f32,
}

impl TerrainLook {
    /// Layers for a world whose ground at the spawn is `spawn_ground` high.
    pub fn around(spawn_ground: f32) -> Self {
        Self {
            ground: spawn_ground,
        }
    }
}

/// The sky as sRGB bytes, as the offscreen target stores it.
pub fn sky_colour() -> [u8; 3] {
    WORLD_SKY.map(linear_to_srgb)
}

/// The push constants for drawing chunk `key` (a chunk coordinate) in `view`.
pub fn push_constants(
    view: &Camera,
    look: &TerrainLook,
    slot: TextureSlot,
    key: [i32; 3],
) -> TerrainPush {
    let mut view_projection = [0.0; 16];
    view_projection.copy_from_slice(view.view_projection.as_slice());
    let [ox, oy, oz] = ChunkCoord::new(key[0], key[1], key[2]).padded_origin();
    let marker = view.marker.map_or([0.0; 4], |marker| {
        let Marker { centre, radius } = marker;
        [centre.x, centre.y, centre.z, radius.max(0.0)]
    });
    TerrainPush {
        view_projection,
        camera: [view.eye.x, view.eye.y, view.eye.z, view.fog_distance],
        sky: [WORLD_SKY[0], WORLD_SKY[1], WORLD_SKY[2], look.ground],
        marker,
        chunk: [ox, oy, oz, slot.0 as i32],
    }
}

/// Draws the chunks of a [`TerrainMeshes`].
pub struct TerrainRenderer {
    device: Arc<gpu::Device>,
    layout: PipelineLayout,
    fill: Pipeline,
    /// `polygonMode = LINE`; `None` where the device lacks `fillModeNonSolid`.
    wireframe: Option<Pipeline>,
    wireframe_on: bool,
    /// The terrain's texture array in the bindless table (its slot freed when it drops).
    texture: BoundTexture,
    depth: DepthTarget,
    bindless_set: vk::DescriptorSet,
    look: TerrainLook,
    draws_last_frame: u32,
    triangles_last_frame: u64,
}

impl TerrainRenderer {
    /// Makes the pipelines and the terrain texture array (with mips), and puts the array into
    /// the bindless table. `colour_format` is the target's format.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        look: TerrainLook,
    ) -> GpuResult<Self> {
        let device = gpu.device.clone();
        let pass = bindless_pass::<TerrainPush>(gpu, shaders, "terrain", "terrain")?;
        let bindings = [
            vertex_binding(0, VERTEX_BYTES as usize, vk::VertexInputRate::VERTEX),
            vertex_binding(1, LIGHT_BYTES as usize, vk::VertexInputRate::VERTEX),
        ];
        let attributes = [
            vertex_attribute(0, 0, vk::Format::R32G32B32_SFLOAT, 0),
            vertex_attribute(1, 0, vk::Format::R32G32B32_SFLOAT, 12),
            vertex_attribute(2, 1, vk::Format::R32_SFLOAT, 0),
        ];
        let colour_formats = [colour_format];
        let pipeline = |name: &str, polygon_mode: vk::PolygonMode| {
            Pipeline::graphics(
                &device,
                &pass.layout,
                &GraphicsPipelineDesc {
                    name,
                    vertex: &pass.vertex,
                    fragment: &pass.fragment,
                    vertex_bindings: &bindings,
                    vertex_attributes: &attributes,
                    topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                    // Both sides: cave walls are seen from inside as well as from outside.
                    cull_mode: vk::CullModeFlags::NONE,
                    front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                    polygon_mode,
                    color_formats: &colour_formats,
                    depth_format: Some(DEPTH_FORMAT),
                    depth_write: true,
                    blend: false,
                },
            )
        };
        let fill = pipeline("terrain: fill", vk::PolygonMode::FILL)?;
        let wireframe = if wireframe_available(&device) {
            Some(pipeline("terrain: wireframe", vk::PolygonMode::LINE)?)
        } else {
            None
        };

        let data = terrain_array(TEXTURE_SIZE);
        let texture = Image::new(
            &device,
            &ImageDesc {
                name: "terrain texture array: grass, dirt, rock, sand",
                format: vk::Format::R8G8B8A8_SRGB,
                width: data.size,
                height: data.size,
                layers: data.layers,
                mips: data.mips,
                usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
                view_type: vk::ImageViewType::TYPE_2D_ARRAY,
            },
        )?;
        let mut batch = gpu.uploader.begin("terrain textures");
        batch.image(&texture, &data.bytes, ImageAccess::ShaderRead)?;
        let uploaded = batch.submit()?;
        device.wait_for(uploaded)?;
        let texture = gpu.bindless.bind(texture)?;

        Ok(Self {
            device,
            layout: pass.layout,
            fill,
            wireframe,
            wireframe_on: false,
            texture,
            depth: DepthTarget::new(&gpu.device, "terrain: depth"),
            bindless_set: gpu.bindless.set,
            look,
            draws_last_frame: 0,
            triangles_last_frame: 0,
        })
    }

    /// The bindless slot of the terrain texture array.
    pub fn slot(&self) -> TextureSlot {
        self.texture.slot()
    }

    /// Where the layers go.
    pub fn look(&self) -> TerrainLook {
        self.look
    }

    /// Where the layers go from now on (a new world's ground).
    pub fn set_look(&mut self, look: TerrainLook) {
        self.look = look;
    }

    /// Whether the device can draw the wireframe.
    pub fn wireframe_supported(&self) -> bool {
        self.wireframe.is_some()
    }

    /// Whether the next frames draw the wireframe.
    pub fn wireframe(&self) -> bool {
        self.wireframe_on
    }

    /// Turns the wireframe on or off; returns whether it is on. Where the device lacks
    /// `fillModeNonSolid` it stays off, with an error in the log.
    pub fn set_wireframe(&mut self, on: bool) -> bool {
        if on && self.wireframe.is_none() {
            log::error!(
                "terrain: wireframe needs the device feature fillModeNonSolid, which this \
                 device was created without; the terrain stays filled"
            );
            self.wireframe_on = false;
        } else {
            self.wireframe_on = on;
        }
        self.wireframe_on
    }

    /// The depth image the last [`TerrainRenderer::record`] drew into and stored (`None` before
    /// the first frame): the passes after the terrain's test against it and write into it
    /// (`super::target::begin_loaded`). It is in depth-attachment layout after the pass.
    pub fn depth(&self) -> Option<&Image> {
        self.depth.current()
    }

    /// Indirect draws recorded in the last frame: one per resident chunk in view.
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Triangles those draws held.
    pub fn triangles_last_frame(&self) -> u64 {
        self.triangles_last_frame
    }

    /// Records the terrain pass ("terrain", labelled and timed) into the frame being recorded:
    /// the target goes from undefined to colour attachment, cleared to the sky, and is left as
    /// a colour attachment; the depth image ([`TerrainRenderer::depth`]) is cleared, written and
    /// stored for the passes after this one. Also records `meshes`' pending draw-slot clears before drawing.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        meshes: &mut TerrainMeshes,
        view: &Camera,
    ) -> GpuResult<()> {
        let device = self.device.clone();
        let command_buffer = frames.command_buffer();

        frames.begin_pass(PASS_NAME);
        meshes.record_pending_clears(command_buffer);
        let depth = self.depth.ensure(target.width, target.height)?;
        let mut pass = super::target::begin_colour_and_depth(
            &device,
            command_buffer,
            &target,
            depth,
            WORLD_SKY,
        );
        let pipeline = match (&self.wireframe, self.wireframe_on) {
            (Some(wireframe), true) => wireframe,
            _ => &self.fill,
        };
        // Nearest first: the depth test then rejects most hidden fragments before they are
        // shaded (the material's 12 texture reads are the frame's cost on a CPU rasteriser).
        // Chunks wholly outside the view, or wholly in the complete fog, are not drawn.
        let frustum = Frustum::of(view);
        let mut chunks: Vec<_> = meshes
            .chunks()
            .filter(|(key, _)| may_see_chunk(&frustum, *key))
            .map(|(key, chunk)| (distance_squared(view.eye, key), key, chunk))
            .collect();
        chunks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.slot.cmp(&b.2.slot)));
        // The arenas and draw slots live as long as `meshes` (which waits for its own
        // submissions, and whose meshing frames made their writes visible to indirect, index
        // and vertex reads); a replaced depth image is retired into the frame ring. Every draw
        // reads one slot (drawCount 1).
        pass.bind_pipeline(pipeline);
        pass.bind_set(&self.layout, self.bindless_set);
        pass.bind_vertices(0, meshes.vertex_buffer(), 0)?;
        pass.bind_vertices(1, meshes.light_buffer(), 0)?;
        pass.bind_indices(meshes.index_buffer(), 0, vk::IndexType::UINT32)?;
        for (_, key, chunk) in &chunks {
            pass.push(
                &self.layout,
                &push_constants(view, &self.look, self.texture.slot(), *key),
            );
            pass.draw_indexed_indirect(
                meshes.draw_buffer(),
                u64::from(chunk.slot) * DRAW_BYTES,
                1,
                DRAW_BYTES as u32,
            )?;
        }
        drop(pass);
        self.draws_last_frame = chunks.len() as u32;
        self.triangles_last_frame = chunks
            .iter()
            .map(|(_, _, chunk)| chunk.indices.size / 3)
            .sum();
        frames.end_pass();
        Ok(())
    }
}

/// Whether any part of chunk `key`'s box (its padded grid, where its vertices lie) may be seen.
fn may_see_chunk(frustum: &Frustum, key: [i32; 3]) -> bool {
    let [ox, oy, oz] = ChunkCoord::new(key[0], key[1], key[2]).padded_origin();
    let low = Vec3::new(ox as f32, oy as f32, oz as f32);
    frustum.may_see_box(low, low + Vec3::broadcast(CHUNK_SIZE as f32 + 1.0))
}

/// The squared distance from `eye` to the middle of chunk `key`.
fn distance_squared(eye: Vec3, key: [i32; 3]) -> f32 {
    let size = CHUNK_SIZE as f32;
    let middle = Vec3::new(
        (key[0] as f32 + 0.5) * size,
        (key[1] as f32 + 0.5) * size,
        (key[2] as f32 + 0.5) * size,
    );
    (middle - eye).mag_sq()
}

/// Whether a `polygonMode = LINE` pipeline may be used: the device turns `fillModeNonSolid` on
/// where the adapter has it (see `engine::gpu::device`); where not, the log says so.
fn wireframe_available(device: &gpu::Device) -> bool {
    if !device.adapter.fill_mode_non_solid {
        log::warn!(
            "terrain: {} lacks fillModeNonSolid; the wireframe draws filled",
            device.adapter.name
        );
    }
    device.adapter.fill_mode_non_solid
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::Generator;

    #[test]
    fn push_constants_fit_the_guaranteed_minimum() {
        assert_eq!(std::mem::size_of::<TerrainPush>(), 128);
    }

    #[test]
    fn chunks_behind_the_eye_or_in_the_full_fog_are_culled() {
        let eye = Vec3::new(16.0, 16.0, 16.0);
        let view = Camera::looking(eye, -Vec3::unit_z(), 1280, 720);
        let frustum = Frustum::of(&view);
        assert!(
            may_see_chunk(&frustum, [0, 0, 0]),
            "the chunk around the eye"
        );
        assert!(may_see_chunk(&frustum, [0, 0, -3]), "ahead");
        assert!(!may_see_chunk(&frustum, [0, 0, 3]), "behind");
        assert!(!may_see_chunk(&frustum, [5, 0, -1]), "far to the side");
        assert!(!may_see_chunk(&frustum, [0, 0, -9]), "beyond the fog");
        assert!(!may_see_chunk(&frustum, [0, 6, -2]), "high above the view");
    }

    #[test]
    fn chunk_origins_are_padded_origins() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let view = Camera::at_spawn(&generator, 64, 64);
        let look = TerrainLook::around(0.0);
        let push = push_constants(&view, &look, TextureSlot(3), [1, -2, 0]);
        assert_eq!(push.chunk, [31, -65, -1, 3]);
    }
}
