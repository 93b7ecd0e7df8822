//! Falling pieces through the scene runner (docs/physics.md): loose groups leave the grid as rigid
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

/// A block hanging on a support block high above, to drop by breaking the support.
fn hanging(cell: [i32; 3], material: &str) -> [String; 2] {
    let block = |y: i32, material: &str| {
        format!(
            r#"{{"cell": [{}, {y}, {}], "size": 2, "material": "{material}"}}"#,
            cell[0], cell[2]
        )
    };
    [block(cell[1], material), block(cell[1] - 2, "Planks")]
}

/// A slab of 0.5 m blocks, 6 m square, its top at y = 0.5 m, over ground 30 m below.
fn slab() -> Vec<String> {
    let mut blocks = Vec::new();
    for x in -6..6 {
        for z in -6..6 {
            blocks.push(format!(
                r#"{{"cell": [{x}, 0, {z}], "size": 1, "material": "Stone"}}"#
            ));
        }
    }
    blocks
}

fn pieces_at_end(trace: &[Value]) -> Vec<Value> {
    let end = trace
        .iter()
        .rev()
        .find(|l| l.get("pieces").is_some())
        .unwrap();
    end["pieces"].as_array().unwrap().clone()
}

#[test]
fn dropped_from_100_m_onto_a_slab_of_blocks_a_piece_does_not_pass_through() {
    let mut blocks = slab();
    blocks.extend(hanging([0, 200, 0], "Copper"));
    let text = format!(
        r#"{{"terrain": {{"flat": {{"height": -30.0}}}}, "blocks": [{}],
            "events": [{{"t": 0.0, "break": [0, 198, 0]}}],
            "duration": 7.0, "report_every": 0.5}}"#,
        blocks.join(",")
    );
    let trace = lines(&trace_with(&text, 2));
    let pieces = pieces_at_end(&trace);
    assert_eq!(pieces.len(), 1);
    let y = pieces[0]["center_of_mass"][1].as_f64().unwrap();
    // On the slab (top at 0.5 m): the 1 m block's middle at 1 m, not under the slab.
    assert!((0.9..1.3).contains(&y), "the piece's middle ends at {y} m");
    assert_eq!(pieces[0]["resting"], true);
}

#[test]
fn two_pieces_falling_onto_each_other_do_not_pass_through() {
    let mut blocks = slab();
    blocks.extend(hanging([0, 40, 0], "Stone"));
    blocks.extend(hanging([0, 80, 0], "Copper"));
    let text = format!(
        r#"{{"terrain": {{"flat": {{"height": -30.0}}}}, "blocks": [{}],
            "events": [{{"t": 0.0, "break": [0, 38, 0]}}, {{"t": 0.0, "break": [0, 78, 0]}}],
            "duration": 8.0, "report_every": 0.5}}"#,
        blocks.join(",")
    );
    let trace = lines(&trace_with(&text, 1));
    let end = pieces_at_end(&trace);
    assert_eq!(end.len(), 2, "{end:?}");
    let middle = |piece: &Value| -> [f64; 3] {
        std::array::from_fn(|i| piece["center_of_mass"][i].as_f64().unwrap())
    };
    // The stone one (the first to break off) lands on the slab.
    let lower = middle(&end[0]);
    assert!(
        (0.9..1.3).contains(&lower[1]),
        "the lower one on the slab: {lower:?}"
    );
    // The copper one strikes it at 20 m/s and bounces (0.15 of that): it ends on it, beside it
    // on the slab, or off the slab's edge on the ground 30 m below; never in the slab or in
    // the stone one.
    let upper = middle(&end[1]);
    let over_slab = upper[0].abs() < 3.0 && upper[2].abs() < 3.0;
    if over_slab {
        let apart = upper[1] - lower[1];
        assert!(apart > 0.9 || apart.abs() < 0.2, "{upper:?} and {lower:?}");
    } else {
        assert!(upper[1] < -28.0, "off the slab, on the ground: {upper:?}");
    }
    for state in trace.iter().filter(|l| l.get("pieces").is_some()) {
        let pieces = state["pieces"].as_array().unwrap();
        if pieces.len() == 2 {
            let a: Vec<f64> = (0..3)
                .map(|i| pieces[0]["center_of_mass"][i].as_f64().unwrap())
                .collect();
            let b: Vec<f64> = (0..3)
                .map(|i| pieces[1]["center_of_mass"][i].as_f64().unwrap())
                .collect();
            let apart = a
                .iter()
                .zip(&b)
                .map(|(p, q)| (p - q).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                apart > 0.9,
                "at t = {} the pieces' middles are {apart} m apart",
                state["t"]
            );
        }
    }
}

#[test]
fn fifty_pieces_give_the_same_trace_on_one_two_and_eight_threads() {
    let mut blocks = Vec::new();
    let mut events = Vec::new();
    for i in 0..50 {
        let (x, z) = ((i % 10) * 3 - 15, (i / 10) * 3 - 7);
        let y = 8 + (i % 7) * 2;
        blocks.extend(hanging(
            [x, y, z],
            ["Stone", "Copper", "Planks", "Slate"][i as usize % 4],
        ));
        events.push(format!(r#"{{"t": 0.0, "break": [{x}, {}, {z}]}}"#, y - 2));
    }
    let text = format!(
        r#"{{"terrain": {{"slope": {{"degrees": 12.0, "height": 0.0}}}}, "blocks": [{}],
            "events": [{}], "duration": 5.0, "report_every": 5.0}}"#,
        blocks.join(","),
        events.join(",")
    );
    let one = trace_with(&text, 1);
    let end = lines(&one);
    assert_eq!(pieces_at_end(&end).len(), 50);
    assert_eq!(one, trace_with(&text, 2));
    assert_eq!(one, trace_with(&text, 8));
}
