//! Scenes through the same machinery as the `sim` tool: the trace's contract, determinism, and
//! clear errors for bad scenes.

use blockfall_game::scene::{self, SceneError};
use serde_json::Value;

fn trace(scene_text: &str) -> Vec<Value> {
    let scene = scene::parse(scene_text).expect("a valid scene");
    let mut out = Vec::new();
    scene::run(&scene, &mut out).expect("the scene runs");
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

fn state_at(lines: &[Value], t: f64) -> &Value {
    lines
        .iter()
        .find(|line| line.get("player").is_some() && (line["t"].as_f64().unwrap() - t).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no state line at t = {t}"))
}

fn feet(line: &Value) -> [f64; 3] {
    let feet = &line["player"]["feet"];
    [0, 1, 2].map(|i| feet[i].as_f64().unwrap())
}

const WALK: &str = r#"{
    "terrain": {"flat": {"height": 0.0}},
    "player": {"feet": [0.0, 0.5, 0.0], "yaw_degrees": 0.0, "mode": "walk"},
    "events": [{"t": 1.0, "press": "KeyW"}, {"t": 3.0, "release": "KeyW"}],
    "duration": 3.0, "frame_dt": 0.0166666667, "report_every": 0.5
}"#;

#[test]
fn a_walk_scene_walks_9_7_m_in_2_s() {
    let lines = trace(WALK);
    assert_eq!(lines.first().unwrap()["t"].as_f64(), Some(0.0));
    assert_eq!(
        lines.last().unwrap(),
        &serde_json::json!({"done": true, "t": 3.0})
    );
    let start = feet(state_at(&lines, 1.0));
    let end = feet(state_at(&lines, 3.0));
    let walked = ((end[0] - start[0]).powi(2) + (end[2] - start[2]).powi(2)).sqrt();
    assert!((walked - 9.7).abs() <= 0.1, "walked {walked}");
    let at_one = state_at(&lines, 1.0);
    assert_eq!(at_one["player"]["grounded"], Value::Bool(true));
    assert_eq!(at_one["player"]["mode"], "walk");
    assert_eq!(at_one["blocks"], 0);
    assert_eq!(at_one["pieces"], serde_json::json!([]));
    assert_eq!(at_one["falling"], 0);
    // A state line every 0.5 s: t = 0, 0.5, …, 3.
    let states = lines.iter().filter(|l| l.get("player").is_some()).count();
    assert_eq!(states, 7);
}

#[test]
fn the_same_scene_gives_the_same_bytes() {
    let scene = scene::parse(WALK).unwrap();
    let mut first = Vec::new();
    let mut second = Vec::new();
    scene::run(&scene, &mut first).unwrap();
    scene::run(&scene, &mut second).unwrap();
    assert_eq!(first, second);
}

#[test]
fn digs_and_blocks_report_their_results() {
    let lines = trace(
        r#"{
        "terrain": {"flat": {"height": 0.0}},
        "blocks": [{"cell": [4, 0, 4], "size": 2, "material": "Stone", "cuts": 0, "slope": false}],
        "events": [
            {"t": 0.1, "break": [5, 1, 5]},
            {"t": 0.1, "break": [5, 1, 5]},
            {"t": 0.2, "place": {"cell": [8, 0, 8], "size": 1, "material": "Copper"}},
            {"t": 0.2, "place": {"cell": [8, 0, 8], "size": 1, "material": "Slate"}},
            {"t": 0.3, "dig": {"center": [0.0, 0.0, 0.0], "radius": 2.0}},
            {"t": 0.3, "build": {"center": [0.5, 0.5, 0.5], "radius": 0.01}}
        ],
        "duration": 0.5, "report_every": 0.0
    }"#,
    );
    let events: Vec<&Value> = lines.iter().filter(|l| l.get("event").is_some()).collect();
    assert_eq!(events.len(), 6);
    assert_eq!(
        events[0]["removed"], true,
        "the cell (5,1,5) lies in the 2-cell block at (4,0,4)"
    );
    assert_eq!(events[1]["removed"], false, "already gone");
    assert_eq!(events[2]["placed"], true);
    assert_eq!(events[3]["placed"], false);
    assert_eq!(events[3]["reason"], "occupied");
    assert_eq!(events[4]["event"], "dig");
    assert_eq!(events[4]["changed"], true);
    assert_eq!(events[5]["changed"], false, "too small to reach a sample");
    let last_state = lines
        .iter()
        .rev()
        .find(|l| l.get("blocks").is_some())
        .unwrap();
    assert_eq!(last_state["blocks"], 1);
    assert_eq!(last_state["player"], Value::Null, "no player in this scene");
}

