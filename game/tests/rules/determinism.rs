//! The determinism guard (docs/physics.md, "Same result on any number of threads"): a scene of
//! 200 falling pieces, run for 1,200 physics steps on 1, 2 and 8 worker threads, writes the same
//! trace byte for byte, and the trace's hash is the one kept in this file.
//!
//! The trace (`blockfall_game::scene`) lists every piece's middle, orientation, velocity and spin
//! as JSON numbers that read back to the same `f64` bits (serde_json writes the shortest
//! round-tripping form), every quarter of a second and at the end, with the outcome of every
//! event: equal traces mean the same bits of every piece's motion at every line.
//!
//! The release build must be deterministic. The suite runs in the dev profile (`opt-level = 1`),
//! and the hash is the same there: Rust neither reorders nor contracts floating-point operations
//! (no fast-math, no fused multiply-add unless written), so every optimisation level computes the
//! same bits. Checked with both `cargo test -p blockfall-game --test rules determinism::` and `cargo test --release
//! -p blockfall-game --test rules determinism::`.

use blockfall_game::scene;
use blockfall_physics::random::Rng;
use blockfall_physics::workers::WorkerPool;

/// The FNV-1a hash of the trace of [`scene_text`]. A change to the physics, the support, the
/// pieces, the trace's format or this scene that alters the trace changes it: when that is meant,
/// set it to the value the failing test prints and say in the commit why the trace changed.
const TRACE_HASH: u64 = 0x77e6_a82f_05a7_a9de;

/// Pieces in the scene: two to a column, 100 columns.
const PIECES: usize = 200;

/// Physics steps the scene runs: 10 s of frames of one step each (see [`scene_text`]).
const STEPS: usize = 1200;

/// The 64-bit FNV-1a hash of `bytes`: simple, stable on every platform and Rust version.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The scene's numbers: the project's seeded generator, the same on every run.
trait SceneNumbers {
    /// A whole number in `low..=high`.
    fn range(&mut self, low: i32, high: i32) -> i32;
}

impl SceneNumbers for Rng {
    fn range(&mut self, low: i32, high: i32) -> i32 {
        self.between(i64::from(low), i64::from(high)) as i32
    }
}

const MATERIALS: [&str; 6] = ["Stone", "Bricks", "Planks", "Plaster", "Slate", "Copper"];

/// A group of 1 to 3 blocks stacked on a support block of planks at cell `y` of column
/// `(x, z)`: breaking the support at `t` drops the group as one piece. Returns the cell above the
/// group's top and the group's blocks' lowest cells.
fn hanging_group(
    rng: &mut Rng,
    [x, y, z]: [i32; 3],
    blocks: &mut Vec<String>,
) -> (i32, Vec<[i32; 3]>) {
    blocks.push(format!(
        r#"{{"cell": [{x}, {y}, {z}], "size": 2, "material": "Planks"}}"#
    ));
    let mut top = y + 2;
    let mut cells = Vec::new();
    for _ in 0..rng.range(1, 3) {
        let size = *rng.pick(&[1, 2, 2, 4]);
        let material = *rng.pick(&MATERIALS);
        // Half the blocks with cut edges (rounded or sloped), half plain.
        let cuts = if rng.next_u64() % 2 == 0 {
            0
        } else {
            rng.next_u64() % 0x1000
        };
        let slope = rng.next_u64() % 2 == 0;
        blocks.push(format!(
            r#"{{"cell": [{x}, {top}, {z}], "size": {size}, "material": "{material}", "cuts": {cuts}, "slope": {slope}}}"#
        ));
        cells.push([x, top, z]);
        top += size;
    }
    (top, cells)
}

