//! blockfall: the application around the engine and the game — running a window or a headless
//! render, screenshots, RenderDoc captures, and the compiled shaders.
//!
//! - [`capture`]: `--renderdoc-capture-frame N`, a frame captured through RenderDoc's API.
//! - [`commands`]: what a frame's commands do (wireframe, detail, screenshot, save, load), the
//!   same in the window and headless.
//! - [`gpu_failure`]: a lost device or memory gone turned into a message, a recovery save and
//!   exit status 3.
//! - [`headless`]: rendering without a window, into an offscreen target read back to PNG.
//! - [`input`]: the window's keys and buttons mapped onto the game's controls.
//! - [`menu`]: the pause menu and its screens (Settings, Worlds) as a model every run shares.
//! - [`options`]: what a run is asked to do, for the window and the headless renderer.
//! - [`overlay`]: the HUD: what it says and the pass that draws it.
//! - [`play`]: the world's side of a frame: whose input drives it, what the HUD shows, what
//!   goes back to whoever presents the frame.
//! - [`playing`]: the world and what draws it, side by side; a frame's order.
//! - [`refusal`]: bad input refused before any frame with exit status 2; a run never writes
//!   over its own inputs.
//! - [`saves`]: saving and loading (F5, F9, `--world`, autosave, the save at the end); a failed
//!   save kept, shown and tried again.
//! - [`screenshot`]: read-back pixels written as PNG.
//! - [`script`]: scripted runs (`--script`): a `sim` scene whose events may also be input.
//! - [`shake`]: the camera's shake from heavy blows near the player.
//! - [`shown`]: what a run shows: the world or the renderer's test scene.
//! - [`signals`]: SIGTERM, SIGINT and SIGHUP stop the run through its end, which saves.
//! - [`sound`]: the blows heard: played on the output device, or written to `--audio-wav`'s file.
//! - [`soak`]: the soak, long random play with saves and loads while memory is watched.
//! - [`window`]: the windowed run: winit's event loop, the swapchain, frames in flight.
//! - [`world_lock`]: one game per world: the lock file beside the save.
//! - [`worlds`]: the player's worlds in the data folder: the last played, the list, new ones.
//! - [`shaders`]: the SPIR-V `build.rs` compiled from `shaders/`.

pub mod capture;
pub mod commands;
pub mod frame;
pub mod gpu_failure;
pub mod headless;
pub mod input;
pub mod menu;
pub mod options;
pub mod overlay;
pub mod play;
pub mod playing;
pub mod refusal;
pub mod saves;
pub mod screenshot;
pub mod script;
pub mod shake;
pub mod shown;
pub mod signals;
pub mod soak;
pub mod sound;
pub mod window;
pub mod world_lock;
pub mod worlds;

/// The SPIR-V that `build.rs` compiled from `shaders/`.
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

    /// The compiled shaders, by file name.
    pub const LIBRARY: blockfall_engine::gpu::ShaderLibrary =
        blockfall_engine::gpu::ShaderLibrary::new(SHADERS);
}
