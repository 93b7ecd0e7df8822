//! `soak`: the long soak run (see `blockfall::soak`). Writes a script of random play with a
//! save and a load every game minute, and plays it headless with the validation layer on,
//! sampling resident memory and the GPU allocator; the report goes to stderr (and `--report`),
//! the trace to stdout. Exits 1 when the soak's rules are broken.
//!
//! ```text
//! cargo run --release -p blockfall-tools --bin soak -- --minutes-of-game-time 30 --seed 1 > /dev/null
//! cargo run --release -p blockfall-tools --bin soak -- --write-script soak.json   # then:
//! blockfall --headless --validation --script soak.json
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use blockfall::soak::{self, SoakRun, SoakScript};
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "soak",
    about = "blockfall's soak: random play, saves and loads, memory sampled"
)]
struct Cli {
    /// Minutes of game time to play.
    #[arg(long, default_value_t = 30.0)]
    minutes_of_game_time: f64,
    /// The seed of the random play.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds of game time per frame (at most 0.1).
    #[arg(long, default_value_t = 1.0 / 30.0)]
    frame_dt: f64,
    /// Seconds of game time between a save and a load (and between samples).
    #[arg(long, default_value_t = 60.0)]
    cycle_seconds: f64,
    /// The offscreen image's size, in pixels.
    #[arg(long, default_value_t = 96, value_parser = clap::value_parser!(u32).range(16..=8192))]
    width: u32,
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(16..=8192))]
    height: u32,
    /// Chunks (32 m) loaded around the player.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=32))]
    view_radius: u32,
    /// Where the save of every cycle goes [default: the system's temporary folder].
    #[arg(long, value_name = "FOLDER")]
    folder: Option<PathBuf>,
    /// Only write the script here (for `blockfall --headless --script`) and stop.
    #[arg(long, value_name = "PATH")]
    write_script: Option<PathBuf>,
    /// Also write the report (JSON) here.
    #[arg(long, value_name = "PATH")]
    report: Option<PathBuf>,
    /// Use Vulkan device N.
    #[arg(long)]
    gpu: Option<usize>,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let seconds = cli.minutes_of_game_time * 60.0;
    if !(seconds.is_finite()
        && seconds > 0.0
        && cli.cycle_seconds.is_finite()
        && cli.cycle_seconds > 0.0)
    {
        eprintln!("error: --minutes-of-game-time and --cycle-seconds must be above 0");
        return ExitCode::from(2);
    }
    let folder = cli.folder.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("blockfall-soak-{}", std::process::id()))
    });
    let script = SoakScript {
        seconds,
        cycle: cli.cycle_seconds,
        frame_dt: cli.frame_dt,
        seed: cli.seed,
        save: soak::save_in(&folder),
    };
    if let Some(path) = &cli.write_script {
        let text = soak::script(&script).to_string();
        return match std::fs::write(path, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: writing {}: {error}", path.display());
                ExitCode::FAILURE
            }
        };
    }
    let run = SoakRun {
        script,
        width: cli.width,
        height: cli.height,
        view_radius: cli.view_radius,
        sample_every: cli.cycle_seconds,
        baseline_after: cli.cycle_seconds,
        gpu: cli.gpu,
    };
    let report = match soak::run(&run) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("error: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    let json = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
    eprintln!("{json}");
    if let Some(path) = &cli.report {
        if let Err(error) = std::fs::write(path, &json) {
            eprintln!("error: writing {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
    }
    if cli.folder.is_none() {
        let _ = std::fs::remove_dir_all(&folder);
    }
    let problems = report.problems();
    for problem in &problems {
        eprintln!("soak failed: {problem}");
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
