//! Chunks made ready for meshing on the workers: density grids (Air / Solid proven without
//! sampling where no edit reaches), then the sky light of the chunks that may hold a surface.
//! Many chunks (the start of a run) go in batches of what the mesher takes in one submission,
//! through a pipeline: a thread prepares the next batch on the workers while the caller meshes
//! this one, whose wait for the GPU would otherwise leave the cores idle.
//!
//! ```text
//!   coords ─▶ batches of `per_batch` chunks that may hold a surface (+ the proven ones)
//!   thread:   prepare(batch 1) ─▶ prepare(batch 2) ─▶ prepare(batch 3) ─▶ …
//!   caller:                       each(batch 1)    ─▶ each(batch 2)    ─▶ …
//! ```

use std::time::{Duration, Instant};

use blockfall_physics::workers::WorkerPool;

use crate::terrain::chunks::{classify, generate_chunks, ChunkCoord, ChunkGrid};
use crate::terrain::sky_light::{light_grids, LightGrid};
use crate::terrain::{ChunkKind, EditStore, Ground};

/// A batch of chunks ready for the mesher: density grids, and light for those that may hold a
/// surface (in the same order).
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Every chunk of the batch, in the order asked for.
    pub grids: Vec<ChunkGrid>,
    /// One per grid of kind [`ChunkKind::Mixed`], in their order: the sky light of a chunk of
    /// full detail, none for a coarser one (far terrain is lit as open sky: its caves are out
    /// of sight, and a light grid at its spacing would cost as much as one of full detail).
    pub lights: Vec<Option<LightGrid>>,
    pub generate_time: Duration,
    pub light_time: Duration,
}

/// Fills and lights `coords` on the workers.
pub fn prepare<G: Ground + ?Sized>(
    pool: &WorkerPool,
    edits: &EditStore<G>,
    coords: &[ChunkCoord],
) -> Prepared {
    let started = Instant::now();
    let grids = generate_chunks(pool, edits, coords);
    let mixed: Vec<ChunkCoord> = grids
        .iter()
        .filter(|grid| grid.kind == ChunkKind::Mixed)
        .map(|grid| grid.coord)
        .collect();
    let generated = Instant::now();
    let full: Vec<ChunkCoord> = mixed
        .iter()
        .copied()
        .filter(|coord| coord.level == 0)
        .collect();
    let mut lit = light_grids(pool, edits, &full).into_iter();
    let lights = mixed
        .iter()
        .map(|coord| if coord.level == 0 { lit.next() } else { None })
        .collect();
    Prepared {
        grids,
        lights,
        generate_time: generated - started,
        light_time: generated.elapsed(),
    }
}

/// Prepares `coords` in batches of `per_batch` chunks that may hold a surface and hands each
/// batch to `each`, in order; stops at `each`'s first error. One batch (or none) is prepared
/// here; more go through a thread that prepares the next batch while `each` takes this one.
pub fn prepare_batches<G, E>(
    pool: &WorkerPool,
    edits: &EditStore<G>,
    coords: &[ChunkCoord],
    per_batch: usize,
    mut each: impl FnMut(Prepared) -> Result<(), E>,
) -> Result<(), E>
where
    G: Ground + ?Sized,
{
    let batches = surface_batches(edits, coords, per_batch);
    if batches.len() <= 1 {
        return each(prepare(pool, edits, coords));
    }
    std::thread::scope(|scope| {
        let (sender, receiver) = crossbeam::channel::bounded(1);
        scope.spawn(move || {
            for batch in batches {
                // The receiver is gone when `each` failed: stop.
                if sender.send(prepare(pool, edits, batch)).is_err() {
                    break;
                }
            }
        });
        for prepared in receiver {
            each(prepared)?;
        }
        Ok(())
    })
}

/// `coords` split, in order, into batches that each hold `per_batch` chunks that may have a
/// surface (the last fewer): each batch then fills one submission of the GPU mesher, and the
/// chunks proven air or solid (most of a view sphere) ride along for free.
fn surface_batches<'a, G: Ground + ?Sized>(
    edits: &EditStore<G>,
    coords: &'a [ChunkCoord],
    per_batch: usize,
) -> Vec<&'a [ChunkCoord]> {
    let per_batch = per_batch.max(1);
    let mut batches = Vec::new();
    let mut start = 0;
    let mut candidates = 0;
    for (index, coord) in coords.iter().enumerate() {
        let proven =
            !edits.has_edits_in(&coord.padded_box()) && classify(edits, *coord) != ChunkKind::Mixed;
        if !proven {
            candidates += 1;
        }
        if candidates == per_batch {
            batches.push(&coords[start..=index]);
            start = index + 1;
            candidates = 0;
        }
    }
    if start < coords.len() {
        batches.push(&coords[start..]);
    }
    batches
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::terrain::PlaneGround;

    fn flat() -> EditStore<dyn Ground> {
        let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
        EditStore::new(ground)
    }

    /// A column of chunks through the flat ground at y = 0: only chunk y = 0 (and y = -1, whose
    /// padded grid reaches up to sample 0) may hold a surface.
    fn column() -> Vec<ChunkCoord> {
        (-3..=3).map(|y| ChunkCoord::new(0, y, 0)).collect()
    }

    #[test]
    fn batches_hold_the_chunks_that_may_have_a_surface_and_the_proven_ones_ride_along() {
        let edits = flat();
        let coords = column();
        let batches = surface_batches(&edits, &coords, 1);
        assert_eq!(batches.concat(), coords, "every chunk, in order");
        let candidates = |batch: &[ChunkCoord]| {
            batch
                .iter()
                .filter(|coord| classify(&edits, **coord) == ChunkKind::Mixed)
                .count()
        };
        assert!(batches.len() >= 2);
        assert!(batches.iter().all(|batch| candidates(batch) <= 1));
        assert_eq!(surface_batches(&edits, &coords, 100), vec![&coords[..]]);
        assert!(surface_batches(&edits, &[], 4).is_empty());
    }

    #[test]
    fn batches_through_the_thread_are_the_batches_prepared_at_once() {
        let edits = flat();
        let pool = WorkerPool::new(2).unwrap();
        let coords = column();
        let mut batches = Vec::new();
        prepare_batches(&pool, &edits, &coords, 1, |prepared| {
            batches.push(prepared);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert!(batches.len() >= 2, "through the thread");
        let at_once = prepare(&pool, &edits, &coords);
        let grids: Vec<ChunkGrid> = batches.iter().flat_map(|b| b.grids.clone()).collect();
        let lights: Vec<Option<LightGrid>> =
            batches.iter().flat_map(|b| b.lights.clone()).collect();
        assert_eq!(grids, at_once.grids);
        assert_eq!(lights, at_once.lights);
        let mixed = grids.iter().filter(|g| g.kind == ChunkKind::Mixed).count();
        assert_eq!(lights.len(), mixed);
        assert!(mixed > 0);
        // The first error stops the batches.
        let mut taken = 0;
        let result = prepare_batches(&pool, &edits, &coords, 1, |_| {
            taken += 1;
            Err("full")
        });
        assert_eq!((result, taken), (Err("full"), 1));
    }
}
