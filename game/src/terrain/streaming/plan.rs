//! Which chunks are loaded around the viewer, and at which level of detail: full detail near
//! the viewer, coarser levels outward to the view radius, unloaded beyond it, and which loaded
//! chunks an edit touched. The decisions alone — [`super::stream`] carries them out (the
//! workers prepare the grids, the renderer meshes them) — so that they can be tested on their
//! own.
//!
//! **Levels.** The chunks form an octree: a chunk of level `L` is split into its eight
//! children of level `L - 1` while its box is nearer the viewer across the ground (along x
//! and z: [`ground_distance`], so that the borders between levels stand upright) than
//! [`split_distance`]`(L)` (`64 · 2^L` m, twice the chunk's span). So every point within 128 m of the viewer is at full
//! detail (level 0), level 1 reaches to about 256 m, level 2 to 512 m, level 3 to 1,024 m; the
//! coarsest level used is the one whose chunks reach the view radius ([`top_level`]). With
//! splits at twice the span, neighbouring chunks differ by at most one level (their seams are
//! covered by the meshes' skirts). A chunk of level 0 is in view while its centre is within
//! the view radius (a sphere, as before levels); a coarser one while any of its box is, so the
//! horizon is filled out to the radius.
//!
//! **Hysteresis.** A chunk is unloaded only once it lies a chunk (of its level) beyond the view
//! radius, and a split chunk is joined again only once its box is half a child's span beyond
//! its split distance: a viewer walking back and forth across a border does not load and unload
//! the same chunks every frame.
//!
//! **No holes while levels change.** A chunk that is no longer wanted because its region is
//! now wanted at another level stays loaded (and drawn) until every chunk replacing it is
//! loaded; then it goes in the same plan. The chunks of a column (one level's, the view's
//! height) go together, once all of them are replaced: a column half replaced would put a flat
//! border between two levels where the ground, lying flat, may run along it, a crack no skirt
//! covers. Loads come a budget at a time, nearest first (full detail around the viewer first,
//! then the coarse levels outward), so the ground under the viewer is there in the first
//! frames and a turn of the head never stalls a frame.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashSet};

use crate::terrain::chunks::{chunks_touched_at, ChunkCoord, CHUNK_SIZE, FARTHEST, MAX_LEVEL};
use crate::terrain::edits::SampleBox;

/// The view radius by default, in chunks of full detail (32 m each).
pub const VIEW_RADIUS: u32 = 8;

/// The largest view radius, in chunks of full detail: 1,024 m.
pub const MOST_VIEW_RADIUS: u32 = 32;

/// Meters from the viewer within which a chunk of level `level` (≥ 1) is split into the eight
/// of the level below: twice its span, so full detail reaches 128 m.
pub fn split_distance(level: u8) -> f64 {
    2.0 * f64::from(CHUNK_SIZE) * f64::from(1u32 << level)
}

/// The coarsest level a view of `reach` meters needs: the first whose split distance reaches
/// the view's edge (0 for a view within 128 m).
pub fn top_level(reach: f64) -> u8 {
    let mut level = 0;
    while level < MAX_LEVEL && split_distance(level + 1) < reach {
        level += 1;
    }
    level
}

/// How far the viewer may move before a plan works out the chunks in view again, in meters:
/// less than the smallest join margin (8 m), so that no border moves late by much.
const REPLAN_STEP: f64 = 2.0;

/// How far beyond its split distance a split chunk stays split: half a child's span.
fn join_margin(level: u8) -> f64 {
    f64::from(CHUNK_SIZE) * f64::from(1u32 << level) / 4.0
}

/// The distance from `viewer` to the nearest point of `coord`'s box of cells, in meters.
pub fn box_distance(coord: ChunkCoord, viewer: [f64; 3]) -> f64 {
    distance_along(coord, viewer, &[0, 1, 2])
}

/// [`box_distance`] across the ground: along x and z only, as if the viewer stood at every
/// height. The levels split by it, so that a whole column of chunks has one level and the
/// borders between levels stand upright: the ground, mostly level, crosses them steeply, and
/// the skirts close the seams. Split by the distance in three dimensions, a level border
/// would also lie flat, along the ground, where two levels' meshes a little apart in height
/// leave a gap many meters wide across it.
pub fn ground_distance(coord: ChunkCoord, viewer: [f64; 3]) -> f64 {
    distance_along(coord, viewer, &[0, 2])
}

