//! The CPU surface-nets mesher.
//!
//! Most cells of a terrain grid are all air or all solid, so the mesher first reduces the grid to
//! one sign bit per sample, packed along x in `u64` words, and finds everything else with
//! bitwise operations on whole rows:
//!
//! ```text
//!   signs(y, z)      0 0 0 1 1 1 1 0      bit x = density(x, y, z) > 0
//!   x edges          signs ^ (signs >> 1)           the edge x -> x + 1 changes sign
//!   y edges          signs(y, z) ^ signs(y + 1, z)
//!   z edges          signs(y, z) ^ signs(y, z + 1)
//!   used cells(y, z) = OR of the owned edges around each cell (12 edges: 4 rows of x edges,
//!                      2 rows each of y and z edges, those two spread to cells x - 1 and x)
//! ```
//!
//! Only then are samples read again, and only for used cells: one vertex each, then one quad per
//! owned sign-changing edge. Vertices and quads are made in one sweep over cell rows, z outer and
//! y inner; every quad of the edges starting in sample row (y, z) joins cells of rows y - 1..=y,
//! z - 1..=z, which the sweep has reached by then.
//!
//! With a skirt (the module docs of [`super`] give the rule), a boundary cell's skirt vertex
//! follows its own vertex, and an edge's skirt quads follow its own quad.

use super::{check_skirt, DensityGrid, GridRegion, MeshError, SurfaceMesh};

/// Cell index -> vertex index for the cells of this run; other entries are stale and never read.
type CellVertexMap = Vec<u32>;

/// A reusable surface-nets mesher. It keeps its scratch memory between grids, so meshing a grid no
/// larger than one meshed before allocates nothing.
#[derive(Debug, Default)]
pub struct SurfaceNets {
    /// One bit per sample (`density > 0`), `words_per_row` words per x row, rows y fastest.
    signs: Vec<u64>,
    /// Per sample row: the owned, sign-changing edges starting there, along x, y and z.
    x_edges: Vec<u64>,
    y_edges: Vec<u64>,
    z_edges: Vec<u64>,
    /// Per cell row: the cells that some emitted quad joins.
    used_cells: Vec<u64>,
    /// Per word of a row: the x range of owned x edges, and of owned y and z edges (which also
    /// need the cells at x - 1).
    x_edge_range: Vec<u64>,
    yz_edge_range: Vec<u64>,
    cell_vertex: CellVertexMap,
    /// Each vertex's position relative to its cell's min corner. Quads choose their diagonal from
    /// these rather than from positions, so a quad splits the same way whichever grid it is
    /// meshed in: positions far from the origin round differently.
    cell_offsets: Vec<[f32; 3]>,
}

/// Where a grid's rows and cells lie in the flat arrays.
#[derive(Debug, Clone, Copy)]
struct Layout {
    dims: [usize; 3],
    words_per_row: usize,
    /// Cells per x row, and cell rows per z slice.
    cells_x: usize,
    cells_y: usize,
}

impl Layout {
    fn sample_row(&self, y: usize, z: usize) -> usize {
        y + self.dims[1] * z
    }

    fn cell(&self, x: usize, y: usize, z: usize) -> usize {
        x + self.cells_x * (y + self.cells_y * z)
    }
}

/// The skirt of one run: its depth and the region whose border it hangs from.
#[derive(Debug, Clone, Copy)]
struct Skirt {
    depth: f32,
    min: [usize; 3],
    max: [usize; 3],
}

impl Skirt {
    /// Whether cell `cell` lies on the region's border: its index on some axis is `min - 1` or
    /// `max - 1`. (Only used cells are asked.)
    #[inline]
    fn is_boundary(&self, cell: [usize; 3]) -> bool {
        (0..3).any(|axis| cell[axis] + 1 == self.min[axis] || cell[axis] + 1 == self.max[axis])
    }

    /// The skirt vertex of border cell `cell`, whose own vertex lies at `position` with normal
    /// `normal`: the rule in the module docs of [`super`]. It hangs `depth` down and into the
    /// ground as far as the normal leans ([`skirt_offset`]); on a high side along x or z it
    /// reaches out to the cell's far face, where a neighbour's mesh begins, dropping as far as
    /// the ground's tangent plane falls on the way ([`MAX_REACH_DROP`] at most), so that it stays
    /// under the ground it borders. It never rises: the top border's curtain hangs down too.
    #[inline]
    fn vertex(&self, cell: [usize; 3], position: [f32; 3], normal: [f32; 3]) -> [f32; 3] {
        let depth = self.depth;
        let mut skirt: [f32; 3] =
            std::array::from_fn(|axis| position[axis] - skirt_offset(normal, axis) * depth);
        for axis in [0, 2] {
            // Under an overhang (the normal pointing down) the curtain stays in the rock:
            // reaching out to the face could leave a thin ceiling sideways.
            if cell[axis] + 1 != self.max[axis] || normal[1] < 0.0 {
                continue;
            }
            let face = (cell[axis] + 1) as f32;
            if normal[axis] <= 0.0 {
                // The ground rises or lies level towards the face: out to it is into the ground.
                skirt[axis] = face;
            } else if normal[1] > 0.0 {
                // The ground falls towards the face: out along its tangent plane, as far as a
                // drop of MAX_REACH_DROP takes the curtain (a wall facing the face, n.y = 0,
                // keeps its curtain in the rock).
                let gap = face - position[axis];
                let reach = MAX_REACH_DROP * normal[1] / normal[axis];
                if gap <= reach {
                    skirt[axis] = face;
                    skirt[1] -= gap * normal[axis] / normal[1];
                } else {
                    skirt[axis] = position[axis] + reach - normal[axis] * depth;
                    skirt[1] -= MAX_REACH_DROP;
                }
            }
        }
        skirt
    }
}

/// How far, in grid units, a skirt reaching out to a high side's face drops below its depth
/// where the ground falls towards that face: on slopes up to atan(2) = 63° over a whole cell
/// the curtain reaches the face, on steeper ones only as far as this drop allows.
const MAX_REACH_DROP: f32 = 2.0;

