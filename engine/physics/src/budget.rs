//! The pair budget: how much of a heap of overlapping bodies one step takes on (docs/physics.md,
//! "The pair budget").
//!
//! Bodies heaped into one place overlap all at once, and what a step allocates grows with
//! their pairs and the pairs' contacts: `n` bodies give `n (n − 1) / 2` pairs, and a pair of
//! bodies sunk into each other gives a contact at nearly every point of either (each with its
//! rows, its kept push, its place in a kept manifold). So a step takes on at most a budget of
//! each, and leaves the rest for later steps, counted ([`super::StepCounts::deferred_pairs`]):
//!
//! - **Pairs** ([`PairBudget::pairs`]): the broad phase keeps at most this many of the pairs
//!   it finds, a sample drawn afresh each step (`broad`).
//! - **Contacts** ([`PairBudget::contacts`]): the contact jobs find at most this many contacts
//!   of pairs of bodies between them (before their patches are reduced). A pair can give a
//!   contact at each point of either body, so while the pairs' points are within the budget
//!   nothing is held back. Beyond it, each job's first share is its pairs' share of the points
//!   ([`contact_shares`]); a job stops before the pair whose contacts would pass its share
//!   ([`ContactJob::short`]), the jobs that stopped go on with what the others left, shared by
//!   the points of the partners they have not visited ([`ContactJob::find_more`]), and the
//!   partners a job still cannot take wait. Pairs that only touch find a contact at a few of
//!   their points (a dozen of the 52 for two cubes stacked), so the shares hold back the pairs
//!   sunk into each other, which find one at nearly every point.
//!
//! The budget is met with the same bits on any number of threads: the pairs' sample, the
//! shares and where a job short of its share starts among its partners are drawn from the
//! step's seed, a hash of the state. Within the budget, a step is bit for bit the step without
//! it.
//!
//! [`ContactJob::short`]: super::contacts::ContactJob::short
//! [`ContactJob::find_more`]: super::contacts::ContactJob::find_more
//!
//! A body's contacts with the world are not in the budget: they are as many as its points at
//! most, so they grow with the scene, not with its pairs.

use super::tuning::{CONTACT_BUDGET, PAIR_BUDGET};

/// How much of a heap a step takes on ([`super::PhysicsWorld::set_pair_budget`]; module
/// header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairBudget {
    /// Pairs of bodies given contacts in one step.
    pub pairs: usize,
    /// Contacts the pairs of bodies may find in one step, all together.
    pub contacts: usize,
}

impl PairBudget {
    /// [`PAIR_BUDGET`] pairs and [`CONTACT_BUDGET`] contacts.
    ///
    /// [`PAIR_BUDGET`]: super::PAIR_BUDGET
    /// [`CONTACT_BUDGET`]: super::CONTACT_BUDGET
    pub const DEFAULT: PairBudget = PairBudget {
        pairs: PAIR_BUDGET,
        contacts: CONTACT_BUDGET,
    };

    /// No limit: every pair found is given all its contacts.
    pub const UNLIMITED: PairBudget = PairBudget {
        pairs: usize::MAX,
        contacts: usize::MAX,
    };
}

