//! A world set up as a scene file says, before t = 0: the ground, its digs and builds, the
//! blocks, the sample scene, the player; then the support surveys it as a game does when it
//! loads a world.

use std::sync::Arc;

use blockfall_engine::workers::WorkerPool;

use crate::terrain::{Generator, Ground, PlaneGround};
use crate::world::World;

use super::error::{invalid, SceneError};
use super::file::{ModeSpec, SceneFile, TerrainSpec};
use super::validate::block_of;

/// The world of a checked scene, its physics on `pool` (the trace is the same for any number of
/// threads), its chunks streamed `radius` chunks around the player when a renderer asks.
///
/// Without `terrain` it is the game's own start: the generated world of the default seed with
/// the sample scene in front of the spawn point and the player there (a `player` key still
/// places the player; `sample_scene` builds a second one).
pub fn world_of(scene: &SceneFile, pool: WorkerPool, radius: u32) -> Result<World, SceneError> {
    let mut world = match scene.terrain {
        None => World::generated(Generator::DEFAULT_SEED, radius, pool)
            .map_err(|error| invalid("terrain", error.to_string()))?,
        Some(terrain) => {
            let ground: Arc<dyn Ground> = match terrain {
                TerrainSpec::Flat { height } => Arc::new(PlaneGround::flat(height)),
                TerrainSpec::Slope { degrees, height } => {
                    Arc::new(PlaneGround::sloped(degrees, height))
                }
                TerrainSpec::World { seed } => Arc::new(Generator::new(seed)),
            };
            World::on(ground, radius, pool)
        }
    };
    for (i, dig) in scene.digs.iter().enumerate() {
        world
            .edit_ground(true, dig.center, dig.radius)
            .map_err(|error| invalid(format!("digs[{i}]"), error.to_string()))?;
    }
    for (i, build) in scene.builds.iter().enumerate() {
        world
            .edit_ground(false, build.center, build.radius)
            .map_err(|error| invalid(format!("builds[{i}]"), error.to_string()))?;
    }
    for (i, spec) in scene.blocks.iter().enumerate() {
        let place = format!("blocks[{i}]");
        let block = block_of(&place, spec)?;
        world
            .add_block(block)
            .map_err(|error| invalid(place, error.to_string()))?;
    }
    if let Some([x, z]) = scene.sample_scene {
        world
            .build_sample(x, z)
            .map_err(|error| invalid("sample_scene", error.to_string()))?;
    }
    if let Some(spec) = scene.player {
        world.place_player(
            spec.feet,
            spec.mode == ModeSpec::Fly,
            spec.yaw_degrees.to_radians(),
            spec.pitch_degrees.to_radians(),
        );
    }
    world.survey();
    world.update_aim();
    Ok(world)
}