fn distance_along(coord: ChunkCoord, viewer: [f64; 3], axes: &[usize]) -> f64 {
    let span = coord.span();
    let low = [coord.x, coord.y, coord.z].map(|value| f64::from(value) * span);
    axes.iter()
        .map(|&axis| {
            let outside = (low[axis] - viewer[axis]).max(viewer[axis] - low[axis] - span);
            outside.max(0.0).powi(2)
        })
        .sum::<f64>()
        .sqrt()
}

/// The distance from `viewer` to `coord`'s centre, in meters.
pub fn centre_distance(coord: ChunkCoord, viewer: [f64; 3]) -> f64 {
    let centre = coord.centre();
    (0..3)
        .map(|axis| (centre[axis] - viewer[axis]).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// How far the chunks replacing a chunk that is no longer wanted have come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Replacement {
    /// None is wanted: the chunk lies at the view's edge, kept by the hysteresis.
    None,
    /// Some are not loaded yet: the chunk stays, and is drawn, meanwhile.
    Loading,
    /// All are loaded.
    Loaded,
}

/// The column of chunks of one level that `coord` stands in: one level of detail from the
/// bottom of the view to its top ([`ground_distance`] decides the split).
fn column(coord: ChunkCoord) -> (i32, i32, u8) {
    (coord.x, coord.z, coord.level)
}

/// What to do this frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamPlan {
    /// Chunks to generate and mesh, nearest first.
    pub load: Vec<ChunkCoord>,
    /// Chunks to drop (their GPU memory freed).
    pub unload: Vec<ChunkCoord>,
}

/// The chunks a viewer wants: the octree's leaves in view, nearest first, and the chunks split
/// on the way.
#[derive(Debug, Clone, Default)]
struct Wanted {
    /// The viewer's position (its bits) this is for.
    viewer: [u32; 3],
    /// The same, in meters.
    position: [f64; 3],
    /// The leaves in view, nearest first (centre distance, then coordinate).
    order: Vec<ChunkCoord>,
    set: HashSet<ChunkCoord>,
    split: HashSet<ChunkCoord>,
}

/// The chunks loaded around a viewer.
#[derive(Debug, Clone)]
pub struct Streamer {
    radius: u32,
    loaded: BTreeSet<ChunkCoord>,
    /// The chunks split for the last viewer (for the join's hysteresis).
    split: HashSet<ChunkCoord>,
    /// The last viewer's wanted chunks: worked out again only when the viewer moves.
    wanted: RefCell<Option<Wanted>>,
    /// [`Streamer::missing`]'s last answer and the viewer it was for (the position's bits):
    /// the HUD and the trace ask every frame. Forgotten whenever the loaded chunks change;
    /// [`Streamer::plan`] leaves the count it found on its way.
    missing: Cell<Option<([u32; 3], usize)>>,
}

impl Streamer {
    /// A streamer keeping the chunks within `radius` chunks of full detail (at most 64: 2 km)
    /// of the viewer.
    pub fn new(radius: u32) -> Self {
        Self {
            radius: radius.min(64),
            loaded: BTreeSet::new(),
            split: HashSet::new(),
            wanted: RefCell::new(None),
            missing: Cell::new(None),
        }
    }

    pub fn radius(&self) -> u32 {
        self.radius
    }

    /// The view's reach in meters.
    pub fn reach(&self) -> f64 {
        f64::from(self.radius) * f64::from(CHUNK_SIZE)
    }

    /// The coarsest level this streamer loads.
    pub fn top_level(&self) -> u8 {
        top_level(self.reach())
    }

    /// The chunks loaded now, in a fixed order.
    pub fn loaded(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        self.loaded.iter().copied()
    }

    pub fn is_loaded(&self, coord: ChunkCoord) -> bool {
        self.loaded.contains(&coord)
    }

    /// The chunks in view of `viewer` (the octree's leaves), nearest first: what the plans
    /// load. Empty for a position that is not finite or beyond [`FARTHEST`].
    pub fn in_view(&self, viewer: [f32; 3]) -> Vec<ChunkCoord> {
        self.with_wanted(viewer, 0.0, |wanted| wanted.order.clone())
    }

