//! Each kind of solid's own answer to the one question (docs/blocks.md), the nearest surface: the
//! terrain's ([`terrain_surface`], [`TerrainSolid`]) and the blocks' ([`blocks_surface`]).
//! Joining them is [`crate::world::scene_solids`]'s.
//!
//! The terrain's distance is its density over the length of its gradient — about the distance in
//! meters near the surface (docs/terrain.md). Blocks answer with their signed distances, out of a
//! block only through a side [`covered`] leaves open; a scene's
//! [`SceneSolids`](crate::world::SceneSolids) takes the nearer of the two. The trait lets the
//! player and the physics core ask either.

use blockfall_physics::collision::{
    box_clearance, box_face, Around, FaceAnswer, Solid, Surface, FLUSH,
};

use crate::blocks::shapes::block_distance;
use crate::blocks::store::{covered, Block, BlockId, BlockStore, CELL};
use crate::terrain::{Field, Probe, SampleWindow, Samples};

/// The terrain's part of the question, from the density field.
pub fn terrain_surface<S: Samples>(
    field: &Field<S>,
    point: [f32; 3],
    reach: f32,
) -> Option<Surface> {
    let [x, y, z] = point;
    surface_of(field.probe(x, y, z), reach)
}

/// The terrain's surface as a probe sees it: its density over the length of its gradient.
fn surface_of(probe: Probe, reach: f32) -> Option<Surface> {
    let [gx, gy, gz] = probe.gradient;
    let squared = gx * gx + gy * gy + gz * gz;
    // Most points asked are well clear of the ground: out of reach by squares, without the
    // root and the division. In f64, where squares of f32s neither overflow nor underflow,
    // and only where it is sure by far more than the f32 rounding below (a part in 10⁴);
    // anything nearer, NaN included, is answered exactly below.
    let (density, reach_wide) = (f64::from(probe.density), f64::from(reach));
    if density < 0.0
        && reach_wide > 0.0
        && density * density > reach_wide * reach_wide * f64::from(squared) * 1.0001
    {
        return None;
    }
    exact_surface(probe, squared, reach)
}

/// [`surface_of`] without the quick answer: the root of `squared` (the gradient's length
/// squared), the division, the comparison.
fn exact_surface(probe: Probe, squared: f32, reach: f32) -> Option<Surface> {
    let [gx, gy, gz] = probe.gradient;
    let steepness = squared.sqrt();
    if steepness.is_nan() || steepness <= 0.0 {
        // Flat density (deep inside or far above): no surface this probe can see.
        return None;
    }
    let distance = -probe.density / steepness;
    (distance < reach).then(|| Surface {
        distance,
        // The gradient points into the ground; out is against it.
        normal: [-gx / steepness, -gy / steepness, -gz / steepness],
    })
}

