//! Where the cascades of the sun's shadow map lie: the view cut by distance into slices, each
//! slice enclosed in a sphere, each sphere seen from the sun by an orthographic projection whose
//! window is snapped to whole texels.
//!
//! * **Splits**: between a logarithmic and an even spacing of the view distance up to where the
//!   shadows end ([`splits`]: 70 % logarithmic, from 2 m), so the near cascades, where a texel
//!   covers the most pixels, are small.
//! * **Stable while the view turns**: a slice's enclosing sphere has the same radius however the
//!   view is turned (it depends only on the slice's distances and the field of view), so the
//!   cascade's window, its diameter, never changes size.
//! * **Stable while the view moves**: the window is placed in the sun's view, whose orientation
//!   is fixed, on whole texels of its own size, so a world point's texel moves by whole texels:
//!   shadow edges do not crawl or shimmer as the player walks.
//! * **Casters behind**: the window's depth reaches [`CASTER_REACH`] beyond the sphere toward
//!   the sun, so hills and towers outside the view still cast into it.

use ultraviolet::{Mat4, Vec3, Vec4};

use blockfall_game::camera::Camera;

/// How far toward the sun, beyond a slice's sphere, casters are drawn into its cascade
/// (meters): higher than any hill stands over the ground the view sees.
pub const CASTER_REACH: f32 = 160.0;
/// Where the logarithmic spacing of the splits starts (meters).
const LOG_START: f32 = 2.0;
/// The logarithmic spacing's share of the splits; the rest is even.
const LOG_SHARE: f32 = 0.7;
/// A sphere's radius is rounded up to this step (meters), so that rounding in its computation
/// never changes the window's size between frames.
const RADIUS_STEP: f32 = 1.0 / 16.0;

/// One cascade of a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cascade {
    /// World → the cascade's clip space: x and y in −1..1 across its tile, depth 0..1 from the
    /// sun.
    pub matrix: Mat4,
    /// The view distances (along the view's axis) the cascade serves.
    pub near: f32,
    pub far: f32,
    /// The sphere enclosing its slice of the view.
    pub centre: Vec3,
    pub radius: f32,
    /// Meters per texel of the cascade's tile.
    pub meters_per_texel: f32,
    /// The view's axis (unit).
    pub forward: Vec3,
}

/// Which casters a cascade draws: those that may shade the part of the view the cascade
/// serves. A caster's box, swept away from the sun as far as its shadow can fall (down to the
/// lowest receiver of the slice, [`CasterCull::with_floor`], at most [`CASTER_REACH`]), must
/// meet the view's slice, and the box itself the cascade's window.
#[derive(Debug, Clone, Copy)]
pub struct CasterCull {
    /// The slice of the view: its four sides and the slice's near and far ends
    /// (`n·p + d ≥ 0` inside).
    slice: [Vec4; 6],
    /// The cascade's window: its sides and depth range.
    window: [Vec4; 6],
    /// Away from the sun (unit): where shadows fall.
    away: Vec3,
    /// No receiver of the slice is lower than this (meters).
    floor: f32,
}

/// The planes (`n·p + d ≥ 0` inside) of the clip volume of `m` (Vulkan's: −w ≤ x, y ≤ w,
/// 0 ≤ z ≤ w) in world space: its sides, its near and its far end.
fn clip_planes(m: Mat4) -> [Vec4; 6] {
    let row = |r: usize| Vec4::new(m.cols[0][r], m.cols[1][r], m.cols[2][r], m.cols[3][r]);
    let (x, y, z, w) = (row(0), row(1), row(2), row(3));
    [w + x, w - x, w + y, w - y, z, w - z]
}

/// The largest `n·p + d` over the box from `low` to `high`.
fn furthest(plane: Vec4, low: Vec3, high: Vec3) -> f32 {
    let corner = Vec3::new(
        if plane.x >= 0.0 { high.x } else { low.x },
        if plane.y >= 0.0 { high.y } else { low.y },
        if plane.z >= 0.0 { high.z } else { low.z },
    );
    plane.xyz().dot(corner) + plane.w
}

