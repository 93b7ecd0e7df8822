//! The scene that proves the backend: a sky clear and lit, textured cubes on a stone slab,
//! their materials drawn from **two texture arrays of the bindless table**, picked per instance
//! inside one instanced draw (so the shader's index is non-uniform).
//!
//! [`TestScene`] describes the scene at a time (camera, cubes, light) on the CPU, so tests can
//! work out what colour a pixel must have; [`TestSceneRenderer`] draws it.

use std::mem::size_of;
use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::pipeline::{vertex_attribute, vertex_binding};
use blockfall_engine::gpu::{
    self, BoundTexture, Buffer, BufferDesc, FrameRing, Gpu, GpuResult, GraphicsPipelineDesc, Image,
    ImageAccess, ImageDesc, MemoryLocation, Pipeline, PipelineLayout, ShaderLibrary, TextureSlot,
    TransientUse,
};
use ultraviolet::{Mat4, Vec3, Vec4};

use super::textures::{linear_to_srgb, material_array, srgb_to_linear, TextureStyle};
use crate::blocks::materials::{BRICKS, COPPER, PLANKS, PLASTER, SLATE, STONE};

/// The test scene's own sky: its clear colour, behind every cube, in linear light. Not the
/// world's sky ([`super::terrain::WORLD_SKY`], paler, which the world's passes clear to and fog
/// into); the test scene's pictures keep this one.
pub const TEST_SCENE_SKY: [f32; 3] = [0.38, 0.62, 0.92];
/// Unit vector toward the sun (before normalising).
const SUN_TOWARD: [f32; 3] = [0.45, 0.8, 0.35];
const SUN_COLOUR: [f32; 3] = [0.85, 0.8, 0.7];
const AMBIENT_COLOUR: [f32; 3] = [0.22, 0.26, 0.32];

/// The two texture arrays: masonry in one, the rest in the other.
pub const ARRAY_MATERIALS: [[usize; 3]; 2] = [[STONE, BRICKS, PLASTER], [PLANKS, SLATE, COPPER]];

/// Texture size of a layer.
const TEXTURE_SIZE: u32 = 256;

/// The push constants of `scene.vert` / `scene.frag` (`shaders/scene.glsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ScenePush {
    pub view_projection: [f32; 16],
    pub sun_direction: [f32; 4],
    pub sun_colour: [f32; 4],
    pub ambient_colour: [f32; 4],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
}

/// Per-instance data of the cube draw.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CubeInstance {
    pub model: [f32; 16],
    /// Which texture array (0 or 1 of [`ARRAY_MATERIALS`]) and which layer in it.
    pub array: u32,
    pub layer: u32,
}

/// One box of the scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneCube {
    pub centre: Vec3,
    /// Edge lengths along x, y, z before turning.
    pub size: Vec3,
    /// Turn about the vertical, radians.
    pub yaw: f32,
    pub array: u32,
    pub layer: u32,
}

impl SceneCube {
    pub fn model(&self) -> Mat4 {
        Mat4::from_translation(self.centre)
            * Mat4::from_rotation_y(self.yaw)
            * Mat4::from_nonuniform_scale(self.size)
    }

    /// The material number of its texture layer.
    pub fn material(&self) -> usize {
        ARRAY_MATERIALS[self.array as usize][self.layer as usize]
    }
}

/// The scene at a moment: camera, light and boxes.
#[derive(Debug, Clone)]
pub struct TestScene {
    pub view_projection: Mat4,
    pub eye: Vec3,
    pub cubes: Vec<SceneCube>,
    pub sun_direction: Vec3,
}