/// The terrain's part of many questions at once, into `out`: the same answers as
/// [`terrain_surface`] point by point, from the samples around all the points read once (one
/// lock per brick of the field's cache instead of one or eight per point). With `clear`, also
/// how clear of the terrain each point surely is (`blockfall_physics::collision::Solid::
/// nearest_many_clear`; −∞ where it cannot tell), from [`SampleWindow::clearance`] over a
/// window a sample wider on every side.
pub fn terrain_surfaces<S: Samples>(
    field: &Field<S>,
    queries: &[([f32; 3], f32)],
    out: &mut [Option<Surface>],
    mut clear: Option<&mut [f32]>,
) {
    /// Past this many samples (a box of 32 m), the points are too spread out to share much.
    const MOST_SAMPLES: usize = 32 * 32 * 32;
    /// No wider than that on any side either (the reach of a body's whole-body question is its
    /// radius and more).
    const MOST_SIDE: f32 = 32.0;
    if let Some(clear) = clear.as_deref_mut() {
        clear.fill(f32::NEG_INFINITY);
    }
    let finite = queries
        .iter()
        .all(|(point, reach)| point.iter().all(|c| c.is_finite()) && reach.is_finite());
    let mut low = [f32::INFINITY; 3];
    let mut high = [f32::NEG_INFINITY; 3];
    for (point, _) in queries {
        for axis in 0..3 {
            low[axis] = low[axis].min(point[axis]);
            high[axis] = high[axis].max(point[axis]);
        }
    }
    let (mut first, mut size) = SampleWindow::covering(low, high);
    if clear.is_some() {
        // Samples more on every side, as many meters as the widest reach asked (one at least):
        // the window then holds that much ground around every point, and the clearance can
        // reach that far. A question with a wide reach is how the physics asks whether a whole
        // body is clear of the ground; a point's own questions reach less than a meter.
        let widest = queries
            .iter()
            .fold(1.0f32, |most, &(_, reach)| most.max(reach));
        let more = widest.ceil().min(MOST_SIDE) as i32;
        first = first.map(|value| value.saturating_sub(more));
        size = size.map(|value| value.saturating_add(2 * more as usize));
    }
    let volume = size[0].saturating_mul(size[1]).saturating_mul(size[2]);
    if queries.is_empty() || !finite || volume == 0 || volume > MOST_SAMPLES {
        for (answer, &(point, reach)) in out.iter_mut().zip(queries) {
            *answer = terrain_surface(field, point, reach);
        }
        return;
    }
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        let window = field.window(first, size, buffer);
        let steepest = clear.is_some().then(|| window.steepest());
        for (index, (answer, &([x, y, z], reach))) in out.iter_mut().zip(queries).enumerate() {
            let Some(probe) = window.probe(x, y, z) else {
                *answer = surface_of(field.probe(x, y, z), reach);
                continue;
            };
            *answer = surface_of(probe, reach);
            if let (Some(clear), Some(steepest)) = (clear.as_deref_mut(), steepest) {
                clear[index] = window.clearance(probe, [x, y, z], steepest);
            }
        }
    });
}

/// The blocks' part of the question: the nearest block surface within `reach`, each block
/// asked once, out of a block only through a side nothing covers.
pub fn blocks_surface(store: &BlockStore, point: [f32; 3], reach: f32) -> Option<Surface> {
    let mut nearest: Option<Surface> = None;
    for_blocks_near(store, point, reach, |block| {
        let surface = block_distance(block, point, |side| !covered(store, block, side));
        if surface.distance < reach && nearest.is_none_or(|n| surface.distance < n.distance) {
            nearest = Some(surface);
        }
    });
    nearest
}

/// [`blocks_surface`] asked from a body's point with what the body fills around it: a plain
/// block answers with the face the point meets (`collision::box_face`: none where the point
/// only lines up with a flush neighbour's side), a cut block and a real edge or corner with the
/// true distance; of the blocks' answers, the surface the point is about to reach
/// (`Surface::sooner`, the nearest when it does not move). With it, a lower bound on the true distance to every block (the reach when
/// none is near), less twice `collision::FLUSH`: how clear of the blocks the point surely is,
/// for any question asked within that clearance less its reach.
pub fn blocks_surface_around(
    store: &BlockStore,
    point: [f32; 3],
    reach: f32,
    around: &Around,
) -> (Option<Surface>, f32) {
    let mut nearest: Option<Surface> = None;
    let mut clear = reach;
    let half = CELL / 2.0;
    for_blocks_near(store, point, reach, |block| {
        let is_open = |side| !covered(store, block, side);
        let surface = if block.cuts == 0 {
            let meters = f32::from(block.size) * CELL;
            let low = block.low().map(|c| c as f32 * CELL);
            let bounds = (low, low.map(|c| c + meters));
            clear = clear.min(box_clearance(bounds, point));
            match box_face(bounds, point, around, half, is_open) {
                FaceAnswer::Face(surface) => Some(surface),
                FaceAnswer::Beside => None,
                FaceAnswer::Distance => Some(block_distance(block, point, is_open)),
            }
        } else {
            let surface = block_distance(block, point, is_open);
            clear = clear.min(surface.distance);
            Some(surface)
        };
        if let Some(surface) = surface.filter(|s| s.distance < reach) {
            if nearest.is_none_or(|n| surface.sooner(&n, around.motion)) {
                nearest = Some(surface);
            }
        }
    });
    (nearest, clear - 2.0 * FLUSH)
}