#[test]
fn bad_scenes_are_clear_errors() {
    let cases: &[(&str, &str)] = &[
        ("{", "EOF"),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1, "wind": 3}"#,
            "wind",
        ),
        (r#"{"terrain": {"lava": {}}, "duration": 1}"#, "lava"),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "blocks": [{"cell": [0,0,0], "material": "Glass"}]}"#,
            "blocks[0].material: no material `Glass`",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "blocks": [{"cell": [0,99999999,0], "material": "Stone"}]}"#,
            "outside the world",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "blocks": [{"cell": [0,0,0], "size": 3, "material": "Stone"}]}"#,
            "blocks[0]",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "digs": [{"center": [0,0,0], "radius": -1}]}"#,
            "digs[0].radius",
        ),
        (
            r#"{"terrain": {"flat": {"height": 1e999}}, "duration": 1}"#,
            "number out of range",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "events": [{"t": 0.5, "press": "KeyZZ"}]}"#,
            "KeyZZ",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "events": [{"t": 0.5, "press": "KeyW", "release": "KeyW"}]}"#,
            "one action",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "events": [{"t": 0.5, "jump": true}]}"#,
            "jump",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1,
               "events": [{"t": 2.5, "press": "KeyW"}]}"#,
            "events[0].t",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1, "frame_dt": 0}"#,
            "frame_dt",
        ),
        (
            r#"{"terrain": {"flat": {"height": 0}}, "duration": -1}"#,
            "duration",
        ),
    ];
    for (text, expected) in cases {
        let error = scene::parse(text).expect_err(text);
        let message = error.to_string();
        assert!(message.contains(expected), "{text}\n  gave: {message}");
        if let SceneError::Json { line, .. } = &error {
            assert!(*line >= 1, "the reader names the line: {message}");
        }
    }
}

fn last_state(lines: &[Value]) -> &Value {
    lines
        .iter()
        .rev()
        .find(|l| l.get("player").is_some())
        .expect("a state line")
}

#[test]
fn a_wall_of_blocks_stops_the_player() {
    // A wall of 1 m stone blocks from x = 3 m to 4 m, 2 m high, across z.
    let mut blocks = Vec::new();
    for k in -8..8 {
        for j in 0..2 {
            blocks.push(format!(
                r#"{{"cell": [6, {}, {}], "size": 2, "material": "Stone"}}"#,
                j * 2,
                k * 2
            ));
        }
    }
    let lines = trace(&format!(
        r#"{{
        "terrain": {{"flat": {{"height": 0.0}}}},
        "blocks": [{}],
        "player": {{"feet": [0.0, 0.2, 0.0], "yaw_degrees": 90.0}},
        "events": [{{"t": 0.5, "press": "KeyW"}}],
        "duration": 3.0, "report_every": 0.5
    }}"#,
        blocks.join(",")
    ));
    let [x, _, z] = feet(last_state(&lines));
    assert!(
        x <= 3.0 - 0.4 + 1e-3 && x > 2.4,
        "stopped at the wall: x = {x}"
    );
    assert!(z.abs() < 1e-3, "walked straight at it: z = {z}");
}

#[test]
fn standing_on_a_block_and_placing_into_the_player() {
    let lines = trace(
        r#"{
        "terrain": {"flat": {"height": 0.0}},
        "blocks": [{"cell": [0, 0, 0], "size": 2, "material": "Bricks"}],
        "player": {"feet": [0.5, 1.3, 0.5]},
        "events": [
            {"t": 1.0, "place": {"cell": [0, 2, 0], "size": 2, "material": "Stone"}},
            {"t": 1.0, "place": {"cell": [4, 0, 0], "size": 2, "material": "Stone"}}
        ],
        "duration": 1.5, "report_every": 0.5
    }"#,
    );
    let state = last_state(&lines);
    assert_eq!(state["player"]["grounded"], true);
    let [_, y, _] = feet(state);
    assert!(
        (y - 1.0).abs() < 1e-3,
        "standing on the block's top at 1 m: {y}"
    );
    let places: Vec<&Value> = lines.iter().filter(|l| l["event"] == "place").collect();
    assert_eq!(places[0]["placed"], false);
    assert_eq!(places[0]["reason"], "player");
    assert_eq!(places[1]["placed"], true, "clear of the player");
    assert_eq!(state["blocks"], 2);
}

