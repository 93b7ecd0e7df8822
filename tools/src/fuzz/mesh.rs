//! The `mesh` tool's input: its `--dims` text and the raw grid, meshed slab by slab as the tool
//! meshes it, and whole by the engine to check the slabs against.
//!
//! An input is the dims text, a NUL byte, then the grid's bytes (little-endian `f32`, x
//! fastest). The dims are mostly small (2 to 12 samples per axis) and the grid mostly of the
//! right length, so most cases are meshed; the samples mix smooth fields with NaN, infinities,
//! subnormals, zeros of both signs and huge values. Some dims go toward and past the tool's
//! limits (an axis of 4096 or 4097, a plane or a grid past its limit, numbers of 20 to 5,000
//! digits: the grid then is a few bytes, so a dims text that is accepted must be refused for the
//! grid's length without anything of the dims' size being read); some grids are checkerboards,
//! whose meshes are the largest a grid can have, of sizes on both sides of the output limits of
//! [`FUZZ_BUDGET`].
//!
//! Checked: a refused `--dims` gets a short message ([`LONGEST_DIMS_MESSAGE`]: it quotes only the
//! start of a bad value); the grid is meshed by both meshers whole ([`subject::mesh_grid`], the
//! engine's) and slab by slab ([`subject::mesh_stream`], the tool's, a slab per plane so that
//! every plane is a seam, within [`FUZZ_BUDGET`]), and the two must agree: both refused, or the
//! same triangles in the same order (corners within rounding, the same normals) and no more
//! vertices; refused by the slabs only where the whole mesh is past the budget, and then naming
//! the limit. A mesh that comes back must hold together: whole triangles, indices within the
//! vertices, finite positions inside the grid, unit normals.
//!
//! [`subject`] is the tool's own steps (`crate::mesh`).

use blockfall_engine::meshing::{Mesher, SurfaceMesh};

use super::{check_message, mutate_bytes, Outcome, Rng};

/// The largest grid checked, in bytes: a 16³ checkerboard and some to spare for wrong lengths.
const LONGEST: usize = 20 * 1024;

/// The longest message a refused `--dims` may get: it quotes at most 32 characters of a value.
pub const LONGEST_DIMS_MESSAGE: usize = 300;

/// The slabs and output limits the fuzzer meshes with: a slab per plane, and output limits that
/// checkerboards of 9 to 12 samples a side reach (the tool's are the same checks with larger
/// numbers, `crate::mesh::Budget::TOOL`).
pub const FUZZ_BUDGET: subject::Budget = subject::Budget {
    slab_samples: 1,
    vertices: 2500,
    triangles: 5000,
};

/// The steps of the `mesh` tool from its arguments to a mesh: the tool's own library
/// functions ([`crate::mesh`]), errors as text.
pub mod subject {
    use blockfall_engine::meshing::{Mesher, SurfaceMesh};

    pub use crate::mesh::{parse_dims, samples_of, Budget};

    /// The whole grid meshed by `mesher`, as the engine meshes it.
    pub fn mesh_grid(
        samples: &[f32],
        dims: [usize; 3],
        mesher: Mesher,
    ) -> Result<SurfaceMesh, String> {
        crate::mesh::mesh_grid(samples, dims, mesher).map_err(|error| format!("{error:#}"))
    }

    /// The grid's bytes read and meshed slab by slab, as the tool does.
    pub fn mesh_stream(
        mut grid: &[u8],
        dims: [usize; 3],
        mesher: Mesher,
        budget: Budget,
    ) -> Result<SurfaceMesh, String> {
        crate::mesh::mesh_stream(&mut grid, dims, mesher, budget)
            .map_err(|error| format!("{error:#}"))
    }
}

/// Samples that break naive arithmetic.
const ODD_SAMPLES: &[f32] = &[
    0.0,
    -0.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-45,
    -1e-45,
    f32::MAX,
    f32::MIN,
    1e30,
    -1e30,
    1e-30,
    -1e-30,
    1.0,
    -1.0,
];

/// Dims texts that are not three small sizes.
const ODD_DIMS: &[&str] = &[
    "",
    "2,2",
    "2,2,2,2",
    "1,2,2",
    "0,0,0",
    "-2,2,2",
    "2,,2",
    " 3 , 4 , 5 ",
    "3,4,5\n",
    "+3,3,3",
    "2.0,2,2",
    "0x10,2,2",
    "18446744073709551616,2,2",
    "18446744073709551615,2,2",
    "4294967296,4294967296,2",
    "65536,65536,65536",
    "1000000,1000000,1000000",
    "2,2,２",
    "٣,3,3",
];

