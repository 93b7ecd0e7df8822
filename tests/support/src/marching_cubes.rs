//! The independent marching cubes that blockfall's own (`engine::meshing::marching_cubes`) is
//! checked and timed against: Paul Bourke's, cell by cell, with his tables ("Polygonising a
//! scalar field", 1994; the `marching-cubes` crate's copy of them).
//!
//! The crate's own `polygonise` is not used: it interpolates the edges its edge table says are
//! *not* crossed (`EDGE_TABLE[i] & 1 == 0` where Bourke's C tests the bit) and returns an edge's
//! first point whenever its first value is the lower. Only the tables are taken; the rest is his
//! write-up's algorithm: a corner flagged where its value is below the level (0 here: air, since
//! blockfall's density is above 0 inside), each crossing edge cut at the linear crossing.

use blockfall_engine::meshing::marching_cubes::face_is_ambiguous;
use marching_cubes::tables::{EDGE_TABLE, TRI_TABLE};

/// The corners in Bourke's order.
const CORNERS: [[usize; 3]; 8] = [
    [0, 0, 0],
    [1, 0, 0],
    [1, 1, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 0, 1],
    [1, 1, 1],
    [0, 1, 1],
];

/// Each of his edges' two corners.
const ENDS: [[usize; 2]; 12] = [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 0],
    [4, 5],
    [5, 6],
    [6, 7],
    [7, 4],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
];

/// Each face's corners in order around it.
const FACES: [[usize; 4]; 6] = [
    [0, 1, 2, 3],
    [4, 5, 6, 7],
    [0, 1, 5, 4],
    [3, 2, 6, 7],
    [0, 3, 7, 4],
    [1, 2, 6, 5],
];

/// Bourke's mesh of the cells whose min corner lies in `[low, high)` of a grid of `dims`
/// samples (x fastest): its triangles' corners in grid units (a triangle soup, wound as his
/// table winds them), and how many of the cells that have triangles have an ambiguous face
/// (inside and outside alternating around it), where his table and blockfall's may differ.
pub fn bourke(
    samples: &[f32],
    dims: [usize; 3],
    (low, high): ([usize; 3], [usize; 3]),
    triangles: &mut Vec<[[f32; 3]; 3]>,
) -> usize {
    triangles.clear();
    let high = [0, 1, 2].map(|axis| high[axis].min(dims[axis] - 1));
    let mut ambiguous_cells = 0;
    for z in low[2]..high[2] {
        for y in low[1]..high[1] {
            for x in low[0]..high[0] {
                let at =
                    |c: [usize; 3]| samples[x + c[0] + dims[0] * (y + c[1] + dims[1] * (z + c[2]))];
                let values = CORNERS.map(at);
                let index = (0..8).fold(0, |index, k| index | usize::from(values[k] < 0.0) << k);
                if EDGE_TABLE[index] == 0 {
                    continue;
                }
                let inside = values.map(|value| value > 0.0);
                let ambiguous = FACES
                    .iter()
                    .any(|face| face_is_ambiguous(face.map(|k| inside[k])));
                ambiguous_cells += usize::from(ambiguous);
                let vertex = |edge: usize| {
                    let [a, b] = ENDS[edge];
                    let t = values[a] / (values[a] - values[b]);
                    std::array::from_fn(|axis| {
                        let (from, to) = (CORNERS[a][axis] as f32, CORNERS[b][axis] as f32);
                        [x, y, z][axis] as f32 + from + (to - from) * t
                    })
                };
                for triple in TRI_TABLE[index]
                    .chunks_exact(3)
                    .take_while(|triple| triple[0] >= 0)
                {
                    triangles.push([0, 1, 2].map(|k| vertex(triple[k] as usize)));
                }
            }
        }
    }
    ambiguous_cells
}

/// Blockfall's marching-cubes mesh of some cells beside Bourke's of the same cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Triangles: blockfall's, Bourke's.
    pub triangles: (usize, usize),
    /// Surface area in square grid units: blockfall's, Bourke's.
    pub area: (f64, f64),
    /// Cells with triangles and an ambiguous face, where the two tables may differ.
    pub ambiguous_cells: usize,
}

/// Compares a mesh (blockfall's marching cubes of the cells `[low, high)` of the grid, as its
/// positions and indices: the engine's own unit tests link another copy of its types) with
/// Bourke's mesh of the same cells; an error names a vertex that lies more than 1e-5 from
/// every corner of Bourke's triangles.
pub fn compare(
    (positions, indices): (&[[f32; 3]], &[u32]),
    samples: &[f32],
    dims: [usize; 3],
    cells: ([usize; 3], [usize; 3]),
) -> Result<Comparison, String> {
    let mut theirs = Vec::new();
    let ambiguous_cells = bourke(samples, dims, cells, &mut theirs);
    let key = |p: [f32; 3]| p.map(|value| (value * 1024.0).round() as i64);
    let mut near: std::collections::HashMap<[i64; 3], Vec<[f32; 3]>> = Default::default();
    for corner in theirs.iter().flatten() {
        near.entry(key(*corner)).or_default().push(*corner);
    }
    for position in positions {
        let k = key(*position);
        let found = (0..27).any(|n| {
            let probe = [k[0] + n % 3 - 1, k[1] + n / 3 % 3 - 1, k[2] + n / 9 - 1];
            near.get(&probe).is_some_and(|list| {
                list.iter()
                    .any(|p| (0..3).all(|a| (p[a] - position[a]).abs() <= 1e-5))
            })
        });
        if !found {
            return Err(format!("vertex {position:?} is none of Bourke's"));
        }
    }
    let ours = indices
        .chunks_exact(3)
        .map(|triangle| [0, 1, 2].map(|k| positions[triangle[k] as usize]));
    Ok(Comparison {
        triangles: (indices.len() / 3, theirs.len()),
        area: (area_of(ours), area_of(theirs.into_iter())),
        ambiguous_cells,
    })
}

/// The area of a triangle soup.
pub fn area_of(triangles: impl Iterator<Item = [[f32; 3]; 3]>) -> f64 {
    triangles
        .map(|[a, b, c]| {
            let (u, v) = (
                [0, 1, 2].map(|k| b[k] - a[k]),
                [0, 1, 2].map(|k| c[k] - a[k]),
            );
            let cross = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            0.5 * f64::from(
                (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt(),
            )
        })
        .sum()
}
