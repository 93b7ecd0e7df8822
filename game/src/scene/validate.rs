//! Checking a scene whole before it runs, so that a refused scene writes no trace: every value
//! in its range, every block a valid one (size, material, cuts, a cell within the world), every
//! event within the scene's time.

use crate::blocks::materials::MATERIALS;
use crate::blocks::store::Block;

use super::error::{invalid, shortened, SceneError};
use super::file::{ActionSpec, BlockSpec, SceneFile, SphereSpec, TerrainSpec};

/// The farthest a block's cell may be from the origin, on any axis: ±2^20 cells, 524 km.
pub use crate::blocks::store::WORLD_CELLS;
/// The longest scene, in seconds of simulated time.
pub const LONGEST_SCENE: f64 = 24.0 * 3600.0;
/// The longest frame a scene may ask for; the player itself cuts frames at 50 ms.
pub const LONGEST_FRAME: f64 = 0.1;

/// The largest scene (or script) file read, in bytes.
pub const LARGEST_SCENE_BYTES: u64 = 64 << 20;

/// Reads and checks the scene file at `path`: no more than [`LARGEST_SCENE_BYTES`] are read, so
/// a huge or endless file (`/dev/zero`) is refused rather than read whole.
pub fn read(path: &std::path::Path) -> Result<SceneFile, SceneError> {
    let unreadable = |problem: String| SceneError::Unreadable(problem);
    let bytes = crate::files::read_at_most(path, LARGEST_SCENE_BYTES)
        .map_err(|error| unreadable(format!("cannot read it: {error}")))?
        .ok_or_else(|| {
            unreadable(format!(
                "it is larger than {LARGEST_SCENE_BYTES} bytes, the most a scene may be"
            ))
        })?;
    let text = String::from_utf8(bytes).map_err(|error| {
        let at = error.utf8_error().valid_up_to();
        let before = &error.as_bytes()[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let column = 1 + before
            .rsplit(|&b| b == b'\n')
            .next()
            .map_or(0, |last| String::from_utf8_lossy(last).chars().count());
        SceneError::Json {
            place: String::new(),
            line,
            column,
            message: format!("not UTF-8 text (byte {at} of the file)"),
        }
    })?;
    parse(&text)
}

/// Reads and checks a scene. An error names the key path, the line and the column; a UTF-8
/// byte-order mark before the JSON, as some editors write, is skipped.
pub fn parse(text: &str) -> Result<SceneFile, SceneError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    not_an_object(text)?;
    let mut reader = serde_json::Deserializer::from_str(text);
    let scene: SceneFile = serde_path_to_error::deserialize(&mut reader).map_err(|error| {
        let place = error.path().to_string();
        let error = error.into_inner();
        let mut refused = SceneError::json(&place, &error);
        if let SceneError::Json { message, .. } = &mut refused {
            if let Some(form) = FORMS.iter().find(|(key, _)| place.starts_with(key)) {
                message.push_str(&format!("; {} is {}", form.0, form.1));
            }
        }
        refused
    })?;
    reader.end().map_err(|error| SceneError::json("", &error))?;
    validate(&scene)?;
    Ok(scene)
}

/// The forms of keys whose values are easy to get wrong, told when a value there is refused.
const FORMS: &[(&str, &str)] = &[(
    "terrain",
    "{\"flat\": {\"height\": H}}, {\"slope\": {\"degrees\": D, \"height\": H}} or \
     {\"world\": {\"seed\": N}}",
)];

/// Refuses a file that is not one JSON object, saying what it holds instead and where.
fn not_an_object(text: &str) -> Result<(), SceneError> {
    let Some((offset, first)) = text.char_indices().find(|(_, c)| !c.is_whitespace()) else {
        return Err(SceneError::Json {
            place: String::new(),
            line: 1 + text.matches('\n').count(),
            column: 1,
            message: "the file is empty: a scene is a JSON object, {\"duration\": …}".into(),
        });
    };
    let holds = match first {
        '{' => return Ok(()),
        '[' => "an array",
        '"' => "a string",
        't' | 'f' => "a boolean",
        'n' => "null",
        '-' | '0'..='9' => "a number",
        _ => "something that is not JSON",
    };
    let before = &text[..offset];
    let line = 1 + before.matches('\n').count();
    let column = 1 + before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count());
    Err(SceneError::Json {
        place: String::new(),
        line,
        column,
        message: format!(
            "a scene is one JSON object, {{\"duration\": …}}; this file holds {holds}"
        ),
    })
}

fn finite(place: &str, values: &[f32]) -> Result<(), SceneError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(invalid(place, "not a finite number"))
    }
}

/// The farthest a point of a scene (a sphere's centre, the player, the showcase) may be from
/// the origin on any axis, in meters: the blocks' world, ±[`WORLD_CELLS`] half-meter cells.
pub const WORLD_METERS: f32 = WORLD_CELLS as f32 * crate::blocks::CELL;

/// A finite point within the world.
fn in_world(place: &str, point: &[f32]) -> Result<(), SceneError> {
    finite(place, point)?;
    if point.iter().any(|c| c.abs() > WORLD_METERS) {
        return Err(invalid(
            place,
            format!("{point:?} is outside the world (±{WORLD_METERS} m on each axis)"),
        ));
    }
    Ok(())
}

fn check_sphere(place: &str, sphere: &SphereSpec) -> Result<(), SceneError> {
    in_world(&format!("{place}.center"), &sphere.center)?;
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
                    shortened(&spec.material),
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
    if let Some(at) = scene.showcase {
        in_world("showcase", &at)?;
    }
    if let Some(player) = &scene.player {
        in_world("player.feet", &player.feet)?;
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
    scene.limits.check_frames(
        (scene.duration / scene.frame_dt).ceil(),
        &format!(
            "duration {} s / frame_dt {} s",
            scene.duration, scene.frame_dt
        ),
    )?;
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
            ActionSpec::Menu(choice) => {
                if choice.is_empty() || choice.len() > 200 {
                    return Err(invalid(
                        format!("{place}.menu"),
                        "a choice of 1 to 200 bytes (`pause`, `settings`, `fov_degrees=100`)",
                    ));
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
