//! A world set up as a scene file says, before its first frame: the ground (or a save's world),
//! its digs and builds, the blocks, the showcase, the player; then the support surveys it as
//! a game does when it loads a world.

use std::sync::Arc;

use blockfall_physics::workers::WorkerPool;

use crate::save::{SavedInput, WorldSave};
use crate::terrain::{Generator, Ground, PlaneGround};
use crate::world::World;

use super::error::{invalid, SceneError};
use super::file::{ModeSpec, SceneFile, TerrainSpec};
use super::validate::block_of;

/// Where a scene's clock starts and what is held then: t = 0 with nothing held, or where its
/// `world_file` was saved.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Start {
    /// Seconds: the time of the first frame, of the first state line, and of events due at
    /// once.
    pub clock: f64,
    pub held: SavedInput,
}

/// The world of a checked scene, its physics on `pool` (the trace is the same for any number of
/// threads), its chunks streamed `radius` chunks around the player when a renderer asks; and
/// where its clock starts.
///
/// With `world_file`, the save's world at the save's clock (a save that cannot be read or
/// used, or events before its clock, refuse the scene). Without it or `terrain`, the game's own
/// start: the generated world of the default seed with the showcase in front of the spawn
/// point and the player there (a `player` key still places the player; `showcase` builds a
/// second one).
pub fn world_of(
    scene: &SceneFile,
    pool: WorkerPool,
    radius: u32,
) -> Result<(World, Start), SceneError> {
    let mut start = Start::default();
    let mut world = match (&scene.world_file, scene.terrain) {
        (Some(path), _) => {
            let refused = |error: crate::save::SaveError| invalid("world_file", error.to_string());
            let save = WorldSave::read(path).map_err(refused)?;
            start = Start {
                clock: save.clock,
                held: save.held,
            };
            check_clock(scene, start.clock)?;
            World::from_save(save, pool, radius).map_err(refused)?
        }
        (None, None) => World::generated(Generator::DEFAULT_SEED, radius, pool)
            .map_err(|error| invalid("terrain", error.to_string()))?,
        (None, Some(terrain)) => {
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
    if let Some([x, z]) = scene.showcase {
        world
            .build_showcase(x, z)
            .map_err(|error| invalid("showcase", error.to_string()))?;
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
    Ok((world, start))
}

/// A scene that starts from a save runs on the save's clock: its events and its end may not
/// lie before it.
fn check_clock(scene: &SceneFile, clock: f64) -> Result<(), SceneError> {
    if !(clock.is_finite() && (0.0..=super::LONGEST_SCENE).contains(&clock)) {
        return Err(invalid(
            "world_file",
            format!(
                "the save's clock, {clock} s, is not 0 to {} s",
                super::LONGEST_SCENE
            ),
        ));
    }
    let slack = scene.frame_dt * 1e-6;
    if scene.duration + slack < clock {
        return Err(invalid(
            "duration",
            format!(
                "{} s ends before the world file's clock ({clock} s): a run from a save goes on \
                 from the save's time",
                scene.duration
            ),
        ));
    }
    if let Some((i, event)) = scene
        .events
        .iter()
        .enumerate()
        .find(|(_, event)| event.t + slack < clock)
    {
        return Err(invalid(
            format!("events[{i}].t"),
            format!("{} s is before the world file's clock ({clock} s)", event.t),
        ));
    }
    Ok(())
}
