//! `--world PATH` as a player uses it (docs/saves.md): the window creates the save when it is
//! missing and saves there when it closes; the next run carries on from it; a headless run
//! renders it; a save that cannot be loaded is refused with its reason and left untouched.
//! Runs the `blockfall` binary (on lavapipe in CI), the window under the display tools/test.sh
//! starts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use blockfall_game::save::WorldSave;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "blockfall-world-saves-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// The binary with the player's folders kept in `home`, never the real ones.
fn blockfall(home: &Path, args: &[&str]) -> Output {
    blockfall_with(home, args, &[])
}

/// [`blockfall`] with more variables set.
fn blockfall_with(home: &Path, args: &[&str], variables: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .args(args)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .envs(variables.iter().copied())
        .output()
        .expect("the blockfall binary runs")
}

fn assert_display() {
    let has_display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    assert!(
        has_display,
        "the windowed test needs a display: run it through tools/test.sh (which starts Xvfb)"
    );
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn gpu_skipped(output: &Output) -> bool {
    let skip = std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1");
    if skip && !output.status.success() {
        eprintln!("BLOCKFALL_SKIP_GPU=1: skipping ({})", text(&output.stderr));
    }
    skip && !output.status.success()
}

#[test]
fn the_window_creates_the_world_file_saves_on_quit_and_the_next_run_carries_on() {
    assert_display();
    let home = scratch("window");
    let path = home.join("worlds").join("mine.blockfall");
    let path_text = path.to_str().expect("a UTF-8 path");
    let run = || {
        blockfall(
            &home,
            &[
                "--world",
                path_text,
                "--frames",
                "20",
                "--width",
                "320",
                "--height",
                "240",
                "--view-radius",
                "2",
                "--validation",
            ],
        )
    };
    let first = run();
    if gpu_skipped(&first) {
        return;
    }
    assert!(first.status.success(), "stderr: {}", text(&first.stderr));
    let saved = WorldSave::read(&path).expect("the world file was created and loads");
    assert!(saved.clock > 0.0, "it was saved on quit, after play");
    assert_eq!(
        saved.blocks.kinds.iter().filter(|kind| **kind != 0).count(),
        33
    );
    let second = run();
    assert!(second.status.success(), "stderr: {}", text(&second.stderr));
    let again = WorldSave::read(&path).expect("saved again");
    assert!(
        again.clock > saved.clock,
        "the second run carried on from the first: {} then {}; its stderr: {}",
        saved.clock,
        again.clock,
        text(&second.stderr)
    );
    std::fs::remove_dir_all(&home).ok();
}

/// The window's side of a GPU that fails for good (`tests/it/gpu_device_lost.rs` has the headless
/// runs): the Nth frame's submit fails as a lost device would (the `BLOCKFALL_FAULT` hook); the
/// window closes with the error named, the world saved next to its save, and status 3.
#[test]
fn a_lost_device_in_the_window_saves_the_world_next_to_its_save_and_exits_3() {
    assert_display();
    let home = scratch("lost");
    let path = home.join("worlds").join("mine.blockfall");
    let out = blockfall_with(
        &home,
        &[
            "--world",
            path.to_str().expect("a UTF-8 path"),
            "--frames",
            "30",
            "--width",
            "320",
            "--height",
            "240",
            "--view-radius",
            "1",
            "--validation",
        ],
        &[("BLOCKFALL_FAULT", "device-lost@frame:5")],
    );
    if gpu_skipped(&out) {
        return;
    }
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("ERROR_DEVICE_LOST"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let recovered = home.join("worlds").join("mine-recovered.blockfall");
    assert!(
        stderr.contains(&recovered.display().to_string()),
        "says where: {stderr}"
    );
    let saved = WorldSave::read(&recovered).expect("the recovered world loads");
    assert_eq!(
        saved.blocks.kinds.iter().filter(|kind| **kind != 0).count(),
        33,
        "the showcase's blocks"
    );
    std::fs::remove_dir_all(&home).ok();
}

#[test]
fn a_headless_run_renders_a_world_file_and_refuses_a_bad_one_untouched() {
    let home = scratch("headless");
    let path = home.join("mine.blockfall");
    let scene = home.join("scene.json");
    std::fs::write(
        &scene,
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
            "blocks": [{{"cell": [0, 0, 8], "material": "Copper", "size": 4}}],
            "player": {{"feet": [1.0, 0.5, 0.0]}},
            "events": [{{"t": 0.5, "save": {}}}], "duration": 0.5}}"#,
            serde_json::to_string(&path.display().to_string()).expect("a path")
        ),
    )
    .expect("the scene");
    let sim = Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .args(["--headless", "--script", scene.to_str().expect("UTF-8")])
        .env("XDG_CONFIG_HOME", home.join("config"))
        .output()
        .expect("runs");
    if gpu_skipped(&sim) {
        return;
    }
    assert!(sim.status.success(), "stderr: {}", text(&sim.stderr));
    let png = home.join("world.png");
    let args = |world: &Path| {
        vec![
            "--headless".to_string(),
            "--world".into(),
            world.display().to_string(),
            "--frames".into(),
            "2".into(),
            "--width".into(),
            "160".into(),
            "--height".into(),
            "120".into(),
            "--view-radius".into(),
            "2".into(),
            "--screenshot".into(),
            png.display().to_string(),
        ]
    };
    let run = |world: &Path| {
        let args = args(world);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        blockfall(&home, &args)
    };
    let rendered = run(&path);
    assert!(
        rendered.status.success(),
        "stderr: {}",
        text(&rendered.stderr)
    );
    assert!(png.exists(), "the PNG of the saved world");

    let mut damaged = std::fs::read(&path).expect("the save");
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    std::fs::write(&path, &damaged).expect("written");
    let refused = run(&path);
    assert!(!refused.status.success());
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("mine.blockfall") && stderr.contains("checksum"),
        "stderr: {stderr}"
    );
    assert_eq!(std::fs::read(&path).expect("still there"), damaged);
    std::fs::remove_dir_all(&home).ok();
}
