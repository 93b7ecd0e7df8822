//! blockfall's CPU meshers, with no GPU crate in their tree: surface nets and marching cubes on
//! density grids (the references the compute paths in `blockfall_engine::meshing` must match),
//! which mesher the terrain uses ([`Mesher`]), and light blended per vertex ([`vertex_light`]).
//!
//! # Surface nets
//!
//! A density grid is `dims = [nx, ny, nz]` samples, x fastest (`x + nx * (y + ny * z)`), one
//! grid unit apart, sample (0, 0, 0) at the origin. Density above zero is inside (solid), zero
//! or below is outside. A cell is the cube between samples `x..=x+1`, `y..=y+1`, `z..=z+1`.
//!
//! ```text
//!   one vertex per cell that the surface cuts,      one quad per sign-changing edge,
//!   at the mean of its edge crossings:              joining the 4 cells around the edge:
//!
//!     +-------x-------+                                  v3 ------ v2
//!     |       :       |                                   |    |    |
//!     x.......v       |                                   |   -+->  |   edge p -> p + e_a,
//!     |       :       |                                   |    |    |   seen from +a
//!     +-------+-------+                                  v0 ------ v1
//! ```
//!
//! Edge ownership is what lets separately meshed regions join without cracks or twice-drawn
//! faces: [`SurfaceNets::mesh`] takes a [`GridRegion`] of edge *start* samples and emits the
//! quad of an edge only if its start lies in that region. Regions that tile space give meshes
//! that tile the surface; a padded grid (one extra sample on every side) meshed with
//! [`GridRegion::owned_edges_of_padded_grid`] owns exactly the edges starting in its unpadded
//! part. Vertices are emitted only for cells some emitted quad uses, so the union of such
//! meshes has no stray vertices.
//!
//! Skirts ([`SurfaceNets::mesh_with_skirt`]) cover the cracks where meshes of different levels
//! of detail meet: a curtain hangs from the mesh's open border into the ground, `skirt` grid
//! units deep, and never rises above the surface it borders (a curtain up to the top face drew
//! the ground lying just under a chunk's top as a shelf). On its low sides a mesh reaches half a
//! cell past the region's face (its border cells are the neighbour's), on its high sides it
//! stops half a cell short: there, along x and z, the curtain reaches out to the face, so a
//! neighbour of another level, whose mesh starts past the face, meets it from above. y is up:
//! the curtain hangs `skirt` units down whatever the slope (along −normal, a steep slope's
//! curtain would hardly go down at all, and the coarser neighbour's ground, which strays
//! farthest from the finer one's on steep slopes, would show the sky under it), and leans into
//! the ground as far as the normal does.
//!
//! ```text
//!   boundary cell: a used cell whose index on some axis a is region.min[a] - 1 (low side) or
//!                  region.max[a] - 1 (high side); it gets one skirt vertex right after its
//!                  own, with the vertex's normal n: s = vertex - (n.x, 1, n.z) * skirt
//!                  (vertex - n * skirt under an overhang, n.y < 0: into the rock, and no
//!                  more); then, where n.y >= 0, on each of x, z (in that order) where it is
//!                  on the high side, with face = cell[a] + 1 and gap = face - vertex[a]:
//!                    n[a] <= 0 (the ground rises towards the face): s[a] = face
//!                    n[a] > 0, n.y > 0 (it falls towards the face), reach = 2 n.y / n[a]:
//!                      gap <= reach: s[a] = face, s.y -= gap n[a] / n.y (down the tangent plane)
//!                      else:         s[a] = vertex[a] + reach - n[a] skirt, s.y -= 2
//!                    n[a] > 0, n.y = 0 (a wall facing the face): s as it is
//!                  the top (y) border's curtain hangs down like the others
//!   skirt quads:   per owned sign-changing edge p -> p + e_e and axis a != e (a = e + 1, then
//!                  e + 2, mod 3), low side first: if p[a] == region.min[a] its two cells with
//!                  a-index p[a] - 1, if p[a] == region.max[a] - 1 its two cells with a-index
//!                  p[a], form a segment c0 c1 (c0 the lower on the third axis); each segment
//!                  gives the quad c0 c1 s1 s0 twice, once per winding (12 indices), right
//!                  after the edge's own quad
//! ```

pub mod marching_cubes;
mod mesher;
mod surface_nets;
pub mod vertex_light;

#[cfg(test)]
mod tests;

pub use marching_cubes::MarchingCubes;
pub use mesher::Mesher;
pub use surface_nets::SurfaceNets;

/// What can be wrong with a density grid or a region handed to the mesher.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MeshError {
    /// Fewer than two samples on an axis: no cell at all.
    #[error("a density grid needs at least 2 samples on every axis, got dimensions {dims:?}")]
    TooSmall { dims: [usize; 3] },
    /// More samples or cells than memory sizes or `u32` vertex indices can address.
    #[error("density grid dimensions {dims:?} are too large to mesh")]
    TooLarge { dims: [usize; 3] },
    /// The sample slice does not hold `nx * ny * nz` samples.
    #[error("the density grid holds {len} samples but dimensions {dims:?} need {expected}")]
    LengthMismatch {
        dims: [usize; 3],
        len: usize,
        expected: usize,
    },
    /// A NaN or infinite sample: it has no side and no crossing.
    #[error(
        "density sample {index} at (x, y, z) = ({}, {}, {}) is {value}, not a finite number",
        position[0],
        position[1],
        position[2]
    )]
    NotFinite {
        index: usize,
        position: [usize; 3],
        value: f32,
    },
    /// The edge region is inverted or reaches past the grid.
    #[error("edge region {min:?}..{max:?} does not lie within a grid of {dims:?} samples")]
    RegionOutsideGrid {
        min: [usize; 3],
        max: [usize; 3],
        dims: [usize; 3],
    },
    /// A skirt depth that is negative, NaN or infinite.
    #[error("skirt depth {skirt} is not a finite, non-negative number of grid units")]
    InvalidSkirt { skirt: f32 },
}

