//! The drawn ground lies where the density says. Seen from above, the terrain's meshes (every
//! chunk of full detail with its skirt, as the game meshes it) lie on the same chunks meshed
//! without skirts, and on the density's topmost surface within a few centimetres nearly
//! everywhere: a skirt hangs below the ground it borders at every border of a chunk, its sides
//! and its top. A skirt that rose to its chunk's top face drew the ground lying just under a
//! layer border (y = 0, y = 32 at the spawn) as flat terraces with upright walls, while the
//! player walked on the smooth ground under them.
//!
//! The check is shared with the GPU test (`gpu_world_meshes`), which runs it on the meshes the
//! compute shaders wrote into the terrain arenas.

use std::collections::HashMap;
use std::sync::Arc;

use blockfall_engine::meshing::{DensityGrid, GridRegion, SurfaceMesh, SurfaceNets};
use blockfall_game::terrain::chunks::fill_padded_grid_or_skip;
use blockfall_game::terrain::{
    ChunkCoord, ChunkKind, EditStore, Generator, Ground, CHUNK_SIZE, PADDED_SIZE,
};
use blockfall_game_render::chunk_meshes::skirt;

/// How far a skirted mesh may lie above the same mesh without skirts, in meters: a skirt never
/// raises the ground (a skirt up to a chunk's top face raised it by up to a meter). The GPU's
/// positions lie within 1e-4 of the CPU's.
pub const SKIRT_TOLERANCE: f64 = 0.001;

/// The share of points, in thousandths, where a skirt may show above the chunks' own surface:
/// only under the edge of a ledge thinner than the skirt is deep (a sliver of a cave's ceiling
/// at a chunk's border), where a curtain hanging a meter below the ledge's top comes out of
/// its underside (21 of 37,249 points at the spawn's column (-1, 0)). The shelves along the
/// layer borders raised the ground at 157 of the 37,249 points of the column north of it
/// (4.2 per thousand), by up to 0.94 m.
pub const RAISED_PER_MILLE: usize = 1;

/// How far the drawn ground may lie above the density's surface, in meters, nearly everywhere:
/// the surface nets' own flattening of curved ground (a vertex is the mean of its cell's
/// crossings, and a triangle lies on the chord between vertices) stays within a few
/// centimetres on rolling hills.
pub const ABOVE_TOLERANCE: f64 = 0.05;

/// The share of points, in thousandths, where the drawn ground may lie farther above the
/// density than [`ABOVE_TOLERANCE`]: on sharp ridges the mean of a cell's crossings lies up to a
/// quarter of a cell above the ridge's trilinear surface, and over a cave's mouth narrower
/// than a cell the surface nets close the hole (seed 1's column (10, -17): 13 per thousand).
pub const ABOVE_PER_MILLE: usize = 30;

/// Triangles in world meters, binned by the 1 m columns their footprint touches, to find the
/// highest one over a point.
#[derive(Default)]
pub struct DrawnGround {
    triangles: Vec<[[f64; 3]; 3]>,
    columns: HashMap<(i32, i32), Vec<u32>>,
}

impl DrawnGround {
    /// Adds the mesh of chunk `coord` (in its padded grid's units).
    pub fn add_chunk(&mut self, coord: ChunkCoord, mesh: &SurfaceMesh) {
        let origin = coord.padded_origin().map(f64::from);
        let spacing = f64::from(coord.spacing());
        let world = |p: [f32; 3]| std::array::from_fn(|a| origin[a] + f64::from(p[a]) * spacing);
        for triangle in mesh.indices.chunks_exact(3) {
            let corners: [[f64; 3]; 3] =
                std::array::from_fn(|i| world(mesh.positions[triangle[i] as usize]));
            let index = self.triangles.len() as u32;
            let low = |a: usize| corners.iter().map(|c| c[a]).fold(f64::MAX, f64::min);
            let high = |a: usize| corners.iter().map(|c| c[a]).fold(f64::MIN, f64::max);
            for x in low(0).floor() as i32..=high(0).floor() as i32 {
                for z in low(2).floor() as i32..=high(2).floor() as i32 {
                    self.columns.entry((x, z)).or_default().push(index);
                }
            }
            self.triangles.push(corners);
        }
    }

