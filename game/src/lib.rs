//! blockfall's world and its rules, with no GPU crate in their tree (what draws them is
//! `blockfall-game-render`, `game/render/`).
//!
//! - [`blocks`]: blocks on the 0.5 m grid: materials, the store, shapes, the mesher.
//! - [`camera`]: where the world is seen from, for the renderer and for tests.
//! - [`cell_hash`]: a fast hash for maps keyed by grid coordinates.
//! - [`files`]: the player's files (saves, settings) written atomically and read with a size
//!   cap.
//! - [`input`]: the controls: keys and buttons by name, what is held, what a press asks for.
//! - [`limits`]: what a world may hold, and so what a save, a scene or a script may ask for.
//! - [`pieces`]: loose groups of blocks falling as rigid bodies, and resting ones as rubble.
//! - [`player`]: two balls that walk on whatever is solid, or fly.
//! - [`save`]: saved worlds: one file with everything needed to carry on (docs/saves.md).
//! - [`scene`]: scene files run headless into a JSON-lines trace (the `sim` tool).
//! - [`settings`]: the player's `settings.ron` (bindings, mouse, view, window), where it and
//!   the saves live.
//! - [`showcase`]: the showcase, a demo scene: pillar, pyramid, beam, ball, table
//!   (docs/support.md).
//! - [`solids`]: the nearest surface of each kind of solid alone: the terrain's, the blocks'
//!   (`world::scene_solids` joins them).
//! - [`sounds`]: what blows, digging, steps and landings sound like (recipes for
//!   `blockfall-audio`), and how loud a blow is from its impulse.
//! - [`strength`]: where a falling piece breaks when it strikes something.
//! - [`support`]: what holds a block: touching chains down to the ground.
//! - [`terrain`]: the ground: density from noise, edits, the sampled field, chunks, sky light
//!   and streaming.
//! - [`world`]: the world at play, one model for the window, scripted runs and `sim`: ground,
//!   chunks, blocks, support, pieces, the player and the tools, and the rules that tie them.

pub mod blocks;
pub mod camera;
pub mod cell_hash;
pub mod dvec3;
pub mod files;
pub mod input;
pub mod limits;
pub mod pieces;
pub mod player;
pub mod save;
pub mod scene;
pub mod settings;
pub mod showcase;
pub mod solids;
pub mod sounds;
pub mod strength;
pub mod support;
pub mod terrain;
pub mod world;
