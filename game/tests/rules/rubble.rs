//! Rubble (docs/physics.md, "Rubble"): pieces at rest are solid for the player, for other
//! pieces and for the blocks placed on them, and wake when the world changes under them.
//! Scenes through the scene runner, as the `sim` tool runs them.

use blockfall_game::scene;
use serde_json::Value;

fn trace(text: &str) -> Vec<Value> {
    let parsed = scene::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut out = Vec::new();
    scene::run(&parsed, &mut out).expect("runs");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn states(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l.get("pieces").is_some()).collect()
}

fn state_at(lines: &[Value], t: f64) -> &Value {
    lines
        .iter()
        .find(|l| l.get("pieces").is_some() && (l["t"].as_f64().unwrap() - t).abs() < 1e-6)
        .unwrap_or_else(|| panic!("no state at t = {t}"))
}

fn event<'a>(lines: &'a [Value], name: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["event"] == name).collect()
}

fn block(cell: [i32; 3], size: u8, material: &str) -> String {
    format!(
        r#"{{"cell": [{}, {}, {}], "size": {size}, "material": "{material}"}}"#,
        cell[0], cell[1], cell[2]
    )
}

fn y_of(piece: &Value) -> f64 {
    piece["center_of_mass"][1].as_f64().unwrap()
}

/// Rotation angle of a piece's orientation quaternion, in degrees.
fn tilt(piece: &Value) -> f64 {
    let w = piece["orientation"][3].as_f64().unwrap().abs().min(1.0);
    2.0 * w.acos().to_degrees()
}

/// A 1 m stone block on a 1 m support standing on flat ground at y = 0: breaking the support
/// at `t` drops it 1 m, flat, onto the ground at cells x, z = 0..2.
fn dropped_block_scene(extra_blocks: &[String], events: &[String], duration: f64) -> String {
    let mut blocks = vec![block([0, 2, 0], 2, "Stone"), block([0, 0, 0], 2, "Planks")];
    blocks.extend_from_slice(extra_blocks);
    let mut all_events = vec![r#"{"t": 0.0, "break": [0, 0, 0]}"#.to_string()];
    all_events.extend_from_slice(events);
    format!(
        r#"{{"terrain": {{"flat": {{"height": 0.0}}}}, "blocks": [{}], "events": [{}],
            "duration": {duration}, "report_every": 0.5}}"#,
        blocks.join(","),
        all_events.join(",")
    )
}

#[test]
fn the_showcases_beam_falls_as_one_piece_onto_the_table_and_rests() {
    let lines = trace(
        r#"{"terrain": {"flat": {"height": 0.0}}, "showcase": [96.0, 158.0],
            "events": [{"t": 0.0, "break": [190, 12, 316]}],
            "duration": 6.0, "report_every": 0.5}"#,
    );
    assert_eq!(event(&lines, "break")[0]["fell"], 3);
    let end = states(&lines).last().copied().unwrap();
    let pieces = end["pieces"].as_array().unwrap();
    assert_eq!(
        pieces.len(),
        1,
        "the rest of the beam and the ball, as one piece"
    );
    assert_eq!(pieces[0]["resting"], true);
    // The heavy ball pulls the piece's middle toward its end: x = 97.5 m, the planks 96.5 and
    // 97.5 m.
    let first = state_at(&lines, 0.5);
    let x = first["pieces"][0]["center_of_mass"][0].as_f64().unwrap();
    assert!(x > 97.2, "the middle of mass lies toward the ball: x = {x}");
    // On the table (its top 1.5 m up: 1 m above the ground plus the top's 1 m block from cell
    // 2) or on the ground beside it; never through either.
    let y = y_of(&pieces[0]);
    assert!((0.4..3.5).contains(&y), "rests at {y} m");
}

