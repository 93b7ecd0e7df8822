//! The menu in the real window under a display (Xvfb in CI), and a world that saves itself:
//! a scripted window run opens the menu with Escape, goes to Settings, widens the field of
//! view, resumes (the view is drawn wider and `settings.ron` holds it) and quits from the
//! menu, which saves the world; then the game started again with no world named plays that
//! same world, the edit still there.
//!
//! Its own test process: winit allows one event loop per process (and the game runs here as
//! child processes with their own data and config folders).

use std::path::Path;
use std::process::{Command, Output};

use blockfall_game::save::WorldSave;

/// The binary with the data and config folders under `home`, in the window.
fn blockfall(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .args(args)
        .output()
        .expect("the blockfall binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_menu_widens_the_view_in_the_window_and_quitting_keeps_the_world_for_the_next_start() {
    let skip = std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1");
    let has_display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if !has_display {
        if skip {
            eprintln!("BLOCKFALL_SKIP_GPU=1 and no display: skipping the windowed menu");
            return;
        }
        panic!(
            "the windowed test needs a display: run it through tools/test.sh (which starts Xvfb) \
             or set DISPLAY"
        );
    }
    let home = std::env::temp_dir().join(format!("blockfall-window-menu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let worlds = home.join("data/blockfall/worlds");
    let world = worlds.join("world.blockfall");
    let settings = home.join("config/blockfall/settings.ron");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "(fov_degrees: 70)\n").unwrap();
    let (before, after) = (home.join("before.png"), home.join("after.png"));
    let script = home.join("menu.json");
    // The game's own world: a mound built in the sky is the edit; then the menu.
    std::fs::write(
        &script,
        format!(
            r#"{{"duration": 1.2, "frame_dt": 0.05,
                "events": [
                  {{"t": 0.05, "build": {{"center": [0.0, 150.0, 0.0], "radius": 2.0}}}},
                  {{"t": 0.1, "screenshot": {before:?}}},
                  {{"t": 0.2, "press": "Escape"}}, {{"t": 0.2, "release": "Escape"}},
                  {{"t": 0.3, "menu": "settings"}},
                  {{"t": 0.35, "menu": "fov_degrees=100"}},
                  {{"t": 0.4, "state": true}},
                  {{"t": 0.45, "press": "Escape"}}, {{"t": 0.45, "release": "Escape"}},
                  {{"t": 0.5, "menu": "resume"}},
                  {{"t": 0.6, "state": true}},
                  {{"t": 0.7, "screenshot": {after:?}}},
                  {{"t": 0.8, "press": "Escape"}}, {{"t": 0.8, "release": "Escape"}},
                  {{"t": 0.85, "menu": "quit"}}]}}"#
        ),
    )
    .unwrap();
    let first = blockfall(
        &home,
        &[
            "--validation",
            "--view-radius",
            "2",
            "--width",
            "480",
            "--height",
            "320",
            "--no-hud",
            "--shadows",
            "off",
            "--script",
            script.to_str().unwrap(),
            "--world",
            world.to_str().unwrap(),
            "--settings",
            settings.to_str().unwrap(),
        ],
    );
    let stderr = text(&first.stderr);
    if skip && !first.status.success() {
        eprintln!("BLOCKFALL_SKIP_GPU=1: skipping the windowed menu ({stderr})");
        return;
    }
    assert!(first.status.success(), "stderr: {stderr}");
    let stdout = text(&first.stdout);
    let menus: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|line| line.get("menu").cloned())
        .collect();
    assert_eq!(
        menus,
        [serde_json::json!("settings"), serde_json::Value::Null],
        "{stdout}"
    );
    // Quit from the menu: the script did not reach its end.
    assert!(!stdout.contains("\"done\""), "{stdout}");
    // The view drawn wider, and the file holds it.
    let picture = |path: &Path| {
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut bytes = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut bytes).unwrap();
        bytes
    };
    let (narrow, wide) = (picture(&before), picture(&after));
    let changed = narrow
        .iter()
        .zip(&wide)
        .filter(|(a, b)| a.abs_diff(**b) > 24)
        .count();
    assert!(changed > 480 * 320 / 10, "{changed} channels changed");
    let read = blockfall_game::settings::load(&settings);
    assert_eq!(read.settings.fov_degrees, 100.0, "{:?}", read.problem);
    // Saved on the way out, the edit in it.
    let saved = WorldSave::read(&world).expect("the world was saved at the quit");
    assert!(!saved.edits.is_empty(), "the mound was saved");

    // Started again with no world named: the same world, the edit still there.
    let second = blockfall(
        &home,
        &[
            "--frames",
            "20",
            "--view-radius",
            "2",
            "--width",
            "480",
            "--height",
            "320",
        ],
    );
    assert!(second.status.success(), "stderr: {}", text(&second.stderr));
    let listed: Vec<String> = std::fs::read_dir(&worlds)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".blockfall"))
        .collect();
    assert_eq!(listed, ["world.blockfall"], "no other world was made");
    let again = WorldSave::read(&world).expect("saved again at the end");
    assert_eq!(again.edits, saved.edits, "the same world, its edit kept");
    assert!(again.clock >= saved.clock, "played on from where it was");
    std::fs::remove_dir_all(home).ok();
}
