use super::*;
use crate::blocks::materials::{COPPER, PLASTER, STONE};

fn block(x: i32, y: i32, z: i32, size: u8, material: usize) -> Block {
    Block::new(x, y, z, size, material as u8, 0, false).expect("a valid block")
}

/// A row of `count` blocks along x from the origin.
fn beam(count: i32, size: u8, material: usize) -> Vec<Block> {
    (0..count)
        .map(|i| block(i * i32::from(size), 0, 0, size, material))
        .collect()
}

/// What a 0.5 m plaster side joint holds, newtons.
const PLASTER_SIDE: f64 = 0.25 * 1e6;

/// A piece of `blocks`: its joints and store.
struct Test {
    blocks: Vec<Block>,
    joints: Joints,
    own: BlockStore,
}

impl Test {
    fn of(blocks: Vec<Block>) -> Self {
        let mut own = BlockStore::new();
        let ids: Vec<BlockId> = blocks.iter().map(|b| own.add(*b).expect("apart")).collect();
        Test {
            joints: Joints::of(&blocks, &own, &ids),
            blocks,
            own,
        }
    }

    fn broken(&self, pushes: &[Push]) -> Vec<bool> {
        self.joints.broken(&self.blocks, &self.own, pushes)
    }

    /// What each joint carries when the whole piece is pushed `pushes` (spread evenly
    /// first when `even`), newtons, in joint order.
    fn joint_loads(&self, pushes: &[Push], even: bool) -> Vec<f64> {
        let spread = if even {
            even_spread(pushes, &Joints::areas(&self.own, pushes))
        } else {
            pushes.iter().map(|&(_, push)| push).collect()
        };
        let (taken, turned) = self.joints.taken(&self.blocks, &self.own, pushes, &spread);
        let count = self.blocks.len();
        let mut top = vec![0; count];
        self.joints.tops(&vec![false; count], &mut top);
        let loads = self.joints.loads(&top, &taken, &turned);
        // A beam's joint between a block and the one before it in the chains carries
        // that block's branch.
        self.joints
            .joints()
            .iter()
            .map(|joint| {
                let chains = &self.joints.chains;
                if chains.toward[joint.a as usize] == joint.b {
                    loads[joint.a as usize]
                } else {
                    loads[joint.b as usize]
                }
            })
            .collect()
    }

    /// The same piece with its chains started from `root`.
    fn chained_from(mut self, root: u32) -> Self {
        self.joints.chains = self.joints.chains(root);
        self.joints.holds = self.joints.branch_holds(&self.joints.chains);
        self
    }
}

/// Pushes of `each` newton seconds straight up at the bottom corners of the cells of a
/// beam of 0.5 m blocks from `from` to `to` meters along x (z 0 and 0.5).
fn under(from: f64, to: f64, each: f64) -> Vec<Push> {
    let steps = ((to - from) / 0.5).round() as i32;
    (0..=steps)
        .flat_map(|i| {
            let x = from + 0.5 * f64::from(i);
            [
                ([x, 0.0, 0.0], [0.0, each, 0.0]),
                ([x, 0.0, 0.5], [0.0, each, 0.0]),
            ]
        })
        .collect()
}

/// A small random number source, the same on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn between(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.next()
    }

    fn unit(&mut self) -> [f64; 3] {
        loop {
            let v = [0; 3].map(|_| self.between(-1.0, 1.0));
            let l = length(v);
            if l > 0.1 && l <= 1.0 {
                return scale(v, 1.0 / l);
            }
        }
    }
}

#[test]
fn a_side_joint_holds_the_weaker_material_times_the_shared_area() {
    let stone = block(0, 0, 0, 2, STONE);
    let plaster = block(2, 1, 0, 1, PLASTER);
    let joint = joint_between((0, &stone), (1, &plaster)).expect("side by side");
    // A 0.5 m × 0.5 m square of the 1 m block's side, plaster's 1 MPa.
    assert!(!joint.by_edge);
    assert!((joint.holds - 0.25 * 1e6).abs() < 1e-6, "{joint:?}");
    // By an edge only: a tenth of a side joint of that length (0.5 m × 0.05 m).
    let edge = block(2, 2, 0, 1, STONE);
    let joint = joint_between((0, &stone), (1, &edge)).expect("by an edge");
    assert!(joint.by_edge);
    assert!((joint.holds - 0.5 * 0.05 * 40e6).abs() < 1e-6, "{joint:?}");
    // A corner holds nothing, nor does a gap.
    assert!(joint_between((0, &stone), (1, &block(2, 2, 2, 1, STONE))).is_none());
    assert!(joint_between((0, &stone), (1, &block(3, 0, 0, 1, STONE))).is_none());
}

