//! Strength: where a falling piece breaks when it strikes something (docs/blocks.md,
//! "Strength"). Standing buildings keep the support rule (`support`, docs/support.md): strength
//! is only about pieces, and only about what pushes them in a step.
//!
//! **Joints.** Two blocks of a piece that share part of a side are joined over that area; two
//! that share only part of an edge are joined along it as if over a strip [`EDGE_SHARE`] of a
//! cell wide (a tenth of a side joint of that length); blocks that meet at a corner are not
//! joined. A joint holds the weaker of its two materials' strengths (`blocks::materials`)
//! times its area, in newtons.
//!
//! **Cuts.** The blocks hang together in breadth-first chains of joints from the block at the
//! piece's middle of mass (neighbours in block order). Each block beyond the first and what
//! lies beyond it in the chains is a *branch*; every joint between a branch and the rest holds
//! it, together: the branch's *cut*. For a piece whose joints make no ring (a beam, a column,
//! an L, a T) the cuts are its joints, whichever block the chains start from.
//!
//! **Load.** The physics reports each push on a piece (normal and friction together) in a
//! step whose normal pushes reached its impact limit ([`Joints::impact_limit`]). The piece is
//! rigid: it moves as one, so a cut holds what its branch is pushed *less what the branch's
//! own mass needs to follow the whole piece's change of motion*. The step's pushes `J` change
//! the piece's velocity by `Δv = ΣJ / m` and its spin by `Δω = I⁻¹ Σ r × J` (its own frame,
//! about its middle); block `i` needs `m_i (Δv + Δω × r_i)` of it. Gravity pulls every block
//! alike and loads nothing. Over the whole piece these needs add up to the pushes, so a cut's
//! load is the same seen from either side, whichever block the chains start from:
//!
//! ```text
//!   a beam landing flat:  ↑      ↑      ↑      ↑     each block is pushed what it needs
//!                       [ 0 ]──[ 1 ]──[ 2 ]──[ 3 ]   to slow as the beam does: no load.
//!
//!   across a post:             ↑↑↑                   the post stops block 2; blocks 3 and
//!                [ 0 ]──[ 1 ]──[ 2 ]──[ 3 ]──[ 4 ]   4 need 2/5 of the blow to follow
//!                              ▐██▌                  through 2–3 (so do 0 and 1 through 1–2),
//!                                                    block 4 1/5 through 3–4.
//! ```
//!
//! A blow at one end also turns the piece: its far blocks must be turned back, so a blow
//! square to a 4-block beam's end loads its joints 0.22, 0.21 and 0.28 of the blow, the far
//! one most (the load is the force across a cut, not its bending). A tilted landing pushes
//! along the beam as well, which the near joint carries for the three blocks beyond it: a
//! beam landing at 20° on its end breaks there.
//!
//! **The pushes, spread as a rigid contact carries them.** How a step's pushes share out over
//! the points a piece touches with is not settled by its motion: any pushes with the same net
//! push and moment move a rigid piece alike, and the solver (sequential impulses, 8 passes)
//! ends with one of them, uneven and squeezing. A 4-block plaster beam landing flat from 10 m
//! took 750–1760 N s on its points, with sideways parts up to 990 N s that squeeze it
//! together: taken as they came, its joints would carry 0.7–1.0 of what they hold (1 m blocks:
//! 1.1–1.7, and it would break). So each step's pushes are first spread as a rigid contact of
//! springs would carry them, each point as stiff as what the solver pushed it
//! ([`even_spread`]): the pushes `w_k (λ + μ × r_k)`, `w_k = |J_k|`, with the step's net push
//! and moment, least apart from the solver's (least `Σ |f_k|² / w_k`). The squeeze and the
//! uneven share of a flat landing go (the flat beams' joints carry 0.04–0.38 of what they
//! hold). Springs all alike (the plain least squares, `w_k = 1`) would even out more, but
//! would have points push that hardly pushed, and sideways where nothing could hold them: a
//! piece lying on the ground and struck at its end would have its blow spread over the ground
//! under it. With each point as stiff as it pushed, a point that pushed little stays one that
//! pushed little, and the spread never adds to the pushes' total size, which keeps the impact
//! limit sound.
//!
//! **Where a push goes.** Each push goes to the blocks at its point, shared by their masses. A
//! point where blocks meet stands for the contact around it, on the side where the step's
//! other pushes lie: along each axis with a pushed point one cell beyond it on one side only,
//! it goes to the blocks on that side (a 0.5 m block landing on a 0.5 m post is pushed at its
//! four corners, which it shares with its neighbours; the post pushes it alone).
//!
//! **Giving way.** A cut gives way when its load over the step's length is more than its
//! joints hold together; it breaks them all. The most overloaded cut of a piece gives way
//! first, and with it every cut loaded at least [`TOGETHER`] of it (a symmetric piece's
//! mirrored cuts, alike but for the solver's noise, give way together). The parts are then
//! weighed again, each with the pushes on it alone and its own motion, until nothing more
//! gives way: a part that was not pushed follows freely and loads nothing. So a beam struck at
//! one end loses that end, not every joint the blow would have loaded had it held. The piece
//! then splits into the groups that still hold together.
//!
//! A push of one step is a blow: a landing's pushes come in the step it strikes, a piece lying
//! still takes its weight's push every step (`m g · STEP`), which its blocks need to stay
//! still, so nothing breaks under its own weight, and rubble at rest is not stepped at all.