#[test]
fn landing_inside_a_row_of_blocks_leaves_through_an_open_side() {
    // Three 1 m blocks in a row along x; the player lands with its feet inside the middle one,
    // whose x sides are covered by its neighbours.
    let lines = trace(
        r#"{
        "terrain": {"flat": {"height": 0.0}},
        "blocks": [
            {"cell": [0, 0, 0], "size": 2, "material": "Stone"},
            {"cell": [2, 0, 0], "size": 2, "material": "Stone"},
            {"cell": [4, 0, 0], "size": 2, "material": "Stone"}
        ],
        "player": {"feet": [1.5, 0.6, 0.5], "mode": "fly"},
        "events": [{"t": 0.2, "press": "KeyF"}],
        "duration": 1.5, "report_every": 0.5
    }"#,
    );
    let state = last_state(&lines);
    assert_eq!(state["player"]["mode"], "walk");
    let [x, y, z] = feet(state);
    assert!(
        (x - 1.5).abs() < 1e-3,
        "not pushed into a neighbour: x = {x}"
    );
    assert!((z - 0.5).abs() < 1e-3, "z = {z}");
    assert!(
        (y - 1.0).abs() < 1e-2,
        "out through the top, standing on it: y = {y}"
    );
    assert_eq!(state["player"]["grounded"], true);
}

/// The player's jump, slope and pit measurements (docs/player.md) again, this time through scene
/// files.
#[test]
fn the_player_measurements_hold_through_scenes() {
    // A jump rises 1.17 m.
    let lines = trace(
        r#"{
        "terrain": {"flat": {"height": 0.0}},
        "player": {"feet": [0.0, 0.5, 0.0]},
        "events": [{"t": 1.0, "press": "Space"}, {"t": 1.02, "release": "Space"}],
        "duration": 2.5, "report_every": 0.0
    }"#,
    );
    let ground = feet(state_at(&lines, 1.0))[1];
    let highest = lines
        .iter()
        .filter(|l| l.get("player").is_some())
        .map(|l| feet(l)[1])
        .fold(f64::MIN, f64::max);
    assert!(
        ((highest - ground) - 1.17).abs() <= 0.02,
        "rose {}",
        highest - ground
    );

    // Five seconds standing on a 36° slope move the feet less than a millimeter.
    let lines = trace(
        r#"{
        "terrain": {"slope": {"degrees": 36.0, "height": 0.0}},
        "player": {"feet": [2.0, 1.8, 0.0]},
        "duration": 6.0, "report_every": 1.0
    }"#,
    );
    let start = feet(state_at(&lines, 1.0));
    let end = feet(state_at(&lines, 6.0));
    let slid = (0..3)
        .map(|i| (end[i] - start[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(slid < 1e-3, "slid {slid} m");

    // A pit dug under the feet, about 4 m deep: the player falls and lands on its floor.
    let lines = trace(
        r#"{
        "terrain": {"flat": {"height": 0.0}},
        "player": {"feet": [0.0, 0.5, 0.0]},
        "events": [{"t": 1.0, "dig": {"center": [0.0, 0.0, 0.0], "radius": 6.0}}],
        "duration": 4.0, "report_every": 0.5
    }"#,
    );
    let before = feet(state_at(&lines, 1.0))[1];
    let after = state_at(&lines, 4.0);
    let drop = before - feet(after)[1];
    assert!(drop > 3.5, "fell {drop} m into the pit");
    assert_eq!(after["player"]["grounded"], true, "landed on the floor");
    let during = lines
        .iter()
        .filter(|l| l.get("player").is_some())
        .any(|l| l["player"]["grounded"] == false && l["t"].as_f64().unwrap() > 1.0);
    assert!(during, "it fell rather than sinking");
}

/// A tower of `levels` 1 m stone blocks at the origin, on the ground, as scene JSON blocks
/// joined by commas.
fn stone_tower(levels: i32) -> String {
    (0..levels)
        .map(|j| {
            format!(
                r#"{{"cell": [0, {}, 0], "size": 2, "material": "Stone"}}"#,
                2 * j
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn stepping_off_a_tower_falls_beside_it() {
    // A tower of 1 m blocks, 4 m high, on flat ground; the player walks off its top toward +x.
    let blocks = stone_tower(4);
    let lines = trace(&format!(
        r#"{{
        "terrain": {{"flat": {{"height": 0.0}}}},
        "blocks": [{}],
        "player": {{"feet": [0.5, 4.3, 0.5], "yaw_degrees": 90.0}},
        "events": [{{"t": 1.0, "press": "KeyW"}}, {{"t": 1.4, "release": "KeyW"}}],
        "duration": 4.0, "report_every": 0.5
    }}"#,
        blocks
    ));
    let on_top = feet(state_at(&lines, 1.0));
    assert!(
        (on_top[1] - 4.0).abs() < 1e-3,
        "stands on the tower: {on_top:?}"
    );
    let end = state_at(&lines, 4.0);
    let [x, y, _] = feet(end);
    assert!(y.abs() < 0.05, "on the ground beside it: y = {y}");
    assert!(x > 1.0 + 0.39, "beside the tower, not in it: x = {x}");
    assert_eq!(end["player"]["grounded"], true);
}

#[test]
fn the_showcase_answers_what_would_fall() {
    // Flat ground at 0: the columns start at cell 0, one block sunk in; the scene's column is at
    // cell (192, 316).
    let lines = trace(
        r#"{
        "terrain": {"flat": {"height": 0.0}},
        "showcase": [96.0, 158.0],
        "events": [
            {"t": 0.0, "would_fall": [190, 12, 316]},
            {"t": 0.0, "would_fall": [188, 0, 316]},
            {"t": 0.0, "would_fall": [188, -2, 316]},
            {"t": 0.0, "would_fall": [0, 50, 0]}
        ],
        "duration": 0.1, "report_every": 0.1
    }"#,
    );
    // Pillar 8 (one sunk) + pyramid + beam 3 + ball + table (4 legs of 2 + top 3 × 3).
    assert_eq!(lines[0]["blocks"], 8 + 1 + 3 + 1 + 8 + 9);
    let counts: Vec<i64> = lines
        .iter()
        .filter(|l| l["event"] == "would_fall")
        .map(|l| l["count"].as_i64().unwrap())
        .collect();
    // The beam next to the pillar: the rest of the beam and the ball. The pillar's lowest block
    // above the ground: the pillar above it, the pyramid, the beam and the ball. The sunk block:
    // the same (the block above it is held by the ground). No block there: nothing.
    assert_eq!(counts, [3, 6 + 1 + 3 + 1, 0, 0]);
}

#[test]
fn the_showcase_is_still_built_from_its_old_key_sample_scene() {
    // Scene files written before the rename keep working: the same world, the same trace.
    let scene = |key: &str| {
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}}, "{key}": [96.0, 158.0],
            "duration": 0.1, "report_every": 0.1}}"#
        )
    };
    let old = trace(&scene("sample_scene"));
    assert_eq!(old[0]["blocks"], 8 + 1 + 3 + 1 + 8 + 9);
    assert_eq!(old, trace(&scene("showcase")));
}

