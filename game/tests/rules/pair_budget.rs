//! The pair budget (docs/physics.md, "The pair budget"; issue 52): pieces placed by the
//! thousand in one place, all sunk into each other, as a save or a scene can hold them. Each
//! of `n` pieces overlaps every other: `n (n − 1) / 2` pairs, and a contact at nearly every
//! point of each, once made the physics abort on a failed allocation. Now a step takes on a
//! budget of pairs and of their contacts, counts the rest and leaves it for later steps, and
//! the world's memory stays bounded.
//!
//! The pieces are the game's ([`Pieces`]: their bodies, contact points and shapes), on flat
//! ground, stepped one physics step at a time as the game steps them.

use std::process::Command;
use std::time::Instant;

use blockfall_game::blocks::Block;
use blockfall_game::pieces::Pieces;
use blockfall_physics::collision::{Solid, Surface};
use blockfall_physics::random::Rng;
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{StepCounts, CONTACT_BUDGET, PAIR_BUDGET, STEP};

/// Everything below `y = 0` is solid.
struct Flat;

impl Solid for Flat {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        (point[1] < reach).then_some(Surface {
            distance: point[1],
            normal: [0.0, 1.0, 0.0],
        })
    }

    fn true_distances(&self) -> bool {
        true
    }

    fn stamp(&self) -> Option<u128> {
        Some(0xf1a7)
    }
}

/// `count` pieces of one 1 m stone block each, in one place on the ground: each block's low
/// corner in a cell drawn from the 1 m cube at the origin (so every block lies within the 2 m
/// cube there), each piece turned a little about its middle, so that they lie sunk into each
/// other and into the ground at every depth.
fn pieces_in_one_place(count: usize, threads: usize) -> Pieces {
    let mut pieces = Pieces::new(WorkerPool::new(threads).expect("threads"));
    let mut rng = Rng::new(0x52_0004);
    for _ in 0..count {
        // Cells are half a meter; a 1 m block is two cells on a side.
        let [x, y, z] = [0; 3].map(|_| rng.between(0, 2) as i32);
        let block = Block::new(x, y, z, 2, 0, 0, false).expect("a block");
        let half = [0.0; 3].map(|_: f64| (rng.unit() - 0.5) * 0.2);
        pieces
            .add_turned(vec![block], [half[0], half[1], half[2], 1.0])
            .expect("a piece");
    }
    pieces
}

/// One physics step of every piece (the time of one step), and what it counted.
fn step(pieces: &mut Pieces) -> StepCounts {
    let report = pieces.update(STEP, &Flat);
    assert!(report.fell_out.is_empty() && report.split.is_empty());
    pieces.physics().last_step_counts()
}

/// Every piece's place, turn, velocity and spin are numbers.
fn all_finite(pieces: &Pieces) -> bool {
    pieces.iter().all(|(_, _, body)| {
        [body.position, body.velocity, body.angular_velocity]
            .iter()
            .flatten()
            .chain(&body.orientation)
            .all(|value| value.is_finite())
    })
}

#[test]
fn thousands_of_pieces_in_one_place_step_within_the_pair_budget() {
    let count = 3_000;
    let mut pieces = pieces_in_one_place(count, 2);
    // A 1 m block's contact points: the most contacts it can have with the ground.
    let points = pieces.iter().next().expect("a piece").1.contact_points;
    let mut deferred_steps = 0;
    for index in 0..30 {
        let counts = step(&mut pieces);
        assert_eq!(counts.awake, count, "step {index}: none rests yet");
        assert!(counts.pairs <= PAIR_BUDGET, "step {index}: {counts:?}");
        // The contacts of pairs within the budget; each piece's with the ground, at most at
        // each of its points.
        assert!(
            counts.contacts <= CONTACT_BUDGET + count * points,
            "step {index}: {counts:?}"
        );
        if index == 0 {
            // The blocks' spheres all overlap: every pair is given contacts or counted.
            assert_eq!(
                counts.pairs + counts.deferred_pairs,
                count * (count - 1) / 2,
                "{counts:?}"
            );
        }
        deferred_steps += usize::from(counts.deferred_pairs > 0);
        assert!(all_finite(&pieces), "step {index}");
    }
    assert_eq!(deferred_steps, 30, "the heap stays beyond the budget");
    assert_eq!(pieces.len(), count, "none fell out of the world");
}

/// VmHWM (the most resident memory the process has had) and VmRSS, in kibibytes.
fn resident_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /proc/self/status"))
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// The resident memory the most pieces a world holds (16,384) may take, kibibytes: issue 52's
/// bound for a world of them is a gigabyte; twenty thousand took about 690 MiB, 250 MiB of it
/// the pieces themselves (their blocks, stores and meshes) before a step.
const MOST_RESIDENT_KIB: u64 = 800 * 1024;

/// Steps of the most pieces a world holds (16,384) that are measured.
const MEASURED_STEPS: usize = 5;

/// The most pieces a world holds (`limits::MOST_PIECES`, 16,384) in one place, stepped: run by
/// [`the_most_pieces_a_world_holds_in_one_place_stay_well_within_a_gigabyte`] in a process of its own,
/// so that the resident memory measured is theirs alone. Prints what it measured.
#[test]
#[ignore = "run in a process of its own by the_most_pieces_a_world_holds_in_one_place_stay_well_within_a_gigabyte"]
fn measure_the_most_pieces_in_one_place() {
    let count = blockfall_game::limits::MOST_PIECES;
    let started = Instant::now();
    let mut pieces = pieces_in_one_place(count, 2);
    let (_, placed) = resident_kib();
    println!(
        "measured: {count} pieces placed in {:.1} s, resident {placed} KiB",
        started.elapsed().as_secs_f64()
    );
    for index in 0..MEASURED_STEPS {
        let started = Instant::now();
        let counts = step(&mut pieces);
        let seconds = started.elapsed().as_secs_f64();
        let times = pieces.physics().last_step_times();
        let (most, now) = resident_kib();
        println!(
            "measured: step {index}: {seconds:.2} s (broad phase {:.2} s, contacts {:.2} s, \
             solve {:.2} s), {} pairs given contacts, {} deferred, {} contacts; \
             VmHWM {most} KiB, VmRSS {now} KiB",
            times.broad,
            times.contacts,
            times.solve,
            counts.pairs,
            counts.deferred_pairs,
            counts.contacts
        );
        assert!(counts.pairs <= PAIR_BUDGET && counts.deferred_pairs > 0);
        assert!(all_finite(&pieces));
    }
    let (most, _) = resident_kib();
    println!("measured: VmHWM {most} KiB");
    assert!(most < MOST_RESIDENT_KIB, "VmHWM {most} KiB");
}

#[test]
#[cfg(target_os = "linux")]
fn the_most_pieces_a_world_holds_in_one_place_stay_well_within_a_gigabyte() {
    let output = Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "pair_budget::measure_the_most_pieces_in_one_place",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .output()
        .expect("the measurement runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // (The harness writes the test's name on the line its first print goes on.)
    let measured: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.find("measured: ").map(|at| &line[at..]))
        .collect();
    println!("{}", measured.join("\n"));
    assert!(
        output.status.success(),
        "the measurement failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(measured.len(), MEASURED_STEPS + 2, "{stdout}");
}
