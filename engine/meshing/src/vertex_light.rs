//! Light per vertex: a light grid (one value per density sample; the game's is its sky light)
//! blended trilinearly at each vertex of a chunk's mesh. [`blend`] is the rule, on the CPU; the
//! light pass (`engine/shaders/surface_nets_light.comp`, recorded by `LightPass` in
//! `meshing::terrain_meshes::light`) does the same on the GPU, operation for operation, into the
//! terrain meshes' light arena, and the GPU tests hold it to [`blend`]. The game lights blocks
//! and pieces with [`blend`] too, so everything at one place gets the same light.
//!
//! ```text
//!   local = clamp(p, 0, dims - 1)            p: grid units from sample (0, 0, 0)
//!   low   = min(floor(local), dims - 2)      the cell's lowest corner (the last cell at the end)
//!   f     = local - low                      in [0, 1] per axis
//!   lerp in x, then y, then z, each a + (b - a) t
//! ```

/// The trilinear blend of a light grid of `dims` samples (x fastest) at `point`, in grid units
/// from sample (0, 0, 0); points outside the grid take the nearest place inside it. A grid with
/// fewer than 2 samples on an axis, too few samples, or a point that is not finite gives 0.
pub fn blend(light: &[f32], dims: [usize; 3], point: [f32; 3]) -> f32 {
    let samples = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if dims.iter().any(|&d| d < 2)
        || samples.is_none_or(|n| n > light.len())
        || !point.iter().all(|c| c.is_finite())
    {
        return 0.0;
    }
    let local: [f32; 3] =
        std::array::from_fn(|axis| point[axis].clamp(0.0, (dims[axis] - 1) as f32));
    let low: [usize; 3] =
        std::array::from_fn(|axis| (local[axis].floor() as usize).min(dims[axis] - 2));
    let [fx, fy, fz]: [f32; 3] = std::array::from_fn(|axis| local[axis] - low[axis] as f32);
    let at = |i: usize, j: usize, k: usize| {
        light[(low[0] + i) + dims[0] * ((low[1] + j) + dims[1] * (low[2] + k))]
    };
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    lerp(
        lerp(
            lerp(at(0, 0, 0), at(1, 0, 0), fx),
            lerp(at(0, 1, 0), at(1, 1, 0), fx),
            fy,
        ),
        lerp(
            lerp(at(0, 0, 1), at(1, 0, 1), fx),
            lerp(at(0, 1, 1), at(1, 1, 1), fx),
            fy,
        ),
        fz,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid whose value is x + 10 y + 100 z: trilinear blends reproduce it exactly inside.
    fn ramp(dims: [usize; 3]) -> Vec<f32> {
        let mut values = Vec::new();
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    values.push(x as f32 + 10.0 * y as f32 + 100.0 * z as f32);
                }
            }
        }
        values
    }

    #[test]
    fn a_linear_field_is_blended_exactly_and_samples_are_returned_as_they_are() {
        let dims = [4, 3, 5];
        let light = ramp(dims);
        assert_eq!(blend(&light, dims, [2.0, 1.0, 3.0]), 312.0);
        assert_eq!(blend(&light, dims, [0.5, 0.5, 0.5]), 55.5);
        assert_eq!(
            blend(&light, dims, [3.0, 2.0, 4.0]),
            423.0,
            "the last corner"
        );
    }

    #[test]
    fn points_outside_take_the_nearest_place_inside() {
        let dims = [3, 3, 3];
        let light = ramp(dims);
        assert_eq!(blend(&light, dims, [-5.0, 1.0, 1.0]), 110.0);
        assert_eq!(blend(&light, dims, [9.0, 9.0, 9.0]), 222.0);
    }

    #[test]
    fn bad_grids_and_points_give_zero_instead_of_a_panic() {
        let light = ramp([3, 3, 3]);
        assert_eq!(blend(&light, [1, 3, 3], [0.0; 3]), 0.0, "too thin");
        assert_eq!(blend(&light[..20], [3, 3, 3], [0.0; 3]), 0.0, "too short");
        assert_eq!(blend(&light, [3, 3, 3], [f32::NAN, 0.0, 0.0]), 0.0);
        assert_eq!(blend(&light, [usize::MAX, 2, 2], [0.0; 3]), 0.0, "overflow");
    }
}
