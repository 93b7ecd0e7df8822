//! The mesher against its conventions, against fast-surface-nets 0.2, and against itself split
//! into padded regions.

use std::collections::HashMap;

use fast_surface_nets::ndshape::RuntimeShape;
use fast_surface_nets::{surface_nets, SurfaceNetsBuffer};

use super::{is_uniform, DensityGrid, GridRegion, MeshError, SurfaceMesh, SurfaceNets};

/// Samples `density` at world points `origin + (x, y, z)`.
fn sample_grid(dims: [usize; 3], origin: [i32; 3], density: impl Fn([f32; 3]) -> f32) -> Vec<f32> {
    let mut samples = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                let world = [
                    (origin[0] + x as i32) as f32,
                    (origin[1] + y as i32) as f32,
                    (origin[2] + z as i32) as f32,
                ];
                samples.push(density(world));
            }
        }
    }
    samples
}

const SPHERE_CENTRE: [f32; 3] = [32.2, 31.7, 32.4];
const SPHERE_RADIUS: f32 = 19.6;

fn sphere([x, y, z]: [f32; 3]) -> f32 {
    let [cx, cy, cz] = SPHERE_CENTRE;
    SPHERE_RADIUS - ((x - cx).powi(2) + (y - cy).powi(2) + (z - cz).powi(2)).sqrt()
}

fn sine_field([x, y, z]: [f32; 3]) -> f32 {
    (x * 0.9).sin() + (y * 1.3).sin() + (z * 0.7).sin() + 0.3
}

fn mesh_grid(samples: &[f32], dims: [usize; 3], region: GridRegion) -> (SurfaceNets, SurfaceMesh) {
    let mut mesher = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let grid = DensityGrid::new(samples, dims).expect("valid test grid");
    mesher
        .mesh(grid, region, &mut mesh)
        .expect("meshing a valid grid");
    assert_well_formed(&mesh);
    (mesher, mesh)
}

/// Indices in range and whole triangles, unit normals, finite numbers, every vertex used.
fn assert_well_formed(mesh: &SurfaceMesh) {
    assert_eq!(mesh.positions.len(), mesh.normals.len());
    assert_eq!(mesh.indices.len() % 3, 0);
    let mut used = vec![false; mesh.positions.len()];
    for &index in &mesh.indices {
        used[index as usize] = true;
    }
    assert!(used.iter().all(|&used| used), "a vertex no triangle uses");
    for (position, normal) in mesh.positions.iter().zip(&mesh.normals) {
        assert!(position.iter().all(|p| p.is_finite()));
        let length = normal.iter().map(|n| n * n).sum::<f32>().sqrt();
        assert!((length - 1.0).abs() < 1e-5, "normal {normal:?} is not unit");
    }
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

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn triangles(mesh: &SurfaceMesh) -> impl Iterator<Item = [u32; 3]> + '_ {
    mesh.indices
        .chunks_exact(3)
        .map(|triangle| [triangle[0], triangle[1], triangle[2]])
}

fn quantize(position: [f32; 3]) -> [i64; 3] {
    position.map(|p| (f64::from(p) * 1e4).round() as i64)
}

/// World positions of one mesh, looked up to within 1e-4 (positions meshed in different grids
/// round differently in the last bit, which can straddle any rounding grid).
struct VertexLookup {
    by_key: HashMap<[i64; 3], u32>,
    positions: Vec<[f32; 3]>,
}

impl VertexLookup {
    fn new(positions: Vec<[f32; 3]>) -> Self {
        let mut by_key = HashMap::new();
        for (index, &position) in positions.iter().enumerate() {
            let previous = by_key.insert(quantize(position), index as u32);
            assert!(previous.is_none(), "two vertices at {position:?}");
        }
        Self { by_key, positions }
    }

    fn find(&self, position: [f32; 3]) -> u32 {
        let key = quantize(position);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let near = [key[0] + dx, key[1] + dy, key[2] + dz];
                    if let Some(&index) = self.by_key.get(&near) {
                        let found = self.positions[index as usize];
                        if (0..3).all(|axis| (found[axis] - position[axis]).abs() <= 1e-4) {
                            return index;
                        }
                    }
                }
            }
        }
        panic!("no vertex at {position:?}");
    }
}

/// A triangle as vertex ids, rotated to start at its smallest id: equal for equal triangles of
/// the same winding, different for flipped ones.
fn canonical(triangle: [u32; 3]) -> [u32; 3] {
    let first = (0..3).min_by_key(|&corner| triangle[corner]).unwrap_or(0);
    [0, 1, 2].map(|step| triangle[(first + step) % 3])
}