use blockfall_engine::physics::{FRICTION, STEP};

use crate::blocks::materials::{part_of, MATERIALS};
use crate::blocks::store::{Block, BlockId, BlockStore, CELL};
use crate::support::for_each_touching;

/// What an edge joint holds against a side joint of the same length: as if the blocks were
/// joined over a strip a tenth of a cell wide along the edge.
pub const EDGE_SHARE: f64 = 0.1;

/// Cuts of a part loaded at least this share of its most overloaded cut give way with it.
pub const TOGETHER: f64 = 0.8;

/// Pascals per megapascal of the material table.
const PASCALS: f64 = 1e6;

/// How near a cell's side a point lies on it, meters.
const HAIR: f64 = 1e-4;

/// A push on a piece in one step: where (its own frame, meters) and how hard (newton
/// seconds, its own frame).
pub type Push = ([f64; 3], [f64; 3]);

type Matrix = [[f64; 3]; 3];

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

/// Each cell of a piece's box, the block that fills it: for finding the blocks at a push
/// without asking the store, kept when the box is not much more than the piece (at most
/// [`GRID_SHARE`] times its cells, or [`GRID_CELLS`]).
#[derive(Debug, Clone, Default)]
struct Grid {
    /// The lowest cell of the box.
    low: [i32; 3],
    /// The box's cells along each axis.
    size: [i32; 3],
    /// Each cell's block ([`u32::MAX`]: none), x fastest.
    cells: Vec<u32>,
}

/// How many times a piece's cells its box may hold and still be kept as a [`Grid`].
const GRID_SHARE: usize = 8;

/// A box of this many cells is kept as a [`Grid`] however few of them the piece fills.
const GRID_CELLS: usize = 4096;

impl Grid {
    /// The grid of a piece's blocks, unless its box is too big for it.
    fn of(blocks: &[Block]) -> Option<Self> {
        let mut low = [i32::MAX; 3];
        let mut high = [i32::MIN; 3];
        let mut filled = 0usize;
        for block in blocks {
            let size = i32::from(block.size);
            for axis in 0..3 {
                low[axis] = low[axis].min(block.low()[axis]);
                high[axis] = high[axis].max(block.low()[axis] + size);
            }
            filled += usize::from(block.size).pow(3);
        }
        let size: [i32; 3] = std::array::from_fn(|axis| high[axis] - low[axis]);
        let volume = size.iter().try_fold(1usize, |volume, &side| {
            volume.checked_mul(usize::try_from(side).ok()?)
        })?;
        if blocks.is_empty() || volume > (GRID_SHARE * filled).max(GRID_CELLS) {
            return None;
        }
        let mut grid = Grid {
            low,
            size,
            cells: vec![u32::MAX; volume],
        };
        for (index, block) in blocks.iter().enumerate() {
            for cell in block.cells() {
                if let Some(at) = grid.index(cell) {
                    grid.cells[at] = index as u32;
                }
            }
        }
        Some(grid)
    }