    /// Calls `job` with the chunks `viewer` wants, worked out (with the splits kept from the
    /// last plan) only if the viewer moved since they last were: by more than `slack` meters.
    fn with_wanted<R>(&self, viewer: [f32; 3], slack: f64, job: impl FnOnce(&Wanted) -> R) -> R {
        let key = viewer.map(f32::to_bits);
        let position = viewer.map(f64::from);
        let mut cached = self.wanted.borrow_mut();
        let stale = cached.as_ref().is_none_or(|wanted| {
            wanted.viewer != key
                && (0..3)
                    .map(|axis| (wanted.position[axis] - position[axis]).powi(2))
                    .sum::<f64>()
                    > slack * slack
        });
        if stale {
            *cached = Some(self.work_out_wanted(viewer));
        }
        job(cached.as_ref().expect("just worked out"))
    }

    fn work_out_wanted(&self, viewer: [f32; 3]) -> Wanted {
        let position = viewer.map(f64::from);
        let mut wanted = Wanted {
            viewer: viewer.map(f32::to_bits),
            position,
            ..Wanted::default()
        };
        if !position.iter().all(|value| value.abs() <= FARTHEST) {
            return wanted;
        }
        let reach = self.reach();
        let top = top_level(reach);
        let around = ChunkCoord::containing_at(viewer, top);
        let span = f64::from(CHUNK_SIZE) * f64::from(1u32 << top);
        let steps = (reach / span).ceil() as i32 + 1;
        let mut leaves: Vec<(f64, ChunkCoord)> = Vec::new();
        let mut stack: Vec<ChunkCoord> = Vec::new();
        for z in around.z - steps..=around.z + steps {
            for y in around.y - steps..=around.y + steps {
                for x in around.x - steps..=around.x + steps {
                    stack.push(ChunkCoord::at_level(x, y, z, top));
                }
            }
        }
        while let Some(coord) = stack.pop() {
            let near = box_distance(coord, position);
            if near > reach {
                continue;
            }
            if coord.level > 0 {
                let split_at = split_distance(coord.level);
                let across = ground_distance(coord, position);
                let stays =
                    self.split.contains(&coord) && across < split_at + join_margin(coord.level);
                if across < split_at || stays {
                    wanted.split.insert(coord);
                    stack.extend(coord.children());
                    continue;
                }
            }
            let centre = centre_distance(coord, position);
            // Full detail keeps the sphere of centres; a coarse chunk counts while any of it
            // is in view, so that the horizon is filled to the radius.
            if coord.level > 0 || centre <= reach {
                leaves.push((centre, coord));
            }
        }
        leaves.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        wanted.order = leaves.into_iter().map(|(_, coord)| coord).collect();
        wanted.set = wanted.order.iter().copied().collect();
        wanted
    }

    /// This frame's loads (at most `budget`, nearest the viewer first) and unloads: every
    /// loaded chunk more than a chunk (of its level) beyond the radius, and every chunk no
    /// longer wanted whose region's chunks of the levels now wanted are all loaded. The plan
    /// counts as done: the chunks it loads are loaded from now on and the ones it unloads are
    /// not. A viewer at a position that is not finite plans nothing.
    pub fn plan(&mut self, viewer: [f32; 3], budget: usize) -> StreamPlan {
        if !viewer.iter().all(|c| c.is_finite()) {
            return StreamPlan::default();
        }
        let position = viewer.map(f64::from);
        let reach = self.reach();
        // A viewer a step from the last plan's is planned for with the last plan's chunks:
        // working them out walks every chunk in view (some 8,000 at a radius of 32, most of
        // them open air or solid ground), and the borders' hysteresis is larger than the step.
        let (load, missing, split) = self.with_wanted(viewer, REPLAN_STEP, |wanted| {
            let mut missing = 0;
            let mut load = Vec::new();
            for &coord in &wanted.order {
                if !self.loaded.contains(&coord) {
                    missing += 1;
                    if load.len() < budget {
                        load.push(coord);
                    }
                }
            }
            (load, missing, wanted.split.clone())
        });
        self.split = split;
        self.loaded.extend(load.iter().copied());
        let unload: Vec<ChunkCoord> = self.with_wanted(viewer, REPLAN_STEP, |wanted| {
            // The chunks no longer wanted, and how far their replacements have come. A
            // column's chunks go together, once every one of them that is being replaced is:
            // a column half replaced would leave a flat border between two levels, which the
            // ground, lying flat, may cross along its length.
            let leaving: Vec<(ChunkCoord, Replacement)> = self
                .loaded
                .iter()
                .copied()
                .filter(|coord| !wanted.set.contains(coord))
                .map(|coord| (coord, self.replacement(coord, wanted)))
                .collect();
            let waiting: HashSet<(i32, i32, u8)> = leaving
                .iter()
                .filter(|(_, replacement)| *replacement == Replacement::Loading)
                .map(|(coord, _)| column(*coord))
                .collect();
            leaving
                .into_iter()
                .filter(|&(coord, replacement)| {
                    centre_distance(coord, position) > reach + coord.span()
                        || (replacement == Replacement::Loaded && !waiting.contains(&column(coord)))
                })
                .map(|(coord, _)| coord)
                .collect()
        });
        for coord in &unload {
            self.loaded.remove(coord);
        }
        self.missing
            .set(Some((viewer.map(f32::to_bits), missing - load.len())));
        StreamPlan { load, unload }
    }