impl TestScene {
    /// The scene at `time` seconds for a `width`×`height` view. Some cubes turn slowly.
    pub fn at(time: f32, width: u32, height: u32) -> Self {
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let eye = Vec3::new(0.0, 3.2, 7.0);
        let view = Mat4::look_at(eye, Vec3::new(0.0, 0.6, 0.0), Vec3::unit_y());
        let projection =
            ultraviolet::projection::rh_yup::perspective_vk(50f32.to_radians(), aspect, 0.1, 100.0);
        let spin = time * 0.5;
        let cube = |x: f32, z: f32, edge: f32, yaw: f32, array: u32, layer: u32| SceneCube {
            centre: Vec3::new(x, edge / 2.0, z),
            size: Vec3::broadcast(edge),
            yaw,
            array,
            layer,
        };
        let cubes = vec![
            // The slab everything stands on: stone, from the first array.
            SceneCube {
                centre: Vec3::new(0.0, -0.25, 0.0),
                size: Vec3::new(14.0, 0.5, 10.0),
                yaw: 0.0,
                array: 0,
                layer: 0,
            },
            cube(-2.6, 0.0, 1.0, 0.0, 0, 1),         // bricks
            cube(-0.9, -0.4, 1.2, 0.5 + spin, 1, 0), // planks
            cube(0.9, 0.3, 1.0, 0.0, 0, 2),          // plaster
            cube(2.6, 0.0, 1.0, -0.4 - spin, 1, 1),  // slate
            cube(0.0, -2.2, 1.4, 0.25, 1, 2),        // copper
        ];
        Self {
            view_projection: projection * view,
            eye,
            cubes,
            sun_direction: Vec3::from(SUN_TOWARD).normalized(),
        }
    }

    /// The push constants for this moment.
    pub fn push_constants(&self) -> ScenePush {
        let mut view_projection = [0.0; 16];
        view_projection.copy_from_slice(self.view_projection.as_slice());
        let d = self.sun_direction;
        ScenePush {
            view_projection,
            sun_direction: [d.x, d.y, d.z, 0.0],
            sun_colour: [SUN_COLOUR[0], SUN_COLOUR[1], SUN_COLOUR[2], 0.0],
            ambient_colour: [AMBIENT_COLOUR[0], AMBIENT_COLOUR[1], AMBIENT_COLOUR[2], 0.0],
        }
    }

    pub fn instances(&self, slots: &[TextureSlot; 2]) -> Vec<CubeInstance> {
        self.cubes
            .iter()
            .map(|cube| {
                let mut model = [0.0; 16];
                model.copy_from_slice(cube.model().as_slice());
                CubeInstance {
                    model,
                    array: slots[cube.array as usize].0,
                    layer: cube.layer,
                }
            })
            .collect()
    }

    /// Where a world point lands on a `width`×`height` image (pixel coordinates, y down), if
    /// it is in front of the camera.
    pub fn project(&self, point: Vec3, width: u32, height: u32) -> Option<(f32, f32)> {
        let clip = self.view_projection * Vec4::new(point.x, point.y, point.z, 1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = Vec3::new(clip.x / clip.w, clip.y / clip.w, clip.z / clip.w);
        Some((
            (ndc.x * 0.5 + 0.5) * width as f32,
            (ndc.y * 0.5 + 0.5) * height as f32,
        ))
    }

    /// The middle of the face of `cube` that faces the camera most, and its outward normal.
    pub fn facing_face(&self, cube: &SceneCube) -> (Vec3, Vec3) {
        let turn = Mat4::from_rotation_y(cube.yaw);
        let mut best = (cube.centre, Vec3::unit_y(), f32::MIN);
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut local = Vec3::zero();
                local[axis] = sign;
                let normal = turn.transform_vec3(local);
                let half = cube.size[axis] / 2.0;
                let centre = cube.centre + normal * half;
                let toward = (self.eye - centre).normalized().dot(normal);
                if toward > best.2 {
                    best = (centre, normal, toward);
                }
            }
        }
        (best.0, best.1)
    }

    /// The colour a face with `normal` shows with a solid material of sRGB colour `albedo`, as
    /// sRGB bytes: the shader's light, computed on the CPU.
    pub fn lit_colour(&self, albedo: [u8; 3], normal: Vec3) -> [u8; 3] {
        let facing = normal.normalized().dot(self.sun_direction).max(0.0);
        let mut out = [0u8; 3];
        for c in 0..3 {
            let light = SUN_COLOUR[c] * facing + AMBIENT_COLOUR[c];
            out[c] = linear_to_srgb(srgb_to_linear(albedo[c]) * light);
        }
        out
    }

    /// The sky as sRGB bytes.
    pub fn sky_colour() -> [u8; 3] {
        [
            linear_to_srgb(TEST_SCENE_SKY[0]),
            linear_to_srgb(TEST_SCENE_SKY[1]),
            linear_to_srgb(TEST_SCENE_SKY[2]),
        ]
    }
}

use super::pass::bindless_pass;
use super::target::RenderTarget;
use super::target::{DepthTarget, DEPTH_FORMAT};

