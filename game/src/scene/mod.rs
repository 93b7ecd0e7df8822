//! Scenes: a world set up from a scene file and run headless frame by frame, writing a JSON-lines
//! trace. The `sim` tool and the scenario tests both run scenes through [`run()`], so what a test
//! checks is what a user sees.
//!
//! ```text
//!   {"t":0,"player":{"feet":[..],"velocity":[..],"grounded":true,"mode":"walk"},"blocks":3,"pieces":[{"id":0,"blocks":3,"mass":…,"center_of_mass":[..],"orientation":[x,y,z,w],"velocity":[..],"spin":[..],"resting":false,"contact_points":44}],"falling":1}
//!   {"t":1,"event":"break","cell":[4,0,2],"removed":true}
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
//! - `world`: the world of a running scene ([`SceneWorld`]): set up, events, frames.
//! - `solids`: what is solid in it ([`SceneSolids`], [`WithRubble`]).
//! - `trace`: the lines of the trace.
//! - `run`: the frames and events in order, written as the trace ([`run()`], [`run_with_pool`]).

mod error;
pub mod file;
mod run;
mod solids;
mod trace;
mod validate;
mod world;

pub use error::SceneError;
pub use file::{ActionSpec, BlockSpec, EventSpec, Key, SceneFile, SphereSpec, TerrainSpec};
pub use run::{run, run_with_pool};
pub use solids::{SceneSolids, WithRubble};
pub use validate::{block_of, parse, LONGEST_FRAME, LONGEST_SCENE, WORLD_CELLS};
pub use world::SceneWorld;
