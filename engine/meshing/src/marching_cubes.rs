//! The CPU marching-cubes mesher (Lorensen & Cline), the second mesher of the same density
//! grids: the reference a compute path must match, as [`super::SurfaceNets`] is for its own.
//!
//! Each cell the surface cuts gets triangles whose corners lie on its sign-changing edges, at
//! the linear crossing `t = d0 / (d0 − d1)` of the edge's two samples. A vertex belongs to its
//! edge, not its cell: the four cells around an edge share it (an indexed mesh, no duplicates
//! within a grid).
//!
//! **The case table** (256 corner configurations) is not typed in from Bourke's write-up: it is
//! built once, from the cube's faces, so that the rule that closes the surface is written in one
//! place. On each face the sign-changing edges are paired into segments; the segments of all six
//! faces join into closed loops around the cell (each edge lies on two faces), and each loop is
//! fanned into triangles, wound counter-clockwise seen from the air side.
//!
//! ```text
//!   an ambiguous face (inside corners ● on a diagonal):   the rule: each inside corner is
//!                                                           cut off on its own
//!     ●-----x-----○                                          ●--\--------○
//!     |           |                                          |   \       |
//!     x           x                                          |    \     /|
//!     |           |                                          |     \   / |
//!     ○-----x-----●                                          ○------\-/--●
//! ```
//!
//! A face's pairing depends on its four corners alone, so the two cells sharing a face draw the
//! same segments on it, and the surface is closed across cells and across separately meshed
//! grids: no holes on the ambiguous faces that the classic 15-case table leaves (its cases 3, 6,
//! 7, 10, 12 and 13 join the two inside corners of a face in some configurations and separate
//! them in others). The price is that two diagonal inside corners of a face never join through
//! it: a thin ridge sampled only at its corners meshes as two pieces, where the asymptotic
//! decider would sometimes join them. Density is the same on both sides of that choice; only
//! the sampling decides, and the surface nets make the same one.
//!
//! **Normals** come from the density's gradient, as the surface nets' do, but per edge so a
//! shared vertex has one normal: along the edge, the difference of its two samples; across it,
//! each endpoint's difference with the sample below it on that axis (above it on the grid's
//! first sample), blended by `t`. That is the gradient of the trilinear field of the cell below
//! the edge on both other axes, a cell that exists for every edge a padded grid owns, and is the
//! same cell whichever grid meshes the edge: neighbouring chunks light their shared edges alike.
//!
//! **Which cells**: those whose min corner lies in the [`GridRegion`]'s box (and whose max
//! corner lies in the grid). [`GridRegion::owned_edges_of_padded_grid`] then gives each padded
//! chunk the cells of its own part, and chunks that overlap by their padding tile space.
//!
//! **The order**, one that a compute pass gets from prefix sums of flags, as the surface nets'
//! passes do: the vertices of the edges the cells use, by sample row (z, then y), then axis,
//! then x; the triangles cell by cell (x fastest), each cell's in the table's order.

use std::sync::OnceLock;

use super::{DensityGrid, GridRegion, MeshError, SurfaceMesh};

/// The cube's corner `i` sits at `(i & 1, i >> 1 & 1, i >> 2 & 1)`, so bit `a` of a corner's
/// index is its coordinate on axis `a`. Edge `4 a + lane` runs along axis `a`; bit 0 of `lane`
/// is its first corner's coordinate on the next axis and bit 1 on the one after (x: y, z;
/// y: x, z; z: x, y), as the surface nets number them.
pub const EDGES: usize = 12;

/// The two axes other than `axis`, ascending.
const fn others(axis: usize) -> [usize; 2] {
    match axis {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    }
}

/// The first (lower) corner of edge `edge`.
pub const fn edge_start(edge: usize) -> usize {
    let axis = edge / 4;
    let lane = edge % 4;
    let [p, q] = others(axis);
    ((lane & 1) << p) | ((lane >> 1) << q)
}

