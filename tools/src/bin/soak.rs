//! `soak`: the long soak run (see `blockfall::soak`). Writes a script of random play with a
//! save and a load every game minute, and plays it headless with the validation layer on,
//! sampling resident memory and the GPU allocator; the report goes to stderr (and `--report`),
//! the trace to stdout. Exits 1 when the soak's rules are broken, 2 when an option is refused
//! (each number finite and in the range its `--help` gives, checked before any work).
//!
//! ```text
//! cargo run --release -p blockfall-tools --bin soak -- --minutes-of-game-time 30 --seed 1 > /dev/null
//! cargo run --release -p blockfall-tools --bin soak -- --write-script soak.json   # then:
//! blockfall --headless --validation --script soak.json
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use blockfall::soak::{
    self, parse_whole, SoakRun, SoakScript, CYCLE_OPTION, FRAME_DT_OPTION, MINUTES_OPTION,
};
use clap::Parser;

/// The numbers are taken as text and checked here, not by clap (whose refusals quote a value
/// whole): each finite and in the range its help gives, before any script is made or GPU work
/// done; a refusal names the option, the start of its value and the range, exit status 2.
#[derive(Debug, Parser)]
#[command(
    name = "soak",
    about = "blockfall's soak: random play, saves and loads, memory sampled"
)]
struct Cli {
    /// Minutes of game time to play: above 0, at most 240 (the script is made whole in memory,
    /// 1.6 MB a minute).
    #[arg(long, default_value = "30")]
    minutes_of_game_time: String,
    /// The seed of the random play: 0 to 2^64 - 1.
    #[arg(long, default_value = "1")]
    seed: String,
    /// Seconds of game time per frame: above 0, at most 0.1; at most 6000000 frames in all.
    #[arg(long, default_value = "0.03333333333333333")]
    frame_dt: String,
    /// Seconds of game time between a save and a load (and between samples): 1 to 86400, and
    /// no longer than the soak.
    #[arg(long, default_value = "60")]
    cycle_seconds: String,
    /// The offscreen image's size, in pixels: 16 to 8192.
    #[arg(long, default_value = "96")]
    width: String,
    /// 16 to 8192.
    #[arg(long, default_value = "64")]
    height: String,
    /// Chunks (32 m) loaded around the player: 1 to 32.
    #[arg(long, default_value = "2")]
    view_radius: String,
    /// Where the save of every cycle goes [default: the system's temporary folder].
    #[arg(long, value_name = "FOLDER")]
    folder: Option<PathBuf>,
    /// Only write the script here (for `blockfall --headless --script`) and stop.
    #[arg(long, value_name = "PATH")]
    write_script: Option<PathBuf>,
    /// Also write the report (JSON) here.
    #[arg(long, value_name = "PATH")]
    report: Option<PathBuf>,
    /// Use Vulkan device N (0 to 255; one that is not there is refused when the GPU starts).
    #[arg(long)]
    gpu: Option<String>,
}

/// The soak's numbers, checked.
struct Numbers {
    seconds: f64,
    seed: u64,
    frame_dt: f64,
    cycle: f64,
    width: u32,
    height: u32,
    view_radius: u32,
    gpu: Option<usize>,
}

fn numbers(cli: &Cli) -> Result<Numbers, String> {
    let seconds = MINUTES_OPTION.parse(&cli.minutes_of_game_time)? * 60.0;
    let frame_dt = FRAME_DT_OPTION.parse(&cli.frame_dt)?;
    let cycle = CYCLE_OPTION.parse(&cli.cycle_seconds)?;
    let pixels = |option: &str, text: &str| parse_whole(option, text, 16, 8192).map(|n| n as u32);
    let gpu = match &cli.gpu {
        Some(text) => Some(parse_whole("--gpu", text, 0, 255)? as usize),
        None => None,
    };
    Ok(Numbers {
        seconds,
        seed: parse_whole("--seed", &cli.seed, 0, u64::MAX)?,
        frame_dt,
        cycle,
        width: pixels("--width", &cli.width)?,
        height: pixels("--height", &cli.height)?,
        view_radius: parse_whole("--view-radius", &cli.view_radius, 1, 32)? as u32,
        gpu,
    })
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let numbers = match numbers(&cli) {
        Ok(numbers) => numbers,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let folder = cli.folder.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("blockfall-soak-{}", std::process::id()))
    });
    let script = SoakScript {
        seconds: numbers.seconds,
        cycle: numbers.cycle,
        frame_dt: numbers.frame_dt,
        seed: numbers.seed,
        save: soak::save_in(&folder),
    };
    // The options together: the cycle within the soak, the frames within a scene's.
    if let Err(message) = script.check() {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
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
        width: numbers.width,
        height: numbers.height,
        view_radius: numbers.view_radius,
        sample_every: numbers.cycle,
        baseline_after: numbers.cycle,
        gpu: numbers.gpu,
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
