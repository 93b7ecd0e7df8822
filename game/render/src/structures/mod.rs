//! Blocks, pieces and the block tool's markers on screen: three passes after the terrain's,
//! each drawing into the same colour and depth (kept: `Load::Keep`), so that blocks
//! and ground hide each other.
//!
//! | pass | what | draws |
//! |---|---|---|
//! | `"blocks"` ([`BlocksRenderer`]) | the block store, meshed per region (64³ cells, 32 m) | one per region in view, nearest first |
//! | `"pieces"` ([`PiecesRenderer`]) | the loose pieces, each its own mesh under its body's transform | one indirect call for all of them |
//! | `"markers"` ([`MarkersRenderer`]) | the ghost of the block to place, the aimed block's outline, the would-fall tint | at most four |
//!
//! Blocks and pieces share the vertex format ([`BlockVertex`]: position, normal, grid-projected
//! texture coordinate, material layer, sky light, ambient occlusion; 44 bytes), the material
//! (the six materials' patterned texture array in the bindless table, [`BlockMaterials`]), the
//! fragment shader (`blocks.frag`: lit and fogged like the terrain through `lighting.glsl`) and
//! the way their meshes are kept ([`MeshArena`]: a few big buffers sub-allocated, no Vulkan
//! allocation per mesh).
//!
//! A frame, for the caller:
//!
//! ```text
//!   blocks.update(gpu, store, changed regions, around)  uploads (before frames.begin())
//!   pieces.update(gpu, pieces, light)                   uploads (before frames.begin())
//!   frames.begin()
//!   terrain.record(…)                                   clears, draws, stores depth
//!   blocks.record(frames, target, depth, view)          depth = terrain.depth()
//!   pieces.record(frames, target, depth, view, pieces)
//!   markers.record(frames, target, depth, view, store, markers)
//!   readback / present, frames.submit(…)
//! ```

pub mod blocks;
pub mod markers;
pub mod mesh_arena;
pub mod pieces;

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::pipeline::{vertex_attribute, vertex_binding};
use blockfall_engine::gpu::{
    BoundTexture, Gpu, GpuResult, GraphicsPipelineDesc, ImageAccess, Pipeline, PipelineLayout,
    RenderPass, ShaderLibrary, TextureSlot,
};

use super::pass::{shadowed_pass, ShadowedPipeline};
use super::target::DEPTH_FORMAT;
use super::terrain::WORLD_SKY;
use super::textures::{material_array, TextureStyle};
use blockfall_game::blocks::materials::MATERIALS;
use blockfall_game::blocks::mesher::BlockMesh;
use blockfall_game::camera::Camera;

pub use blocks::{BlocksRenderer, PASS_NAME as BLOCKS_PASS};
pub use markers::{MarkerView, MarkersRenderer, PASS_NAME as MARKERS_PASS};
pub use mesh_arena::{MeshArena, MeshRange};
pub use pieces::{PiecesRenderer, PASS_NAME as PIECES_PASS};

/// Texture size of a material layer (as the test scene's).
const TEXTURE_SIZE: u32 = 256;

/// One vertex of a block or piece mesh (`blocks.vert`, `pieces.vert`): 44 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BlockVertex {
    /// Meters: in the world for blocks, in the piece's own frame for pieces.
    pub position: [f32; 3],
    /// Unit, out of the block.
    pub normal: [f32; 3],
    /// Grid-projected, one repeat per meter (the mesher's).
    pub uv: [f32; 2],
    /// The material number: the layer of the materials' array.
    pub layer: u32,
    /// The sky light at the vertex, 0 to 1 (pieces: 1, scaled by the piece's light).
    pub light: f32,
    /// How open the vertex is, 0 to 1 (ambient occlusion from the cells around it, see
    /// [`blockfall_game::blocks::occlusion`]; 1 where nothing is near). Location 5, passed on to the
    /// fragment shader as `vertex_occlusion` (location 5).
    pub occlusion: f32,
}

/// Bytes per [`BlockVertex`].
pub const VERTEX_BYTES: u64 = std::mem::size_of::<BlockVertex>() as u64;