/// The axis edge `edge` runs along.
pub const fn edge_axis(edge: usize) -> usize {
    edge / 4
}

/// The edge between two corners that differ on one axis.
fn edge_between(a: usize, b: usize) -> usize {
    let low = a.min(b);
    let axis = (a ^ b).trailing_zeros() as usize;
    let [p, q] = others(axis);
    axis * 4 + ((low >> p) & 1) + (((low >> q) & 1) << 1)
}

/// The triangles of every corner configuration (bit `i` set where corner `i` is inside,
/// density above zero), as edge triples: configuration `c`'s are
/// `triangles[starts[c] as usize..starts[c + 1] as usize]`. Flat, so a shader can read it as
/// it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseTable {
    pub starts: [u16; 257],
    pub triangles: Vec<[u8; 3]>,
}

impl CaseTable {
    /// The triangles of configuration `config`.
    pub fn triangles_of(&self, config: u8) -> &[[u8; 3]] {
        let config = usize::from(config);
        &self.triangles[usize::from(self.starts[config])..usize::from(self.starts[config + 1])]
    }

    /// The most triangles any configuration has.
    pub fn most_triangles(&self) -> usize {
        self.starts
            .windows(2)
            .map(|pair| usize::from(pair[1] - pair[0]))
            .max()
            .unwrap_or(0)
    }
}

/// The case table, built on first use (see the module's header).
pub fn case_table() -> &'static CaseTable {
    static TABLE: OnceLock<CaseTable> = OnceLock::new();
    TABLE.get_or_init(build_case_table)
}

/// Whether a face's corners (in order around it) are ambiguous: inside and outside alternate.
pub fn face_is_ambiguous(inside: [bool; 4]) -> bool {
    inside[0] == inside[2] && inside[1] == inside[3] && inside[0] != inside[1]
}

/// The six faces' corners, each in order around the face.
fn faces() -> [[usize; 4]; 6] {
    std::array::from_fn(|face| {
        let (axis, side) = (face / 2, face % 2);
        let [p, q] = others(axis);
        let corner = |u: usize, v: usize| (side << axis) | (u << p) | (v << q);
        [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)]
    })
}

fn build_case_table() -> CaseTable {
    let faces = faces();
    let mut starts = [0u16; 257];
    let mut triangles = Vec::new();
    for config in 0..256usize {
        let inside = |corner: usize| config >> corner & 1 == 1;
        // Each crossing edge's two neighbours along the loops, one from each face it lies on.
        let mut links: [Vec<usize>; EDGES] = Default::default();
        for face in &faces {
            let corners_inside = face.map(inside);
            let edge = |k: usize| edge_between(face[k], face[(k + 1) % 4]);
            let crossing: Vec<usize> = (0..4)
                .filter(|&k| corners_inside[k] != corners_inside[(k + 1) % 4])
                .collect();
            let pairs: Vec<(usize, usize)> = match crossing.len() {
                0 => Vec::new(),
                2 => vec![(edge(crossing[0]), edge(crossing[1]))],
                _ => {
                    // Ambiguous: each inside corner cut off on its own, by the two edges beside
                    // it (edge k − 1 ends at corner k, edge k starts there).
                    (0..4)
                        .filter(|&k| corners_inside[k])
                        .map(|k| (edge((k + 3) % 4), edge(k)))
                        .collect()
                }
            };
            for (a, b) in pairs {
                links[a].push(b);
                links[b].push(a);
            }
        }
        let mut used = [false; EDGES];
        for first in 0..EDGES {
            if used[first] || links[first].is_empty() {
                continue;
            }
            debug_assert_eq!(links[first].len(), 2, "a crossing edge lies on two faces");
            // Walk the loop.
            let mut ring = vec![first];
            used[first] = true;
            let mut previous = first;
            let mut at = links[first][0];
            while at != first {
                ring.push(at);
                used[at] = true;
                // Two edges share at most one face, so the way on is the other link.
                let next = if links[at][0] == previous {
                    links[at][1]
                } else {
                    links[at][0]
                };
                previous = at;
                at = next;
            }
            // Wound counter-clockwise seen from the air: its normal (Newell's, from the edges'
            // middles) along the crossing edges' way from solid to air.
            let middle = |edge: usize| {
                let start = edge_start(edge);
                let axis = edge_axis(edge);
                std::array::from_fn::<f32, 3, _>(|a| {
                    (start >> a & 1) as f32 + if a == axis { 0.5 } else { 0.0 }
                })
            };
            let mut normal = [0.0f32; 3];
            for (index, &edge) in ring.iter().enumerate() {
                let (a, b) = (middle(edge), middle(ring[(index + 1) % ring.len()]));
                normal[0] += (a[1] - b[1]) * (a[2] + b[2]);
                normal[1] += (a[2] - b[2]) * (a[0] + b[0]);
                normal[2] += (a[0] - b[0]) * (a[1] + b[1]);
            }
            let outward: f32 = ring
                .iter()
                .map(|&edge| {
                    let axis = edge_axis(edge);
                    // From the inside corner to the outside one.
                    if inside(edge_start(edge)) {
                        normal[axis]
                    } else {
                        -normal[axis]
                    }
                })
                .sum();
            if outward < 0.0 {
                ring.reverse();
            }
            for index in 1..ring.len() - 1 {
                triangles.push([ring[0], ring[index], ring[index + 1]].map(|edge| edge as u8));
            }
        }
        starts[config + 1] = triangles.len() as u16;
    }
    CaseTable { starts, triangles }
}