/// How far a skirt vertex lies behind its vertex of normal `normal` along `axis`, per grid unit
/// of depth: (n_x, 1, n_z), one unit down and into the ground as far as the normal leans, so
/// that on a steep slope the curtain still reaches as far down as on flat ground; under an
/// overhang (the normal pointing down) the normal itself, straight into the rock.
#[inline]
fn skirt_offset(normal: [f32; 3], axis: usize) -> f32 {
    if axis == 1 && normal[1] >= 0.0 {
        1.0
    } else {
        normal[axis]
    }
}

impl SurfaceNets {
    pub fn new() -> Self {
        Self::default()
    }

    /// Meshes the edges of `region` into `mesh`, replacing what it held: no skirt
    /// ([`SurfaceNets::mesh_with_skirt`] with depth 0).
    ///
    /// Fails on a region that is inverted or reaches past the grid, and on a NaN or infinite
    /// sample; `mesh` is then left empty.
    pub fn mesh(
        &mut self,
        grid: DensityGrid<'_>,
        region: GridRegion,
        mesh: &mut SurfaceMesh,
    ) -> Result<(), MeshError> {
        self.mesh_with_skirt(grid, region, 0.0, mesh)
    }

    /// Meshes the edges of `region` into `mesh`, replacing what it held, with a skirt `skirt`
    /// grid units deep hanging from the region's border (the rule: the module docs of
    /// [`super`]); `0.0` gives exactly [`SurfaceNets::mesh`]'s mesh.
    ///
    /// Fails as [`SurfaceNets::mesh`] does, and on a skirt that is negative or not finite
    /// ([`MeshError::InvalidSkirt`]); `mesh` is then left empty.
    pub fn mesh_with_skirt(
        &mut self,
        grid: DensityGrid<'_>,
        region: GridRegion,
        skirt: f32,
        mesh: &mut SurfaceMesh,
    ) -> Result<(), MeshError> {
        mesh.clear();
        let dims = grid.dims();
        region.check(dims)?;
        check_skirt(skirt)?;
        let layout = Layout {
            dims,
            words_per_row: dims[0].div_ceil(64),
            cells_x: dims[0] - 1,
            cells_y: dims[1] - 1,
        };
        if !self.read_signs(grid, &layout)? {
            return Ok(());
        }
        // An edge starting on an axis' last sample either leaves the grid or lacks its cells.
        let start_min = region.min;
        let start_max = [0, 1, 2].map(|axis| region.max[axis].min(dims[axis] - 1));
        if (0..3).any(|axis| start_min[axis] >= start_max[axis]) {
            return Ok(());
        }
        if !self.find_edges(&layout, start_min, start_max) {
            return Ok(());
        }
        self.find_used_cells(&layout);
        // No reserve from exact counts: without a POPCNT instruction in the baseline target,
        // counting bits costs more than the few times the buffers grow before they are warm.
        self.cell_offsets.clear();
        self.cell_vertex
            .resize(layout.cells_x * layout.cells_y * (dims[2] - 1), 0);
        let skirt = (skirt > 0.0).then_some(Skirt {
            depth: skirt,
            min: region.min,
            max: region.max,
        });
        self.sweep(grid.samples(), &layout, skirt, mesh);
        Ok(())
    }

    /// Packs the sign bits and checks every sample is finite. Returns whether the grid has both
    /// inside and outside samples, i.e. any surface at all.
    fn read_signs(&mut self, grid: DensityGrid<'_>, layout: &Layout) -> Result<bool, MeshError> {
        let [nx, ny, nz] = layout.dims;
        self.signs.resize(ny * nz * layout.words_per_row, 0);
        // Whether any sample is inside, and whether all are (bits past the row's end count as
        // inside for the latter).
        let mut any_inside = 0u64;
        let mut all_inside = u64::MAX;
        let tail_bits = nx % 64;
        let last_word_padding = if tail_bits == 0 {
            0
        } else {
            u64::MAX << tail_bits
        };
        let rows = grid.samples().chunks_exact(nx);
        for (row_index, (row, row_signs)) in rows
            .zip(self.signs.chunks_exact_mut(layout.words_per_row))
            .enumerate()
        {
            // Two simple loops instead of one: each compiles to straight vector or unrolled code.
            let finite = row
                .iter()
                .fold(true, |finite, sample| finite & sample.is_finite());
            for (block, word) in row.chunks(64).zip(row_signs.iter_mut()) {
                *word = sign_bits(block);
                any_inside |= *word;
                let padding = if block.len() < 64 {
                    last_word_padding
                } else {
                    0
                };
                all_inside &= *word | padding;
            }
            if !finite {
                let x = row
                    .iter()
                    .position(|sample| !sample.is_finite())
                    .unwrap_or(0);
                let index = row_index * nx + x;
                return Err(MeshError::NotFinite {
                    index,
                    position: grid.position_of(index),
                    value: row[x],
                });
            }
        }
        Ok(any_inside != 0 && all_inside != u64::MAX)
    }