    /// How far the chunks wanted in place of `coord` (its region at another level: a coarser
    /// chunk holding it, or the finer ones inside it) have come.
    fn replacement(&self, coord: ChunkCoord, wanted: &Wanted) -> Replacement {
        let state = |loaded: bool| {
            if loaded {
                Replacement::Loaded
            } else {
                Replacement::Loading
            }
        };
        let mut ancestor = coord;
        while ancestor.level < MAX_LEVEL {
            ancestor = ancestor.parent();
            if wanted.set.contains(&ancestor) {
                return state(self.loaded.contains(&ancestor));
            }
        }
        let mut any = false;
        let mut stack: Vec<ChunkCoord> = coord.children().collect();
        while let Some(inside) = stack.pop() {
            if wanted.set.contains(&inside) {
                if !self.loaded.contains(&inside) {
                    return Replacement::Loading;
                }
                any = true;
            } else if wanted.split.contains(&inside) {
                stack.extend(inside.children());
            }
        }
        if any {
            Replacement::Loaded
        } else {
            Replacement::None
        }
    }

    /// How many chunks in view of `viewer` are not loaded yet (0 for a viewer at a position
    /// that is not finite, which plans nothing).
    pub fn missing(&self, viewer: [f32; 3]) -> usize {
        if !viewer.iter().all(|c| c.is_finite()) {
            return 0;
        }
        let key = viewer.map(f32::to_bits);
        if let Some((known, missing)) = self.missing.get() {
            if known == key {
                return missing;
            }
        }
        let missing = self.with_wanted(viewer, 0.0, |wanted| {
            wanted
                .order
                .iter()
                .filter(|coord| !self.loaded.contains(coord))
                .count()
        });
        self.missing.set(Some((key, missing)));
        missing
    }

    /// How many chunks of full detail within 4 chunks (128 m) of `viewer` are not loaded yet:
    /// the near view, which streams first.
    pub fn missing_near(&self, viewer: [f32; 3]) -> usize {
        let position = viewer.map(f64::from);
        let near = 4.0 * f64::from(CHUNK_SIZE);
        self.with_wanted(viewer, 0.0, |wanted| {
            wanted
                .order
                .iter()
                .filter(|coord| coord.level == 0 && centre_distance(**coord, position) <= near)
                .filter(|coord| !self.loaded.contains(coord))
                .count()
        })
    }

    /// Takes back loads that could not be carried out: the chunks count as not loaded, so a
    /// later plan loads them again.
    pub fn forget(&mut self, coords: &[ChunkCoord]) {
        for coord in coords {
            self.loaded.remove(coord);
        }
        self.missing.set(None);
    }

