//! Runs a scene headless and writes its JSON-lines trace on stdout.
//!
//! `cargo run --release -p blockfall-tools --bin sim -- SCENE.json [--threads N]`
//!
//! The scene format and the trace are described in `blockfall_game::scene`. A scene that cannot
//! run (not JSON, an unknown field or material, a block outside the world, a value out of range)
//! exits with code 2 and a message that names the place. The scene is checked whole before it
//! runs, so a refused scene writes no trace.

use std::io::{BufWriter, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use blockfall_game::scene::{self, SceneError};
use blockfall_physics::workers::WorkerPool;
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "sim",
    about = "Run a blockfall scene headless; JSON-lines trace on stdout"
)]
struct Cli {
    /// The scene file (JSON).
    scene: PathBuf,
    /// Worker threads for the physics. The trace is the same, byte for byte, for any number.
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let refuse = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    // Checked now so a bad count is refused before anything runs; the physics uses the pool.
    let pool = match WorkerPool::new(cli.threads) {
        Ok(pool) => pool,
        Err(error) => return refuse(format!("--threads {}: {error}", cli.threads)),
    };
    let scene = match scene::read(&cli.scene) {
        Ok(scene) => scene,
        Err(error) => return refuse(format!("the scene {}: {error}", cli.scene.display())),
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match scene::run_with_pool(&scene, &mut out, pool) {
        Ok(()) => ExitCode::SUCCESS,
        Err(SceneError::Output(error)) => {
            let _ = out.flush();
            eprintln!("error: writing the trace: {error}");
            ExitCode::FAILURE
        }
        Err(error) => {
            let _ = out.flush();
            refuse(format!("the scene {}: {error}", cli.scene.display()))
        }
    }
}