    /// Fills the per-row edge masks for edges starting in `[start_min, start_max)` and returns
    /// whether there are any (one quad each).
    fn find_edges(
        &mut self,
        layout: &Layout,
        start_min: [usize; 3],
        start_max: [usize; 3],
    ) -> bool {
        let [_, ny, nz] = layout.dims;
        let words = layout.words_per_row;
        fill_range_masks(&mut self.x_edge_range, words, start_min[0], start_max[0]);
        fill_range_masks(
            &mut self.yz_edge_range,
            words,
            start_min[0].max(1),
            start_max[0],
        );
        let mask_len = ny * nz * words;
        for masks in [&mut self.x_edges, &mut self.y_edges, &mut self.z_edges] {
            masks.clear();
            masks.resize(mask_len, 0);
        }
        let mut any = 0u64;
        for z in start_min[2]..start_max[2] {
            for y in start_min[1]..start_max[1] {
                let row = layout.sample_row(y, z) * words;
                // Rows past start_max stay zero; y + 1 and z + 1 exist since start_max <= n - 1.
                let up = layout.sample_row(y + 1, z) * words;
                let forward = layout.sample_row(y, z + 1) * words;
                for word in 0..words {
                    let signs = self.signs[row + word];
                    let next = if word + 1 < words {
                        self.signs[row + word + 1]
                    } else {
                        0
                    };
                    let shifted = (signs >> 1) | (next << 63);
                    // Edges along an axis need the cells below them on the other two axes.
                    let x_edges = if y >= 1 && z >= 1 {
                        (signs ^ shifted) & self.x_edge_range[word]
                    } else {
                        0
                    };
                    let y_edges = if z >= 1 {
                        (signs ^ self.signs[up + word]) & self.yz_edge_range[word]
                    } else {
                        0
                    };
                    let z_edges = if y >= 1 {
                        (signs ^ self.signs[forward + word]) & self.yz_edge_range[word]
                    } else {
                        0
                    };
                    self.x_edges[row + word] = x_edges;
                    self.y_edges[row + word] = y_edges;
                    self.z_edges[row + word] = z_edges;
                    any |= x_edges | y_edges | z_edges;
                }
            }
        }
        any != 0
    }

    /// Marks the cells that emitted quads join (one vertex each).
    fn find_used_cells(&mut self, layout: &Layout) {
        let [_, ny, nz] = layout.dims;
        let words = layout.words_per_row;
        self.used_cells.clear();
        self.used_cells.resize(layout.cells_y * (nz - 1) * words, 0);
        for z in 0..nz - 1 {
            for y in 0..ny - 1 {
                let row = layout.sample_row(y, z) * words;
                let up = layout.sample_row(y + 1, z) * words;
                let forward = layout.sample_row(y, z + 1) * words;
                let up_forward = layout.sample_row(y + 1, z + 1) * words;
                let cell_row = (y + layout.cells_y * z) * words;
                let spread = |masks: &[u64], first: usize, second: usize, word: usize| {
                    let here = masks[first + word] | masks[second + word];
                    let next = if word + 1 < words {
                        masks[first + word + 1] | masks[second + word + 1]
                    } else {
                        0
                    };
                    // A y or z edge at x joins the cells x - 1 and x.
                    here | (here >> 1) | (next << 63)
                };
                for word in 0..words {
                    let x_edges = self.x_edges[row + word]
                        | self.x_edges[up + word]
                        | self.x_edges[forward + word]
                        | self.x_edges[up_forward + word];
                    let used = x_edges
                        | spread(&self.y_edges, row, forward, word)
                        | spread(&self.z_edges, row, up, word);
                    self.used_cells[cell_row + word] = used;
                }
            }
        }
    }

    /// Makes the vertices of used cells and the quads of owned edges, row by row.
    fn sweep(
        &mut self,
        samples: &[f32],
        layout: &Layout,
        skirt: Option<Skirt>,
        mesh: &mut SurfaceMesh,
    ) {
        let [_, ny, nz] = layout.dims;
        let words = layout.words_per_row;
        let cell_plane = layout.cells_x * layout.cells_y;
        for z in 0..nz - 1 {
            for y in 0..ny - 1 {
                let cell_row = (y + layout.cells_y * z) * words;
                for word in 0..words {
                    let mut used = self.used_cells[cell_row + word];
                    while used != 0 {
                        let x = word * 64 + used.trailing_zeros() as usize;
                        used &= used - 1;
                        let vertex = mesh.positions.len() as u32;
                        self.cell_vertex[layout.cell(x, y, z)] = vertex;
                        let corners = corner_samples(samples, layout.dims, x, y, z);
                        let (offset, normal) = cell_vertex(&corners);
                        let position = [
                            x as f32 + offset[0],
                            y as f32 + offset[1],
                            z as f32 + offset[2],
                        ];
                        mesh.positions.push(position);
                        mesh.normals.push(normal);
                        self.cell_offsets.push(offset);
                        if let Some(skirt) = skirt.filter(|skirt| skirt.is_boundary([x, y, z])) {
                            // The skirt vertex, right after its cell's: the offset entry keeps
                            // `cell_offsets` indexed by vertex (quads never read it).
                            mesh.positions
                                .push(skirt.vertex([x, y, z], position, normal));
                            mesh.normals.push(normal);
                            self.cell_offsets.push(offset);
                        }
                    }
                }

                let row = layout.sample_row(y, z) * words;
                let quads = QuadWriter {
                    signs: &self.signs[row..row + words],
                    cell_vertex: &self.cell_vertex,
                    cell_offsets: &self.cell_offsets,
                    row_cell: layout.cell(0, y, z),
                    y,
                    z,
                    skirt,
                };
                for word in 0..words {
                    // Edges along x: b = y, c = z.
                    quads.write::<0>(
                        self.x_edges[row + word],
                        word,
                        [layout.cells_x, cell_plane],
                        &mut mesh.indices,
                    );
                    // Along y: b = z, c = x.
                    quads.write::<1>(
                        self.y_edges[row + word],
                        word,
                        [cell_plane, 1],
                        &mut mesh.indices,
                    );
                    // Along z: b = x, c = y.
                    quads.write::<2>(
                        self.z_edges[row + word],
                        word,
                        [1, layout.cells_x],
                        &mut mesh.indices,
                    );
                }
            }
        }
    }

    /// The vertex index of a cell used in the last run; `None` for cells it did not use.
    #[cfg(test)]
    pub(crate) fn vertex_of_cell(&self, dims: [usize; 3], cell: [usize; 3]) -> Option<u32> {
        let words = dims[0].div_ceil(64);
        let [x, y, z] = cell;
        let word = self.used_cells[(y + (dims[1] - 1) * z) * words + x / 64];
        if word >> (x % 64) & 1 == 0 {
            return None;
        }
        Some(self.cell_vertex[x + (dims[0] - 1) * (y + (dims[1] - 1) * z)])
    }