#[test]
fn a_flat_landing_loads_no_joint_however_hard() {
    // A plaster beam pushed alike at every point under its whole length, as the solver
    // pushes a flat landing: the spread gives each point its share of the surface (the
    // points at the ends stand for half as much, `Joints::areas`), so every block is pushed
    // what it needs to slow with the rest and nothing passes through a joint. (Spread point
    // by point alike, its end blocks took 3/10 of the push and needed 1/4: 1/20 of it passed
    // through the end joints.)
    let test = Test::of(beam(4, 1, PLASTER));
    let hard = 1e3 * PLASTER_SIDE * STEP;
    let alike = under(0.0, 2.0, hard);
    let loads = test.joint_loads(&alike, true);
    assert!(
        loads.iter().all(|&load| load < 1e-9 * hard / STEP),
        "{loads:?}"
    );
    assert_eq!(test.broken(&alike), [false; 3]);
    // As the solver left a 10 m landing of it (seen in a run): uneven, and squeezed
    // together by sideways pushes up to 0.6 of the upward ones. Taken as they came they
    // would load its middle joint to what it holds at this size; spread as the rigid
    // contact carries them, to a fifth of that at most.
    let landing: Vec<Push> = [
        ([0.0, 0.0], [624.6, 1063.1, -103.5]),
        ([0.0, 0.5], [539.7, 1019.9, 350.1]),
        ([0.5, 0.0], [528.2, 1023.4, 404.7]),
        ([0.5, 0.5], [362.0, 901.0, -486.7]),
        ([1.0, 0.0], [0.0, 1729.8, 774.6]),
        ([1.0, 0.5], [0.0, 1759.4, -988.4]),
        ([1.5, 0.0], [-570.4, 1463.8, 722.8]),
        ([1.5, 0.5], [-631.2, 1566.9, -852.6]),
        ([2.0, 0.0], [-399.1, 748.5, 377.9]),
        ([2.0, 0.5], [-453.8, 781.3, -199.0]),
    ]
    .map(|([x, z], push)| ([x, 0.0, z], push))
    .to_vec();
    let raw = test.joint_loads(&landing, false);
    let even = test.joint_loads(&landing, true);
    assert!(raw[1] > 0.95 * PLASTER_SIDE, "{raw:?}");
    assert!(
        even.iter().all(|&load| load < 0.25 * PLASTER_SIDE),
        "{even:?}"
    );
    let harder: Vec<Push> = landing
        .iter()
        .map(|&(point, push)| (point, scale(push, 4.0)))
        .collect();
    assert_eq!(test.broken(&harder), [false; 3]);
    // Pushes that cancel along one line within a block: no load, however hard.
    let big = 1e12;
    let pushes = [
        ([0.1, 0.25, 0.25], [big, 0.0, 0.0]),
        ([0.4, 0.25, 0.25], [-big, 0.0, 0.0]),
    ];
    assert_eq!(test.broken(&pushes), [false; 3]);
}

#[test]
fn a_blow_square_to_a_beams_end_loads_each_cut_by_what_the_blocks_beyond_must_follow() {
    // A blow J up at the end of a 4-block beam (blocks of mass m at −0.75, −0.25, 0.25,
    // 0.75 m from its middle, inertia 1.25 m + 4 · m 0.5² / 6 = 1.4167 m about z) speeds
    // it by J / 4m and turns it by J · 1 m / 1.4167 m: block i follows at
    // J / m (0.25 − 0.7059 x_i). Joint 0–1 carries J less block 0's share, 0.2206 J;
    // joint 1–2 what blocks 2 and 3 need, 0.2059 J; joint 2–3 what block 3 needs (it is
    // turned back), 0.2794 J. The same whichever block the chains start from.
    let blow = 750.0 * 14.0;
    let pushes = [([0.0, 0.0, 0.25], [0.0, blow, 0.0])];
    let expected = [0.2206, 0.2059, 0.2794].map(|share| share * blow / STEP);
    for root in 0..4 {
        let test = Test::of(beam(4, 1, PLASTER)).chained_from(root);
        let loads = test.joint_loads(&pushes, true);
        for (load, expected) in loads.iter().zip(expected) {
            assert!(
                (load - expected).abs() < 1e-3 * expected,
                "from block {root}: {loads:?}, not {expected:?}"
            );
        }
    }
}