/// `mesh`'s vertices, each lit by `light(vertex)` (the vertex's index in the mesh), with the
/// mesh's occlusion (1, open, for a mesh not occluded).
pub fn vertices_of(mesh: &BlockMesh, light: impl Fn(usize) -> f32) -> Vec<BlockVertex> {
    (0..mesh.vertex_count())
        .map(|i| BlockVertex {
            position: mesh.positions[i],
            normal: mesh.normals[i],
            uv: mesh.uvs[i],
            layer: mesh.layers[i],
            light: light(i),
            occlusion: mesh.occlusion.get(i).copied().unwrap_or(1.0),
        })
        .collect()
}

/// What a block region's vertices are lit and shaded by besides its blocks: the sky light at a
/// point, and whether a point is inside the ground (the cells whose middle is count as solid
/// for the ambient occlusion, so that blocks darken where they meet the terrain). A closure of
/// the light alone is surroundings without ground.
pub trait Surroundings {
    /// The sky light at a point (meters), 0 to 1.
    fn light(&self, point: [f32; 3]) -> f32;

    /// Whether a point (meters) is inside the ground.
    fn inside_ground(&self, _point: [f32; 3]) -> bool {
        false
    }
}

impl<F: Fn([f32; 3]) -> f32> Surroundings for F {
    fn light(&self, point: [f32; 3]) -> f32 {
        self(point)
    }
}

/// A light and a ground, as [`Surroundings`].
pub struct LitGround<'a> {
    pub light: &'a dyn Fn([f32; 3]) -> f32,
    pub ground: &'a dyn Fn([f32; 3]) -> bool,
}

impl Surroundings for LitGround<'_> {
    fn light(&self, point: [f32; 3]) -> f32 {
        (self.light)(point)
    }

    fn inside_ground(&self, point: [f32; 3]) -> bool {
        (self.ground)(point)
    }
}

/// The push constants of `blocks.vert`, `pieces.vert` and `blocks.frag` (`shaders/blocks.glsl`):
/// 112 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StructurePush {
    pub view_projection: [f32; 16],
    /// xyz: the eye; w: the distance at which the fog is complete.
    pub camera: [f32; 4],
    /// rgb: the sky colour (linear), also the fog's; w unused.
    pub sky: [f32; 4],
    /// x: the bindless slot of the materials' array.
    pub material: [u32; 4],
}

impl StructurePush {
    /// The constants of a draw in `view` with the materials in `slot`.
    pub fn new(view: &Camera, slot: TextureSlot) -> Self {
        let mut view_projection = [0.0; 16];
        view_projection.copy_from_slice(view.view_projection.as_slice());
        Self {
            view_projection,
            camera: [view.eye.x, view.eye.y, view.eye.z, view.fog_distance],
            sky: [WORLD_SKY[0], WORLD_SKY[1], WORLD_SKY[2], 0.0],
            material: [slot.0, 0, 0, 0],
        }
    }
}

/// The six materials' patterned texture array (layer = material number, with mips) in the
/// bindless table; shared by the blocks' and the pieces' passes.
pub struct BlockMaterials {
    /// The materials' texture array in the bindless table (its slot freed when it drops).
    texture: BoundTexture,
}

impl BlockMaterials {
    /// Makes, uploads (and waits for) the array and registers it in the bindless table.
    pub fn new(gpu: &mut Gpu) -> GpuResult<Arc<Self>> {
        let materials: Vec<usize> = (0..MATERIALS.len()).collect();
        let data = material_array(
            "block materials",
            &materials,
            TEXTURE_SIZE,
            TextureStyle::Patterned,
        );
        let image = data.image(
            &gpu.device,
            "block materials: stone, bricks, planks, plaster, slate, copper",
        )?;
        let mut batch = gpu.uploader.begin("block materials");
        batch.image(&image, &data.bytes, ImageAccess::ShaderRead)?;
        let uploaded = batch.submit()?;
        gpu.device.wait_for(uploaded)?;
        let texture = gpu.bindless.bind(image)?;
        Ok(Arc::new(Self { texture }))
    }

    /// The array's bindless slot.
    pub fn slot(&self) -> TextureSlot {
        self.texture.slot()
    }
}

/// The vertex attributes of a [`BlockVertex`] stream at `binding`, locations 0 to 5 (the
/// pieces' instance stream follows at 6).
fn block_vertex_attributes(binding: u32) -> [vk::VertexInputAttributeDescription; 6] {
    [
        vertex_attribute(0, binding, vk::Format::R32G32B32_SFLOAT, 0),
        vertex_attribute(1, binding, vk::Format::R32G32B32_SFLOAT, 12),
        vertex_attribute(2, binding, vk::Format::R32G32_SFLOAT, 24),
        vertex_attribute(3, binding, vk::Format::R32_UINT, 32),
        vertex_attribute(4, binding, vk::Format::R32_SFLOAT, 36),
        vertex_attribute(5, binding, vk::Format::R32_SFLOAT, 40),
    ]
}

