//! The density grids the meshing tests mesh, written once: spheres, chunk-like terrain grids and
//! wavy light grids, each a [`TestGrid`] that also knows its CPU mesh and the light the CPU
//! expects at its vertices.
//!
//! The terrain grids stand in for a world's chunks without the game: a deterministic, analytic
//! density (a height field of a few sines, warped so that it overhangs, minus spherical caves
//! and a tunnel) sampled on padded 34³ grids, grid `c` at the world samples `32c − 1 ..= 32c + 32`
//! on every axis, so neighbouring grids share their padding as a world's chunks do. Only grids
//! with a surface are kept, nearest the origin first. The test here proves them demanding:
//! every one of them meshes to hundreds or thousands of triangles, facing every way.

use std::sync::OnceLock;

use blockfall_engine::meshing::gpu::MAX_SAMPLES_PER_AXIS;
use blockfall_engine::meshing::{
    is_uniform, vertex_light, DensityGrid, GridRegion, SurfaceMesh, SurfaceNets,
};

use crate::meshes::sphere_grid;
use crate::readback::cpu_mesh;

/// Samples per side of a padded chunk grid: 32 cells and one more sample on every side, the
/// most the compute mesher takes.
pub const PADDED_SIZE: usize = MAX_SAMPLES_PER_AXIS;
/// Cells per side of a chunk: grid `c` starts at world sample `CHUNK_CELLS · c − 1`.
const CHUNK_CELLS: i32 = PADDED_SIZE as i32 - 2;
/// The most terrain grids a test takes.
const MAX_TERRAIN_CHUNKS: usize = 20;

/// A density grid with its dimensions, the region it owns, the depth of the skirt it is meshed
/// with (0: none) and the light grid it is meshed with (`None`: light 1 everywhere).
#[derive(Clone)]
pub struct TestGrid {
    pub samples: Vec<f32>,
    pub dims: [usize; 3],
    pub region: GridRegion,
    pub skirt: f32,
    pub light: Option<Vec<f32>>,
}

impl TestGrid {
    /// A padded grid of `samples`, owning the edges of its unpadded part, unlit.
    pub fn padded(samples: Vec<f32>, dims: [usize; 3]) -> Self {
        Self {
            samples,
            dims,
            region: GridRegion::owned_edges_of_padded_grid(dims),
            skirt: 0.0,
            light: None,
        }
    }

    pub fn sphere(dims: [usize; 3], centre: [f32; 3], radius: f32) -> Self {
        Self::padded(sphere_grid(dims, centre, radius), dims)
    }

    /// A padded chunk grid all of one value: no surface.
    pub fn uniform(value: f32) -> Self {
        Self::padded(vec![value; PADDED_SIZE.pow(3)], [PADDED_SIZE; 3])
    }

    /// The same grid, meshed with a skirt `depth` grid units deep.
    pub fn skirted(&self, depth: f32) -> Self {
        Self {
            skirt: depth,
            ..self.clone()
        }
    }

    /// The same grid, lit by [`wavy_light`] with `phase`.
    pub fn lit(&self, phase: f32) -> Self {
        Self {
            light: Some(wavy_light(self.dims, phase)),
            ..self.clone()
        }
    }

    /// The light the CPU expects at each of the CPU mesher's vertices, in its order: the
    /// engine's blend of the light grid (the rule the GPU's light pass follows), or 1.
    pub fn cpu_light(&self, mesh: &SurfaceMesh) -> Vec<f32> {
        mesh.positions
            .iter()
            .map(|&position| match &self.light {
                Some(light) => vertex_light::blend(light, self.dims, position),
                None => 1.0,
            })
            .collect()
    }

    pub fn grid(&self) -> DensityGrid<'_> {
        DensityGrid::new(&self.samples, self.dims).unwrap()
    }

    /// The CPU reference mesh, with the grid's skirt.
    pub fn cpu_mesh(&self) -> SurfaceMesh {
        if self.skirt == 0.0 {
            return cpu_mesh(&self.samples, self.dims, self.region);
        }
        let mut mesh = SurfaceMesh::new();
        SurfaceNets::new()
            .mesh_with_skirt(self.grid(), self.region, self.skirt, &mut mesh)
            .unwrap();
        mesh
    }
}