/// The scene: 100 columns 3 m apart on ground sloping 10° along x, with a few craters dug in
/// it; in each column two hanging groups, the lower one dropped in the first half second and the
/// upper one onto it within the first 1.5 s. Later, digs wake rubble in ten columns and blocks
/// are broken out of ten pieces. Frames of 1/120 s (as `f32`, a hair over one step) make one
/// physics step each: 10 s are [`STEPS`] steps.
fn scene_text() -> String {
    let mut rng = Rng::new(0x1600_2026_0000_0001);
    let mut blocks = Vec::new();
    let mut breaks: Vec<(f64, [i32; 3], Vec<[i32; 3]>)> = Vec::new();
    let mut later = Vec::new();
    let slope = 10f64.to_radians().tan();
    let mut digs = Vec::new();
    for column in 0..PIECES / 2 {
        let (i, k) = ((column % 10) as i32, (column / 10) as i32);
        let (x, z) = (i * 6 - 30, k * 6 - 30);
        let ground = slope * (f64::from(x) + 1.0) * 0.5;
        let lower = (ground / 0.5).ceil() as i32 + rng.range(4, 10);
        let (top, cells) = hanging_group(&mut rng, [x, lower, z], &mut blocks);
        breaks.push((f64::from(rng.range(0, 60)) / 120.0, [x, lower, z], cells));
        let upper = top + rng.range(3, 10);
        let (_, cells) = hanging_group(&mut rng, [x, upper, z], &mut blocks);
        breaks.push((f64::from(rng.range(24, 180)) / 120.0, [x, upper, z], cells));
        if column % 10 == 3 {
            // A dig at the column's foot after everything landed: the rubble there wakes.
            later.push(format!(
                r#"{{"t": 5.0, "dig": {{"center": [{:.2}, {:.2}, {:.2}], "radius": 1.5}}}}"#,
                f64::from(x) * 0.5 + 0.5,
                ground,
                f64::from(z) * 0.5 + 0.5
            ));
        }
        if column % 9 == 0 {
            // A crater before anything falls.
            let cx = f64::from(x) * 0.5 + 1.5;
            digs.push(format!(
                r#"{{"center": [{cx:.2}, {:.2}, {:.2}], "radius": {}}}"#,
                slope * cx,
                f64::from(z) * 0.5 - 1.0,
                rng.range(2, 4)
            ));
        }
    }
    // Pieces are numbered in the order they broke off (events by time, then file order).
    let mut order: Vec<usize> = (0..breaks.len()).collect();
    order.sort_by(|&a, &b| breaks[a].0.total_cmp(&breaks[b].0).then(a.cmp(&b)));
    for (piece, &group) in order.iter().enumerate() {
        let cells = &breaks[group].2;
        if piece % 20 == 7 && cells.len() >= 2 {
            later.push(format!(
                r#"{{"t": 6.0, "break_piece": {{"piece": {piece}, "cell": [{}, {}, {}]}}}}"#,
                cells[1][0], cells[1][1], cells[1][2]
            ));
        }
    }
    let mut events: Vec<String> = breaks
        .iter()
        .map(|(t, [x, y, z], _)| format!(r#"{{"t": {t}, "break": [{x}, {y}, {z}]}}"#))
        .collect();
    events.extend(later);
    format!(
        r#"{{"terrain": {{"slope": {{"degrees": 10.0, "height": 0.0}}}},
            "digs": [{}], "blocks": [{}], "events": [{}],
            "duration": {}, "frame_dt": {}, "report_every": 0.25}}"#,
        digs.join(","),
        blocks.join(","),
        events.join(","),
        STEPS as f64 / 120.0,
        1.0 / 120.0
    )
}

fn trace(text: &str, threads: usize) -> String {
    let parsed = scene::parse(text).expect("the scene is valid");
    let mut out = Vec::new();
    scene::run_with_pool(
        &parsed,
        &mut out,
        WorkerPool::new(threads).expect("threads"),
    )
    .expect("the scene runs");
    String::from_utf8(out).expect("the trace is UTF-8")
}

#[test]
fn two_hundred_pieces_give_the_same_trace_on_1_2_and_8_threads_and_the_kept_hash() {
    let text = scene_text();
    let one = trace(&text, 1);
    // The scene is what it says: every piece broke off and fell, and it ran to the end.
    let breaks = one.lines().filter(|l| l.contains(r#""event":"break""#));
    assert_eq!(breaks.clone().count(), PIECES);
    assert!(
        breaks.clone().all(|l| !l.contains(r#""fell":0"#)),
        "every break drops a group"
    );
    let last_state = one
        .lines()
        .rev()
        .find(|l| l.contains(r#""pieces""#))
        .expect("a state line");
    assert!(
        last_state.matches(r#""id":"#).count() >= PIECES,
        "{last_state}"
    );
    // Pieces break where they land (strength): stacks with a weak or small block under a
    // heavy one. The scene names the pieces of its `break_piece` events by the order they
    // broke off, which splits before the last of them change (ids are slots, reused): such an
    // event finds its block, or is refused with a reason ("no piece", "no block").
    let splits = one
        .lines()
        .filter(|l| l.contains(r#""event":"split""#))
        .count();
    assert!(splits >= 10, "{splits} splits");
    let mut removed = 0;
    for line in one
        .lines()
        .filter(|l| l.contains(r#""event":"break_piece""#))
    {
        if line.contains(r#""removed":true"#) {
            removed += 1;
        } else {
            assert!(
                line.contains(r#""reason":"no piece""#) || line.contains(r#""reason":"no block""#),
                "{line}"
            );
        }
    }
    assert!(removed >= 2, "blocks broken out of pieces: {removed}");
    let digs = one.lines().filter(|l| l.contains(r#""event":"dig""#));
    assert!(
        digs.clone().count() == 10 && digs.clone().all(|l| l.contains(r#""changed":true"#)),
        "ten digs under rubble"
    );
    let done = one.lines().last().expect("a last line");
    assert!(done.starts_with(r#"{"done":true"#), "{done}");

    let hash = fnv1a(one.as_bytes());
    for threads in [2, 8] {
        let other = trace(&text, threads);
        let first_difference = one
            .lines()
            .zip(other.lines())
            .position(|(a, b)| a != b)
            .map_or(String::new(), |line| format!(", first at line {line}"));
        assert!(
            other == one,
            "{threads} threads: the trace differs from one thread's{first_difference}"
        );
    }
    assert_eq!(
        hash, TRACE_HASH,
        "the trace's hash is {hash:#018x}, the kept one {TRACE_HASH:#018x}: if the change was \
         meant, keep the new hash and say why in the commit"
    );
}
