//! The small 3 × 3-matrix algebra of strength, in double precision (its vectors:
//! [`crate::dvec3`]).

use crate::dvec3::dot;

pub(super) type Matrix = [[f64; 3]; 3];

/// The inertia of a mass at a lever about the point it is measured from:
/// `m (|d|² 1 − d dᵀ)`.
pub(super) fn at_lever(mass: f64, d: [f64; 3]) -> Matrix {
    let far = dot(d, d);
    std::array::from_fn(|row| {
        std::array::from_fn(|column| {
            let along = if row == column { far } else { 0.0 };
            mass * (along - d[row] * d[column])
        })
    })
}

/// The matrix that crosses `a` with what it multiplies: `[a]× b = a × b`.
pub(super) fn cross_matrix(a: [f64; 3]) -> Matrix {
    [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]]
}

pub(super) fn times(m: &Matrix, v: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|row| dot(m[row], v))
}

pub(super) fn product(a: &Matrix, b: &Matrix) -> Matrix {
    std::array::from_fn(|row| {
        std::array::from_fn(|column| (0..3).map(|k| a[row][k] * b[k][column]).sum())
    })
}

/// The inverse of a 3 × 3 matrix, unless it is singular (or not finite).
pub(super) fn inverse(m: &Matrix) -> Option<Matrix> {
    let cofactor = |row: usize, column: usize| {
        let (r0, r1) = ((row + 1) % 3, (row + 2) % 3);
        let (c0, c1) = ((column + 1) % 3, (column + 2) % 3);
        m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
    };
    let determinant: f64 = (0..3)
        .map(|column| m[0][column] * cofactor(0, column))
        .sum();
    if !(determinant.is_finite() && determinant != 0.0) {
        return None;
    }
    Some(std::array::from_fn(|row| {
        std::array::from_fn(|column| cofactor(column, row) / determinant)
    }))
}

/// The largest factor by which a 3 × 3 matrix stretches a vector (its spectral norm): the
/// root of the largest eigenvalue of `mᵀ m`, in closed form (Smith's).
pub(super) fn norm(m: &Matrix) -> f64 {
    let s: Matrix = std::array::from_fn(|row| {
        std::array::from_fn(|column| (0..3).map(|k| m[k][row] * m[k][column]).sum())
    });
    let off = s[0][1] * s[0][1] + s[0][2] * s[0][2] + s[1][2] * s[1][2];
    let mean = (s[0][0] + s[1][1] + s[2][2]) / 3.0;
    let largest = if off == 0.0 {
        s[0][0].max(s[1][1]).max(s[2][2])
    } else {
        let spread = ((0..3).map(|i| (s[i][i] - mean).powi(2)).sum::<f64>() + 2.0 * off) / 6.0;
        let p = spread.sqrt();
        let b: Matrix = std::array::from_fn(|row| {
            std::array::from_fn(|column| {
                (s[row][column] - if row == column { mean } else { 0.0 }) / p
            })
        });
        let determinant = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
            - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
            + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
        let angle = (determinant / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
        mean + 2.0 * p * angle.cos()
    };
    largest.max(0.0).sqrt()
}
