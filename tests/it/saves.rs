//! Saved worlds through the scene runner (docs/saves.md): a save carries on exactly where it
//! was, gives the same bytes when saved again, and a bad file is refused with its reason while
//! nothing is overwritten.

use std::path::{Path, PathBuf};

use blockfall_engine::workers::WorkerPool;
use blockfall_game::save::{SaveError, WorldSave, FORMAT_VERSION};
use blockfall_game::scene;
use blockfall_game::world::World;
use serde_json::Value;

/// A folder of its own for each test.
fn folder(test: &str) -> PathBuf {
    let folder =
        std::env::temp_dir().join(format!("blockfall-saves-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    folder
}

fn trace_with(scene_text: &str, threads: usize) -> Result<String, scene::SceneError> {
    let parsed = scene::parse(scene_text)?;
    let mut out = Vec::new();
    scene::run_with_pool(
        &parsed,
        &mut out,
        WorkerPool::new(threads).expect("threads"),
    )?;
    Ok(String::from_utf8(out).expect("utf-8"))
}

fn json_path(path: &Path) -> String {
    serde_json::to_string(&path.display().to_string()).expect("a path as JSON")
}

/// The showcase on dug flat ground, its beam broken at t = 0 so a piece falls, a second
/// group dropped from a tower, the player walking forward with W held and the terrain tool
/// picked: every kind of state a save keeps is in motion at t = 1.
fn busy_scene(extra_events: &str, extra_keys: &str, duration: f64) -> String {
    format!(
        r#"{{
        {extra_keys}
        "events": [
            {{"t": 0.0, "break": [190, 12, 316]}},
            {{"t": 0.0, "press": "KeyW"}},
            {{"t": 0.0, "press": "KeyT"}},
            {{"t": 0.5, "break": [182, 8, 300]}}
            {extra_events}
        ],
        "duration": {duration}, "report_every": 0.25
    }}"#
    )
}

fn busy_start() -> &'static str {
    r#""terrain": {"flat": {"height": 0.0}},
        "showcase": [96.0, 158.0],
        "digs": [{"center": [85.0, 0.0, 150.0], "radius": 3.0}],
        "builds": [{"center": [100.0, 0.0, 150.0], "radius": 2.0}],
        "blocks": [
            {"cell": [180, 0, 300], "material": "Stone", "size": 4},
            {"cell": [180, 4, 300], "material": "Stone", "size": 4},
            {"cell": [180, 8, 300], "material": "Bricks", "size": 2},
            {"cell": [182, 8, 300], "material": "Planks", "size": 2},
            {"cell": [184, 8, 300], "material": "Copper", "size": 2, "cuts": 5, "slope": true}
        ],
        "player": {"feet": [80.0, 0.5, 140.0], "yaw_degrees": 30},"#
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

