//! The casters' depth-only pipelines (`shadow_terrain.vert`, `shadow_blocks.vert`,
//! `shadow_pieces.vert`: no fragment stage) and a cascade's draws: the terrain chunks and block
//! regions its [`CasterCull`] keeps, one draw each, and every piece near enough in one indirect
//! draw.

use ash::vk;
use blockfall_engine::gpu::pipeline::{vertex_attribute, vertex_binding};
use blockfall_engine::gpu::{
    DepthBias, FrameRing, Gpu, GpuResult, GraphicsPipelineDesc, Pipeline, PipelineLayout,
    RenderPass, ShaderLibrary,
};
use blockfall_engine::meshing::terrain_meshes::{
    ResidentChunk, DRAW_BYTES, VERTEX_BYTES as TERRAIN_VERTEX_BYTES,
};
use ultraviolet::Vec3;

use super::cascades::{Cascade, CasterCull};
use super::Casters;
use crate::structures::pieces::PieceCasters;
use crate::structures::VERTEX_BYTES as BLOCK_VERTEX_BYTES;
use crate::target::DEPTH_FORMAT;
use blockfall_game::terrain::chunks::ChunkCoord;

/// The push constants of the casters' vertex shaders (`shaders/shadow.glsl`): 80 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ShadowPush {
    /// World → the cascade's clip space.
    pub cascade: [f32; 16],
    /// xyz: a terrain chunk's padded origin, w its level of detail; 0 for blocks and pieces.
    pub origin: [i32; 4],
}

impl ShadowPush {
    fn new(cascade: &Cascade, origin: [i32; 3], level: u8) -> Self {
        let mut matrix = [0.0; 16];
        matrix.copy_from_slice(cascade.matrix.as_slice());
        Self {
            cascade: matrix,
            origin: [origin[0], origin[1], origin[2], i32::from(level)],
        }
    }
}

/// The box terrain chunk `coord`'s vertices lie in: its padded grid.
fn chunk_box(coord: ChunkCoord) -> (Vec3, Vec3) {
    let (low, high) = coord.vertex_box();
    (Vec3::from(low), Vec3::from(high))
}

/// The terrain chunks that may cast or receive the sun's shadows in a frame: every resident
/// chunk that is not dark, with the box its vertices lie in; gathered once for the frame's
/// cascades.
pub struct TerrainCasters {
    chunks: Vec<(Vec3, Vec3, ChunkCoord, ResidentChunk)>,
}

impl TerrainCasters {
    pub fn of(scene: &Casters<'_>) -> Self {
        Self {
            chunks: scene
                .terrain
                .chunks()
                .filter_map(|(key, chunk)| Some((ChunkCoord::from_key(key)?, chunk)))
                .filter(|(coord, _)| !(scene.dark)(*coord))
                .map(|(coord, chunk)| {
                    let (low, high) = chunk_box(coord);
                    (low, high, coord, chunk)
                })
                .collect(),
        }
    }
}

/// What a frame's cascades draw, gathered once for all of them.
pub struct Gathered {
    pub terrain: TerrainCasters,
    /// The pieces near enough, their instances in the frame's transient memory.
    pub pieces: Option<PieceCasters>,
}

/// The lowest point that may receive a shadow in `cull`'s slice of the view: the lowest box of
/// a terrain chunk that is not dark or of a block region that meets the slice (pieces rest on
/// one or the other). `None` when none does.
pub fn receiver_floor(
    cull: &CasterCull,
    terrain: &TerrainCasters,
    scene: &Casters<'_>,
) -> Option<f32> {
    let chunks = terrain.chunks.iter().map(|&(low, high, _, _)| (low, high));
    let regions = scene.blocks.regions().map(|(bounds, _)| bounds);
    chunks
        .chain(regions)
        .filter(|(low, high)| cull.meets_slice(*low, *high))
        .map(|(low, _)| low.y)
        .min_by(f32::total_cmp)
}

/// The rasteriser's bias of the casters' depth: a slope-scaled part against acne on surfaces
/// the sun grazes, and a small constant; the lookup's offset along the normal does the rest.
const CASTER_BIAS: DepthBias = DepthBias {
    constant: 1.0,
    slope: 1.5,
};

/// The three casters' pipelines, over one layout of push constants only.
pub struct CasterPipelines {
    layout: PipelineLayout,
    terrain: Pipeline,
    blocks: Pipeline,
    pieces: Pipeline,
}