/// A light grid that is no sky light but varies differently along every axis, so that a blend
/// with its axes mixed up cannot pass: `0.5 + 0.5 sin(0.3 x + 0.2 y + phase) cos(0.1 z)`.
pub fn wavy_light(dims: [usize; 3], phase: f32) -> Vec<f32> {
    let mut light = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                let (x, y, z) = (x as f32, y as f32, z as f32);
                let value = 0.5 + 0.5 * (0.3 * x + 0.2 * y + phase).sin() * (0.1 * z).cos();
                light.push(value.clamp(0.0, 1.0));
            }
        }
    }
    light
}

/// Caves: centre and radius, in world samples. Some lie wholly underground (closed surfaces in
/// chunks the height field leaves solid), one breaks the surface. Not whole numbers: a sample
/// at exactly a whole radius from a whole centre would have density 0, on which the vertices of
/// several cells coincide, and meshes could not be matched vertex to vertex.
const CAVES: [([f32; 3], f32); 6] = [
    ([10.3, -7.2, 14.1], 7.45),
    ([-21.4, -26.3, -9.2], 9.15),
    ([30.2, -44.6, 25.3], 10.85),
    ([-36.1, 4.4, 30.7], 6.55),
    ([5.6, -50.2, -33.3], 8.05),
    ([-10.2, -40.3, 40.6], 5.65),
];
/// A straight tunnel from one end to the other, with its radius, in world samples.
const TUNNEL: ([f32; 3], [f32; 3], f32) = ([-60.3, -22.1, -12.4], [50.2, -6.3, 21.1], 3.55);

/// The terrain's density at a world point: above zero inside the ground.
pub fn terrain_density(point: [f32; 3]) -> f32 {
    let [x, y, z] = point;
    let height = 6.0
        + 9.0 * (0.071 * x + 0.3).sin()
        + 6.0 * (0.113 * z + 1.1).sin()
        + 3.0 * (0.19 * (x + z)).sin()
        + 1.5 * (0.37 * x - 0.29 * z).sin();
    // A warp along y as well: ledges and overhangs, not only a height field.
    let warp = 2.5 * (0.21 * x).sin() * (0.26 * y + 0.4).sin() * (0.17 * z).cos();
    let mut density = height - y + warp;
    for (centre, radius) in CAVES {
        density = density.min(distance(point, centre) - radius);
    }
    let (start, end, radius) = TUNNEL;
    density.min(segment_distance(point, start, end) - radius)
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f32>().sqrt()
}

/// The distance from `point` to the segment from `start` to `end`.
fn segment_distance(point: [f32; 3], start: [f32; 3], end: [f32; 3]) -> f32 {
    let along: [f32; 3] = std::array::from_fn(|i| end[i] - start[i]);
    let offset: [f32; 3] = std::array::from_fn(|i| point[i] - start[i]);
    let length_squared: f32 = along.iter().map(|a| a * a).sum();
    let dot: f32 = (0..3).map(|i| along[i] * offset[i]).sum();
    let t = (dot / length_squared).clamp(0.0, 1.0);
    distance(point, std::array::from_fn(|i| start[i] + t * along[i]))
}

/// The padded grid of chunk `coord`: [`terrain_density`] at the world samples
/// `32c − 1 ..= 32c + 32` on every axis, x fastest.
pub fn terrain_samples(coord: [i32; 3]) -> Vec<f32> {
    let origin = coord.map(|c| c * CHUNK_CELLS - 1);
    let mut samples = Vec::with_capacity(PADDED_SIZE.pow(3));
    for z in 0..PADDED_SIZE as i32 {
        for y in 0..PADDED_SIZE as i32 {
            for x in 0..PADDED_SIZE as i32 {
                let world = [origin[0] + x, origin[1] + y, origin[2] + z];
                samples.push(terrain_density(world.map(|c| c as f32)));
            }
        }
    }
    samples
}