#[test]
fn a_scene_saved_mid_fall_and_continued_gives_the_same_trace_as_the_unbroken_run() {
    let folder = folder("mid-fall");
    let save = folder.join("mid.blockfall");
    let unbroken = trace_with(
        &busy_scene(
            &format!(r#", {{"t": 1.0, "save": {}}}"#, json_path(&save)),
            busy_start(),
            6.0,
        ),
        2,
    )
    .expect("the unbroken run");
    let unbroken = lines(&unbroken);
    let saved = unbroken
        .iter()
        .find(|line| line["event"] == "save")
        .expect("a save line");
    assert_eq!(saved["t"], 1.0);
    assert!(saved["error"].is_null(), "{saved}");
    assert_eq!(
        saved["bytes"].as_u64(),
        Some(std::fs::metadata(&save).expect("written").len())
    );
    let at_save = unbroken
        .iter()
        .find(|line| line["t"] == 1.0 && line.get("pieces").is_some())
        .expect("a state line at the save");
    assert!(
        at_save["falling"].as_u64().unwrap_or(0) >= 1,
        "something is falling when it is saved: {at_save}"
    );

    let continued_scene = format!(
        r#"{{"world_file": {}, "duration": 6.0, "report_every": 0.25}}"#,
        json_path(&save)
    );
    for threads in [1, 8] {
        let continued = lines(&trace_with(&continued_scene, threads).expect("the continued run"));
        assert_eq!(continued[0]["t"], 1.0, "it starts on the save's clock");
        let after = |trace: &[Value]| -> Vec<Value> {
            trace
                .iter()
                .filter(|line| line["t"].as_f64().is_some_and(|t| t > 1.0))
                .cloned()
                .collect()
        };
        let expected = after(&unbroken);
        assert!(
            expected.len() > 15,
            "{} lines after the save",
            expected.len()
        );
        assert_eq!(after(&continued), expected, "{threads} threads");
        assert_eq!(continued[0], *at_save, "the state at the save");
    }
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}

#[test]
fn save_load_save_gives_identical_bytes() {
    let folder = folder("again");
    let first = folder.join("first.blockfall");
    let second = folder.join("second.blockfall");
    trace_with(
        &busy_scene(
            &format!(r#", {{"t": 1.5, "save": {}}}"#, json_path(&first)),
            busy_start(),
            1.5,
        ),
        1,
    )
    .expect("the first run");
    // Saving again at once, before the first step, writes the same bytes.
    let again = trace_with(
        &format!(
            r#"{{"world_file": {}, "events": [{{"t": 1.5, "save": {}}}], "duration": 1.5}}"#,
            json_path(&first),
            json_path(&second)
        ),
        2,
    )
    .expect("the second run");
    assert!(again.contains(r#""event":"save""#), "{again}");
    let bytes = std::fs::read(&first).expect("the first save");
    assert_eq!(bytes, std::fs::read(&second).expect("the second save"));
    // And through the API: decode, load, save, encode.
    let save = WorldSave::decode(&bytes).expect("a good save");
    let (clock, held) = (save.clock, save.held);
    assert_eq!(clock, 1.5);
    assert!(held.controls.forward, "W was held");
    let world =
        World::from_save(save.clone(), WorkerPool::new(1).expect("threads"), 2).expect("a world");
    let mut input = blockfall_game::input::Input::default();
    held.hold(&mut input);
    let resaved = world.save(clock, &input);
    assert_eq!(resaved, save);
    assert_eq!(resaved.encode(), bytes);
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}

/// A small save: flat ground, three blocks, nothing moving.
fn small_save() -> Vec<u8> {
    let folder = folder("small");
    let path = folder.join("small.blockfall");
    trace_with(
        &format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
            "blocks": [{{"cell": [0, 0, 0], "material": "Stone"}},
                       {{"cell": [2, 0, 0], "material": "Slate", "cuts": 9}},
                       {{"cell": [0, 2, 0], "material": "Plaster", "size": 1}}],
            "events": [{{"t": 0.0, "save": {}}}], "duration": 0.0}}"#,
            json_path(&path)
        ),
        1,
    )
    .expect("a small scene");
    let bytes = std::fs::read(&path).expect("the save");
    std::fs::remove_dir_all(&folder).expect("cleaned up");
    bytes
}

#[test]
fn every_single_flipped_byte_of_a_small_save_is_refused() {
    let bytes = small_save();
    assert!(bytes.len() < 1000, "small: {} bytes", bytes.len());
    WorldSave::decode(&bytes).expect("the save itself is good");
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut bad = bytes.clone();
            bad[at] ^= flip;
            let error = WorldSave::decode(&bad).expect_err("a flipped byte is refused");
            let message = error.to_string();
            let expected = match at {
                0..16 => matches!(error, SaveError::NotASave),
                16..20 => matches!(error, SaveError::Newer { .. } | SaveError::Damaged(_)),
                _ => matches!(error, SaveError::Damaged(_)),
            };
            assert!(expected, "byte {at} ^ {flip:#x}: {message}");
        }
    }
}

#[test]
fn a_truncated_a_newer_and_a_foreign_file_are_refused_and_left_untouched() {
    let bytes = small_save();
    let folder = folder("refused");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "cut.blockfall",
            bytes[..bytes.len() / 2].to_vec(),
            "checksum",
        ),
        ("header.blockfall", bytes[..20].to_vec(), "cut short"),
        ("empty.blockfall", Vec::new(), "not a blockfall save"),
        (
            "scene.blockfall",
            br#"{"duration": 1}"#.to_vec(),
            "not a blockfall save",
        ),
        (
            "newer.blockfall",
            {
                let mut newer = bytes.clone();
                newer[16..20].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
                newer
            },
            "made by a newer blockfall",
        ),
    ];
    for (name, contents, reason) in cases {
        let path = folder.join(name);
        std::fs::write(&path, &contents).expect("written");
        let error = WorldSave::read(&path).expect_err("refused").to_string();
        assert!(error.contains(reason), "{name}: {error}");
        // A scene that starts from it is refused before its first line, naming the key.
        let scene = format!(
            r#"{{"world_file": {}, "events": [{{"t": 0.0, "save": {}}}], "duration": 1.0}}"#,
            json_path(&path),
            json_path(&path)
        );
        let refused = trace_with(&scene, 1).expect_err("refused").to_string();
        assert!(
            refused.starts_with("world_file:") && refused.contains(reason),
            "{refused}"
        );
        assert_eq!(
            std::fs::read(&path).expect("still there"),
            contents,
            "{name}"
        );
    }
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}

