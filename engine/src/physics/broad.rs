//! Which bodies may touch each other this step: sort and sweep over bounding spheres.
//!
//! Every body's sphere (its points' sphere, grown by how far it can move in a step and the
//! touching margin) is an interval on the axis along which the bodies spread most. Sorted by
//! where the intervals start, each body only needs comparing with the ones after it whose
//! interval starts before its own ends. The sort key is the start and then the dense index, a
//! total order, so the pairs found and their order depend on the scene alone, however the
//! sweep is cut into runs for the workers. Each contact job sorts its own partners.

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
    /// order for any cut of the sweep into runs (each run's in sweep order).
    pub pairs: Vec<(u32, u32)>,
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
}

impl Sweep {
    /// Fills [`Sweep::pairs`] with every pair of bodies whose spheres overlap and of which at
    /// least one is `awake`. Bodies whose sphere has a non-finite middle are left out. The
    /// sweep runs on `pool`'s threads, a run of entries each, the runs' pairs joined in order.
    pub fn find(&mut self, pool: &WorkerPool, middles: &[[f64; 3]], radii: &[f64], awake: &[bool]) {
        self.pairs.clear();
        let axis = widest_axis(middles);
        self.sort(axis, middles, radii);
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
            run.pairs.clear();
        }
        let entries = &self.entries;
        let sweep = |run: &mut Run| sweep_run(entries, run, middles, radii, awake);
        if runs == 1 {
            sweep(&mut self.runs[0]);
        } else {
            pool.for_each_mut(&mut self.runs, sweep);
        }
        for run in &self.runs {
            self.pairs.extend_from_slice(&run.pairs);
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

/// The pairs whose first entry (in sweep order) lies in `run.entries`: each entry against the
/// ones after it whose interval starts before its own ends.
fn sweep_run(
    entries: &[Entry],
    run: &mut Run,
    middles: &[[f64; 3]],
    radii: &[f64],
    awake: &[bool],
) {
    for at in run.entries.clone() {
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
            if gap[0] * gap[0] + gap[1] * gap[1] + gap[2] * gap[2] <= reach * reach {
                run.pairs
                    .push((one.min(other) as u32, one.max(other) as u32));
            }
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
        sweep.find(&pool, &middles, &radii, &awake);
        let expected = brute(&middles, &radii, &awake);
        assert!(!expected.is_empty());
        assert_eq!(sorted(&sweep.pairs), expected);
        // Again, with the buffers reused.
        sweep.find(&pool, &middles, &radii, &awake);
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
            sweep.find(&pool, &turned, &radii, &awake);
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
            kept.find(&pool, &middles, &radii, &awake);
            let mut fresh = Sweep::default();
            fresh.find(&pool, &middles, &radii, &awake);
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
            sweep.find(&pool, &middles, &radii, &awake);
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
        sweep.find(&pool, &middles, &radii, &[false, false, true]);
        assert!(sweep.pairs.is_empty());
        sweep.find(&pool, &middles, &radii, &[false, true, true]);
        assert_eq!(sweep.pairs, vec![(0, 1)]);
    }
}