/// The sphere meshed as one padded grid covering world samples [-1, 64], owning edges that start
/// in world [0, 64).
fn whole_sphere() -> (Vec<[f32; 3]>, SurfaceMesh) {
    let dims = [66; 3];
    let samples = sample_grid(dims, [-1; 3], sphere);
    let (_, mesh) = mesh_grid(&samples, dims, GridRegion::owned_edges_of_padded_grid(dims));
    let world = mesh
        .positions
        .iter()
        .map(|p| p.map(|coordinate| coordinate - 1.0))
        .collect();
    (world, mesh)
}

#[test]
fn meshing_eight_padded_chunks_gives_the_triangles_of_one_grid() {
    let (whole_world, whole_mesh) = whole_sphere();
    let lookup = VertexLookup::new(whole_world);
    let mut expected: Vec<[u32; 3]> = triangles(&whole_mesh).map(canonical).collect();
    expected.sort_unstable();
    assert!(expected.len() > 1000);

    let dims = [34; 3];
    let mut mesher = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let mut joined = Vec::new();
    for chunk in 0..8 {
        let coordinate = [chunk & 1, (chunk >> 1) & 1, (chunk >> 2) & 1];
        let origin = coordinate.map(|c| 32 * c - 1);
        let samples = sample_grid(dims, origin, sphere);
        let grid = DensityGrid::new(&samples, dims).expect("valid chunk grid");
        mesher
            .mesh(
                grid,
                GridRegion::owned_edges_of_padded_grid(dims),
                &mut mesh,
            )
            .expect("meshing a chunk");
        assert_well_formed(&mesh);
        let ids: Vec<u32> = mesh
            .positions
            .iter()
            .map(|p| lookup.find([0, 1, 2].map(|axis| p[axis] + origin[axis] as f32)))
            .collect();
        joined.extend(triangles(&mesh).map(|t| canonical(t.map(|v| ids[v as usize]))));
    }
    joined.sort_unstable();
    let mut distinct = joined.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), joined.len(), "a triangle made twice");
    assert_eq!(joined.len(), expected.len());
    assert_eq!(joined, expected);
}

#[test]
fn meshing_a_closed_sphere_is_watertight_with_consistent_winding() {
    let (_, mesh) = whole_sphere();
    let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
    for [a, b, c] in triangles(&mesh) {
        for edge in [(a, b), (b, c), (c, a)] {
            *directed.entry(edge).or_default() += 1;
        }
    }
    for (&(from, to), &count) in &directed {
        assert_eq!(count, 1, "edge {from}->{to} used {count} times one way");
        assert_eq!(
            directed.get(&(to, from)),
            Some(&1),
            "edge {from}->{to} has no twin the other way"
        );
    }
}

#[test]
fn meshing_a_sphere_gives_outward_normals_and_winding() {
    let (world, mesh) = whole_sphere();
    for (position, normal) in world.iter().zip(&mesh.normals) {
        let outward = sub(*position, SPHERE_CENTRE);
        assert!(
            dot(*normal, outward) > 0.0,
            "normal {normal:?} at {position:?}"
        );
        // The distance field's gradient is radial: the normals are nearly exact.
        let length = dot(outward, outward).sqrt();
        assert!(dot(*normal, outward) / length > 0.99);
    }
    for triangle in triangles(&mesh) {
        let [a, b, c] = triangle.map(|v| world[v as usize]);
        let facing = cross(sub(b, a), sub(c, a));
        let centroid = [0, 1, 2].map(|axis| (a[axis] + b[axis] + c[axis]) / 3.0);
        assert!(
            dot(facing, sub(centroid, SPHERE_CENTRE)) > 0.0,
            "triangle {triangle:?} faces inward"
        );
    }
}