/// A reusable marching-cubes mesher. It keeps its scratch memory between grids, so meshing a
/// grid no larger than one meshed before allocates nothing.
#[derive(Debug, Default)]
pub struct MarchingCubes {
    /// Per sample and axis (`3 · sample + axis`): the vertex on the edge starting there, or
    /// `u32::MAX`.
    edge_vertex: Vec<u32>,
    /// Per vertex made, its edge (`3 · sample + axis`), for the tests that join grids.
    vertex_edges: Vec<u32>,
    /// The edges of `edge_vertex` the last mesh set.
    used: Vec<u32>,
    /// The cells the surface cuts, with their configurations, in order.
    cells: Vec<(u32, u8)>,
}

impl MarchingCubes {
    pub fn new() -> Self {
        Self::default()
    }

    /// Meshes the cells of `region` (those whose min corner lies in it) into `mesh`, replacing
    /// what it held.
    ///
    /// Fails on a region that is inverted or reaches past the grid, and on a NaN or infinite
    /// sample; `mesh` is then left empty.
    pub fn mesh(
        &mut self,
        grid: DensityGrid<'_>,
        region: GridRegion,
        mesh: &mut SurfaceMesh,
    ) -> Result<(), MeshError> {
        mesh.clear();
        self.vertex_edges.clear();
        let dims = grid.dims();
        region.check(dims)?;
        let samples = grid.samples();
        if let Some(index) = samples.iter().position(|sample| !sample.is_finite()) {
            return Err(MeshError::NotFinite {
                index,
                position: grid.position_of(index),
                value: samples[index],
            });
        }
        let table = case_table();
        let [nx, ny, _] = dims;
        let plane = nx * ny;
        // A cell needs its max corner in the grid.
        let low = region.min;
        let high = [0, 1, 2].map(|axis| region.max[axis].min(dims[axis] - 1));
        if (0..3).any(|axis| low[axis] >= high[axis]) {
            return Ok(());
        }
        // Only the entries the last mesh set are reset (most of a chunk has no surface).
        if self.edge_vertex.len() != 3 * samples.len() {
            self.edge_vertex.clear();
            self.edge_vertex.resize(3 * samples.len(), u32::MAX);
        } else {
            for &key in &self.used {
                self.edge_vertex[key as usize] = u32::MAX;
            }
        }
        self.used.clear();
        self.cells.clear();
        let corner_offset =
            |corner: usize| (corner & 1) + (corner >> 1 & 1) * nx + (corner >> 2 & 1) * plane;
        let offsets: [usize; 8] = std::array::from_fn(corner_offset);
        // The edges each configuration's triangles use, from the cell's min corner.
        let edge_offsets: [usize; EDGES] =
            std::array::from_fn(|edge| 3 * corner_offset(edge_start(edge)) + edge_axis(edge));
        // The order is one a compute pass gets from prefix sums (see the module's header): the
        // cells the surface cuts, x fastest, and the edges their triangles use; those edges
        // numbered in the order of their sample rows (z, then y), then by axis, then x; then
        // each cell's triangles.
        for z in low[2]..high[2] {
            for y in low[1]..high[1] {
                let row = nx * (y + ny * z);
                for x in low[0]..high[0] {
                    let base = x + row;
                    let mut config = 0u8;
                    for (corner, offset) in offsets.iter().enumerate() {
                        config |= u8::from(samples[base + offset] > 0.0) << corner;
                    }
                    if config == 0 || config == 255 {
                        continue;
                    }
                    self.cells.push((base as u32, config));
                    for &edge in table.triangles_of(config).iter().flatten() {
                        let key = 3 * base + edge_offsets[usize::from(edge)];
                        if self.edge_vertex[key] == u32::MAX {
                            self.edge_vertex[key] = USED;
                            self.used.push(key as u32);
                        }
                    }
                }
            }
        }
        // Slot order: the sample row (z, y), the axis, x.
        let slot = |key: u32| {
            let (start, axis) = (key as usize / 3, key as usize % 3);
            (start / nx, axis, start % nx)
        };
        self.used.sort_unstable_by_key(|&key| slot(key));
        for &key in &self.used {
            let (start, axis) = (key as usize / 3, key as usize % 3);
            self.edge_vertex[key as usize] = mesh.positions.len() as u32;
            let (position, normal) = edge_vertex(samples, dims, start, axis);
            mesh.positions.push(position);
            mesh.normals.push(normal);
            self.vertex_edges.push(key);
        }
        for &(base, config) in &self.cells {
            let base = base as usize;
            for &edge in table.triangles_of(config).iter().flatten() {
                let key = 3 * base + edge_offsets[usize::from(edge)];
                mesh.indices.push(self.edge_vertex[key]);
            }
        }
        Ok(())
    }

