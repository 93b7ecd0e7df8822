//! What a run is asked to do, shared by the window and the headless renderer.

use std::path::{Path, PathBuf};

use blockfall_engine::meshing::Mesher;
use blockfall_game::input::{Bindings, Look};
use blockfall_game::settings::{self, Settings};
use blockfall_game_render::shadows::Shadows;

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
    /// Whether `--view-radius` set it: a radius the device cannot hold is then refused; one
    /// from the settings or the default is lowered to what the device holds (`shown`).
    pub view_radius_given: bool,
    /// The HUD over the picture (on by default; `--no-hud`).
    pub hud: bool,
    /// `--debug-sky`: the sky cleared to magenta, so holes in the terrain stand out.
    pub debug_sky: bool,
    /// A crosshair at the centre of the view while the HUD is shown (on by default).
    pub crosshair: bool,
    /// `--script`: a checked scene to play at its fixed frame time until its duration.
    pub script: Option<blockfall_game::scene::SceneFile>,
    /// `--world PATH`: the save to open (or create), and to save to.
    pub world: Option<PathBuf>,
    /// `--read-only`: the world is opened but never saved (F5 says so, no autosave, nothing
    /// at the end), and not locked.
    pub read_only: bool,
    /// The lock on the run's save, when the run took it at its start
    /// ([`crate::world_lock`]); a run without one takes it at its first save.
    pub world_lock: Option<std::sync::Arc<crate::world_lock::WorldLock>>,
    /// Open the window fullscreen (borderless).
    pub fullscreen: bool,
    /// The view's vertical field of view, in degrees (70 by default).
    pub fov_degrees: f32,
    /// The terrain's mesher at the start (a script's world starts with the default unless
    /// `--settings` names a file, as its view does).
    pub mesher: Mesher,
    /// The sun's shadows and the blocks' occlusion (a script's world draws the default unless
    /// `--shadows` is given or `--settings` names a file).
    pub shadows: Shadows,
    /// Whether `--shadows` set them: a script then draws them too.
    pub shadows_given: bool,
    /// What the player's buttons do (a script's input always uses the defaults).
    pub bindings: Bindings,
    /// How the player's mouse turns the view (a script's input always uses the default).
    pub look: Look,
    /// The settings file this run read, if any (the HUD says where it is).
    pub settings_file: Option<PathBuf>,
    /// What was wrong with it (the HUD shows it for a while at the start).
    pub settings_problem: Option<String>,
    /// The player's settings as read (the defaults when none were): the menu's Settings
    /// screen starts from them and writes its changes to `settings_file`.
    pub settings: Settings,
    /// `--audio-wav PATH`: the sound written to this WAV file instead of played.
    pub audio_wav: Option<PathBuf>,
    /// The world was chosen for the player (`--world` not given: the last played in the data
    /// folder, [`crate::worlds`]), not named on the command line.
    pub world_chosen: bool,
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
            view_radius_given: false,
            script: None,
            world: None,
            read_only: false,
            world_lock: None,
            hud: true,
            debug_sky: false,
            crosshair: true,
            fullscreen: false,
            fov_degrees: blockfall_game::camera::FIELD_OF_VIEW_DEGREES,
            mesher: Mesher::default(),
            shadows: Shadows::default(),
            shadows_given: false,
            bindings: Bindings::default(),
            look: Look::default(),
            settings_file: None,
            settings_problem: None,
            settings: Settings::default(),
            world_chosen: false,
            audio_wav: None,
        }
    }
}

/// The flags of the command line that the settings file also sets: those given win over it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overrides {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub view_radius: Option<u32>,
    /// `--no-vsync` (not given: the settings say).
    pub no_vsync: bool,
    /// `--no-hud` (not given: the settings say).
    pub no_hud: bool,
    /// `--shadows`.
    pub shadows: Option<Shadows>,
}

impl RunOptions {
    /// Takes what the player's settings say: the window's size, fullscreen, vsync, the HUD and
    /// its crosshair, the view radius, the field of view, the terrain's mesher, the shadows, the
    /// bindings and the mouse.
    pub fn apply_settings(&mut self, settings: &Settings) {
        self.width = settings.width;
        self.height = settings.height;
        self.fullscreen = settings.fullscreen;
        self.vsync = settings.vsync;
        self.hud = settings.hud;
        self.crosshair = settings.crosshair;
        self.view_radius = settings.view_radius;
        self.fov_degrees = settings.fov_degrees;
        self.mesher = settings.mesher;
        self.shadows = settings.shadows;
        self.bindings = settings.bindings;
        self.look = settings.look();
        self.settings = settings.clone();
    }

