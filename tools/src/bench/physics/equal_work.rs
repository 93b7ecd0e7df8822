//! `bench -- physics --equal-work`: blockfall's physics core and the other engines doing the
//! same work.
//!
//! The plain benchmark compares the engines as they are used, and blockfall lets still pieces
//! rest sooner than the others let them sleep: some of its lead there is work not done. Here
//! no engine rests anything (`PhysicsWorld::set_resting(false)`, sleeping off in the others),
//! all take steps of 1/120 s with the same friction and bounce, on the same thread counts, and
//! two scenes are stepped:
//!
//! - **drop**: the plain benchmark's pieces (1 to 64 blocks) dropped two to a column onto the
//!   default world;
//! - **heap**: 400 small pieces (1 to 8 blocks) in layers over a pit dug at the spawn point;
//!   they fall a few meters and heap up, so most contacts are piece against piece.
//!
//! Each other engine (rapier3d; Jolt with `--features jolt`) runs twice: at its defaults and at
//! blockfall's 8 iterations ([`ITERATIONS`]). Each case is run `repeats` times, the engines
//! taking turns, each step's fastest time kept; a run's figure is the median of its step
//! times. The last line gives the heap scene's medians against rapier3d at 8 iterations: the
//! same passes over the same contacts.

use anyhow::ensure;
use blockfall_game::blocks::BlockStore;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::Generator;
use blockfall_physics::{StepTimes, ITERATIONS};

use super::blockfall_runner::{blockfall_world, run_blockfall};
use super::compare::THREADS;
use super::scene::Placed;
use super::stage::Stage;
use super::steps::Run;
use super::yardstick::{Setup, Yardstick};

/// Pieces of the heap scene.
pub const HEAP_PIECES: usize = 400;

/// One other engine's runs of a scene on one thread count, sleeping off.
struct OtherCase {
    engine: Yardstick,
    /// Its own iteration count.
    defaults: Run,
    /// Blockfall's [`ITERATIONS`].
    equal: Run,
}

/// Every engine's runs of one scene on one thread count.
struct Case {
    threads: usize,
    ours: Run,
    others: Vec<OtherCase>,
}

impl Case {
    /// rapier3d's runs (every build has it).
    fn rapier(&self) -> &OtherCase {
        &self.others[0]
    }
}