/// Our vertices and fast-surface-nets' agree on every cell off the grid's outer layer.
fn assert_matches_fast_surface_nets(samples: &[f32], dims: [usize; 3]) {
    let (mesher, mesh) = mesh_grid(samples, dims, GridRegion::whole(dims));
    let negated: Vec<f32> = samples.iter().map(|d| -d).collect();
    let shape = RuntimeShape::<u32, 3>::new(dims.map(|n| n as u32));
    let mut buffer = SurfaceNetsBuffer::default();
    surface_nets(
        &negated,
        &shape,
        [0; 3],
        dims.map(|n| n as u32 - 1),
        &mut buffer,
    );
    let interior =
        |cell: [usize; 3]| (0..3).all(|axis| cell[axis] >= 1 && cell[axis] + 3 <= dims[axis]);
    let mut compared = 0;
    for (index, point) in buffer.surface_points.iter().enumerate() {
        let cell = point.map(|c| c as usize);
        if !interior(cell) {
            continue;
        }
        let vertex = mesher
            .vertex_of_cell(dims, cell)
            .unwrap_or_else(|| panic!("no vertex in cell {cell:?}"));
        let ours = mesh.positions[vertex as usize];
        let theirs = buffer.positions[index];
        for axis in 0..3 {
            assert!(
                (ours[axis] - theirs[axis]).abs() <= 1e-5,
                "cell {cell:?}: {ours:?} against {theirs:?}"
            );
        }
        // Theirs is the gradient of the negated field, unnormalised: our outward normal.
        let their_normal = buffer.normals[index];
        let length = dot(their_normal, their_normal).sqrt();
        let normal = mesh.normals[vertex as usize];
        for axis in 0..3 {
            assert!((normal[axis] - their_normal[axis] / length).abs() <= 1e-4);
        }
        compared += 1;
    }
    let mut ours_interior = 0;
    for z in 0..dims[2] - 1 {
        for y in 0..dims[1] - 1 {
            for x in 0..dims[0] - 1 {
                if interior([x, y, z]) && mesher.vertex_of_cell(dims, [x, y, z]).is_some() {
                    ours_interior += 1;
                }
            }
        }
    }
    assert!(compared > 100, "only {compared} cells compared");
    assert_eq!(ours_interior, compared, "cells only we made a vertex in");
}

#[test]
fn meshing_matches_fast_surface_nets_on_a_sphere() {
    let dims = [32; 3];
    let samples = sample_grid(dims, [0; 3], |[x, y, z]| {
        11.3 - ((x - 15.6).powi(2) + (y - 16.2).powi(2) + (z - 15.9).powi(2)).sqrt()
    });
    assert_matches_fast_surface_nets(&samples, dims);
}

#[test]
fn meshing_matches_fast_surface_nets_on_a_dense_sine_field() {
    let dims = [34; 3];
    assert_matches_fast_surface_nets(&sample_grid(dims, [0; 3], sine_field), dims);
}

#[test]
fn meshing_matches_fast_surface_nets_on_rows_wider_than_one_word() {
    // 130 samples per row: three words, the last one partly used.
    let dims = [130, 20, 18];
    let samples = sample_grid(dims, [0; 3], |[x, y, z]| {
        let stretched = [(x - 64.6) / 7.0, y - 9.4, z - 8.8];
        7.2 - dot(stretched, stretched).sqrt() + (x * 0.31).sin()
    });
    assert_matches_fast_surface_nets(&samples, dims);
}

#[test]
fn meshing_wide_rows_in_padded_regions_joins_like_one_grid() {
    // The row words split at x = 64: regions starting and ending inside words.
    let dims = [150, 12, 10];
    let samples = sample_grid(dims, [0; 3], sine_field);
    let (_, whole) = mesh_grid(&samples, dims, GridRegion::whole(dims));
    let mut expected: Vec<[[i64; 3]; 3]> = triangles(&whole)
        .map(|t| t.map(|v| quantize(whole.positions[v as usize])))
        .collect();
    expected.sort_unstable();
    let mut joined = Vec::new();
    for [from, to] in [[0, 37], [37, 64], [64, 65], [65, 130], [130, 150]] {
        let region = GridRegion {
            min: [from, 0, 0],
            max: [to, dims[1], dims[2]],
        };
        let (_, part) = mesh_grid(&samples, dims, region);
        joined.extend(triangles(&part).map(|t| t.map(|v| quantize(part.positions[v as usize]))));
    }
    joined.sort_unstable();
    assert_eq!(joined, expected);
}

#[test]
fn meshing_a_plane_gives_a_flat_upward_mesh() {
    let dims = [20, 24, 18];
    let samples = sample_grid(dims, [0; 3], |[_, y, _]| 10.3 - y);
    let (_, mesh) = mesh_grid(&samples, dims, GridRegion::whole(dims));
    assert_eq!(mesh.triangle_count(), 2 * (dims[0] - 2) * (dims[2] - 2));
    for (position, normal) in mesh.positions.iter().zip(&mesh.normals) {
        assert!((position[1] - 10.3).abs() < 1e-5, "vertex at {position:?}");
        assert!(sub(*normal, [0.0, 1.0, 0.0]).iter().all(|d| d.abs() < 1e-6));
    }
    for triangle in triangles(&mesh) {
        let [a, b, c] = triangle.map(|v| mesh.positions[v as usize]);
        let facing = cross(sub(b, a), sub(c, a));
        assert!(facing[1] > 0.0 && facing[0].abs() < 1e-5 && facing[2].abs() < 1e-5);
    }
}