#[test]
fn a_blow_at_one_end_as_a_tilted_landing_gives_it_breaks_the_end_off_a_plaster_beam() {
    // The blow a 750 kg plaster beam landing on its end from 10 m, turned 20°, took in
    // the step it struck (seen in a run, its own frame): up the ground's normal and along
    // the beam. The end joint gives way first; the rest, no longer pushed, follows freely
    // and keeps its joints. A copper beam holds.
    let blow = [
        ([0.0, 0.0, 0.0], [2462.5, 1996.7, 799.2]),
        ([0.0, 0.0, 0.5], [2368.2, 1920.2, -764.8]),
    ];
    let plaster = Test::of(beam(4, 1, PLASTER));
    let loads = plaster.joint_loads(&blow, true);
    assert!(
        loads[0] > PLASTER_SIDE && loads[1] > PLASTER_SIDE,
        "the blow would overload joints 0–1 and 1–2 of the whole beam: {loads:?}"
    );
    let broken = plaster.broken(&blow);
    assert_eq!(broken, [true, false, false]);
    assert_eq!(plaster.joints.groups(4, &broken), [vec![0], vec![1, 2, 3]]);
    let copper = Test::of(beam(4, 1, COPPER));
    assert_eq!(copper.broken(&blow), [false; 3]);
    // A tap breaks nothing.
    let tap = [([0.0, 0.0, 0.25], [3.0, 10.0, 0.0])];
    assert_eq!(plaster.broken(&tap), [false; 3]);
}

#[test]
fn a_beam_across_a_post_breaks_beside_it_on_both_sides() {
    // Five plaster blocks landing across a post under the middle one: the post pushes
    // its four corners (which it shares with its neighbours: they go to the middle
    // block, the side the post's pushes lie on). Blocks 3 and 4 need 2/5 of the blow to
    // follow through joint 2–3, block 4 alone 1/5 through 3–4; the same on the other side.
    let test = Test::of(beam(5, 1, PLASTER));
    let landing = |blow: f64| under(1.0, 1.5, blow / 4.0);
    let loads = test.joint_loads(&landing(PLASTER_SIDE * STEP), true);
    for (load, share) in loads.iter().zip([0.2, 0.4, 0.4, 0.2]) {
        assert!(
            (load - share * PLASTER_SIDE).abs() < 1e-9 * PLASTER_SIDE,
            "{loads:?}"
        );
    }
    // 2.6 times what a joint holds: the joints beside the post give way together, the
    // outer ones (then in parts nothing pushes) hold.
    let broken = test.broken(&landing(2.6 * PLASTER_SIDE * STEP));
    assert_eq!(broken, [false, true, true, false]);
    assert_eq!(
        test.joints.groups(5, &broken),
        [vec![0, 1], vec![2], vec![3, 4]]
    );
    assert_eq!(test.broken(&landing(2.4 * PLASTER_SIDE * STEP)), [false; 4]);
    // A little off the middle (the solver's noise), both sides still give way together.
    let mut uneven = landing(2.6 * PLASTER_SIDE * STEP);
    for push in &mut uneven[..2] {
        push.1[1] *= 1.1;
    }
    assert_eq!(test.broken(&uneven), [false, true, true, false]);
}

#[test]
fn a_push_where_blocks_meet_goes_to_the_side_of_the_other_pushes() {
    // A beam, and the same beam with a block far off (a piece whose box is too big for a
    // grid of its cells: the store is asked): the same shares.
    let far = block(200, 200, 200, 1, PLASTER);
    let pieces = [
        beam(4, 1, PLASTER),
        [beam(4, 1, PLASTER), vec![far]].concat(),
    ];
    for (index, blocks) in pieces.into_iter().enumerate() {
        let test = Test::of(blocks);
        assert_eq!(test.joints.grid.is_some(), index == 0);
        let taken = |pushes: &[Push]| {
            let spread: Vec<[f64; 3]> = pushes.iter().map(|&(_, push)| push).collect();
            test.joints
                .taken(&test.blocks, &test.own, pushes, &spread)
                .0
                .iter()
                .take(4)
                .map(|push| push[1])
                .collect::<Vec<_>>()
        };
        // Alone, a push where blocks 1 and 2 meet is theirs by their masses.
        assert_eq!(
            taken(&[([1.0, 0.0, 0.0], [0.0, 2.0, 0.0])]),
            [0.0, 1.0, 1.0, 0.0]
        );
        // With a push one cell beyond it toward block 2 (and none toward block 1), it is
        // block 2's: the contact lies on that side; so is that push, where blocks 2 and 3
        // meet.
        let pushes = [
            ([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]),
            ([1.5, 0.0, 0.0], [0.0, 2.0, 0.0]),
        ];
        assert_eq!(taken(&pushes), [0.0, 0.0, 4.0, 0.0]);
        // With pushes on both sides it is shared again.
        let pushes = [
            ([0.5, 0.0, 0.0], [0.0, 2.0, 0.0]),
            ([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]),
            ([1.5, 0.0, 0.0], [0.0, 2.0, 0.0]),
        ];
        assert_eq!(taken(&pushes), [0.0, 3.0, 3.0, 0.0]);
        // A push off every block goes to the nearest.
        assert_eq!(
            taken(&[([-0.3, 0.1, 0.2], [0.0, 2.0, 0.0])]),
            [2.0, 0.0, 0.0, 0.0]
        );
    }
}