/// Runs both scenes and prints the table, the speed-ups and the closing line.
pub fn run(pieces: usize, steps: u32, repeats: u32, seed: u64) -> anyhow::Result<()> {
    ensure!(pieces > 0, "at least one piece");
    ensure!(repeats > 0, "at least one run");
    ensure!(steps > 0, "at least one step");
    let command: Vec<String> = std::env::args().skip(1).collect();
    println!(
        "`cargo run --release -p blockfall-tools{} --bin bench -- {}`",
        if Yardstick::HAS_JOLT {
            " --features jolt"
        } else {
            ""
        },
        command.join(" ")
    );
    println!();
    let releases: Vec<String> = Yardstick::ALL
        .iter()
        .map(|engine| {
            format!(
                "{} at its defaults ({}) and at blockfall's {ITERATIONS}",
                engine.release(),
                engine.default_iterations()
            )
        })
        .collect();
    println!(
        "Sleeping off in every engine; steps of 1/120 s; friction and bounce blockfall's; \
         {steps} steps per run, {repeats} run(s) each, each step's fastest time kept; the \
         median step in ms. {}.",
        releases.join("; ")
    );
    println!();
    let mut head = "| scene | threads | blockfall |".to_string();
    let mut rule = "|---|---|---|".to_string();
    for engine in Yardstick::ALL {
        let name = engine.name();
        head.push_str(&format!(
            " {name}, defaults | {name}, {ITERATIONS} iterations | {name} ({ITERATIONS}) / \
             blockfall |"
        ));
        rule.push_str("---|---|---|");
    }
    println!("{head}");
    println!("{rule}");

    let generator = Generator::new(Generator::DEFAULT_SEED);
    let drop = Stage::drop(&generator, pieces, seed)?;
    let drop_cases = scene_cases(&drop, steps, repeats)?;
    let heap = Stage::heap(&generator, HEAP_PIECES, seed)?;
    let heap_cases = scene_cases(&heap, steps, repeats)?;

    println!();
    for (name, cases) in [("drop", &drop_cases), ("heap", &heap_cases)] {
        if let [one, two] = cases.as_slice() {
            let others: Vec<String> = one
                .others
                .iter()
                .zip(&two.others)
                .map(|(first, second)| {
                    format!(
                        "{} ({ITERATIONS} iterations) {:.2}×",
                        first.engine.name(),
                        first.equal.median() / second.equal.median()
                    )
                })
                .collect();
            let awake: Vec<String> = two
                .others
                .iter()
                .map(|other| format!("{} {}", other.engine.name(), other.equal.awake))
                .collect();
            println!(
                "- {name}: 1 → 2 threads blockfall {:.2}×, {}; pieces awake at the end: \
                 blockfall {}, {}",
                one.ours.median() / two.ours.median(),
                others.join(", "),
                two.ours.awake,
                awake.join(", "),
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
        one.rapier().equal.median(),
        two.ours.median(),
        two.rapier().equal.median()
    );
    Ok(())
}

/// Steps only blockfall's side of the heap scene (or, if `pyramid`, of the pyramid) on each of
/// `thread_counts` and prints its median step and its phases: for profiling the physics core
/// without the other engines' runs.
pub fn run_heap_only(
    steps: u32,
    repeats: u32,
    seed: u64,
    thread_counts: &[usize],
    pyramid: bool,
) -> anyhow::Result<()> {
    ensure!(repeats > 0, "at least one run");
    ensure!(steps > 0, "at least one step");
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let heap = if pyramid {
        Stage::pyramid()?
    } else {
        Stage::heap(&generator, HEAP_PIECES, seed)?
    };
    let no_blocks = BlockStore::new();
    let solids = heap.solids(&no_blocks);
    heap.warm(&solids);
    // The work of the steps, once: the same on any thread count.
    let (mut physics, shapes, _) = blockfall_world(&heap.placed, 1)?;
    physics.set_sleeping(false);
    for step in 1..=steps {
        physics.step(&solids, &shapes);
        if step % 150 == 0 || step == steps {
            println!("step {step}: {:?}", physics.last_step_counts());
        }
    }
    for &threads in thread_counts {
        let mut best: Option<Run> = None;
        for _ in 0..repeats {
            let run = run_blockfall(&heap, &solids, threads, steps, false, false)?;
            match &mut best {
                Some(best) => best.keep_fastest(&run),
                None => best = Some(run),
            }
        }
        if let Some(best) = best {
            println!(
                "{} ({} pieces), blockfall, {threads} thread(s): {:.2} ms per step (median)",
                heap.name,
                heap.placed.len(),
                best.median()
            );
        }
    }
    for &threads in thread_counts {
        println!(
            "{}, {threads} thread(s), mean ms per step by phase (the settled half, each \
             step's fastest): {}",
            heap.name,
            phase_means(&heap.placed, threads, steps, repeats, &solids)?
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
        physics.set_sleeping(false);
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

/// One scene stepped by every engine on 1 and 2 threads, sleeping off, its table rows printed.
fn scene_cases(stage: &Stage, steps: u32, repeats: u32) -> anyhow::Result<Vec<Case>> {
    let no_blocks = BlockStore::new();
    let solids = stage.solids(&no_blocks);
    stage.warm(&solids);
    let defaults = Setup::DEFAULTS.awake();
    let equal = Setup::iterations(ITERATIONS).awake();
    let mut cases: Vec<Case> = Vec::new();
    for repeat in 0..repeats {
        for (slot, threads) in THREADS.into_iter().enumerate() {
            let ours = run_blockfall(stage, &solids, threads, steps, false, false)?;
            let mut others = Vec::new();
            for &engine in Yardstick::ALL {
                others.push(OtherCase {
                    engine,
                    defaults: engine.run(stage, threads, steps, defaults)?,
                    equal: engine.run(stage, threads, steps, equal)?,
                });
            }
            if repeat == 0 {
                cases.push(Case {
                    threads,
                    ours,
                    others,
                });
            } else {
                let case = &mut cases[slot];
                case.ours.keep_fastest(&ours);
                for (kept, other) in case.others.iter_mut().zip(&others) {
                    kept.defaults.keep_fastest(&other.defaults);
                    kept.equal.keep_fastest(&other.equal);
                }
            }
        }
    }
    for case in &cases {
        let mut row = format!(
            "| {} ({} pieces) | {} | {:.2} |",
            stage.name,
            stage.placed.len(),
            case.threads,
            case.ours.median()
        );
        for other in &case.others {
            row.push_str(&format!(
                " {:.2} | {:.2} | {:.2}× |",
                other.defaults.median(),
                other.equal.median(),
                other.equal.median() / case.ours.median()
            ));
        }
        println!("{row}");
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::physics::scene::heap_world;

    /// The state hash of the heap scene after [`HEAP_STEPS`] steps with resting off. A change
    /// to the physics that alters it updates it on purpose, saying why in the commit.
    const HEAP_HASH: u64 = 0x8b7a_be35_ba5c_3557;
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
                physics.set_sleeping(false);
                let (mut touching, mut regions, mut apart) = (0, 0, 0);
                for _ in 0..HEAP_STEPS {
                    physics.step(&solids, &shapes);
                    let counts = physics.last_step_counts();
                    regions = regions.max(counts.regions);
                    apart += counts.between_regions;
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