#[test]
fn breaking_the_beam_drops_what_it_held() {
    let lines = trace(
        r#"{
        "terrain": {"flat": {"height": 0.0}},
        "showcase": [96.0, 158.0],
        "events": [
            {"t": 0.0, "would_fall": [190, 12, 316]},
            {"t": 0.05, "break": [190, 12, 316]},
            {"t": 0.05, "would_fall": [188, 0, 316]}
        ],
        "duration": 0.1, "report_every": 0.1
    }"#,
    );
    let before = lines[0]["blocks"].as_i64().unwrap();
    let broke = lines.iter().find(|l| l["event"] == "break").unwrap();
    assert_eq!(broke["removed"], true);
    assert_eq!(broke["fell"], 3, "the rest of the beam and the ball");
    let after = last_state(&lines)["blocks"].as_i64().unwrap();
    assert_eq!(before - after, 4);
    // Now the pillar's fall takes only the pillar above and the pyramid.
    let previews: Vec<&Value> = lines
        .iter()
        .filter(|l| l["event"] == "would_fall")
        .collect();
    assert_eq!(previews[0]["count"], 3);
    assert_eq!(previews[1]["count"], 6 + 1);
}

#[test]
fn a_tower_falls_only_once_its_foot_is_more_than_20_cm_from_the_ground() {
    use blockfall_game::terrain::{EditStore, Field, PlaneGround};

    // A tower of three 1 m blocks on flat ground; digs of growing radius under its middle.
    let radii = [0.6f32, 1.0, 1.4, 1.8, 2.2, 2.6, 3.0];
    let mut events = Vec::new();
    for (i, radius) in radii.iter().enumerate() {
        events.push(format!(
            r#"{{"t": {}, "dig": {{"center": [0.5, -1.2, 0.5], "radius": {radius}}}}}"#,
            0.01 * (i + 1) as f64
        ));
    }
    let lines = trace(&format!(
        r#"{{
        "terrain": {{"flat": {{"height": 0.0}}}},
        "blocks": [
            {{"cell": [0, 0, 0], "size": 2, "material": "Stone"}},
            {{"cell": [0, 2, 0], "size": 2, "material": "Stone"}},
            {{"cell": [0, 4, 0], "size": 2, "material": "Stone"}}
        ],
        "events": [{}],
        "duration": 0.1, "report_every": 0.1
    }}"#,
        events.join(",")
    ));
    let digs: Vec<&Value> = lines.iter().filter(|l| l["event"] == "dig").collect();
    // The same digs on the same ground, to see where the ground is after each.
    let mut field = Field::new(EditStore::new(std::sync::Arc::new(PlaneGround::flat(0.0))));
    let mut fallen = false;
    let mut held_at_least_once = false;
    for (dig, radius) in digs.iter().zip(radii) {
        field.dig([0.5, -1.2, 0.5], radius).unwrap();
        // Solid ground within 20 cm below the tower's foot: under the middle of any of its cells.
        let held = [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)]
            .iter()
            .any(|&(x, z)| field.probe(x, -0.2, z).density > 0.0);
        let fell = dig["fell"].as_i64().unwrap();
        if fallen {
            assert_eq!(fell, 0, "nothing left to fall");
        } else if held {
            assert_eq!(fell, 0, "radius {radius}: the ground still holds the foot");
            held_at_least_once = true;
        } else {
            assert_eq!(fell, 3, "radius {radius}: the foot lost the ground");
            fallen = true;
        }
    }
    assert!(
        held_at_least_once && fallen,
        "the digs went from holding to dropping"
    );
    assert_eq!(last_state(&lines)["blocks"], 0);
}

