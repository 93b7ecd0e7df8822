//! The loose pieces on screen, pass `"pieces"`: each piece's mesh (in its own frame: the grid
//! positions its blocks had) uploaded once into a [`MeshArena`] when its body is first seen,
//! freed when the body is gone, and drawn under the body's transform
//! `world = R(orientation) · (local − centre) + position`.
//!
//! * **Transforms**: one [`PieceInstance`] per drawn piece (48 bytes: orientation, position and
//!   light, centre) written each frame into a host-visible buffer of that frame in flight, read
//!   as an instance-rate vertex stream; a draw's `firstInstance` picks the piece's element.
//! * **Draws**: one `vkCmdDrawIndexedIndirect` for every piece in view, from a host-visible
//!   buffer of draw commands of the frame in flight (one command per piece, its mesh's range and
//!   `firstInstance` = its index in the transforms), where the device has `multiDrawIndirect`
//!   and `drawIndirectFirstInstance` (lavapipe and the desktop drivers do); elsewhere one
//!   `vkCmdDrawIndexed` per piece. Hundreds of pieces cost one call.
//! * **Culling**: a piece whose bounding sphere (its mesh's box about the turned middle) is
//!   outside the frustum or in the complete fog is left out of the draw commands.
//! * **Light**: one sky light per piece, the light where it broke off: the caller's light at the
//!   body's position when its handle is first seen, kept for the piece's life.
//! * **Room**: 64 Ki vertices and 128 Ki indices at first (about 2700 plain blocks in pieces);
//!   when full, an arena twice the size of what is needed, every piece put into it again.
//!
//! `instance` holds what each frame writes for a piece in view (its [`PieceInstance`] and draw
//! command) and the turn that places it; `meshes` keeps the pieces' meshes and lights.

mod instance;
mod meshes;

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::pipeline::vertex_attribute;
use blockfall_engine::gpu::{
    self, BufferAccess, FrameRing, Gpu, GpuResult, Image, Load, Pipeline, PipelineLayout,
    RenderPass, Sampled, ShaderLibrary, TransientRange, TransientUse,
};
use blockfall_physics::BodyHandle;
use ultraviolet::Vec3;

use self::instance::{turn, DRAW_COMMAND_BYTES};
use super::mesh_arena::MeshArena;
use super::{
    bind_material, shadowed_solid_pipeline, solid_pipeline, BlockMaterials, StructurePush,
};
use crate::frustum::Frustum;
use crate::pass::bindless_pass;
use crate::pass::ShadowedPipeline;
use crate::target::RenderTarget;
use blockfall_game::camera::Camera;
use blockfall_game::pieces::Pieces;

pub use self::instance::PieceInstance;

/// The name of the frame pass (label and timing).
pub const PASS_NAME: &str = "pieces";

/// Vertices and indices of the first arena.
const FIRST_VERTICES: u64 = 64 << 10;
const FIRST_INDICES: u64 = 128 << 10;

/// What is kept of a piece besides its mesh.
#[derive(Debug, Clone, Copy)]
struct Known {
    /// Its sky light, from where it broke off.
    light: f32,
    /// The middle of its mesh's box, in its own frame, and the box's half diagonal.
    middle: Vec3,
    radius: f32,
}

/// Draws the pieces.
pub struct PiecesRenderer {
    device: Arc<gpu::Device>,
    layout: PipelineLayout,
    pipeline: Pipeline,
    /// The material with the sun's shadows and the occlusion, where made.
    shadowed: Option<ShadowedPipeline>,
    materials: Arc<BlockMaterials>,
    bindless_set: vk::DescriptorSet,
    arena: MeshArena<BodyHandle>,
    known: HashMap<BodyHandle, Known>,
    /// `multiDrawIndirect` and `drawIndirectFirstInstance` are on: one call for every piece.
    indirect: bool,
    draws_last_frame: u32,
    pieces_last_frame: u32,
}

