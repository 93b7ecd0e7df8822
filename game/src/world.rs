//! The game's default scene: the generated world, the player standing at its spawn point and
//! looking north onto the slope with the cave mouths, and the terrain tool that digs and builds
//! where the player looks (controls, docs/player.md: WASD walk, Shift run, Space jump, F fly with
//! Q/E down and up; left button digs, right button builds, the wheel sizes the tool).
//!
//! This is the CPU side alone, the chunks streamed around the player's eyes included
//! ([`ChunkStream`]: their grids and light prepared on the workers, the light kept for
//! [`World::light_at`]). Whoever meshes and draws them (the window and the headless run, through
//! `game::render`) is a [`ChunkSink`] that [`World::stream`] and [`World::stream_edit`] feed, and
//! draws the [`Camera`] of [`World::view`]:
//!
//! ```text
//!   step(dt, controls)               the player moves against the ground
//!   use_tool / edit_at ─▶ changed    the ground is dug or built
//!   stream_edit(changed, sink)       the chunks it changed meshed again, those near lit again
//!   stream(budget, sink)             far chunks out, the nearest missing ones in
//!   view(w, h) ─▶ Camera             what the renderer draws
//!   light_at(point)                  the sky light the terrain there is lit with
//! ```

use std::sync::Arc;

use blockfall_engine::workers::WorkerPool;
use ultraviolet::Vec3;

use crate::camera::Camera;
use crate::player::{Controls, Player, EYES};
use crate::solids::TerrainSolid;
use crate::terrain::streaming::{ChunkSink, ChunkStream, EditReport, StreamReport, VIEW_RADIUS};
use crate::terrain::{EditError, EditStore, Field, Generator, SampleBox};

/// The tool's radius at the start, and its limits, in meters.
pub const TOOL_RADIUS: f32 = 2.0;
pub const TOOL_RADIUS_MIN: f32 = 0.5;
pub const TOOL_RADIUS_MAX: f32 = 8.0;
/// How much one notch of the wheel changes the tool's radius.
pub const TOOL_RADIUS_STEP: f32 = 0.5;
/// How far the tool reaches along the view, in meters.
pub const TOOL_REACH: f32 = 40.0;
/// While a button is held, the tool digs (or builds) again this often, in seconds.
pub const TOOL_REPEAT: f32 = 0.12;
/// The view looks down this far below the horizon at the start, in degrees.
pub const FIRST_PITCH_DEGREES: f32 = -10.0;
/// The steepest the view may look up or down, in degrees.
pub const PITCH_LIMIT_DEGREES: f32 = 89.0;

/// What the tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolAction {
    Dig,
    Build,
}

/// The world at play: the edited ground and its chunks around the player, the player and where
/// it looks, the tool.
pub struct World {
    field: Field<EditStore>,
    chunks: ChunkStream,
    pub player: Player,
    /// Radians about the vertical; 0 faces +z, π/2 faces +x (the player's convention).
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
    pub tool_radius: f32,
    /// Seconds until a held tool acts again.
    tool_wait: f32,
}

impl World {
    /// The world of `seed`, the player at its spawn point looking north toward
    /// [`Generator::first_view_target`] and a little down; chunks streamed [`VIEW_RADIUS`]
    /// chunks around it.
    pub fn new(seed: u32) -> Self {
        Self::with_view_radius(seed, VIEW_RADIUS)
    }

    /// As [`World::new`], with chunks streamed `radius` chunks around the player.
    pub fn with_view_radius(seed: u32, radius: u32) -> Self {
        let generator = Arc::new(Generator::new(seed));
        let spawn = generator.spawn_point();
        let [tx, _, tz] = generator.first_view_target();
        let (dx, dz) = (tx - spawn[0], tz - spawn[2]);
        let yaw = if dx * dx + dz * dz > 1e-6 {
            dx.atan2(dz)
        } else {
            std::f32::consts::PI
        };
        Self {
            field: Field::new(EditStore::new(generator)),
            chunks: ChunkStream::new(radius),
            player: Player::new(spawn),
            yaw,
            pitch: FIRST_PITCH_DEGREES.to_radians(),
            tool_radius: TOOL_RADIUS,
            tool_wait: 0.0,
        }
    }

    /// The edited ground.
    pub fn edits(&self) -> &EditStore {
        self.field.edits()
    }

    /// The sampled ground, for collisions and rays.
    pub fn field(&self) -> &Field<EditStore> {
        &self.field
    }

    pub fn generator(&self) -> &Arc<Generator> {
        self.field.edits().generator()
    }

    /// Where the camera is: the player's eyes.
    pub fn eye(&self) -> Vec3 {
        self.player.position + Vec3::new(0.0, EYES, 0.0)
    }

