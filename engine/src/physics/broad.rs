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
//! step gives contacts to at most [`PairBudget::pairs`] of them; the surplus is counted
//! ([`Sweep::deferred`]) and never collected.
//!
//! The sweep runs as before, each run counting every pair its entries start and collecting
//! them only up to its share of the budget. Within the budget (every scene the game makes),
//! the runs' pairs are the step's, exactly as without one. Beyond it, the step draws its
//! pairs: a pair's draw is a hash of its two dense indices and the step's seed (a hash of the
//! bodies' places and velocities), and the step keeps the pairs of the lowest draws that fit:
//!
//! ```text
//!   pairs by draw, low to high:  |▮▮▮▮▮▮▮▮▮▮▮▮|▮▮▮▮▮|······························|
//!                                 whole buckets  the   the rest: deferred
//!                                 kept           cut   (counted, not collected)
//!                                                bucket: its first pairs, in sweep
//!                                                order, that fit
//! ```
//!
//! A run that goes past its share tallies its pairs by the bucket of their draw (64 buckets
//! per power of two, so a bucket holds at most a 64th of the pairs below it); those that did
//! not tally the pairs they hold. The tallies give the cut, and a second sweep collects the
//! pairs below it and those of the cut bucket that fit, run after run in sweep order. So every
//! overlapping pair is kept with the same chance, the budget's share of the pairs, whichever
//! bodies it joins: each body is pushed out of a fair share of its overlaps every step, and
//! none waits for a turn while the others move through it. The seed changes as the bodies
//! move, so each step draws another sample; the sample is a function of the state (the same on
//! any number of threads, and in a restored world).

use super::budget::release;
use crate::workers::WorkerPool;

/// A body's sphere as the sweep sees it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    low: f64,
    high: f64,
    body: u32,
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
    /// The runs' tallies of pairs by bucket added up, when the pairs are over the budget.
    drawn: Vec<usize>,
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
    /// Whether `pairs` holds every pair its entries start: a run stops collecting at its
    /// share of the budget (and goes on counting).
    whole: bool,
    /// Per bucket of draws ([`bucket`]), its pairs, when the pairs are over the budget.
    drawn: Vec<usize>,
    /// How many of its pairs in the cut bucket a step over the budget keeps: its first ones
    /// in sweep order.
    cut_share: usize,
}

/// Buckets per power of two of the draws: the cut bucket, whose pairs are kept in sweep order,
/// holds at most a 64th of the pairs below it.
const BUCKET_STEPS: usize = 64;

/// The buckets of the draws, low to high (the highest is `58 · 64 + 63`).
const BUCKETS: usize = 59 * BUCKET_STEPS;

/// A draw for a step: `value` and the step's seed hashed (SplitMix64's finish: every bit of
/// both moves every bit of the draw).
#[inline]
pub(crate) fn draw(value: u64, seed: u64) -> u64 {
    let mut value = seed ^ value;
    value = (value ^ value >> 30).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ value >> 27).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ value >> 31
}

/// The bucket of a pair's draw for a step: the pair of dense indices, the lower first.
#[inline]
fn pair_bucket((one, other): (u32, u32), seed: u64) -> usize {
    usize::from(bucket(draw(u64::from(one) << 32 | u64::from(other), seed)))
}

