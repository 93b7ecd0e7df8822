//! `bench -- physics --equal-work`: blockfall's physics core and rapier3d doing the same work.
//!
//! The plain benchmark compares the engines as they are used, and blockfall lets still pieces
//! rest sooner than rapier lets them sleep: most of its lead there is work not done. Here
//! neither engine rests anything (`PhysicsWorld::set_resting(false)`, rapier's `can_sleep`
//! off), both take steps of 1/120 s with the same friction and bounce, on the same thread
//! counts, and two scenes are stepped:
//!
//! - **drop**: the plain benchmark's pieces (1 to 64 blocks) dropped two to a column onto the
//!   default world;
//! - **heap**: 400 small pieces (1 to 8 blocks) in layers over a pit dug at the spawn point;
//!   they fall a few meters and heap up, so most contacts are piece against piece.
//!
//! rapier3d runs twice: at its defaults (4 solver iterations) and at blockfall's 8
//! ([`ITERATIONS`]). Each case is run `repeats` times, the engines taking turns, each step's
//! fastest time kept; a run's figure is the median of its step times. The last line gives the
//! heap scene's medians against rapier3d at 8 iterations: the same passes over the same
//! contacts.

use anyhow::ensure;
use blockfall_engine::physics::{StepTimes, ITERATIONS};
use blockfall_game::blocks::BlockStore;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::Generator;

use super::blockfall_runner::{blockfall_world, run_blockfall};
use super::rapier_world::{run_rapier, RapierSetup};
use super::scene::{drop_scene, heap_world, DropArea, Pit, Placed};
use super::steps::Run;
use super::terrain::terrain_mesh;
use super::TUNNEL_DEPTH;
use crate::bench::shared::world_field;

/// Pieces of the heap scene.
pub const HEAP_PIECES: usize = 400;

/// The three engines' runs of one scene on one thread count.
struct Case {
    threads: usize,
    ours: Run,
    rapier_defaults: Run,
    rapier_equal: Run,
}

/// Runs both scenes and prints the table, the speed-ups and the closing line.
pub fn run(pieces: usize, steps: u32, repeats: u32, seed: u64) -> anyhow::Result<()> {
    ensure!(pieces > 0, "at least one piece");
    ensure!(repeats > 0, "at least one run");
    ensure!(steps > 0, "at least one step");
    let command: Vec<String> = std::env::args().skip(1).collect();
    println!(
        "`cargo run --release -p blockfall-tools --bin bench -- {}`",
        command.join(" ")
    );
    println!();
    println!(
        "Sleeping off in both engines; steps of 1/120 s; friction and bounce blockfall's; \
         {steps} steps per run, {repeats} run(s) each, each step's fastest time kept; the \
         median step in ms. rapier3d {} at its defaults (4 solver iterations) and at \
         blockfall's {ITERATIONS}.",
        super::RAPIER_VERSION
    );
    println!();
    println!(
        "| scene | threads | blockfall | rapier3d, defaults | rapier3d, {ITERATIONS} iterations \
         | rapier3d ({ITERATIONS}) / blockfall |"
    );
    println!("|---|---|---|---|---|---|");

    let generator = Generator::new(Generator::DEFAULT_SEED);
    let drop = drop_scene(&generator, pieces, seed);
    let drop_cases = scene_cases("drop", &generator, &drop, None, steps, repeats)?;
    let (_, pit, heap) = heap_world(&generator, HEAP_PIECES, seed)?;
    let heap_cases = scene_cases("heap", &generator, &heap, Some(&pit), steps, repeats)?;

    println!();
    for (name, cases) in [("drop", &drop_cases), ("heap", &heap_cases)] {
        if let [one, two] = cases.as_slice() {
            println!(
                "- {name}: 1 → 2 threads blockfall {:.2}×, rapier3d ({ITERATIONS} iterations) \
                 {:.2}×; pieces awake at the end: blockfall {}, rapier3d {}",
                one.ours.median() / two.ours.median(),
                one.rapier_equal.median() / two.rapier_equal.median(),
                two.ours.awake,
                two.rapier_equal.awake,
            );
        }
    }
    println!();
    let [one, two] = heap_cases.as_slice() else {
        anyhow::bail!("the heap scene ran on other thread counts than 1 and 2");
    };
    println!(
        "equal work: blockfall {:.2} ms, rapier3d {:.2} ms per step (1 thread); blockfall {:.2} \
         ms, rapier3d {:.2} ms (2 threads)",
        one.ours.median(),
        one.rapier_equal.median(),
        two.ours.median(),
        two.rapier_equal.median()
    );
    Ok(())
}