/// The blocks' material with the sun's shadows and the occlusion (`blocks_shadows.frag`) in an
/// opaque pipeline of `vertex` (and `instance`, as [`solid_pipeline`]) over the bindless set and
/// the shadow maps' set `shadow_layout`.
fn shadowed_solid_pipeline(
    gpu: &Gpu,
    shaders: &ShaderLibrary,
    name: &str,
    vertex: &[u32],
    colour_format: vk::Format,
    instance: Option<(usize, &[vk::VertexInputAttributeDescription])>,
    shadow_layout: vk::DescriptorSetLayout,
) -> GpuResult<ShadowedPipeline> {
    let (fragment, layout) =
        shadowed_pass::<StructurePush>(gpu, shaders, "blocks", name, shadow_layout)?;
    let pipeline = solid_pipeline(
        gpu,
        &layout,
        &format!("{name}, shadowed"),
        vertex,
        &fragment,
        colour_format,
        instance,
    )?;
    Ok(ShadowedPipeline { layout, pipeline })
}

/// Binds the blocks' material into `pass`: `shadowed`, with the bindless set and the shadow
/// maps' set `shadows`, where both are given; else `plain` (pipeline, layout) with the bindless
/// set. Returns the layout bound, for the push constants.
fn bind_material<'l>(
    pass: &mut RenderPass<'_>,
    plain: (&'l Pipeline, &'l PipelineLayout),
    shadowed: Option<&'l ShadowedPipeline>,
    bindless_set: vk::DescriptorSet,
    shadows: Option<vk::DescriptorSet>,
) -> &'l PipelineLayout {
    match (shadowed, shadows) {
        (Some(shadowed), Some(set)) => {
            pass.bind_pipeline(&shadowed.pipeline);
            pass.bind_set(&shadowed.layout, bindless_set);
            pass.bind_set_at(&shadowed.layout, 1, set);
            &shadowed.layout
        }
        _ => {
            let (pipeline, layout) = plain;
            pass.bind_pipeline(pipeline);
            pass.bind_set(layout, bindless_set);
            layout
        }
    }
}

/// An opaque, depth-writing, back-face-culled pipeline for block meshes; `instance` adds an
/// instance stream at binding 1 (the pieces' bodies).
#[allow(clippy::too_many_arguments)]
fn solid_pipeline(
    gpu: &Gpu,
    layout: &PipelineLayout,
    name: &str,
    vertex: &[u32],
    fragment: &[u32],
    colour_format: vk::Format,
    instance: Option<(usize, &[vk::VertexInputAttributeDescription])>,
) -> GpuResult<Pipeline> {
    let mut bindings = vec![vertex_binding(
        0,
        VERTEX_BYTES as usize,
        vk::VertexInputRate::VERTEX,
    )];
    let mut attributes = block_vertex_attributes(0).to_vec();
    if let Some((stride, instance_attributes)) = instance {
        bindings.push(vertex_binding(1, stride, vk::VertexInputRate::INSTANCE));
        attributes.extend_from_slice(instance_attributes);
    }
    let colour_formats = [colour_format];
    Pipeline::graphics(
        &gpu.device,
        layout,
        &GraphicsPipelineDesc {
            name,
            vertex,
            fragment,
            vertex_bindings: &bindings,
            vertex_attributes: &attributes,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            // Blocks are closed and counter-clockwise from outside: their insides never show.
            cull_mode: vk::CullModeFlags::BACK,
            front_face: vk::FrontFace::COUNTER_CLOCKWISE,
            polygon_mode: vk::PolygonMode::FILL,
            color_formats: &colour_formats,
            depth_format: Some(DEPTH_FORMAT),
            depth_write: true,
            blend: false,
            depth_bias: None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_and_push_constants_have_the_shaders_layout() {
        assert_eq!(VERTEX_BYTES, 44);
        assert_eq!(std::mem::offset_of!(BlockVertex, occlusion), 40);
        assert_eq!(std::mem::size_of::<StructurePush>(), 112);
    }
}