impl CasterCull {
    /// The casters `cascade` of `view` draws, the sun toward `sun_toward` (unit), with no
    /// floor known: every caster's shadow reaches [`CASTER_REACH`].
    pub fn of(cascade: &Cascade, view: &Camera, sun_toward: Vec3) -> Self {
        let mut slice = clip_planes(view.view_projection);
        let f = cascade.forward;
        let along_eye = f.dot(view.eye);
        slice[4] = Vec4::new(f.x, f.y, f.z, -along_eye - cascade.near);
        slice[5] = Vec4::new(-f.x, -f.y, -f.z, along_eye + cascade.far);
        Self {
            slice,
            window: clip_planes(cascade.matrix),
            away: -sun_toward.normalized(),
            floor: f32::NEG_INFINITY,
        }
    }

    /// The same, knowing that nothing the slice holds lies below `floor`: a caster's shadow
    /// ends there, so a caster at height h reaches (h − floor) / the sun's height along the
    /// sun's rays, not [`CASTER_REACH`].
    pub fn with_floor(self, floor: f32) -> Self {
        Self { floor, ..self }
    }

    /// Whether the box from `low` to `high` meets the view's slice (a receiver may lie in it).
    pub fn meets_slice(&self, low: Vec3, high: Vec3) -> bool {
        self.slice.iter().all(|&p| furthest(p, low, high) >= 0.0)
    }

    /// Whether a caster within the box from `low` to `high` may shade what the cascade serves.
    pub fn may_cast(&self, low: Vec3, high: Vec3) -> bool {
        if !self.window.iter().all(|&p| furthest(p, low, high) >= 0.0) {
            return false;
        }
        let reach = if self.away.y < -0.01 && self.floor.is_finite() {
            ((high.y - self.floor) / -self.away.y).clamp(0.0, CASTER_REACH)
        } else {
            CASTER_REACH
        };
        // The swept box is the hull of the box and the box moved along `away`: a plane leaves
        // it out only if it leaves out both.
        let sweep = self.away * reach;
        let (swept_low, swept_high) = (low + sweep, high + sweep);
        self.slice
            .iter()
            .all(|&p| furthest(p, low, high).max(furthest(p, swept_low, swept_high)) >= 0.0)
    }
}

/// The far ends of `count` slices of the view distance up to `end`, each between a logarithmic
/// and an even spacing; the last is `end`.
pub fn splits(count: usize, end: f32) -> Vec<f32> {
    let end = end.max(LOG_START * 2.0);
    (1..=count)
        .map(|i| {
            let part = i as f32 / count as f32;
            let logarithmic = LOG_START * (end / LOG_START).powf(part);
            let even = end * part;
            LOG_SHARE * logarithmic + (1.0 - LOG_SHARE) * even
        })
        .collect()
}

/// The cascades of `view` for the sun toward `sun_toward` (unit), one per slice ending at each
/// of `splits` (increasing), the first from the view's near plane, each drawn into a tile of
/// `texels` × `texels`. `None` if the view cannot be inverted (a degenerate camera).
pub fn cascades(
    view: &Camera,
    sun_toward: Vec3,
    splits: &[f32],
    texels: u32,
) -> Option<Vec<Cascade>> {
    let frustum = ViewCone::of(view)?;
    let sun = sun_toward.normalized();
    let up = if sun.y.abs() > 0.99 {
        Vec3::unit_z()
    } else {
        Vec3::unit_y()
    };
    // The sun's view: its orientation only, so that windows can be snapped in it.
    let sun_view = Mat4::look_at(Vec3::zero(), -sun, up);
    let texels = texels.max(1) as f32;
    let mut near = frustum.near;
    let mut out = Vec::with_capacity(splits.len());
    for &far in splits {
        let far = far.max(near + RADIUS_STEP);
        let (along, radius) = frustum.sphere(near, far);
        let centre = view.eye + frustum.forward * along;
        let meters_per_texel = 2.0 * radius / texels;
        let seen = sun_view * Vec4::new(centre.x, centre.y, centre.z, 1.0);
        // The window's middle on whole texels of the sun's view.
        let x = (seen.x / meters_per_texel).round() * meters_per_texel;
        let y = (seen.y / meters_per_texel).round() * meters_per_texel;
        // Distance from the sun's plane through the origin (the view looks along −z).
        let depth = -seen.z;
        let projection = window(x, y, radius, depth - radius - CASTER_REACH, depth + radius);
        out.push(Cascade {
            matrix: projection * sun_view,
            near,
            far,
            centre,
            radius,
            meters_per_texel,
            forward: frustum.forward,
        });
        near = far;
    }
    Some(out)
}