/// Sizes of an axis at and past the tool's limits (4096 an axis, 2^20 a plane, 2^30 in all).
const LIMIT_SIZES: &[&str] = &[
    "2",
    "3",
    "1023",
    "1024",
    "1025",
    "2047",
    "2048",
    "4095",
    "4096",
    "4097",
    "8192",
    "65536",
    "4294967296",
    "0",
    "1",
];

/// A dims text toward or past the limits: sizes at them, or numbers of 20 to 5,000 digits.
fn limit_dims(rng: &mut Rng) -> String {
    let parts: Vec<String> = (0..3)
        .map(|_| match rng.below(5) {
            0 => {
                let digits = *rng.pick(&[20, 40, 300, 5000]);
                let first = char::from(b'1' + rng.below(9) as u8);
                std::iter::once(first)
                    .chain((1..digits).map(|_| char::from(b'0' + rng.below(10) as u8)))
                    .collect()
            }
            _ => rng.pick(LIMIT_SIZES).to_string(),
        })
        .collect();
    parts.join(",")
}

/// A mesh input: dims text, NUL, grid bytes.
pub fn generate(rng: &mut Rng) -> Vec<u8> {
    if rng.one_in(10) {
        // Toward and past the limits: the grid is a few bytes, never what the dims ask for.
        let mut bytes = limit_dims(rng).into_bytes();
        bytes.push(0);
        bytes.extend((0..rng.below(64)).map(|_| rng.next_u64() as u8));
        return bytes;
    }
    let checkerboard = rng.one_in(8);
    let dims = if checkerboard {
        [0; 3].map(|_| rng.between(6, 16) as usize)
    } else {
        [0; 3].map(|_| rng.between(2, 12) as usize)
    };
    let dims_text = if !checkerboard && rng.one_in(8) {
        let mut text = rng.pick(ODD_DIMS).to_string();
        if rng.one_in(4) {
            text = "9".repeat(rng.between(20, 5000) as usize) + ",2,2";
        }
        text
    } else {
        format!("{},{},{}", dims[0], dims[1], dims[2])
    };
    let count = dims[0] * dims[1] * dims[2];
    let centre = dims.map(|n| rng.float(0.0, n as f64));
    let radius = rng.float(0.0, 8.0);
    let odd_share = if checkerboard {
        *rng.pick(&[0, 0, 0, 1])
    } else {
        *rng.pick(&[0, 0, 1, 4, 20, 100])
    };
    let pattern = if checkerboard { 4 } else { rng.below(4) };
    let mut bytes = dims_text.into_bytes();
    bytes.push(0);
    for index in 0..count {
        let position = [
            index % dims[0],
            (index / dims[0]) % dims[1],
            index / (dims[0] * dims[1]),
        ];
        let sample = if odd_share > 0 && rng.below(100) < odd_share {
            *rng.pick(ODD_SAMPLES)
        } else {
            match pattern {
                // A ball: density falls off from its centre.
                0 => {
                    let distance = position
                        .iter()
                        .zip(centre)
                        .map(|(&p, c)| (p as f64 - c).powi(2))
                        .sum::<f64>()
                        .sqrt();
                    (radius - distance) as f32
                }
                // Noise about zero.
                1 => rng.float(-1.0, 1.0) as f32,
                // Any bits at all.
                2 => f32::from_bits(rng.next_u64() as u32),
                // Ground with a scale that is tiny or huge.
                3 => {
                    let scale = *rng.pick(&[1e-38, 1e-20, 1.0, 1e20, 1e38]);
                    ((centre[1] - position[1] as f64) * scale) as f32
                }
                // A checkerboard: every edge changes sign, the most mesh a grid can have.
                _ => {
                    if position.iter().sum::<usize>() % 2 == 0 {
                        1.0
                    } else {
                        -1.0
                    }
                }
            }
        };
        bytes.extend_from_slice(&sample.to_le_bytes());
    }
    if rng.one_in(10) {
        mutate_bytes(rng, &mut bytes, LONGEST);
    }
    bytes
}