    /// The loaded chunks, of every level, an edit's changed samples reach: the ones to mesh
    /// again, full detail first, each level in coordinate order. Chunks not loaded will be
    /// generated from the edited ground when they load.
    pub fn touched(&self, changed: &SampleBox) -> Vec<ChunkCoord> {
        let mut touched = Vec::new();
        for level in 0..=MAX_LEVEL {
            let mut at_level: Vec<ChunkCoord> = chunks_touched_at(changed, level)
                .into_iter()
                .filter(|coord| self.loaded.contains(coord))
                .collect();
            at_level.sort();
            touched.extend(at_level);
        }
        touched
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::chunks::{chunks_touched, load_order};

    fn distance(coord: ChunkCoord, viewer: [f32; 3]) -> f64 {
        let centre = coord.centre();
        (0..3)
            .map(|axis| (centre[axis] - f64::from(viewer[axis])).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    #[test]
    fn loads_come_nearest_first_within_the_budget_until_the_radius_is_full() {
        let mut streamer = Streamer::new(3);
        let viewer = [10.0, 20.0, 30.0];
        let mut order = Vec::new();
        assert_eq!(streamer.missing(viewer), load_order(viewer, 3).len());
        loop {
            let plan = streamer.plan(viewer, 7);
            assert!(plan.load.len() <= 7 && plan.unload.is_empty());
            if plan.load.is_empty() {
                break;
            }
            order.extend(plan.load);
        }
        assert_eq!(
            order,
            load_order(viewer, 3),
            "all of the sphere, nearest first"
        );
        assert_eq!(streamer.missing(viewer), 0);
        // Loads taken back are loaded again by the next plan.
        streamer.forget(&order[..2]);
        assert_eq!(streamer.missing(viewer), 2);
        assert_eq!(streamer.plan(viewer, 7).load, order[..2].to_vec());
        assert!(order
            .windows(2)
            .all(|w| distance(w[0], viewer) <= distance(w[1], viewer) + 1e-9));
    }

    #[test]
    fn the_missing_count_kept_between_frames_stays_the_true_count() {
        // Plans with small budgets, viewers moving and coming back, loads taken back: after
        // each, the count (kept from the plan or an earlier question) is the one counted anew.
        let mut streamer = Streamer::new(3);
        let truth = |streamer: &Streamer, viewer: [f32; 3]| {
            load_order(viewer, 3)
                .into_iter()
                .filter(|coord| !streamer.is_loaded(*coord))
                .count()
        };
        let viewers = [
            [0.0, 0.0, 0.0],
            [40.0, 5.0, -20.0],
            [0.0, 0.0, 0.0],
            [75.5, 0.0, 3.0],
        ];
        for step in 0..40 {
            let viewer = viewers[step % viewers.len()];
            let plan = streamer.plan(viewer, 5 + step % 7);
            if step % 3 == 0 {
                streamer.forget(&plan.load[..plan.load.len().min(2)]);
            }
            assert_eq!(
                streamer.missing(viewer),
                truth(&streamer, viewer),
                "step {step}"
            );
            // Asked about another viewer, then this one again.
            let other = viewers[(step + 1) % viewers.len()];
            assert_eq!(
                streamer.missing(other),
                truth(&streamer, other),
                "step {step}"
            );
            assert_eq!(
                streamer.missing(viewer),
                truth(&streamer, viewer),
                "step {step}"
            );
        }
    }

    #[test]
    fn chunks_unload_a_chunk_beyond_the_radius_and_not_before() {
        let mut streamer = Streamer::new(2);
        let start = [0.0, 0.0, 0.0];
        while !streamer.plan(start, 1000).load.is_empty() {}
        // Half a chunk away: nothing is dropped.
        let plan = streamer.plan([16.0, 0.0, 0.0], 1000);
        assert!(plan.unload.is_empty(), "{:?}", plan.unload);
        // Far away: what is out of reach goes, and only that.
        let far = [500.0, 0.0, 0.0];
        let plan = streamer.plan(far, 1000);
        assert!(!plan.unload.is_empty());
        assert!(plan
            .unload
            .iter()
            .all(|&c| distance(c, far) > f64::from(3 * CHUNK_SIZE)));
        assert!(streamer
            .loaded()
            .all(|c| distance(c, far) <= f64::from(3 * CHUNK_SIZE)));
    }

    /// The chunks of `leaves` holding `point` (in their box of cells).
    fn holding_in(leaves: &HashSet<ChunkCoord>, point: [f64; 3]) -> Vec<ChunkCoord> {
        (0..=MAX_LEVEL)
            .map(|level| ChunkCoord::containing_at(point.map(|value| value as f32), level))
            .filter(|coord| leaves.contains(coord))
            .collect()
    }

    /// Points on a lattice around `viewer`, within `reach` of it.
    fn points_around(viewer: [f64; 3], reach: f64, step: f64) -> Vec<[f64; 3]> {
        let steps = (reach / step) as i32;
        let mut points = Vec::new();
        for k in -steps..=steps {
            for j in -steps / 4..=steps / 4 {
                for i in -steps..=steps {
                    // Off the chunk borders, so that each point is inside one box only.
                    let offset = [i, j, k].map(|n| f64::from(n) * step + 0.37);
                    if offset.iter().map(|o| o * o).sum::<f64>().sqrt() <= reach {
                        points.push([0, 1, 2].map(|axis| viewer[axis] + offset[axis]));
                    }
                }
            }
        }
        points
    }

    #[test]
    fn the_levels_cover_the_view_once_with_full_detail_near_and_neighbours_a_level_apart() {
        let streamer = Streamer::new(MOST_VIEW_RADIUS);
        let viewer = [37.5f32, 12.0, -81.25];
        let position = viewer.map(f64::from);
        let leaves = streamer.in_view(viewer);
        assert_eq!(streamer.top_level(), 3, "1 km needs levels 0 to 3");
        let levels: BTreeSet<u8> = leaves.iter().map(|coord| coord.level).collect();
        assert_eq!(levels, (0..=3).collect());
        // Every point of the fogged view lies in exactly one chunk in view, at full detail
        // within 128 m.
        let set: HashSet<ChunkCoord> = leaves.iter().copied().collect();
        for point in points_around(position, 0.95 * streamer.reach(), 23.0) {
            let holders = holding_in(&set, point);
            assert_eq!(holders.len(), 1, "{point:?}: {holders:?}");
            let distance = (0..3)
                .map(|axis| (point[axis] - position[axis]).powi(2))
                .sum::<f64>()
                .sqrt();
            if distance <= 128.0 {
                assert_eq!(holders[0].level, 0, "{point:?} at {distance} m");
            }
        }
        // Across every face of every chunk the level changes by one at most.
        for &coord in &leaves {
            let span = coord.span();
            let centre = coord.centre();
            for axis in 0..3 {
                for side in [-1.0, 1.0] {
                    let mut point = centre;
                    point[axis] += side * (span / 2.0 + 0.5);
                    if let [neighbour] = holding_in(&set, point)[..] {
                        assert!(
                            neighbour.level.abs_diff(coord.level) <= 1,
                            "{coord:?} beside {neighbour:?}"
                        );
                        // The borders between levels stand upright: above and below a chunk,
                        // the same level.
                        if axis == 1 {
                            assert_eq!(neighbour.level, coord.level, "{coord:?} on {neighbour:?}");
                        }
                    }
                }
            }
        }
        // Nearest first.
        assert!(leaves.windows(2).all(|pair| {
            centre_distance(pair[0], position) <= centre_distance(pair[1], position)
        }));
        // A small view keeps the sphere of full-detail chunks it always had.
        let small = Streamer::new(3);
        assert_eq!(small.in_view(viewer), load_order(viewer, 3));
    }

    #[test]
    fn while_levels_change_the_loaded_chunks_leave_no_hole_and_end_as_the_view() {
        let mut streamer = Streamer::new(16);
        let mut viewer = [0.0f32, 10.0, 0.0];
        while !streamer.plan(viewer, 40).load.is_empty() {}
        assert_eq!(streamer.missing(viewer), 0);
        let steps = 12;
        for step in 0..steps {
            // Walk 300 m, a plan of 40 loads at each 25 m, and then plans until complete.
            viewer[0] += 25.0;
            let mut plans = 0;
            loop {
                let plan = streamer.plan(viewer, 40);
                plans += 1;
                let loaded: HashSet<ChunkCoord> = streamer.loaded().collect();
                for point in points_around(viewer.map(f64::from), 0.9 * streamer.reach(), 31.0) {
                    assert!(
                        !holding_in(&loaded, point).is_empty(),
                        "step {step}, plan {plans}: a hole at {point:?}"
                    );
                }
                if plan.load.is_empty() && plan.unload.is_empty() {
                    break;
                }
            }
            let wanted: BTreeSet<ChunkCoord> = streamer.in_view(viewer).into_iter().collect();
            let loaded: BTreeSet<ChunkCoord> = streamer.loaded().collect();
            assert!(wanted.is_subset(&loaded), "step {step}");
            // What is left over lies at the view's edge (the unload's hysteresis).
            let position = viewer.map(f64::from);
            for extra in loaded.difference(&wanted) {
                assert!(
                    centre_distance(*extra, position) > streamer.reach() - extra.span(),
                    "step {step}: {extra:?} kept inside the view"
                );
            }
        }
    }

    #[test]
    fn a_column_changes_level_in_one_plan_leaving_no_flat_border_between_levels() {
        // Loads a few at a time while the viewer walks: a chunk replaced by another level's
        // goes in the same plan as the chunks above and below it of its level that are being
        // replaced too, so no flat border between two levels ever stands, not even for a
        // frame: the ground, lying flat, would run along it.
        let mut streamer = Streamer::new(16);
        let mut viewer = [0.0f32, 10.0, 0.0];
        while !streamer.plan(viewer, 1000).load.is_empty() {}
        let mut replaced = 0;
        for step in 0..16 {
            viewer[0] += 20.0;
            viewer[2] += 7.0;
            for plans in 0.. {
                let plan = streamer.plan(viewer, 6);
                let wanted: HashSet<ChunkCoord> = streamer.in_view(viewer).into_iter().collect();
                let position = viewer.map(f64::from);
                for gone in &plan.unload {
                    if centre_distance(*gone, position) > streamer.reach() + gone.span() {
                        continue;
                    }
                    replaced += 1;
                    for dy in [-1, 1] {
                        let beside = ChunkCoord::at_level(gone.x, gone.y + dy, gone.z, gone.level);
                        assert!(
                            !streamer.is_loaded(beside) || wanted.contains(&beside),
                            "step {step}, plan {plans}: {gone:?} went, {beside:?} stays"
                        );
                    }
                }
                if plan.load.is_empty() && plan.unload.is_empty() {
                    break;
                }
            }
        }
        assert!(
            replaced > 100,
            "{replaced} chunks replaced by another level"
        );
    }

    #[test]
    fn a_viewer_pacing_across_a_level_border_loads_nothing_again() {
        let mut streamer = Streamer::new(16);
        // 128 m from the split of the level-1 chunks around x = 0 (a border of full detail).
        let here = [130.0f32, 5.0, 16.0];
        let there = [127.0f32, 5.0, 16.0];
        while !streamer.plan(here, 1000).load.is_empty() {}
        while !streamer.plan(there, 1000).load.is_empty() {}
        for _ in 0..3 {
            while !streamer.plan(here, 1000).unload.is_empty() {}
            while !streamer.plan(there, 1000).unload.is_empty() {}
        }
        for round in 0..10 {
            let viewer = if round % 2 == 0 { here } else { there };
            let plan = streamer.plan(viewer, 1000);
            assert_eq!(plan, StreamPlan::default(), "round {round}");
        }
    }

    #[test]
    fn an_edit_at_a_level_border_touches_the_loaded_chunks_of_both_levels() {
        let mut streamer = Streamer::new(16);
        let viewer = [16.0f32, 5.0, 16.0];
        while !streamer.plan(viewer, 1000).load.is_empty() {}
        // Around x = 128 m along the viewer's row: level 0 on one side, level 1 on the other.
        let leaves = streamer.in_view(viewer);
        let border = leaves
            .iter()
            .filter(|coord| coord.level == 1 && coord.y == 0 && coord.z == 0 && coord.x > 0)
            .map(|coord| coord.x)
            .min()
            .expect("a level-1 chunk beside the full detail");
        let x = border * 64;
        let changed = SampleBox {
            low: [x - 3, 0, 10],
            high: [x + 3, 6, 16],
        };
        let touched = streamer.touched(&changed);
        let levels: BTreeSet<u8> = touched.iter().map(|coord| coord.level).collect();
        assert_eq!(levels, [0, 1].into_iter().collect(), "{touched:?}");
        assert!(touched.iter().all(|&coord| streamer.is_loaded(coord)));
        assert!(touched
            .iter()
            .all(|coord| coord.padded_box().intersects(&changed)));
        // Full detail first.
        assert!(touched
            .windows(2)
            .all(|pair| pair[0].level <= pair[1].level));
    }

    #[test]
    fn an_edit_touches_only_loaded_chunks_and_a_bad_viewer_plans_nothing() {
        let mut streamer = Streamer::new(1);
        while !streamer.plan([16.0, 16.0, 16.0], 100).load.is_empty() {}
        // A dig across the corner of chunk (0, 0, 0) and its neighbours.
        let changed = SampleBox {
            low: [30, 30, 30],
            high: [33, 33, 33],
        };
        let touched = streamer.touched(&changed);
        assert!(!touched.is_empty());
        assert!(touched.iter().all(|&c| streamer.is_loaded(c)));
        let all = chunks_touched(&changed);
        assert!(touched.iter().all(|c| all.contains(c)));
        assert_eq!(
            streamer.plan([f32::NAN, 0.0, 0.0], 10),
            StreamPlan::default()
        );
    }
}