/// Steps only blockfall's side of the heap scene on each of `thread_counts` and prints its
/// median step: for profiling the physics core without the other engine's runs.
pub fn run_heap_only(
    steps: u32,
    repeats: u32,
    seed: u64,
    thread_counts: &[usize],
) -> anyhow::Result<()> {
    ensure!(repeats > 0, "at least one run");
    ensure!(steps > 0, "at least one step");
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let (field, pit, heap) = heap_world(&generator, HEAP_PIECES, seed)?;
    let no_blocks = BlockStore::new();
    let solids = SceneSolids::new(&field, &no_blocks);
    let area = DropArea::around(&generator, &heap);
    area.warm(&generator, &solids);
    let floor = area.lowest_ground.min(pit.bottom()) - TUNNEL_DEPTH;
    // The work of the steps, once: the same on any thread count.
    let (mut physics, shapes, _) = blockfall_world(&heap, 1)?;
    physics.set_resting(false);
    for step in 1..=steps {
        physics.step(&solids, &shapes);
        if step % 150 == 0 || step == steps {
            println!("step {step}: {:?}", physics.last_step_counts());
        }
    }
    for &threads in thread_counts {
        let mut best: Option<Run> = None;
        for _ in 0..repeats {
            let run = run_blockfall(
                &generator, &heap, threads, steps, &solids, floor, false, false,
            )?;
            match &mut best {
                Some(best) => best.keep_fastest(&run),
                None => best = Some(run),
            }
        }
        if let Some(best) = best {
            println!(
                "heap ({} pieces), blockfall, {threads} thread(s): {:.2} ms per step (median)",
                heap.len(),
                best.median()
            );
        }
    }
    for &threads in thread_counts {
        println!(
            "heap, {threads} thread(s), mean ms per step by phase (the settled half, each \
             step's fastest): {}",
            phase_means(&heap, threads, steps, repeats, &solids)?
        );
    }
    Ok(())
}

/// The heap stepped `repeats` more times on `threads` threads: the mean time of each phase of
/// a step (`PhysicsWorld::last_step_times`) over the second half of the steps, once the heap
/// has settled, each step's phase taken at its fastest of the runs (as the medians are), their
/// sum, and the whole call to `step` as the caller sees it, as one line.
fn phase_means(
    heap: &[Placed],
    threads: usize,
    steps: u32,
    repeats: u32,
    solids: &SceneSolids<'_>,
) -> anyhow::Result<String> {
    let counted = (steps - steps / 2) as usize;
    const PHASES: usize = StepTimes::PHASES;
    // Per counted step: the fastest time of each phase, then of the whole step.
    let mut fastest = vec![[f64::INFINITY; PHASES + 1]; counted];
    let mut names = [""; PHASES];
    for _ in 0..repeats {
        let (mut physics, shapes, _) = blockfall_world(heap, threads)?;
        physics.set_resting(false);
        for step in 0..steps {
            let started = std::time::Instant::now();
            physics.step(solids, &shapes);
            let whole = started.elapsed().as_secs_f64();
            let Some(slot) = (step as usize).checked_sub((steps / 2) as usize) else {
                continue;
            };
            let kept = &mut fastest[slot];
            for (phase, (name, seconds)) in
                physics.last_step_times().phases().into_iter().enumerate()
            {
                kept[phase] = kept[phase].min(seconds);
                names[phase] = name;
            }
            kept[PHASES] = kept[PHASES].min(whole);
        }
    }
    let mean =
        |column: usize| fastest.iter().map(|kept| kept[column]).sum::<f64>() * 1e3 / counted as f64;
    let mut line: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(phase, name)| format!("{name} {:.3}", mean(phase)))
        .collect();
    line.push(format!("phases {:.3}", (0..PHASES).map(mean).sum::<f64>()));
    line.push(format!("step {:.3}", mean(PHASES)));
    Ok(line.join(", "))
}