    /// Where a cell is in `cells`, if it is in the box.
    #[inline]
    fn index(&self, cell: [i32; 3]) -> Option<usize> {
        let offset = |axis: usize| {
            let offset = i64::from(cell[axis]) - i64::from(self.low[axis]);
            (0..i64::from(self.size[axis]))
                .contains(&offset)
                .then_some(offset as usize)
        };
        let (x, y, z) = (offset(0)?, offset(1)?, offset(2)?);
        let (width, depth) = (self.size[0] as usize, self.size[1] as usize);
        Some((z * depth + y) * width + x)
    }

    /// The block filling a cell, if any.
    #[inline]
    fn at(&self, cell: [i32; 3]) -> Option<u32> {
        self.index(cell)
            .map(|at| self.cells[at])
            .filter(|&block| block != u32::MAX)
    }

    /// Where a corner of the cells is among the corners of the box (one more along each axis
    /// than its cells), if it is one of them.
    #[inline]
    fn corner_index(&self, corner: [i32; 3]) -> Option<usize> {
        let offset = |axis: usize| {
            let offset = i64::from(corner[axis]) - i64::from(self.low[axis]);
            (0..=i64::from(self.size[axis]))
                .contains(&offset)
                .then_some(offset as usize)
        };
        let (x, y, z) = (offset(0)?, offset(1)?, offset(2)?);
        let (width, depth) = (self.size[0] as usize + 1, self.size[1] as usize + 1);
        Some((z * depth + y) * width + x)
    }

    /// Along each axis on whose cell sides a point lies, the side with a pushed corner (of
    /// `pushed`, by [`Grid::corner_index`]) one cell beyond it, when only one side has:
    /// +1 above, −1 below, else 0.
    fn sides(&self, pushed: &[bool], place: &Place) -> [i8; 3] {
        let mut sides = [0i8; 3];
        let Some(at) = self.corner_index(place.corner) else {
            return sides;
        };
        let mut stride = 1usize;
        for (axis, side) in sides.iter_mut().enumerate() {
            let offset = i64::from(place.corner[axis]) - i64::from(self.low[axis]);
            if place.on_line[axis] {
                let after = offset < i64::from(self.size[axis]) && pushed[at + stride];
                let before = offset > 0 && pushed[at - stride];
                *side = i8::from(after) - i8::from(before);
            }
            stride *= self.size[axis] as usize + 1;
        }
        sides
    }