    /// The capacities of the scratch buffers, to show reuse allocates nothing.
    #[cfg(test)]
    pub(crate) fn scratch_capacities(&self) -> [usize; 9] {
        [
            self.signs.capacity(),
            self.x_edges.capacity(),
            self.y_edges.capacity(),
            self.z_edges.capacity(),
            self.used_cells.capacity(),
            self.x_edge_range.capacity(),
            self.yz_edge_range.capacity(),
            self.cell_vertex.capacity(),
            self.cell_offsets.capacity(),
        ]
    }
}

/// Turns the sign-changing edges of one word of a sample row into quads.
struct QuadWriter<'a> {
    /// The sign bits of the row.
    signs: &'a [u64],
    cell_vertex: &'a [u32],
    cell_offsets: &'a [[f32; 3]],
    /// The cell index of (0, y, z).
    row_cell: usize,
    /// The row's sample coordinates.
    y: usize,
    z: usize,
    skirt: Option<Skirt>,
}

impl QuadWriter<'_> {
    /// Writes the quads of the edges along axis `A` set in `edges`. `steps` are the cell-index
    /// strides of the axes b = A + 1 and c = A + 2 (mod 3), so b x c = a.
    ///
    /// The four cells around the edge p -> p + e_a, seen from +a (b right, c up):
    ///
    /// ```text
    ///   v3 = p - e_b        v2 = p
    ///   v0 = p - e_b - e_c  v1 = p - e_c
    /// ```
    ///
    /// v0 v1 v2 v3 runs counter-clockwise seen from +a, which is outside when p is the solid end.
    #[inline]
    fn write<const A: usize>(
        &self,
        mut edges: u64,
        word: usize,
        steps: [usize; 2],
        indices: &mut Vec<u32>,
    ) {
        while edges != 0 {
            let bit = edges.trailing_zeros() as usize;
            edges &= edges - 1;
            let cell = self.row_cell + word * 64 + bit;
            let v = [
                self.cell_vertex[cell - steps[0] - steps[1]],
                self.cell_vertex[cell - steps[1]],
                self.cell_vertex[cell],
                self.cell_vertex[cell - steps[0]],
            ];
            let offset = |corner: usize| self.cell_offsets[v[corner] as usize];
            // v2 - v0 is e_b + e_c plus the offsets' difference; v3 - v1 is e_c - e_b plus theirs.
            let diagonal_02 = distance_squared::<A>(offset(2), offset(0), 1.0);
            let diagonal_13 = distance_squared::<A>(offset(3), offset(1), -1.0);
            let start_solid = self.signs[word] >> bit & 1 == 1;
            let [v0, v1, v2, v3] = if start_solid {
                v
            } else {
                [v[0], v[3], v[2], v[1]]
            };
            // Reversing keeps v0 and v2 in place, so the diagonal test still holds.
            let quad = if diagonal_02 <= diagonal_13 {
                [v0, v1, v2, v0, v2, v3]
            } else {
                [v1, v2, v3, v1, v3, v0]
            };
            indices.extend_from_slice(&quad);
            if let Some(skirt) = self.skirt {
                let start = [word * 64 + bit, self.y, self.z];
                write_skirt_quads::<A>(&skirt, start, v, indices);
            }
        }
    }
}

/// The skirt quads of the owned edge along axis `A` starting at `start`, whose four cells'
/// vertices are `v` (as in [`QuadWriter::write`], before any reversal): per axis `a` of b, c, a
/// low then a high segment where the edge lies on the region's border. A segment's cells are
/// boundary cells, so their skirt vertices follow their own.
#[inline]
fn write_skirt_quads<const A: usize>(
    skirt: &Skirt,
    start: [usize; 3],
    v: [u32; 4],
    indices: &mut Vec<u32>,
) {
    let b = (A + 1) % 3;
    let c = (A + 2) % 3;
    // (axis, low side's cells, high side's cells), each pair lower on the third axis first.
    let sides = [
        (b, [v[0], v[3]], [v[1], v[2]]),
        (c, [v[0], v[1]], [v[3], v[2]]),
    ];
    for (axis, low, high) in sides {
        if start[axis] == skirt.min[axis] {
            write_skirt_segment(low, indices);
        }
        if start[axis] + 1 == skirt.max[axis] {
            write_skirt_segment(high, indices);
        }
    }
}

/// The quad c0 c1 s1 s0 of a skirt segment, once per winding.
#[inline]
fn write_skirt_segment([c0, c1]: [u32; 2], indices: &mut Vec<u32>) {
    let (s0, s1) = (c0 + 1, c1 + 1);
    indices.extend_from_slice(&[c0, c1, s1, c0, s1, s0, c0, s1, c1, c0, s0, s1]);
}

/// |to - from + b_weight e_b + e_c|^2 with b = A + 1, c = A + 2 (mod 3): the squared distance
/// between two vertices given their offsets in cells that lie that many steps apart.
#[inline(always)]
fn distance_squared<const A: usize>(to: [f32; 3], from: [f32; 3], b_weight: f32) -> f32 {
    let mut sum = 0.0;
    for axis in 0..3 {
        let step = if axis == (A + 1) % 3 {
            b_weight
        } else if axis == (A + 2) % 3 {
            1.0
        } else {
            0.0
        };
        let delta = to[axis] - from[axis] + step;
        sum += delta * delta;
    }
    sum
}

/// The 8 corner samples of cell (x, y, z), indexed by `dx + 2 dy + 4 dz`.
#[inline]
fn corner_samples(samples: &[f32], dims: [usize; 3], x: usize, y: usize, z: usize) -> [f32; 8] {
    let nx = dims[0];
    let plane = nx * dims[1];
    let base = x + nx * (y + dims[1] * z);
    let lower = &samples[base..base + nx + 2];
    let upper = &samples[base + plane..base + plane + nx + 2];
    [
        lower[0],
        lower[1],
        lower[nx],
        lower[nx + 1],
        upper[0],
        upper[1],
        upper[nx],
        upper[nx + 1],
    ]
}

