//! The terrain pass's push constants and look: the world's sky, where the layers go, and the
//! push constants of the pass (the same for every chunk: each chunk's origin and spacing come
//! from the chunk table, `super::table`).

use blockfall_engine::gpu::TextureSlot;

use crate::textures::linear_to_srgb;
use blockfall_game::camera::{Camera, Marker};

/// The world's sky, in linear light: the clear colour behind the terrain and the colour its fog
/// fades into, for the blocks', pieces' and markers' passes too (`crate::structures`).
/// Not the test scene's own clear colour ([`crate::test_scene::TEST_SCENE_SKY`]).
pub const WORLD_SKY: [f32; 3] = [0.45, 0.66, 0.9];

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
    /// x: the bindless slot of the terrain array; y, z, w: 0.
    pub material: [u32; 4],
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

/// The push constants for drawing the terrain in `view` with the texture array at `slot`.
pub fn push_constants(view: &Camera, look: &TerrainLook, slot: TextureSlot) -> TerrainPush {
    let mut view_projection = [0.0; 16];
    view_projection.copy_from_slice(view.view_projection.as_slice());
    let marker = view.marker.map_or([0.0; 4], |marker| {
        let Marker { centre, radius } = marker;
        [centre.x, centre.y, centre.z, radius.max(0.0)]
    });
    TerrainPush {
        view_projection,
        camera: [view.eye.x, view.eye.y, view.eye.z, view.fog_distance],
        sky: [WORLD_SKY[0], WORLD_SKY[1], WORLD_SKY[2], look.ground],
        marker,
        material: [slot.0, 0, 0, 0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blockfall_game::terrain::Generator;

    #[test]
    fn push_constants_fit_the_guaranteed_minimum() {
        assert_eq!(std::mem::size_of::<TerrainPush>(), 128);
    }

    #[test]
    fn the_material_slot_and_the_fog_are_pushed() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let view = Camera::at_spawn(&generator, 64, 64);
        let look = TerrainLook::around(0.0);
        let push = push_constants(&view, &look, TextureSlot(3));
        assert_eq!(push.material, [3, 0, 0, 0]);
        assert_eq!(push.camera[3], view.fog_distance);
    }
}
