//! Falling pieces through the scene runner (seed 000): loose groups leave the grid as rigid
//! bodies, fall, land and rest; the trace lists them; threads do not change a byte.

use blockfall_engine::workers::WorkerPool;
use blockfall_game::scene;
use serde_json::Value;

fn trace_with(scene_text: &str, threads: usize) -> String {
    let parsed = scene::parse(scene_text).expect("a valid scene");
    let mut out = Vec::new();
    scene::run_with_pool(&parsed, &mut out, WorkerPool::new(threads).unwrap()).expect("runs");
    String::from_utf8(out).expect("utf-8")
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The sample scene on flat ground with the beam broken next to the pillar.
const BEAM_BROKEN: &str = r#"{
    "terrain": {"flat": {"height": 0.0}},
    "sample_scene": [96.0, 158.0],
    "events": [{"t": 0.0, "break": [190, 12, 316]}],
    "duration": 6.0, "report_every": 0.5
}"#;

#[test]
fn the_broken_beam_falls_as_one_piece_and_rests() {
    let trace = lines(&trace_with(BEAM_BROKEN, 1));
    let broke = trace.iter().find(|l| l["event"] == "break").unwrap();
    assert_eq!(broke["fell"], 3, "the rest of the beam and the ball");
    let states: Vec<&Value> = trace.iter().filter(|l| l.get("pieces").is_some()).collect();
    let falling = states[1];
    assert_eq!(falling["pieces"].as_array().unwrap().len(), 1, "one piece");
    let piece = &falling["pieces"][0];
    assert_eq!(piece["blocks"], 3);
    // Two planks (600 kg each) and a copper ball (lighter than its 8900 kg cube).
    let mass = piece["mass"].as_f64().unwrap();
    assert!(mass > 1200.0 + 4000.0 && mass < 1200.0 + 8900.0, "{mass}");
    assert!(piece["contact_points"].as_u64().unwrap() > 26);
    let end = states.last().unwrap();
    let piece = &end["pieces"][0];
    assert_eq!(piece["resting"], true, "{piece}");
    assert_eq!(end["falling"], 0);
    // It came down from the beam's height (6 m up) onto the table (1 m) or the ground beside it,
    // and did not sink into the ground.
    let y = piece["center_of_mass"][1].as_f64().unwrap();
    assert!((0.2..3.0).contains(&y), "rests at {y} m");
}

#[test]
fn the_trace_with_pieces_is_the_same_for_one_two_and_eight_threads() {
    let one = trace_with(BEAM_BROKEN, 1);
    assert_eq!(one, trace_with(BEAM_BROKEN, 2));
    assert_eq!(one, trace_with(BEAM_BROKEN, 8));
}

#[test]
fn a_tower_cut_at_its_foot_falls_and_no_block_passes_through_the_ground() {
    // A tower of 8 plain 1 m blocks on flat ground, its foot one block sunk in; knock out the
    // block above the sunk one: the 6 above fall as one piece, land and rest above the ground.
    let blocks: Vec<String> = (-1..7)
        .map(|y| {
            format!(
                r#"{{"cell": [0, {}, 0], "size": 2, "material": "Stone"}}"#,
                y * 2
            )
        })
        .collect();
    let text = format!(
        r#"{{"terrain": {{"flat": {{"height": 0.0}}}}, "blocks": [{}],
            "events": [{{"t": 0.0, "break": [0, 0, 0]}}],
            "duration": 8.0, "report_every": 0.25}}"#,
        blocks.join(",")
    );
    let trace = lines(&trace_with(&text, 2));
    let broke = trace.iter().find(|l| l["event"] == "break").unwrap();
    assert_eq!(broke["fell"], 6);
    for state in trace.iter().filter(|l| l.get("pieces").is_some()) {
        for piece in state["pieces"].as_array().unwrap() {
            let y = piece["center_of_mass"][1].as_f64().unwrap();
            // The piece is 1 m thick: its middle stays at least 0.45 m above the ground.
            assert!(
                y > 0.45,
                "at t = {} the piece's middle is at {y} m",
                state["t"]
            );
        }
    }
    let end = trace
        .iter()
        .rev()
        .find(|l| l.get("pieces").is_some())
        .unwrap();
    assert_eq!(end["pieces"][0]["resting"], true, "{end}");
}
