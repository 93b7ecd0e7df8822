//! Comparing a GPU mesh with the CPU mesher's, for the GPU meshing tests.

use std::collections::HashMap;

use blockfall_engine::meshing::SurfaceMesh;

pub const POSITION_TOLERANCE: f32 = 1e-4;
pub const NORMAL_TOLERANCE: f32 = 1e-3;

/// How a GPU mesh compared with the CPU's.
#[derive(Debug, Default, Clone, Copy)]
pub struct Comparison {
    pub vertices: usize,
    pub triangles: usize,
    pub max_position_deviation: f32,
    pub max_normal_deviation: f32,
    /// The same vertices and indices in the same order, to the bit.
    pub identical: bool,
    /// Vertex i of each mesh is the other's vertex i (within the tolerances), and the indices
    /// are the same: the CPU's mesh in the CPU's order.
    pub in_order: bool,
}

impl Comparison {
    /// Whether the GPU's mesh is the CPU's, vertex for vertex in its order, as closely as the
    /// test GPU's arithmetic allows ([`crate::gpu::exact_arithmetic`]): to the bit on an IEEE
    /// device (lavapipe), within [`POSITION_TOLERANCE`] and [`NORMAL_TOLERANCE`] on any other.
    pub fn same(&self) -> bool {
        if crate::gpu::exact_arithmetic() {
            self.identical
        } else {
            self.in_order
        }
    }
}

/// Asserts that the GPU's mesh is the CPU's vertex for vertex in its order, with the same
/// indices: to the bit where the test GPU's arithmetic is IEEE's
/// ([`crate::gpu::exact_arithmetic`]), else each position within [`POSITION_TOLERANCE`] and
/// normal within [`NORMAL_TOLERANCE`] of the CPU's at the same place. Names the first
/// difference. No vertex is matched by where it lies, so meshes with vertices in one place (a
/// marching-cubes crossing at a sample) compare too.
pub fn assert_same(cpu: &SurfaceMesh, gpu: &SurfaceMesh, what: &str) {
    assert_counts(cpu, gpu, what);
    let exact = crate::gpu::exact_arithmetic();
    let same = |a: [f32; 3], b: [f32; 3], tolerance: f32| {
        if exact {
            a.map(f32::to_bits) == b.map(f32::to_bits)
        } else {
            near(a, b, tolerance)
        }
    };
    let how = if exact {
        "to the bit"
    } else {
        "within the tolerances"
    };
    for vertex in 0..cpu.positions.len() {
        let (cpu_position, gpu_position) = (cpu.positions[vertex], gpu.positions[vertex]);
        assert!(
            same(gpu_position, cpu_position, POSITION_TOLERANCE),
            "{what}: vertex {vertex} at {gpu_position:?} ({:?}), the CPU's at {cpu_position:?} \
             ({:?}): not the same {how}",
            gpu_position.map(f32::to_bits),
            cpu_position.map(f32::to_bits)
        );
        let (cpu_normal, gpu_normal) = (cpu.normals[vertex], gpu.normals[vertex]);
        assert!(
            same(gpu_normal, cpu_normal, NORMAL_TOLERANCE),
            "{what}: vertex {vertex} at {cpu_position:?} has normal {gpu_normal:?} ({:?}), the \
             CPU's {cpu_normal:?} ({:?}): not the same {how}",
            gpu_normal.map(f32::to_bits),
            cpu_normal.map(f32::to_bits)
        );
    }
    if let Some(index) = (0..cpu.indices.len()).find(|&i| gpu.indices[i] != cpu.indices[i]) {
        panic!(
            "{what}: index {index} is {} on the GPU, {} on the CPU",
            gpu.indices[index], cpu.indices[index]
        );
    }
}

/// Panics unless the two meshes have as many vertices, normals and indices.
fn assert_counts(cpu: &SurfaceMesh, gpu: &SurfaceMesh, what: &str) {
    assert_eq!(
        gpu.positions.len(),
        cpu.positions.len(),
        "{what}: vertex count"
    );
    assert_eq!(gpu.normals.len(), gpu.positions.len(), "{what}: normals");
    assert_eq!(gpu.indices.len(), cpu.indices.len(), "{what}: index count");
}

/// Whether each coordinate of `a` is within `tolerance` of `b`'s.
fn near(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
    (0..3).all(|axis| (a[axis] - b[axis]).abs() <= tolerance)
}

