//! What a run is asked to do, shared by the window and the headless renderer.

use std::path::PathBuf;

/// What a run shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SceneChoice {
    /// The world: the player at the spawn point, looking north onto the slope with the caves.
    #[default]
    World,
    /// The renderer's test scene: cubes of every material on a stone slab.
    Test,
}

/// Options of a run (the command line, or a test).
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub width: u32,
    pub height: u32,
    /// Stop after this many frames (headless: render exactly this many).
    pub frames: Option<u64>,
    /// Where the headless render writes its PNG.
    pub screenshot: Option<PathBuf>,
    /// The Khronos validation layer; errors make the run fail.
    pub validation: bool,
    /// `--gpu N`.
    pub gpu: Option<usize>,
    /// Capture this frame (counting from 0) through RenderDoc's in-app API.
    pub renderdoc_capture_frame: Option<u64>,
    /// Seconds the scene advances per frame in a headless run (the window uses real time).
    pub time_step: f32,
    /// FIFO presentation (on by default).
    pub vsync: bool,
    /// For tests: after this many presented frames, resize the window to this size.
    pub resize_after: Option<(u64, u32, u32)>,
    pub scene: SceneChoice,
    /// The world's seed.
    pub seed: u32,
    /// Chunks (32 m) loaded around the player.
    pub view_radius: u32,
    /// The HUD over the picture (on by default; `--no-hud`).
    pub hud: bool,
    /// `--script`: a checked scene to play at its fixed frame time until its duration.
    pub script: Option<blockfall_game::scene::SceneFile>,
    /// `--world PATH`: the save to open (or create), and to save to.
    pub world: Option<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            width: 1280,
            height: 720,
            frames: None,
            screenshot: None,
            validation: false,
            gpu: None,
            renderdoc_capture_frame: None,
            time_step: 1.0 / 60.0,
            vsync: true,
            resize_after: None,
            scene: SceneChoice::World,
            seed: blockfall_game::terrain::Generator::DEFAULT_SEED,
            view_radius: blockfall_game::terrain::streaming::VIEW_RADIUS,
            script: None,
            world: None,
            hud: true,
        }
    }
}

/// What a run did, for the caller to print or a test to check.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    pub frames: u64,
    /// Mean wall-clock time per frame, in milliseconds, over the frames after the first.
    pub mean_frame_ms: f64,
    /// Mean CPU time per frame to play the world's frame (script events, tools, physics,
    /// streaming, mesh uploads) and to record the frame's passes, in milliseconds.
    pub mean_cpu_ms: (f64, f64),
    /// GPU time of each pass of the last finished frame.
    pub pass_timings: Vec<(String, f64)>,
    pub validation_errors: u64,
    pub last_validation_error: Option<String>,
    /// The PNG written, if any.
    pub screenshot: Option<PathBuf>,
    /// Swapchain sizes in the order they were made (window runs).
    pub swapchain_extents: Vec<(u32, u32)>,
    /// Frames presented with each of those swapchains.
    pub frames_per_swapchain: Vec<u64>,
    pub device_name: String,
    /// Whether a RenderDoc capture was made.
    pub captured: bool,
}
