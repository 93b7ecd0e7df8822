//! Strength: where a falling piece breaks when it strikes something (docs/blocks.md,
//! "Strength"). Standing buildings keep seed 002's rule (`support`): strength is only about
//! pieces, and only about what pushes them in a step.
//!
//! **Joints.** Two blocks of a piece that share part of a side are joined over that area; two
//! that share only part of an edge are joined along it as if over a strip [`EDGE_SHARE`] of a
//! cell wide (a tenth of a side joint of that length); blocks that meet at a corner are not
//! joined. A joint holds the weaker of its two materials' strengths (`blocks::materials`)
//! times its area, in newtons.
//!
//! **Load.** The physics reports each push on a piece (normal and friction together) that took
//! at least what its weakest joint holds in one step (`PhysicsWorld::set_impact_limit`). Each
//! push goes to the blocks at its point (shared by their masses when the point is a corner of
//! several: a small block beside a big one takes little of what strikes their shared corner),
//! and passes toward the block at the piece's middle of mass along the shortest chain of
//! joints (breadth first from that block, neighbours in block order):
//!
//! ```text
//!   pushes ↑      ↑      ↑      ↑         a beam landing flat: the pushes on blocks 0 and 3
//!        [ 0 ]──[ 1 ]──[ 2 ]──[ 3 ]       pass through joints 0–1 and 3–2; joint 1–2 carries
//!                  ● middle               what blocks 2 and 3 took together (the chains
//!                                         start at block 1, the first block at the middle).
//! ```
//!
//! What passes from a block toward the middle is the sum of the pushes on every block beyond
//! it in the chain (its branch). The branch is held to the rest by every joint between the
//! two, together: if the branch's push over the step's length is more than they hold, they
//! all break. The piece then splits into the groups that still hold together. So a piece
//! breaks where much of what strikes it must pass through little or weak joint: a plaster
//! layer, blocks joined by an edge only, a small block under a heavy one it lands on.
//!
//! A push of one step is a blow: a landing's pushes come in the step it strikes, a piece lying
//! still takes its weight's push every step (`m g · STEP`), far below what any joint of it
//! holds, so nothing breaks under its own weight, and rubble at rest is not stepped at all.

use std::collections::HashMap;

use blockfall_engine::physics::{FRICTION, STEP};

use crate::blocks::materials::MATERIALS;
use crate::blocks::store::{Block, BlockId, BlockStore, CELL};
use crate::pieces::part_of;
use crate::support::for_each_touching;

/// What an edge joint holds against a side joint of the same length: as if the blocks were
/// joined over a strip a tenth of a cell wide along the edge.
pub const EDGE_SHARE: f64 = 0.1;

/// Pascals per megapascal of the material table.
const PASCALS: f64 = 1e6;

/// A push on a piece in one step: where (its own frame, meters) and how hard (newton
/// seconds, its own frame).
pub type Push = ([f64; 3], [f64; 3]);

/// A joint between two blocks of a piece (their indices in the piece's list).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Joint {
    pub a: u32,
    pub b: u32,
    /// Newtons.
    pub holds: f64,
    /// Joined by an edge only.
    pub by_edge: bool,
}

/// What a material holds per square meter, pascals (the weakest material's for a number
/// outside the table: blocks are checked before they are made, so only a bad save gets here).
fn strength_of(block: &Block) -> f64 {
    let weakest = MATERIALS
        .iter()
        .map(|m| m.strength)
        .fold(f32::MAX, f32::min);
    let megapascals = MATERIALS
        .get(usize::from(block.material))
        .map_or(weakest, |material| material.strength);
    f64::from(megapascals) * PASCALS
}

/// The joint between two blocks (`a` and `b` their indices), if they share part of a side or
/// an edge.
pub fn joint_between(a: (u32, &Block), b: (u32, &Block)) -> Option<Joint> {
    let cell = f64::from(CELL);
    let (low_a, low_b) = (a.1.low(), b.1.low());
    let (size_a, size_b) = (i64::from(a.1.size), i64::from(b.1.size));
    let mut meeting = 0;
    let mut shared = 1.0;
    for axis in 0..3 {
        let (la, lb) = (i64::from(low_a[axis]), i64::from(low_b[axis]));
        let overlap = (la + size_a).min(lb + size_b) - la.max(lb);
        if overlap < 0 {
            return None;
        }
        if overlap == 0 {
            meeting += 1;
        } else {
            shared *= overlap as f64 * cell;
        }
    }
    let (area, by_edge) = match meeting {
        1 => (shared, false),
        2 => (shared * EDGE_SHARE * cell, true),
        // Overlapping (never in a piece), or meeting at a corner only.
        _ => return None,
    };
    Some(Joint {
        a: a.0,
        b: b.0,
        holds: strength_of(a.1).min(strength_of(b.1)) * area,
        by_edge,
    })
}