    /// Takes the flags that were given (after [`RunOptions::apply_settings`]: flags win).
    pub fn apply_overrides(&mut self, flags: &Overrides) {
        if let Some(width) = flags.width {
            self.width = width;
        }
        if let Some(height) = flags.height {
            self.height = height;
        }
        if let Some(radius) = flags.view_radius {
            self.view_radius = radius;
            self.view_radius_given = true;
        }
        if flags.no_vsync {
            self.vsync = false;
        }
        if flags.no_hud {
            self.hud = false;
        }
        if let Some(shadows) = flags.shadows {
            self.shadows = shadows;
            self.shadows_given = true;
        }
    }

    /// Loads the settings at `path` (never fails: see [`settings::load`]), takes them, and
    /// remembers the file and its problem; returns the warnings to report: the file's
    /// problem, and for a scripted or headless run (`headless`) one line naming the settings
    /// it set that such a run cannot honour ([`unhonoured_settings`]).
    pub fn load_settings(&mut self, path: &Path, headless: bool) -> Vec<String> {
        let loaded = settings::load(path);
        if loaded.wrote_defaults && loaded.problem.is_none() {
            log::info!("wrote the default settings to {}", path.display());
        }
        self.apply_settings(&loaded.settings);
        self.settings_file = Some(loaded.path);
        self.settings_problem = loaded.problem.clone();
        let mut warnings: Vec<String> = loaded.problem.into_iter().collect();
        let scripted = self.script.is_some();
        let unhonoured = unhonoured_settings(&loaded.settings, scripted, headless);
        if !unhonoured.is_empty() {
            let run = match (scripted, headless) {
                (true, true) => "a headless scripted run",
                (true, false) => "a scripted run",
                _ => "a headless run",
            };
            warnings.push(format!(
                "{}: {run} cannot honour {} (a script plays with the default keys and mouse; \
                 a headless run has no window)",
                path.display(),
                unhonoured.join(", ")
            ));
        }
        warnings
    }
}

/// The keys of `settings` that differ from the defaults and that a run cannot honour: a
/// scripted run (`scripted`) plays its input with the default bindings and mouse, a headless
/// one (`headless`) has no window to make fullscreen or present in step with a display. The
/// rest a script honours: the size, the view radius, the field of view, the mesher, the
/// shadows, the HUD and its crosshair.
pub fn unhonoured_settings(
    settings: &Settings,
    scripted: bool,
    headless: bool,
) -> Vec<&'static str> {
    let defaults = Settings::default();
    let mut keys = Vec::new();
    if scripted {
        if settings.bindings != defaults.bindings {
            keys.push("bindings");
        }
        if settings.mouse_sensitivity != defaults.mouse_sensitivity {
            keys.push("mouse_sensitivity");
        }
        if settings.invert_mouse_y != defaults.invert_mouse_y {
            keys.push("invert_mouse_y");
        }
    }
    if headless {
        if settings.fullscreen != defaults.fullscreen {
            keys.push("fullscreen");
        }
        if settings.vsync != defaults.vsync {
            keys.push("vsync");
        }
    }
    keys
}

/// Which settings file a run reads: the one `--settings` names; else, for the player's windowed
/// play, `settings.ron` in the platform's config folder; none for headless and scripted runs,
/// which stay the same on every machine (and never write into the config folder).
pub fn settings_path(explicit: Option<&Path>, headless: bool, scripted: bool) -> Option<PathBuf> {
    match explicit {
        Some(path) => Some(path.to_path_buf()),
        None if headless || scripted => None,
        None => settings::default_path(),
    }
}

/// What a run did, for the caller to print or a test to check.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    pub frames: u64,
    /// Mean wall-clock time per frame, in milliseconds, over the frames after the first.
    pub mean_frame_ms: f64,
    /// Mean CPU time per frame to play the world's frame (script events, tools, physics,
    /// streaming, mesh uploads) and to record the frame's passes, in milliseconds, past the
    /// first frame when there were more (`overlay::FrameClock`).
    pub mean_cpu_ms: (f64, f64),
    /// The first frame's CPU times to play and to record, in milliseconds.
    pub first_cpu_ms: (f64, f64),
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
    /// What the run said to the player (the HUD's messages: a screenshot written, a save, the
    /// wireframe turned on), in order.
    pub messages: Vec<String>,
    /// The signal the run stopped on (`SIGTERM`), if one stopped it.
    pub stopped_by: Option<&'static str>,
    /// Why the world was not saved when the run ended, if its save at the end failed (or a
    /// player left after being told): the run exits with status 1.
    pub unsaved: Option<String>,
}

