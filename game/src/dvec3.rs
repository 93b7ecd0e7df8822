//! Points and directions in double precision, `[f64; 3]` (`DVec3`, as glam names it: not
//! ultraviolet's `f32` `Vec3` that the rest of the game draws with), and the few operations the
//! blocks' shapes and the strength of pieces need on them.

/// A point or direction in double precision.
pub type DVec3 = [f64; 3];

#[inline]
pub fn add(a: DVec3, b: DVec3) -> DVec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
pub fn sub(a: DVec3, b: DVec3) -> DVec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub fn scale(a: DVec3, factor: f64) -> DVec3 {
    [a[0] * factor, a[1] * factor, a[2] * factor]
}

#[inline]
pub fn dot(a: DVec3, b: DVec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub fn cross(a: DVec3, b: DVec3) -> DVec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline]
pub fn length(a: DVec3) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operations_of_two_vectors() {
        let (a, b) = ([1.0, 2.0, 3.0], [4.0, -5.0, 6.0]);
        assert_eq!(add(a, b), [5.0, -3.0, 9.0]);
        assert_eq!(sub(a, b), [-3.0, 7.0, -3.0]);
        assert_eq!(scale(a, 2.0), [2.0, 4.0, 6.0]);
        assert_eq!(dot(a, b), 12.0);
        assert_eq!(cross(a, b), [27.0, 6.0, -13.0]);
        assert_eq!(dot(cross(a, b), a), 0.0);
        assert_eq!(length([3.0, 4.0, 12.0]), 13.0);
    }
}