    /// The highest point of any triangle over `(x, z)`.
    pub fn top(&self, x: f64, z: f64) -> Option<f64> {
        let candidates = self.columns.get(&(x.floor() as i32, z.floor() as i32))?;
        let mut top: Option<f64> = None;
        for &index in candidates {
            let [a, b, c] = self.triangles[index as usize];
            // Barycentric coordinates of (x, z) in the triangle's footprint.
            let det = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
            if det.abs() < 1e-12 {
                continue;
            }
            let u = ((x - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (z - a[2])) / det;
            let v = ((b[0] - a[0]) * (z - a[2]) - (x - a[0]) * (b[2] - a[2])) / det;
            const EDGE: f64 = -1e-9;
            if u < EDGE || v < EDGE || u + v > 1.0 - EDGE {
                continue;
            }
            let y = a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]);
            top = Some(top.map_or(y, |t: f64| t.max(y)));
        }
        top
    }
}

/// The density's samples (1 m apart) over a box, to find the topmost surface above a point.
pub struct Density {
    low: [i32; 3],
    size: [usize; 3],
    samples: Vec<f32>,
}

impl Density {
    /// The samples of `edits` in the box from `low`, `size` samples along each axis.
    pub fn of<G: Ground + ?Sized>(edits: &EditStore<G>, low: [i32; 3], size: [usize; 3]) -> Self {
        let mut samples = Vec::new();
        edits.fill_region(low, size, &mut samples);
        Self { low, size, samples }
    }

    fn at(&self, x: usize, y: usize, z: usize) -> f32 {
        self.samples[x + self.size[0] * (y + self.size[1] * z)]
    }

    /// The topmost crossing from air above to ground below of the trilinear density on the
    /// vertical line through `(x, z)`, within the box.
    pub fn top(&self, x: f64, z: f64) -> Option<f64> {
        let (gx, gz) = (x - f64::from(self.low[0]), z - f64::from(self.low[2]));
        let (x0, z0) = (gx.floor() as usize, gz.floor() as usize);
        if gx < 0.0 || gz < 0.0 || x0 + 1 >= self.size[0] || z0 + 1 >= self.size[2] {
            return None;
        }
        let (fx, fz) = (gx - x0 as f64, gz - z0 as f64);
        let column = |y: usize| {
            let at = |dx: usize, dz: usize| f64::from(self.at(x0 + dx, y, z0 + dz));
            let near = at(0, 0) + (at(1, 0) - at(0, 0)) * fx;
            let far = at(0, 1) + (at(1, 1) - at(0, 1)) * fx;
            near + (far - near) * fz
        };
        let mut above = column(self.size[1] - 1);
        for y in (0..self.size[1] - 1).rev() {
            let below = column(y);
            if below > 0.0 && above <= 0.0 {
                let t = below / (below - above);
                return Some(f64::from(self.low[1]) + y as f64 + t);
            }
            above = below;
        }
        None
    }
}

/// How the drawn ground compared with the density and the plain meshes over an area.
#[derive(Debug, Default)]
pub struct Comparison {
    /// Points where the drawn ground and the density's surface were both found.
    pub points: usize,
    /// Points where the drawn ground lies more than [`ABOVE_TOLERANCE`] above the density.
    pub above: usize,
    /// Points where the drawn ground lies more than [`SKIRT_TOLERANCE`] above the plain
    /// meshes'.
    pub raised: usize,
    /// The highest of the drawn ground over the density: (x, z), drawn, ground.
    pub worst: Option<([f64; 2], f64, f64)>,
    /// The highest of the drawn ground over the plain meshes' (no skirts): (x, z), drawn, plain.
    pub worst_skirt: Option<([f64; 2], f64, f64)>,
}