impl Default for PairBudget {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A job's share of the contact budget when nothing is held back.
pub(crate) const WHOLE_SHARE: u32 = u32::MAX;

/// Each contact job's share of `budget` contacts of pairs, into `shares` (by job): while the
/// points of all the jobs' pairs are within it, [`WHOLE_SHARE`] each; beyond it, each job's
/// pairs' share of the points (rounded down, so the shares add up to at most the budget). A
/// pair's points are its two bodies' (`points`, by dense index), the most contacts it can give.
/// The jobs' partners are `partners[partner_start[job]..partner_start[job + 1]]`, and `moving`
/// their bodies.
pub(crate) fn contact_shares(
    budget: usize,
    moving: &[u32],
    partner_start: &[u32],
    partners: &[u32],
    points: &[u32],
    shares: &mut Vec<u32>,
) {
    shares.clear();
    let weight = |job: usize| -> u64 {
        let own = u64::from(points[moving[job] as usize]);
        let range = partner_start[job] as usize..partner_start[job + 1] as usize;
        partners[range]
            .iter()
            .map(|&other| own + u64::from(points[other as usize]))
            .sum()
    };
    let total: u64 = (0..moving.len()).map(weight).sum();
    if total <= budget as u64 {
        shares.resize(moving.len(), WHOLE_SHARE);
        return;
    }
    shares.extend((0..moving.len()).map(|job| {
        let share = u128::from(weight(job)) * budget as u128 / u128::from(total);
        share.min(u128::from(WHOLE_SHARE - 1)) as u32
    }));
}

/// Room a list may keep beyond twice what it used, in bytes, before [`release`] or [`fit`]
/// gives it back: the smallest lists stay, and are not allocated again every step, while the
/// handful of lists each body and job keeps adds up to a few megabytes for twenty thousand.
const KEPT_ROOM: usize = 256;

/// Whether `list` keeps more than twice the room it holds, and more than [`KEPT_ROOM`].
fn roomy<T>(list: &[T], capacity: usize) -> bool {
    let size = std::mem::size_of::<T>().max(1);
    capacity.saturating_sub(2 * list.len()) * size > KEPT_ROOM
}

/// Frees `list`, whose entries are no longer needed, if it keeps much more room than it used
/// (`step::trim`). Freed rather than shrunk: grown again from nothing, a list's blocks come in
/// the sizes the allocator hands out again.
pub(crate) fn release<T>(list: &mut Vec<T>) {
    if roomy(list, list.capacity()) {
        *list = Vec::new();
    }
}

/// Shrinks `list`, whose entries are still needed, to what it holds if it keeps much more
/// room (`step::trim`).
pub(crate) fn fit<T>(list: &mut Vec<T>) {
    if roomy(list, list.capacity()) {
        list.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{cube, uniform, Boxes, Ground};
    use crate::workers::WorkerPool;
    use crate::{BodyDesc, BodyHandle, PhysicsWorld};

    #[test]
    fn the_contact_shares_are_whole_within_the_budget_and_add_up_to_at_most_it_beyond() {
        // Three jobs (bodies 0, 1, 2) of 10, 20 and 30 points: 0 with 1 and 2, 1 with 2, 2
        // with none.
        let moving = [0, 1, 2];
        let partner_start = [0, 2, 3, 3];
        let partners = [1, 2, 2];
        let points = [10, 20, 30];
        // The pairs' points: 30 + 40 for job 0, 50 for job 1: 120 in all.
        let mut shares = Vec::new();
        contact_shares(
            120,
            &moving,
            &partner_start,
            &partners,
            &points,
            &mut shares,
        );
        assert_eq!(shares, [WHOLE_SHARE; 3]);
        contact_shares(60, &moving, &partner_start, &partners, &points, &mut shares);
        assert_eq!(shares, [35, 25, 0]);
        contact_shares(7, &moving, &partner_start, &partners, &points, &mut shares);
        assert_eq!(shares, [4, 2, 0]);
        assert!(shares.iter().sum::<u32>() <= 7);
    }

    #[test]
    fn a_list_keeps_its_room_while_it_is_used_and_gives_it_back_after() {
        let mut list: Vec<u64> = Vec::with_capacity(1000);
        list.extend(0..600);
        release(&mut list);
        assert!(list.capacity() >= 1000, "used: kept");
        list.truncate(10);
        fit(&mut list);
        assert_eq!(list, (0..10).collect::<Vec<_>>());
        assert!(list.capacity() < 1000, "mostly unused: shrunk");
        let mut small: Vec<u64> = Vec::with_capacity(24);
        release(&mut small);
        assert_eq!(small.capacity(), 24, "a few entries' room stays");
        let mut big: Vec<u64> = Vec::with_capacity(10_000);
        release(&mut big);
        assert_eq!(big.capacity(), 0, "unused: freed");
    }

    /// `along[0] · along[1] · along[2]` 1 m cubes sunk into each other: their middles on a
    /// grid `spacing` meters apart from `low` (each moved a few centimetres and turned a few
    /// degrees, drawn from `seed`, so that none lies exactly where another does). Their
    /// descriptions, and the world and shapes with them.
    fn heap(
        threads: usize,
        along: [usize; 3],
        spacing: f64,
        low: [f64; 3],
        seed: u64,
    ) -> (PhysicsWorld, Vec<BodyDesc>, Boxes) {
        let mut physics = PhysicsWorld::new(WorkerPool::new(threads).expect("threads"));
        let mut shapes = Boxes::default();
        let mut next = uniform(seed);
        let mut descs = Vec::new();
        for i in 0..along[0] {
            for j in 0..along[1] {
                for k in 0..along[2] {
                    let middle = [i, j, k].map(|n| n as f64 * spacing);
                    let middle: [f64; 3] =
                        std::array::from_fn(|axis| low[axis] + middle[axis] + next() * 0.06);
                    let corner = middle.map(|value| value - 0.5);
                    let desc = cube(corner);
                    let handle = physics.add(&desc).expect("a cube");
                    shapes.boxes.insert(
                        handle,
                        (corner.map(|v| v as f32), corner.map(|v| v as f32 + 1.0)),
                    );
                    let half = [next(), next(), next()].map(|v| (v - 0.5) * 0.1);
                    let turn = [half[0], half[1], half[2], 1.0];
                    physics.set_pose(handle, middle, turn).expect("a pose");
                    descs.push(desc);
                }
            }
        }
        (physics, descs, shapes)
    }

    fn finite(physics: &PhysicsWorld, handle: BodyHandle) -> bool {
        let body = physics.body(handle).expect("a live body");
        [body.position, body.velocity, body.angular_velocity]
            .iter()
            .flatten()
            .chain(&body.orientation)
            .all(|value| value.is_finite())
    }

    /// The pairs of 1 m cubes among `middles` sunk into each other: their middles nearer than
    /// 0.9 m (cubes whose middles are nearer than 1 m overlap: their inner balls do).
    fn sunk(middles: &[[f64; 3]]) -> usize {
        let mut sunk = 0;
        for (index, a) in middles.iter().enumerate() {
            for b in &middles[index + 1..] {
                let apart = (0..3).map(|axis| (a[axis] - b[axis]).powi(2)).sum::<f64>();
                sunk += usize::from(apart < 0.9 * 0.9);
            }
        }
        sunk
    }

    #[test]
    fn a_heap_in_one_place_beyond_a_lowered_budget_pushes_itself_apart() {
        // 80 cubes sunk up to 0.6 m into their neighbours (of their 3,160 pairs, 2,958
        // overlap, and their bodies have 153,816 points between them), on the ground, with
        // room for 600 pairs and 8,000 of their contacts a step.
        let (mut physics, _, shapes) = heap(2, [4, 5, 4], 0.4, [0.0, 0.6, 0.0], 7);
        let budget = PairBudget {
            pairs: 600,
            contacts: 8_000,
        };
        physics.set_pair_budget(budget);
        let ground = Ground { height: 0.0 };
        let handles: Vec<BodyHandle> = physics.handles().collect();
        let middles = |physics: &PhysicsWorld| -> Vec<[f64; 3]> {
            handles
                .iter()
                .map(|&handle| physics.body(handle).expect("a body").position)
                .collect()
        };
        // How far the cubes are from the heap's middle, across the ground, on average.
        let spread = |middles: &[[f64; 3]]| {
            let from = |at: &[f64; 3]| ((at[0] - 0.6).powi(2) + (at[2] - 0.6).powi(2)).sqrt();
            middles.iter().map(from).sum::<f64>() / middles.len() as f64
        };
        let start = middles(&physics);
        let sunk_at_start = sunk(&start);
        assert!(
            sunk_at_start > 900,
            "{sunk_at_start} pairs sunk into each other"
        );
        let mut deferred = Vec::new();
        for step in 0..600 {
            physics.step(&ground, &shapes);
            let counts = physics.last_step_counts();
            assert!(counts.pairs <= budget.pairs, "{counts:?}");
            // The contacts of pairs within the budget; each cube's with the ground, at most
            // at each of its 26 points.
            assert!(counts.contacts <= budget.contacts + 80 * 26, "{counts:?}");
            if step == 0 {
                assert_eq!(counts.pairs + counts.deferred_pairs, 2_958, "{counts:?}");
            }
            deferred.push(counts.deferred_pairs);
        }
        assert!(handles.iter().all(|&handle| finite(&physics, handle)));
        let over = deferred.iter().filter(|&&deferred| deferred > 0).count();
        assert!(over > 60, "the heap was beyond the budget for {over} steps");
        // The heap spread and came back within the budget; of the 963 pairs of cubes sunk
        // into each other, few are left (61; 30 with no budget): those pushed into one place,
        // which, as two cubes lying exactly on each other with their points on each other's
        // faces, hold together.
        assert!(deferred[400..].iter().all(|&deferred| deferred == 0));
        let end = middles(&physics);
        assert!(spread(&end) > 4.0 * spread(&start), "{} m", spread(&end));
        let sunk_at_end = sunk(&end);
        assert!(
            sunk_at_end < sunk_at_start / 10,
            "{sunk_at_end} of {sunk_at_start} pairs still sunk into each other"
        );
    }

    /// A row of cubes lying 1.5 m apart (their spheres overlap, their boxes do not come
    /// near) and a stack of cubes dropped onto each other beside it, stepped for two
    /// seconds with `budget`: the state's hash, and whether some job had less than the whole
    /// budget and found more contacts than its first share (it went on with what the others
    /// left).
    fn row_and_stack(budget: PairBudget) -> (u64, bool) {
        let mut physics = PhysicsWorld::new(WorkerPool::new(2).expect("threads"));
        physics.set_pair_budget(budget);
        let mut shapes = Boxes::default();
        let mut add = |physics: &mut PhysicsWorld, low: [f64; 3]| {
            let handle = physics.add(&cube(low)).expect("a cube");
            let low = low.map(|v| v as f32);
            shapes.boxes.insert(handle, (low, low.map(|v| v + 1.0)));
        };
        for i in 0..10 {
            add(&mut physics, [i as f64 * 1.5, 0.01, 5.0]);
        }
        for i in 0..4 {
            add(&mut physics, [0.1 * i as f64, 0.05 + 1.1 * i as f64, 0.0]);
        }
        let ground = Ground { height: 0.0 };
        let mut went_on = false;
        for _ in 0..240 {
            physics.step(&ground, &shapes);
            assert_eq!(physics.last_step_counts().deferred_pairs, 0);
            let scratch = &physics.scratch;
            went_on |= scratch.jobs[..scratch.moving.len()]
                .iter()
                .zip(&scratch.contact_shares)
                .any(|(job, &share)| {
                    share != WHOLE_SHARE && job.pair_contacts_found() > share as usize
                });
        }
        (physics.state_hash(), went_on)
    }

    #[test]
    fn a_step_within_the_budget_gives_the_same_bits_as_one_without_it() {
        let (unlimited, _) = row_and_stack(PairBudget::UNLIMITED);
        let (default, went_on) = row_and_stack(PairBudget::DEFAULT);
        assert_eq!(default, unlimited);
        assert!(!went_on, "the whole budget for every job");
        // Room for fewer contacts than the pairs' points (the row's 9 pairs have 468, the
        // stack's 3 have 156), but for more than they find: the stack's jobs stop at their
        // first share (10 contacts; each pair finds 12), and go on with what the row's jobs,
        // which find none, left.
        let (short, went_on) = row_and_stack(PairBudget {
            pairs: 100,
            contacts: 120,
        });
        assert!(went_on, "a job went on with what others left");
        assert_eq!(short, unlimited);
    }

    #[test]
    fn a_heap_beyond_the_budget_steps_to_the_same_bits_on_1_2_and_8_threads_and_restored() {
        // 343 cubes sunk into each other (enough for the sweep to run on several threads).
        let budget = PairBudget {
            pairs: 4_000,
            contacts: 40_000,
        };
        let ground = Ground { height: 0.0 };
        let run = |threads: usize| {
            let (mut physics, descs, shapes) = heap(threads, [7, 7, 7], 0.35, [0.0, 0.6, 0.0], 3);
            physics.set_pair_budget(budget);
            for _ in 0..6 {
                physics.step(&ground, &shapes);
                let counts = physics.last_step_counts();
                assert!(counts.pairs <= budget.pairs && counts.deferred_pairs > 0);
            }
            (physics, descs, shapes)
        };
        let (mut one, descs, shapes) = run(1);
        for threads in [2, 8] {
            assert_eq!(
                run(threads).0.state_hash(),
                one.state_hash(),
                "{threads} threads"
            );
        }
        // A world restored from the state draws the same pairs from then on.
        let state = one.state();
        let mut restored =
            PhysicsWorld::restore(WorkerPool::new(2).expect("threads"), &state, &descs)
                .expect("a consistent state");
        restored.set_pair_budget(budget);
        for _ in 0..6 {
            one.step(&ground, &shapes);
            restored.step(&ground, &shapes);
            assert!(one.last_step_counts().deferred_pairs > 0);
        }
        assert_eq!(restored.state(), one.state());
    }
}
