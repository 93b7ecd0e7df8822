//! The test scene on the CPU: camera, cubes and light at a moment, the push constants and
//! instances drawn from them, and the colours a picture of it must show.

use blockfall_engine::gpu::TextureSlot;
use ultraviolet::{Mat4, Vec3, Vec4};

use crate::textures::{linear_to_srgb, srgb_to_linear};
use blockfall_game::blocks::materials::{BRICKS, COPPER, PLANKS, PLASTER, SLATE, STONE};

/// The test scene's own sky: its clear colour, behind every cube, in linear light. Not the
/// world's sky ([`blockfall_game::terrain::WORLD_SKY`], paler, which the world's passes clear to
/// and fog into); the test scene's pictures keep this one.
pub const TEST_SCENE_SKY: [f32; 3] = [0.38, 0.62, 0.92];
/// Unit vector toward the sun (before normalising).
const SUN_TOWARD: [f32; 3] = [0.45, 0.8, 0.35];
const SUN_COLOUR: [f32; 3] = [0.85, 0.8, 0.7];
const AMBIENT_COLOUR: [f32; 3] = [0.22, 0.26, 0.32];

/// The two texture arrays: masonry in one, the rest in the other.
pub const ARRAY_MATERIALS: [[usize; 3]; 2] = [[STONE, BRICKS, PLASTER], [PLANKS, SLATE, COPPER]];

/// The push constants of `scene.vert` / `scene.frag` (`shaders/scene.glsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ScenePush {
    pub view_projection: [f32; 16],
    pub sun_direction: [f32; 4],
    pub sun_colour: [f32; 4],
    pub ambient_colour: [f32; 4],
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

#[cfg(test)]
mod tests {
    use super::*;

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