/// The orthographic projection of the sun's view onto a window of half size `radius` around
/// (`x`, `y`), depths `near` to `far` from the sun's plane mapped to 0..1, y turned down (as
/// Vulkan's clip space has it, and the view's projection does): so a triangle counter-clockwise
/// toward the sun stays counter-clockwise in the tile, and the casters' pipelines draw the faces
/// turned toward the sun and cull the others, as the main passes do toward the eye. (The lookup
/// goes through the same matrix, so the flip is the same there.)
fn window(x: f32, y: f32, radius: f32, near: f32, far: f32) -> Mat4 {
    let depth = far - near;
    Mat4::new(
        Vec4::new(1.0 / radius, 0.0, 0.0, 0.0),
        Vec4::new(0.0, -1.0 / radius, 0.0, 0.0),
        Vec4::new(0.0, 0.0, -1.0 / depth, 0.0),
        Vec4::new(-x / radius, y / radius, -near / depth, 1.0),
    )
}

/// The view's cone: its eye, its axis and how far the corners of a slice lie off the axis.
struct ViewCone {
    forward: Vec3,
    /// The distance of a corner from the axis per meter along it.
    spread: f32,
    /// The near plane's distance along the axis.
    near: f32,
}

impl ViewCone {
    fn of(view: &Camera) -> Option<Self> {
        let m = view.view_projection;
        if m.determinant().abs() < f32::MIN_POSITIVE || !m.cols.iter().all(|c| c.x.is_finite()) {
            return None;
        }
        let inverse = m.inversed();
        let unproject = |x: f32, y: f32, z: f32| {
            let p = inverse * Vec4::new(x, y, z, 1.0);
            p.xyz() / p.w
        };
        let far_middle = unproject(0.0, 0.0, 1.0);
        let near_middle = unproject(0.0, 0.0, 0.0);
        let axis = far_middle - view.eye;
        let far = axis.mag();
        if !far.is_finite() || far <= 0.0 {
            return None;
        }
        let forward = axis / far;
        let spread = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
            .iter()
            .map(|&(x, y)| {
                let corner = unproject(x, y, 1.0) - view.eye;
                let along = corner.dot(forward);
                (corner - forward * along).mag() / along
            })
            .fold(0.0f32, f32::max);
        let near = (near_middle - view.eye).dot(forward).max(0.0);
        spread.is_finite().then_some(Self {
            forward,
            spread,
            near,
        })
    }

