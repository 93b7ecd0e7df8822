//! A GPU that fails for good: with the test hook `BLOCKFALL_FAULT=KIND@frame:N`
//! (see `blockfall::gpu_failure`) the Nth frame's submit fails as a lost device or an
//! out-of-memory error would. The run must stop with a message naming the error and the call,
//! save the world next to its usual save, say where, and exit with status 3 — never hang or
//! panic — and the saved world must load. Validation is on: abandoning the failed frame
//! misuses nothing. CI cost: three headless runs of a few frames at 64 × 48, a few seconds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use blockfall_game::save::WorldSave;
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;

fn skip_gpu() -> bool {
    std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1")
}

fn folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockfall-lost-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(fault: &str, args: &[&str], data: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .args([
            "--headless",
            "--validation",
            "--view-radius",
            "1",
            "--width",
            "64",
        ])
        .args(["--height", "48", "--no-hud"])
        .args(args)
        .env("BLOCKFALL_FAULT", fault)
        // Where a run without --world keeps its saves (the platform's data folder).
        .env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .output()
        .expect("the blockfall binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The save at `path` reads and loads as a world; its block count.
fn loads(path: &Path) -> usize {
    let save = WorldSave::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let world = World::from_save(save, WorkerPool::new(1).unwrap(), 1).expect("the save loads");
    world.blocks().count()
}

#[test]
fn a_lost_device_saves_the_world_next_to_its_save_and_exits_3() {
    if skip_gpu() {
        return;
    }
    let dir = folder("world");
    let world = dir.join("home.blockfall");
    let out = run(
        "device-lost@frame:3",
        &["--frames", "10", "--world", world.to_str().unwrap()],
        &dir,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the GPU device was lost"), "{stderr}");
    assert!(stderr.contains("ERROR_DEVICE_LOST"), "{stderr}");
    assert!(stderr.contains("vkQueueSubmit2"), "{stderr}");
    let recovered = dir.join("home-recovered.blockfall");
    assert!(
        stderr.contains(&recovered.display().to_string()),
        "says where: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(loads(&recovered) > 0, "the showcase's blocks are saved");
    assert!(
        !world.exists(),
        "the usual save is not written by a failed run"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn out_of_memory_in_a_script_saves_the_scripts_world_in_the_data_folder() {
    if skip_gpu() {
        return;
    }
    let dir = folder("script");
    let script = dir.join("tower.json");
    std::fs::write(
        &script,
        r#"{"terrain": {"flat": {"height": 0}},
            "player": {"feet": [0, 0, -6]},
            "events": [{"t": 0, "place": {"cell": [0, 0, 0], "material": "Stone"}},
                       {"t": 0, "place": {"cell": [0, 2, 0], "material": "Stone"}}],
            "duration": 1, "frame_dt": 0.1}"#,
    )
    .unwrap();
    let out = run(
        "out-of-device-memory@frame:4",
        &["--script", script.to_str().unwrap()],
        &dir,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("ERROR_OUT_OF_DEVICE_MEMORY"), "{stderr}");
    let recovered = dir
        .join("blockfall")
        .join("worlds")
        .join("world-recovered.blockfall");
    assert!(
        stderr.contains(&recovered.display().to_string()),
        "says where: {stderr}"
    );
    assert_eq!(loads(&recovered), 2, "the script's two blocks");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fault_hook_that_is_not_one_stops_the_start_with_status_2() {
    let dir = folder("bad-hook");
    let out = run("lost@frame:x", &["--frames", "1"], &dir);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("BLOCKFALL_FAULT"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