/// Checks a skirt depth ([`SurfaceNets::mesh_with_skirt`]): finite and not negative (0: no
/// skirt).
pub fn check_skirt(skirt: f32) -> Result<(), MeshError> {
    if skirt.is_finite() && skirt >= 0.0 {
        Ok(())
    } else {
        Err(MeshError::InvalidSkirt { skirt })
    }
}

/// A density grid as the mesher reads it: samples and dimensions whose sizes agree.
#[derive(Debug, Clone, Copy)]
pub struct DensityGrid<'a> {
    samples: &'a [f32],
    dims: [usize; 3],
}

impl<'a> DensityGrid<'a> {
    /// Checks that `samples` holds exactly `nx * ny * nz` samples and every axis has at least two
    /// (a cell needs both its corners). Sample values are checked when meshing, in the same pass
    /// that reads them anyway.
    pub fn new(samples: &'a [f32], dims: [usize; 3]) -> Result<Self, MeshError> {
        if dims.iter().any(|&samples_on_axis| samples_on_axis < 2) {
            return Err(MeshError::TooSmall { dims });
        }
        let expected = dims[0]
            .checked_mul(dims[1])
            .and_then(|plane| plane.checked_mul(dims[2]))
            .ok_or(MeshError::TooLarge { dims })?;
        // Vertex indices are `u32` and there is at most one vertex per cell.
        let cells = (dims[0] - 1) * (dims[1] - 1) * (dims[2] - 1);
        if u32::try_from(cells).is_err() {
            return Err(MeshError::TooLarge { dims });
        }
        if samples.len() != expected {
            return Err(MeshError::LengthMismatch {
                dims,
                len: samples.len(),
                expected,
            });
        }
        Ok(Self { samples, dims })
    }

    pub fn samples(&self) -> &'a [f32] {
        self.samples
    }

    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The (x, y, z) of a sample index.
    pub fn position_of(&self, index: usize) -> [usize; 3] {
        let [nx, ny, _] = self.dims;
        [index % nx, (index / nx) % ny, index / (nx * ny)]
    }
}

/// An inclusive-exclusive box `[min, max)` of edge start samples: the edges a mesh owns.
///
/// An edge from sample `p` to `p + e_a` gets its quad when `p` lies in the box, `p + e_a` lies in
/// the grid and the four cells around the edge exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridRegion {
    pub min: [usize; 3],
    pub max: [usize; 3],
}

impl GridRegion {
    /// Every edge of the grid whose four cells exist: a standalone grid.
    pub fn whole(dims: [usize; 3]) -> Self {
        Self {
            min: [0; 3],
            max: dims,
        }
    }

    /// Whether the region lies within a grid of `dims` samples, not inverted: what every mesher,
    /// CPU and GPU, checks first.
    pub fn check(&self, dims: [usize; 3]) -> Result<(), MeshError> {
        let outside =
            (0..3).any(|axis| self.min[axis] > self.max[axis] || self.max[axis] > dims[axis]);
        if outside {
            return Err(MeshError::RegionOutsideGrid {
                min: self.min,
                max: self.max,
                dims,
            });
        }
        Ok(())
    }

    /// The edges starting in the unpadded part of a grid padded by one sample on every side:
    /// `[1, n - 1)` per axis. Grids that overlap by their padding (a padded grid of `n` samples
    /// per axis every `n - 2` samples) own disjoint edge sets that together cover space.
    pub fn owned_edges_of_padded_grid(dims: [usize; 3]) -> Self {
        Self {
            min: [1; 3],
            max: dims.map(|samples_on_axis| samples_on_axis.saturating_sub(1).max(1)),
        }
    }
}

/// A triangle mesh in grid units, relative to the grid's sample (0, 0, 0).
///
/// Triangles wind counter-clockwise seen from outside (the air side); normals are unit length
/// and point out of the solid.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SurfaceMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
}

impl SurfaceMesh {
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the mesh and keeps its memory, so the next mesh written into it allocates nothing
    /// if it is no larger.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.indices.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// Whether every sample lies on one side of the surface (all inside, or all outside), in which
/// case the grid has no surface at all. NaN counts as outside here; [`SurfaceNets::mesh`] rejects
/// it.
pub fn is_uniform(samples: &[f32]) -> bool {
    let Some(&first) = samples.first() else {
        return true;
    };
    let first_inside = first > 0.0;
    // Blocks of 64 without an early exit inside: the compare vectorises, the branch is per block.
    samples.chunks(64).all(|block| {
        block.iter().fold(true, |same, &sample| {
            same & ((sample > 0.0) == first_inside)
        })
    })
}
