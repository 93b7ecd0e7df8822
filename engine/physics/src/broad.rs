//! Which bodies may touch each other this step: sort and sweep over bounding spheres.
//!
//! Every body's sphere (its points' sphere, grown by how far it can move in a step and the
//! touching margin) is an interval on the axis along which the bodies spread most. Sorted by
//! where the intervals start, each body only needs comparing with the ones after it whose
//! interval starts before its own ends. The sort key is the start and then the dense index, a
//! total order, so the pairs found and their order depend on the scene alone, however the
//! sweep is cut into runs for the workers. Each contact job sorts its own partners.
//!
//! # The pair budget
//!
//! Bodies heaped into one place overlap all at once: `n` bodies make `n (n − 1) / 2` pairs. A
//! step gives contacts to at most [`PairBudget::pairs`](super::PairBudget::pairs) of them
//! (`budget`); the surplus is counted ([`Sweep::deferred`]) and never collected.
//!
//! The sweep runs as before, each run counting every pair its entries start and collecting
//! them up to its share of the budget. Within the budget (every scene the game makes), the
//! runs' pairs are the step's, exactly as without one. Beyond it, the step draws its pairs:
//! each pair's draw is a hash of its two bodies' keys for the step (a hash of each body's dense
//! index and the step's seed, itself a hash of the bodies' places and velocities), and the step
//! keeps the budget's worth of the lowest draws:
//!
//! ```text
//!   a run past its share:   ▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮ ...   every pair counted;
//!   its lowest draws kept:  ▮·▮▮··▮···▮··▮···▮·····▮·········▮ ...   a heap of at most the
//!                                                                     budget's worth
//!   the step's pairs:       the budget's worth of the lowest draws of all the runs'
//! ```
//!
//! A run past its share keeps, while it goes on counting, the lowest draws it has seen in a
//! heap of at most the budget's worth (a run cannot know how many of the step's lowest are
//! its own); the step keeps the lowest of all the runs' and sorts them. So the sweep stays one
//! pass, holds at most the budget's worth of pairs per run, and every overlapping pair is kept
//! with the same chance, the budget's share of the pairs, whichever bodies it joins: each body
//! is pushed out of a fair share of its overlaps every step, and none waits for its turn while
//! the others move through it. The seed changes as the bodies move, so each step draws another
//! sample; the sample is a function of the state (the same on any number of threads, and in a
//! restored world).

use super::budget::release;
use crate::workers::WorkerPool;

/// A body's sphere as the sweep sees it: its interval along the sweep's axis, and what the
/// test of a pair reads, kept beside it so that the sweep reads the entries in order instead
/// of each body's arrays by index.
#[derive(Debug, Clone, Copy)]
struct Entry {
    low: f64,
    high: f64,
    body: u32,
    awake: bool,
    middle: [f64; 3],
    radius: f64,
    /// The body's key for this step's draws ([`pair_draw`]).
    key: u64,
}

/// Finds the pairs of overlapping spheres, reusing its buffers from step to step.
#[derive(Debug, Default)]
pub(crate) struct Sweep {
    entries: Vec<Entry>,
    /// The sweep cut into runs of entries, each with the pairs it found.
    runs: Vec<Run>,
    /// `(lower dense index, higher dense index)`, run after run: the same pairs in the same
    /// order for any cut of the sweep into runs (each run's in sweep order). At most the
    /// budget's.
    pub pairs: Vec<(u32, u32)>,
    /// How many pairs the last sweep found beyond the budget: not in [`Sweep::pairs`], left
    /// for later steps.
    pub deferred: usize,
    /// Per dense index, the body's key for this step's draws ([`pair_draw`]).
    keys: Vec<u64>,
    /// The runs' candidates, when the pairs are over the budget: their draws and pairs.
    drawn: Vec<(u64, (u32, u32))>,
    /// The bodies in the order of the last sweep, and its axis: the next sort starts from
    /// there ([`Sweep::sort`]).
    order: Vec<u32>,
    order_axis: usize,
    /// Which bodies the last order names, to check that it names each body once.
    named: Vec<bool>,
}

/// How many places an insertion sort may move entries, per entry, before it gives way to a
/// full sort: bodies moved far between steps (or a new axis) make last step's order no help.
const MOST_SHIFTS_PER_ENTRY: usize = 8;