/// Parses the dims, meshes the grid whole and slab by slab, and checks the meshes or the errors.
pub fn check(input: &[u8]) -> Result<Outcome, String> {
    let split = input.iter().position(|&b| b == 0).unwrap_or(input.len());
    let (dims_bytes, grid) = (&input[..split], input.get(split + 1..).unwrap_or(&[]));
    // The tool reads `--dims` as a command-line argument: UTF-8 text.
    let Ok(dims_text) = std::str::from_utf8(dims_bytes) else {
        return Ok(Outcome::Refused);
    };
    let dims = match subject::parse_dims(dims_text) {
        Ok(dims) => dims,
        Err(message) => {
            check_message(&message)?;
            let length = message.chars().count();
            if length > LONGEST_DIMS_MESSAGE {
                return Err(format!(
                    "--dims refused with a message of {length} characters (at most \
                     {LONGEST_DIMS_MESSAGE}): {}…",
                    message.chars().take(200).collect::<String>()
                ));
            }
            return Ok(Outcome::Refused);
        }
    };
    let samples = subject::samples_of(grid);
    let mut outcome = Outcome::Accepted;
    for mesher in Mesher::ALL {
        // The tool takes a grid of whole samples only; `samples_of` drops a trailing part.
        let whole = if grid.len() % 4 == 0 {
            subject::mesh_grid(&samples, dims, mesher)
        } else {
            Err(format!(
                "the grid's {} bytes are not whole samples",
                grid.len()
            ))
        };
        let slabs = subject::mesh_stream(grid, dims, mesher, FUZZ_BUDGET);
        let name = mesher.name();
        match (whole, slabs) {
            (Err(whole), Err(slabs)) => {
                check_message(&whole)?;
                check_message(&slabs)?;
                outcome = Outcome::Refused;
            }
            (Err(whole), Ok(_)) => {
                return Err(format!(
                    "{name}: the slabs were meshed, but the whole grid is refused: {whole}"
                ))
            }
            (Ok(whole), Err(slabs)) => {
                check_mesh(&whole, dims).map_err(|error| format!("{name}: {error}"))?;
                let past = whole.positions.len() > FUZZ_BUDGET.vertices
                    || whole.triangle_count() > FUZZ_BUDGET.triangles;
                if !past || !slabs.contains("the mesh has more than") {
                    return Err(format!(
                        "{name}: the whole grid's mesh of {} vertices and {} triangles is \
                         within the limits, but its slabs are refused: {slabs}",
                        whole.positions.len(),
                        whole.triangle_count()
                    ));
                }
                check_message(&slabs)?;
                outcome = Outcome::Refused;
            }
            (Ok(whole), Ok(slabs)) => {
                if whole.triangle_count() > FUZZ_BUDGET.triangles {
                    return Err(format!(
                        "{name}: {} triangles, past the limit of {}, were not refused",
                        whole.triangle_count(),
                        FUZZ_BUDGET.triangles
                    ));
                }
                check_mesh(&whole, dims).map_err(|error| format!("{name}: {error}"))?;
                check_mesh(&slabs, dims).map_err(|error| format!("{name} slabs: {error}"))?;
                check_same(&whole, &slabs).map_err(|error| format!("{name} slabs: {error}"))?;
                if !slabs.indices.is_empty() && outcome != Outcome::Refused {
                    outcome = Outcome::Used;
                }
            }
        }
    }
    Ok(outcome)
}

/// The slabs' mesh is the whole grid's: triangle by triangle the same corners (to within
/// rounding) and normals, and no more vertices (the slabs' shared vertices kept once).
fn check_same(whole: &SurfaceMesh, slabs: &SurfaceMesh) -> Result<(), String> {
    if whole.indices.len() != slabs.indices.len() {
        return Err(format!(
            "{} triangles, the whole grid {}",
            slabs.triangle_count(),
            whole.triangle_count()
        ));
    }
    if slabs.positions.len() > whole.positions.len() {
        return Err(format!(
            "{} vertices, more than the whole grid's {}: shared vertices doubled",
            slabs.positions.len(),
            whole.positions.len()
        ));
    }
    for (corner, (&a, &b)) in whole.indices.iter().zip(&slabs.indices).enumerate() {
        let (a, b) = (a as usize, b as usize);
        let (p, q) = (whole.positions[a], slabs.positions[b]);
        let apart = (0..3).any(|axis| (p[axis] - q[axis]).abs() > 1e-3);
        if apart || whole.normals[a] != slabs.normals[b] {
            return Err(format!(
                "corner {corner} at {q:?} with normal {:?}, the whole grid's at {p:?} with {:?}",
                slabs.normals[b], whole.normals[a]
            ));
        }
    }
    Ok(())
}