/// The vertex of a cell the surface cuts: its offset from the cell's min corner (the mean of the
/// edge crossings) and the outward unit normal there.
///
/// The 12 edges go as 3 axes of 4 lanes, every crossing computed and then kept or dropped: the
/// compiler turns that into a few vector divides and selects instead of 12 branches that
/// mispredict on every other cell.
#[inline]
fn cell_vertex(d: &[f32; 8]) -> ([f32; 3], [f32; 3]) {
    // Lane l of an axis is the edge whose first corner sits at bit 0 of l on the next axis and
    // bit 1 of l on the one after (x: y, z; y: x, z; z: x, y).
    let firsts = [
        [d[0], d[2], d[4], d[6]],
        [d[0], d[1], d[4], d[5]],
        [d[0], d[1], d[2], d[3]],
    ];
    let seconds = [
        [d[1], d[3], d[5], d[7]],
        [d[2], d[3], d[6], d[7]],
        [d[4], d[5], d[6], d[7]],
    ];
    let mut changes = [[0.0f32; 4]; 3];
    let mut crossings = [[0.0f32; 4]; 3];
    for axis in 0..3 {
        for lane in 0..4 {
            let (first, second) = (firsts[axis][lane], seconds[axis][lane]);
            let at = first / (first - second);
            let changed = (first > 0.0) != (second > 0.0);
            changes[axis][lane] = if changed { 1.0 } else { 0.0 };
            crossings[axis][lane] = if changed { at } else { 0.0 };
        }
    }
    let lanes = |values: [f32; 4]| (values[0] + values[1]) + (values[2] + values[3]);
    let count = lanes(changes[0]) + lanes(changes[1]) + lanes(changes[2]);
    let sum = [
        lanes(crossings[0]) + (changes[1][1] + changes[1][3]) + (changes[2][1] + changes[2][3]),
        lanes(crossings[1]) + (changes[0][1] + changes[0][3]) + (changes[2][2] + changes[2][3]),
        lanes(crossings[2]) + (changes[0][2] + changes[0][3]) + (changes[1][2] + changes[1][3]),
    ];
    let inverse = 1.0 / count;
    let offset = [sum[0] * inverse, sum[1] * inverse, sum[2] * inverse];
    let [fx, fy, fz] = offset;
    let lerp = |from: f32, to: f32, t: f32| from + (to - from) * t;
    let gradient = [
        lerp(
            lerp(d[1] - d[0], d[3] - d[2], fy),
            lerp(d[5] - d[4], d[7] - d[6], fy),
            fz,
        ),
        lerp(
            lerp(d[2] - d[0], d[3] - d[1], fx),
            lerp(d[6] - d[4], d[7] - d[5], fx),
            fz,
        ),
        lerp(
            lerp(d[4] - d[0], d[5] - d[1], fx),
            lerp(d[6] - d[2], d[7] - d[3], fx),
            fy,
        ),
    ];
    let length_squared =
        gradient[0] * gradient[0] + gradient[1] * gradient[1] + gradient[2] * gradient[2];
    let normal = if length_squared > f32::MIN_POSITIVE && length_squared.is_finite() {
        let scale = -1.0 / length_squared.sqrt();
        [
            gradient[0] * scale,
            gradient[1] * scale,
            gradient[2] * scale,
        ]
    } else {
        crossing_direction_normal(d)
    };
    (offset, normal)
}

/// The normal of a cell whose density gradient vanishes at its vertex (a saddle, say): the sum
/// of its crossing edges' directions from solid to air, or straight up if those cancel too.
#[cold]
fn crossing_direction_normal(d: &[f32; 8]) -> [f32; 3] {
    let mut sum = [0.0f32; 3];
    for (axis, bit) in [1usize, 2, 4].into_iter().enumerate() {
        for corner in (0..8).filter(|corner| corner & bit == 0) {
            let (first, second) = (d[corner] > 0.0, d[corner | bit] > 0.0);
            if first != second {
                sum[axis] += if first { 1.0 } else { -1.0 };
            }
        }
    }
    let length = sum.iter().map(|s| s * s).sum::<f32>().sqrt();
    if length > 0.0 {
        sum.map(|s| s / length)
    } else {
        [0.0, 1.0, 0.0]
    }
}

/// Bit i set where `block[i] > 0`, for a block of at most 64 samples.
#[inline]
fn sign_bits(block: &[f32]) -> u64 {
    let mut bits = 0u64;
    let mut quads = block.chunks_exact(4);
    // Constant shifts within a group of 4 (one variable shift per group) let the compiler use a
    // vector compare and mask extraction.
    for (group, samples) in (&mut quads).enumerate() {
        let nibble = u64::from(samples[0] > 0.0)
            | u64::from(samples[1] > 0.0) << 1
            | u64::from(samples[2] > 0.0) << 2
            | u64::from(samples[3] > 0.0) << 3;
        bits |= nibble << (4 * group);
    }
    let done = block.len() - quads.remainder().len();
    for (offset, &sample) in quads.remainder().iter().enumerate() {
        bits |= u64::from(sample > 0.0) << (done + offset);
    }
    bits
}

