//! The plain benchmark's runs of one scene: blockfall and every other engine this build has,
//! each at its defaults and (the others) at blockfall's [`ITERATIONS`] too, on 1 and 2 threads,
//! the engines taking turns, each step's fastest time of the repeats kept.

use blockfall_game::blocks::BlockStore;
use blockfall_physics::ITERATIONS;

use super::blockfall_runner::run_blockfall;
use super::stage::Stage;
use super::steps::Run;
use super::yardstick::{Setup, Yardstick};

/// The thread counts every scene is stepped on.
pub(super) const THREADS: [usize; 2] = [1, 2];

/// One other engine's runs of a scene on one thread count.
pub(super) struct Other {
    /// Which engine.
    pub(super) engine: Yardstick,
    /// At its defaults (sleeping on, its own iteration count).
    pub(super) defaults: Run,
    /// Sleeping on, at blockfall's [`ITERATIONS`].
    pub(super) equal: Run,
}

/// Every engine's runs of a scene on one thread count.
pub(super) struct Comparison {
    /// The thread count every engine had.
    pub(super) threads: usize,
    /// blockfall at its defaults: resting on, its [`ITERATIONS`], strength judged when asked.
    pub(super) blockfall: Run,
    /// Every other engine this build has, in [`Yardstick::ALL`]'s order.
    pub(super) others: Vec<Other>,
}

impl Comparison {
    /// The other engine at its defaults that took the least time per step, and that time
    /// over blockfall's: below 1, blockfall is the slower.
    pub(super) fn fastest_other(&self) -> Option<(Yardstick, f64)> {
        self.others
            .iter()
            .map(|other| (other.engine, other.defaults.all() / self.blockfall.all()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// Steps `stage` `steps` times with every engine on 1 and 2 threads, `repeats` times, the
/// engines taking turns; blockfall judges strength inside its steps when `strength`.
pub(super) fn compare_stage(
    stage: &Stage,
    steps: u32,
    repeats: u32,
    strength: bool,
) -> anyhow::Result<Vec<Comparison>> {
    let no_blocks = BlockStore::new();
    let solids = stage.solids(&no_blocks);
    stage.warm(&solids);
    let mut comparisons: Vec<Comparison> = Vec::new();
    for repeat in 0..repeats {
        for (slot, threads) in THREADS.into_iter().enumerate() {
            let blockfall = run_blockfall(stage, &solids, threads, steps, true, strength)?;
            let mut others = Vec::new();
            for &engine in Yardstick::ALL {
                others.push(Other {
                    engine,
                    defaults: engine.run(stage, threads, steps, Setup::DEFAULTS)?,
                    equal: engine.run(stage, threads, steps, Setup::iterations(ITERATIONS))?,
                });
            }
            if repeat == 0 {
                comparisons.push(Comparison {
                    threads,
                    blockfall,
                    others,
                });
            } else {
                let kept = &mut comparisons[slot];
                kept.blockfall.keep_fastest(&blockfall);
                for (kept, other) in kept.others.iter_mut().zip(&others) {
                    kept.defaults.keep_fastest(&other.defaults);
                    kept.equal.keep_fastest(&other.equal);
                }
            }
        }
    }
    Ok(comparisons)
}