/// One scene stepped by the three engines on 1 and 2 threads, its table rows printed.
fn scene_cases(
    name: &str,
    generator: &Generator,
    placed: &[Placed],
    pit: Option<&Pit>,
    steps: u32,
    repeats: u32,
) -> anyhow::Result<Vec<Case>> {
    let mut field = world_field(generator);
    if let Some(pit) = pit {
        pit.dig(&mut field)?;
    }
    let no_blocks = BlockStore::new();
    let solids = SceneSolids::new(&field, &no_blocks);
    let area = DropArea::around(generator, placed);
    let lowest = pit.map_or(area.lowest_ground, |pit| {
        area.lowest_ground.min(pit.bottom())
    });
    let terrain = terrain_mesh(
        &field,
        area.low,
        area.high,
        lowest - 8.0,
        area.highest_ground + 8.0,
    )?;
    area.warm(generator, &solids);
    let floor = lowest - TUNNEL_DEPTH;
    let equal = RapierSetup {
        sleeping: false,
        iterations: Some(ITERATIONS),
    };
    let defaults = RapierSetup {
        sleeping: false,
        iterations: None,
    };
    let mut cases: Vec<Case> = Vec::new();
    for repeat in 0..repeats {
        for (slot, threads) in [1, 2].into_iter().enumerate() {
            let ours = run_blockfall(
                generator, placed, threads, steps, &solids, floor, false, false,
            )?;
            let rapier_defaults =
                run_rapier(generator, placed, &terrain, threads, steps, floor, defaults)?;
            let rapier_equal =
                run_rapier(generator, placed, &terrain, threads, steps, floor, equal)?;
            if repeat == 0 {
                cases.push(Case {
                    threads,
                    ours,
                    rapier_defaults,
                    rapier_equal,
                });
            } else {
                let case = &mut cases[slot];
                case.ours.keep_fastest(&ours);
                case.rapier_defaults.keep_fastest(&rapier_defaults);
                case.rapier_equal.keep_fastest(&rapier_equal);
            }
        }
    }
    for case in &cases {
        println!(
            "| {name} ({} pieces) | {} | {:.2} | {:.2} | {:.2} | {:.2}× |",
            placed.len(),
            case.threads,
            case.ours.median(),
            case.rapier_defaults.median(),
            case.rapier_equal.median(),
            case.rapier_equal.median() / case.ours.median()
        );
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state hash of the heap scene after [`HEAP_STEPS`] steps with resting off. A change
    /// to the physics that alters it updates it on purpose, saying why in the commit.
    const HEAP_HASH: u64 = 0xa05c_7b76_8dc3_5bb8;
    /// Steps of the determinism check: the first layer lands and the heap starts to form.
    const HEAP_STEPS: usize = 150;

    #[test]
    fn the_heap_scene_steps_to_the_same_bits_on_1_2_and_8_threads_and_the_kept_hash() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let (field, _, placed) = heap_world(&generator, HEAP_PIECES, 1).expect("the heap");
        let no_blocks = BlockStore::new();
        let solids = SceneSolids::new(&field, &no_blocks);
        let hashes: Vec<(usize, u64, usize)> = [1, 2, 8]
            .into_iter()
            .map(|threads| {
                let (mut physics, shapes, _) = blockfall_world(&placed, threads).expect("a world");
                physics.set_resting(false);
                let (mut touching, mut regions, mut apart) = (0, 0, 0);
                for _ in 0..HEAP_STEPS {
                    physics.step(&solids, &shapes);
                    let counts = physics.last_step_counts();
                    regions = regions.max(counts.regions);
                    apart += counts.apart;
                }
                // The solve's whole machinery ran: eight regions, groups between regions
                // that are not neighbours.
                assert_eq!(regions, 8, "{threads} threads");
                assert!(apart > 0, "{threads} threads");
                for handle in physics.handles() {
                    if physics.body(handle).is_some_and(|body| body.touching > 0) {
                        touching += 1;
                    }
                }
                (threads, physics.state_hash(), touching)
            })
            .collect();
        let (_, one, touching) = hashes[0];
        assert!(
            touching > HEAP_PIECES / 4,
            "the heap has formed: {touching} pieces touch something"
        );
        for &(threads, hash, _) in &hashes {
            assert_eq!(hash, one, "{threads} threads differ from one");
        }
        assert_eq!(
            one, HEAP_HASH,
            "the heap's state hash is {one:#018x}, the kept one {HEAP_HASH:#018x}: if the change \
             was meant, keep the new hash and say why in the commit"
        );
    }
}