/// Compares the drawn ground with the density and with the plain meshes at points `step`
/// meters apart over the square `[low, high]` (x and z).
pub fn compare(
    drawn: &DrawnGround,
    plain: &DrawnGround,
    density: &Density,
    low: [f64; 2],
    high: [f64; 2],
    step: f64,
) -> Comparison {
    let mut comparison = Comparison::default();
    let higher = |worst: &mut Option<([f64; 2], f64, f64)>, at: [f64; 2], top: f64, under: f64| {
        if worst.is_none_or(|(_, t, u)| top - under > t - u) {
            *worst = Some((at, top, under));
        }
    };
    let mut x = low[0];
    while x <= high[0] {
        let mut z = low[1];
        while z <= high[1] {
            if let (Some(top), Some(ground)) = (drawn.top(x, z), density.top(x, z)) {
                comparison.points += 1;
                if top - ground > ABOVE_TOLERANCE {
                    comparison.above += 1;
                }
                higher(&mut comparison.worst, [x, z], top, ground);
                if let Some(plain) = plain.top(x, z) {
                    if top - plain > SKIRT_TOLERANCE {
                        comparison.raised += 1;
                    }
                    higher(&mut comparison.worst_skirt, [x, z], top, plain);
                }
            }
            z += step;
        }
        x += step;
    }
    comparison
}

/// The chunks of full detail of the 3×3 columns around column `(cx, cz)` whose padded grids
/// hold a surface, layers `cy` from `layers.0` to `layers.1`, with their grids.
pub fn chunks_around<G: Ground + ?Sized>(
    edits: &EditStore<G>,
    (cx, cz): (i32, i32),
    layers: (i32, i32),
) -> Vec<(ChunkCoord, Vec<f32>)> {
    let mut chunks = Vec::new();
    for x in cx - 1..=cx + 1 {
        for z in cz - 1..=cz + 1 {
            for y in layers.0..=layers.1 {
                let coord = ChunkCoord::new(x, y, z);
                let mut samples = Vec::new();
                if fill_padded_grid_or_skip(edits, coord, &mut samples) == ChunkKind::Mixed {
                    chunks.push((coord, samples));
                }
            }
        }
    }
    chunks
}

/// The CPU mesher's mesh of a chunk's padded grid with a skirt `skirt` deep (0: none).
fn cpu_mesh(samples: &[f32], skirt: f32) -> SurfaceMesh {
    let dims = [PADDED_SIZE; 3];
    let mut mesh = SurfaceMesh::new();
    SurfaceNets::new()
        .mesh_with_skirt(
            DensityGrid::new(samples, dims).unwrap(),
            GridRegion::owned_edges_of_padded_grid(dims),
            skirt,
            &mut mesh,
        )
        .unwrap();
    mesh
}

/// The CPU mesher's mesh of chunk `coord`'s padded grid, with the skirt the game meshes it with.
pub fn cpu_chunk_mesh(coord: ChunkCoord, samples: &[f32]) -> SurfaceMesh {
    cpu_mesh(samples, skirt(coord))
}

