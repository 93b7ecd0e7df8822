//! Which chunks the terrain pass draws, and in which order: those whose box the view may see,
//! nearest first.

use ultraviolet::Vec3;

use crate::render::frustum::Frustum;
use crate::terrain::chunks::{ChunkCoord, CHUNK_SIZE};

/// Whether any part of chunk `key`'s box (its padded grid, where its vertices lie) may be seen.
pub(super) fn may_see_chunk(frustum: &Frustum, key: [i32; 3]) -> bool {
    let [ox, oy, oz] = ChunkCoord::new(key[0], key[1], key[2]).padded_origin();
    let low = Vec3::new(ox as f32, oy as f32, oz as f32);
    frustum.may_see_box(low, low + Vec3::broadcast(CHUNK_SIZE as f32 + 1.0))
}

/// The squared distance from `eye` to the middle of chunk `key`.
pub(super) fn distance_squared(eye: Vec3, key: [i32; 3]) -> f32 {
    let size = CHUNK_SIZE as f32;
    let middle = Vec3::new(
        (key[0] as f32 + 0.5) * size,
        (key[1] as f32 + 0.5) * size,
        (key[2] as f32 + 0.5) * size,
    );
    (middle - eye).mag_sq()
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
            may_see_chunk(&frustum, [0, 0, 0]),
            "the chunk around the eye"
        );
        assert!(may_see_chunk(&frustum, [0, 0, -3]), "ahead");
        assert!(!may_see_chunk(&frustum, [0, 0, 3]), "behind");
        assert!(!may_see_chunk(&frustum, [5, 0, -1]), "far to the side");
        assert!(!may_see_chunk(&frustum, [0, 0, -9]), "beyond the fog");
        assert!(!may_see_chunk(&frustum, [0, 6, -2]), "high above the view");
    }
}