#[test]
fn report_every_of_1e_300_finishes() {
    // It never finished: the next report's time was counted up one `report_every` at a time.
    let lines =
        trace(r#"{"terrain": {"flat": {"height": 0.0}}, "duration": 0.5, "report_every": 1e-300}"#);
    let states = lines
        .iter()
        .filter(|line| line.get("blocks").is_some())
        .count();
    assert_eq!(
        states, 31,
        "a state line at the start and after every one of the 30 frames"
    );
    assert_eq!(lines.last().expect("a last line")["done"], true);
}

/// The error a scene gets from `parse`, as text.
fn refusal(text: &str) -> String {
    scene::parse(text).expect_err(text).to_string()
}

#[test]
fn a_tiny_frame_dt_over_a_long_duration_is_refused_before_it_runs() {
    // It ran for years: 8.64e13 frames.
    let message =
        refusal(r#"{"terrain": {"flat": {"height": 0}}, "duration": 86400, "frame_dt": 1e-9}"#);
    assert!(
        message.contains("limits.frames") && message.contains("86400000000000 frames"),
        "{message}"
    );
    // A scene asks for more on purpose: 10,000 frames over a limit of 5,000, then of 20,000.
    let asking = |frames: u64| {
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0}}}}, "duration": 10, "frame_dt": 0.001,
                "limits": {{"frames": {frames}}}}}"#
        )
    };
    assert!(refusal(&asking(5_000)).contains("10000 frames"));
    scene::parse(&asking(20_000)).expect("a scene within the limit it asks for");
}

#[test]
fn a_trace_beyond_its_limit_is_refused_before_any_line() {
    // Gigabytes without a word: a state line every frame of a busy scene.
    let text = r#"{"terrain": {"flat": {"height": 0}}, "showcase": [0, 8],
        "duration": 60, "report_every": 0, "limits": {"trace_bytes": 100000}}"#;
    let parsed = scene::parse(text).expect("a valid scene");
    let mut out = Vec::new();
    let error = scene::run(&parsed, &mut out).expect_err("refused");
    let message = error.to_string();
    assert!(
        message.contains("limits.trace_bytes") && message.contains("3601 state lines"),
        "{message}"
    );
    assert!(out.is_empty(), "a refused scene writes no trace");
}

