//! Falling pieces through the scene runner (docs/physics.md): loose groups leave the grid as rigid
//! bodies, fall, land and rest; the trace lists them; threads do not change a byte.

use blockfall_game::scene;
use blockfall_physics::workers::WorkerPool;
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

/// The showcase on flat ground with the beam broken next to the pillar.
const BEAM_BROKEN: &str = r#"{
    "terrain": {"flat": {"height": 0.0}},
    "showcase": [96.0, 158.0],
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

/// `q` (x, y, z, w) turning `v`.
fn turned(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let axis = [q[0], q[1], q[2]];
    let t = cross(axis, v).map(|c| 2.0 * c);
    let across = cross(axis, t);
    std::array::from_fn(|k| v[k] + q[3] * t[k] + across[k])
}

fn numbers<const N: usize>(value: &Value) -> [f64; N] {
    std::array::from_fn(|k| value[k].as_f64().expect("a number"))
}

/// Regression: a body's middle was asked for the nearest surface, and a world that said nothing
/// was near it was believed for all the body's points. In a dug bowl the ground's answer (its
/// density over its gradient) is no distance: above the bowl's middle the dig's slope cancels
/// the ground's, and the middle of a piece lying in the bowl was told no ground was near. Its
/// points were not asked, and the piece sank up to a meter into the ground. A stone cube falls
/// into bowls of several sizes, some dug deeper under it after it landed: no corner, edge or
/// face middle of it is ever inside the ground at a line of the trace.
#[test]
fn a_piece_lying_in_a_dug_bowl_does_not_sink_into_the_ground() {
    use blockfall_game::solids::terrain_surface;
    use blockfall_game::terrain::{EditStore, Field, Ground, PlaneGround};
    use std::sync::Arc;
    for (radius, offset, size, dug_under) in [
        (3.0, 1.0, 4, false),
        (4.0, 1.5, 4, false),
        (3.5, 2.5, 4, false),
        (2.5, 0.5, 4, true),
        (3.0, 2.0, 4, true),
        (2.0, 0.0, 2, true),
    ] {
        let half = f64::from(size) * 0.25;
        // The cube hangs on a plank 8 m up; the plank breaks at once.
        let blocks = [
            format!(r#"{{"cell": [0, 18, 0], "size": {size}, "material": "Stone"}}"#),
            r#"{"cell": [0, 16, 0], "size": 2, "material": "Planks"}"#.to_string(),
        ];
        let bowl = [half + offset, 0.0, half];
        let mut digs = vec![(bowl, radius)];
        let mut events = vec![r#"{"t": 0.0, "break": [0, 16, 0]}"#.to_string()];
        if dug_under {
            let under = [half + offset * 0.5 + 0.3, -1.0, half + 0.2];
            events.push(format!(
                r#"{{"t": 3.0, "dig": {{"center": [{}, {}, {}], "radius": 1.5}}}}"#,
                under[0], under[1], under[2]
            ));
            digs.push((under, 1.5));
        }
        let text = format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "digs": [{{"center": [{}, 0.0, {}], "radius": {radius}}}],
                "blocks": [{}], "events": [{}], "duration": 7.0, "report_every": 0.25}}"#,
            bowl[0],
            bowl[2],
            blocks.join(","),
            events.join(",")
        );
        let case = format!("a bowl of {radius} m, the cube {offset} m off its middle");
        let trace = lines(&trace_with(&text, 2));
        // The same ground, to ask where the cube's points are.
        let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
        let mut field = Field::new(EditStore::new(ground));
        for (centre, radius) in digs {
            field
                .dig(centre.map(|c| c as f32), radius as f32)
                .expect("a dig");
        }
        let mut deepest = f32::INFINITY;
        for state in trace.iter().filter(|l| l.get("pieces").is_some()) {
            for piece in state["pieces"].as_array().expect("pieces") {
                let middle: [f64; 3] = numbers(&piece["center_of_mass"]);
                let turn: [f64; 4] = numbers(&piece["orientation"]);
                for index in 0..27 {
                    let local =
                        [index % 3, index / 3 % 3, index / 9].map(|k| (f64::from(k) - 1.0) * half);
                    let offset = turned(turn, local);
                    let point = std::array::from_fn(|k| (middle[k] + offset[k]) as f32);
                    if let Some(surface) = terrain_surface(&field, point, 0.0) {
                        deepest = deepest.min(surface.distance);
                    }
                }
            }
        }
        assert!(
            deepest > -0.02,
            "{case}: a point {deepest} m into the ground"
        );
        // It fell into the bowl and lies there.
        let end = pieces_at_end(&trace);
        assert_eq!(end.len(), 1, "{case}");
        assert_eq!(end[0]["resting"], true, "{case}: {}", end[0]);
        let lying = numbers::<3>(&end[0]["center_of_mass"])[1];
        assert!(lying < half, "{case}: lies at {lying} m, above the ground");
    }
}
