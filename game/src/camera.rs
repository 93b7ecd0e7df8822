//! Where the world is seen from: the player's eye, where it looks, and how far the fog lets it
//! see, as a view-projection matrix for a picture of a given size. The [`World`](crate::world)
//! makes one each frame; the renderer draws the terrain through it and culls the chunks it
//! cannot see; tests project world points onto the picture with it.

use ultraviolet::{Mat4, Vec3, Vec4};

use crate::player::EYES;
use crate::terrain::chunks::CHUNK_SIZE;
use crate::terrain::Generator;

/// The default view radius, in chunks; the fog is complete at its distance.
pub const VIEW_RADIUS_CHUNKS: u32 = 8;
/// Where the fog is complete, as a fraction of the view radius (docs/terrain.md): just before
/// the edge of the loaded chunks.
pub const FOG_END: f32 = 0.95;
/// The default field of view: vertical, in degrees.
pub const FIELD_OF_VIEW_DEGREES: f32 = 70.0;

/// The terrain tool's sphere, shown on the ground it would dig or build.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    pub centre: Vec3,
    pub radius: f32,
}

/// The camera of a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub view_projection: Mat4,
    pub eye: Vec3,
    /// Where the fog is complete, in meters.
    pub fog_distance: f32,
    /// The tool's sphere, if it is shown.
    pub marker: Option<Marker>,
}

impl Camera {
    /// The player's view at the spawn point of `generator`: the eye [`EYES`] above the
    /// feet, looking north (toward [`Generator::first_view_target`], which lies at −z) and 10°
    /// down, for a `width`×`height` image.
    pub fn at_spawn(generator: &Generator, width: u32, height: u32) -> Self {
        let [x, y, z] = generator.spawn_point();
        let eye = Vec3::new(x, y + EYES, z);
        let [tx, _, tz] = generator.first_view_target();
        let mut ahead = Vec3::new(tx - eye.x, 0.0, tz - eye.z);
        if ahead.mag_sq() < 1e-6 {
            ahead = -Vec3::unit_z();
        }
        let pitch = (-10f32).to_radians();
        let direction = ahead.normalized() * pitch.cos() + Vec3::unit_y() * pitch.sin();
        Self::looking(eye, direction, width, height)
    }

    /// A perspective view ([`FIELD_OF_VIEW_DEGREES`], 70° vertical) from `eye` along
    /// `direction`, fog complete at 95% of the default view radius.
    pub fn looking(eye: Vec3, direction: Vec3, width: u32, height: u32) -> Self {
        Self::looking_within(
            eye,
            direction,
            width,
            height,
            VIEW_RADIUS_CHUNKS,
            FIELD_OF_VIEW_DEGREES,
        )
    }

    /// [`Camera::looking`] with `radius` chunks loaded around the eye and a vertical field of
    /// view of `fov_degrees` (kept within 1°–179°; not finite: the default): the fog is
    /// complete at 95% of that distance, so the edge of the loaded chunks is never seen.
    pub fn looking_within(
        eye: Vec3,
        direction: Vec3,
        width: u32,
        height: u32,
        radius: u32,
        fov_degrees: f32,
    ) -> Self {
        let fov_degrees = if fov_degrees.is_finite() {
            fov_degrees.clamp(1.0, 179.0)
        } else {
            FIELD_OF_VIEW_DEGREES
        };
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let fog_distance = FOG_END * (radius.max(1) * CHUNK_SIZE as u32) as f32;
        let view = Mat4::look_at(eye, eye + direction, Vec3::unit_y());
        let projection = ultraviolet::projection::rh_yup::perspective_vk(
            fov_degrees.to_radians(),
            aspect,
            0.1,
            fog_distance * 1.5,
        );
        Self {
            view_projection: projection * view,
            eye,
            fog_distance,
            marker: None,
        }
    }

    /// Where a world point lands on a `width`×`height` image (pixels, y down), if in front.
    pub fn project(&self, point: Vec3, width: u32, height: u32) -> Option<(f32, f32)> {
        let clip = self.view_projection * Vec4::new(point.x, point.y, point.z, 1.0);
        if clip.w <= 0.0 {
            return None;
        }
        Some((
            (clip.x / clip.w * 0.5 + 0.5) * width as f32,
            (clip.y / clip.w * 0.5 + 0.5) * height as f32,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spawn_view_looks_north_and_down_onto_the_ground() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let view = Camera::at_spawn(&generator, 1280, 720);
        let [x, _, z] = generator.spawn_point();
        // The ground 20 m ahead (north, −z) is in the lower half of the image.
        let ground = Vec3::new(x, generator.surface_height(x, z - 20.0), z - 20.0);
        let (px, py) = view.project(ground, 1280, 720).expect("in front");
        assert!((600.0..680.0).contains(&px), "x {px}");
        assert!(py > 360.0, "y {py}");
    }
}
