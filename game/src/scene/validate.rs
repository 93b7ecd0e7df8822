//! Checking a scene whole before it runs, so that a refused scene writes no trace: every value
//! in its range, every block a valid one (size, material, cuts, a cell within the world), every
//! event within the scene's time.

use crate::blocks::materials::MATERIALS;
use crate::blocks::store::Block;

use super::error::{invalid, SceneError};
use super::file::{ActionSpec, BlockSpec, SceneFile, SphereSpec, TerrainSpec};

/// The farthest a block's cell may be from the origin, on any axis: ±2^20 cells, 524 km.
pub const WORLD_CELLS: i32 = 1 << 20;
/// The longest scene, in seconds of simulated time.
pub const LONGEST_SCENE: f64 = 24.0 * 3600.0;
/// The longest frame a scene may ask for; the player itself cuts frames at 50 ms.
pub const LONGEST_FRAME: f64 = 0.1;

/// Reads and checks a scene.
pub fn parse(text: &str) -> Result<SceneFile, SceneError> {
    let scene: SceneFile = serde_json::from_str(text)?;
    validate(&scene)?;
    Ok(scene)
}

fn finite(place: &str, values: &[f32]) -> Result<(), SceneError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(invalid(place, "not a finite number"))
    }
}

fn check_sphere(place: &str, sphere: &SphereSpec) -> Result<(), SceneError> {
    finite(&format!("{place}.center"), &sphere.center)?;
    if !(sphere.radius.is_finite() && sphere.radius > 0.0 && sphere.radius <= 64.0) {
        return Err(invalid(
            format!("{place}.radius"),
            format!("{} is not a radius between 0 and 64 m", sphere.radius),
        ));
    }
    Ok(())
}

/// The block a spec describes, checked.
pub fn block_of(place: &str, spec: &BlockSpec) -> Result<Block, SceneError> {
    if spec
        .cell
        .iter()
        .any(|c| c.unsigned_abs() > WORLD_CELLS as u32)
    {
        return Err(invalid(
            format!("{place}.cell"),
            format!(
                "{:?} is outside the world (±{WORLD_CELLS} cells)",
                spec.cell
            ),
        ));
    }
    let material = MATERIALS
        .iter()
        .position(|m| m.name == spec.material)
        .ok_or_else(|| {
            invalid(
                format!("{place}.material"),
                format!(
                    "no material `{}`; the materials are {}",
                    spec.material,
                    MATERIALS.map(|m| m.name).join(", ")
                ),
            )
        })?;
    let [x, y, z] = spec.cell;
    Block::new(x, y, z, spec.size, material as u8, spec.cuts, spec.slope)
        .map_err(|error| invalid(place, error.to_string()))
}

fn validate(scene: &SceneFile) -> Result<(), SceneError> {
    if let Some(path) = &scene.world_file {
        if scene.terrain.is_some() {
            return Err(invalid(
                "terrain",
                "a scene that starts from a world_file has the save's ground: leave terrain out",
            ));
        }
        if path.as_os_str().is_empty() {
            return Err(invalid("world_file", "an empty path"));
        }
    }
    match scene.terrain.unwrap_or(TerrainSpec::World {
        seed: crate::terrain::Generator::DEFAULT_SEED,
    }) {
        TerrainSpec::Flat { height } => finite("terrain.flat.height", &[height])?,
        TerrainSpec::Slope { degrees, height } => {
            finite("terrain.slope", &[degrees, height])?;
            if degrees.abs() >= 89.0 {
                return Err(invalid("terrain.slope.degrees", "a slope is less than 89°"));
            }
        }
        TerrainSpec::World { .. } => {}
    }
    for (i, dig) in scene.digs.iter().enumerate() {
        check_sphere(&format!("digs[{i}]"), dig)?;
    }
    for (i, build) in scene.builds.iter().enumerate() {
        check_sphere(&format!("builds[{i}]"), build)?;
    }
    for (i, block) in scene.blocks.iter().enumerate() {
        block_of(&format!("blocks[{i}]"), block)?;
    }
    if let Some(at) = scene.sample_scene {
        finite("sample_scene", &at)?;
    }
    if let Some(player) = &scene.player {
        finite("player.feet", &player.feet)?;
        finite("player.yaw_degrees", &[player.yaw_degrees])?;
        finite("player.pitch_degrees", &[player.pitch_degrees])?;
    }
    if !(scene.duration.is_finite() && (0.0..=LONGEST_SCENE).contains(&scene.duration)) {
        return Err(invalid(
            "duration",
            format!("{} is not 0 to {LONGEST_SCENE} s", scene.duration),
        ));
    }
    if !(scene.frame_dt.is_finite() && scene.frame_dt > 0.0 && scene.frame_dt <= LONGEST_FRAME) {
        return Err(invalid(
            "frame_dt",
            format!(
                "{} is not above 0 and at most {LONGEST_FRAME} s",
                scene.frame_dt
            ),
        ));
    }
    if !(scene.report_every.is_finite() && scene.report_every >= 0.0) {
        return Err(invalid(
            "report_every",
            format!("{} is not 0 or more seconds", scene.report_every),
        ));
    }
    for (i, event) in scene.events.iter().enumerate() {
        let place = format!("events[{i}]");
        if !(event.t.is_finite() && event.t >= 0.0) {
            return Err(invalid(
                format!("{place}.t"),
                format!("{} is not 0 or more seconds", event.t),
            ));
        }
        if event.t > scene.duration {
            return Err(invalid(
                format!("{place}.t"),
                format!(
                    "{} s is after the scene's end ({} s)",
                    event.t, scene.duration
                ),
            ));
        }
        match &event.action {
            ActionSpec::Place(block) => {
                block_of(&format!("{place}.place"), block)?;
            }
            ActionSpec::Dig(sphere) => check_sphere(&format!("{place}.dig"), sphere)?,
            ActionSpec::Build(sphere) => check_sphere(&format!("{place}.build"), sphere)?,
            ActionSpec::Turn(turn) => finite(&format!("{place}.turn"), turn)?,
            ActionSpec::Wheel(notches) => {
                finite(&format!("{place}.wheel"), &[*notches])?;
                if notches.abs() > 1000.0 {
                    return Err(invalid(
                        format!("{place}.wheel"),
                        format!("{notches} is not -1000 to 1000 notches"),
                    ));
                }
            }
            ActionSpec::Look(look) => finite(
                &format!("{place}.look"),
                &[look.yaw_degrees, look.pitch_degrees],
            )?,
            ActionSpec::Screenshot(path) => {
                if path.is_empty() {
                    return Err(invalid(format!("{place}.screenshot"), "an empty path"));
                }
            }
            ActionSpec::Save(path) | ActionSpec::Load(path) => {
                if path.as_os_str().is_empty() {
                    return Err(invalid(
                        format!("{place}.{}", event.action.name()),
                        "an empty path",
                    ));
                }
            }
            ActionSpec::Press(_)
            | ActionSpec::Release(_)
            | ActionSpec::Break(_)
            | ActionSpec::WouldFall(_)
            | ActionSpec::BreakPiece(_)
            | ActionSpec::State(_) => {}
        }
    }
    Ok(())
}