/// Draws the test scene.
pub struct TestSceneRenderer {
    device: Arc<gpu::Device>,
    layout: PipelineLayout,
    pipeline: Pipeline,
    vertices: Buffer,
    indices: Buffer,
    index_count: u32,
    /// The two texture arrays in the bindless table (their slots freed when they drop).
    textures: [BoundTexture; 2],
    depth: DepthTarget,
    bindless_set: vk::DescriptorSet,
    draws_last_frame: u32,
}

impl TestSceneRenderer {
    /// Makes the pipeline, the cube mesh and the two texture arrays, and puts the arrays into the
    /// bindless table. `colour_format` is the target's format.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        style: TextureStyle,
    ) -> GpuResult<Self> {
        let device = gpu.device.clone();
        let pass = bindless_pass::<ScenePush>(gpu, shaders, "scene", "test scene")?;
        let bindings = [
            vertex_binding(0, size_of::<Vertex>(), vk::VertexInputRate::VERTEX),
            vertex_binding(1, size_of::<CubeInstance>(), vk::VertexInputRate::INSTANCE),
        ];
        let attributes = [
            vertex_attribute(0, 0, vk::Format::R32G32B32_SFLOAT, 0),
            vertex_attribute(1, 0, vk::Format::R32G32B32_SFLOAT, 12),
            vertex_attribute(2, 0, vk::Format::R32G32_SFLOAT, 24),
            vertex_attribute(3, 1, vk::Format::R32G32B32A32_SFLOAT, 0),
            vertex_attribute(4, 1, vk::Format::R32G32B32A32_SFLOAT, 16),
            vertex_attribute(5, 1, vk::Format::R32G32B32A32_SFLOAT, 32),
            vertex_attribute(6, 1, vk::Format::R32G32B32A32_SFLOAT, 48),
            vertex_attribute(7, 1, vk::Format::R32G32_UINT, 64),
        ];
        let colour_formats = [colour_format];
        let pipeline = Pipeline::graphics(
            &device,
            &pass.layout,
            &GraphicsPipelineDesc {
                name: "test scene: cubes",
                vertex: &pass.vertex,
                fragment: &pass.fragment,
                vertex_bindings: &bindings,
                vertex_attributes: &attributes,
                topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                cull_mode: vk::CullModeFlags::BACK,
                front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                polygon_mode: vk::PolygonMode::FILL,
                color_formats: &colour_formats,
                depth_format: Some(DEPTH_FORMAT),
                depth_write: true,
                blend: false,
            },
        )?;

        let (vertex_data, index_data) = cube_mesh();
        let vertices = Buffer::new(
            &device,
            &BufferDesc {
                name: "test scene: cube vertices",
                size: std::mem::size_of_val(vertex_data.as_slice()) as u64,
                usage: vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            },
        )?;
        let indices = Buffer::new(
            &device,
            &BufferDesc {
                name: "test scene: cube indices",
                size: std::mem::size_of_val(index_data.as_slice()) as u64,
                usage: vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            },
        )?;

        let mut textures = Vec::new();
        let mut batch = gpu.uploader.begin("test scene");
        batch.buffer(&vertices, 0, bytemuck::cast_slice(&vertex_data))?;
        batch.buffer(&indices, 0, bytemuck::cast_slice(&index_data))?;
        for (i, materials) in ARRAY_MATERIALS.iter().enumerate() {
            let data = material_array(&format!("materials {i}"), materials, TEXTURE_SIZE, style);
            let image = Image::new(
                &device,
                &ImageDesc {
                    name: &format!("texture array {i}: {}", layer_names(materials)),
                    format: vk::Format::R8G8B8A8_SRGB,
                    width: data.size,
                    height: data.size,
                    layers: data.layers,
                    mips: data.mips,
                    usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
                    view_type: vk::ImageViewType::TYPE_2D_ARRAY,
                },
            )?;
            batch.image(&image, &data.bytes, ImageAccess::ShaderRead)?;
            textures.push(image);
        }
        let uploaded = batch.submit()?;
        device.wait_for(uploaded)?;
        let [first, second]: [Image; 2] = textures
            .try_into()
            .map_err(|_| gpu::GpuError::Invalid("two texture arrays expected".into()))?;
        let textures = [gpu.bindless.bind(first)?, gpu.bindless.bind(second)?];

        Ok(Self {
            device,
            layout: pass.layout,
            pipeline,
            vertices,
            indices,
            index_count: index_data.len() as u32,
            textures,
            depth: DepthTarget::new(&gpu.device, "test scene: depth"),
            bindless_set: gpu.bindless.set,
            draws_last_frame: 0,
        })
    }

    /// The bindless slots of the two texture arrays.
    pub fn slots(&self) -> [TextureSlot; 2] {
        self.textures.each_ref().map(BoundTexture::slot)
    }

    /// Draw calls recorded in the last frame (1: every cube in one instanced draw).
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Records the scene pass into the frame being recorded. The target goes from undefined to
    /// colour attachment (it is cleared) and is left as a colour attachment.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        scene: &TestScene,
    ) -> GpuResult<()> {
        let device = self.device.clone();
        let command_buffer = frames.command_buffer();
        let instances = scene.instances(&self.slots());
        let instances_range = frames.transient(TransientUse::Vertex, &instances)?;

        frames.begin_pass("scene");
        let depth = self.depth.ensure(target.width, target.height)?;
        let mut pass = super::target::begin_colour_and_depth(
            &device,
            command_buffer,
            &target,
            depth,
            TEST_SCENE_SKY,
        );
        // A replaced instance buffer or depth image is retired into the frame ring.
        pass.bind_pipeline(&self.pipeline);
        pass.bind_set(&self.layout, self.bindless_set);
        pass.push(&self.layout, &scene.push_constants());
        pass.bind_vertices(0, &self.vertices, 0)?;
        pass.bind_vertices(
            1,
            frames.transient_buffer(&instances_range)?,
            instances_range.offset,
        )?;
        pass.bind_indices(&self.indices, 0, vk::IndexType::UINT16)?;
        pass.draw_indexed(0..self.index_count, 0, 0..instances.len() as u32)?;
        drop(pass);
        self.draws_last_frame = 1;
        frames.end_pass();
        Ok(())
    }
}