/// Calls `visit` with each block of `store` that may lie within `reach` of `point`, each once,
/// in an order fixed by the store.
fn for_blocks_near(store: &BlockStore, point: [f32; 3], reach: f32, mut visit: impl FnMut(&Block)) {
    if store.count() == 0 {
        return;
    }
    let from = |c: f32| ((c - reach) / CELL).floor() as i32;
    let to = |c: f32| ((c + reach) / CELL).floor() as i32;
    // A reach wider than the blocks are many (a body moving absurdly fast, a damaged save):
    // every block asked instead of every cell, so the question stays bounded by the blocks.
    let cells: f64 = (0..3)
        .map(|axis| f64::from(to(point[axis])) - f64::from(from(point[axis])) + 1.0)
        .product();
    if cells > 8.0 * store.count() as f64 + 64.0 {
        for (_, block) in store.iter() {
            let low = block.low();
            let size = i32::from(block.size);
            let near = (0..3).all(|axis| {
                low[axis] <= to(point[axis])
                    && low[axis].saturating_add(size - 1) >= from(point[axis])
            });
            if near {
                visit(block);
            }
        }
        return;
    }
    // The blocks already asked, on the stack: a query near the player's reach meets a few
    // blocks, and this runs for every point of every body every step.
    let mut seen_here = [None::<BlockId>; 32];
    let mut seen_count = 0;
    let mut seen_more: Vec<BlockId> = Vec::new();
    for k in from(point[2])..=to(point[2]) {
        for j in from(point[1])..=to(point[1]) {
            for i in from(point[0])..=to(point[0]) {
                let Some(id) = store.at(i, j, k) else {
                    continue;
                };
                if seen_here[..seen_count].contains(&Some(id)) || seen_more.contains(&id) {
                    continue;
                }
                if seen_count < seen_here.len() {
                    seen_here[seen_count] = Some(id);
                    seen_count += 1;
                } else {
                    seen_more.push(id);
                }
                if let Some(block) = store.get(id) {
                    visit(block);
                }
            }
        }
    }
}

/// A block's signed distance with every side open: for keeping new blocks out of the player.
pub fn block_distance_plain(block: &Block, point: [f32; 3]) -> f32 {
    block_distance(block, point, |_| true).distance
}

/// The terrain alone as a [`Solid`].
pub struct TerrainSolid<'a, S: Samples> {
    pub field: &'a Field<S>,
}