#[cfg(test)]
mod tests {
    use blockfall_game::input::{Action, Button};

    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("blockfall-options-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn headless_and_scripted_runs_read_no_settings_unless_named() {
        assert_eq!(settings_path(None, true, false), None);
        assert_eq!(settings_path(None, false, true), None);
        assert_eq!(settings_path(None, true, true), None);
        let named = Path::new("/somewhere/mine.ron");
        for (headless, scripted) in [(false, false), (true, false), (false, true)] {
            assert_eq!(
                settings_path(Some(named), headless, scripted).as_deref(),
                Some(named)
            );
        }
        assert_eq!(settings_path(None, false, false), settings::default_path());
    }

    #[test]
    fn the_settings_apply_and_the_flags_given_win() {
        let dir = scratch("merge");
        let path = dir.join("settings.ron");
        let mut mine = Settings {
            width: 800,
            height: 600,
            fullscreen: true,
            vsync: true,
            hud: true,
            crosshair: false,
            view_radius: 4,
            fov_degrees: 90.0,
            mouse_sensitivity: 0.5,
            invert_mouse_y: true,
            shadows: Shadows::Low,
            ..Settings::default()
        };
        mine.bindings.unbind(Button::KeyF);
        mine.bindings.bind(Button::KeyG, Action::Fly).unwrap();
        mine.write(&path).unwrap();

        let mut options = RunOptions::default();
        assert_eq!(options.load_settings(&path, false), Vec::<String>::new());
        options.apply_overrides(&Overrides::default());
        assert_eq!((options.width, options.height), (800, 600));
        assert!(options.fullscreen && options.vsync && options.hud);
        assert_eq!(options.view_radius, 4);
        assert_eq!(options.fov_degrees, 90.0);
        assert_eq!(options.bindings.action(Button::KeyG), Some(Action::Fly));
        assert_eq!(options.look.sensitivity, 0.5);
        assert!(options.look.invert_y);
        assert!(!options.crosshair);
        assert_eq!(options.shadows, Shadows::Low);
        assert!(!options.shadows_given, "the file's, not the flag's");
        assert_eq!(options.settings_file.as_deref(), Some(path.as_path()));

        options.apply_overrides(&Overrides {
            width: Some(320),
            height: Some(200),
            view_radius: Some(2),
            no_vsync: true,
            no_hud: true,
            shadows: Some(Shadows::Off),
        });
        assert_eq!((options.width, options.height), (320, 200));
        assert_eq!(options.view_radius, 2);
        assert!(!options.vsync && !options.hud);
        assert_eq!(options.shadows, Shadows::Off);
        assert!(options.shadows_given);

        // A scripted headless run honours the size, the view, the mesher and the shadows, and
        // names in one line what it cannot: the keys, the mouse, fullscreen.
        let mut scripted = RunOptions {
            script: Some(blockfall_game::scene::parse(r#"{"duration": 1.0}"#).unwrap()),
            ..RunOptions::default()
        };
        let warnings = scripted.load_settings(&path, true);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        for key in [
            "bindings",
            "mouse_sensitivity",
            "invert_mouse_y",
            "fullscreen",
        ] {
            assert!(warnings[0].contains(key), "{key}: {warnings:?}");
        }
        for key in ["fov_degrees", "view_radius", "shadows", "vsync", "width"] {
            assert!(!warnings[0].contains(key), "{key}: {warnings:?}");
        }
        assert_eq!(scripted.fov_degrees, 90.0);
        assert_eq!(
            unhonoured_settings(&Settings::default(), true, true),
            Vec::<&str>::new(),
            "the defaults lose nothing"
        );

        // A broken file: the defaults, and the problem to report.
        std::fs::write(&path, "(\n    width: 90000,\n)\n").unwrap();
        let mut options = RunOptions::default();
        let problem = options
            .load_settings(&path, false)
            .into_iter()
            .next()
            .expect("a problem");
        assert!(problem.contains("line 2"), "{problem}");
        assert_eq!(options.settings_problem.as_deref(), Some(problem.as_str()));
        assert_eq!(options.width, 1280);
        std::fs::remove_dir_all(dir).ok();
    }
}
