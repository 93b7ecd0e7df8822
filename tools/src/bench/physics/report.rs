//! The plain physics benchmark's report, as Markdown for BENCHMARKS.md: the scenes and engines,
//! one table of every engine's runs of every scene, the speed-ups, and the anchors line that
//! closes the report.

use blockfall_physics::ITERATIONS;

use super::compare::Comparison;
use super::stage::Stage;
use super::steps::{Run, FALL_STEPS, MOVING_SPEED, MOVING_SPIN};
use super::yardstick::Yardstick;
use super::{FRICTION, RESTITUTION};
use crate::bench::shared::threads_word;

/// Prints what the scenes are, how each engine is set up, and the table's head.
pub(super) fn print_scenes(stages: &[Stage], steps: u32, repeats: u32, strength: bool) {
    for stage in stages {
        let blocks: usize = stage
            .placed
            .iter()
            .map(|place| place.piece.block_count())
            .sum();
        println!(
            "- **{}**: {} pieces, {blocks} blocks: {}. Ground {:.1} to {:.1} m; the other \
             engines' terrain one mesh of {} triangles (the CPU surface nets of {} chunks, {:.0} \
             ms).",
            stage.name,
            stage.placed.len(),
            stage.about,
            stage.area.lowest_ground,
            stage.area.highest_ground,
            stage.terrain.triangles.len(),
            stage.terrain.chunks,
            stage.mesh_ms,
        );
    }
    println!();
    let judged = if strength {
        "strength judged inside its steps as the game's pieces judge it; `--no-strength` leaves \
         it out"
    } else {
        "strength not judged (`--no-strength`)"
    };
    println!(
        "Engines: blockfall at its defaults ({ITERATIONS} iterations, resting on, the pieces' \
         exact box-union distance against the world's field, {judged})."
    );
    for &engine in Yardstick::ALL {
        println!(
            "{} at its defaults ({}, sleeping on) and at blockfall's {ITERATIONS} iterations \
             (sleeping on){}.",
            engine.release(),
            engine.default_iterations(),
            engine_notes(engine)
        );
    }
    println!(
        "Every piece a compound of 0.5 m half-extent boxes in the other engines, with \
         blockfall's mass, middle and inertia (Jolt's from the boxes' density, rapier3d's given: \
         its own turn equal principal moments wrongly). All: dt 1/120 s, friction \
         {FRICTION}, restitution {RESTITUTION}, {steps} steps; each run {repeats} times, the \
         engines taking turns, each step's fastest time kept; ms per step the mean. At the end: \
         awake, the pieces the engine still steps (not resting or asleep); moving, faster than \
         {MOVING_SPEED} m/s or {MOVING_SPIN} rad/s; in the ground, the middle inside the ground; \
         highest, the highest middle."
    );
    println!();
    println!(
        "| scene | engine | threads | ms per step | first {FALL_STEPS} steps | the rest | awake | \
         moving | in the ground | highest (m) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
}

/// What an engine's description adds to its name.
fn engine_notes(engine: Yardstick) -> &'static str {
    match engine {
        Yardstick::Rapier => "; `parallel`, on a rayon pool of the same thread count",
        #[cfg(feature = "jolt")]
        Yardstick::Jolt => {
            "; boxes at Jolt's 0.05 m convex radius, damping set to 0 (Jolt's default 0.05), \
             position steps left at 2, a job pool of threads − 1 workers and the calling thread"
        }
    }
}

/// Prints one table row.
fn print_row(stage: &Stage, engine: &str, threads: usize, run: &Run) {
    println!(
        "| {} | {engine} | {threads} | {:.2} | {:.2} | {:.2} | {} | {} | {} | {:.1} |",
        stage.name,
        run.all(),
        run.falling(),
        run.after(),
        run.awake,
        run.moving,
        run.in_ground,
        run.highest
    );
}

/// Prints the rows of one scene: each thread count, blockfall then each other engine at its
/// defaults and at blockfall's iterations.
pub(super) fn print_rows(stage: &Stage, comparisons: &[Comparison]) {
    for comparison in comparisons {
        let threads = comparison.threads;
        print_row(stage, "blockfall", threads, &comparison.blockfall);
        for other in &comparison.others {
            let name = other.engine.name();
            print_row(
                stage,
                &format!("{name}, defaults"),
                threads,
                &other.defaults,
            );
            print_row(
                stage,
                &format!("{name}, {ITERATIONS} iterations"),
                threads,
                &other.equal,
            );
        }
    }
}

/// Prints a scene's speed-ups: the faster other engine at its defaults over blockfall on each
/// thread count, and what 2 threads gain each engine.
pub(super) fn print_speed_ups(stage: &Stage, comparisons: &[Comparison], breaks: Option<usize>) {
    let ratios: Vec<String> = comparisons
        .iter()
        .filter_map(|comparison| {
            let (engine, ratio) = comparison.fastest_other()?;
            Some(format!(
                "{} {}: {ratio:.2}× ({})",
                comparison.threads,
                threads_word(comparison.threads),
                engine.name()
            ))
        })
        .collect();
    let mut line = format!(
        "- {}: the faster other engine's time per step over blockfall's, {}",
        stage.name,
        ratios.join(", ")
    );
    if let [one, two] = comparisons {
        let mut gains = vec![format!(
            "blockfall {:.2}×",
            one.blockfall.all() / two.blockfall.all()
        )];
        for (first, second) in one.others.iter().zip(&two.others) {
            gains.push(format!(
                "{} {:.2}×",
                first.engine.name(),
                first.defaults.all() / second.defaults.all()
            ));
        }
        line.push_str(&format!("; 1 → 2 threads: {}", gains.join(", ")));
    }
    if let Some(breaks) = breaks {
        line.push_str(&format!(
            "; {breaks} piece-steps over a joint's strength in blockfall's (judged, not split)"
        ));
    }
    println!("{line}");
}

/// The closing line: for each scene, on 1 and 2 threads, the faster other engine's time per
/// step (at its defaults) over blockfall's.
pub(super) fn anchors_line(scenes: &[(&str, Vec<Comparison>)]) -> String {
    let parts: Vec<String> = scenes
        .iter()
        .map(|(name, comparisons)| {
            let figures: Vec<String> = comparisons
                .iter()
                .map(|comparison| {
                    let ratio = comparison
                        .fastest_other()
                        .map_or(f64::NAN, |(_, ratio)| ratio);
                    format!("{}t {ratio:.2}×", comparison.threads)
                })
                .collect();
            format!("{name} {}", figures.join(", "))
        })
        .collect();
    format!("anchors: {}", parts.join("; "))
}
