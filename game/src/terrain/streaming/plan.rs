//! Which chunks are loaded around the viewer: nearest first within the view radius, unloaded
//! beyond it, and which loaded chunks an edit touched. The decisions alone — [`super::stream`]
//! carries them out (the workers prepare the grids, the renderer meshes them) — so that they can
//! be tested on their own.
//!
//! A chunk is unloaded only once it lies a chunk beyond the view radius (hysteresis): a viewer
//! walking back and forth across a chunk border does not load and unload the same chunks every
//! frame. Loads come a budget at a time, nearest first, so the ground under the viewer is
//! there in the first frames and a turn of the head never stalls a frame.

use std::cell::Cell;
use std::collections::BTreeSet;

use crate::terrain::chunks::{chunks_in_view, chunks_touched, load_order, ChunkCoord, CHUNK_SIZE};
use crate::terrain::edits::SampleBox;

/// The view radius by default, in chunks (32 m each).
pub const VIEW_RADIUS: u32 = 8;

/// What to do this frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamPlan {
    /// Chunks to generate and mesh, nearest first.
    pub load: Vec<ChunkCoord>,
    /// Chunks to drop (their GPU memory freed).
    pub unload: Vec<ChunkCoord>,
}

/// The chunks loaded around a viewer.
#[derive(Debug, Clone)]
pub struct Streamer {
    radius: u32,
    loaded: BTreeSet<ChunkCoord>,
    /// [`Streamer::missing`]'s last answer and the viewer it was for (the position's bits):
    /// the HUD and the trace ask every frame, and counting walks every chunk of the view
    /// (0.3 ms at the default radius, most of a frame's recording). Forgotten whenever the
    /// loaded chunks change; [`Streamer::plan`] leaves the count it found on its way.
    missing: Cell<Option<([u32; 3], usize)>>,
}

impl Streamer {
    /// A streamer keeping the chunks within `radius` chunks (at most 64) of the viewer.
    pub fn new(radius: u32) -> Self {
        Self {
            radius: radius.min(64),
            loaded: BTreeSet::new(),
            missing: Cell::new(None),
        }
    }

    pub fn radius(&self) -> u32 {
        self.radius
    }

    /// The chunks loaded now, in a fixed order.
    pub fn loaded(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        self.loaded.iter().copied()
    }

    pub fn is_loaded(&self, coord: ChunkCoord) -> bool {
        self.loaded.contains(&coord)
    }

    /// This frame's loads (at most `budget`, nearest the viewer first) and unloads (every
    /// loaded chunk more than a chunk beyond the radius). The plan counts as done: the chunks
    /// it loads are loaded from now on and the ones it unloads are not. A viewer at a
    /// position that is not finite plans nothing.
    pub fn plan(&mut self, viewer: [f32; 3], budget: usize) -> StreamPlan {
        if !viewer.iter().all(|c| c.is_finite()) {
            return StreamPlan::default();
        }
        let keep = f64::from(self.radius + 1) * f64::from(CHUNK_SIZE);
        let unload: Vec<ChunkCoord> = self
            .loaded
            .iter()
            .copied()
            .filter(|coord| {
                let centre = coord.centre();
                let squared: f64 = (0..3)
                    .map(|axis| (centre[axis] - f64::from(viewer[axis])).powi(2))
                    .sum();
                squared > keep * keep
            })
            .collect();
        for coord in &unload {
            self.loaded.remove(coord);
        }
        let mut missing = 0;
        let mut load = Vec::new();
        for coord in load_order(viewer, self.radius) {
            if !self.loaded.contains(&coord) {
                missing += 1;
                if load.len() < budget {
                    load.push(coord);
                }
            }
        }
        self.loaded.extend(load.iter().copied());
        self.missing
            .set(Some((viewer.map(f32::to_bits), missing - load.len())));
        StreamPlan { load, unload }
    }

    /// How many chunks within the radius of `viewer` are not loaded yet (0 for a viewer at a
    /// position that is not finite, which plans nothing).
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
        let mut missing = 0;
        chunks_in_view(viewer, self.radius, |_, coord| {
            missing += usize::from(!self.loaded.contains(&coord));
        });
        self.missing.set(Some((key, missing)));
        missing
    }

    /// Takes back loads that could not be carried out: the chunks count as not loaded, so a
    /// later plan loads them again.
    pub fn forget(&mut self, coords: &[ChunkCoord]) {
        for coord in coords {
            self.loaded.remove(coord);
        }
        self.missing.set(None);
    }

    /// The loaded chunks an edit's changed samples reach: the ones to mesh again, in a fixed
    /// order. Chunks not loaded will be generated from the edited ground when they load.
    pub fn touched(&self, changed: &SampleBox) -> Vec<ChunkCoord> {
        let mut touched: Vec<ChunkCoord> = chunks_touched(changed)
            .into_iter()
            .filter(|coord| self.loaded.contains(coord))
            .collect();
        touched.sort();
        touched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
