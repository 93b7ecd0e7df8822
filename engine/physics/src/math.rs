//! The little vector, matrix and quaternion arithmetic the physics needs, on plain `f64` arrays.
//!
//! Plain arrays rather than a maths crate's types: the state of a body lives in one `Vec` per
//! field, the public API speaks `[f64; 3]` and `[f64; 4]`, and every operation here is written
//! out in a fixed order, so the same inputs give the same bits on every machine and every thread.
//! (ultraviolet's `f64` types would need a feature flag on the whole workspace for a dozen
//! one-line functions.)

/// A vector in meters, meters per second, radians per second or newton seconds.
pub(crate) type Vector = [f64; 3];

/// A 3 × 3 matrix, row after row.
pub(crate) type Matrix = [[f64; 3]; 3];

/// A quaternion as `[x, y, z, w]`.
pub(crate) type Quaternion = [f64; 4];

pub(crate) const ZERO: Vector = [0.0; 3];
#[cfg(test)]
pub(crate) const IDENTITY: Matrix = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
pub(crate) const ZERO_MATRIX: Matrix = [[0.0; 3]; 3];
pub(crate) const NO_TURN: Quaternion = [0.0, 0.0, 0.0, 1.0];

#[inline(always)]
pub(crate) fn add(a: Vector, b: Vector) -> Vector {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
pub(crate) fn sub(a: Vector, b: Vector) -> Vector {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub(crate) fn scale(a: Vector, factor: f64) -> Vector {
    [a[0] * factor, a[1] * factor, a[2] * factor]
}

/// `a + b · factor`.
#[inline(always)]
pub(crate) fn add_scaled(a: Vector, b: Vector, factor: f64) -> Vector {
    [
        a[0] + b[0] * factor,
        a[1] + b[1] * factor,
        a[2] + b[2] * factor,
    ]
}

#[inline(always)]
pub(crate) fn dot(a: Vector, b: Vector) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub(crate) fn cross(a: Vector, b: Vector) -> Vector {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
pub(crate) fn length(a: Vector) -> f64 {
    dot(a, a).sqrt()
}

/// `a`, or `a` shortened to `most` long when it is longer (its direction kept). A vector
/// within the bound comes back unchanged, bit for bit.
#[inline(always)]
pub(crate) fn at_most(a: Vector, most: f64) -> Vector {
    let size = length(a);
    if size > most {
        scale(a, most / size)
    } else {
        a
    }
}

/// `a` made one long, or `None` when it has no direction.
pub(crate) fn normalized(a: Vector) -> Option<Vector> {
    let size = length(a);
    (size > 1e-12 && size.is_finite()).then(|| scale(a, 1.0 / size))
}

#[inline(always)]
pub(crate) fn finite(a: Vector) -> bool {
    a.iter().all(|value| value.is_finite())
}

#[inline(always)]
pub(crate) fn to_f32(a: Vector) -> [f32; 3] {
    [a[0] as f32, a[1] as f32, a[2] as f32]
}

#[inline(always)]
pub(crate) fn from_f32(a: [f32; 3]) -> Vector {
    [f64::from(a[0]), f64::from(a[1]), f64::from(a[2])]
}

/// The matrix times a vector.
#[inline(always)]
pub(crate) fn times(m: &Matrix, v: Vector) -> Vector {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// The transposed matrix times a vector: for a rotation, the turn undone.
#[inline(always)]
pub(crate) fn times_transposed(m: &Matrix, v: Vector) -> Vector {
    [
        m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
        m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
        m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2],
    ]
}

pub(crate) fn product(a: &Matrix, b: &Matrix) -> Matrix {
    let mut m = ZERO_MATRIX;
    for (i, row) in m.iter_mut().enumerate() {
        for (j, value) in row.iter_mut().enumerate() {
            *value = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    m
}

pub(crate) fn transpose(m: &Matrix) -> Matrix {
    [
        [m[0][0], m[1][0], m[2][0]],
        [m[0][1], m[1][1], m[2][1]],
        [m[0][2], m[1][2], m[2][2]],
    ]
}

/// `R M Rᵀ`: a matrix of the body's frame (its inverse inertia) seen from the world.
pub(crate) fn turned(rotation: &Matrix, m: &Matrix) -> Matrix {
    product(&product(rotation, m), &transpose(rotation))
}

/// The inverse from the cofactors over the determinant, or `None` for a matrix that is
/// singular next to its own size (its determinant a tiny share of its largest entry cubed).
pub(crate) fn inverse(m: &Matrix) -> Option<Matrix> {
    let [[a, b, c], [d, e, f], [g, h, i]] = *m;
    let cofactors = [
        [e * i - f * h, c * h - b * i, b * f - c * e],
        [f * g - d * i, a * i - c * g, c * d - a * f],
        [d * h - e * g, b * g - a * h, a * e - b * d],
    ];
    let determinant = a * cofactors[0][0] + b * cofactors[1][0] + c * cofactors[2][0];
    let largest = m
        .iter()
        .flatten()
        .fold(0.0f64, |most, value| most.max(value.abs()));
    if !determinant.is_finite() || determinant.abs() <= 1e-12 * largest * largest * largest {
        return None;
    }
    let mut result = ZERO_MATRIX;
    for (row, cofactor_row) in result.iter_mut().zip(cofactors) {
        for (value, cofactor) in row.iter_mut().zip(cofactor_row) {
            *value = cofactor / determinant;
        }
    }
    Some(result)
}

/// The matrix that turns a vector as the unit quaternion `[x, y, z, w]` does.
pub(crate) fn rotation([x, y, z, w]: Quaternion) -> Matrix {
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// The Hamilton product `a b`.
pub(crate) fn quaternion_product(a: Quaternion, b: Quaternion) -> Quaternion {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// `q` made one long, or `None` when it is (nearly) zero or not finite.
pub(crate) fn normalized_quaternion(q: Quaternion) -> Option<Quaternion> {
    let size = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    (size > 1e-12 && size.is_finite()).then(|| [q[0] / size, q[1] / size, q[2] / size, q[3] / size])
}

/// The orientation after spinning at `spin` (world frame, radians per second) for `dt`: the
/// derivative of a quaternion, `½ (ω, 0) q`, added once, then made unit length again, or it
/// would slowly grow and stretch the body.
pub(crate) fn spun(orientation: Quaternion, spin: Vector, dt: f64) -> Quaternion {
    let change = quaternion_product([spin[0], spin[1], spin[2], 0.0], orientation);
    let half = 0.5 * dt;
    let moved = [
        orientation[0] + change[0] * half,
        orientation[1] + change[1] * half,
        orientation[2] + change[2] * half,
        orientation[3] + change[3] * half,
    ];
    // A unit quaternion plus a small change is never near zero; keep the old one if it were.
    normalized_quaternion(moved).unwrap_or(orientation)
}

/// Two directions along a surface, square to its unit normal and to each other.
pub(crate) fn tangents(normal: Vector) -> (Vector, Vector) {
    let helper = if normal[1].abs() < 0.9 {
        [0.0, 1.0, 0.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let first = normalized(cross(normal, helper)).unwrap_or([1.0, 0.0, 0.0]);
    (first, cross(normal, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vector, b: Vector) -> bool {
        (0..3).all(|axis| (a[axis] - b[axis]).abs() < 1e-12)
    }

    #[test]
    fn inverse_undoes_the_matrix() {
        let m = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let inverse = inverse(&m).expect("invertible");
        let one = product(&m, &inverse);
        for (i, row) in one.iter().enumerate() {
            assert!(close(*row, IDENTITY[i]), "{one:?}");
        }
        assert!(super::inverse(&[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]).is_none());
        assert!(super::inverse(&ZERO_MATRIX).is_none());
    }

    #[test]
    fn rotation_matches_the_quaternion_product() {
        // A quarter turn about z takes x to y.
        let half = std::f64::consts::FRAC_PI_4;
        let q = [0.0, 0.0, half.sin(), half.cos()];
        assert!(close(times(&rotation(q), [1.0, 0.0, 0.0]), [0.0, 1.0, 0.0]));
        // q v q* written out agrees with the matrix.
        let v = [0.3, -1.2, 2.0];
        let q = normalized_quaternion([0.2, -0.4, 0.1, 0.9]).expect("unit");
        let conjugate = [-q[0], -q[1], -q[2], q[3]];
        let turned = quaternion_product(quaternion_product(q, [v[0], v[1], v[2], 0.0]), conjugate);
        assert!(close(
            times(&rotation(q), v),
            [turned[0], turned[1], turned[2]]
        ));
        assert!(close(
            times_transposed(&rotation(q), times(&rotation(q), v)),
            v
        ));
    }

    #[test]
    fn spinning_turns_about_the_angular_velocity_axis() {
        // One radian per second about y for a second, in small steps: a one radian turn.
        let mut q = NO_TURN;
        for _ in 0..10_000 {
            q = spun(q, [0.0, 1.0, 0.0], 1e-4);
        }
        let x = times(&rotation(q), [1.0, 0.0, 0.0]);
        assert!(
            (x[0] - 1f64.cos()).abs() < 1e-4 && (x[2] + 1f64.sin()).abs() < 1e-4,
            "{x:?}"
        );
    }

    #[test]
    fn tangents_are_square() {
        for normal in [
            [0.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.6, 0.0, 0.8],
            [0.0, -1.0, 0.0],
        ] {
            let (first, second) = tangents(normal);
            assert!(dot(first, normal).abs() < 1e-12 && dot(second, normal).abs() < 1e-12);
            assert!(dot(first, second).abs() < 1e-12);
            assert!((length(first) - 1.0).abs() < 1e-12 && (length(second) - 1.0).abs() < 1e-12);
        }
    }
}
