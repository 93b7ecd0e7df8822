//! A save is never lost to a crash: `sim` saving over an existing file again and again is killed
//! (SIGKILL, no chance to clean up) at pseudo-random moments, and after every kill the file
//! still loads, whole: the old save or a new one (docs/saves.md).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use blockfall_game::save::WorldSave;
use blockfall_physics::random::Rng;

/// How many times the writer is killed.
const KILLS: usize = 60;

/// A scene of `blocks` blocks on flat ground that saves to `path` every frame for `duration`
/// seconds.
fn saving_scene(path: &Path, blocks: i32, duration: f64) -> String {
    let mut cells = Vec::new();
    for i in 0..blocks {
        let (x, z) = (i % 100, i / 100);
        cells.push(format!(
            r#"{{"cell": [{}, 0, {}], "material": "Bricks", "size": 2}}"#,
            x * 2,
            z * 2
        ));
    }
    let path = serde_json::to_string(&path.display().to_string()).expect("a path");
    let frames = (duration * 60.0) as usize;
    let events: Vec<String> = (0..=frames)
        .map(|frame| format!(r#"{{"t": {}, "save": {path}}}"#, frame as f64 / 60.0))
        .collect();
    format!(
        r#"{{"terrain": {{"flat": {{"height": 0.0}}}}, "blocks": [{}], "events": [{}],
        "duration": {duration}, "report_every": 0}}"#,
        cells.join(","),
        events.join(",")
    )
}

#[test]
fn a_writer_killed_at_any_moment_leaves_a_save_that_loads() {
    let folder = std::env::temp_dir().join(format!("blockfall-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let save = folder.join("world.blockfall");
    let scene = folder.join("saving.json");
    // 5,000 blocks: a save takes milliseconds, so kills land inside writes as well as between.
    std::fs::write(&scene, saving_scene(&save, 5000, 30.0)).expect("the scene");
    let first = folder.join("first.json");
    std::fs::write(&first, saving_scene(&save, 5000, 0.0)).expect("the scene");
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_sim"))
        .arg(&first)
        .stdout(Stdio::null())
        .status()
        .expect("sim runs");
    assert!(status.success());
    // How long until the first save: kills are spread from half of it to well past it.
    let to_first = started.elapsed();
    WorldSave::read(&save).expect("the first save loads");

    let mut moments = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut mid_write = 0;
    for kill in 0..KILLS {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sim"))
            .arg(&scene)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sim starts");
        let wait = to_first.mul_f64(0.5 + moments.unit())
            + Duration::from_millis((moments.unit() * 400.0) as u64);
        std::thread::sleep(wait);
        child.kill().expect("killed");
        child.wait().expect("reaped");
        let temporaries = std::fs::read_dir(&folder)
            .expect("listed")
            .filter(|entry| {
                entry
                    .as_ref()
                    .is_ok_and(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            })
            .count();
        if temporaries > 0 {
            mid_write += 1;
            for entry in std::fs::read_dir(&folder).expect("listed").flatten() {
                if entry.file_name().to_string_lossy().ends_with(".tmp") {
                    std::fs::remove_file(entry.path()).expect("removed");
                }
            }
        }
        let loaded = WorldSave::read(&save);
        assert!(
            loaded.is_ok(),
            "after kill {kill} (at {wait:?}): {:?}",
            loaded.err()
        );
    }
    eprintln!(
        "{KILLS} kills, {mid_write} inside a write (a temporary file left), every save loaded"
    );
    assert!(
        mid_write > 0,
        "no kill landed inside a write: the test did not test what it is for"
    );
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}