#[test]
fn a_branch_is_held_by_every_joint_between_it_and_the_rest() {
    // A 2 × 2 square of copper blocks with one plaster block, the chains starting at
    // block 0: the plaster block passes its load straight to block 0 (by their edge),
    // but its two sides hold it as well.
    let test = Test::of(vec![
        block(0, 0, 0, 1, COPPER),
        block(1, 0, 0, 1, COPPER),
        block(0, 1, 0, 1, COPPER),
        block(1, 1, 0, 1, PLASTER),
    ]);
    let joints = test.joints.joints();
    assert_eq!(joints.iter().filter(|j| !j.by_edge).count(), 4);
    let chains = &test.joints.chains;
    assert_eq!(chains.toward, [u32::MAX, 0, 0, 0]);
    let holds = &test.joints.holds;
    let plaster_edge = 0.5 * 0.05 * 1e6;
    assert!((holds[3] - (2.0 * PLASTER_SIDE + plaster_edge)).abs() < 1e-6);
    // Block 1's branch: its side with 0, its edge with 2, its side with 3 (plaster).
    let copper_side = 0.25 * 200e6;
    let copper_edge = 0.5 * 0.05 * 200e6;
    assert!((holds[1] - (copper_side + copper_edge + PLASTER_SIDE)).abs() < 1e-3);
    // Struck hard at the plaster block's outer corner: it breaks off alone.
    let broken = test.broken(&[([1.0, 1.0, 0.25], [-1e4, -1e4, 0.0])]);
    assert_eq!(
        test.joints.groups(4, &broken),
        [vec![0, 1, 2], vec![3]],
        "{broken:?}"
    );
}

#[test]
fn what_holds_a_branch_after_cuts_give_way_is_every_joint_left_within_its_part() {
    // A 3 × 3 slab with a block on top, of mixed materials and sizes' joints, its chains
    // cut at several links in turn: what is taken off as joints let go is what the joints
    // left within each part hold across each branch.
    let mut blocks: Vec<Block> = (0..9)
        .map(|i| {
            block(
                i % 3,
                0,
                i / 3,
                1,
                [PLASTER, STONE, COPPER][(i % 3) as usize],
            )
        })
        .collect();
    blocks.push(block(1, 1, 1, 1, PLASTER));
    let test = Test::of(blocks);
    let joints = &test.joints;
    let count = test.blocks.len();
    let mut cut = vec![false; count];
    let mut top = vec![0; count];
    let mut holds = joints.holds.clone();
    let mut holding = vec![true; joints.joints().len()];
    for &block in joints.chains.order.iter().skip(1).step_by(3) {
        cut[block as usize] = true;
        joints.tops(&cut, &mut top);
        joints.let_go(&top, &mut holding, &mut holds);
        let mut fresh = vec![0.0; count];
        for joint in joints.joints() {
            if top[joint.a as usize] == top[joint.b as usize] {
                joints
                    .chains
                    .walk(joint, |b| fresh[b as usize] += joint.holds);
            }
        }
        for b in 0..count {
            if top[b] as usize == b {
                assert_eq!(holds[b], f64::INFINITY);
            } else {
                assert!(
                    (holds[b] - fresh[b]).abs() <= 1e-9 * fresh[b],
                    "{holds:?} {fresh:?}"
                );
                assert!(fresh[b] > 0.0);
            }
        }
    }
    assert!(cut.iter().filter(|&&c| c).count() >= 3);
}