/// Matches every GPU vertex to the nearest CPU vertex (one to one, within
/// [`POSITION_TOLERANCE`], normals within [`NORMAL_TOLERANCE`]), then compares the triangles
/// through that matching as rotation-normalised triples, winding kept; panics on a difference.
pub fn compare(cpu: &SurfaceMesh, gpu: &SurfaceMesh, what: &str) -> Comparison {
    assert_counts(cpu, gpu, what);
    let identical = gpu == cpu;
    let in_order = gpu.indices == cpu.indices
        && (0..cpu.positions.len()).all(|vertex| {
            near(
                gpu.positions[vertex],
                cpu.positions[vertex],
                POSITION_TOLERANCE,
            ) && near(gpu.normals[vertex], cpu.normals[vertex], NORMAL_TOLERANCE)
        });

    // CPU vertices bucketed by the unit cube they lie in; a match lies in a neighbouring one.
    let bucket = |p: [f32; 3]| p.map(|v| v.floor() as i32);
    let mut buckets: HashMap<[i32; 3], Vec<usize>> = HashMap::new();
    for (index, &position) in cpu.positions.iter().enumerate() {
        buckets.entry(bucket(position)).or_default().push(index);
    }
    let mut gpu_to_cpu = vec![0u32; gpu.positions.len()];
    let mut taken = vec![false; cpu.positions.len()];
    let mut max_position_deviation = 0.0f32;
    let mut max_normal_deviation = 0.0f32;
    for (gpu_index, &position) in gpu.positions.iter().enumerate() {
        let [bx, by, bz] = bucket(position);
        let mut nearest: Option<(f32, usize)> = None;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for &cpu_index in buckets
                        .get(&[bx + dx, by + dy, bz + dz])
                        .into_iter()
                        .flatten()
                    {
                        let distance = distance(position, cpu.positions[cpu_index]);
                        if nearest.is_none_or(|(best, _)| distance < best) {
                            nearest = Some((distance, cpu_index));
                        }
                    }
                }
            }
        }
        let Some((deviation, cpu_index)) = nearest else {
            panic!("{what}: GPU vertex {gpu_index} at {position:?} has no CPU vertex near it");
        };
        assert!(
            deviation <= POSITION_TOLERANCE,
            "{what}: GPU vertex {gpu_index} at {position:?} is {deviation} from the nearest CPU \
             vertex {:?}",
            cpu.positions[cpu_index]
        );
        assert!(
            !taken[cpu_index],
            "{what}: two GPU vertices match CPU vertex {cpu_index}"
        );
        taken[cpu_index] = true;
        gpu_to_cpu[gpu_index] = cpu_index as u32;
        max_position_deviation = max_position_deviation.max(deviation);
        let normal_deviation = (0..3)
            .map(|axis| (gpu.normals[gpu_index][axis] - cpu.normals[cpu_index][axis]).abs())
            .fold(0.0f32, f32::max);
        assert!(
            normal_deviation <= NORMAL_TOLERANCE,
            "{what}: normal of GPU vertex {gpu_index} is {:?}, the CPU's {:?}",
            gpu.normals[gpu_index],
            cpu.normals[cpu_index]
        );
        max_normal_deviation = max_normal_deviation.max(normal_deviation);
    }

    let cpu_triangles = normalised_triangles(&cpu.indices, |index| index);
    let gpu_triangles = normalised_triangles(&gpu.indices, |index| gpu_to_cpu[index as usize]);
    let differing = cpu_triangles
        .iter()
        .zip(&gpu_triangles)
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        cpu_triangles == gpu_triangles,
        "{what}: {differing} of {} triangles differ after matching vertices; first CPU-only: \
         {:?}",
        cpu_triangles.len(),
        cpu_triangles
            .iter()
            .find(|triangle| gpu_triangles.binary_search(triangle).is_err())
    );
    Comparison {
        vertices: cpu.positions.len(),
        triangles: cpu_triangles.len(),
        max_position_deviation,
        max_normal_deviation,
        identical,
        in_order,
    }
}

pub fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Each triangle rotated to start at its smallest index (the cyclic order, hence the winding,
/// kept), then all sorted.
pub fn normalised_triangles(indices: &[u32], map: impl Fn(u32) -> u32) -> Vec<[u32; 3]> {
    let mut triangles: Vec<[u32; 3]> = indices
        .chunks_exact(3)
        .map(|triangle| {
            let [a, b, c] = [map(triangle[0]), map(triangle[1]), map(triangle[2])];
            if a <= b && a <= c {
                [a, b, c]
            } else if b <= a && b <= c {
                [b, c, a]
            } else {
                [c, a, b]
            }
        })
        .collect();
    triangles.sort_unstable();
    triangles
}

/// A sphere's density (radius − distance from the centre) on a grid of `dims` samples.
pub fn sphere_grid(dims: [usize; 3], centre: [f32; 3], radius: f32) -> Vec<f32> {
    let mut samples = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                let offset = [
                    x as f32 - centre[0],
                    y as f32 - centre[1],
                    z as f32 - centre[2],
                ];
                let length =
                    (offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2]).sqrt();
                samples.push(radius - length);
            }
        }
    }
    samples
}