/// Checks the drawn ground of column `(cx, cz)` and 8 m into each neighbour (so that all four
/// of its side borders are crossed), every `step` meters: `drawn` holds the meshes of
/// `chunks`, every chunk with a surface of the 3×3 columns around it with its padded grid.
/// Seen from above, the drawn ground lies on the same chunks meshed without skirts
/// ([`SKIRT_TOLERANCE`], [`RAISED_PER_MILLE`]), and on the density's surface within
/// [`ABOVE_TOLERANCE`] nearly everywhere ([`ABOVE_PER_MILLE`]). Fails naming the worst point.
pub fn assert_no_shelf<G: Ground + ?Sized>(
    what: &str,
    edits: &EditStore<G>,
    (cx, cz): (i32, i32),
    chunks: &[(ChunkCoord, Vec<f32>)],
    drawn: &DrawnGround,
    step: f64,
) {
    let size = CHUNK_SIZE;
    let mut plain = DrawnGround::default();
    for (coord, samples) in chunks {
        plain.add_chunk(*coord, &cpu_mesh(samples, 0.0));
    }
    let coords = chunks.iter().map(|(c, _)| c);
    let low_y = coords
        .clone()
        .map(|c| c.y * size - 1)
        .min()
        .expect("chunks");
    let high_y = coords.map(|c| c.y * size + size + 1).max().expect("chunks");
    let (x0, z0) = (cx * size - 9, cz * size - 9);
    let span = (size + 18) as usize + 1;
    let density = Density::of(
        edits,
        [x0, low_y, z0],
        [span, (high_y - low_y) as usize + 1, span],
    );
    let low = [f64::from(x0 + 1) + 0.013, f64::from(z0 + 1) + 0.029];
    let high = [low[0] + f64::from(size + 16), low[1] + f64::from(size + 16)];
    let comparison = compare(drawn, &plain, &density, low, high, step);
    let expected = ((high[0] - low[0]) / step) as usize;
    assert!(
        comparison.points > expected * expected * 9 / 10,
        "{what}: the ground was drawn and found at only {} of ~{} points",
        comparison.points,
        expected * expected
    );
    let (at, top, ground) = comparison.worst.expect("points");
    let (skirt_at, skirt_top, plain_top) = comparison.worst_skirt.expect("points");
    eprintln!(
        "{what}: {} points; the drawn ground at most {:.4} m above the meshes without skirts          (at {skirt_at:.2?}), at most {:.4} m above the density's surface (at {at:.2?}), more          than {ABOVE_TOLERANCE} m at {} points; raised by a skirt at {} points",
        comparison.points,
        skirt_top - plain_top,
        top - ground,
        comparison.above,
        comparison.raised
    );
    assert!(
        comparison.raised * 1000 <= comparison.points * RAISED_PER_MILLE,
        "{what}: skirts raise the drawn ground above the chunks' own surface at {} of {} \
         points, by up to {:.3} m at (x, z) = ({:.2}, {:.2}): drawn at y = {skirt_top:.3}, the \
         surface at {plain_top:.3}",
        comparison.raised,
        comparison.points,
        skirt_top - plain_top,
        skirt_at[0],
        skirt_at[1]
    );
    assert!(
        comparison.above * 1000 <= comparison.points * ABOVE_PER_MILLE,
        "{what}: the drawn ground lies more than {ABOVE_TOLERANCE} m above the density's \
         surface at {} of {} points (by up to {:.3} m at (x, z) = ({:.2}, {:.2}))",
        comparison.above,
        comparison.points,
        top - ground,
        at[0],
        at[1]
    );
}

/// Chunk columns of the world of `seed` where the ground crosses a layer border (a multiple of
/// 32 m) inside the column, at least `count` of them, searched in rings around `(x, z)`.
pub fn columns_crossing_layers(seed: u32, (x, z): (f32, f32), count: usize) -> Vec<(i32, i32)> {
    let generator = Generator::new(seed);
    let size = CHUNK_SIZE as f32;
    let (cx, cz) = ((x / size).floor() as i32, (z / size).floor() as i32);
    let mut found = Vec::new();
    for ring in 0i32..8 {
        for dx in -ring..=ring {
            for dz in -ring..=ring {
                if dx.abs().max(dz.abs()) != ring || found.len() >= count {
                    continue;
                }
                let (column_x, column_z) = (cx + dx, cz + dz);
                // The ground's height at a few points of the column: does a layer border lie
                // between the lowest and the highest?
                let heights: Vec<f32> = (0..5)
                    .flat_map(|i| (0..5).map(move |j| (i, j)))
                    .map(|(i, j)| {
                        generator.surface_height(
                            (column_x as f32 + i as f32 / 4.0) * size,
                            (column_z as f32 + j as f32 / 4.0) * size,
                        )
                    })
                    .collect();
                let lowest = heights.iter().copied().fold(f32::MAX, f32::min);
                let highest = heights.iter().copied().fold(f32::MIN, f32::max);
                if (lowest / size).floor() != (highest / size).floor() {
                    found.push((column_x, column_z));
                }
            }
        }
    }
    found
}