    /// The edge (`3 · sample + axis`) each vertex of the last mesh lies on.
    pub fn vertex_edges(&self) -> &[u32] {
        &self.vertex_edges
    }
}

/// Marks an edge an owned cell uses before its vertex is numbered.
const USED: u32 = u32::MAX - 1;

/// The vertex on the sign-changing edge from sample `start` along `axis`: its place in grid
/// units and its outward unit normal (see the module's header).
fn edge_vertex(
    samples: &[f32],
    dims: [usize; 3],
    start: usize,
    axis: usize,
) -> ([f32; 3], [f32; 3]) {
    let strides = [1, dims[0], dims[0] * dims[1]];
    let position_of = |index: usize| {
        [
            index % dims[0],
            index / dims[0] % dims[1],
            index / (dims[0] * dims[1]),
        ]
    };
    let end = start + strides[axis];
    let (first, second) = (samples[start], samples[end]);
    let t = first / (first - second);
    let place = position_of(start);
    let mut position = place.map(|value| value as f32);
    position[axis] += t;
    let mut gradient = [0.0f32; 3];
    gradient[axis] = second - first;
    for across in others(axis) {
        // The difference with the sample below on that axis, or above on the grid's first.
        let difference = |at: usize| {
            if place[across] > 0 {
                samples[at] - samples[at - strides[across]]
            } else {
                samples[at + strides[across]] - samples[at]
            }
        };
        let (from, to) = (difference(start), difference(end));
        gradient[across] = from + (to - from) * t;
    }
    let length_squared =
        gradient[0] * gradient[0] + gradient[1] * gradient[1] + gradient[2] * gradient[2];
    let normal = if length_squared > f32::MIN_POSITIVE && length_squared.is_finite() {
        let scale = -1.0 / length_squared.sqrt();
        gradient.map(|value| value * scale)
    } else {
        // No gradient: along the edge, from solid to air.
        let mut normal = [0.0; 3];
        normal[axis] = if first > 0.0 { 1.0 } else { -1.0 };
        normal
    };
    (position, normal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blockfall_test_support::marching_cubes::{self as reference, area_of};
    use std::collections::HashMap;

    /// What `engine/shaders/crossing.glsl` relies on: where the difference of two samples of
    /// opposite signs is past 2^126 (beyond Vulkan's range for an exact-enough division), a
    /// quarter of each gives the crossing the CPU computes from the whole samples, to the bit,
    /// tiny and huge samples and every sign included.
    #[test]
    fn a_quarter_of_each_sample_crosses_where_the_whole_samples_do() {
        let mut rng = blockfall_physics::random::Rng::new(0x5eed_c405);
        let limit = 2f32.powi(126);
        let mut checked = 0;
        for _ in 0..200_000 {
            // Magnitudes across the whole range, from denormals to f32::MAX, half of them
            // from 2^125 up (where the differences pass 2^126).
            let mut sample = || {
                let low = if rng.one_in(2) { 0 } else { 0x7e00_0000 };
                let magnitude = f32::from_bits((low + rng.below(0x7f80_0000 - low)) as u32);
                if rng.one_in(2) {
                    magnitude
                } else {
                    -magnitude
                }
            };
            let (first, second) = (sample(), sample());
            if (first > 0.0) == (second > 0.0) {
                continue;
            }
            let difference = first - second;
            if difference.abs() <= limit {
                continue;
            }
            let whole = first / difference;
            let quarter = (first * 0.25) / (difference * 0.25);
            assert_eq!(
                quarter.to_bits(),
                whole.to_bits(),
                "{first:e} to {second:e}: {quarter:e}, the whole samples' {whole:e}"
            );
            checked += 1;
        }
        assert!(checked > 10_000, "{checked} crossings past 2^126");
    }

    fn mesh_of(samples: &[f32], dims: [usize; 3], region: GridRegion) -> (SurfaceMesh, Vec<u32>) {
        let mut mesher = MarchingCubes::new();
        let mut mesh = SurfaceMesh::new();
        let grid = DensityGrid::new(samples, dims).expect("a grid");
        mesher.mesh(grid, region, &mut mesh).expect("meshed");
        (mesh, mesher.vertex_edges().to_vec())
    }

    fn field(dims: [usize; 3], mut density: impl FnMut([f32; 3]) -> f32) -> Vec<f32> {
        let mut samples = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    samples.push(density([x as f32, y as f32, z as f32]));
                }
            }
        }
        samples
    }

    /// A ball of radius 9.37 about a point between the samples: no sample on the surface.
    fn ball(point: [f32; 3]) -> f32 {
        let centre = [16.31, 15.83, 16.57];
        let d = [0, 1, 2].map(|axis| point[axis] - centre[axis]);
        9.37 - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    }

    /// Every edge between two vertices (by key) used by exactly two triangles, once each way
    /// round: a closed surface, consistently wound.
    fn assert_closed(triangles: &[[u64; 3]]) {
        let mut uses: HashMap<(u64, u64), i32> = HashMap::new();
        for triangle in triangles {
            for k in 0..3 {
                let (a, b) = (triangle[k], triangle[(k + 1) % 3]);
                assert_ne!(a, b, "a triangle with a repeated vertex: {triangle:?}");
                *uses.entry((a.min(b), a.max(b))).or_default() += if a < b { 1 } else { 100 };
            }
        }
        for (edge, count) in uses {
            assert_eq!(
                count, 101,
                "edge {edge:?} used {count} (1 per use one way, 100 the other)"
            );
        }
    }

    fn keyed(mesh: &SurfaceMesh, key: impl Fn(u32) -> u64) -> Vec<[u64; 3]> {
        mesh.indices
            .chunks_exact(3)
            .map(|triangle| [0, 1, 2].map(|k| key(triangle[k])))
            .collect()
    }

    #[test]
    fn the_table_uses_exactly_the_crossing_edges_of_every_configuration() {
        let table = case_table();
        for config in 0..256usize {
            let inside = |corner: usize| config >> corner & 1 == 1;
            let crossing: Vec<usize> = (0..EDGES)
                .filter(|&edge| {
                    inside(edge_start(edge)) != inside(edge_start(edge) | 1 << edge_axis(edge))
                })
                .collect();
            let mut used: Vec<usize> = table
                .triangles_of(config as u8)
                .iter()
                .flatten()
                .map(|&edge| usize::from(edge))
                .collect();
            used.sort_unstable();
            used.dedup();
            assert_eq!(used, crossing, "configuration {config:#010b}");
        }
        // Four triangles at most per loop of seven; two loops of six would be eight.
        assert!(table.most_triangles() <= 12, "{}", table.most_triangles());
    }

    #[test]
    fn random_densities_mesh_to_a_closed_surface_through_every_ambiguous_face() {
        // Random signs inside, air on the border: every ambiguous face and cube case occurs.
        let dims = [12, 11, 13];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut ambiguous = 0;
        let samples = field(dims, |[x, y, z]| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let border = [x, y, z]
                .iter()
                .zip(dims)
                .any(|(&value, size)| value == 0.0 || value as usize == size - 1);
            if border {
                -1.0
            } else {
                (state % 1000) as f32 / 500.0 - 1.0 + 0.0005
            }
        });
        let (mesh, edges) = mesh_of(&samples, dims, GridRegion::whole(dims));
        assert!(mesh.triangle_count() > 1000, "{}", mesh.triangle_count());
        assert_closed(&keyed(&mesh, |vertex| u64::from(edges[vertex as usize])));
        // The field has ambiguous faces (checked, so the test means what it says).
        for z in 0..dims[2] - 1 {
            for y in 0..dims[1] - 1 {
                let at =
                    |x: usize, y: usize, z: usize| samples[x + dims[0] * (y + dims[1] * z)] > 0.0;
                for x in 0..dims[0] - 1 {
                    if face_is_ambiguous([
                        at(x, y, z),
                        at(x + 1, y, z),
                        at(x + 1, y + 1, z),
                        at(x, y + 1, z),
                    ]) {
                        ambiguous += 1;
                    }
                }
            }
        }
        assert!(ambiguous > 50, "{ambiguous} ambiguous faces");
    }

    #[test]
    fn a_ball_meshed_in_eight_padded_chunks_is_closed_and_the_same_as_in_one_grid() {
        // Chunks of 16 cells, padded by one sample: 18 samples per axis every 16.
        let whole_dims = [34, 34, 34];
        let whole = field(whole_dims, ball);
        let (one, one_edges) = mesh_of(&whole, whole_dims, GridRegion::whole(whole_dims));
        let mut triangles = Vec::new();
        let mut area = 0.0f64;
        // A global edge key: its start sample in the whole grid's numbering, and its axis.
        let global = |offset: [usize; 3], local_dims: [usize; 3], key: u32| {
            let (sample, axis) = (key as usize / 3, key as u64 % 3);
            let local = [
                sample % local_dims[0],
                sample / local_dims[0] % local_dims[1],
                sample / (local_dims[0] * local_dims[1]),
            ];
            let at: Vec<usize> = (0..3).map(|a| local[a].wrapping_add(offset[a])).collect();
            (((at[2] * 64 + at[1]) * 64 + at[0]) as u64) * 3 + axis
        };
        for chunk in 0..8usize {
            // Chunk origin at sample 16 · c − 1: its sample 1 is the whole grid's 16 · c.
            let origin = [0, 1, 2].map(|axis| 16 * (chunk >> axis & 1));
            let dims = [18, 18, 18];
            let samples = field(dims, |[x, y, z]| {
                ball([
                    x + origin[0] as f32 - 1.0,
                    y + origin[1] as f32 - 1.0,
                    z + origin[2] as f32 - 1.0,
                ])
            });
            let (mesh, edges) =
                mesh_of(&samples, dims, GridRegion::owned_edges_of_padded_grid(dims));
            let offset = origin.map(|value| value.wrapping_sub(1));
            triangles.extend(keyed(&mesh, |vertex| {
                global(offset, dims, edges[vertex as usize])
            }));
            area += surface_area(&mesh);
        }
        assert_closed(&triangles);
        let mut from_one = keyed(&one, |vertex| {
            global([0; 3], whole_dims, one_edges[vertex as usize])
        });
        let mut from_chunks = triangles.clone();
        from_one.sort_unstable();
        from_chunks.sort_unstable();
        assert_eq!(
            from_one, from_chunks,
            "the chunks give the whole grid's triangles"
        );
        let one_area = surface_area(&one);
        assert!(
            (area - one_area).abs() < 1e-3 * one_area,
            "{area} {one_area}"
        );
        // A sphere's area, within what the sampling costs.
        let sphere = 4.0 * std::f64::consts::PI * 9.37f64 * 9.37;
        assert!(
            (one_area - sphere).abs() < 0.02 * sphere,
            "{one_area} against {sphere}"
        );
    }

    #[test]
    fn normals_point_out_of_the_ball_and_triangles_wind_counter_clockwise_from_outside() {
        let dims = [34, 34, 34];
        let (mesh, _) = mesh_of(&field(dims, ball), dims, GridRegion::whole(dims));
        let centre = [16.31f32, 15.83, 16.57];
        for (position, normal) in mesh.positions.iter().zip(&mesh.normals) {
            let out: Vec<f32> = (0..3).map(|a| position[a] - centre[a]).collect();
            let length = (out[0] * out[0] + out[1] * out[1] + out[2] * out[2]).sqrt();
            let along = (0..3).map(|a| normal[a] * out[a]).sum::<f32>() / length;
            assert!(along > 0.98, "normal {normal:?} at {position:?}: {along}");
        }
        for triangle in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[triangle[k] as usize]);
            let cross = cross(sub(b, a), sub(c, a));
            let out = sub(a, centre);
            assert!((0..3).map(|k| cross[k] * out[k]).sum::<f32>() > 0.0);
        }
    }

    #[test]
    fn bad_samples_and_regions_are_refused_and_leave_the_mesh_empty() {
        let dims = [4, 4, 4];
        let mut samples = field(dims, |[x, _, _]| 1.5 - x);
        let mut mesher = MarchingCubes::new();
        let mut mesh = SurfaceMesh::new();
        let grid = DensityGrid::new(&samples, dims).expect("a grid");
        let outside = GridRegion {
            min: [0; 3],
            max: [5, 4, 4],
        };
        assert!(matches!(
            mesher.mesh(grid, outside, &mut mesh),
            Err(MeshError::RegionOutsideGrid { .. })
        ));
        mesher
            .mesh(grid, GridRegion::whole(dims), &mut mesh)
            .expect("meshed");
        assert_eq!(
            mesh.triangle_count(),
            18,
            "a plane across 3 x 3 cells, two triangles each"
        );
        samples[21] = f32::NAN;
        let grid = DensityGrid::new(&samples, dims).expect("a grid");
        let error = mesher
            .mesh(grid, GridRegion::whole(dims), &mut mesh)
            .unwrap_err();
        assert!(
            matches!(error, MeshError::NotFinite { index: 21, .. }),
            "{error}"
        );
        assert!(mesh.is_empty() && mesh.positions.is_empty());
    }

    fn surface_area(mesh: &SurfaceMesh) -> f64 {
        area_of(
            mesh.indices
                .chunks_exact(3)
                .map(|triangle| [0, 1, 2].map(|k| mesh.positions[triangle[k] as usize])),
        )
    }

    fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    /// Ours against Bourke's on one field: (triangles ours, theirs, area ours, theirs, cells
    /// with an ambiguous face), every vertex of ours checked to lie on one of theirs.
    fn compare(samples: &[f32], dims: [usize; 3]) -> (usize, usize, f64, f64, usize) {
        let (mesh, _) = mesh_of(samples, dims, GridRegion::whole(dims));
        let found = reference::compare(
            (&mesh.positions, &mesh.indices),
            samples,
            dims,
            ([0; 3], dims),
        )
        .expect("the same vertices");
        (
            found.triangles.0,
            found.triangles.1,
            found.area.0,
            found.area.1,
            found.ambiguous_cells,
        )
    }

    #[test]
    fn a_ball_meshes_as_bourkes_marching_cubes_mesh_it() {
        let dims = [34, 34, 34];
        let (ours, theirs, area, their_area, ambiguous) = compare(&field(dims, ball), dims);
        assert_eq!(ambiguous, 0, "a ball this size has no ambiguous face");
        assert_eq!(ours, theirs);
        assert!(
            (area - their_area).abs() <= 1e-3 * their_area,
            "{area} {their_area}"
        );
    }

    #[test]
    fn the_dense_sine_field_meshes_as_bourkes_marching_cubes_mesh_it() {
        // The benchmark's dense sine field (`bench surface-nets`, case b): a sum of one sine
        // per axis, so no face is ambiguous (on a face, `f(x) + g(y)` cannot alternate in
        // sign around its corners) and the two tables must agree cell for cell.
        let dims = [34, 34, 34];
        let sine = |[x, y, z]: [f32; 3]| (x * 0.9).sin() + (y * 1.3).sin() + (z * 0.7).sin() + 0.3;
        let (ours, theirs, area, their_area, ambiguous) = compare(&field(dims, sine), dims);
        assert_eq!(ambiguous, 0);
        assert_eq!(ours, theirs);
        assert!(
            (area - their_area).abs() <= 1e-3 * their_area,
            "{area} {their_area}"
        );
    }

    #[test]
    fn saddles_mesh_as_bourkes_but_where_his_table_joins_an_ambiguous_face() {
        // Products of sines: saddles everywhere, many ambiguous faces.
        let dims = [34, 34, 34];
        let saddles = |[x, y, z]: [f32; 3]| {
            (x * 0.9).sin() * (y * 0.8).sin()
                + (y * 0.7).sin() * (z * 0.95).sin()
                + (z * 0.85).sin() * (x * 0.75).sin()
                + 0.137
        };
        let (ours, theirs, area, their_area, ambiguous) = compare(&field(dims, saddles), dims);
        println!(
            "saddles: ours {ours} triangles, Bourke's {theirs}, area {area:.2} / {their_area:.2}, \
             {ambiguous} cells with an ambiguous face"
        );
        assert!(ambiguous > 100, "{ambiguous} cells with an ambiguous face");
        // Only those cells may differ, by at most four triangles each (a band joining two
        // pieces of a face, or its absence).
        assert!(
            ours.abs_diff(theirs) <= 4 * ambiguous,
            "{ours} {theirs} {ambiguous}"
        );
        assert!(
            (area - their_area).abs() <= 1e-2 * their_area,
            "{area} {their_area}"
        );
    }
}
