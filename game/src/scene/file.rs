//! The scene file of the `sim` tool and of scripted runs (`blockfall --script`): what the world
//! holds at the start and what happens when, input included. The format is a contract (tests
//! and users depend on it): later features add to it, never change it. Unknown fields are
//! errors, so a typo is never silently ignored.

use serde::Deserialize;

pub use super::limits::Limits;

pub use crate::input::Button;

/// A whole scene.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// A save to start from (`crate::save`): its world, its clock and what it held. The other
    /// keys add to it; `terrain` may not be given with it.
    #[serde(default)]
    pub world_file: Option<std::path::PathBuf>,
    /// Without it, the generated world of the default seed with its showcase in front of
    /// the spawn point and the player there (the game's own start).
    #[serde(default)]
    pub terrain: Option<TerrainSpec>,
    #[serde(default)]
    pub digs: Vec<SphereSpec>,
    #[serde(default)]
    pub builds: Vec<SphereSpec>,
    #[serde(default)]
    pub blocks: Vec<BlockSpec>,
    /// The showcase (`crate::showcase`, docs/support.md) at (x, z). `sample_scene`, its name
    /// before, is still read (the format never changes, it only adds).
    #[serde(default, alias = "sample_scene")]
    pub showcase: Option<[f32; 2]>,
    #[serde(default)]
    pub player: Option<PlayerSpec>,
    #[serde(default)]
    pub events: Vec<EventSpec>,
    pub duration: f64,
    #[serde(default = "default_frame_dt")]
    pub frame_dt: f64,
    #[serde(default = "default_report_every")]
    pub report_every: f64,
    /// How much work the scene may ask for: frames and trace bytes ([`Limits`]).
    #[serde(default)]
    pub limits: Limits,
}

fn default_frame_dt() -> f64 {
    1.0 / 60.0
}

fn default_report_every() -> f64 {
    0.1
}

/// The ground under everything.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum TerrainSpec {
    /// Ground below `y = height`.
    Flat { height: f32 },
    /// Ground below `y = height + tan(degrees) · x`.
    Slope { degrees: f32, height: f32 },
    /// The generated world of a seed.
    World { seed: u32 },
}

/// A sphere to dig or build.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereSpec {
    pub center: [f32; 3],
    pub radius: f32,
}

/// A block: its lowest cell, size in cells, material by name, cut edges and slope.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSpec {
    pub cell: [i32; 3],
    #[serde(default = "default_size")]
    pub size: u8,
    pub material: String,
    #[serde(default)]
    pub cuts: u16,
    #[serde(default)]
    pub slope: bool,
}

fn default_size() -> u8 {
    2
}

/// Where the player starts.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerSpec {
    pub feet: [f32; 3],
    #[serde(default)]
    pub yaw_degrees: f32,
    /// Above the horizon; the view looks down for negative values.
    #[serde(default)]
    pub pitch_degrees: f32,
    #[serde(default)]
    pub mode: ModeSpec,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeSpec {
    #[default]
    Walk,
    Fly,
}

/// Something that happens at time `t`: `{"t": 1.0, "press": "KeyW"}`, one action per event.
#[derive(Debug, Clone)]
pub struct EventSpec {
    pub t: f64,
    pub action: ActionSpec,
}

/// The names of the actions, as keys of an event.
const ACTIONS: &[&str] = &[
    "press",
    "release",
    "break",
    "place",
    "dig",
    "build",
    "would_fall",
    "break_piece",
    "turn",
    "wheel",
    "look",
    "screenshot",
    "state",
    "save",
    "load",
    "menu",
];

impl<'de> Deserialize<'de> for EventSpec {
    // By hand: serde's `flatten` cannot be combined with `deny_unknown_fields`, and an unknown
    // or doubled key in an event must be an error that names it.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EventVisitor;