/// A piece's joints, and what breaks them.
#[derive(Debug, Clone, Default)]
pub struct Joints {
    joints: Vec<Joint>,
    /// Each block's joints, by index into `joints`, in joint order.
    by_block: Vec<Vec<u32>>,
    /// Each block's index by its id in the piece's store.
    index_of: HashMap<BlockId, u32>,
    /// Each block's mass, kilograms.
    masses: Vec<f64>,
    /// The chains toward the block at the middle of mass.
    chains: Chains,
    /// Per block: what holds its branch to the rest, newtons (infinite for a root).
    holds: Vec<f64>,
}

/// How a step's pushes pass through a piece: the breadth-first chains toward the block at
/// the middle.
#[derive(Debug, Clone, Default)]
struct Chains {
    /// Per block: the block it passes its push to ([`u32::MAX`] for a root).
    toward: Vec<u32>,
    depth: Vec<u32>,
    /// The blocks in breadth-first order.
    order: Vec<u32>,
}

impl Joints {
    /// The joints of a piece's blocks; `own` holds them as `ids` (block `i` is `ids[i]`).
    pub fn of(blocks: &[Block], own: &BlockStore, ids: &[BlockId]) -> Self {
        let index_of: HashMap<BlockId, u32> = ids
            .iter()
            .enumerate()
            .map(|(index, &id)| (id, index as u32))
            .collect();
        let mut joints = Vec::new();
        let mut by_block = vec![Vec::new(); blocks.len()];
        for (index, block) in blocks.iter().enumerate() {
            let mut beside = Vec::new();
            for_each_touching(own, block, |id| {
                if let Some(&other) = index_of.get(&id) {
                    if other as usize > index {
                        beside.push(other);
                    }
                }
            });
            beside.sort_unstable();
            for other in beside {
                let pair = ((index as u32, block), (other, &blocks[other as usize]));
                if let Some(joint) = joint_between(pair.0, pair.1) {
                    let at = joints.len() as u32;
                    by_block[index].push(at);
                    by_block[other as usize].push(at);
                    joints.push(joint);
                }
            }
        }
        for list in &mut by_block {
            list.sort_unstable();
        }
        let parts: Vec<_> = blocks.iter().map(part_of).collect();
        let mass: f64 = parts.iter().map(|part| part.mass).sum();
        let middle: [f64; 3] = std::array::from_fn(|axis| {
            parts.iter().map(|p| p.center[axis] * p.mass).sum::<f64>() / mass
        });
        let mut joints = Self {
            joints,
            by_block,
            index_of,
            masses: parts.iter().map(|part| part.mass).collect(),
            chains: Chains::default(),
            holds: Vec::new(),
        };
        let mut found = Vec::new();
        joints.blocks_at(blocks, own, middle, &mut found);
        joints.chains = joints.chains(found.first().copied().unwrap_or(0));
        joints.holds = joints.branch_holds(&joints.chains);
        joints
    }

    /// The blocks at a point of the piece's own frame (see [`blocks_at`]), or the nearest.
    fn blocks_at(&self, blocks: &[Block], own: &BlockStore, point: [f64; 3], found: &mut Vec<u32>) {
        found.clear();
        blocks_at(own, &self.index_of, point, found);
        if found.is_empty() && !blocks.is_empty() {
            found.push(nearest_block(blocks, point));
        }
    }

    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// The normal push in one step (newton seconds, all of a piece's contacts together) below
    /// which nothing can break: what holds the weakest branch over a step, less what friction
    /// may add (a branch's push is at most all the pushes together, and a contact's friction
    /// at most [`FRICTION`] times its normal push, so its whole push at most
    /// `√(1 + FRICTION²)` times it). Infinite for a piece of one block.
    pub fn impact_limit(&self) -> f64 {
        let most = (1.0 + FRICTION * FRICTION).sqrt();
        self.holds
            .iter()
            .map(|holds| holds * STEP / most)
            .fold(f64::INFINITY, f64::min)
    }