/// Runs per thread: the entries at the crowded middle of a heap find more pairs than those
/// at its edges, so a thread that finishes early takes another run.
const RUNS_PER_THREAD: usize = 4;

/// Fewer entries than this are swept on the calling thread alone: handing out the runs would
/// cost more than it saves.
const PARALLEL_FROM: usize = 256;

/// Some consecutive entries of the sorted sweep, and the pairs that start at them.
#[derive(Debug, Default)]
struct Run {
    entries: std::ops::Range<usize>,
    pairs: Vec<(u32, u32)>,
    /// How many pairs its entries start.
    found: usize,
    /// Whether `pairs` holds every pair its entries start: past its share of the budget, a
    /// run keeps the lowest draws in `lowest` instead (and goes on counting).
    whole: bool,
    /// Past its share, the lowest draws it has seen with their pairs, at most the budget's
    /// worth: a heap, the highest on top.
    lowest: std::collections::BinaryHeap<(u64, (u32, u32))>,
}

/// A draw for a step: `value` and the step's seed hashed (SplitMix64's finish: every bit of
/// both moves every bit of the draw).
#[inline]
pub(crate) fn draw(value: u64, seed: u64) -> u64 {
    let mut value = seed ^ value;
    value = (value ^ value >> 30).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ value >> 27).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ value >> 31
}

/// A pair's draw for a step (the pair of dense indices, the lower first): its bodies' `keys`
/// for the step (each a [`draw`] of its dense index), [`joined`].
#[inline]
fn pair_draw((one, other): (u32, u32), keys: &[u64]) -> u64 {
    joined(keys[one as usize], keys[other as usize])
}