fn layer_names(materials: &[usize]) -> String {
    materials
        .iter()
        .map(|&m| crate::blocks::materials::MATERIALS[m].name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A unit cube around the origin: 24 vertices (flat normals), 36 indices, counter-clockwise
/// seen from outside.
fn cube_mesh() -> (Vec<Vertex>, Vec<u16>) {
    let mut vertices = Vec::with_capacity(24);
    let mut indices = Vec::with_capacity(36);
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut normal = [0.0; 3];
            normal[axis] = sign;
            // Two directions across the face, so that u × v = normal (counter-clockwise).
            let u_axis = (axis + 1) % 3;
            let v_axis = (axis + 2) % 3;
            let base = vertices.len() as u16;
            for (a, b) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut position = [0.0; 3];
                position[axis] = sign * 0.5;
                position[u_axis] = a * 0.5;
                position[v_axis] = b * 0.5 * sign;
                vertices.push(Vertex {
                    position,
                    normal,
                    uv: [(a + 1.0) / 2.0, (b + 1.0) / 2.0],
                });
            }
            indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    (vertices, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_faces_wind_counter_clockwise_outward() {
        let (vertices, indices) = cube_mesh();
        assert_eq!((vertices.len(), indices.len()), (24, 36));
        for triangle in indices.chunks(3) {
            let p = |i: u16| Vec3::from(vertices[i as usize].position);
            let (a, b, c) = (p(triangle[0]), p(triangle[1]), p(triangle[2]));
            let normal = (b - a).cross(c - a);
            let outward = Vec3::from(vertices[triangle[0] as usize].normal);
            assert!(
                normal.dot(outward) > 0.0,
                "triangle {triangle:?} faces inward"
            );
        }
    }

    #[test]
    fn cubes_come_from_both_arrays_and_are_in_view() {
        let scene = TestScene::at(0.0, 1280, 720);
        assert!(scene.cubes.iter().any(|c| c.array == 0));
        assert!(scene.cubes.iter().any(|c| c.array == 1));
        for cube in &scene.cubes[1..] {
            let (x, y) = scene.project(cube.centre, 1280, 720).expect("in front");
            assert!((0.0..1280.0).contains(&x) && (0.0..720.0).contains(&y));
        }
    }

    #[test]
    fn lit_colour_is_brighter_toward_the_sun() {
        let scene = TestScene::at(0.0, 64, 64);
        let up = scene.lit_colour([128, 128, 128], Vec3::unit_y());
        let down = scene.lit_colour([128, 128, 128], -Vec3::unit_y());
        assert!(up[0] > down[0]);
    }
}
