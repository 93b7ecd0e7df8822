//! The `mesh` tool's input: its `--dims` text and the raw grid, meshed by the engine's surface
//! nets.
//!
//! An input is the dims text, a NUL byte, then the grid's bytes (little-endian `f32`, x
//! fastest). The dims are mostly small (2 to 12 samples per axis) and the grid mostly of the
//! right length, so most cases are meshed; the samples mix smooth fields with NaN, infinities,
//! subnormals, zeros of both signs and huge values. A mesh that comes back must hold together:
//! whole triangles, indices within the vertices, finite positions inside the grid, unit normals.
//!
//! [`subject`] is the tool's own steps (`crate::mesh`): `parse_dims`, `samples_of`,
//! `mesh_grid`.

use blockfall_engine::meshing::SurfaceMesh;

use super::{check_message, mutate_bytes, Outcome, Rng};

/// The largest grid checked, in bytes: 12³ samples and some to spare for wrong lengths.
const LONGEST: usize = 16 * 1024;

/// The steps of the `mesh` tool from its arguments to a mesh: the tool's own library
/// functions ([`crate::mesh`]), errors as text.
pub mod subject {
    use blockfall_engine::meshing::{Mesher, SurfaceMesh};

    pub use crate::mesh::{parse_dims, samples_of};

    /// The whole grid meshed by `mesher`.
    pub fn mesh_grid(
        samples: &[f32],
        dims: [usize; 3],
        mesher: Mesher,
    ) -> Result<SurfaceMesh, String> {
        crate::mesh::mesh_grid(samples, dims, mesher).map_err(|error| format!("{error:#}"))
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

/// A mesh input: dims text, NUL, grid bytes.
pub fn generate(rng: &mut Rng) -> Vec<u8> {
    let dims = [0; 3].map(|_| rng.between(2, 12) as usize);
    let dims_text = if rng.one_in(8) {
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
    let odd_share = *rng.pick(&[0, 0, 1, 4, 20, 100]);
    let pattern = rng.below(4);
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
                _ => {
                    let scale = *rng.pick(&[1e-38, 1e-20, 1.0, 1e20, 1e38]);
                    ((centre[1] - position[1] as f64) * scale) as f32
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

/// Parses the dims, meshes the grid, and checks the mesh or the error.
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
            return Ok(Outcome::Refused);
        }
    };
    // Both meshers take the same grids: each must refuse or mesh alike.
    let samples = subject::samples_of(grid);
    let mut outcome = Outcome::Accepted;
    for mesher in blockfall_engine::meshing::Mesher::ALL {
        match subject::mesh_grid(&samples, dims, mesher) {
            Ok(mesh) => {
                check_mesh(&mesh, dims).map_err(|error| format!("{}: {error}", mesher.name()))?;
                if !mesh.indices.is_empty() {
                    outcome = Outcome::Used;
                }
            }
            Err(message) => {
                check_message(&message)?;
                outcome = Outcome::Refused;
            }
        }
    }
    Ok(outcome)
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