#[test]
fn the_even_spread_keeps_the_net_push_and_moment_and_adds_nothing() {
    let mut random = Random(7);
    for trial in 0..300 {
        let count = 1 + trial % 12;
        // Every third set lies on a line, every fifth on one point.
        let line = random.unit();
        let pushes: Vec<Push> = (0..count)
            .map(|_| {
                let point = if trial % 5 == 0 {
                    [1.0, 2.0, 3.0]
                } else if trial % 3 == 0 {
                    scale(line, random.between(-2.0, 2.0))
                } else {
                    [0; 3].map(|_| random.between(-2.0, 2.0))
                };
                let push = scale(random.unit(), random.between(0.0, 100.0));
                (point, push)
            })
            .collect();
        let spread = even_spread(&pushes, &vec![1.0; pushes.len()]);
        let size: f64 = pushes.iter().map(|&(_, push)| length(push)).sum();
        let (mut net, mut moment) = ([0.0; 3], [0.0; 3]);
        for (&(point, push), &even) in pushes.iter().zip(&spread) {
            net = add(net, sub(even, push));
            moment = add(moment, cross(point, sub(even, push)));
        }
        assert!(length(net) <= 1e-9 * size, "{trial}: net off by {net:?}");
        assert!(
            length(moment) <= 1e-6 * size,
            "{trial}: moment off by {moment:?}"
        );
        let spread_size: f64 = spread.iter().map(|&push| length(push)).sum();
        assert!(
            spread_size <= size * (1.0 + 1e-9),
            "{trial}: {spread_size} > {size}"
        );
    }
}

#[test]
fn nothing_breaks_below_the_impact_limit_and_a_blow_not_far_above_it_breaks_a_beam() {
    // Pieces of several shapes and materials, pushed at random points of their blocks'
    // boxes along random normals with friction up to FRICTION times the normal push,
    // the normal pushes together just under the limit: nothing breaks.
    let pieces = [
        beam(4, 1, PLASTER),
        beam(6, 2, PLASTER),
        vec![
            block(0, 0, 0, 2, STONE),
            block(2, 0, 0, 1, PLASTER),
            block(2, 1, 0, 1, PLASTER),
            block(0, 2, 0, 1, STONE),
            block(1, 2, 1, 1, COPPER),
        ],
        (0..3)
            .flat_map(|i| [block(i, 0, 0, 1, PLASTER), block(0, i + 1, 1, 1, PLASTER)])
            .collect(),
        vec![
            block(0, 0, 0, 1, COPPER),
            block(1, 1, 0, 1, PLASTER),
            block(1, 0, 0, 1, COPPER),
            block(0, 1, 1, 1, PLASTER),
        ],
    ];
    let mut random = Random(11);
    for (index, blocks) in pieces.into_iter().enumerate() {
        let test = Test::of(blocks);
        let limit = test.joints.impact_limit();
        assert!(limit.is_finite() && limit > 0.0, "piece {index}: {limit}");
        for trial in 0..400 {
            let count = 1 + trial % 9;
            let mut pushes = Vec::new();
            let mut normal_total = 0.0;
            for _ in 0..count {
                let block = &test.blocks[(random.next() * test.blocks.len() as f64) as usize];
                let size = f64::from(block.size) * f64::from(CELL);
                let low = block.low().map(|c| f64::from(c) * f64::from(CELL));
                let mut point: [f64; 3] = std::array::from_fn(|a| low[a] + random.next() * size);
                // On a side of the block, often at a corner.
                for (axis, c) in point.iter_mut().enumerate() {
                    if random.next() < 0.5 {
                        *c = low[axis] + if random.next() < 0.5 { 0.0 } else { size };
                    }
                }
                let normal = random.unit();
                let across = cross(normal, random.unit());
                let across = scale(across, 1.0 / length(across).max(1e-12));
                let pushed = random.between(0.1, 1.0);
                let friction = FRICTION * pushed * random.next();
                let push = add(scale(normal, pushed), scale(across, friction));
                normal_total += pushed;
                pushes.push((point, push));
            }
            let under = 0.999 * limit / normal_total;
            for push in &mut pushes {
                push.1 = scale(push.1, under);
            }
            let broken = test.broken(&pushes);
            assert!(
                broken.iter().all(|&gone| !gone),
                "piece {index}, trial {trial}: broke below the limit {limit}: {pushes:?}"
            );
        }
    }
    // The limit is not far below what breaks: a 4-block plaster beam struck along its
    // length at its end loses that end at 5.3 times it (`G_B` is 1.30 for its joints and
    // the spread may add √7 to the pushes' size: a push aimed worst, with friction, spread
    // worst, would break it at the limit).
    let test = Test::of(beam(4, 1, PLASTER));
    let limit = test.joints.impact_limit();
    let blow = |size: f64| [([0.0, 0.25, 0.25], [size, 0.0, 0.0])];
    assert_eq!(test.broken(&blow(5.1 * limit)), [false; 3]);
    assert_eq!(test.broken(&blow(5.5 * limit)), [true, false, false]);
}