        impl<'de> serde::de::Visitor<'de> for EventVisitor {
            type Value = EventSpec;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("an event: {\"t\": seconds, ACTION: ...}")
            }

            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<EventSpec, M::Error> {
                use serde::de::Error;
                let mut t = None;
                let mut action: Option<ActionSpec> = None;
                while let Some(key) = map.next_key::<String>()? {
                    let parsed = match key.as_str() {
                        "t" => {
                            if t.replace(map.next_value::<f64>()?).is_some() {
                                return Err(M::Error::duplicate_field("t"));
                            }
                            continue;
                        }
                        "press" => ActionSpec::Press(map.next_value()?),
                        "release" => ActionSpec::Release(map.next_value()?),
                        "break" => ActionSpec::Break(map.next_value()?),
                        "place" => ActionSpec::Place(map.next_value()?),
                        "dig" => ActionSpec::Dig(map.next_value()?),
                        "build" => ActionSpec::Build(map.next_value()?),
                        "would_fall" => ActionSpec::WouldFall(map.next_value()?),
                        "break_piece" => ActionSpec::BreakPiece(map.next_value()?),
                        "turn" => ActionSpec::Turn(map.next_value()?),
                        "wheel" => ActionSpec::Wheel(map.next_value()?),
                        "look" => ActionSpec::Look(map.next_value()?),
                        "screenshot" => ActionSpec::Screenshot(map.next_value()?),
                        "state" => ActionSpec::State(map.next_value()?),
                        "save" => ActionSpec::Save(map.next_value()?),
                        "load" => ActionSpec::Load(map.next_value()?),
                        "menu" => ActionSpec::Menu(map.next_value()?),
                        other => return Err(M::Error::unknown_field(other, ACTIONS)),
                    };
                    if let Some(first) = &action {
                        return Err(M::Error::custom(format!(
                            "an event has one action, this one has `{}` and `{key}`",
                            first.name()
                        )));
                    }
                    action = Some(parsed);
                }
                let t = t.ok_or_else(|| M::Error::missing_field("t"))?;
                let action = action.ok_or_else(|| {
                    M::Error::custom(format!(
                        "an event needs an action: one of {}",
                        ACTIONS.join(", ")
                    ))
                })?;
                Ok(EventSpec { t, action })
            }
        }

        deserializer.deserialize_map(EventVisitor)
    }
}

/// What happens.
#[derive(Debug, Clone)]
pub enum ActionSpec {
    /// A key or mouse button goes down, as a player's would (scenes act as if the mouse were
    /// captured from the start: a click acts).
    Press(Button),
    Release(Button),
    /// Remove the block that fills this cell.
    Break([i32; 3]),
    Place(BlockSpec),
    Dig(SphereSpec),
    Build(SphereSpec),
    /// Report what would fall with the block that fills this cell.
    WouldFall([i32; 3]),
    /// Break a block out of a piece: the cell is in the piece's own grid.
    BreakPiece(PieceCellSpec),
    /// The mouse moves by (dx, dy) pixels, as if captured.
    Turn([f32; 2]),
    /// The wheel turns by this many notches (up is positive).
    Wheel(f32),
    /// The view is set directly.
    Look(LookSpec),
    /// A PNG of the frame (rendered runs only).
    Screenshot(String),
    /// A state line (`true`; `false` writes nothing).
    State(bool),
    /// The world saved to this file, with the scene's clock and what is held.
    Save(std::path::PathBuf),
    /// The world of the save at this path replaces the scene's, as F9 loads one in the window
    /// (`World::from_save`, the same streaming radius and worker pool): `{"t": 60, "load":
    /// "w.blockfall"}`. The scene's clock goes on (the save's clock is not taken) and the
    /// script's input stays as it is, so a load in the middle of a run changes the world and
    /// nothing else. A save that cannot be read or used leaves the world as it was; the
    /// event's line says why (`error`).
    Load(std::path::PathBuf),
    /// A choice on the game's menu, in a scripted run (`sim` has no menu and writes nothing
    /// for it): `"pause"` opens it, `"resume"` closes it, a row's id chooses that row
    /// (`"settings"`, `"quit"`, `"world:NAME"`), `"KEY=VALUE"` sets a setting
    /// (`"fov_degrees=100"`). The application's `menu` module has the whole list.
    Menu(String),
}

/// A view: `{"yaw_degrees": 0, "pitch_degrees": -5}` (yaw 0 faces +z, 90 faces +x).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookSpec {
    pub yaw_degrees: f32,
    #[serde(default)]
    pub pitch_degrees: f32,
}

/// A block of a piece: `{"piece": ID, "cell": [i, j, k]}`, the cell in the piece's own grid.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceCellSpec {
    pub piece: u32,
    pub cell: [i32; 3],
}

impl ActionSpec {
    /// The action's key in the scene file and the trace.
    pub fn name(&self) -> &'static str {
        match self {
            ActionSpec::Press(_) => "press",
            ActionSpec::Release(_) => "release",
            ActionSpec::Break(_) => "break",
            ActionSpec::Place(_) => "place",
            ActionSpec::Dig(_) => "dig",
            ActionSpec::Build(_) => "build",
            ActionSpec::WouldFall(_) => "would_fall",
            ActionSpec::BreakPiece(_) => "break_piece",
            ActionSpec::Turn(_) => "turn",
            ActionSpec::Wheel(_) => "wheel",
            ActionSpec::Look(_) => "look",
            ActionSpec::Screenshot(_) => "screenshot",
            ActionSpec::State(_) => "state",
            ActionSpec::Save(_) => "save",
            ActionSpec::Load(_) => "load",
            ActionSpec::Menu(_) => "menu",
        }
    }
}