impl CasterPipelines {
    pub fn new(gpu: &Gpu, shaders: &ShaderLibrary) -> GpuResult<Self> {
        let device = &gpu.device;
        let target = device.shader_target();
        let layout = PipelineLayout::new(
            device,
            "shadow casters",
            &[],
            std::mem::size_of::<ShadowPush>() as u32,
            vk::ShaderStageFlags::VERTEX,
        )?;
        let pipeline = |name: &str,
                        shader: &str,
                        bindings: &[vk::VertexInputBindingDescription],
                        attributes: &[vk::VertexInputAttributeDescription]|
         -> GpuResult<Pipeline> {
            let vertex = shaders.get(shader, target)?;
            Pipeline::graphics(
                device,
                &layout,
                &GraphicsPipelineDesc {
                    name,
                    vertex: &vertex,
                    fragment: &[],
                    vertex_bindings: bindings,
                    vertex_attributes: attributes,
                    topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                    cull_mode: vk::CullModeFlags::BACK,
                    front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                    polygon_mode: vk::PolygonMode::FILL,
                    color_formats: &[],
                    depth_format: Some(DEPTH_FORMAT),
                    depth_write: true,
                    blend: false,
                    depth_bias: Some(CASTER_BIAS),
                },
            )
        };
        let position = |binding| vertex_attribute(0, binding, vk::Format::R32G32B32_SFLOAT, 0);
        let terrain = pipeline(
            "shadow casters: terrain",
            "shadow_terrain.vert",
            &[vertex_binding(
                0,
                TERRAIN_VERTEX_BYTES as usize,
                vk::VertexInputRate::VERTEX,
            )],
            &[position(0)],
        )?;
        let block_binding =
            vertex_binding(0, BLOCK_VERTEX_BYTES as usize, vk::VertexInputRate::VERTEX);
        let blocks = pipeline(
            "shadow casters: blocks",
            "shadow_blocks.vert",
            &[block_binding],
            &[position(0)],
        )?;
        let pieces = pipeline(
            "shadow casters: pieces",
            "shadow_pieces.vert",
            &[
                block_binding,
                vertex_binding(
                    1,
                    PieceCasters::INSTANCE_BYTES,
                    vk::VertexInputRate::INSTANCE,
                ),
            ],
            &[
                position(0),
                vertex_attribute(1, 1, vk::Format::R32G32B32A32_SFLOAT, 0),
                vertex_attribute(2, 1, vk::Format::R32G32B32A32_SFLOAT, 16),
                vertex_attribute(3, 1, vk::Format::R32G32B32A32_SFLOAT, 32),
            ],
        )?;
        Ok(Self {
            layout,
            terrain,
            blocks,
            pieces,
        })
    }

    /// Draws `scene`'s casters that `cull` keeps into the pass of `cascade`; returns the
    /// triangles drawn.
    pub fn draw(
        &self,
        pass: &mut RenderPass<'_>,
        frames: &FrameRing,
        cascade: &Cascade,
        cull: &CasterCull,
        scene: &Casters<'_>,
        gathered: &Gathered,
    ) -> GpuResult<u64> {
        let terrain = &gathered.terrain;
        let mut triangles = 0;
        // The terrain: one indirect draw per chunk, reading the command the meshing wrote.
        let meshes = scene.terrain;
        let mut bound = false;
        for &(low, high, coord, chunk) in &terrain.chunks {
            if !cull.may_cast(low, high) {
                continue;
            }
            let origin = coord.padded_origin();
            if !bound {
                pass.bind_pipeline(&self.terrain);
                pass.bind_vertices(0, meshes.vertex_buffer(), 0)?;
                pass.bind_indices(meshes.index_buffer(), 0, vk::IndexType::UINT32)?;
                bound = true;
            }
            pass.push(&self.layout, &ShadowPush::new(cascade, origin, coord.level));
            pass.draw_indexed_indirect(
                meshes.draw_buffer(),
                u64::from(chunk.slot) * DRAW_BYTES,
                1,
                DRAW_BYTES as u32,
            )?;
            triangles += chunk.indices.size / 3;
        }
        // The blocks: one draw per region.
        let regions: Vec<_> = scene
            .blocks
            .regions()
            .filter(|((low, high), _)| cull.may_cast(*low, *high))
            .collect();
        if !regions.is_empty() {
            pass.bind_pipeline(&self.blocks);
            pass.push(&self.layout, &ShadowPush::new(cascade, [0; 3], 0));
            let arena = scene.blocks.arena();
            pass.bind_vertices(0, arena.vertex_buffer(), 0)?;
            pass.bind_indices(arena.index_buffer(), 0, vk::IndexType::UINT32)?;
            for (_, range) in &regions {
                let first = range.first_index();
                pass.draw_indexed(
                    first..first + range.index_count(),
                    range.vertex_offset(),
                    0..1,
                )?;
                triangles += u64::from(range.index_count() / 3);
            }
        }
        // The pieces: one indirect draw for all.
        if let Some(pieces) = &gathered.pieces {
            pass.bind_pipeline(&self.pieces);
            pass.push(&self.layout, &ShadowPush::new(cascade, [0; 3], 0));
            triangles += scene.pieces.draw_casters(pass, frames, pieces)?;
        }
        Ok(triangles)
    }
}
