//! Strength: where a falling piece breaks when it strikes something. The rule, its numbers and
//! the reasons for each (joints, cuts, the load a cut carries, the pushes spread as a rigid
//! contact carries them, where a push goes, giving way) are in docs/blocks.md, "Strength";
//! standing buildings keep the support rule (`support`, docs/support.md).
//!
//! In the code:
//!
//! ```text
//!   Joints::of               a piece's joints (side: shared area; edge: EDGE_SHARE of a cell
//!                            wide), the breadth-first chains from the block at the centre of
//!                            mass, the cuts; Joints::impact_limit, the push that may break it
//!   even_spread              a step's pushes spread as a rigid contact of springs, each point
//!                            as stiff as the solver pushed it (a 3×3 solve: `algebra`), over
//!                            the surface each point stands for (Joints::areas)
//!   Joints::broken           the load of each cut (its branch's pushes less what its blocks
//!                            need to follow), the most overloaded cut and those within
//!                            TOGETHER of it broken, each part weighed again alone
//!   Joints::groups           the groups that still hold together: the new pieces
//!   grid                     where the pushes' points lie among the blocks
//! ```

mod algebra;
mod grid;

use blockfall_physics::{FRICTION, STEP};

use crate::blocks::materials::{part_of, MATERIALS};
use crate::blocks::store::{Block, BlockId, BlockStore, CELL};
use crate::support::for_each_touching;

use crate::dvec3::{add, cross, dot, length, scale, sub};
use algebra::{at_lever, cross_matrix, inverse, norm, product, times, Matrix};
use grid::{Grid, Place};

/// What an edge joint holds against a side joint of the same length: as if the blocks were
/// joined over a strip a tenth of a cell wide along the edge.
pub const EDGE_SHARE: f64 = 0.1;

/// Cuts of a part loaded at least this share of its most overloaded cut give way with it.
pub const TOGETHER: f64 = 0.8;

/// Pascals per megapascal of the material table.
const PASCALS: f64 = 1e6;

/// How near a cell's side a point lies on it, meters.
const HAIR: f64 = 1e-4;

/// The most the even spread can add to the pushes' size: `√7`, the square root of the most
/// cells a contact point stands for over the fewest ([`Joints::areas`], [`Joints::impact_limit`]).
const AREA_SPREAD: f64 = 2.645_751_311_064_590_7;

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
    /// Each block's index by its id's slot in the piece's store ([`u32::MAX`]: none).
    by_slot: Vec<u32>,
    /// Each block's mass, kilograms.
    masses: Vec<f64>,
    /// Each block's middle of mass, from the piece's (meters, its own frame).
    levers: Vec<[f64; 3]>,
    /// Each block's inertia about the piece's middle (its own, and its mass at its lever),
    /// kg m².
    inertias: Vec<Matrix>,
    /// The piece's middle of mass, in its own frame.
    middle: [f64; 3],
    /// The piece's cells, when its box is small enough.
    grid: Option<Grid>,
    /// The chains from the block at the middle of mass.
    chains: Chains,
    /// Per block: what holds its branch to the rest, newtons (infinite for a root).
    holds: Vec<f64>,
    /// See [`Joints::impact_limit`].
    limit: f64,
}

/// How a piece's blocks hang together: the breadth-first chains from the block at its middle.
#[derive(Debug, Clone, Default)]
struct Chains {
    /// Per block: the block before it in its chain ([`u32::MAX`] for a root).
    toward: Vec<u32>,
    depth: Vec<u32>,
    /// The blocks in breadth-first order.
    order: Vec<u32>,
}