/// Per word of a row, the bits of x in `[from, to)`.
fn fill_range_masks(masks: &mut Vec<u64>, words: usize, from: usize, to: usize) {
    masks.clear();
    masks.extend((0..words).map(|word| {
        let low = word * 64;
        let bits_from = from.saturating_sub(low).min(64);
        let bits_to = to.saturating_sub(low).min(64);
        if bits_from >= bits_to {
            0
        } else {
            let upper = if bits_to == 64 {
                u64::MAX
            } else {
                (1u64 << bits_to) - 1
            };
            upper & !((1u64 << bits_from) - 1)
        }
    }));
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// `density` at every sample of a grid of `dims`, x fastest.
    fn sample_grid(dims: [usize; 3], density: impl Fn([f32; 3]) -> f32) -> Vec<f32> {
        let mut samples = Vec::with_capacity(dims.iter().product());
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    samples.push(density([x as f32, y as f32, z as f32]));
                }
            }
        }
        samples
    }

    fn meshed(
        samples: &[f32],
        dims: [usize; 3],
        region: GridRegion,
        skirt: f32,
    ) -> (SurfaceNets, SurfaceMesh) {
        let mut mesher = SurfaceNets::new();
        let mut mesh = SurfaceMesh::new();
        let grid = DensityGrid::new(samples, dims).unwrap();
        mesher
            .mesh_with_skirt(grid, region, skirt, &mut mesh)
            .unwrap();
        (mesher, mesh)
    }

    /// A triangle rotated to start at its smallest index (winding kept).
    fn canonical([a, b, c]: [u32; 3]) -> [u32; 3] {
        if a <= b && a <= c {
            [a, b, c]
        } else if b <= a && b <= c {
            [b, c, a]
        } else {
            [c, a, b]
        }
    }

    fn triangles(indices: &[u32]) -> Vec<[u32; 3]> {
        indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect()
    }

    /// The skirt segments the rule gives, counted from the edges themselves: per owned
    /// sign-changing edge and other axis, one where its start lies on the region's low border
    /// and one on its high border.
    fn expected_segments(samples: &[f32], dims: [usize; 3], region: GridRegion) -> usize {
        let inside = |p: [usize; 3]| samples[p[0] + dims[0] * (p[1] + dims[1] * p[2])] > 0.0;
        let mut segments = 0;
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    let p = [x, y, z];
                    for axis in 0..3 {
                        let others = [(axis + 1) % 3, (axis + 2) % 3];
                        let owned = (0..3).all(|a| {
                            p[a] >= region.min[a] && p[a] < region.max[a].min(dims[a] - 1)
                        }) && others.iter().all(|&a| p[a] >= 1);
                        let mut end = p;
                        end[axis] += 1;
                        if !owned || inside(p) == inside(end) {
                            continue;
                        }
                        for a in others {
                            segments += usize::from(p[a] == region.min[a]);
                            segments += usize::from(p[a] + 1 == region.max[a]);
                        }
                    }
                }
            }
        }
        segments
    }

    #[test]
    fn a_plane_hangs_a_skirt_straight_down_from_its_border_showing_both_sides() {
        let dims = [12, 10, 9];
        let samples = sample_grid(dims, |[_, y, _]| 4.5 - y);
        // Owned edge starts [1, 11) x [1, 9) x [1, 8): the plane's cells x 0..=10, z 0..=7.
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        let (mesher, mesh) = meshed(&samples, dims, region, 2.0);
        let (_, plain) = meshed(&samples, dims, region, 0.0);
        assert_eq!(plain.positions.len(), 11 * 8);

        let mut skirt_vertices = HashSet::new();
        for z in 0..8 {
            for x in 0..11 {
                let vertex = mesher.vertex_of_cell(dims, [x, 4, z]).expect("a used cell") as usize;
                let position = mesh.positions[vertex];
                assert_eq!(mesh.normals[vertex], [-0.0, 1.0, -0.0]);
                if x == 0 || x == 10 || z == 0 || z == 7 {
                    let skirt = vertex + 1;
                    // On the high sides (x 10, z 7) the curtain reaches out to the face.
                    let expected = [
                        if x == 10 { 11.0 } else { position[0] },
                        position[1] - 2.0,
                        if z == 7 { 8.0 } else { position[2] },
                    ];
                    assert_eq!(
                        mesh.positions[skirt], expected,
                        "cell ({x}, 4, {z}): its skirt vertex 2 below its own"
                    );
                    assert_eq!(mesh.positions[skirt][1], 2.5);
                    assert_eq!(mesh.normals[skirt], mesh.normals[vertex]);
                    skirt_vertices.insert(skirt as u32);
                }
            }
        }
        assert_eq!(skirt_vertices.len(), 2 * 11 + 2 * 6, "the border's cells");
        assert_eq!(mesh.positions.len(), 11 * 8 + skirt_vertices.len());

        // The four sides: 10 segments on each z face (x starts 1..11), 7 on each x face.
        let segments = 2 * 10 + 2 * 7;
        assert_eq!(expected_segments(&samples, dims, region), segments);
        let all = triangles(&mesh.indices);
        let skirt: Vec<[u32; 3]> = all
            .iter()
            .copied()
            .filter(|t| t.iter().any(|v| skirt_vertices.contains(v)))
            .collect();
        assert_eq!(
            skirt.len(),
            4 * segments,
            "two quads (4 triangles) a segment"
        );
        assert_eq!(
            mesh.indices.len(),
            plain.indices.len() + 12 * segments,
            "the plane's quads and the skirts' only"
        );
        // Both windings of every skirt triangle, so the curtain shows from either side.
        let present: HashSet<[u32; 3]> = skirt.iter().map(|&t| canonical(t)).collect();
        for &[a, b, c] in &skirt {
            assert!(
                present.contains(&canonical([a, c, b])),
                "{:?} reversed",
                [a, b, c]
            );
        }
        // Every skirt triangle hangs on one of the four side faces, from y 4.5 down to 2.5;
        // on the high sides from the border cells' vertices out to the face.
        let mut faces = [0usize; 4];
        for triangle in &skirt {
            let corners = triangle.map(|v| mesh.positions[v as usize]);
            let on = |axis: usize, at: [f32; 2]| corners.iter().all(|p| at.contains(&p[axis]));
            let face = [
                on(0, [0.5, 0.5]),
                on(0, [10.5, 11.0]),
                on(2, [0.5, 0.5]),
                on(2, [7.5, 8.0]),
            ];
            assert_eq!(face.iter().filter(|&&f| f).count(), 1, "{corners:?}");
            faces[face.iter().position(|&f| f).unwrap()] += 1;
            assert!(corners.iter().any(|p| p[1] == 4.5) && corners.iter().any(|p| p[1] == 2.5));
        }
        assert_eq!(faces, [4 * 7, 4 * 7, 4 * 10, 4 * 10]);
    }

    /// The skirt vertex of every boundary cell of `mesh` (meshed by `mesher` from a grid of
    /// `dims` in `region`), with the cell and its own vertex's index.
    fn skirt_vertices(
        mesher: &SurfaceNets,
        dims: [usize; 3],
        region: GridRegion,
    ) -> Vec<([usize; 3], usize)> {
        let mut found = Vec::new();
        for z in 0..dims[2] - 1 {
            for y in 0..dims[1] - 1 {
                for x in 0..dims[0] - 1 {
                    let cell = [x, y, z];
                    let border = (0..3)
                        .any(|a| cell[a] + 1 == region.min[a] || cell[a] + 1 == region.max[a]);
                    if let (true, Some(vertex)) = (border, mesher.vertex_of_cell(dims, cell)) {
                        found.push((cell, vertex as usize));
                    }
                }
            }
        }
        found
    }

    #[test]
    fn a_skirt_on_a_steep_slope_hangs_its_whole_depth_down() {
        // Ground rising 2 in 1 along x (63° steep): along its normal, a curtain 2 deep would
        // go down only 0.9 and leave the sky under a coarser neighbour's ground showing.
        let dims = [12, 26, 9];
        let samples = sample_grid(dims, |[x, y, _]| 2.0 * x + 1.5 - y);
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        let depth = 2.0;
        let (mesher, mesh) = meshed(&samples, dims, region, depth);
        let skirts = skirt_vertices(&mesher, dims, region);
        assert!(skirts.len() > 20, "{} border cells", skirts.len());
        for (cell, vertex) in skirts {
            let [p, n] = [mesh.positions[vertex], mesh.normals[vertex]];
            assert!(
                n[1] > 0.4 && n[1] < 0.5 && n[0] < -0.85,
                "cell {cell:?}: normal {n:?}"
            );
            let skirt = mesh.positions[vertex + 1];
            assert_eq!(skirt[1], p[1] - depth, "cell {cell:?}: {p:?} -> {skirt:?}");
            // Into the slope as far as the normal leans, or out to a high side's face.
            for axis in [0, 2] {
                let high = cell[axis] + 1 == region.max[axis];
                let expected = if high {
                    (cell[axis] + 1) as f32
                } else {
                    p[axis] - n[axis] * depth
                };
                assert_eq!(skirt[axis], expected, "cell {cell:?}, axis {axis}");
            }
        }
    }

    /// The height of the density's surface (trilinear between samples) on the vertical line
    /// through `(x, z)`: the highest crossing from air above to ground below.
    fn surface_height(samples: &[f32], dims: [usize; 3], x: f32, z: f32) -> Option<f32> {
        let column = |y: usize| {
            let at = |xi: usize, zi: usize| samples[xi + dims[0] * (y + dims[1] * zi)];
            let (x0, z0) = (
                (x.floor() as usize).min(dims[0] - 2),
                (z.floor() as usize).min(dims[2] - 2),
            );
            let (fx, fz) = (x - x0 as f32, z - z0 as f32);
            let low = at(x0, z0) + (at(x0 + 1, z0) - at(x0, z0)) * fx;
            let high = at(x0, z0 + 1) + (at(x0 + 1, z0 + 1) - at(x0, z0 + 1)) * fx;
            low + (high - low) * fz
        };
        (0..dims[1] - 1).rev().find_map(|y| {
            let (below, above) = (column(y), column(y + 1));
            (below > 0.0 && above <= 0.0).then(|| y as f32 + below / (below - above))
        })
    }

    #[test]
    fn no_skirt_rises_above_the_ground_at_the_top_border() {
        // Ground lying just under the region's top (y) border, gently rolling, and leaving it
        // here and there: every border cell's curtain hangs down from its vertex. A curtain up
        // to the top face drew the ground just under a chunk's top as a raised shelf.
        let dims = [14, 10, 14];
        let ground = |[x, y, z]: [f32; 3]| 7.6 + 0.5 * (x * 0.7).sin() + 0.4 * (z * 0.5).cos() - y;
        let samples = sample_grid(dims, ground);
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        for depth in [1.0, 2.0] {
            let (mesher, mesh) = meshed(&samples, dims, region, depth);
            let top: Vec<_> = skirt_vertices(&mesher, dims, region)
                .into_iter()
                .filter(|(cell, _)| cell[1] + 1 == region.max[1])
                .collect();
            assert!(top.len() > 10, "the ground reaches the top border");
            for (cell, vertex) in top {
                let (p, skirt) = (mesh.positions[vertex], mesh.positions[vertex + 1]);
                assert!(
                    skirt[1] <= p[1] - depth,
                    "cell {cell:?}: {p:?} -> {skirt:?} does not hang {depth} down"
                );
            }
        }
    }

    #[test]
    fn a_curtain_reaching_out_to_a_high_face_stays_under_ground_falling_towards_it() {
        // Slopes falling towards the high x and z faces, gentle to steep: the curtain from the
        // last cells reaches out to the face (or as far as a drop of MAX_REACH_DROP allows) and
        // stays under the ground all the way, where one reaching out level with its vertex
        // stood above the falling ground.
        let dims = [12, 90, 12];
        for degrees in [10.0f32, 30.0, 45.0, 60.0, 70.0, 80.0] {
            let fall = degrees.to_radians().tan() * 0.7;
            // Falling along x and z alike, and curving a little; at the middle height where
            // the high x face meets the middle of the z range.
            let base = 45.0 + fall * (10.5 + 5.5);
            let ground =
                move |[x, y, z]: [f32; 3]| base - fall * (x + z) + 0.3 * (x * 0.9).sin() - y;
            let samples = sample_grid(dims, ground);
            let region = GridRegion::owned_edges_of_padded_grid(dims);
            let depth = 1.0;
            let (mesher, mesh) = meshed(&samples, dims, region, depth);
            let high: Vec<_> = skirt_vertices(&mesher, dims, region)
                .into_iter()
                .filter(|(cell, _)| [0, 2].iter().any(|&a| cell[a] + 1 == region.max[a]))
                .collect();
            assert!(
                high.len() > 4,
                "{degrees}°: the ground reaches the high sides"
            );
            for (cell, vertex) in high {
                let [p, n] = [mesh.positions[vertex], mesh.normals[vertex]];
                let skirt = mesh.positions[vertex + 1];
                // Below the ground's tangent plane at the vertex, and below the ground itself.
                let along: f32 = (0..3).map(|a| n[a] * (skirt[a] - p[a])).sum();
                assert!(along < 0.0, "{degrees}°, cell {cell:?}: {p:?} -> {skirt:?}");
                if let Some(height) = surface_height(&samples, dims, skirt[0], skirt[2]) {
                    assert!(
                        skirt[1] < height - 0.25 * depth,
                        "{degrees}°, cell {cell:?}: the skirt vertex {skirt:?} lies above the \
                         ground at {height}"
                    );
                }
                for axis in [0, 2] {
                    if cell[axis] + 1 == region.max[axis] && degrees <= 60.0 {
                        assert_eq!(
                            skirt[axis],
                            (cell[axis] + 1) as f32,
                            "{degrees}°: to the face"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn skirts_add_to_the_plain_mesh_and_change_nothing_of_it() {
        let sphere = |[x, y, z]: [f32; 3]| {
            5.3 - ((x - 6.2).powi(2) + (y - 5.4).powi(2) + (z - 6.9).powi(2)).sqrt()
        };
        let waves = |[x, y, z]: [f32; 3]| (x * 0.9).sin() + (y * 1.3).sin() + (z * 0.7).sin() + 0.3;
        let dims = [14, 11, 13];
        for (name, samples) in [
            ("sphere", sample_grid(dims, sphere)),
            ("waves", sample_grid(dims, waves)),
        ] {
            for region in [
                GridRegion::owned_edges_of_padded_grid(dims),
                GridRegion::whole(dims),
                GridRegion {
                    min: [3, 2, 4],
                    max: [9, 8, 10],
                },
                // One start wide on x: both borders at once.
                GridRegion {
                    min: [5, 1, 1],
                    max: [6, 10, 12],
                },
            ] {
                let what = format!("{name} {region:?}");
                let (_, plain) = meshed(&samples, dims, region, 0.0);
                let mut by_mesh = SurfaceMesh::new();
                SurfaceNets::new()
                    .mesh(
                        DensityGrid::new(&samples, dims).unwrap(),
                        region,
                        &mut by_mesh,
                    )
                    .unwrap();
                assert_eq!(plain, by_mesh, "{what}: skirt 0 is `mesh`");
                assert_eq!(meshed(&samples, dims, region, -0.0).1, plain, "{what}: -0");

                let depth = 1.75;
                let (_, skirted) = meshed(&samples, dims, region, depth);
                // A skirt vertex follows its cell's, hangs `depth` down and in along its
                // normal and is no cell's own; the others are the plain mesh's, in order.
                let mut own = Vec::new();
                let mut remap = vec![u32::MAX; skirted.positions.len()];
                let mut skirt_vertices = HashSet::new();
                let mut index = 0;
                while index < skirted.positions.len() {
                    remap[index] = own.len() as u32;
                    own.push(index);
                    let [p, n] = [skirted.positions[index], skirted.normals[index]];
                    // The skirt vertex of the cell holding `p` (the rule is checked by the
                    // tests above).
                    let rule = Skirt {
                        depth,
                        min: region.min,
                        max: region.max,
                    };
                    let hung = |next: [f32; 3]| {
                        next == rule.vertex(p.map(|c| c.floor() as usize), p, n)
                            || next
                                == rule.vertex(
                                    p.map(|c| (c.ceil() as usize).saturating_sub(1)),
                                    p,
                                    n,
                                )
                    };
                    match skirted.positions.get(index + 1) {
                        Some(&next) if hung(next) && skirted.normals[index + 1] == n => {
                            skirt_vertices.insert(index as u32 + 1);
                            index += 2;
                        }
                        _ => index += 1,
                    }
                }
                let positions: Vec<[f32; 3]> = own.iter().map(|&v| skirted.positions[v]).collect();
                assert_eq!(positions, plain.positions, "{what}: the plain vertices");
                let (skirt, surface): (Vec<[u32; 3]>, Vec<[u32; 3]>) = triangles(&skirted.indices)
                    .into_iter()
                    .partition(|t| t.iter().any(|v| skirt_vertices.contains(v)));
                let surface: Vec<u32> = surface
                    .iter()
                    .flat_map(|t| t.map(|v| remap[v as usize]))
                    .collect();
                assert_eq!(
                    surface, plain.indices,
                    "{what}: the plain triangles, in order"
                );
                let segments = expected_segments(&samples, dims, region);
                assert_eq!(skirt.len(), 4 * segments, "{what}: 4 triangles a segment");
                if region != GridRegion::whole(dims) {
                    assert!(segments > 0, "{what}: the surface reaches the border");
                } else {
                    assert_eq!(skirted, plain, "{what}: a whole grid has no open border");
                }
            }
        }
    }

    #[test]
    fn skirts_that_are_negative_or_not_finite_are_refused() {
        let dims = [6, 6, 6];
        let samples = sample_grid(dims, |[_, y, _]| 2.5 - y);
        let grid = DensityGrid::new(&samples, dims).unwrap();
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        let (_, before) = meshed(&samples, dims, region, 1.0);
        for skirt in [
            f32::NAN,
            -1.0,
            -f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ] {
            let mut mesh = before.clone();
            let error = SurfaceNets::new()
                .mesh_with_skirt(grid, region, skirt, &mut mesh)
                .unwrap_err();
            assert!(
                matches!(error, MeshError::InvalidSkirt { skirt: found } if found.to_bits() == skirt.to_bits()),
                "{skirt}: {error:?}"
            );
            assert!(error.to_string().contains("skirt depth"), "{error}");
            assert_eq!(mesh, SurfaceMesh::new(), "{skirt}: the mesh is left empty");
        }
    }
}