#[test]
fn knocking_out_the_pillars_foot_drops_it_and_it_falls_over() {
    let lines = trace(
        r#"{"terrain": {"flat": {"height": 0.0}}, "showcase": [96.0, 158.0],
            "events": [{"t": 0.0, "break": [188, 0, 316]}],
            "duration": 12.0, "report_every": 0.5}"#,
    );
    // The pillar above (6), the pyramid, the beam (3) and the ball: one piece.
    assert_eq!(event(&lines, "break")[0]["fell"], 11);
    let end = states(&lines).last().copied().unwrap();
    let piece = end["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["blocks"] == 11)
        .expect("the pillar's piece");
    assert_eq!(piece["resting"], true, "{piece}");
    // Over onto the table beside it, or the ground: well away from upright.
    assert!(tilt(piece) > 20.0, "it fell over: turned {}°", tilt(piece));
    assert!(y_of(piece) > 0.0, "above the ground");
}

#[test]
fn a_piece_dropped_on_rubble_rests_on_top_of_it() {
    // The first block rests on the ground by t = 3; a second one hangs 6 m above it and drops.
    let extra = [
        block([0, 14, 0], 2, "Copper"),
        block([0, 12, 0], 2, "Planks"),
    ];
    let events = [r#"{"t": 3.0, "break": [0, 12, 0]}"#.to_string()];
    let lines = trace(&dropped_block_scene(&extra, &events, 8.0));
    let rubble = state_at(&lines, 3.0)["pieces"][0].clone();
    assert_eq!(rubble["resting"], true, "rubble by then: {rubble}");
    let end = states(&lines).last().copied().unwrap();
    let mut heights: Vec<f64> = end["pieces"].as_array().unwrap().iter().map(y_of).collect();
    heights.sort_by(f64::total_cmp);
    assert_eq!(heights.len(), 2);
    assert!(
        (heights[0] - 0.5).abs() < 0.05,
        "the rubble stays: {heights:?}"
    );
    assert!(
        heights[1] > 1.4,
        "the second lies on the rubble, not in it: {heights:?}"
    );
    assert!(end["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["resting"] == true));
}

#[test]
fn the_player_lands_on_rubble_walks_on_it_and_stands() {
    // A slab of 2 × 2 one-meter blocks drops 1 m onto the ground and is rubble within a second;
    // the player comes down onto it from 20 m (1.4 s) and walks a little way across it.
    let blocks = [
        block([0, 2, 0], 2, "Stone"),
        block([2, 2, 0], 2, "Stone"),
        block([0, 2, 2], 2, "Stone"),
        block([2, 2, 2], 2, "Stone"),
        block([0, 0, 0], 2, "Planks"),
    ];
    let text = format!(
        r#"{{"terrain": {{"flat": {{"height": 0.0}}}}, "blocks": [{}],
            "player": {{"feet": [1.0, 20.0, 0.4], "yaw_degrees": 0.0, "mode": "walk"}},
            "events": [{{"t": 0.0, "break": [0, 0, 0]}}, {{"t": 2.0, "press": "KeyW"}},
                       {{"t": 2.1, "release": "KeyW"}}],
            "duration": 4.0, "report_every": 0.5}}"#,
        blocks.join(",")
    );
    let lines = trace(&text);
    let end = states(&lines).last().copied().unwrap();
    assert_eq!(end["pieces"][0]["resting"], true);
    let feet = &end["player"]["feet"];
    let (x, y, z) = (
        feet[0].as_f64().unwrap(),
        feet[1].as_f64().unwrap(),
        feet[2].as_f64().unwrap(),
    );
    assert!(z > 0.6, "walked forward: z = {z}");
    assert!(
        (0.0..2.0).contains(&x) && (0.0..2.0).contains(&z),
        "still over the slab: {x}, {z}"
    );
    assert!(
        (y - 1.0).abs() < 0.1,
        "stands on the rubble's top at 1 m: feet at {y}"
    );
    assert_eq!(end["player"]["grounded"], true);
}

#[test]
fn digging_under_rubble_wakes_it_and_it_rests_again_lower() {
    let events = [r#"{"t": 3.0, "dig": {"center": [0.5, 0.0, 0.5], "radius": 2.5}}"#.to_string()];
    let lines = trace(&dropped_block_scene(&[], &events, 9.0));
    let before = state_at(&lines, 3.0)["pieces"][0].clone();
    assert_eq!(before["resting"], true);
    let after_dig = state_at(&lines, 3.5)["pieces"][0].clone();
    assert_eq!(after_dig["resting"], false, "woken by the dig");
    let end = states(&lines).last().copied().unwrap();
    let piece = &end["pieces"][0];
    assert_eq!(piece["resting"], true, "rests again: {piece}");
    assert!(
        y_of(piece) < y_of(&before) - 0.5,
        "in the hole: {} m",
        y_of(piece)
    );
}

#[test]
fn breaking_the_middle_block_out_of_a_rubble_beam_splits_it_in_two() {
    // A beam of three 1 m blocks on a support under its middle, dropped 1 m onto the ground.
    let blocks = [
        block([0, 2, 0], 2, "Planks"),
        block([2, 2, 0], 2, "Planks"),
        block([4, 2, 0], 2, "Planks"),
        block([2, 0, 0], 2, "Stone"),
    ];
    let text = format!(
        r#"{{"terrain": {{"flat": {{"height": 0.0}}}}, "blocks": [{}],
            "events": [{{"t": 0.0, "break": [2, 0, 0]}},
                       {{"t": 3.0, "break_piece": {{"piece": 0, "cell": [2, 2, 0]}}}},
                       {{"t": 3.0, "break_piece": {{"piece": 7, "cell": [0, 0, 0]}}}}],
            "duration": 5.0, "report_every": 0.5}}"#,
        blocks.join(",")
    );
    let lines = trace(&text);
    assert_eq!(state_at(&lines, 3.0)["pieces"][0]["blocks"], 3);
    let broken = event(&lines, "break_piece");
    assert_eq!(broken[0]["removed"], true, "{}", broken[0]);
    assert_eq!(broken[0]["pieces"].as_array().unwrap().len(), 2);
    // A piece that is not there is a clear refusal, not an error.
    assert_eq!(broken[1]["removed"], false);
    assert_eq!(broken[1]["reason"], "no piece");
    let end = states(&lines).last().copied().unwrap();
    let pieces = end["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 2);
    assert!(pieces
        .iter()
        .all(|p| p["blocks"] == 1 && p["resting"] == true));
    // Each 1 m plank of 600 kg: mass worked out again.
    assert!(pieces
        .iter()
        .all(|p| (p["mass"].as_f64().unwrap() - 600.0).abs() < 1e-6));
}

#[test]
fn a_tower_on_rubble_stands_and_falls_when_the_rubble_wakes() {
    let events = [
        r#"{"t": 3.0, "place": {"cell": [0, 2, 0], "size": 2, "material": "Bricks"}}"#.to_string(),
        r#"{"t": 3.0, "place": {"cell": [0, 4, 0], "size": 2, "material": "Bricks"}}"#.to_string(),
        r#"{"t": 3.0, "place": {"cell": [0, 6, 0], "size": 2, "material": "Bricks"}}"#.to_string(),
        r#"{"t": 3.5, "would_fall": [0, 2, 0]}"#.to_string(),
        r#"{"t": 4.0, "dig": {"center": [0.5, 0.0, 0.5], "radius": 2.5}}"#.to_string(),
    ];
    let lines = trace(&dropped_block_scene(&[], &events, 8.0));
    let placed = event(&lines, "place");
    assert!(placed.iter().all(|p| p["placed"] == true), "{placed:?}");
    // Held by the rubble: standing at 3.9 s, and only the blocks above the lowest would fall
    // with it.
    assert_eq!(state_at(&lines, 3.5)["blocks"], 3);
    assert_eq!(event(&lines, "would_fall")[0]["count"], 2);
    // The dig wakes the rubble; the tower, held by nothing now, falls as a piece.
    let dig = event(&lines, "dig")[0];
    assert_eq!(dig["fell"], 3, "{dig}");
    let end = states(&lines).last().copied().unwrap();
    assert_eq!(end["blocks"], 0);
    assert_eq!(end["pieces"].as_array().unwrap().len(), 2);
}