impl Joints {
    /// The joints of a piece's blocks; `own` holds them as `ids` (block `i` is `ids[i]`).
    pub fn of(blocks: &[Block], own: &BlockStore, ids: &[BlockId]) -> Self {
        let mut by_slot = vec![u32::MAX; own.slot_count()];
        for (index, id) in ids.iter().enumerate() {
            if let Some(slot) = by_slot.get_mut(id.slot()) {
                *slot = index as u32;
            }
        }
        let mut joints = Vec::new();
        let mut by_block = vec![Vec::new(); blocks.len()];
        for (index, block) in blocks.iter().enumerate() {
            let mut beside = Vec::new();
            for_each_touching(own, block, |id| {
                if let Some(&other) = by_slot.get(id.slot()) {
                    if other != u32::MAX && other as usize > index {
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
            by_slot,
            masses: parts.iter().map(|part| part.mass).collect(),
            levers: parts.iter().map(|part| sub(part.center, middle)).collect(),
            inertias: parts
                .iter()
                .map(|part| {
                    let lever = at_lever(part.mass, sub(part.center, middle));
                    std::array::from_fn(|r| {
                        std::array::from_fn(|c| part.inertia[r][c] + lever[r][c])
                    })
                })
                .collect(),
            middle,
            grid: Grid::of(blocks),
            chains: Chains::default(),
            holds: Vec::new(),
            limit: f64::INFINITY,
        };
        let mut found = Vec::new();
        joints.blocks_at(blocks, own, middle, &Place::of(middle), [0; 3], &mut found);
        joints.chains = joints.chains(found.first().copied().unwrap_or(0));
        joints.holds = joints.branch_holds(&joints.chains);
        joints.limit = joints.limit(blocks);
        joints
    }

    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// The normal push in one step (newton seconds, all of a piece's contacts together) below
    /// which nothing can break: for each cut, what it holds over a step over the most one
    /// newton second of push can load it, the least of them. Infinite for a piece of one block.
    ///
    /// Why nothing breaks below it. Nothing gives way later unless a cut gives way on the
    /// whole piece first, and a cut's load on the whole piece is linear in the spread pushes
    /// `f_k` at their points `p_k`: the branch `B` takes its share `s_k` (0 to 1) of each, and
    /// needs `A_B(p) f = (m_B / m) f − [S_B]× I⁻¹ [p]× f` of it (`S_B` the branch's mass
    /// times its middle, `p` from the piece's middle), so its load is
    /// `Σ (s_k − A_B(p_k)) f_k`, at most `G_B Σ |f_k|` with `G_B` the largest norm of
    /// `s − A_B(p)`. That norm is convex in `s` and `p`, so over every push on the piece it is
    /// largest at `s` 0 or 1 and a corner of the blocks' box: `G_B` is taken there. The spread
    /// is the one of least `Σ |f_k|² / w_k` (`w_k = a_k |J_k|`, `a_k` the point's share of the
    /// surface, 1 to 7 cells of the 8 around it), which the pushes themselves make
    /// `Σ |J_k| / a_k`, so `(Σ |f_k|)² ≤ Σ |f_k|² / w_k · Σ w_k ≤ Σ |J_k| / a_k · Σ a_k |J_k|
    /// ≤ 7 (Σ |J_k|)²` (Cauchy–Schwarz): it adds at most `√7` ([`AREA_SPREAD`]) to the
    /// pushes' size. A contact's friction is at most [`FRICTION`] times its normal
    /// push, so its whole push at most `√(1 + FRICTION²)` times it. The load is therefore at
    /// most `G_B √7 √(1 + FRICTION²)` times the normal pushes together, and below what the
    /// cut holds over the step while they stay below
    /// `holds · STEP / (G_B √7 √(1 + FRICTION²))`.
    /// (The motion takes its share off some branches and puts some on others: a beam's far
    /// block, turned back by a blow at its near end, is loaded though nothing pushes it. For
    /// a 4-block beam's joints `G_B` is 1.30.)
    pub fn impact_limit(&self) -> f64 {
        self.limit
    }

    /// The limit of [`Joints::impact_limit`], worked out from the blocks.
    fn limit(&self, blocks: &[Block]) -> f64 {
        let count = self.masses.len();
        let chains = &self.chains;
        let mass: f64 = self.masses.iter().sum();
        let inertia = self.inertias.iter().fold([[0.0; 3]; 3], |sum, block| {
            std::array::from_fn(|r| std::array::from_fn(|c| sum[r][c] + block[r][c]))
        });
        let Some(turn) = inverse(&inertia) else {
            return 0.0;
        };
        let cell = f64::from(CELL);
        let (mut low, mut high) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for block in blocks {
            for axis in 0..3 {
                let start = f64::from(block.low()[axis]) * cell - self.middle[axis];
                low[axis] = low[axis].min(start);
                high[axis] = high[axis].max(start + f64::from(block.size) * cell);
            }
        }
        let corners: [[f64; 3]; 8] = std::array::from_fn(|corner| {
            std::array::from_fn(|axis| {
                if corner >> axis & 1 == 0 {
                    low[axis]
                } else {
                    high[axis]
                }
            })
        });
        // Each branch's mass and its mass times its middle, from the leaves in.
        let mut branch_mass = self.masses.clone();
        let mut first: Vec<[f64; 3]> = (0..count)
            .map(|block| scale(self.levers[block], self.masses[block]))
            .collect();
        for &block in chains.order.iter().rev() {
            let toward = chains.toward[block as usize];
            if toward != u32::MAX {
                branch_mass[toward as usize] += branch_mass[block as usize];
                first[toward as usize] = add(first[toward as usize], first[block as usize]);
            }
        }
        let most = AREA_SPREAD * (1.0 + FRICTION * FRICTION).sqrt();
        let mut limit = f64::INFINITY;
        for block in 0..count {
            if chains.toward[block] == u32::MAX {
                continue;
            }
            let lever = product(&cross_matrix(first[block]), &turn);
            let mut gain = 0.0f64;
            for corner in &corners {
                let turned = product(&lever, &cross_matrix(*corner));
                let needs: Matrix = std::array::from_fn(|row| {
                    std::array::from_fn(|column| {
                        let along = if row == column {
                            branch_mass[block] / mass
                        } else {
                            0.0
                        };
                        along - turned[row][column]
                    })
                });
                let pushed: Matrix = std::array::from_fn(|row| {
                    std::array::from_fn(|column| {
                        f64::from(u8::from(row == column)) - needs[row][column]
                    })
                });
                gain = gain.max(norm(&needs)).max(norm(&pushed));
            }
            // A hair more, for the rounding of the norms.
            let gain = gain * (1.0 + 1e-9);
            limit = limit.min(self.holds[block] * STEP / (most * gain));
        }
        limit
    }

    /// Which joints one step's pushes break: `pushes` are `(point, push)` in the piece's own
    /// frame (meters, newton seconds); `blocks` and `own` as [`Joints::of`] had them.
    pub fn broken(&self, blocks: &[Block], own: &BlockStore, pushes: &[Push]) -> Vec<bool> {
        let mut broken = vec![false; self.joints.len()];
        if self.joints.is_empty() || pushes.is_empty() {
            return broken;
        }
        let spread = even_spread(pushes, &Self::areas(own, pushes));

        let (taken, turned) = self.taken(blocks, own, pushes, &spread);
        let top = self.give_way(&taken, &turned);
        for (joint, broken) in self.joints.iter().zip(&mut broken) {
            *broken = top[joint.a as usize] != top[joint.b as usize];
        }
        broken
    }

    /// The share of the piece's surface each push's point stands for: how many of the
    /// eight cells around it the piece fills (at least 1). A piece's points are its cells'
    /// corners, a corner for every half meter of its outside, so a point inside a face stands
    /// for four quarter cells of it, one on the face's edge for two, one at its corner for one:
    /// a face pressed evenly pushes its points in those shares, and a beam landing flat loads
    /// no joint. Weighed alike, the points at a beam's ends pushed its end blocks more than
    /// their mass needs, and the joints next to them carried the rest: a six-block plaster
    /// beam landing flat from 15 m broke there.
    pub fn areas(own: &BlockStore, pushes: &[Push]) -> Vec<f64> {
        let cell = f64::from(CELL);
        pushes
            .iter()
            .map(|&(point, _)| {
                let corner = point.map(|c| (c / cell).round());
                let on_corner = (0..3).all(|axis| (point[axis] - corner[axis] * cell).abs() < HAIR);
                if !on_corner {
                    return 1.0;
                }
                let [x, y, z] = corner.map(|c| c as i32);
                let filled = (0..8)
                    .filter(|&octant| {
                        own.at(
                            x - 1 + (octant & 1),
                            y - 1 + ((octant >> 1) & 1),
                            z - 1 + (octant >> 2),
                        )
                        .is_some()
                    })
                    .count();
                filled.clamp(1, 7) as f64
            })
            .collect()
    }

    /// Each block's push and its moment about the piece's middle: each push (`spread` as it is
    /// taken, at the point of `pushes`) goes to the blocks at its point on the side of the
    /// step's other pushes, shared by their masses.
    fn taken(
        &self,
        blocks: &[Block],
        own: &BlockStore,
        pushes: &[Push],
        spread: &[[f64; 3]],
    ) -> (Vec<[f64; 3]>, Vec<[f64; 3]>) {
        let count = blocks.len();
        let mut taken = vec![[0.0; 3]; count];
        let mut turned = vec![[0.0; 3]; count];
        let places: Vec<Place> = pushes.iter().map(|&(point, _)| Place::of(point)).collect();
        // The corners pushed: flags over the box's corners, or a sorted list without a grid.
        let mut flags = Vec::new();
        let mut listed = Vec::new();
        match &self.grid {
            Some(grid) => {
                flags = vec![false; grid.corners()];
                for place in &places {
                    if let Some(at) = grid.corner_index(place.corner) {
                        flags[at] = true;
                    }
                }
            }
            None => {
                listed = places.iter().map(|place| place.corner).collect();
                listed.sort_unstable();
                listed.dedup();
            }
        }
        let mut found = Vec::new();
        for ((&(point, _), &push), place) in pushes.iter().zip(spread).zip(&places) {
            let sides = match &self.grid {
                Some(grid) => grid.sides(&flags, place),
                None => {
                    let mut sides = [0i8; 3];
                    for (axis, side) in sides.iter_mut().enumerate() {
                        if place.on_line[axis] {
                            let mut beyond = place.corner;
                            beyond[axis] += 1;
                            let after = listed.binary_search(&beyond).is_ok();
                            beyond[axis] -= 2;
                            let before = listed.binary_search(&beyond).is_ok();
                            *side = i8::from(after) - i8::from(before);
                        }
                    }
                    sides
                }
            };
            self.blocks_at(blocks, own, point, place, sides, &mut found);
            let mass: f64 = found.iter().map(|&b| self.masses[b as usize]).sum();
            let moment = cross(sub(point, self.middle), push);
            for &block in &found {
                let share = self.masses[block as usize] / mass;
                let block = block as usize;
                taken[block] = add(taken[block], scale(push, share));
                turned[block] = add(turned[block], scale(moment, share));
            }
        }
        (taken, turned)
    }

    /// The part each block ends in (the first block of its part's chains, see [`Chains`])
    /// once the cuts the pushes overload have given way, the most overloaded first.
    fn give_way(&self, taken: &[[f64; 3]], turned: &[[f64; 3]]) -> Vec<u32> {
        let count = self.masses.len();
        let mut cut = vec![false; count];
        let mut top = vec![0; count];
        self.tops(&cut, &mut top);
        let mut holds = self.holds.clone();
        let mut holding = vec![true; self.joints.len()];
        let mut ratios = vec![0.0; count];
        let mut most = vec![0.0f64; count];
        loop {
            let loads = self.loads(&top, taken, turned);
            most.fill(0.0);
            for block in 0..count {
                ratios[block] = loads[block] / holds[block];
                let part = top[block] as usize;
                most[part] = most[part].max(ratios[block]);
            }
            let mut gave = false;
            for block in 0..count {
                let part = top[block] as usize;
                if part != block && ratios[block] > 1.0 && ratios[block] >= TOGETHER * most[part] {
                    cut[block] = true;
                    gave = true;
                }
            }
            if !gave {
                return top;
            }
            self.tops(&cut, &mut top);
            self.let_go(&top, &mut holding, &mut holds);
        }
    }

    /// Each block's part: the first block of its chains below every `cut` link.
    fn tops(&self, cut: &[bool], top: &mut [u32]) {
        for &block in &self.chains.order {
            let toward = self.chains.toward[block as usize];
            top[block as usize] = if toward == u32::MAX || cut[block as usize] {
                block
            } else {
                top[toward as usize]
            };
        }
    }

    /// What each branch's cut carries (newtons) when each part (`top`) is pushed what its
    /// blocks took and moves as one: the branch's pushes less what its mass needs to follow
    /// the part. Zero for the first block of a part.
    fn loads(&self, top: &[u32], taken: &[[f64; 3]], turned: &[[f64; 3]]) -> Vec<f64> {
        let count = self.masses.len();
        let mut mass = vec![0.0; count];
        let mut first = vec![[0.0; 3]; count];
        let mut push = vec![[0.0; 3]; count];
        let mut moment = vec![[0.0; 3]; count];
        let mut inertia = vec![[[0.0; 3]; 3]; count];
        for block in 0..count {
            let part = top[block] as usize;
            mass[part] += self.masses[block];
            first[part] = add(first[part], scale(self.levers[block], self.masses[block]));
            push[part] = add(push[part], taken[block]);
            moment[part] = add(moment[part], turned[block]);
            for (sum, row) in inertia[part].iter_mut().zip(&self.inertias[block]) {
                *sum = add(*sum, *row);
            }
        }
        // Each part's middle and motion: its inertia about its own middle is the one about
        // the piece's less its mass at its middle's lever.
        let mut middle = vec![[0.0; 3]; count];
        let mut speed = vec![[0.0; 3]; count];
        let mut spin = vec![[0.0; 3]; count];
        for part in 0..count {
            if top[part] as usize != part {
                continue;
            }
            middle[part] = scale(first[part], 1.0 / mass[part]);
            speed[part] = scale(push[part], 1.0 / mass[part]);
            let lever = at_lever(mass[part], middle[part]);
            let own: Matrix =
                std::array::from_fn(|r| std::array::from_fn(|c| inertia[part][r][c] - lever[r][c]));
            let about = sub(moment[part], cross(middle[part], push[part]));
            spin[part] = inverse(&own).map_or([0.0; 3], |turn| times(&turn, about));
        }
        let mut branch: Vec<[f64; 3]> = (0..count)
            .map(|block| {
                let part = top[block] as usize;
                let lever = sub(self.levers[block], middle[part]);
                let follows = add(speed[part], cross(spin[part], lever));
                sub(taken[block], scale(follows, self.masses[block]))
            })
            .collect();
        for &block in self.chains.order.iter().rev() {
            let toward = self.chains.toward[block as usize];
            if top[block as usize] != block {
                branch[toward as usize] = add(branch[toward as usize], branch[block as usize]);
            }
        }
        (0..count)
            .map(|block| {
                if top[block] as usize == block {
                    0.0
                } else {
                    length(branch[block]) / STEP
                }
            })
            .collect()
    }

    /// Takes the joints still `holding` between two parts (`top`) off what holds the branches
    /// their chain paths cross: what holds each branch to the rest of its part. A part's
    /// first block is held by nothing but is not weighed (infinite).
    fn let_go(&self, top: &[u32], holding: &mut [bool], holds: &mut [f64]) {
        for (joint, holding) in self.joints.iter().zip(holding.iter_mut()) {
            if *holding && top[joint.a as usize] != top[joint.b as usize] {
                *holding = false;
                self.chains
                    .walk(joint, |block| holds[block as usize] -= joint.holds);
            }
        }
        for (block, holds) in holds.iter_mut().enumerate() {
            if top[block] as usize == block {
                *holds = f64::INFINITY;
            }
        }
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

    /// The blocks at a point of the piece's own frame, each once, in ascending index: those
    /// whose cells lie around it, on the side `sides` says along each axis where the point is
    /// on a cell's side (+1 the cell above, −1 below, 0 both); failing that on both sides;
    /// failing that the nearest block.
    fn blocks_at(
        &self,
        blocks: &[Block],
        own: &BlockStore,
        point: [f64; 3],
        place: &Place,
        sides: [i8; 3],
        found: &mut Vec<u32>,
    ) {
        found.clear();
        for sides in [sides, [0; 3]] {
            let mut cells = [[0i32; 2]; 3];
            let mut counts = [1usize; 3];
            for axis in 0..3 {
                let line = place.corner[axis];
                if !place.on_line[axis] {
                    cells[axis][0] = place.cell[axis];
                    continue;
                }
                match sides[axis] {
                    1 => cells[axis][0] = line,
                    -1 => cells[axis][0] = line - 1,
                    _ => {
                        cells[axis] = [line - 1, line];
                        counts[axis] = 2;
                    }
                }
            }
            for &x in &cells[0][..counts[0]] {
                for &y in &cells[1][..counts[1]] {
                    for &z in &cells[2][..counts[2]] {
                        let index = match &self.grid {
                            Some(grid) => grid.at([x, y, z]),
                            None => own
                                .at(x, y, z)
                                .and_then(|id| self.by_slot.get(id.slot()).copied())
                                .filter(|&index| index != u32::MAX),
                        };
                        if let Some(index) = index {
                            if !found.contains(&index) {
                                found.push(index);
                            }
                        }
                    }
                }
            }
            if !found.is_empty() {
                found.sort_unstable();
                return;
            }
            if sides == [0; 3] {
                break;
            }
        }
        if !blocks.is_empty() {
            found.push(nearest_block(blocks, point));
        }
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

/// A step's pushes as a rigid contact carries them: the pushes `w_k (λ + μ × r_k)` at the same
/// points, `w_k = a_k |J_k|` (each point as stiff as what it was pushed, and as its share of
/// the surface, `areas`: [`Joints::areas`]), `r_k` from the points'
/// middle weighted so, with the same net push and moment as `pushes`, the least
/// `Σ |f_k|² / w_k` of them all. So `λ = ΣJ / Σw` and `G μ = Σ r_k × J_k`, with
/// `G = Σ w_k (|r_k|² 1 − r_k r_kᵀ)`. Points in a line (or one point) leave `G` without a
/// turn about that line, which their pushes have no moment about either: `G` gets a
/// billionth of its trace on each axis, which keeps the moment to that share and the sizes
/// (see [`Joints::impact_limit`]) within the pushes'. The sideways and uneven share the solver
/// leaves in a landing's pushes, which moves nothing, goes.
pub fn even_spread(pushes: &[Push], areas: &[f64]) -> Vec<[f64; 3]> {
    let weights: Vec<f64> = pushes
        .iter()
        .zip(areas)
        .map(|(&(_, push), &area)| area * length(push))
        .collect();
    let total: f64 = weights.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return pushes.iter().map(|&(_, push)| push).collect();
    }
    let mut centre = [0.0; 3];
    for (&(point, _), &weight) in pushes.iter().zip(&weights) {
        centre = add(centre, scale(point, weight / total));
    }
    let mut net = [0.0; 3];
    let mut moment = [0.0; 3];
    let mut spread = [[0.0; 3]; 3];
    for (&(point, push), &weight) in pushes.iter().zip(&weights) {
        let r = sub(point, centre);
        net = add(net, push);
        moment = add(moment, cross(r, push));
        let far = dot(r, r);
        for row in 0..3 {
            for column in 0..3 {
                let along = if row == column { far } else { 0.0 };
                spread[row][column] += weight * (along - r[row] * r[column]);
            }
        }
    }
    let trace = spread[0][0] + spread[1][1] + spread[2][2];
    // Points within a hair of each other are one point, with no turn to spread.
    let turn = if trace > total * HAIR * HAIR {
        for (axis, row) in spread.iter_mut().enumerate() {
            row[axis] += 1e-9 * trace;
        }
        inverse(&spread).map_or([0.0; 3], |inverse| times(&inverse, moment))
    } else {
        [0.0; 3]
    };
    // The weighted points' middle is `centre` but for rounding: what the turn adds over them
    // is taken off the push along, so that the net push stays the pushes'.
    let first = pushes
        .iter()
        .zip(&weights)
        .fold([0.0; 3], |first, (&(point, _), &weight)| {
            add(first, scale(sub(point, centre), weight))
        });
    let along = scale(sub(net, cross(turn, first)), 1.0 / total);
    pushes
        .iter()
        .zip(&weights)
        .map(|(&(point, _), &weight)| scale(add(along, cross(turn, sub(point, centre))), weight))
        .collect()
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
mod tests;
