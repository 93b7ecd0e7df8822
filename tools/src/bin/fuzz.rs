//! Fuzzes blockfall's inputs on stable Rust: scene and script files, save files, the settings
//! file and the `mesh` tool's input (docs/fuzzing.md).
//!
//! `cargo run --release -p blockfall-tools --bin fuzz -- scene|save|settings|mesh|all
//! [--minutes M | --cases N] [--seed S]`
//!
//! Prints, per target, the cases run, what became of them, the failures and the cases per
//! second; each failure's input goes to `fuzz-failures/TARGET-SEED-CASE.bin` (and what failed
//! to the `.txt` beside it). `--replay FILE` checks one saved input again; `--seed S --case K`
//! makes case K of a run again and checks it (a replayed file is read only when it is a regular
//! file of at most 64 MiB, `runner::LARGEST_REPLAY_BYTES`). Exits with 1 when anything failed,
//! 2 when the command line is refused.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use blockfall_tools::fuzz::runner::{self, Limit, RunOptions};
use blockfall_tools::fuzz::Target;
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "fuzz",
    about = "Fuzz blockfall's scene, save, settings and mesh inputs: no panic, no hang, a clear \
             error for every refused input"
)]
struct Cli {
    /// What to fuzz: scene, save, settings, mesh, or all (one after another).
    target: String,
    /// Minutes to run each target (default: 1, unless --cases is given).
    #[arg(long, conflicts_with = "cases")]
    minutes: Option<f64>,
    /// Cases to run for each target.
    #[arg(long)]
    cases: Option<u64>,
    /// The run's seed (default: from the clock; printed either way).
    #[arg(long)]
    seed: Option<u64>,
    /// Check case K of the run seeded with --seed again, alone.
    #[arg(long, requires = "seed", conflicts_with_all = ["replay", "minutes", "cases"])]
    case: Option<u64>,
    /// Check a saved failing input again (a `.bin` of the failures folder; a regular file of at
    /// most 64 MiB).
    #[arg(long, conflicts_with_all = ["minutes", "cases"])]
    replay: Option<PathBuf>,
    /// Where failing inputs are written.
    #[arg(long, default_value = "fuzz-failures")]
    failures: PathBuf,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("error")).init();
    let cli = Cli::parse();
    match fuzz(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Runs what the command line asks; whether everything passed.
fn fuzz(cli: &Cli) -> Result<bool, String> {
    let targets = match (cli.target.as_str(), Target::from_name(&cli.target)) {
        ("all", _) => Target::ALL.to_vec(),
        (_, Some(target)) => vec![target],
        (name, None) => {
            return Err(format!(
                "no target `{name}`: scene, save, settings, mesh or all"
            ))
        }
    };
    if cli.replay.is_some() || cli.case.is_some() {
        let [target] = targets[..] else {
            return Err("--replay and --case check one target: name it".into());
        };
        return check_one(cli, target);
    }
    let limit = match (cli.minutes, cli.cases) {
        (_, Some(cases)) => Limit::Cases(cases),
        (minutes, None) => {
            let minutes = minutes.unwrap_or(1.0);
            if !(minutes.is_finite() && minutes > 0.0 && minutes <= 7.0 * 24.0 * 60.0) {
                return Err(format!(
                    "--minutes {minutes} is not above 0 and at most a week"
                ));
            }
            Limit::Time(Duration::from_secs_f64(minutes * 60.0))
        }
    };
    let seed = cli.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos() as u64)
    });
    let mut passed = true;
    for target in targets {
        eprintln!("{}: seed {seed}", target.name());
        let report = runner::run(&RunOptions {
            target,
            seed,
            limit,
            failures: Some(cli.failures.clone()),
            log: true,
        })?;
        println!("{report}");
        passed &= report.failed == 0;
        if report.stopped.is_some() {
            // A hung case's thread still runs: end here rather than race it.
            return Ok(false);
        }
    }
    Ok(passed)
}

/// Checks one input again: a saved file, or a case made again from its seed.
fn check_one(cli: &Cli, target: Target) -> Result<bool, String> {
    let (input, case) = match (&cli.replay, cli.seed, cli.case) {
        (Some(path), _, _) => (runner::read_replay(path)?, None),
        (None, Some(seed), Some(case)) => {
            (runner::case_input(target, seed, case), Some((seed, case)))
        }
        _ => return Err("--case needs --seed".into()),
    };
    match runner::check_one(target, input, case)? {
        Ok(outcome) => {
            println!("{}: passed ({outcome:?})", target.name());
            Ok(true)
        }
        Err(failure) => {
            println!("{failure}");
            Ok(false)
        }
    }
}