    /// Where the camera looks (a unit vector).
    pub fn look_direction(&self) -> Vec3 {
        Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            self.yaw.cos() * self.pitch.cos(),
        )
    }

    /// The camera for a `width`×`height` image.
    pub fn view(&self, width: u32, height: u32) -> Camera {
        Camera::looking(self.eye(), self.look_direction(), width, height)
    }

    /// The chunks streamed around the player.
    pub fn chunks(&self) -> &ChunkStream {
        &self.chunks
    }

    /// One frame's streaming around the player's eyes: far chunks unloaded from `sink`, at most
    /// `budget` of the nearest missing ones prepared on `pool` and meshed into it.
    pub fn stream<S: ChunkSink>(
        &mut self,
        pool: &WorkerPool,
        sink: &mut S,
        budget: usize,
    ) -> Result<StreamReport, S::Error> {
        let viewer = self.eye().into();
        self.chunks
            .update(pool, self.field.edits(), sink, viewer, budget)
    }

    /// Brings `sink` up to date after an edit that changed the samples in `changed`: the chunks
    /// it changed prepared and meshed again, those its light may reach lit again.
    pub fn stream_edit<S: ChunkSink>(
        &mut self,
        pool: &WorkerPool,
        sink: &mut S,
        changed: &SampleBox,
    ) -> Result<EditReport, S::Error> {
        self.chunks.edited(pool, self.field.edits(), sink, changed)
    }

    /// The sky light at a point, as the terrain there is lit (for blocks and pieces).
    pub fn light_at(&self, point: [f32; 3]) -> f32 {
        self.chunks.light_at(self.field.edits(), point)
    }

    /// Turns the view by `yaw` and `pitch` radians (the mouse); pitch stops short of straight
    /// up and down. Values that are not finite are ignored.
    pub fn turn(&mut self, yaw: f32, pitch: f32) {
        if !yaw.is_finite() || !pitch.is_finite() {
            return;
        }
        self.yaw = (self.yaw + yaw).rem_euclid(std::f32::consts::TAU);
        let limit = PITCH_LIMIT_DEGREES.to_radians();
        self.pitch = (self.pitch + pitch).clamp(-limit, limit);
    }

    /// Moves the player by one frame of `dt` seconds against the ground.
    pub fn step(&mut self, dt: f32, controls: &Controls) {
        let solid = TerrainSolid { field: &self.field };
        self.player
            .update(dt, controls, self.yaw, self.pitch, &solid);
    }

    /// F: between walking and flying.
    pub fn toggle_fly(&mut self) {
        self.player.toggle_fly();
    }

    /// The wheel: `notches` up grow the tool, down shrink it, within its limits.
    pub fn resize_tool(&mut self, notches: f32) {
        if notches.is_finite() {
            self.tool_radius = (self.tool_radius + notches * TOOL_RADIUS_STEP)
                .clamp(TOOL_RADIUS_MIN, TOOL_RADIUS_MAX);
        }
    }

    /// Where the view meets the ground within [`TOOL_REACH`], if it does.
    pub fn aim(&self) -> Option<[f32; 3]> {
        ground_along(&self.field, self.eye(), self.look_direction(), TOOL_REACH)
    }

    /// Digs or builds a sphere of the tool's radius where the view meets the ground. Returns
    /// the samples that changed, for [`World::stream_edit`] (`None`: nothing aimed at, or no
    /// sample changed). Building is refused where the mound would bury the player.
    pub fn use_tool(&mut self, action: ToolAction) -> Result<Option<SampleBox>, EditError> {
        let Some(at) = self.aim() else {
            return Ok(None);
        };
        self.edit_at(action, at, self.tool_radius)
    }

    /// Digs or builds a sphere of `radius` meters around `centre`.
    pub fn edit_at(
        &mut self,
        action: ToolAction,
        centre: [f32; 3],
        radius: f32,
    ) -> Result<Option<SampleBox>, EditError> {
        match action {
            ToolAction::Dig => self.field.dig(centre, radius),
            ToolAction::Build => {
                if self.buries_player(centre, radius) {
                    return Ok(None);
                }
                self.field.build(centre, radius)
            }
        }
    }

    /// The tool while a button is held: acts at once when first pressed (`pressed`), then
    /// every [`TOOL_REPEAT`] seconds.
    pub fn hold_tool(
        &mut self,
        action: ToolAction,
        dt: f32,
        pressed: bool,
    ) -> Result<Option<SampleBox>, EditError> {
        if pressed {
            self.tool_wait = 0.0;
        }
        self.tool_wait -= if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if self.tool_wait > 0.0 {
            return Ok(None);
        }
        self.tool_wait = TOOL_REPEAT;
        self.use_tool(action)
    }

    /// Whether a mound around `centre` would reach the walking player's body.
    fn buries_player(&self, centre: [f32; 3], radius: f32) -> bool {
        if self.player.mode == crate::player::Mode::Fly {
            return false;
        }
        let centre = Vec3::from(centre);
        let feet = self.player.position + Vec3::new(0.0, crate::player::RADIUS, 0.0);
        let head = self.player.position
            + Vec3::new(0.0, crate::player::HEIGHT - crate::player::RADIUS, 0.0);
        let nearest = closest_on_segment(centre, feet, head);
        (nearest - centre).mag() < radius + crate::player::RADIUS
    }
}