impl PiecesRenderer {
    /// The pipeline and the first arena; `colour_format` is the target's format; with
    /// `shadow_layout` (the shadow maps' set layout) the material with the sun's shadows and
    /// the occlusion too.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        materials: &Arc<BlockMaterials>,
        shadow_layout: Option<vk::DescriptorSetLayout>,
    ) -> GpuResult<Self> {
        let pass = bindless_pass::<StructurePush>(gpu, shaders, "blocks", "pieces")?;
        let vertex = shaders.get("pieces.vert", gpu.device.shader_target())?;
        let instance_attributes = [
            vertex_attribute(6, 1, vk::Format::R32G32B32A32_SFLOAT, 0),
            vertex_attribute(7, 1, vk::Format::R32G32B32A32_SFLOAT, 16),
            vertex_attribute(8, 1, vk::Format::R32G32B32A32_SFLOAT, 32),
        ];
        let pipeline = solid_pipeline(
            gpu,
            &pass.layout,
            "pieces",
            &vertex,
            &pass.fragment,
            colour_format,
            Some((std::mem::size_of::<PieceInstance>(), &instance_attributes)),
        )?;
        let shadowed = shadow_layout
            .map(|shadow_layout| {
                shadowed_solid_pipeline(
                    gpu,
                    shaders,
                    "pieces",
                    &vertex,
                    colour_format,
                    Some((std::mem::size_of::<PieceInstance>(), &instance_attributes)),
                    shadow_layout,
                )
            })
            .transpose()?;
        let adapter = &gpu.device.adapter;
        let indirect = adapter.multi_draw_indirect && adapter.draw_indirect_first_instance;
        if !indirect {
            log::warn!(
                "pieces: {} lacks multiDrawIndirect or drawIndirectFirstInstance; one draw per \
                 piece",
                adapter.name
            );
        }
        Ok(Self {
            device: gpu.device.clone(),
            layout: pass.layout,
            pipeline,
            shadowed,
            materials: materials.clone(),
            bindless_set: gpu.bindless.set,
            arena: MeshArena::new(&gpu.device, "pieces", FIRST_VERTICES, FIRST_INDICES)?,
            known: HashMap::new(),
            indirect,
            draws_last_frame: 0,
            pieces_last_frame: 0,
        })
    }

    /// Draw calls recorded in the last frame: 1 (or 0 with no piece in view) where the device
    /// draws indirect, else one per piece in view.
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Pieces drawn in the last frame.
    pub fn pieces_last_frame(&self) -> u32 {
        self.pieces_last_frame
    }

    /// Records the pieces pass ("pieces", labelled and timed) into the frame being recorded,
    /// loading and storing `target` and `depth` as [`super::BlocksRenderer::record`] does,
    /// with the sun's shadows and the occlusion where `shadows` (the shadow maps' set of this
    /// frame) is given.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        depth: &Image,
        view: &Camera,
        pieces: &Pieces,
        shadows: Option<Sampled>,
    ) -> GpuResult<()> {
        let device = self.device.clone();
        let frustum = Frustum::of(view);
        let (instances, draw_commands) = self.instances(pieces, |middle, radius| {
            frustum.may_see_sphere(middle, radius)
        });
        // The instances and draw commands in the frame's transient memory.
        let instances_range = frames.transient(TransientUse::Vertex, &instances)?;
        let commands_range = frames.transient(TransientUse::Indirect, &draw_commands)?;
        // How many commands to draw, where the GPU reads it (`draw_indexed_indirect_count`):
        // written here by the CPU, by a culling pass once the GPU decides what is in view.
        let count_range =
            frames.transient(TransientUse::Indirect, &[draw_commands.len() as u32])?;

        // The pieces' meshes, copied in by earlier submissions: vertices and indices.
        let reads = [BufferAccess::VertexAttributeRead, BufferAccess::IndexRead];
        let mut pass = frames
            .pass(PASS_NAME)
            .draws_into(&target, Load::Keep)
            .depth(depth, Load::Keep)
            .samples(shadows.as_slice())
            .reads(&reads)
            .draw(&device)?;
        let push = StructurePush::new(view, self.materials.slot());
        // Every command reads a range the arena gave out and an instance written above. The
        // indirect draw only where multiDrawIndirect and drawIndirectFirstInstance are on, its
        // count read by the GPU where drawIndirectCount is too.
        let layout = bind_material(
            &mut pass,
            (&self.pipeline, &self.layout),
            self.shadowed.as_ref(),
            self.bindless_set,
            shadows.map(|sampled| sampled.set),
        );
        pass.push(layout, &push);
        pass.bind_vertices(0, self.arena.vertex_buffer(), 0)?;
        pass.bind_vertices(
            1,
            frames.transient_buffer(&instances_range)?,
            instances_range.offset,
        )?;
        pass.bind_indices(self.arena.index_buffer(), 0, vk::IndexType::UINT32)?;
        let draws = if draw_commands.is_empty() {
            0
        } else if self.indirect && device.adapter.draw_indirect_count {
            pass.draw_indexed_indirect_count(
                (
                    frames.transient_buffer(&commands_range)?,
                    commands_range.offset,
                ),
                (frames.transient_buffer(&count_range)?, count_range.offset),
                draw_commands.len() as u32,
                DRAW_COMMAND_BYTES as u32,
            )?;
            1
        } else if self.indirect {
            pass.draw_indexed_indirect(
                frames.transient_buffer(&commands_range)?,
                commands_range.offset,
                draw_commands.len() as u32,
                DRAW_COMMAND_BYTES as u32,
            )?;
            1
        } else {
            for &[index_count, _, first_index, vertex_offset, first_instance] in &draw_commands {
                pass.draw_indexed(
                    first_index..first_index + index_count,
                    vertex_offset as i32,
                    first_instance..first_instance + 1,
                )?;
            }
            draw_commands.len() as u32
        };
        drop(pass);
        self.draws_last_frame = draws;
        self.pieces_last_frame = draw_commands.len() as u32;
        Ok(())
    }

    /// Every piece whose mesh lies within `reach` of `eye`, as shadow casters: their instances
    /// and draw commands written into the frame's transient memory once, for every cascade's
    /// pass to draw with [`PiecesRenderer::draw_casters`]. `None` when there is none.
    pub fn casters(
        &self,
        frames: &mut FrameRing,
        pieces: &Pieces,
        eye: Vec3,
        reach: f32,
    ) -> GpuResult<Option<PieceCasters>> {
        let (instances, draw_commands) = self.instances(pieces, |middle, radius| {
            (middle - eye).mag() - radius <= reach
        });
        if draw_commands.is_empty() {
            return Ok(None);
        }
        Ok(Some(PieceCasters {
            instances: frames.transient(TransientUse::Vertex, &instances)?,
            commands: frames.transient(TransientUse::Indirect, &draw_commands)?,
            draw_commands,
        }))
    }

    /// Draws `casters` into a shadow cascade's pass whose pipeline (instance stream at binding
    /// 1) and push constants are bound; returns the triangles drawn.
    pub fn draw_casters(
        &self,
        pass: &mut RenderPass<'_>,
        frames: &FrameRing,
        casters: &PieceCasters,
    ) -> GpuResult<u64> {
        pass.bind_vertices(0, self.arena.vertex_buffer(), 0)?;
        pass.bind_vertices(
            1,
            frames.transient_buffer(&casters.instances)?,
            casters.instances.offset,
        )?;
        pass.bind_indices(self.arena.index_buffer(), 0, vk::IndexType::UINT32)?;
        if self.indirect {
            pass.draw_indexed_indirect(
                frames.transient_buffer(&casters.commands)?,
                casters.commands.offset,
                casters.draw_commands.len() as u32,
                DRAW_COMMAND_BYTES as u32,
            )?;
        } else {
            for &[index_count, _, first_index, vertex_offset, first_instance] in
                &casters.draw_commands
            {
                pass.draw_indexed(
                    first_index..first_index + index_count,
                    vertex_offset as i32,
                    first_instance..first_instance + 1,
                )?;
            }
        }
        Ok(casters
            .draw_commands
            .iter()
            .map(|command| u64::from(command[0] / 3))
            .sum())
    }

    /// The instance and draw command of every piece with a mesh for which `keep(middle,
    /// radius)` holds (its mesh's bounding sphere, turned and moved by its body).
    fn instances(
        &self,
        pieces: &Pieces,
        keep: impl Fn(Vec3, f32) -> bool,
    ) -> (Vec<PieceInstance>, Vec<[u32; 5]>) {
        let mut instances = Vec::new();
        let mut draw_commands = Vec::new();
        for (handle, _, body) in pieces.iter() {
            let (Some(known), Some(range)) = (self.known.get(&handle), self.arena.get(&handle))
            else {
                continue;
            };
            let instance = PieceInstance::of(&body, known.light);
            let [cx, cy, cz, _] = instance.centre;
            let [px, py, pz, _] = instance.position_light;
            let middle = turn(instance.rotation, known.middle - Vec3::new(cx, cy, cz))
                + Vec3::new(px, py, pz);
            if !keep(middle, known.radius) {
                continue;
            }
            // A `VkDrawIndexedIndirectCommand`: indexCount, instanceCount, firstIndex,
            // vertexOffset (as its bits), firstInstance.
            draw_commands.push([
                range.index_count(),
                1,
                range.first_index(),
                range.vertex_offset() as u32,
                instances.len() as u32,
            ]);
            instances.push(instance);
        }
        (instances, draw_commands)
    }
}

/// The pieces drawn into the shadow cascades of a frame ([`PiecesRenderer::casters`]).
pub struct PieceCasters {
    instances: TransientRange,
    commands: TransientRange,
    draw_commands: Vec<[u32; 5]>,
}

impl PieceCasters {
    /// Bytes of an instance in the stream at binding 1 (the casters' pipeline's stride).
    pub const INSTANCE_BYTES: usize = std::mem::size_of::<PieceInstance>();
}
