//! Culling on the CPU, shared by the passes: the view's frustum as six planes and its fog
//! distance. A box or sphere wholly outside one plane, or wholly beyond the complete fog, cannot
//! be seen and is not drawn (the terrain's chunks, the blocks' regions, the pieces).

use ultraviolet::{Vec3, Vec4};

use blockfall_game::camera::Camera;

/// The view's frustum as six planes (`a·p + d ≥ 0` inside) and its fog distance.
#[derive(Debug, Clone, Copy)]
pub struct Frustum {
    planes: [Vec4; 6],
    eye: Vec3,
    fog_distance: f32,
}

impl Frustum {
    pub fn of(view: &Camera) -> Self {
        // Rows of the view-projection (ultraviolet stores columns); Vulkan's clip volume is
        // -w ≤ x, y ≤ w and 0 ≤ z ≤ w.
        let m = view.view_projection;
        let row = |r: usize| Vec4::new(m.cols[0][r], m.cols[1][r], m.cols[2][r], m.cols[3][r]);
        let (x, y, z, w) = (row(0), row(1), row(2), row(3));
        Self {
            planes: [w + x, w - x, w + y, w - y, z, w - z],
            eye: view.eye,
            fog_distance: view.fog_distance,
        }
    }

    /// The six planes (`a·p + d ≥ 0` inside; not normalised): left, right, bottom, top, near,
    /// far.
    pub fn planes(&self) -> [Vec4; 6] {
        self.planes
    }

    /// Where the view is from.
    pub fn eye(&self) -> Vec3 {
        self.eye
    }

    /// The distance at which the fog is complete.
    pub fn fog_distance(&self) -> f32 {
        self.fog_distance
    }

    /// Whether any part of the box from `low` to `high` may be seen: inside every plane and
    /// nearer than the complete fog.
    pub fn may_see_box(&self, low: Vec3, high: Vec3) -> bool {
        let inside_all = self.planes.iter().all(|plane| {
            // The corner furthest along the plane's normal.
            let corner = Vec3::new(
                if plane.x >= 0.0 { high.x } else { low.x },
                if plane.y >= 0.0 { high.y } else { low.y },
                if plane.z >= 0.0 { high.z } else { low.z },
            );
            plane.x * corner.x + plane.y * corner.y + plane.z * corner.z + plane.w >= 0.0
        });
        let nearest = self.eye.clamped(low, high);
        inside_all && (nearest - self.eye).mag() <= self.fog_distance
    }

    /// Whether any part of the sphere around `centre` of `radius` may be seen.
    pub fn may_see_sphere(&self, centre: Vec3, radius: f32) -> bool {
        let inside_all = self.planes.iter().all(|plane| {
            let normal = plane.xyz();
            normal.dot(centre) + plane.w >= -radius * normal.mag()
        });
        inside_all && (centre - self.eye).mag() - radius <= self.fog_distance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spheres_behind_the_eye_or_beyond_the_fog_are_culled() {
        let view = Camera::looking(Vec3::zero(), -Vec3::unit_z(), 640, 360);
        let frustum = Frustum::of(&view);
        assert!(
            frustum.may_see_sphere(Vec3::new(0.0, 0.0, -10.0), 1.0),
            "ahead"
        );
        assert!(
            !frustum.may_see_sphere(Vec3::new(0.0, 0.0, 10.0), 1.0),
            "behind"
        );
        assert!(
            frustum.may_see_sphere(Vec3::new(0.0, 0.0, 0.5), 1.0),
            "around the eye"
        );
        assert!(
            !frustum.may_see_sphere(Vec3::new(0.0, 0.0, -400.0), 1.0),
            "in the fog"
        );
        assert!(frustum.may_see_box(Vec3::new(-1.0, -1.0, -5.0), Vec3::new(1.0, 1.0, -4.0)));
        assert!(!frustum.may_see_box(Vec3::new(-1.0, -1.0, 4.0), Vec3::new(1.0, 1.0, 5.0)));
    }
}