    /// How many corners the box has.
    fn corners(&self) -> usize {
        self.size.iter().map(|&side| side as usize + 1).product()
    }
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
    /// is the one of least `Σ |f_k|² / |J_k|`, which the pushes themselves make `Σ |J_k|`, so
    /// `(Σ |f_k|)² ≤ Σ |f_k|² / |J_k| · Σ |J_k| ≤ (Σ |J_k|)²` (Cauchy–Schwarz): it never adds
    /// to the pushes' size. A contact's friction is at most [`FRICTION`] times its normal
    /// push, so its whole push at most `√(1 + FRICTION²)` times it. The load is therefore at
    /// most `G_B √(1 + FRICTION²)` times the normal pushes together, and below what the cut
    /// holds over the step while they stay below `holds · STEP / (G_B √(1 + FRICTION²))`.
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
        let most = (1.0 + FRICTION * FRICTION).sqrt();
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
        let spread = even_spread(pushes);
        let (taken, turned) = self.taken(blocks, own, pushes, &spread);
        let top = self.give_way(&taken, &turned);
        for (joint, broken) in self.joints.iter().zip(&mut broken) {
            *broken = top[joint.a as usize] != top[joint.b as usize];
        }
        broken
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

/// Where a point lies among the cells: the cell it is in, the nearest corner of the cells,
/// and along which axes it lies on a cell's side (within [`HAIR`]).
struct Place {
    cell: [i32; 3],
    corner: [i32; 3],
    on_line: [bool; 3],
}

impl Place {
    fn of(point: [f64; 3]) -> Self {
        // Cells lie within ±2²⁰ of the origin (`scene::WORLD_CELLS`): shifted by 2²², a cell
        // coordinate is positive, and cutting off its fraction takes it down to the cell.
        const SHIFT: f64 = 4_194_304.0;
        let scale = 1.0 / f64::from(CELL);
        let mut place = Place {
            cell: [0; 3],
            corner: [0; 3],
            on_line: [false; 3],
        };
        for (axis, &coordinate) in point.iter().enumerate() {
            let at = coordinate * scale;
            let down = (at + SHIFT) as i64 - SHIFT as i64;
            let nearest = (at + 0.5 + SHIFT) as i64 - SHIFT as i64;
            place.cell[axis] = down as i32;
            place.corner[axis] = nearest as i32;
            place.on_line[axis] = (at - nearest as f64).abs() <= HAIR * scale;
        }
        place
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
/// points, `w_k = |J_k|` (each point as stiff as what it was pushed), `r_k` from the points'
/// middle weighted so, with the same net push and moment as `pushes`, the least
/// `Σ |f_k|² / w_k` of them all. So `λ = ΣJ / Σw` and `G μ = Σ r_k × J_k`, with
/// `G = Σ w_k (|r_k|² 1 − r_k r_kᵀ)`. Points in a line (or one point) leave `G` without a
/// turn about that line, which their pushes have no moment about either: `G` gets a
/// billionth of its trace on each axis, which keeps the moment to that share and the sizes
/// (see [`Joints::impact_limit`]) within the pushes'. The sideways and uneven share the solver
/// leaves in a landing's pushes, which moves nothing, goes.
pub fn even_spread(pushes: &[Push]) -> Vec<[f64; 3]> {
    let weights: Vec<f64> = pushes.iter().map(|&(_, push)| length(push)).collect();
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

#[inline]
fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
fn scale(a: [f64; 3], factor: f64) -> [f64; 3] {
    [a[0] * factor, a[1] * factor, a[2] * factor]
}

#[inline]
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline]
fn length(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// The inertia of a mass at a lever about the point it is measured from:
/// `m (|d|² 1 − d dᵀ)`.
fn at_lever(mass: f64, d: [f64; 3]) -> Matrix {
    let far = dot(d, d);
    std::array::from_fn(|row| {
        std::array::from_fn(|column| {
            let along = if row == column { far } else { 0.0 };
            mass * (along - d[row] * d[column])
        })
    })
}

/// The matrix that crosses `a` with what it multiplies: `[a]× b = a × b`.
fn cross_matrix(a: [f64; 3]) -> Matrix {
    [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]]
}

fn times(m: &Matrix, v: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|row| dot(m[row], v))
}

fn product(a: &Matrix, b: &Matrix) -> Matrix {
    std::array::from_fn(|row| {
        std::array::from_fn(|column| (0..3).map(|k| a[row][k] * b[k][column]).sum())
    })
}

/// The inverse of a 3 × 3 matrix, unless it is singular (or not finite).
fn inverse(m: &Matrix) -> Option<Matrix> {
    let cofactor = |row: usize, column: usize| {
        let (r0, r1) = ((row + 1) % 3, (row + 2) % 3);
        let (c0, c1) = ((column + 1) % 3, (column + 2) % 3);
        m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
    };
    let determinant: f64 = (0..3)
        .map(|column| m[0][column] * cofactor(0, column))
        .sum();
    if !(determinant.is_finite() && determinant != 0.0) {
        return None;
    }
    Some(std::array::from_fn(|row| {
        std::array::from_fn(|column| cofactor(column, row) / determinant)
    }))
}

/// The largest factor by which a 3 × 3 matrix stretches a vector (its spectral norm): the
/// root of the largest eigenvalue of `mᵀ m`, in closed form (Smith's).
fn norm(m: &Matrix) -> f64 {
    let s: Matrix = std::array::from_fn(|row| {
        std::array::from_fn(|column| (0..3).map(|k| m[k][row] * m[k][column]).sum())
    });
    let off = s[0][1] * s[0][1] + s[0][2] * s[0][2] + s[1][2] * s[1][2];
    let mean = (s[0][0] + s[1][1] + s[2][2]) / 3.0;
    let largest = if off == 0.0 {
        s[0][0].max(s[1][1]).max(s[2][2])
    } else {
        let spread = ((0..3).map(|i| (s[i][i] - mean).powi(2)).sum::<f64>() + 2.0 * off) / 6.0;
        let p = spread.sqrt();
        let b: Matrix = std::array::from_fn(|row| {
            std::array::from_fn(|column| {
                (s[row][column] - if row == column { mean } else { 0.0 }) / p
            })
        });
        let determinant = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
            - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
            + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
        let angle = (determinant / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
        mean + 2.0 * p * angle.cos()
    };
    largest.max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
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
                even_spread(pushes)
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
        // A plaster beam pushed evenly under its whole length (each point for the ground
        // around it: the points at its ends for half as much): every block is pushed what it
        // needs to slow with the rest, so nothing passes through a joint.
        let test = Test::of(beam(4, 1, PLASTER));
        let hard = 1e3 * PLASTER_SIDE * STEP;
        let mut even = under(0.0, 2.0, hard);
        for push in &mut even {
            if push.0[0] == 0.0 || push.0[0] == 2.0 {
                push.1[1] /= 2.0;
            }
        }
        let loads = test.joint_loads(&even, true);
        assert!(
            loads.iter().all(|&load| load < 1e-9 * hard / STEP),
            "{loads:?}"
        );
        assert_eq!(test.broken(&even), [false; 3]);
        // Pushed alike at every point, its end blocks take 3/10 of the push and need 1/4:
        // 1/20 of it passes through the end joints.
        let alike = test.joint_loads(&under(0.0, 2.0, hard), true);
        let whole = 10.0 * hard / STEP;
        for (load, share) in alike.iter().zip([0.05, 0.0, 0.05]) {
            assert!((load - share * whole).abs() < 1e-9 * whole, "{alike:?}");
        }
        // As the solver left a 10 m landing of it (seen in a run): uneven, and squeezed
        // together by sideways pushes up to 0.6 of the upward ones. Taken as they came they
        // would load its middle joint to what it holds at this size; spread as the rigid
        // contact carries them, to an eighth of that.
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
            even.iter().all(|&load| load < 0.2 * PLASTER_SIDE),
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
            let spread = even_spread(&pushes);
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
                    let mut point: [f64; 3] =
                        std::array::from_fn(|a| low[a] + random.next() * size);
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
        // length at its end loses that end at 2.0 times it (`G_B` is 1.30 for its joints: a
        // push aimed worst, with friction, would break it at the limit).
        let test = Test::of(beam(4, 1, PLASTER));
        let limit = test.joints.impact_limit();
        let blow = |size: f64| [([0.0, 0.25, 0.25], [size, 0.0, 0.0])];
        assert_eq!(test.broken(&blow(1.9 * limit)), [false; 3]);
        assert_eq!(test.broken(&blow(2.1 * limit)), [true, false, false]);
    }
}
