//! `blockfall`: opens the game's window, or renders headless to a PNG where there is no display.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use blockfall::gpu_failure::GpuFailed;
use blockfall::headless::{run_headless, DEFAULT_SCREENSHOT};
use blockfall::options::{settings_path, Overrides, RunOptions, RunReport, SceneChoice};
use blockfall::refusal::{self, Refusal, Role, RunFiles};
use blockfall::screenshot::check_writable;
use blockfall::window::{run_windowed, NoDisplay};
use blockfall::world_lock::{lock_path, LockError, WorldLock};
use blockfall_game_render::shadows::Shadows;
use clap::Parser;

/// Smooth voxel terrain with buildings of blocks that stand, break and fall.
#[derive(Debug, Parser)]
#[command(name = "blockfall", version, about)]
struct Cli {
    /// Render offscreen (no window) and write the last frame as a PNG.
    #[arg(long)]
    headless: bool,
    /// Frames to render: headless, exactly this many; windowed, stop after this many.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,
    /// Where the headless render writes its PNG [default: blockfall-headless.png].
    #[arg(long, value_name = "PATH")]
    screenshot: Option<PathBuf>,
    /// Width of the window or the offscreen image, in pixels [default: the settings', 1280].
    #[arg(long, value_parser = clap::value_parser!(u32).range(16..=8192))]
    width: Option<u32>,
    /// Height of the window or the offscreen image, in pixels [default: the settings', 720].
    #[arg(long, value_parser = clap::value_parser!(u32).range(16..=8192))]
    height: Option<u32>,
    /// Turn on the Khronos validation layer; any validation error fails the run.
    #[arg(long)]
    validation: bool,
    /// Use Vulkan device N (as listed in the log or the error) instead of the best one.
    #[arg(long, value_name = "N")]
    gpu: Option<usize>,
    /// When running under RenderDoc, capture frame N (counting from 0).
    #[arg(long, value_name = "N")]
    renderdoc_capture_frame: Option<u64>,
    /// Seconds the scene advances per headless frame.
    #[arg(long, default_value_t = 1.0 / 60.0, value_name = "SECONDS")]
    time_step: f32,
    /// Present as fast as possible instead of at the display's rate.
    #[arg(long)]
    no_vsync: bool,
    /// Show the renderer's test scene (cubes of every material) instead of the world.
    #[arg(long)]
    test_scene: bool,
    /// The world's seed.
    #[arg(long, default_value_t = blockfall_game::terrain::Generator::DEFAULT_SEED)]
    seed: u32,
    /// Chunks of 32 m loaded around the player [default: the settings', 8].
    #[arg(
        long,
        value_name = "CHUNKS",
        value_parser = clap::value_parser!(u32).range(1..=32)
    )]
    view_radius: Option<u32>,
    /// Leave the HUD out of the picture.
    #[arg(long)]
    no_hud: bool,
    /// Clear the sky to magenta (the fog keeps the sky's colour): any hole in the terrain, a
    /// crack between levels of detail say, shows as magenta.
    #[arg(long)]
    debug_sky: bool,
    /// The sun's shadows and the blocks' ambient occlusion: off, low or high [default: the
    /// settings', high]. A script draws the default unless this is given.
    #[arg(long, value_name = "QUALITY", ignore_case = true, value_parser = shadows_parser())]
    shadows: Option<Shadows>,
    /// Read the player's settings from this file (written with the defaults when missing)
    /// instead of settings.ron in the config folder. Headless and scripted runs read settings
    /// only when this is given. The flags above still win over it.
    #[arg(long, value_name = "PATH")]
    settings: Option<PathBuf>,
    /// Play a script: a `sim` scene whose events may also be input (keys, buttons, the mouse,
    /// the view) and requests (screenshots, state lines), at its fixed frame time until its
    /// duration; the trace goes to stdout. A bad script exits with status 2 before any frame.
    #[arg(long, value_name = "SCRIPT.json", conflicts_with_all = ["frames", "test_scene"])]
    script: Option<PathBuf>,
    /// Open this save (or create it, from `--seed`, when nothing is there; a path that cannot
    /// be read, a folder or a trailing slash exits with status 2) and lock it (another game
    /// holding it exits with status 2); the game saves there every 5 minutes, when it closes
    /// and on SIGTERM, SIGINT or SIGHUP, and F5 / F9 save and load it. With `--script`, the
    /// script plays on it. Without it, the window plays the last world played in `worlds/` of
    /// the platform's data folder (or makes `worlds/world.blockfall`), saved the same way;
    /// the menu's Worlds screen lists, makes and deletes them.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["test_scene"])]
    world: Option<PathBuf>,
    /// Write the game's sound (every blow, step and landing, mixed) to this WAV file (48 kHz,
    /// 16-bit stereo) instead of playing it; in step with the frames played, so a script gives
    /// the same file every time. Without it a window plays the sound on the default output
    /// device (none: it runs silent and says so) and a headless run is silent.
    #[arg(long, value_name = "PATH.wav")]
    audio_wav: Option<PathBuf>,
    /// Open the world without locking or ever saving it (F5 says so; no autosave, nothing at
    /// the end): to look at a world another game has open.
    #[arg(long)]
    read_only: bool,
}