/// The draw of a pair whose bodies have the keys `lower` (the lower dense index's) and
/// `higher`: the keys joined and multiplied, every bit of both moving the draw's high bits.
#[inline]
fn joined(lower: u64, higher: u64) -> u64 {
    (lower ^ higher.rotate_left(32)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The pair of dense indices `one` and `other`, the lower first.
#[inline]
fn ordered(one: usize, other: usize) -> (u32, u32) {
    (one.min(other) as u32, one.max(other) as u32)
}

/// What the sweep knows of the bodies, by dense index: their grown spheres' middles and radii,
/// and whether each is awake.
#[derive(Clone, Copy)]
pub(crate) struct Spheres<'a> {
    pub middles: &'a [[f64; 3]],
    pub radii: &'a [f64],
    pub awake: &'a [bool],
}

impl Sweep {
    /// Fills [`Sweep::pairs`] with every pair of bodies whose spheres overlap and of which at
    /// least one is awake, at most `budget` of them (module header): beyond it, a sample drawn
    /// with `seed`, and the rest counted in [`Sweep::deferred`]. Bodies whose sphere has a
    /// non-finite middle are left out. The sweep runs on `pool`'s threads, a run of entries
    /// each, the runs' pairs joined in order.
    pub fn find(&mut self, pool: &WorkerPool, spheres: Spheres, budget: usize, seed: u64) {
        self.pairs.clear();
        self.deferred = 0;
        let axis = widest_axis(spheres.middles);
        self.sort(axis, spheres);
        let count = self.entries.len();
        let runs = if count < PARALLEL_FROM {
            1
        } else {
            pool.threads() * RUNS_PER_THREAD
        };
        let length = count.div_ceil(runs).max(1);
        self.runs.resize_with(runs, Run::default);
        for (index, run) in self.runs.iter_mut().enumerate() {
            let start = (index * length).min(count);
            run.entries = start..(start + length).min(count);
        }
        self.keys.clear();
        self.keys
            .extend((0..spheres.middles.len() as u64).map(|body| draw(body, seed)));
        for entry in &mut self.entries {
            entry.key = self.keys[entry.body as usize];
        }
        // Each run's share of the budget: what it collects before it keeps only the lowest
        // draws.
        let share = budget.div_ceil(runs);
        let (entries, keys) = (&self.entries, &self.keys);
        let sweep = |run: &mut Run| sweep_run(entries, run, (share, budget), keys);
        if runs == 1 {
            sweep(&mut self.runs[0]);
        } else {
            pool.for_each_mut(&mut self.runs, sweep);
        }
        let found: usize = self.runs.iter().map(|run| run.found).sum();
        if self.runs.iter().all(|run| run.whole) && found <= budget {
            for run in &self.runs {
                self.pairs.extend_from_slice(&run.pairs);
            }
        } else {
            // The lowest draws of all the runs' (a run's whole list, or the lowest it kept):
            // the budget's worth, in the order of the pairs.
            self.drawn.clear();
            for run in &mut self.runs {
                if run.whole {
                    let keys = &self.keys;
                    self.drawn
                        .extend(run.pairs.iter().map(|&pair| (pair_draw(pair, keys), pair)));
                } else {
                    self.drawn.extend(run.lowest.drain());
                }
            }
            if self.drawn.len() > budget {
                self.drawn.select_nth_unstable(budget);
                self.drawn.truncate(budget);
            }
            self.pairs.extend(self.drawn.iter().map(|&(_, pair)| pair));
            self.pairs.sort_unstable();
        }
        self.deferred = found - self.pairs.len();
    }

    /// Frees the runs' lists of pairs where they keep much more room than the step used
    /// (what they hold is joined into [`Sweep::pairs`]).
    pub fn trim(&mut self) {
        for run in &mut self.runs {
            release(&mut run.pairs);
            if run.lowest.capacity() > 2 * run.lowest.len() + 64 {
                run.lowest = Default::default();
            }
        }
        release(&mut self.drawn);
    }

    /// Fills [`Sweep::entries`] with every body whose sphere is finite, sorted by where its
    /// interval along `axis` starts and then by dense index: a total order, so one result
    /// whatever the order they start in. The bodies move little in a step, so they start in
    /// last step's order where it names each of them once, and an insertion sort finishes it
    /// in about one pass; a full sort where it cannot, or where the insertion sort would move
    /// too much.
    fn sort(&mut self, axis: usize, spheres: Spheres) {
        let middles = spheres.middles;
        let entry = |body: usize| {
            let (middle, radius) = (middles[body], spheres.radii[body]);
            (middle.iter().all(|value| value.is_finite()) && radius.is_finite()).then_some(Entry {
                low: middle[axis] - radius,
                high: middle[axis] + radius,
                body: body as u32,
                awake: spheres.awake[body],
                middle,
                radius,
                key: 0,
            })
        };
        let before = |a: &Entry, b: &Entry| a.low.total_cmp(&b.low).then(a.body.cmp(&b.body));
        self.entries.clear();
        self.named.clear();
        self.named.resize(middles.len(), false);
        let mut reused = axis == self.order_axis;
        if reused {
            for &body in &self.order {
                let body = body as usize;
                let found = (body < middles.len()).then(|| entry(body)).flatten();
                match (self.named.get(body), found) {
                    (Some(false), Some(found)) => {
                        self.named[body] = true;
                        self.entries.push(found);
                    }
                    _ => {
                        reused = false;
                        break;
                    }
                }
            }
        }
        // Every body to sweep named once: none left out.
        reused = reused && (0..middles.len()).all(|body| self.named[body] || entry(body).is_none());
        let sorted = reused && {
            let budget = self.entries.len() * MOST_SHIFTS_PER_ENTRY;
            insertion_sort(&mut self.entries, budget, before)
        };
        if !reused {
            self.entries.clear();
            self.entries.extend((0..middles.len()).filter_map(entry));
        }
        if !sorted {
            self.entries.sort_unstable_by(before);
        }
        self.order.clear();
        self.order
            .extend(self.entries.iter().map(|entry| entry.body));
        self.order_axis = axis;
    }
}

/// Sorts `items` by `before` by insertion, unless that would move entries more than `budget`
/// places in all: then it stops, leaving them in some order, and says so.
pub(super) fn insertion_sort<T: Copy>(
    items: &mut [T],
    budget: usize,
    before: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> bool {
    let mut shifts = 0;
    for at in 1..items.len() {
        let item = items[at];
        let mut to = at;
        while to > 0 && before(&item, &items[to - 1]).is_lt() {
            items[to] = items[to - 1];
            to -= 1;
        }
        items[to] = item;
        shifts += at - to;
        if shifts > budget {
            return false;
        }
    }
    true
}

/// The pairs whose first entry (in sweep order) lies in `run.entries`: counted, and
/// collected in order up to the run's `share` of the budget ([`Run::whole`] says whether all
/// were). Past its share, the run keeps the `budget`'s worth of the lowest draws it sees with
/// the bodies' `keys` (those it holds first).
fn sweep_run(entries: &[Entry], run: &mut Run, (share, budget): (usize, usize), keys: &[u64]) {
    run.pairs.clear();
    run.lowest.clear();
    run.found = 0;
    run.whole = true;
    for at in run.entries.clone() {
        pairs_of(entries, at, |first, second| {
            let pair = ordered(first.body as usize, second.body as usize);
            run.found += 1;
            if run.whole {
                if run.found <= share {
                    run.pairs.push(pair);
                    return;
                }
                run.whole = false;
                for &held in &run.pairs {
                    keep_lowest(&mut run.lowest, (pair_draw(held, keys), held), budget);
                }
            }
            let (lower, higher) = if first.body < second.body {
                (first.key, second.key)
            } else {
                (second.key, first.key)
            };
            keep_lowest(&mut run.lowest, (joined(lower, higher), pair), budget);
        });
    }
}

/// Adds `drawn` to `lowest`, a heap of at most `most` draws with their pairs, if it is lower
/// than the highest there (which then goes).
#[inline]
fn keep_lowest(
    lowest: &mut std::collections::BinaryHeap<(u64, (u32, u32))>,
    drawn: (u64, (u32, u32)),
    most: usize,
) {
    if lowest.len() < most {
        lowest.push(drawn);
    } else if let Some(mut highest) = lowest.peek_mut() {
        if drawn < *highest {
            *highest = drawn;
        }
    }
}

/// Each pair the entry at `at` of `entries` starts, in sweep order: the entry against the ones
/// after it whose interval starts before its own ends, whose sphere overlaps its own, and of
/// which one is awake, given to `visit` (this entry first).
#[inline]
fn pairs_of(entries: &[Entry], at: usize, mut visit: impl FnMut(&Entry, &Entry)) {
    let first = &entries[at];
    for second in &entries[at + 1..] {
        if second.low > first.high {
            break;
        }
        if !(first.awake || second.awake) {
            continue;
        }
        let (a, b) = (first.middle, second.middle);
        let gap = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        let reach = first.radius + second.radius;
        if gap[0] * gap[0] + gap[1] * gap[1] + gap[2] * gap[2] <= reach * reach {
            visit(first, second);
        }
    }
}

/// The axis along which the middles spread most (by variance; x on a tie or with nothing
/// finite): sweeping along it, the fewest intervals overlap. A heap in a pit is wider than it
/// is tall, a tower taller than it is wide. Which axis is swept changes the work and the
/// pairs' order, not which pairs are found.
fn widest_axis(middles: &[[f64; 3]]) -> usize {
    let mut count = 0.0;
    let mut sum = [0.0; 3];
    let mut squares = [0.0; 3];
    for middle in middles.iter().filter(|m| m.iter().all(|v| v.is_finite())) {
        count += 1.0;
        for axis in 0..3 {
            sum[axis] += middle[axis];
            squares[axis] += middle[axis] * middle[axis];
        }
    }
    if count == 0.0 {
        return 0;
    }
    let spread = |axis: usize| squares[axis] / count - (sum[axis] / count).powi(2);
    let mut widest = 0;
    for axis in 1..3 {
        if spread(axis) > spread(widest) {
            widest = axis;
        }
    }
    widest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::uniform;

    /// Every pair, with no budget (a point each).
    fn find_all(
        sweep: &mut Sweep,
        pool: &WorkerPool,
        middles: &[[f64; 3]],
        radii: &[f64],
        awake: &[bool],
    ) {
        let spheres = Spheres {
            middles,
            radii,
            awake,
        };
        sweep.find(pool, spheres, usize::MAX, 0);
        assert_eq!(sweep.deferred, 0);
    }

    fn sorted(pairs: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut pairs = pairs.to_vec();
        pairs.sort_unstable();
        pairs
    }

    /// Every overlapping pair with an awake body, by brute force.
    fn brute(middles: &[[f64; 3]], radii: &[f64], awake: &[bool]) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for a in 0..middles.len() {
            for b in a + 1..middles.len() {
                let gap: f64 = (0..3)
                    .map(|k| (middles[a][k] - middles[b][k]).powi(2))
                    .sum();
                if (awake[a] || awake[b]) && gap <= (radii[a] + radii[b]).powi(2) {
                    pairs.push((a as u32, b as u32));
                }
            }
        }
        pairs
    }

    #[test]
    fn the_sweep_finds_what_brute_force_finds() {
        // A pseudo-random cloud, repeatable.
        let mut next = uniform(12345u64);
        let count = 200;
        let middles: Vec<[f64; 3]> = (0..count)
            .map(|_| [next() * 40.0, next() * 10.0, next() * 40.0])
            .collect();
        let radii: Vec<f64> = (0..count).map(|_| 0.5 + next() * 2.0).collect();
        let awake: Vec<bool> = (0..count).map(|_| next() < 0.7).collect();
        let mut sweep = Sweep::default();
        let pool = WorkerPool::new(1).unwrap();
        find_all(&mut sweep, &pool, &middles, &radii, &awake);
        let expected = brute(&middles, &radii, &awake);
        assert!(!expected.is_empty());
        assert_eq!(sorted(&sweep.pairs), expected);
        // Again, with the buffers reused.
        find_all(&mut sweep, &pool, &middles, &radii, &awake);
        assert_eq!(sorted(&sweep.pairs), expected);
        // Spread along each axis in turn (a tower, a wall): swept along that axis, the same
        // pairs as brute force.
        for (axis, widest) in [(0, 0), (1, 1), (2, 2)] {
            let turned: Vec<[f64; 3]> = middles
                .iter()
                .map(|m| {
                    let mut t = [m[1], m[1] + 1.0, m[1] - 1.0];
                    t[axis] = m[0] * 3.0;
                    t
                })
                .collect();
            assert_eq!(widest_axis(&turned), widest);
            find_all(&mut sweep, &pool, &turned, &radii, &awake);
            assert_eq!(
                sorted(&sweep.pairs),
                brute(&turned, &radii, &awake),
                "axis {axis}"
            );
            assert!(!sweep.pairs.is_empty());
        }
    }

    /// A sweep kept from step to step starts from its last order; a fresh one sorts from
    /// scratch. Through small moves, big ones, bodies gone, added and not finite, and a new
    /// axis, the two give the same entries and the same pairs in the same order.
    #[test]
    fn a_sweep_starting_from_last_steps_order_sorts_as_a_fresh_one() {
        let mut next = uniform(0x5eed_f0dd);
        let pool = WorkerPool::new(2).unwrap();
        let mut count = 300;
        let mut middles: Vec<[f64; 3]> = (0..count)
            .map(|_| [next() * 60.0, next() * 5.0, next() * 20.0])
            .collect();
        let mut radii: Vec<f64> = (0..count).map(|_| 0.3 + next()).collect();
        let mut kept = Sweep::default();
        let (mut reused, mut shifted) = (0, 0);
        for step in 0..60 {
            match step % 10 {
                // Everything far away: last step's order is no help.
                3 => middles.iter_mut().for_each(|m| m[0] = next() * 60.0),
                // Bodies gone and others come.
                5 => {
                    count -= 7;
                    middles.truncate(count);
                    radii.truncate(count);
                }
                6 => {
                    for _ in 0..11 {
                        middles.push([next() * 60.0, next() * 5.0, next() * 20.0]);
                        radii.push(0.3 + next());
                    }
                    count += 11;
                }
                // One not finite, then finite again.
                7 => middles[4][1] = f64::NAN,
                8 => middles[4][1] = 1.0,
                // The heap turned on its side: another axis, and back.
                9 => middles.iter_mut().for_each(|m| m.swap(0, 2)),
                _ => {
                    for m in &mut middles {
                        m[0] += (next() - 0.5) * 0.3;
                        m[2] += (next() - 0.5) * 0.3;
                    }
                }
            }
            let awake: Vec<bool> = (0..count).map(|body| body % 3 != 0).collect();
            let had = kept.order.clone();
            find_all(&mut kept, &pool, &middles, &radii, &awake);
            let mut fresh = Sweep::default();
            find_all(&mut fresh, &pool, &middles, &radii, &awake);
            let bodies = |sweep: &Sweep| sweep.entries.iter().map(|e| e.body).collect::<Vec<_>>();
            assert_eq!(bodies(&kept), bodies(&fresh), "step {step}");
            assert_eq!(kept.pairs, fresh.pairs, "step {step}");
            if had.len() == kept.order.len() {
                reused += 1;
                shifted += usize::from(had != kept.order);
            }
        }
        // The kept order was in play, and moved.
        assert!(
            reused > 30 && shifted > 20,
            "{reused} reused, {shifted} changed"
        );
    }

    #[test]
    fn a_sweep_cut_into_runs_on_several_threads_finds_what_brute_force_finds() {
        let mut next = uniform(99u64);
        let count = 3 * PARALLEL_FROM;
        let middles: Vec<[f64; 3]> = (0..count)
            .map(|_| [next() * 30.0, next() * 8.0, next() * 30.0])
            .collect();
        let radii: Vec<f64> = (0..count).map(|_| 0.3 + next() * 2.5).collect();
        let awake: Vec<bool> = (0..count).map(|_| next() < 0.8).collect();
        let expected = brute(&middles, &radii, &awake);
        assert!(expected.len() > count);
        let mut first: Option<Vec<(u32, u32)>> = None;
        for threads in [1, 2, 3, 8] {
            let pool = WorkerPool::new(threads).unwrap();
            let mut sweep = Sweep::default();
            find_all(&mut sweep, &pool, &middles, &radii, &awake);
            assert_eq!(sorted(&sweep.pairs), expected, "{threads} threads");
            // Not only the same pairs: the same order, however many runs.
            let first = first.get_or_insert_with(|| sweep.pairs.clone());
            assert_eq!(&sweep.pairs, first, "{threads} threads");
        }
    }

    #[test]
    fn a_sweep_beyond_its_budget_keeps_a_sample_the_same_on_any_number_of_threads() {
        // 768 bodies crowded together: some 66,000 overlapping pairs.
        let mut next = uniform(2024);
        let count = 3 * PARALLEL_FROM;
        let middles: Vec<[f64; 3]> = (0..count)
            .map(|_| [next() * 6.0, next() * 2.0, next() * 6.0])
            .collect();
        let radii: Vec<f64> = (0..count).map(|_| 0.5 + next()).collect();
        let awake: Vec<bool> = (0..count).map(|_| next() < 0.8).collect();
        let spheres = Spheres {
            middles: &middles,
            radii: &radii,
            awake: &awake,
        };
        let all = brute(&middles, &radii, &awake);
        assert!(all.len() > 50_000, "{} pairs", all.len());
        let mut kept_times = vec![0u32; all.len()];
        let budget = all.len() / 10;
        for seed in 0..200u64 {
            let mut first: Option<Vec<(u32, u32)>> = None;
            let threads: &[usize] = if seed < 10 { &[1, 2, 3, 8] } else { &[1] };
            for &threads in threads {
                let pool = WorkerPool::new(threads).unwrap();
                let mut sweep = Sweep::default();
                sweep.find(&pool, spheres, budget, seed);
                assert_eq!(sweep.pairs.len(), budget, "the budget's worth");
                assert_eq!(sweep.deferred, all.len() - budget, "the rest counted");
                let first = first.get_or_insert_with(|| sweep.pairs.clone());
                assert_eq!(&sweep.pairs, first, "seed {seed}, {threads} threads");
                if threads > 1 {
                    continue;
                }
                for pair in sorted(&sweep.pairs) {
                    let at = all.binary_search(&pair).expect("an overlapping pair");
                    kept_times[at] += 1;
                }
            }
        }
        // Every pair had its turns: each about a tenth of the steps (20 of 200).
        let fewest = *kept_times.iter().min().unwrap();
        let most = *kept_times.iter().max().unwrap();
        assert!(fewest >= 2 && most <= 50, "kept {fewest} to {most} times");
        // Within the budget, or just at it, every pair, as without one.
        let pool = WorkerPool::new(2).unwrap();
        let mut sweep = Sweep::default();
        sweep.find(&pool, spheres, all.len(), 7);
        assert_eq!((sorted(&sweep.pairs), sweep.deferred), (all.clone(), 0));
        sweep.find(&pool, spheres, all.len() - 1, 7);
        assert_eq!((sweep.pairs.len(), sweep.deferred), (all.len() - 1, 1));
    }

    #[test]
    fn two_sleeping_bodies_are_no_pair_and_nan_is_left_out() {
        let middles = [[0.0; 3], [0.5, 0.0, 0.0], [f64::NAN, 0.0, 0.0]];
        let radii = [1.0, 1.0, 1.0];
        let mut sweep = Sweep::default();
        let pool = WorkerPool::new(1).unwrap();
        find_all(&mut sweep, &pool, &middles, &radii, &[false, false, true]);
        assert!(sweep.pairs.is_empty());
        find_all(&mut sweep, &pool, &middles, &radii, &[false, true, true]);
        assert_eq!(sweep.pairs, vec![(0, 1)]);
    }
}