/// The first `count` (at most 20) terrain chunks with a surface, nearest the origin first, with
/// their chunk coordinates.
pub fn terrain_chunks_at(count: usize) -> Vec<([i32; 3], TestGrid)> {
    static CHUNKS: OnceLock<Vec<([i32; 3], TestGrid)>> = OnceLock::new();
    assert!(count <= MAX_TERRAIN_CHUNKS, "{count} terrain chunks");
    let chunks = CHUNKS.get_or_init(|| {
        let mut coords: Vec<[i32; 3]> = (-3..=3)
            .flat_map(|x| (-2..=1).flat_map(move |y| (-3..=3).map(move |z| [x, y, z])))
            .collect();
        // Nearest the origin first, ties in a fixed order.
        coords.sort_by_key(|&[x, y, z]| {
            let centre = [x, y, z].map(|c| 2 * c + 1);
            (centre.iter().map(|c| c * c).sum::<i32>(), [y, z, x])
        });
        coords
            .into_iter()
            .map(|coord| (coord, terrain_samples(coord)))
            .filter(|(_, samples)| !is_uniform(samples))
            .take(MAX_TERRAIN_CHUNKS)
            .map(|(coord, samples)| (coord, TestGrid::padded(samples, [PADDED_SIZE; 3])))
            .collect()
    });
    assert_eq!(
        chunks.len(),
        MAX_TERRAIN_CHUNKS,
        "terrain chunks with a surface"
    );
    chunks[..count].to_vec()
}

/// The first `count` (at most 20) terrain chunks with a surface, nearest the origin first.
pub fn terrain_chunks(count: usize) -> Vec<TestGrid> {
    terrain_chunks_at(count)
        .into_iter()
        .map(|(_, grid)| grid)
        .collect()
}

#[test]
fn terrain_chunks_are_varied_share_their_padding_and_mesh_to_many_triangles() {
    let chunks = terrain_chunks_at(MAX_TERRAIN_CHUNKS);
    let mut triangles = Vec::new();
    let mut facing = [[false; 2]; 3];
    let mut underground = 0;
    for (coord, grid) in &chunks {
        assert!(
            grid.samples.iter().all(|&sample| sample != 0.0),
            "chunk {coord:?}: no sample exactly on the surface"
        );
        let mesh = grid.cpu_mesh();
        triangles.push(mesh.indices.len() / 3);
        for normal in &mesh.normals {
            for axis in 0..3 {
                if normal[axis].abs() > 0.7 {
                    facing[axis][usize::from(normal[axis] > 0.0)] = true;
                }
            }
        }
        underground += usize::from(coord[1] < -1);
        // The neighbour along each axis samples the same two planes of padding.
        let index = |at: [usize; 3]| at[0] + PADDED_SIZE * (at[1] + PADDED_SIZE * at[2]);
        for axis in 0..3 {
            let mut next = *coord;
            next[axis] += 1;
            let neighbour = terrain_samples(next);
            for (i, j, plane) in (0..PADDED_SIZE)
                .flat_map(|i| (0..PADDED_SIZE).flat_map(move |j| (0..2).map(move |p| (i, j, p))))
            {
                let mut here = [0; 3];
                here[(axis + 1) % 3] = i;
                here[(axis + 2) % 3] = j;
                let mut there = here;
                here[axis] = PADDED_SIZE - 2 + plane;
                there[axis] = plane;
                assert_eq!(
                    grid.samples[index(here)].to_bits(),
                    neighbour[index(there)].to_bits(),
                    "chunk {coord:?} and its neighbour along axis {axis} share padding"
                );
            }
        }
    }
    let coords: Vec<[i32; 3]> = chunks.iter().map(|(coord, _)| *coord).collect();
    eprintln!("terrain chunks {coords:?}: triangles {triangles:?}");
    assert!(
        triangles.iter().all(|&count| count >= 300),
        "hundreds of triangles in every chunk: {triangles:?}"
    );
    assert!(
        triangles.iter().sum::<usize>() >= 20 * 1000,
        "a thousand or more on average: {triangles:?}"
    );
    assert_eq!(facing, [[true; 2]; 3], "surfaces facing every way");
    assert!(underground > 0, "a chunk with caves only");
}