/// A mesh holds together: whole triangles over existing vertices, each vertex finite and
/// inside the grid with a unit normal.
fn check_mesh(mesh: &SurfaceMesh, dims: [usize; 3]) -> Result<(), String> {
    if mesh.normals.len() != mesh.positions.len() {
        return Err(format!(
            "{} normals for {} positions",
            mesh.normals.len(),
            mesh.positions.len()
        ));
    }
    if !mesh.indices.len().is_multiple_of(3) {
        return Err(format!(
            "{} indices: not whole triangles",
            mesh.indices.len()
        ));
    }
    if let Some(index) = mesh
        .indices
        .iter()
        .find(|&&i| i as usize >= mesh.positions.len())
    {
        return Err(format!(
            "index {index} with {} vertices",
            mesh.positions.len()
        ));
    }
    for (vertex, (position, normal)) in mesh.positions.iter().zip(&mesh.normals).enumerate() {
        let inside = position
            .iter()
            .zip(dims)
            .all(|(&p, n)| p.is_finite() && (0.0..=(n - 1) as f32).contains(&p));
        if !inside {
            return Err(format!(
                "vertex {vertex} at {position:?} is not inside the grid of {dims:?} samples"
            ));
        }
        let length = normal.iter().map(|c| c * c).sum::<f32>().sqrt();
        if !(length - 1.0).abs().le(&1e-3) {
            return Err(format!(
                "vertex {vertex}'s normal {normal:?} is not of unit length"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(dims: &str, samples: &[f32]) -> Vec<u8> {
        let mut bytes = dims.as_bytes().to_vec();
        bytes.push(0);
        for sample in samples {
            bytes.extend_from_slice(&sample.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn a_ball_is_meshed_and_holds_together() {
        let samples: Vec<f32> = (0..64)
            .map(|i| {
                let p = [i % 4, (i / 4) % 4, i / 16].map(|c| c as f32 - 1.5);
                1.2 - (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()
            })
            .collect();
        assert_eq!(check(&input("4,4,4", &samples)), Ok(Outcome::Used));
    }

    #[test]
    fn bad_dims_and_bad_samples_are_refused_with_short_messages() {
        assert_eq!(check(&input("4,4", &[])), Ok(Outcome::Refused));
        assert_eq!(check(&input("2,2,2", &[f32::NAN; 8])), Ok(Outcome::Refused));
        assert_eq!(check(&input("2,2,2", &[1.0; 7])), Ok(Outcome::Refused));
        let huge = format!("{},2,2", "9".repeat(5000));
        assert_eq!(check(&input(&huge, &[])), Ok(Outcome::Refused));
        // Accepted dims of a gigasample with a grid of two samples: refused for its length.
        assert_eq!(
            check(&input("1024,1024,1024", &[1.0, -1.0])),
            Ok(Outcome::Refused)
        );
    }

    #[test]
    fn checkerboards_on_both_sides_of_the_limits_are_meshed_or_refused_as_they_should() {
        for n in [6, 9, 11, 12, 16] {
            let samples: Vec<f32> = (0..n * n * n)
                .map(|i| {
                    if (i % n + i / n % n + i / (n * n)) % 2 == 0 {
                        1.0
                    } else {
                        -1.0
                    }
                })
                .collect();
            let outcome = check(&input(&format!("{n},{n},{n}"), &samples));
            let expected = if n <= 9 {
                Outcome::Used
            } else {
                Outcome::Refused
            };
            assert_eq!(outcome, Ok(expected), "{n}³");
        }
    }

    #[test]
    fn the_generator_reaches_past_the_limits() {
        let mut rng = Rng::new(1);
        let mut past = 0;
        for _ in 0..2000 {
            let input = generate(&mut rng);
            let split = input.iter().position(|&b| b == 0).unwrap_or(input.len());
            if let Ok(text) = std::str::from_utf8(&input[..split]) {
                if let Err(message) = subject::parse_dims(text) {
                    past += usize::from(message.contains("4096") || message.contains("more than"));
                }
            }
        }
        assert!(past > 20, "{past}");
    }

    #[test]
    fn a_broken_mesh_is_caught() {
        let mut mesh = SurfaceMesh::new();
        mesh.positions.push([0.5, 0.5, 0.5]);
        mesh.normals.push([0.0, 1.0, 0.0]);
        mesh.indices.extend([0, 0, 1]);
        assert!(check_mesh(&mesh, [2, 2, 2]).is_err());
        mesh.indices = vec![0, 0, 0];
        assert!(check_mesh(&mesh, [2, 2, 2]).is_ok());
        mesh.positions[0] = [f32::NAN, 0.5, 0.5];
        assert!(check_mesh(&mesh, [2, 2, 2]).is_err());
    }
}