/// The bucket of a draw: its highest bit and the six bits below it, in the order of the
/// draws (a bucket is a 64th of its power of two).
#[inline]
fn bucket(draw: u64) -> u16 {
    if draw < BUCKET_STEPS as u64 {
        return draw as u16;
    }
    let high = 63 - draw.leading_zeros() as usize;
    let steps = BUCKET_STEPS.trailing_zeros() as usize;
    let below = (draw >> (high - steps)) as usize & (BUCKET_STEPS - 1);
    ((high + 1 - steps) * BUCKET_STEPS + below) as u16
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
        self.sort(axis, spheres.middles, spheres.radii);
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
        // Each run's share of the budget: what it collects while it counts.
        let share = budget.div_ceil(runs);
        let entries = &self.entries;
        let sweep = |run: &mut Run| sweep_run(entries, run, spheres, share, seed);
        if runs == 1 {
            sweep(&mut self.runs[0]);
        } else {
            pool.for_each_mut(&mut self.runs, sweep);
        }
        let found: usize = self.runs.iter().map(|run| run.found).sum();
        if found > budget {
            // Every run collects the sample's pairs.
            let cut = self.cut(budget, seed);
            let entries = &self.entries;
            let collect = |run: &mut Run| collect_sample(entries, run, spheres, seed, cut);
            if runs == 1 {
                collect(&mut self.runs[0]);
            } else {
                pool.for_each_mut(&mut self.runs, collect);
            }
        } else if self.runs.iter().any(|run| !run.whole) {
            // Within the budget: the runs that stopped at their share collect every pair.
            let entries = &self.entries;
            let collect = |run: &mut Run| {
                if !run.whole {
                    run.pairs.clear();
                    for at in run.entries.clone() {
                        pairs_of(entries, at, spheres, |one, other| {
                            run.pairs.push(ordered(one, other));
                            true
                        });
                    }
                }
            };
            if runs == 1 {
                collect(&mut self.runs[0]);
            } else {
                pool.for_each_mut(&mut self.runs, collect);
            }
        }
        for run in &self.runs {
            self.pairs.extend_from_slice(&run.pairs);
        }
        self.deferred = found - self.pairs.len();
    }

    /// The cut bucket of a sweep over `budget` (module header): the runs that held all their
    /// pairs tally them, the tallies are added up, and the lowest buckets that fit are kept
    /// whole; of the next (the cut), each run's share, run after run.
    fn cut(&mut self, budget: usize, seed: u64) -> usize {
        self.drawn.clear();
        self.drawn.resize(BUCKETS, 0);
        for run in &mut self.runs {
            if run.whole {
                tally(&mut run.drawn, &run.pairs, seed);
            }
            for (sum, tally) in self.drawn.iter_mut().zip(&run.drawn) {
                *sum += tally;
            }
        }
        let mut left = budget;
        let mut cut = 0;
        while cut < BUCKETS - 1 && self.drawn[cut] <= left {
            left -= self.drawn[cut];
            cut += 1;
        }
        for run in &mut self.runs {
            run.cut_share = run.drawn[cut].min(left);
            left -= run.cut_share;
        }
        cut
    }

    /// Frees the runs' lists of pairs where they keep much more room than the step used
    /// (what they hold is joined into [`Sweep::pairs`]).
    pub fn trim(&mut self) {
        for run in &mut self.runs {
            release(&mut run.pairs);
        }
    }

    /// Fills [`Sweep::entries`] with every body whose sphere is finite, sorted by where its
    /// interval along `axis` starts and then by dense index: a total order, so one result
    /// whatever the order they start in. The bodies move little in a step, so they start in
    /// last step's order where it names each of them once, and an insertion sort finishes it
    /// in about one pass; a full sort where it cannot, or where the insertion sort would move
    /// too much.
    fn sort(&mut self, axis: usize, middles: &[[f64; 3]], radii: &[f64]) {
        let entry = |body: usize| {
            let (middle, radius) = (middles[body], radii[body]);
            (middle.iter().all(|value| value.is_finite()) && radius.is_finite()).then_some(Entry {
                low: middle[axis] - radius,
                high: middle[axis] + radius,
                body: body as u32,
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

/// `drawn` set to the tally of `pairs` by the bucket of their draw with `seed`.
fn tally(drawn: &mut Vec<usize>, pairs: &[(u32, u32)], seed: u64) {
    drawn.clear();
    drawn.resize(BUCKETS, 0);
    for &pair in pairs {
        drawn[pair_bucket(pair, seed)] += 1;
    }
}

/// The pairs whose first entry (in sweep order) lies in `run.entries`: counted, and
/// collected in order up to the run's `share` of the budget ([`Run::whole`] says whether all
/// were). Past its share, the run tallies its pairs by the bucket of their draw with `seed`,
/// those it holds first.
fn sweep_run(entries: &[Entry], run: &mut Run, spheres: Spheres, share: usize, seed: u64) {
    run.pairs.clear();
    run.found = 0;
    run.whole = true;
    for at in run.entries.clone() {
        pairs_of(entries, at, spheres, |one, other| {
            let pair = ordered(one, other);
            run.found += 1;
            if run.whole {
                if run.found <= share {
                    run.pairs.push(pair);
                    return true;
                }
                // Only counted and tallied from here on.
                run.whole = false;
                tally(&mut run.drawn, &run.pairs, seed);
            }
            run.drawn[pair_bucket(pair, seed)] += 1;
            true
        });
    }
}

/// The sample's pairs (those drawn below the `cut` bucket with `seed`, and the run's share of
/// those in it) whose first entry lies in `run.entries`, into `run.pairs` in sweep order.
fn collect_sample(entries: &[Entry], run: &mut Run, spheres: Spheres, seed: u64, cut: usize) {
    run.pairs.clear();
    let mut cut_share = run.cut_share;
    for at in run.entries.clone() {
        pairs_of(entries, at, spheres, |one, other| {
            let pair = ordered(one, other);
            let drawn = pair_bucket(pair, seed);
            if drawn < cut {
                run.pairs.push(pair);
            } else if drawn == cut && cut_share > 0 {
                cut_share -= 1;
                run.pairs.push(pair);
            }
            true
        });
    }
}

/// Each pair the entry at `at` of `entries` starts, in sweep order: the entry against the ones
/// after it whose interval starts before its own ends, whose sphere overlaps its own, and of
/// which one is awake, given to `visit` as dense indices (this entry's body first) until it
/// says stop.
#[inline]
fn pairs_of(
    entries: &[Entry],
    at: usize,
    spheres: Spheres,
    mut visit: impl FnMut(usize, usize) -> bool,
) {
    let Spheres {
        middles,
        radii,
        awake,
    } = spheres;
    let first = &entries[at];
    let one = first.body as usize;
    for second in &entries[at + 1..] {
        if second.low > first.high {
            break;
        }
        let other = second.body as usize;
        if !(awake[one] || awake[other]) {
            continue;
        }
        let a = middles[one];
        let b = middles[other];
        let gap = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        let reach = radii[one] + radii[other];
        if gap[0] * gap[0] + gap[1] * gap[1] + gap[2] * gap[2] <= reach * reach
            && !visit(one, other)
        {
            return;
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
    use crate::physics::testing::uniform;

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
    fn two_resting_bodies_are_no_pair_and_nan_is_left_out() {
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
