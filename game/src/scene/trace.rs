//! The lines of the trace, as JSON writes them: the state of the world (the player, the blocks,
//! every piece), the result of each event, and `done` last.

use serde::Serialize;

use crate::player::{Mode, Player};
use crate::world::{AimTarget, World};

/// A piece in the trace: its id (the body's slot), its blocks, mass and middle, and its motion;
/// the orientation as a quaternion x, y, z, w.
#[derive(Serialize)]
struct PieceLine {
    id: u32,
    blocks: usize,
    mass: f64,
    center_of_mass: [f64; 3],
    orientation: [f64; 4],
    velocity: [f64; 3],
    spin: [f64; 3],
    resting: bool,
    contact_points: usize,
}

#[derive(Serialize)]
struct PlayerLine {
    feet: [f32; 3],
    velocity: [f32; 3],
    grounded: bool,
    mode: &'static str,
}

impl PlayerLine {
    fn of(player: &Player) -> Self {
        PlayerLine {
            feet: player.position.into(),
            velocity: player.velocity.into(),
            grounded: player.grounded,
            mode: match player.mode {
                Mode::Walk => "walk",
                Mode::Fly => "fly",
            },
        }
    }
}

#[derive(Serialize)]
pub(super) struct StateLine {
    t: f64,
    player: Option<PlayerLine>,
    blocks: usize,
    pieces: Vec<PieceLine>,
    falling: usize,
    /// The world's save, in a scripted run that has one ([`SaveState`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) save: Option<SaveState>,
}

/// The world's save as a scripted run's state lines report it (`"save"`), in a run with
/// `--world` or one that tried to save (F5, an autosave): `null` while nothing was tried,
/// `{"ok": true, "t": 12.5}` when the last save (at t = 12.5) was written, `{"ok": false,
/// "t": 12.5, "error": "…"}` when it failed (the file on disk is then an older save). `sim`
/// never sets it, so its traces have no such key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SaveState {
    /// Nothing tried yet: `null`.
    NotYet,
    /// The last save tried, at the scene's time `t`: written (`ok`), or why not.
    Tried {
        ok: bool,
        t: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

impl SaveState {
    /// The state with its time as the trace prints times.
    pub(super) fn traced(&self) -> Self {
        match self {
            Self::NotYet => Self::NotYet,
            Self::Tried { ok, t, error } => Self::Tried {
                ok: *ok,
                t: trace_time(*t),
                error: error.clone(),
            },
        }
    }
}

impl StateLine {
    /// The state line of `world` at `t` seconds.
    pub(super) fn of(world: &World, t: f64) -> StateLine {
        StateLine {
            t: trace_time(t),
            player: world.embodied().then(|| PlayerLine::of(world.player())),
            blocks: world.blocks().count(),
            pieces: world
                .pieces()
                .iter()
                .map(|(handle, piece, body)| PieceLine {
                    id: handle.index(),
                    blocks: piece.blocks.len(),
                    mass: body.mass,
                    center_of_mass: body.position,
                    orientation: body.orientation,
                    velocity: body.velocity,
                    spin: body.angular_velocity,
                    resting: body.sleeping,
                    contact_points: piece.contact_points,
                })
                .collect(),
            falling: world.pieces().falling(),
            save: None,
        }
    }
}

/// The tool in a scripted run's state line.
#[derive(Serialize)]
struct ToolLine {
    kind: &'static str,
    material: &'static str,
    /// The block size in meters.
    size: f32,
    /// The terrain tool's radius in meters.
    radius: f32,
}

/// What the block tool aims at in a state line: the block's lowest cell (in the piece's own grid
/// for rubble, with `piece`), and how many blocks would fall with it.
#[derive(Serialize)]
struct AimLine {
    cell: [i32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    piece: Option<u32>,
    would_fall: usize,
}

#[derive(Serialize)]
struct ChunksLine {
    /// The terrain's mesher, as settings name it in lower case (`surface-nets`).
    mesher: &'static str,
    loaded: usize,
    /// Chunks still to load, and loaded ones still to mesh with a new mesher.
    waiting: usize,
}

/// A scripted run's `state` line: what the HUD shows, as JSON.
#[derive(Serialize)]
pub(super) struct ScriptStateLine {
    t: f64,
    player: PlayerLine,
    yaw_degrees: f32,
    pitch_degrees: f32,
    tool: ToolLine,
    aim: Option<AimLine>,
    blocks: usize,
    pieces: usize,
    falling: usize,
    chunks: ChunksLine,
    /// The menu's screen shown: `null` (closed), `"pause"`, `"settings"` or `"worlds"`.
    pub(super) menu: Option<&'static str>,
    /// The edits that undo can take back, and that redo can make again.
    undo_depth: usize,
    redo_depth: usize,
    /// The dust and debris particles alive, in a run that draws them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) particles: Option<u32>,
    /// The world's save, in a scripted run that has one ([`SaveState`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) save: Option<SaveState>,
}

impl ScriptStateLine {
    pub(super) fn of(world: &World, t: f64) -> Self {
        let aim = world.aim().and_then(|aim| match aim.target {
            AimTarget::Block { block, .. } => Some(AimLine {
                cell: block.low(),
                piece: None,
                would_fall: aim.would_fall.len(),
            }),
            AimTarget::Piece { handle, cell } => Some(AimLine {
                cell,
                piece: Some(handle.index()),
                would_fall: 0,
            }),
            AimTarget::Ground => None,
        });
        let viewer = world.eye().into();
        Self {
            t: trace_time(t),
            player: PlayerLine::of(world.player()),
            yaw_degrees: world.yaw().to_degrees(),
            pitch_degrees: world.pitch().to_degrees(),
            tool: ToolLine {
                kind: world.tool().kind.name(),
                material: world.tool().material_name(),
                size: world.tool().size_meters(),
                radius: world.tool().radius,
            },
            aim,
            blocks: world.blocks().count(),
            pieces: world.pieces().len(),
            falling: world.pieces().falling(),
            chunks: ChunksLine {
                mesher: world.chunks().mesher().name(),
                loaded: world.chunks().loaded().count(),
                waiting: world.chunks().missing(viewer) + world.chunks().remeshing(),
            },
            menu: None,
            undo_depth: world.undo_depth(),
            redo_depth: world.redo_depth(),
            particles: None,
            save: None,
        }
    }
}

/// The result of an event; fields that do not apply are left out.
#[derive(Serialize, Default)]
pub(super) struct EventLine {
    pub(super) t: f64,
    pub(super) event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) cell: Option<[i32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) center: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) radius: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) removed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) placed: Option<bool>,
    /// Why a block was not placed: "occupied", "player" or "full" (a limit of the world).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) changed: Option<bool>,
    /// How many blocks would fall.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) count: Option<usize>,
    /// How many blocks lost their hold and left the world after a break or a dig.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) fell: Option<usize>,
    /// The piece a block was broken out of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) piece: Option<u32>,
    /// The pieces it split into (a load: the loaded world's pieces).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) pieces: Option<Vec<u32>>,
    /// The pieces a piece that broke where it was struck split into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) into: Option<Vec<u32>>,
    /// The blocks standing in a loaded world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) blocks: Option<usize>,
    /// Where a save went or a load came from, how many bytes a save has (or why either
    /// failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<String>,
}

#[derive(Serialize)]
pub(super) struct DoneLine {
    pub(super) done: bool,
    pub(super) t: f64,
}

/// Time as the trace prints it: to the microsecond, so 6 frames of 1/60 s read 0.1.
pub(super) fn trace_time(t: f64) -> f64 {
    (t * 1e6).round() / 1e6
}