#[test]
fn meshing_uniform_grids_gives_empty_meshes() {
    let dims = [9, 7, 5];
    let mut mesher = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    for value in [-1.0, 0.0, 2.5] {
        let samples = vec![value; dims.iter().product()];
        assert!(is_uniform(&samples));
        let grid = DensityGrid::new(&samples, dims).expect("valid grid");
        mesher
            .mesh(grid, GridRegion::whole(dims), &mut mesh)
            .expect("meshing a uniform grid");
        assert!(mesh.is_empty() && mesh.positions.is_empty() && mesh.normals.is_empty());
    }
    let mut samples = vec![-1.0; dims.iter().product()];
    samples[100] = 0.5;
    assert!(!is_uniform(&samples));
    assert!(is_uniform(&[]));
}

#[test]
fn meshing_again_allocates_nothing() {
    let dims = [34; 3];
    let sine = sample_grid(dims, [0; 3], sine_field);
    let ball = sample_grid(dims, [0; 3], |[x, y, z]| {
        9.0 - ((x - 16.5).powi(2) + (y - 15.5).powi(2) + (z - 17.0).powi(2)).sqrt()
    });
    let small = sample_grid([20, 17, 19], [0; 3], sine_field);
    let air = vec![-1.0; sine.len()];
    let mut mesher = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let capacities = |mesher: &SurfaceNets, mesh: &SurfaceMesh| {
        (
            mesher.scratch_capacities(),
            [
                mesh.positions.capacity(),
                mesh.normals.capacity(),
                mesh.indices.capacity(),
            ],
        )
    };
    let run =
        |samples: &[f32], dims: [usize; 3], mesher: &mut SurfaceNets, mesh: &mut SurfaceMesh| {
            let grid = DensityGrid::new(samples, dims).expect("valid grid");
            mesher
                .mesh(grid, GridRegion::owned_edges_of_padded_grid(dims), mesh)
                .expect("meshing");
            mesh.clone()
        };
    let first = run(&sine, dims, &mut mesher, &mut mesh);
    let warm = capacities(&mesher, &mesh);
    assert!(!first.is_empty());
    // The same grid again, then smaller and emptier ones: no buffer grows.
    let second = run(&sine, dims, &mut mesher, &mut mesh);
    assert_eq!(first, second);
    for (samples, dims) in [
        (&ball, dims),
        (&small, [20, 17, 19]),
        (&air, dims),
        (&sine, dims),
    ] {
        run(samples, dims, &mut mesher, &mut mesh);
        assert_eq!(capacities(&mesher, &mesh), warm);
    }
}

#[test]
fn meshing_rejects_bad_grids_with_clear_errors() {
    let samples = vec![1.0; 4 * 4 * 4];
    let error = DensityGrid::new(&samples, [4, 4, 5]).expect_err("length mismatch");
    assert!(matches!(
        error,
        MeshError::LengthMismatch {
            len: 64,
            expected: 80,
            ..
        }
    ));
    assert!(error.to_string().contains("64") && error.to_string().contains("80"));

    let error = DensityGrid::new(&samples, [1, 8, 8]).expect_err("too small");
    assert!(matches!(error, MeshError::TooSmall { dims: [1, 8, 8] }));
    assert!(DensityGrid::new(&samples, [usize::MAX, 2, 2]).is_err());
    assert!(DensityGrid::new(&[], [0, 0, 0]).is_err());

    let dims = [5, 6, 7];
    let mut mesher = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut samples = sample_grid(dims, [0; 3], |[x, _, _]| 2.5 - x);
        let index = 3 + 5 * (2 + 6 * 4);
        samples[index] = bad;
        samples[index + 7] = bad;
        let grid = DensityGrid::new(&samples, dims).expect("sizes agree");
        let error = mesher
            .mesh(grid, GridRegion::whole(dims), &mut mesh)
            .expect_err("non-finite sample");
        assert!(
            matches!(error, MeshError::NotFinite { index: found, position: [3, 2, 4], .. } if found == index),
            "{error:?}"
        );
        assert!(error.to_string().contains("(3, 2, 4)"), "{error}");
        assert!(mesh.is_empty());
    }

    let samples = sample_grid(dims, [0; 3], |[x, _, _]| 2.5 - x);
    let grid = DensityGrid::new(&samples, dims).expect("sizes agree");
    for region in [
        GridRegion {
            min: [0; 3],
            max: [6, 6, 7],
        },
        GridRegion {
            min: [3, 0, 0],
            max: [2, 6, 7],
        },
    ] {
        let error = mesher
            .mesh(grid, region, &mut mesh)
            .expect_err("region outside");
        assert!(matches!(error, MeshError::RegionOutsideGrid { .. }));
    }
}
