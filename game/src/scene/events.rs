//! A scene's events applied to its world: input as a player's (keys, buttons, the mouse, the
//! wheel), the world's own actions (break, place, dig, build, …) with their result lines, and
//! the requests of a scripted run (a state line, a screenshot).

use crate::input::{Command, Input};
use crate::save::WorldSave;
use crate::world::World;

use super::error::{invalid, SceneError};
use super::file::ActionSpec;
use super::trace::{trace_time, EventLine, ScriptStateLine};
use super::validate::block_of;

/// What an event asks of whoever runs the scene, besides changing the world.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Nothing to write.
    Nothing,
    /// A line of the trace.
    Line(String),
    /// A PNG of the frame at this time, to this path.
    Screenshot(String),
    /// A `load` replaced the world with a save's: a line of the trace, and a renderer must
    /// drop what it drew of the old world and draw the new one from scratch.
    Loaded(String),
    /// A choice on the game's menu, for a scripted run (`sim` has no menu).
    Menu(String),
}

/// Applies one event at `t` (the frame's time). Input goes into `input` (held keys and buttons,
/// the turn and the wheel) and `commands` (what a press asks for), for the next frame to use.
pub fn apply(
    world: &mut World,
    input: &mut Input,
    commands: &mut Vec<Command>,
    t: f64,
    action: &ActionSpec,
    place: &str,
) -> Result<Outcome, SceneError> {
    let clock = t;
    let t = trace_time(t);
    let line = match action {
        ActionSpec::Save(path) => {
            let (bytes, error) = match world.save(clock, input).write(path) {
                Ok(bytes) => (Some(bytes), None),
                Err(error) => (None, Some(error.to_string())),
            };
            EventLine {
                t,
                event: "save",
                path: Some(path.display().to_string()),
                bytes,
                error,
                ..EventLine::default()
            }
        }
        ActionSpec::Load(path) => {
            let pool = world.pool().clone();
            let radius = world.chunks().radius();
            let loaded =
                WorldSave::read(path).and_then(|save| World::from_save(save, pool, radius));
            let mut line = EventLine {
                t,
                event: "load",
                path: Some(path.display().to_string()),
                ..EventLine::default()
            };
            match loaded {
                Ok(loaded) => {
                    *world = loaded;
                    line.blocks = Some(world.blocks().count());
                    line.pieces = Some(world.pieces().iter().map(|(h, _, _)| h.index()).collect());
                    return Ok(Outcome::Loaded(serde_json::to_string(&line)?));
                }
                Err(error) => line.error = Some(error.to_string()),
            }
            line
        }
        ActionSpec::Press(button) | ActionSpec::Release(button) => {
            let down = matches!(action, ActionSpec::Press(_));
            if let Some(command) = input.button(*button, down, false) {
                commands.push(command);
            }
            return Ok(Outcome::Nothing);
        }
        ActionSpec::Turn([dx, dy]) => {
            input.mouse_moved(f64::from(*dx), f64::from(*dy));
            return Ok(Outcome::Nothing);
        }
        ActionSpec::Wheel(notches) => {
            input.wheel_turned(*notches);
            return Ok(Outcome::Nothing);
        }
        ActionSpec::Look(look) => {
            world.look(look.yaw_degrees, look.pitch_degrees);
            world.update_aim();
            return Ok(Outcome::Nothing);
        }
        ActionSpec::Screenshot(path) => return Ok(Outcome::Screenshot(path.clone())),
        ActionSpec::Menu(choice) => return Ok(Outcome::Menu(choice.clone())),
        ActionSpec::State(false) => return Ok(Outcome::Nothing),
        ActionSpec::State(true) => {
            return Ok(Outcome::Line(serde_json::to_string(&ScriptStateLine::of(
                world, t,
            ))?))
        }
        ActionSpec::Break(cell) => {
            let (removed, fell) = world.break_cell(*cell);
            EventLine {
                t,
                event: "break",
                cell: Some(*cell),
                removed: Some(removed),
                fell: Some(fell),
                ..EventLine::default()
            }
        }
        ActionSpec::Place(spec) => {
            let block = block_of(&format!("{place}.place"), spec)?;
            let refused = world.place(block).err();
            EventLine {
                t,
                event: "place",
                cell: Some(spec.cell),
                placed: Some(refused.is_none()),
                reason: refused.map(|r| r.name()),
                ..EventLine::default()
            }
        }
        ActionSpec::Dig(sphere) | ActionSpec::Build(sphere) => {
            let digging = matches!(action, ActionSpec::Dig(_));
            let (changed, fell) = world
                .edit_sphere(digging, sphere.center, sphere.radius)
                .map_err(|error| invalid(place, error.to_string()))?;
            EventLine {
                t,
                event: action.name(),
                center: Some(sphere.center),
                radius: Some(sphere.radius),
                changed: Some(changed.is_some()),
                // Building only adds ground: nothing can fall from it.
                fell: digging.then_some(fell),
                ..EventLine::default()
            }
        }
        ActionSpec::BreakPiece(spec) => {
            let (removed, reason, pieces, fell) =
                match world.break_piece_block(spec.piece, spec.cell) {
                    Ok((made, fell)) => (true, None, Some(made), fell),
                    Err(crate::pieces::BreakPieceError::NoPiece(_)) => {
                        (false, Some("no piece"), None, 0)
                    }
                    Err(_) => (false, Some("no block"), None, 0),
                };
            EventLine {
                t,
                event: "break_piece",
                cell: Some(spec.cell),
                piece: Some(spec.piece),
                removed: Some(removed),
                reason,
                pieces,
                fell: Some(fell),
                ..EventLine::default()
            }
        }
        ActionSpec::WouldFall(cell) => EventLine {
            t,
            event: "would_fall",
            cell: Some(*cell),
            count: Some(world.would_fall_at(*cell).len()),
            ..EventLine::default()
        },
    };
    Ok(Outcome::Line(serde_json::to_string(&line)?))
}