    /// Which joints one step's pushes break: `pushes` are `(point, push)` in the piece's own
    /// frame (meters, newton seconds); `blocks` and `own` as [`Joints::of`] had them.
    pub fn broken(&self, blocks: &[Block], own: &BlockStore, pushes: &[Push]) -> Vec<bool> {
        let mut broken = vec![false; self.joints.len()];
        if self.joints.is_empty() || pushes.is_empty() {
            return broken;
        }
        let masses = &self.masses;
        let chains = &self.chains;
        // Each block's push: a push at a point of several blocks shared by their masses.
        let mut taken = vec![[0.0f64; 3]; blocks.len()];
        let mut found = Vec::new();
        for &(point, push) in pushes {
            self.blocks_at(blocks, own, point, &mut found);
            let mass: f64 = found.iter().map(|&b| masses[b as usize]).sum();
            for &block in &found {
                let share = masses[block as usize] / mass;
                for axis in 0..3 {
                    taken[block as usize][axis] += push[axis] * share;
                }
            }
        }
        // Each branch's push, from the leaves in.
        for &block in chains.order.iter().rev() {
            let toward = chains.toward[block as usize];
            if toward != u32::MAX {
                let branch = taken[block as usize];
                for axis in 0..3 {
                    taken[toward as usize][axis] += branch[axis];
                }
            }
        }
        let breaks: Vec<bool> = (0..blocks.len())
            .map(|block| {
                let load = taken[block].iter().map(|c| c * c).sum::<f64>().sqrt() / STEP;
                chains.toward[block] != u32::MAX && load > self.holds[block]
            })
            .collect();
        for (joint, broken) in self.joints.iter().zip(&mut broken) {
            chains.walk(joint, |block| *broken |= breaks[block as usize]);
        }
        broken
    }

    /// What holds each block's branch to the rest: every joint whose chain path crosses the
    /// block's link toward the middle, together.
    fn branch_holds(&self, chains: &Chains) -> Vec<f64> {
        let mut holds = vec![0.0f64; self.by_block.len()];
        for joint in &self.joints {
            chains.walk(joint, |block| holds[block as usize] += joint.holds);
        }
        for (holds, &toward) in holds.iter_mut().zip(&chains.toward) {
            if toward == u32::MAX {
                *holds = f64::INFINITY;
            }
        }
        holds
    }

    /// The groups of blocks that still hold together through the joints not `broken`: each
    /// ascending, in the order of their first block.
    pub fn groups(&self, count: usize, broken: &[bool]) -> Vec<Vec<u32>> {
        let mut leader: Vec<u32> = (0..count as u32).collect();
        fn find(leader: &mut [u32], mut block: u32) -> u32 {
            while leader[block as usize] != block {
                let next = leader[block as usize];
                leader[block as usize] = leader[next as usize];
                block = next;
            }
            block
        }
        for (joint, &gone) in self.joints.iter().zip(broken) {
            if gone {
                continue;
            }
            let (a, b) = (find(&mut leader, joint.a), find(&mut leader, joint.b));
            // The lower index leads: a group's leader is its first block.
            leader[a.max(b) as usize] = a.min(b);
        }
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut group_of = vec![u32::MAX; count];
        for block in 0..count as u32 {
            let first = find(&mut leader, block) as usize;
            if group_of[first] == u32::MAX {
                group_of[first] = groups.len() as u32;
                groups.push(Vec::new());
            }
            groups[group_of[first] as usize].push(block);
        }
        groups
    }

    /// The breadth-first chains from `root`, then from each block not reached yet (a piece of
    /// parts that do not touch), in block order.
    fn chains(&self, root: u32) -> Chains {
        let count = self.by_block.len();
        let mut chains = Chains {
            toward: vec![u32::MAX; count],
            depth: vec![u32::MAX; count],
            order: Vec::with_capacity(count),
        };
        let starts = std::iter::once(root).chain(0..count as u32);
        for start in starts {
            if chains.depth[start as usize] != u32::MAX {
                continue;
            }
            chains.depth[start as usize] = 0;
            let mut next = chains.order.len();
            chains.order.push(start);
            while next < chains.order.len() {
                let block = chains.order[next];
                next += 1;
                for &joint in &self.by_block[block as usize] {
                    let joint = &self.joints[joint as usize];
                    let other = if joint.a == block { joint.b } else { joint.a };
                    if chains.depth[other as usize] == u32::MAX {
                        chains.depth[other as usize] = chains.depth[block as usize] + 1;
                        chains.toward[other as usize] = block;
                        chains.order.push(other);
                    }
                }
            }
        }
        chains
    }
}

impl Chains {
    /// Calls `visit` with each block whose link toward the middle lies on the chain path
    /// between the joint's two blocks: the branches the joint holds to the rest.
    fn walk(&self, joint: &Joint, mut visit: impl FnMut(u32)) {
        let (mut a, mut b) = (joint.a, joint.b);
        while a != b {
            if self.depth[a as usize] >= self.depth[b as usize] {
                visit(a);
                a = self.toward[a as usize];
            } else {
                visit(b);
                b = self.toward[b as usize];
            }
            if a == u32::MAX || b == u32::MAX {
                // Two chains that never meet: the joint would have joined them.
                return;
            }
        }
    }
}