impl<S: Samples> Solid for TerrainSolid<'_, S> {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        if !point.iter().all(|c| c.is_finite()) {
            return None;
        }
        terrain_surface(self.field, point, reach)
    }

    fn nearest_many(&self, queries: &[([f32; 3], f32)], out: &mut [Option<Surface>]) {
        terrain_surfaces(self.field, queries, out, None);
    }

    fn nearest_many_clear(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        terrain_surfaces(self.field, queries, out, Some(clear));
    }

    fn stamp(&self) -> Option<u128> {
        Some(u128::from(self.field.stamp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers in `[0, 1)` from an xorshift generator started at `seed`: repeatable tests.
    fn uniform(mut random: u64) -> impl FnMut() -> f32 {
        move || {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            (random >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// An answer's numbers as bits, to compare them exactly.
    fn bits(answer: Option<Surface>) -> Option<(u32, [u32; 3])> {
        answer.map(|s| (s.distance.to_bits(), s.normal.map(f32::to_bits)))
    }

    #[test]
    fn many_questions_at_once_get_the_answers_of_one_at_a_time() {
        let generator = std::sync::Arc::new(crate::terrain::Generator::new(7));
        let field = Field::new(crate::terrain::EditStore::new(generator));
        let [sx, _, sz] = crate::terrain::Generator::new(7).spawn_point();
        let ground = crate::terrain::Generator::new(7).surface_height(sx, sz);
        let mut next = uniform(0x9E37_79B9_7F4A_7C15);
        for cluster in 0..40 {
            // A body's points: a few meters across, around the surface; some clusters spread
            // wider than the window takes, and one has a NaN.
            let spread = if cluster % 10 == 9 { 60.0 } else { 4.0 };
            let centre = [
                sx + next() * 40.0,
                ground + next() * 6.0 - 3.0,
                sz + next() * 40.0,
            ];
            let mut queries: Vec<([f32; 3], f32)> = (0..200)
                .map(|_| {
                    let point = centre.map(|c| c + (next() - 0.5) * spread);
                    (point, 0.02 + next() * 0.5)
                })
                .collect();
            if cluster == 3 {
                queries[7].0[1] = f32::NAN;
            }
            let mut out = vec![None; queries.len()];
            terrain_surfaces(&field, &queries, &mut out, None);
            for (answer, &(point, reach)) in out.iter().zip(&queries) {
                let expected = terrain_surface(&field, point, reach);
                assert_eq!(
                    bits(*answer),
                    bits(expected),
                    "cluster {cluster}, {point:?}"
                );
            }
        }
    }

    #[test]
    fn points_clear_of_the_ground_get_the_answer_the_root_and_division_give() {
        let mut next = uniform(0x2545_F491_4F6C_DD1D);
        let mut probes = Vec::new();
        for _ in 0..20_000 {
            let scale = [1e-30f32, 1e-3, 1.0, 1e3, 1e30][(next() * 5.0) as usize % 5];
            let gradient = [0; 3].map(|_| (next() - 0.5) * scale);
            let steepness = gradient.iter().map(|g| g * g).sum::<f32>().sqrt();
            let reach = [0.0f32, 1e-6, 0.02, 0.5, 40.0][(next() * 5.0) as usize % 5];
            // Anywhere, and just either side of the reach (where rounding decides).
            let density = match (next() * 3.0) as usize {
                0 => (next() - 0.5) * 10.0 * scale,
                1 => -reach * steepness * (1.0 + (next() - 0.5) * 1e-6),
                _ => -reach * steepness * (1.0 + (next() - 0.5) * 1e-3),
            };
            probes.push((Probe { density, gradient }, reach));
        }
        for special in [
            0.0f32,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
        ] {
            probes.push((
                Probe {
                    density: special,
                    gradient: [0.0, 1.0, 0.0],
                },
                0.02,
            ));
            probes.push((
                Probe {
                    density: -1.0,
                    gradient: [special, 0.0, 0.0],
                },
                0.02,
            ));
            probes.push((
                Probe {
                    density: -1.0,
                    gradient: [0.0, 1.0, 0.0],
                },
                special,
            ));
        }
        for (probe, reach) in probes {
            let [gx, gy, gz] = probe.gradient;
            let squared = gx * gx + gy * gy + gz * gz;
            assert_eq!(
                bits(surface_of(probe, reach)),
                bits(exact_surface(probe, squared, reach)),
                "{probe:?}, reach {reach}"
            );
        }
    }

    #[test]
    fn a_reach_past_every_block_asks_each_block_and_finds_the_nearest() {
        // A damaged save's piece moving at 1e20 m/s asked with a reach of light-years: every
        // block is asked (not every cell of the reach, which never finished), and the answer
        // is the nearest surface, as a reach just past it finds.
        let mut store = BlockStore::new();
        for (x, size) in [(0, 1u8), (6, 2), (-9, 4)] {
            store
                .add(Block::new(x, 0, 0, size, 0, 0, false).expect("a block"))
                .expect("apart");
        }
        let point = [1.3, 0.25, 0.25];
        let near = blocks_surface(&store, point, 1.0).expect("the first block is 0.8 m away");
        for reach in [1e6, 1e20, f32::MAX, f32::INFINITY] {
            let far = blocks_surface(&store, point, reach).expect("a block within reach");
            assert_eq!(bits(Some(far)), bits(Some(near)), "reach {reach}");
        }
        assert!(blocks_surface(&store, point, 0.5).is_none());
    }

    #[test]
    fn flat_ground_distance_and_normal() {
        let field = Field::new(|_x: i32, y: i32, _z: i32| 2.0 - y as f32);
        let solid = TerrainSolid { field: &field };
        let surface = solid.nearest([0.3, 2.25, 0.7], 0.4).expect("within reach");
        assert!((surface.distance - 0.25).abs() < 1e-6);
        assert_eq!(surface.normal, [0.0, 1.0, 0.0]);
        assert!(
            solid.nearest([0.3, 2.5, 0.7], 0.4).is_none(),
            "out of reach"
        );
        let inside = solid.nearest([0.0, 1.0, 0.0], 0.4).expect("inside");
        assert!((inside.distance + 1.0).abs() < 1e-6);
        assert!(solid.nearest([f32::NAN, 0.0, 0.0], 0.4).is_none());
    }
}