/// Like `eprintln!`, through [`blockfall::signals::tell`]: after the run (a SIGHUP may have
/// closed the terminal) a message that cannot be written must not panic before the exit status.
macro_rules! say {
    ($($message:tt)*) => {
        blockfall::signals::tell(format_args!($($message)*))
    };
}

/// `--shadows`'s values: [`Shadows::ALL`]'s names in lower case.
const SHADOWS_NAMES: [&str; 3] = ["off", "low", "high"];

/// `--shadows`: the qualities by their names in lower case (`off`, `low`, `high`); another
/// value is refused with the list.
fn shadows_parser() -> impl clap::builder::TypedValueParser<Value = Shadows> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(SHADOWS_NAMES).map(|name| {
        Shadows::ALL
            .into_iter()
            .find(|quality| quality.name().eq_ignore_ascii_case(&name))
            .expect("one of the possible values")
    })
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    // From here on SIGTERM, SIGINT and SIGHUP stop the run through its end, which saves.
    if let Err(error) = blockfall::signals::listen() {
        eprintln!("warning: signals will not save the world: {error}");
    }
    if !cli.time_step.is_finite() || cli.time_step < 0.0 {
        eprintln!("error: --time-step must be a finite number of seconds, 0 or more");
        return ExitCode::from(2);
    }
    // The test hook is checked before anything starts (see blockfall::gpu_failure).
    if let Err(error) = blockfall::gpu_failure::Fault::from_env() {
        eprintln!("error: {error}");
        return ExitCode::from(2);
    }
    let script = match &cli.script {
        Some(path) => match blockfall::script::load(path) {
            Ok(scene) => Some(scene),
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut options = RunOptions {
        frames: cli.frames,
        screenshot: cli.screenshot.clone(),
        validation: cli.validation,
        gpu: cli.gpu,
        renderdoc_capture_frame: cli.renderdoc_capture_frame,
        time_step: cli.time_step,
        resize_after: None,
        scene: if cli.test_scene {
            SceneChoice::Test
        } else {
            SceneChoice::World
        },
        seed: cli.seed,
        script,
        world: cli.world.clone(),
        read_only: cli.read_only,
        debug_sky: cli.debug_sky,
        audio_wav: cli.audio_wav.clone(),
        ..RunOptions::default()
    };
    // The player's window without `--world` plays the last world played (or makes one).
    if !cli.headless && cli.script.is_none() && !cli.test_scene && cli.world.is_none() {
        choose_world(&mut options);
    }
    // The player's settings, then the flags given.
    let settings = settings_path(cli.settings.as_deref(), cli.headless, cli.script.is_some());
    // Bad input is refused before anything is written or drawn.
    let prepared = preflight(&cli, &options, settings.as_deref())
        .and_then(|()| prepare_world(&cli, &mut options));
    if let Err(refusal) = prepared {
        eprintln!("error: {refusal}");
        return ExitCode::from(refusal::EXIT_CODE);
    }
    if let Some(path) = settings {
        for warning in options.load_settings(&path, cli.headless) {
            eprintln!("warning: {warning}");
        }
    }
    options.apply_overrides(&Overrides {
        width: cli.width,
        height: cli.height,
        view_radius: cli.view_radius,
        no_vsync: cli.no_vsync,
        no_hud: cli.no_hud,
        shadows: cli.shadows,
    });

    let result = if cli.headless {
        run_headless(&options)
    } else {
        match run_windowed(&options) {
            Err(error) if error.downcast_ref::<NoDisplay>().is_some() => {
                let path = options
                    .screenshot
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(DEFAULT_SCREENSHOT));
                if options.script.is_some() {
                    say!(
                        "{error}; playing the script headless instead (use --headless to ask for \
                         that directly)"
                    );
                } else {
                    say!(
                        "{error}; rendering the scene headless to {} instead (use --headless to \
                         ask for that directly)",
                        path.display()
                    );
                }
                // The player's last world is the window's: the picture is of the game's start,
                // and nothing is saved.
                let chosen = options.world_chosen;
                run_headless(&RunOptions {
                    screenshot: Some(path),
                    world: options.world.clone().filter(|_| !chosen),
                    world_chosen: false,
                    ..options.clone()
                })
            }
            other => other,
        }
    };

    match result {
        Ok(report) => finish(&report, options.validation),
        Err(error) => {
            say!("error: {error:#}");
            if error.downcast_ref::<GpuFailed>().is_some() {
                ExitCode::from(blockfall::gpu_failure::EXIT_CODE)
            } else if refusal::is_refusal(&error) {
                ExitCode::from(refusal::EXIT_CODE)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// The world of a player's window started without `--world`: the last played in the data
/// folder, or a new `world.blockfall` there ([`blockfall::worlds`]). A last world that cannot
/// be read is left as it is, said, and a new world is made beside it.
fn choose_world(options: &mut RunOptions) {
    let Some(folder) = blockfall::worlds::folder() else {
        return;
    };
    let mut path = blockfall::worlds::last_or_first(&folder);
    if path.exists() {
        if let Err(error) = blockfall_game::save::WorldSave::read(&path) {
            let new = blockfall::worlds::new_world_path(&folder);
            say!(
                "warning: the last world, {}, cannot be opened ({error}); it is left as it is \
                 and a new world is made at {}",
                path.display(),
                new.display()
            );
            path = new;
        }
    }
    options.world = Some(path);
    options.world_chosen = true;
}

/// The checks of a run's files before anything is written or drawn: `--world` names a save or
/// nothing; no output of the run is one of its inputs (see [`blockfall::refusal`]); every PNG
/// it will write can be written.
fn preflight(cli: &Cli, options: &RunOptions, settings: Option<&Path>) -> Result<(), Refusal> {
    let mut files = RunFiles::new();
    if let Some(world) = &cli.world {
        refusal::world_file(world)?;
        files.add(Role::World, world);
        if !cli.read_only {
            files.add(Role::Lock, &lock_path(world));
        }
    }
    if let Some(path) = settings {
        files.add(Role::Settings, path);
    }
    let screenshot = cli
        .screenshot
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SCREENSHOT));
    match (&cli.script, &options.script) {
        (Some(path), Some(scene)) => files.add_script(path, scene),
        // The PNG of a headless run, or of a window that finds no display.
        _ => files.add(Role::Screenshot, &screenshot),
    }
    if let Some(wav) = &cli.audio_wav {
        files.add(Role::Audio, wav);
    }
    files.check()?;
    if let Some(wav) = &cli.audio_wav {
        check_writable(wav).map_err(|error| Refusal::of(&error))?;
    }
    let mut writes: Vec<&Path> = files.screenshots();
    if options.script.is_none() && !cli.headless {
        // Written only when there is no display: checked then (`run_headless`).
        writes.clear();
    }
    for path in writes {
        check_writable(path).map_err(|error| Refusal::of(&error))?;
    }
    // A script's saves: where each goes must take a file before the first frame, not fail at
    // its event halfway through.
    for path in files.saves() {
        blockfall::saves::check_writable(path).map_err(|error| Refusal::of(&error))?;
    }
    Ok(())
}

/// What the run's world needs before any frame: a script set to play on `--world` (one that
/// names its own world is refused), and the world's lock ([`take_lock`]).
fn prepare_world(cli: &Cli, options: &mut RunOptions) -> Result<(), Refusal> {
    if let (Some(world), Some(path), Some(scene)) = (&cli.world, &cli.script, &options.script) {
        options.script = Some(blockfall::script::on_world(scene, path, world)?);
    }
    options.world_lock = take_lock(cli, options)?;
    Ok(())
}

/// The lock on the run's world, taken before any frame: `--world`'s, refused when another game
/// holds it; for the player's window without `--world`, the last world played (held by another
/// game: it opens read-only, and says so); none for `--read-only`, nor for headless and
/// scripted runs without `--world` (they lock at their first save). A lock file that cannot be made is no
/// refusal: the world opens, unlocked, and its saves show how they go.
fn take_lock(cli: &Cli, options: &mut RunOptions) -> Result<Option<Arc<WorldLock>>, Refusal> {
    if cli.read_only {
        return Ok(None);
    }
    let path = match &options.world {
        // The player's last world is locked when the window opens (`window`): a run that finds
        // no display renders headless without it.
        Some(_) if options.world_chosen => return Ok(None),
        Some(world) => world.clone(),
        None => return Ok(None),
    };
    match WorldLock::shared(&path) {
        Ok(lock) => Ok(Some(lock)),
        Err(held @ LockError::Held { .. }) if cli.world.is_some() => Err(Refusal::new(format!(
            "--world: {held}; nothing was run: close that game first, or add --read-only to \
             look at the world without saving it"
        ))),
        Err(held @ LockError::Held { .. }) => {
            say!("warning: {held}: it is opened read-only (nothing is saved)");
            options.read_only = true;
            Ok(None)
        }
        Err(error) => {
            say!("warning: {error}; the world is not locked");
            Ok(None)
        }
    }
}

fn finish(report: &RunReport, validation: bool) -> ExitCode {
    if let Some(path) = &report.screenshot {
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), "{}", path.display());
    }
    if let Some(signal) = report.stopped_by {
        say!("stopped on {signal}");
    }
    say!(
        "{} frame{} on {}, {:.2} ms per frame (CPU: play {:.3} ms, record {:.3} ms; the first \
         frame: play {:.3} ms, record {:.3} ms){}",
        report.frames,
        if report.frames == 1 { "" } else { "s" },
        report.device_name,
        report.mean_frame_ms,
        report.mean_cpu_ms.0,
        report.mean_cpu_ms.1,
        report.first_cpu_ms.0,
        report.first_cpu_ms.1,
        report
            .pass_timings
            .iter()
            .map(|(name, ms)| format!(", {name} {ms:.3} ms GPU"))
            .collect::<String>()
    );
    if validation && report.validation_errors > 0 {
        say!(
            "error: {} validation errors; the last: {}",
            report.validation_errors,
            report.last_validation_error.as_deref().unwrap_or("?")
        );
        return ExitCode::FAILURE;
    }
    if let Some(reason) = &report.unsaved {
        say!("error: the world was not saved: {reason}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shadows_flag_names_every_quality() {
        for (name, quality) in SHADOWS_NAMES.iter().zip(Shadows::ALL) {
            assert_eq!(*name, quality.name().to_lowercase());
            for given in [name.to_string(), quality.name().to_owned()] {
                let cli = Cli::try_parse_from(["blockfall", "--shadows", &given]).unwrap();
                assert_eq!(cli.shadows, Some(quality), "{given}");
            }
        }
        assert_eq!(Cli::try_parse_from(["blockfall"]).unwrap().shadows, None);
        let error = Cli::try_parse_from(["blockfall", "--shadows", "ultra"])
            .unwrap_err()
            .to_string();
        assert!(error.contains("--shadows"), "{error}");
        assert!(
            error.contains("[possible values: off, low, high]"),
            "{error}"
        );
    }

    #[test]
    fn a_script_may_play_on_a_world_read_only_or_not_but_the_test_scene_has_none() {
        let cli =
            Cli::try_parse_from(["blockfall", "--world", "w.blockfall", "--script", "s.json"])
                .unwrap();
        assert!(cli.world.is_some() && cli.script.is_some() && !cli.read_only);
        let cli =
            Cli::try_parse_from(["blockfall", "--world", "w.blockfall", "--read-only"]).unwrap();
        assert!(cli.read_only);
        assert!(
            Cli::try_parse_from(["blockfall", "--world", "w.blockfall", "--test-scene"]).is_err()
        );
    }
}