/// The blocks of `own` at a point (its own frame, meters): those whose cells lie a hair
/// around it, each once, in ascending index.
fn blocks_at(
    own: &BlockStore,
    index_of: &HashMap<BlockId, u32>,
    point: [f64; 3],
    found: &mut Vec<u32>,
) {
    const HAIR: f64 = 1e-4;
    let cell = f64::from(CELL);
    for corner in 0..8 {
        let at: [i32; 3] = std::array::from_fn(|axis| {
            let side = if corner >> axis & 1 == 0 { -HAIR } else { HAIR };
            ((point[axis] + side) / cell).floor() as i32
        });
        if let Some(index) = own.at(at[0], at[1], at[2]).and_then(|id| index_of.get(&id)) {
            if !found.contains(index) {
                found.push(*index);
            }
        }
    }
    found.sort_unstable();
}

/// The block whose box is nearest a point (the first of the nearest).
fn nearest_block(blocks: &[Block], point: [f64; 3]) -> u32 {
    let cell = f64::from(CELL);
    let distance = |block: &Block| {
        let low = block.low().map(|c| f64::from(c) * cell);
        let size = f64::from(block.size) * cell;
        (0..3)
            .map(|axis| {
                let outside = (low[axis] - point[axis]).max(point[axis] - low[axis] - size);
                outside.max(0.0).powi(2)
            })
            .sum::<f64>()
    };
    let mut best = (0, f64::INFINITY);
    for (index, block) in blocks.iter().enumerate() {
        let d = distance(block);
        if d < best.1 {
            best = (index as u32, d);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::materials::{COPPER, PLASTER, STONE};

    fn block(x: i32, y: i32, z: i32, size: u8, material: usize) -> Block {
        Block::new(x, y, z, size, material as u8, 0, false).expect("a valid block")
    }

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
    fn a_flat_landing_loads_the_joints_by_what_passes_through_them() {
        // A plaster beam landing flat, each block pushed under its middle: the chains start at
        // block 1 (the first at the middle), so joint 1–2 carries blocks 2 and 3's pushes
        // together, joints 0–1 and 2–3 one block's each.
        let test = Test::of((0..4).map(|i| block(i, 0, 0, 1, PLASTER)).collect());
        let holds = 0.25 * 1e6;
        let landing = |push: f64| {
            let pushes: Vec<_> = (0..4)
                .map(|i| ([0.25 + 0.5 * f64::from(i), 0.1, 0.25], [0.0, push, 0.0]))
                .collect();
            test.broken(&pushes)
        };
        assert_eq!(landing(0.49 * holds * STEP), [false; 3]);
        let broken = landing(0.75 * holds * STEP);
        assert_eq!(broken, [false, true, false]);
        assert_eq!(test.joints.groups(4, &broken), [vec![0, 1], vec![2, 3]]);
        assert_eq!(landing(1.01 * holds * STEP), [true; 3]);
        // Pushes that cancel along one line within a block: no load, however hard.
        let big = 1e12;
        let pushes = [
            ([0.1, 0.25, 0.25], [big, 0.0, 0.0]),
            ([0.4, 0.25, 0.25], [-big, 0.0, 0.0]),
        ];
        assert_eq!(test.broken(&pushes), [false; 3]);
    }

    #[test]
    fn a_blow_at_one_end_of_a_beam_breaks_a_plaster_one_and_not_a_copper_one() {
        // The blow a 750 kg beam's end takes stopping 14 m/s: plaster gives, copper holds.
        let blow = [([0.0, 0.0, 0.25], [0.0, 750.0 * 14.0, 0.0])];
        let plaster = Test::of((0..4).map(|i| block(i, 0, 0, 1, PLASTER)).collect());
        let broken = plaster.broken(&blow);
        assert!(broken[0], "the joint at the struck end: {broken:?}");
        assert!(plaster.joints.groups(4, &broken).len() >= 2);
        let copper = Test::of((0..4).map(|i| block(i, 0, 0, 1, COPPER)).collect());
        assert_eq!(copper.broken(&blow), [false; 3]);
        // A tap breaks nothing.
        let tap = [([0.0, 0.0, 0.25], [0.0, 10.0, 0.0])];
        assert_eq!(plaster.broken(&tap), [false; 3]);
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
        let plaster_side = 0.25 * 1e6;
        let plaster_edge = 0.5 * 0.05 * 1e6;
        assert!((holds[3] - (2.0 * plaster_side + plaster_edge)).abs() < 1e-6);
        // Block 1's branch: its side with 0, its edge with 2, its side with 3 (plaster).
        let copper_side = 0.25 * 200e6;
        let copper_edge = 0.5 * 0.05 * 200e6;
        assert!((holds[1] - (copper_side + copper_edge + plaster_side)).abs() < 1e-3);
        // Struck hard at the plaster block's outer corner: it breaks off alone.
        let broken = test.broken(&[([1.0, 1.0, 0.25], [-1e4, -1e4, 0.0])]);
        assert_eq!(
            test.joints.groups(4, &broken),
            [vec![0, 1, 2], vec![3]],
            "{broken:?}"
        );
    }
}
