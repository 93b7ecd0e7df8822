//! The pause menu, its Settings screen and undo, driven headless by scripts: Escape opens the
//! menu and the world stops; a setting changed there is drawn at once and written to the
//! settings file; the state line says what is open and how deep the undo goes; Ctrl+Z puts
//! back a break and what fell with it, Ctrl+Y breaks it again.

use std::path::Path;

use serde_json::Value;

use crate::common::{run_script, scratch, skip_gpu, text, Png};

const WIDTH: u32 = 320;
const HEIGHT: u32 = 180;

/// The JSON lines of a run's stdout.
fn lines(stdout: &[u8]) -> Vec<Value> {
    text(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is JSON"))
        .collect()
}

/// The `state` lines (those with a `menu` key), in order.
fn states(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|line| line.get("menu").is_some())
        .collect()
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn escape_opens_the_menu_the_world_stops_and_a_setting_is_drawn_and_written() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("menu");
    let script = dir.join("menu.json");
    let settings = dir.join("settings.ron");
    write(&settings, "(fov_degrees: 70, invert_mouse_y: true)\n");
    let (before, after) = (dir.join("before.png"), dir.join("after.png"));
    write(
        &script,
        &format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "player": {{"feet": [0.0, 0.0, -10.0]}},
                "duration": 1.0, "frame_dt": 0.05,
                "events": [
                  {{"t": 0.05, "place": {{"cell": [0, 1, 0], "material": "Bricks"}}}},
                  {{"t": 0.1, "screenshot": {before:?}}},
                  {{"t": 0.15, "press": "Space"}},
                  {{"t": 0.25, "press": "Escape"}}, {{"t": 0.25, "release": "Escape"}},
                  {{"t": 0.3, "state": true}},
                  {{"t": 0.4, "state": true}},
                  {{"t": 0.45, "menu": "settings"}},
                  {{"t": 0.45, "menu": "fov_degrees=100"}},
                  {{"t": 0.5, "state": true}},
                  {{"t": 0.55, "press": "Escape"}}, {{"t": 0.55, "release": "Escape"}},
                  {{"t": 0.6, "state": true}},
                  {{"t": 0.65, "press": "Escape"}}, {{"t": 0.65, "release": "Escape"}},
                  {{"t": 0.7, "state": true}},
                  {{"t": 0.95, "state": true}},
                  {{"t": 1.0, "screenshot": {after:?}}}]}}"#
        ),
    );
    let output = run_script(
        &script,
        WIDTH,
        HEIGHT,
        &[
            "--no-hud",
            "--shadows",
            "off",
            "--settings",
            settings.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let lines = lines(&output.stdout);
    let states = states(&lines);
    let menus: Vec<&Value> = states.iter().map(|state| &state["menu"]).collect();
    assert_eq!(
        menus,
        [
            &Value::from("pause"),
            &Value::from("pause"),
            &Value::from("settings"),
            &Value::from("pause"),
            &Value::Null,
            &Value::Null
        ],
        "{lines:?}"
    );
    // Frozen in the air while the menu is open; falling again once it closed.
    let feet = |state: &Value| state["player"]["feet"][1].as_f64().unwrap();
    assert!(feet(states[0]) > 0.05, "jumped: {}", states[0]);
    assert_eq!(feet(states[0]), feet(states[1]), "the world does not step");
    assert_eq!(feet(states[1]), feet(states[3]));
    assert_ne!(feet(states[5]), feet(states[3]), "it steps again");
    // The place event is an edit undo can take back.
    assert_eq!(states[0]["undo_depth"], 1);
    assert_eq!(states[0]["redo_depth"], 0);
    // Both menu choices were carried out.
    let menu_lines: Vec<&Value> = lines.iter().filter(|l| l["event"] == "menu").collect();
    assert_eq!(menu_lines.len(), 2, "{menu_lines:?}");
    assert!(
        menu_lines.iter().all(|line| line["ok"] == true),
        "{menu_lines:?}"
    );
    // Drawn wider at once, and written to the file, the other setting kept.
    let (before, after) = (
        Png::read(&before, (WIDTH, HEIGHT)),
        Png::read(&after, (WIDTH, HEIGHT)),
    );
    let changed = before
        .channel_differences(&after)
        .iter()
        .filter(|&&d| d > 24)
        .count();
    // On flat ground the horizon stays where it was: the block ahead is what shrinks.
    assert!(changed > 500, "{changed} channels changed");
    let written = blockfall_game::settings::load(&settings);
    assert_eq!(written.problem, None);
    assert_eq!(written.settings.fov_degrees, 100.0);
    assert!(written.settings.invert_mouse_y, "the other setting is kept");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn ctrl_z_puts_back_a_break_and_what_fell_and_ctrl_y_breaks_it_again() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("undo");
    let script = dir.join("undo.json");
    // A pillar of 1 m blocks: breaking the second drops the two above it as one piece.
    let places: Vec<String> = (0..4)
        .map(|i| {
            format!(
                r#"{{"t": 0, "place": {{"cell": [-1, {}, 0], "material": "Planks"}}}}"#,
                2 * i - 1
            )
        })
        .collect();
    let chord = |t: f64, key: &str| {
        format!(
            r#"{{"t": {t}, "press": "ControlLeft"}}, {{"t": {t}, "press": "{key}"}},
               {{"t": {t}, "release": "{key}"}}, {{"t": {t}, "release": "ControlLeft"}}"#
        )
    };
    write(
        &script,
        &format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "player": {{"feet": [0.0, 0.0, -10.0]}},
                "duration": 3.0, "frame_dt": 0.05,
                "events": [{},
                  {{"t": 0.1, "state": true}},
                  {{"t": 0.2, "break": [-1, 1, 0]}},
                  {{"t": 1.5, "state": true}},
                  {},
                  {{"t": 1.7, "state": true}},
                  {},
                  {{"t": 1.9, "state": true}},
                  {{"t": 3.0, "state": true}}]}}"#,
            places.join(", "),
            chord(1.6, "KeyZ"),
            chord(1.8, "KeyY"),
        ),
    );
    let output = run_script(&script, WIDTH, HEIGHT, &["--shadows", "off"]);
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let lines = lines(&output.stdout);
    let states = states(&lines);
    assert_eq!(states.len(), 5, "{lines:?}");
    let (start, broken, undone, redone) = (states[0], states[1], states[2], states[3]);
    assert_eq!(start["blocks"], 4);
    assert_eq!(start["undo_depth"], 4);
    assert_eq!(broken["blocks"], 1, "the one under the break stands");
    assert_eq!(broken["pieces"], 1, "the two above fell as one piece");
    assert_eq!(broken["undo_depth"], 5);
    assert_eq!(undone["blocks"], 4, "all four back in their cells");
    assert_eq!(undone["pieces"], 0, "and the piece gone");
    assert_eq!(
        (undone["undo_depth"].as_u64(), undone["redo_depth"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(redone["blocks"], 1, "broken again");
    assert_eq!(redone["pieces"], 1);
    assert_eq!(
        (redone["undo_depth"].as_u64(), redone["redo_depth"].as_u64()),
        (Some(5), Some(0))
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_worlds_screen_makes_a_world_from_a_seed_opens_another_and_deletes_after_asking() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("worlds");
    let worlds = dir.join("data/blockfall/worlds");
    std::fs::create_dir_all(&worlds).unwrap();
    let first = worlds.join("first.blockfall");
    let made = worlds.join("world-2.blockfall");
    let script = dir.join("worlds.json");
    let copy = dir.join("copy.blockfall");
    write(
        &script,
        &r#"{"duration": 1.0, "frame_dt": 0.05,
            "events": [
              {"t": 0.1, "menu": "pause"}, {"t": 0.1, "menu": "worlds"},
              {"t": 0.15, "state": true},
              {"t": 0.2, "menu": "new"}, {"t": 0.2, "menu": "seed=42"},
              {"t": 0.2, "menu": "create"},
              {"t": 0.3, "state": true},
              {"t": 0.3, "save": COPY},
              {"t": 0.4, "menu": "pause"}, {"t": 0.4, "menu": "worlds"},
              {"t": 0.45, "menu": "world:first"},
              {"t": 0.5, "menu": "pause"}, {"t": 0.5, "menu": "worlds"},
              {"t": 0.55, "menu": "delete:first"},
              {"t": 0.6, "menu": "delete:world-2"},
              {"t": 0.65, "state": true},
              {"t": 0.7, "menu": "yes"},
              {"t": 0.75, "menu": "resume"},
              {"t": 0.8, "state": true}]}"#
            .replace("COPY", &format!("{:?}", copy.to_str().unwrap())),
    );
    let output = crate::common::headless_script(
        &script,
        WIDTH,
        HEIGHT,
        &["--shadows", "off", "--world", first.to_str().unwrap()],
    )
    .env("XDG_DATA_HOME", dir.join("data"))
    .env("XDG_CONFIG_HOME", dir.join("config"))
    .output()
    .expect("the blockfall binary runs");
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let lines = lines(&output.stdout);
    let menus: Vec<&Value> = lines.iter().filter(|l| l["event"] == "menu").collect();
    let failed: Vec<&&Value> = menus
        .iter()
        .filter(|line| line["ok"] != true && line["choice"] != "delete:first")
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    // The world being played is not deleted: the menu says so.
    let refused = menus
        .iter()
        .find(|line| line["choice"] == "delete:first")
        .unwrap();
    assert_eq!(refused["ok"], true, "{refused}");
    let states = states(&lines);
    assert_eq!(states[0]["menu"], "worlds");
    assert_eq!(states[1]["menu"], Value::Null, "made and playing");
    // The new world was made from its seed (the copy the script saved while it was played).
    let save = blockfall_game::save::WorldSave::read(&copy).expect("the copy saved");
    assert_eq!(
        save.ground,
        blockfall_game::terrain::GroundKind::Generated { seed: 42 }
    );
    assert_eq!(states[2]["menu"], "worlds", "asked before deleting");
    assert_eq!(states[3]["menu"], Value::Null);
    assert!(!made.exists(), "world-2 deleted after asking");
    assert!(first.exists(), "the world being played is kept");
    std::fs::remove_dir_all(dir).ok();
}