#[test]
fn a_trace_that_outgrows_its_limit_as_pieces_break_off_stops_there() {
    // A tower whose foot is broken: the falling piece makes every later state line longer than
    // the first, which the estimate before the run goes by.
    let tower = stone_tower(8);
    let text = |limit: u64| {
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0}}}}, "blocks": [{}],
                "player": {{"feet": [20, 0.5, 0]}},
                "events": [{{"t": 0.1, "break": [0, 0, 0]}}],
                "duration": 1, "report_every": 0, "limits": {{"trace_bytes": {limit}}}}}"#,
            tower
        )
    };
    let whole = {
        let mut out = Vec::new();
        scene::run(&scene::parse(&text(1 << 30)).unwrap(), &mut out).unwrap();
        out.len() as u64
    };
    let parsed = scene::parse(&text(whole / 2)).expect("a valid scene");
    let mut out = Vec::new();
    let message = scene::run(&parsed, &mut out)
        .expect_err("stopped")
        .to_string();
    assert!(
        message.contains("limits.trace_bytes") && message.contains("outgrew"),
        "{message}"
    );
    assert!(!out.is_empty() && (out.len() as u64) <= whole / 2);
    assert!(!String::from_utf8_lossy(&out).contains("\"done\""));
}

#[test]
fn a_dig_or_build_far_out_is_refused_before_it_runs() {
    // It failed mid-run with "not a finite point" and left a partial trace.
    for (key, place) in [
        (
            r#""events": [{"t": 0.5, "dig": {"center": [2e9, 0, 0], "radius": 3}}]"#,
            "events[0].dig.center",
        ),
        (
            r#""events": [{"t": 0, "build": {"center": [0, -1e10, 0], "radius": 3}}]"#,
            "events[0].build.center",
        ),
        (
            r#""digs": [{"center": [0, 0, 6e5], "radius": 3}]"#,
            "digs[0].center",
        ),
        (r#""player": {"feet": [1e9, 0, 0]}"#, "player.feet"),
    ] {
        let message = refusal(&format!(
            r#"{{"terrain": {{"flat": {{"height": 0}}}}, {key}, "duration": 1}}"#
        ));
        assert!(
            message.contains(place) && message.contains("outside the world"),
            "{key}: {message}"
        );
    }
}

#[test]
fn a_frame_dt_above_50_ms_moves_the_player_at_full_speed() {
    // The player's step was cut to 50 ms while the pieces moved the whole frame.
    let walked = |frame_dt: f64| {
        let lines = trace(&WALK.replace("0.0166666667", &frame_dt.to_string()));
        let (start, end) = (feet(state_at(&lines, 1.0)), feet(state_at(&lines, 3.0)));
        ((end[0] - start[0]).powi(2) + (end[2] - start[2]).powi(2)).sqrt()
    };
    let smooth = walked(1.0 / 60.0);
    for frame_dt in [0.1, 0.0625] {
        let long = walked(frame_dt);
        assert!(
            (long - smooth).abs() < 0.05 * smooth,
            "frame_dt {frame_dt}: walked {long} m, at 1/60 s {smooth} m"
        );
    }
}

#[test]
fn scene_messages_name_the_place() {
    let flat = r#""terrain": {"flat": {"height": 0}}"#;
    // A UTF-8 byte-order mark, as some editors write, is no error.
    scene::parse(&format!("\u{feff}{{{flat}, \"duration\": 1}}")).expect("a BOM is skipped");
    let message = refusal("\n  [1, 2]");
    assert!(
        message.contains("line 2 column 3") && message.contains("holds an array"),
        "{message}"
    );
    let message = refusal(r#"{"terrain": "flat", "duration": 1}"#);
    assert!(
        message.starts_with("terrain") && message.contains(r#"{"flat": {"height": H}}"#),
        "{message}"
    );
    let message = refusal(&format!(
        r#"{{{flat}, "blocks": [{{"cell": [-0, 0, 0], "material": "Stone"}}], "duration": 1}}"#
    ));
    assert!(
        message.starts_with("blocks[0].cell[0], line 1"),
        "{message}"
    );
    let message = refusal(&format!(
        r#"{{{flat}, "events": [{{"t": 0, "turn": [1, "x"]}}], "duration": 1}}"#
    ));
    assert!(
        message.starts_with("events[0].turn[1], line 1"),
        "{message}"
    );
    // A 100 MB name, or key, is not echoed in full.
    let long = "x".repeat(100 << 20);
    for text in [
        format!(
            r#"{{{flat}, "blocks": [{{"cell": [0, 0, 0], "material": "{long}"}}], "duration": 1}}"#
        ),
        format!(r#"{{{flat}, "{long}": 1, "duration": 1}}"#),
    ] {
        let message = refusal(&text);
        assert!(
            message.len() < 1000,
            "{} bytes of message: {}…",
            message.len(),
            &message[..200]
        );
        assert!(message.contains("characters left out"), "{message}");
    }
}