/// The default generator behind an edit store.
pub fn edits(seed: u32) -> EditStore<Generator> {
    EditStore::new(Arc::new(Generator::new(seed)))
}

#[test]
fn no_shelves_where_the_ground_lies_under_a_layer_border_at_the_spawn() {
    // The spawn's column and its neighbours: the hills there cross y = 0 and y = 32, where
    // the shelves stood (feet (-5, 2.3, 39.5) looking south saw them).
    let edits = edits(Generator::DEFAULT_SEED);
    for column in [(-1, 1), (-1, 0), (0, 1)] {
        let chunks = chunks_around(&edits, column, (-3, 3));
        let mut drawn = DrawnGround::default();
        for (coord, samples) in &chunks {
            drawn.add_chunk(*coord, &cpu_chunk_mesh(*coord, samples));
        }
        assert!(
            chunks
                .iter()
                .any(|(c, _)| c.x == column.0 && c.z == column.1),
            "the ground crosses column {column:?}"
        );
        assert_no_shelf(
            &format!("column {column:?}"),
            &edits,
            column,
            &chunks,
            &drawn,
            0.25,
        );
    }
}

#[test]
fn no_shelves_where_the_ground_crosses_layer_borders_elsewhere_and_in_other_worlds() {
    for (seed, place) in [
        (1u32, (300.0f32, -500.0f32)),
        (77, (-900.0, 1200.0)),
        (4242, (0.0, 0.0)),
    ] {
        let edits = edits(seed);
        for column in columns_crossing_layers(seed, place, 3) {
            let centre = edits.generator().surface_height(
                (column.0 * CHUNK_SIZE + 16) as f32,
                (column.1 * CHUNK_SIZE + 16) as f32,
            );
            let layer = (centre / CHUNK_SIZE as f32).floor() as i32;
            let chunks = chunks_around(&edits, column, (layer - 3, layer + 3));
            let mut drawn = DrawnGround::default();
            for (coord, samples) in &chunks {
                drawn.add_chunk(*coord, &cpu_chunk_mesh(*coord, samples));
            }
            assert_no_shelf(
                &format!("seed {seed}, column {column:?}"),
                &edits,
                column,
                &chunks,
                &drawn,
                0.5,
            );
        }
    }
}

#[test]
fn no_shelves_after_digs_and_mounds_at_a_layer_border() {
    // Digs and mounds on the ground near the spawn where it lies within a few meters of a
    // layer border, their rims crossing it: the edited chunks draw no shelf either.
    let mut edits = edits(Generator::DEFAULT_SEED);
    let column = (-1, 1);
    let size = CHUNK_SIZE as f32;
    let mut edited = 0;
    for i in 0..16 {
        for j in 0..16 {
            let (x, z) = (
                (column.0 as f32 - 0.5 + i as f32 / 8.0) * size,
                (column.1 as f32 - 0.5 + j as f32 / 8.0) * size,
            );
            let height = edits.generator().surface_height(x, z);
            let border = (height / size).round() * size;
            if (height - border).abs() > 3.0 || edited >= 6 {
                continue;
            }
            let dig = edited % 2 == 0;
            let radius = 2.0 + edited as f32 * 0.7;
            let centre = [x, border + if dig { 1.0 } else { -1.5 }, z];
            let result = if dig {
                edits.dig(centre, radius)
            } else {
                edits.build(centre, radius)
            };
            assert!(result.expect("an edit within the world").is_some());
            edited += 1;
        }
    }
    assert!(edited >= 4, "only {edited} places near a layer border");
    let chunks = chunks_around(&edits, column, (-3, 3));
    let mut drawn = DrawnGround::default();
    for (coord, samples) in &chunks {
        drawn.add_chunk(*coord, &cpu_chunk_mesh(*coord, samples));
    }
    assert_no_shelf(
        "edited column (-1, 1)",
        &edits,
        column,
        &chunks,
        &drawn,
        0.25,
    );
}
