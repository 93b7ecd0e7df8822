//! The showcase (docs/support.md), built on the ground as it is: a tall stone pillar with a
//! slate pyramid on top, a beam of planks reaching out from its top, a copper ball hanging from
//! the beam's end, and a table of planks under the ball. Each column starts at the first whole
//! meter above the highest ground under it, with one block sunk into the ground beneath.

use crate::blocks::materials::{COPPER, PLANKS, SLATE, STONE};
use crate::blocks::shapes::side_edges;
use crate::blocks::store::{Block, BlockStore, CELL};
use crate::terrain::{Field, Samples};

/// How far down from 12 m above the surface the search for ground goes before giving up.
const DEEPEST_SEARCH: f32 = 200.0;
/// The search for ground goes down in steps of this many meters.
const SEARCH_STEP: f32 = 0.1;
/// The most steps of a search: those of [`DEEPEST_SEARCH`] and some to spare for rounding.
const MOST_STEPS: u32 = 2 * (DEEPEST_SEARCH / SEARCH_STEP) as u32;

/// Why the showcase could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShowcaseError {
    #[error("no ground within {DEEPEST_SEARCH} m below the surface at ({0}, {1})")]
    NoGround(f32, f32),
    #[error("the showcase at ({0}, {1}) reaches beyond the grid")]
    OutOfGrid(f32, f32),
}

/// The first whole meter above the highest ground under the 1 m column whose lowest cell is
/// `(cx, cz)`, in cells (an even number). `surface_height` is the ground's height before caves:
/// the search for solid ground starts 12 m above it and goes down in 10 cm steps.
pub fn first_meter_above_ground<S: Samples>(
    field: &Field<S>,
    surface_height: impl Fn(f32, f32) -> f32,
    cx: i32,
    cz: i32,
) -> Result<i32, ShowcaseError> {
    let mut top = f32::NEG_INFINITY;
    for (dx, dz) in [(0.1, 0.1), (0.9, 0.1), (0.1, 0.9), (0.9, 0.9)] {
        let (px, pz) = (cx as f32 * CELL + dx, cz as f32 * CELL + dz);
        let start = surface_height(px, pz) + 12.0;
        let mut y = start;
        // Steps counted too: far from 0, `y - 0.1` rounds back to `y`, and a search that only
        // watched the depth would never end there.
        let mut steps = 0;
        while field.probe(px, y, pz).density <= 0.0 {
            y -= SEARCH_STEP;
            steps += 1;
            if start - y > DEEPEST_SEARCH || steps > MOST_STEPS {
                return Err(ShowcaseError::NoGround(px, pz));
            }
        }
        top = top.max(y);
    }
    Ok(((top / CELL / 2.0).ceil() * 2.0) as i32)
}

/// Builds the showcase around the 1 m column at (x, z) meters. `surface_height` is the
/// ground's height before caves, where the search for solid ground starts (12 m above it).
/// Blocks whose cells are already taken are left out.
pub fn build_showcase<S: Samples>(
    store: &mut BlockStore,
    field: &Field<S>,
    surface_height: impl Fn(f32, f32) -> f32,
    x: f32,
    z: f32,
) -> Result<usize, ShowcaseError> {
    if !(x.is_finite() && z.is_finite()) || x.abs() > 1.0e6 || z.abs() > 1.0e6 {
        return Err(ShowcaseError::OutOfGrid(x, z));
    }
    let ground_cell = |cx: i32, cz: i32| first_meter_above_ground(field, &surface_height, cx, cz);
    let mut added = 0;
    let mut add = |store: &mut BlockStore,
                   cx: i32,
                   cy: i32,
                   cz: i32,
                   material: usize,
                   cuts: u16,
                   slope: bool| {
        let block = Block::new(cx, cy, cz, 2, material as u8, cuts, slope)
            .map_err(|_| ShowcaseError::OutOfGrid(x, z))?;
        if store.add(block).is_ok() {
            added += 1;
        }
        Ok::<(), ShowcaseError>(())
    };
    // A whole number of meters, in cells.
    let cx = ((x / CELL / 2.0).floor() * 2.0) as i32;
    let cz = ((z / CELL / 2.0).floor() * 2.0) as i32;

    // The pillar: from a block in the ground up seven, with a pyramid of slate on top.
    let ground = ground_cell(cx - 4, cz)?;
    for y in (ground - 2..ground + 14).step_by(2) {
        add(store, cx - 4, y, cz, STONE, 0, false)?;
    }
    let pyramid = side_edges(1, true)
        .iter()
        .fold(0u16, |cuts, &edge| cuts | 1 << edge);
    add(store, cx - 4, ground + 14, cz, SLATE, pyramid, true)?;
    // The beam, out from the pillar's top block, and the ball under its end: all edges rounded.
    for bx in (cx - 2..=cx + 2).step_by(2) {
        add(store, bx, ground + 12, cz, PLANKS, 0, false)?;
    }
    add(store, cx + 2, ground + 10, cz, COPPER, 0xFFF, false)?;

    // The table under the ball, its top a meter above the highest ground under its legs.
    let legs = [
        (cx, cz - 2),
        (cx + 4, cz - 2),
        (cx, cz + 2),
        (cx + 4, cz + 2),
    ];
    let mut leg_grounds = [0; 4];
    for (ground, &(lx, lz)) in leg_grounds.iter_mut().zip(&legs) {
        *ground = ground_cell(lx, lz)?;
    }
    let table_top = leg_grounds.iter().copied().max().unwrap_or(ground) + 2;
    for (&(lx, lz), &leg_ground) in legs.iter().zip(&leg_grounds) {
        for y in (leg_ground - 2..table_top).step_by(2) {
            add(store, lx, y, lz, PLANKS, 0, false)?;
        }
    }
    for tx in (cx..=cx + 4).step_by(2) {
        for tz in (cz - 2..=cz + 2).step_by(2) {
            add(store, tx, table_top, tz, PLANKS, 0, false)?;
        }
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::terrain::{EditStore, Ground, PlaneGround};

    #[test]
    fn the_search_for_ground_ends_on_ground_a_billion_meters_down() {
        // Found by `fuzz scene`: a showcase on a plane at -1e9 m searched forever, as
        // `y - 0.1` is `y` there.
        for height in [-1.0e9, 1.0e9, -3.0e7] {
            let ground: Arc<dyn Ground> = Arc::new(PlaneGround::sloped(41.0, height));
            let field = Field::new(EditStore::new(ground.clone()));
            let mut store = BlockStore::new();
            // Ground found, or none within the search: either way, an answer.
            let _ = build_showcase(
                &mut store,
                &field,
                |x, z| ground.surface_height(x, z),
                -41.78,
                -17.0,
            );
        }
    }

    #[test]
    fn the_ground_is_found_where_it_is() {
        let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(3.0));
        let field = Field::new(EditStore::new(ground.clone()));
        let cell = first_meter_above_ground(&field, |x, z| ground.surface_height(x, z), 0, 0);
        assert_eq!(cell, Ok(6), "the first whole meter above y = 3 m is cell 6");
    }
}