    /// The smallest sphere with its middle on the axis that holds the slice from `near` to `far`
    /// along the axis: (the middle's distance along the axis, the radius rounded up to
    /// [`RADIUS_STEP`]). It depends on the distances and the field of view only, not on where
    /// the view looks.
    fn sphere(&self, near: f32, far: f32) -> (f32, f32) {
        let spread_sq = self.spread * self.spread;
        // Equally far from the near and the far corners, within the slice.
        let along = ((1.0 + spread_sq) * (near + far) / 2.0).clamp(near, far);
        let to_near = ((along - near).powi(2) + spread_sq * near * near).sqrt();
        let to_far = ((far - along).powi(2) + spread_sq * far * far).sqrt();
        let radius = to_near.max(to_far);
        (along, (radius / RADIUS_STEP).ceil() * RADIUS_STEP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sun() -> Vec3 {
        Vec3::new(0.55, 0.75, 0.35).normalized()
    }

    fn view(eye: Vec3, direction: Vec3) -> Camera {
        Camera::looking(eye, direction.normalized(), 1280, 720)
    }

    /// The eight corners of the view's slice from `near` to `far` along its axis.
    fn slice_corners(view: &Camera, near: f32, far: f32) -> Vec<Vec3> {
        let cone = ViewCone::of(view).unwrap();
        let inverse = view.view_projection.inversed();
        let mut corners = Vec::new();
        for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            let p = inverse * Vec4::new(x, y, 1.0, 1.0);
            let ray = p.xyz() / p.w - view.eye;
            let along = ray.dot(cone.forward);
            for distance in [near, far] {
                corners.push(view.eye + ray * (distance / along));
            }
        }
        corners
    }

    fn clip(matrix: Mat4, p: Vec3) -> Vec3 {
        let c = matrix * Vec4::new(p.x, p.y, p.z, 1.0);
        c.xyz() / c.w
    }

    #[test]
    fn splits_grow_and_end_where_the_shadows_end() {
        let ends = splits(4, 150.0);
        assert_eq!(ends.len(), 4);
        assert!((ends[3] - 150.0).abs() < 1e-3);
        assert!(ends.windows(2).all(|w| w[0] < w[1]), "{ends:?}");
        // The first cascade is small: the finest texels where they cover the most pixels.
        assert!(ends[0] < 25.0, "{ends:?}");
    }

    #[test]
    fn every_slice_lies_inside_its_cascade_with_room_for_casters_toward_the_sun() {
        let view = view(Vec3::new(100.0, 40.0, -30.0), Vec3::new(0.3, -0.2, -1.0));
        let ends = splits(4, 150.0);
        let all = cascades(&view, sun(), &ends, 2048).unwrap();
        for cascade in &all {
            for corner in slice_corners(&view, cascade.near, cascade.far) {
                let c = clip(cascade.matrix, corner);
                assert!(
                    c.x.abs() <= 1.0 && c.y.abs() <= 1.0,
                    "{c:?} outside the tile"
                );
                assert!((0.0..=1.0).contains(&c.z), "{c:?} outside the depth range");
                // A caster 100 m toward the sun from any point of the slice is drawn too.
                let above = clip(cascade.matrix, corner + sun() * 100.0);
                assert!(
                    (0.0..=1.0).contains(&above.z),
                    "{above:?}: the caster is cut off"
                );
                assert!(above.z < c.z, "nearer the sun is less deep");
            }
        }
    }

    #[test]
    fn turning_the_view_keeps_each_cascades_size() {
        let eye = Vec3::new(10.0, 20.0, 30.0);
        let ends = splits(4, 150.0);
        let ahead = cascades(&view(eye, -Vec3::unit_z()), sun(), &ends, 2048).unwrap();
        for direction in [Vec3::new(1.0, -0.5, 0.2), Vec3::new(-0.3, 0.8, 0.4)] {
            let turned = cascades(&view(eye, direction), sun(), &ends, 2048).unwrap();
            for (a, b) in ahead.iter().zip(&turned) {
                assert_eq!(a.radius, b.radius);
                assert_eq!(a.meters_per_texel, b.meters_per_texel);
            }
        }
    }

    #[test]
    fn moving_the_view_moves_the_shadow_map_by_whole_texels() {
        let direction = Vec3::new(0.2, -0.3, -1.0);
        let ends = splits(4, 150.0);
        let here = cascades(
            &view(Vec3::new(5.0, 12.0, 7.0), direction),
            sun(),
            &ends,
            2048,
        )
        .unwrap();
        let point = Vec3::new(9.0, 10.0, -4.0);
        for step in [
            Vec3::new(0.013, 0.0, 0.0),
            Vec3::new(0.0, 0.021, -0.37),
            Vec3::new(1.7, -0.2, 0.9),
        ] {
            let there = cascades(
                &view(Vec3::new(5.0, 12.0, 7.0) + step, direction),
                sun(),
                &ends,
                2048,
            )
            .unwrap();
            for (a, b) in here.iter().zip(&there) {
                let texels = 2048.0 / 2.0;
                let shift = (clip(b.matrix, point) - clip(a.matrix, point)) * texels;
                for moved in [shift.x, shift.y] {
                    assert!(
                        (moved - moved.round()).abs() < 0.02,
                        "a point moved {moved} texels in a cascade of radius {}",
                        a.radius
                    );
                }
            }
        }
    }

    #[test]
    fn casters_are_those_whose_shadow_can_reach_the_slice() {
        let view = view(Vec3::new(0.0, 2.0, 0.0), -Vec3::unit_z());
        let ends = splits(4, 150.0);
        let all = cascades(&view, sun(), &ends, 2048).unwrap();
        let first = CasterCull::of(&all[0], &view, sun());
        let unit = Vec3::broadcast(0.5);
        // On the ground 8 m ahead: in the first slice.
        let ahead = Vec3::new(0.0, 0.0, -8.0);
        assert!(first.may_cast(ahead - unit, ahead + unit));
        // Behind the eye, but toward the sun and high: its shadow falls ahead, into view.
        let behind_high = Vec3::new(0.0, 0.0, -8.0) + sun() * 30.0;
        assert!(first.may_cast(behind_high - unit, behind_high + unit));
        // Behind the eye on the ground, away from the sun: its shadow falls away from the view.
        let behind = Vec3::new(-5.0, 0.0, 20.0) - sun() * 5.0;
        assert!(!first.may_cast(behind - unit, behind + unit));
        // Far ahead: the last cascade's, not the first's.
        let far = Vec3::new(0.0, 0.0, -120.0);
        assert!(!first.may_cast(far - unit, far + unit));
        let last = CasterCull::of(&all[3], &view, sun());
        assert!(last.may_cast(far - unit, far + unit));
        // The high one still reaches with the ground known.
        assert!(first
            .with_floor(-1.0)
            .may_cast(behind_high - unit, behind_high + unit));
    }

    #[test]
    fn a_low_caster_far_toward_the_sun_does_not_reach_past_the_lowest_ground() {
        // Looking down at the ground: the slice holds the ground ahead and, below it, earth
        // that no shadow can reach once the ground's lowest point is known.
        let view = view(Vec3::new(0.0, 10.0, 0.0), Vec3::new(0.0, -1.7, -1.0));
        let all = cascades(&view, sun(), &splits(4, 150.0), 2048).unwrap();
        let first = CasterCull::of(&all[0], &view, sun());
        // A block on the ground 20 m toward the sun from the ground in view.
        let toward = Vec3::new(sun().x, 0.0, sun().z).normalized();
        let caster = Vec3::new(0.0, 0.5, -6.0) + toward * 20.0;
        let unit = Vec3::broadcast(0.5);
        assert!(
            !first.meets_slice(caster - unit, caster + unit),
            "out of view"
        );
        // Without a floor its shadow is swept deep under the ground, into the slice.
        assert!(first.may_cast(caster - unit, caster + unit));
        // With the ground no lower than 1 m down, its shadow ends 2.7 m from it.
        assert!(!first
            .with_floor(-1.0)
            .may_cast(caster - unit, caster + unit));
    }

    #[test]
    fn a_face_toward_the_sun_keeps_its_winding_as_the_views_projection_does() {
        // Regression: the window once kept y up while the view's projection turns it down, so
        // the casters' pipelines (counter-clockwise fronts, back faces culled) drew the faces
        // turned away from the sun, and light leaked in at the foot of every block.
        let view = view(Vec3::new(0.0, 5.0, 10.0), -Vec3::unit_z());
        let all = cascades(&view, sun(), &splits(4, 150.0), 2048).unwrap();
        // A triangle of flat ground, counter-clockwise seen from above (toward the sun).
        let [a, b, c] = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 0.0),
        ];
        let signed_area = |m: Mat4| {
            let [a, b, c] = [a, b, c].map(|p| clip(m, p));
            // In framebuffer terms (y down), as Vulkan decides the front face.
            (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)
        };
        let eye_side = signed_area(view.view_projection).signum();
        for cascade in &all {
            assert_eq!(signed_area(cascade.matrix).signum(), eye_side);
        }
    }

    #[test]
    fn a_degenerate_view_has_no_cascades() {
        let mut broken = view(Vec3::zero(), -Vec3::unit_z());
        broken.view_projection = Mat4::from([[0.0; 4]; 4]);
        assert!(cascades(&broken, sun(), &[10.0], 1024).is_none());
        broken.view_projection = Mat4::from([[f32::NAN; 4]; 4]);
        assert!(cascades(&broken, sun(), &[10.0], 1024).is_none());
    }
}
