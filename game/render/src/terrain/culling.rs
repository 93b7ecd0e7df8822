//! Which chunks the terrain pass draws, and in which order: those whose box the view may see,
//! nearest first. On the CPU for the fallback (no `drawIndirectCount`); for the GPU's cull
//! (`super::cull`) the view's planes normalised ([`normalised_planes`]) and each chunk's box
//! and place in the chunk table ([`super::table::ChunkEntry`]), by the same rule.

use ultraviolet::{Vec3, Vec4};

use crate::frustum::Frustum;
use blockfall_game::terrain::chunks::ChunkCoord;

/// Whether any part of chunk `key`'s box (its padded grid, where its vertices lie) may be seen.
pub(super) fn may_see_chunk(frustum: &Frustum, key: [i32; 4]) -> bool {
    let Some(coord) = ChunkCoord::from_key(key) else {
        return false;
    };
    let (low, high) = coord.vertex_box();
    frustum.may_see_box(Vec3::from(low), Vec3::from(high))
}

/// The squared distance from `eye` to the middle of chunk `key`.
pub(super) fn distance_squared(eye: Vec3, key: [i32; 4]) -> f32 {
    let Some(coord) = ChunkCoord::from_key(key) else {
        return f32::INFINITY;
    };
    let middle = coord.centre().map(|value| value as f32);
    (Vec3::from(middle) - eye).mag_sq()
}

/// The frustum's six planes scaled to unit normals (`n·p + d` is then the distance in meters
/// from the plane, positive inside), as the GPU's cull tests them (`terrain_cull.comp`, with a
/// half-millimetre margin toward drawing). Scaling by a positive factor keeps which side of a
/// plane every point lies on, so a box is culled by the same rule as [`Frustum::may_see_box`].
pub(super) fn normalised_planes(frustum: &Frustum) -> [[f32; 4]; 6] {
    frustum.planes().map(|plane: Vec4| {
        let length = plane.xyz().mag();
        let plane = if length > 0.0 { plane / length } else { plane };
        [plane.x, plane.y, plane.z, plane.w]
    })
}

/// The box test of `terrain_cull.comp` on the CPU (without its margin): whether any part of the
/// box may be inside every plane and nearer than `fog` to `eye`.
#[cfg(test)]
fn may_see_box_gpu_rule(
    planes: &[[f32; 4]; 6],
    eye: Vec3,
    fog: f32,
    low: Vec3,
    high: Vec3,
) -> bool {
    let inside = planes.iter().all(|&[a, b, c, d]| {
        let corner = Vec3::new(
            if a >= 0.0 { high.x } else { low.x },
            if b >= 0.0 { high.y } else { low.y },
            if c >= 0.0 { high.z } else { low.z },
        );
        a * corner.x + b * corner.y + c * corner.z + d >= 0.0
    });
    inside && (eye.clamped(low, high) - eye).mag() <= fog
}

#[cfg(test)]
mod tests {
    use super::*;
    use blockfall_game::camera::Camera;

    #[test]
    fn chunks_behind_the_eye_or_in_the_full_fog_are_culled() {
        let eye = Vec3::new(16.0, 16.0, 16.0);
        let view = Camera::looking(eye, -Vec3::unit_z(), 1280, 720);
        let frustum = Frustum::of(&view);
        assert!(
            may_see_chunk(&frustum, [0, 0, 0, 0]),
            "the chunk around the eye"
        );
        assert!(may_see_chunk(&frustum, [0, 0, -3, 0]), "ahead");
        assert!(!may_see_chunk(&frustum, [0, 0, 3, 0]), "behind");
        assert!(!may_see_chunk(&frustum, [5, 0, -1, 0]), "far to the side");
        assert!(!may_see_chunk(&frustum, [0, 0, -9, 0]), "beyond the fog");
        assert!(
            !may_see_chunk(&frustum, [0, 6, -2, 0]),
            "high above the view"
        );
    }

    #[test]
    fn normalised_planes_measure_meters_and_cull_as_the_frustum_does() {
        let eye = Vec3::new(3.0, 20.0, -7.0);
        let view = Camera::looking(eye, Vec3::new(0.3, -0.2, -1.0).normalized(), 1280, 720);
        let frustum = Frustum::of(&view);
        let planes = normalised_planes(&frustum);
        for [a, b, c, d] in planes {
            assert!(((a * a + b * b + c * c).sqrt() - 1.0).abs() < 1e-5);
            // The eye is inside (or on) every plane but the near one's far side.
            assert!(a * eye.x + b * eye.y + c * eye.z + d > -1.0);
        }
        // A point 10 m ahead of the eye is 10 m (less the near distance) in front of the near
        // plane, whose normal is the view direction.
        let ahead = eye + Vec3::new(0.3, -0.2, -1.0).normalized() * 10.0;
        let [a, b, c, d] = planes[4];
        let near_distance = a * ahead.x + b * ahead.y + c * ahead.z + d;
        assert!(
            (9.0..=10.0).contains(&near_distance),
            "near plane distance {near_distance}"
        );
        // Every chunk of a wide block around the eye: the GPU's rule on the normalised planes
        // culls exactly what the frustum culls.
        let mut seen = 0;
        for x in -6..6 {
            for y in -2..3 {
                for z in -6..6 {
                    for level in [0, 1] {
                        let key = [x, y, z, level];
                        let coord = ChunkCoord::from_key(key).unwrap();
                        let (low, high) = coord.vertex_box();
                        let gpu = may_see_box_gpu_rule(
                            &planes,
                            frustum.eye(),
                            frustum.fog_distance(),
                            Vec3::from(low),
                            Vec3::from(high),
                        );
                        assert_eq!(gpu, may_see_chunk(&frustum, key), "{key:?}");
                        seen += usize::from(gpu);
                    }
                }
            }
        }
        assert!(seen > 10 && seen < 12 * 5 * 12 * 2, "{seen} chunks seen");
    }
}