/// The point of the segment `a`–`b` nearest `point`.
fn closest_on_segment(point: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let along = b - a;
    let t = ((point - a).dot(along) / along.mag_sq().max(1e-12)).clamp(0.0, 1.0);
    a + along * t
}

/// Where a ray from `origin` along `direction` first enters the ground within `reach` meters:
/// steps of a quarter meter until the density turns positive, then halvings to a millimeter.
pub fn ground_along(
    field: &Field<EditStore>,
    origin: Vec3,
    direction: Vec3,
    reach: f32,
) -> Option<[f32; 3]> {
    let length = direction.mag();
    if !length.is_finite() || length < 1e-6 || !reach.is_finite() {
        return None;
    }
    let direction = direction / length;
    let inside = |t: f32| {
        let p = origin + direction * t;
        field.probe(p.x, p.y, p.z).density > 0.0
    };
    if inside(0.0) {
        return Some(origin.into());
    }
    const STEP: f32 = 0.25;
    let mut outside = 0.0;
    let mut t = STEP;
    while t <= reach {
        if inside(t) {
            let mut hit = t;
            while hit - outside > 1e-3 {
                let middle = 0.5 * (outside + hit);
                if inside(middle) {
                    hit = middle;
                } else {
                    outside = middle;
                }
            }
            return Some((origin + direction * hit).into());
        }
        outside = t;
        t += STEP;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_view_looks_north_and_down_from_the_spawn() {
        let world = World::new(Generator::DEFAULT_SEED);
        let direction = world.look_direction();
        assert!(direction.z < -0.9, "north is −z: {direction:?}");
        assert!(direction.y < 0.0);
        let spawn = world.generator().spawn_point();
        assert!((world.eye().y - spawn[1] - EYES).abs() < 1e-5);
    }

    #[test]
    fn the_tool_digs_where_the_view_meets_the_ground_and_building_puts_it_back() {
        let mut world = World::new(Generator::DEFAULT_SEED);
        world.pitch = (-60f32).to_radians();
        let aim = world.aim().expect("the ground ahead");
        let before = world.field().probe(aim[0], aim[1] - 0.5, aim[2]).density;
        assert!(before > 0.0);
        let changed = world
            .use_tool(ToolAction::Dig)
            .unwrap()
            .expect("samples change");
        assert!(changed.contains(aim.map(|c| c.round() as i32)));
        let after = world.field().probe(aim[0], aim[1] - 0.5, aim[2]).density;
        assert!(after < before, "{after} < {before}");
        // The aim now lies deeper, in the hole.
        let deeper = world.aim().unwrap();
        assert!(deeper[1] < aim[1] - 0.5, "{deeper:?} below {aim:?}");
        // Building the same sphere back gives the ground back exactly.
        world.edit_at(ToolAction::Build, aim, TOOL_RADIUS).unwrap();
        assert_eq!(
            world.field().probe(aim[0], aim[1] - 0.5, aim[2]).density,
            before
        );
    }

    #[test]
    fn a_held_tool_repeats_and_a_mound_never_buries_the_player() {
        let mut world = World::new(Generator::DEFAULT_SEED);
        world.pitch = (-60f32).to_radians();
        assert!(world
            .hold_tool(ToolAction::Dig, 0.016, true)
            .unwrap()
            .is_some());
        assert!(world
            .hold_tool(ToolAction::Dig, 0.016, false)
            .unwrap()
            .is_none());
        assert!(world
            .hold_tool(ToolAction::Dig, TOOL_REPEAT, false)
            .unwrap()
            .is_some());
        // Straight down at the feet: the mound would reach the body.
        world.pitch = -PITCH_LIMIT_DEGREES.to_radians();
        world.tool_radius = 3.0;
        assert_eq!(world.use_tool(ToolAction::Build).unwrap(), None);
    }

    #[test]
    fn bad_input_changes_nothing() {
        let mut world = World::new(Generator::DEFAULT_SEED);
        let (yaw, pitch) = (world.yaw, world.pitch);
        world.turn(f32::NAN, 1.0);
        world.resize_tool(f32::INFINITY);
        assert_eq!(
            (world.yaw, world.pitch, world.tool_radius),
            (yaw, pitch, TOOL_RADIUS)
        );
        world.turn(0.0, 10.0);
        assert!(world.pitch <= PITCH_LIMIT_DEGREES.to_radians());
        world.resize_tool(100.0);
        assert_eq!(world.tool_radius, TOOL_RADIUS_MAX);
        assert!(world
            .edit_at(ToolAction::Dig, [f32::NAN, 0.0, 0.0], 1.0)
            .is_err());
        assert_eq!(
            ground_along(world.field(), world.eye(), Vec3::zero(), 10.0),
            None
        );
    }

    #[test]
    fn walking_forward_moves_north() {
        let mut world = World::new(Generator::DEFAULT_SEED);
        let start = world.player.position;
        let controls = Controls {
            forward: true,
            ..Controls::default()
        };
        for _ in 0..120 {
            world.step(1.0 / 60.0, &controls);
        }
        let moved = world.player.position - start;
        assert!(moved.z < -3.0, "{moved:?}");
        assert!(world.player.grounded);
    }
}