#[test]
fn a_scene_from_a_save_may_not_reach_before_its_clock_nor_give_its_own_terrain() {
    let folder = folder("clock");
    let path = folder.join("at-two.blockfall");
    trace_with(
        &format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
            "events": [{{"t": 2.0, "save": {}}}], "duration": 2.0}}"#,
            json_path(&path)
        ),
        1,
    )
    .expect("saved at 2 s");
    let refused = |scene: String| trace_with(&scene, 1).expect_err("refused").to_string();
    let file = json_path(&path);
    let early = refused(format!(
        r#"{{"world_file": {file}, "events": [{{"t": 1.0, "break": [0, 0, 0]}}], "duration": 3}}"#
    ));
    assert!(
        early.contains("events[0].t") && early.contains("before"),
        "{early}"
    );
    let short = refused(format!(r#"{{"world_file": {file}, "duration": 1.5}}"#));
    assert!(short.starts_with("duration"), "{short}");
    let terrain = refused(format!(
        r#"{{"world_file": {file}, "terrain": {{"flat": {{"height": 1.0}}}}, "duration": 3}}"#
    ));
    assert!(terrain.starts_with("terrain"), "{terrain}");
    // On its clock, a run from the save ends at its duration: 2 s to 3 s.
    let trace = lines(
        &trace_with(
            &format!(r#"{{"world_file": {file}, "duration": 3.0, "report_every": 0.5}}"#),
            1,
        )
        .expect("runs"),
    );
    let times: Vec<f64> = trace
        .iter()
        .map(|line| line["t"].as_f64().expect("t"))
        .collect();
    assert_eq!(times, vec![2.0, 2.5, 3.0, 3.0]);
    assert_eq!(trace.last().expect("done")["done"], true);
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}

#[test]
fn a_save_that_cannot_be_written_says_why_and_the_run_goes_on() {
    let folder = folder("unwritable");
    let blocker = folder.join("a-file");
    std::fs::write(&blocker, b"not a folder").expect("written");
    let path = blocker.join("world.blockfall");
    let trace = lines(
        &trace_with(
            &format!(
                r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "events": [{{"t": 0.5, "save": {}}}], "duration": 1.0}}"#,
                json_path(&path)
            ),
            1,
        )
        .expect("runs"),
    );
    let line = trace
        .iter()
        .find(|line| line["event"] == "save")
        .expect("a save line");
    assert!(line["bytes"].is_null());
    assert!(
        line["error"]
            .as_str()
            .is_some_and(|error| error.contains("a-file")),
        "{line}"
    );
    assert_eq!(trace.last().expect("done")["done"], true);
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}

#[test]
fn a_load_event_right_after_a_save_changes_nothing_in_the_trace_but_its_own_lines() {
    let folder = folder("load-event");
    let save = folder.join("cycle.blockfall");
    let path = json_path(&save);
    let plain = lines(
        &trace_with(
            &busy_scene(
                &format!(r#", {{"t": 1.0, "save": {path}}}"#),
                busy_start(),
                3.0,
            ),
            2,
        )
        .expect("the run without a load"),
    );
    let reloaded = lines(
        &trace_with(
            &busy_scene(
                &format!(r#", {{"t": 1.0, "save": {path}}}, {{"t": 1.0, "load": {path}}}"#),
                busy_start(),
                3.0,
            ),
            2,
        )
        .expect("the run with a load"),
    );
    let load = reloaded
        .iter()
        .find(|line| line["event"] == "load")
        .expect("a load line");
    assert!(load["error"].is_null(), "{load}");
    assert_eq!(load["path"], save.display().to_string());
    let state_at_load = plain
        .iter()
        .find(|line| line["t"] == 1.0 && line.get("blocks").is_some())
        .expect("a state line at t = 1");
    assert_eq!(load["blocks"], state_at_load["blocks"], "{load}");
    let without_load: Vec<Value> = reloaded
        .iter()
        .filter(|line| line["event"] != "load")
        .cloned()
        .collect();
    assert!(plain.len() > 10);
    assert_eq!(without_load, plain, "the world loaded is the world saved");
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}

#[test]
fn a_load_event_of_a_missing_save_says_why_and_keeps_the_world() {
    let folder = folder("load-missing");
    let missing = json_path(&folder.join("never-saved.blockfall"));
    let trace = lines(
        &trace_with(
            &busy_scene(
                &format!(r#", {{"t": 1.0, "load": {missing}}}"#),
                busy_start(),
                2.0,
            ),
            1,
        )
        .expect("the run goes on"),
    );
    let load = trace
        .iter()
        .find(|line| line["event"] == "load")
        .expect("a load line");
    assert!(
        load["error"]
            .as_str()
            .is_some_and(|e| e.contains("never-saved")),
        "{load}"
    );
    assert!(load["blocks"].is_null(), "{load}");
    assert_eq!(trace.last().expect("lines")["done"], true);
    let empty = scene::parse(r#"{"duration": 1, "events": [{"t": 0, "load": ""}]}"#)
        .expect_err("an empty path is refused");
    assert!(empty.to_string().contains("events[0].load"), "{empty}");
    std::fs::remove_dir_all(&folder).expect("cleaned up");
}
