//! Scenes: a world set up from a scene file and run headless frame by frame, writing a JSON-lines
//! trace. The `sim` tool and the scenario tests both run scenes through [`run()`], so what a test
//! checks is what a user sees.
//!
//! ```text
//!   {"t":0,"player":{"feet":[..],"velocity":[..],"grounded":true,"mode":"walk"},"blocks":3,"pieces":[{"id":0,"blocks":3,"mass":…,"center_of_mass":[..],"orientation":[x,y,z,w],"velocity":[..],"spin":[..],"resting":false,"contact_points":44}],"falling":1}
//!   {"t":1,"event":"break","cell":[4,0,2],"removed":true}
//!   {"t":2.4,"event":"split","piece":0,"into":[0,1]}
//!   ...
//!   {"done":true,"t":5}
//! ```
//! A state line every `report_every` seconds (0: every frame), a line per event result, and
//! `done` last. Frames are fixed steps of `frame_dt`; the same scene gives the same bytes on any
//! machine and with any number of threads.
//!
//! - [`file`](mod@file): the scene file as JSON reads it.
//! - `validate`: checking a scene whole before it runs ([`parse`], [`block_of`]).
//! - `error`: why a scene cannot run ([`SceneError`]).
//! - `limits`: how much work a scene may ask for, checked before it runs ([`Limits`]).
//! - `setup`: the [`World`](crate::world::World) a scene starts with ([`world_of`]); the world
//!   and its rules are the game's own (`crate::world`), shared with the window.
//! - `events`: an event applied to the world: input, actions, a scripted run's requests
//!   ([`apply`], [`Outcome`]).
//! - `trace`: the lines of the trace, and a scripted run's `state` line.
//! - `run`: the frames and events in order ([`Runner`], which a scripted run draws between),
//!   written as the trace ([`run()`], [`run_with_pool`]).

mod error;
mod events;
pub mod file;
mod limits;
mod run;
mod setup;
mod trace;
mod validate;

pub use crate::world::{SceneSolids, WithRubble};
pub use error::SceneError;
pub use events::{apply, Outcome};
pub use file::{
    ActionSpec, BlockSpec, Button, EventSpec, Limits, SceneFile, SphereSpec, TerrainSpec,
};
pub use run::{run, run_with_pool, Runner};
pub use setup::{world_of, Start};
pub use trace::SaveState;
pub use validate::{
    block_of, parse, read, LARGEST_SCENE_BYTES, LONGEST_FRAME, LONGEST_SCENE, WORLD_CELLS,
    WORLD_METERS,
};
