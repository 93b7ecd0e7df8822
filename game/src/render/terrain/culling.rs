//! Which chunks the terrain pass draws, and in which order: those whose box the view may see,
//! nearest first.

use ultraviolet::Vec3;

use crate::render::frustum::Frustum;
use crate::terrain::chunks::ChunkCoord;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::Camera;

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
}
