//! The player: two balls of 40 cm, one at the feet and one at the head, that ask the solids how
//! far the nearest surface is and which way is out (docs/player.md). No physics engine.
//!
//! ```text
//!    ( )  head ball, centre at HEIGHT - RADIUS
//!     |
//!    ( )  feet ball, centre at RADIUS          position = the feet, on the ground
//! ```
//! Ground (a surface no steeper than 50°) pushes the player straight up, so it stands on slopes
//! without sliding; walls and ceilings push along their normal and take away the speed into them,
//! so it slides along. Moves are split into steps of at most 20 cm so a fast fall cannot pass
//! through a thin floor between two looks.

use blockfall_physics as physics;
use blockfall_physics::collision::Solid;
use ultraviolet::Vec3;

/// The balls' radius, in meters.
pub const RADIUS: f32 = 0.4;
/// From the feet to the top of the head.
pub const HEIGHT: f32 = 1.8;
/// Where the eyes are, above the feet.
pub const EYES: f32 = 1.65;
pub const WALK_SPEED: f32 = 5.0;
pub const RUN_SPEED: f32 = 9.0;
pub const JUMP_SPEED: f32 = 7.0;
pub const GRAVITY: f32 = 20.0;
/// How fast the speed changes, in m/s², on the ground and in the air.
pub const GROUND_ACCELERATION: f32 = 40.0;
pub const AIR_ACCELERATION: f32 = 8.0;
/// Steepest ground to stand on, in degrees.
pub const WALKABLE_DEGREES: f32 = 50.0;
/// How far the feet follow the ground down a slope or a step.
pub const STEP_DOWN: f32 = 0.4;
/// The longest move in one step.
pub const LONGEST_STEP: f32 = RADIUS / 2.0;
/// Flying speeds, in m/s: normal and with Shift.
pub const FLY_SPEED: f32 = 15.0;
pub const FLY_FAST_SPEED: f32 = 60.0;
/// The longest step the player moves in: a longer frame is played in equal substeps of at most
/// this, so the player keeps pace with the pieces whatever the frame time.
pub const LONGEST_SUBSTEP: f32 = 0.05;
/// A frame longer than this (a stall) is cut to it, as the physics cuts it (at most
/// `MOST_STEPS` steps of `STEP`), so the player and the pieces lose the same time.
pub const LONGEST_FRAME: f32 = (physics::MOST_STEPS as f64 * physics::STEP) as f32;
/// The fastest the player moves, in m/s: the pieces' terminal velocity
/// ([`physics::MOST_SPEED`]). Walking, running and flying are far below it; only a fall of
/// some 25 km reaches it, and the player then falls no faster. A save keeps no faster player.
pub const MOST_SPEED: f32 = physics::MOST_SPEED as f32;
/// How far the feet may go from the origin on any axis, in meters: the world's edge
/// ([`crate::scene::WORLD_METERS`]), where the player stops as at a wall.
pub const FARTHEST: f32 = crate::scene::WORLD_METERS;

/// Walking on the ground, or flying through anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Walk,
    Fly,
}

/// The keys that move the player, as held this frame (W A S D, Space, Shift, Q, E).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Controls {
    pub forward: bool,
    pub back: bool,
    pub left: bool,
    pub right: bool,
    pub jump: bool,
    pub run: bool,
    /// E: up while flying.
    pub up: bool,
    /// Q: down while flying.
    pub down: bool,
}

/// -1, 0 or 1 from two opposite keys.
fn axis(negative: bool, positive: bool) -> f32 {
    f32::from(u8::from(positive)) - f32::from(u8::from(negative))
}

/// The player's body.
#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    /// Where the feet are.
    pub position: Vec3,
    pub velocity: Vec3,
    pub grounded: bool,
    pub mode: Mode,
}

/// Where a yaw faces along the ground: yaw 0 faces +z, 90° faces +x.
fn facing(yaw: f32) -> Vec3 {
    Vec3::new(yaw.sin(), 0.0, yaw.cos())
}

/// To the right of a facing, in this right-handed, y-up world: facing × up.
fn right_of(yaw: f32) -> Vec3 {
    Vec3::new(-yaw.cos(), 0.0, yaw.sin())
}

impl Player {
    /// A player standing (or about to land) with its feet at `feet`.
    pub fn new(feet: [f32; 3]) -> Self {
        Self {
            position: Vec3::from(feet),
            velocity: Vec3::zero(),
            grounded: false,
            mode: Mode::Walk,
        }
    }

    /// Where the camera goes.
    pub fn eyes(&self) -> Vec3 {
        self.position + Vec3::new(0.0, EYES, 0.0)
    }

    /// F: between walking and flying. Landing keeps the feet where they are (under the camera)
    /// and lets them fall; the first collision pushes them out of anything they are in.
    pub fn toggle_fly(&mut self) {
        self.mode = match self.mode {
            Mode::Walk => Mode::Fly,
            Mode::Fly => Mode::Walk,
        };
        self.velocity = Vec3::zero();
        self.grounded = false;
    }

    /// Moves the player by one frame of `dt` seconds. `yaw` and `pitch` (radians, pitch up
    /// positive) are where the camera looks; walking only uses the yaw. A frame that is not a
    /// finite, positive time does nothing.
    pub fn update(
        &mut self,
        dt: f32,
        controls: &Controls,
        yaw: f32,
        pitch: f32,
        solids: &dyn Solid,
    ) {
        if !dt.is_finite() || dt <= 0.0 || !yaw.is_finite() || !pitch.is_finite() {
            return;
        }
        let dt = dt.min(LONGEST_FRAME);
        let substeps = (dt / LONGEST_SUBSTEP).ceil().max(1.0);
        let step = dt / substeps;
        for _ in 0..substeps as u32 {
            match self.mode {
                Mode::Walk => self.walk(step, controls, yaw, solids),
                Mode::Fly => self.fly(step, controls, yaw, pitch),
            }
            self.keep_in_world();
        }
    }

    /// Holds the player within the world's edge ([`FARTHEST`]), stopping it there, and no
    /// faster than [`MOST_SPEED`]: the state a save keeps (docs/saves.md, "A save we would
    /// load"). Ordinary play never reaches either, so it changes nothing there.
    fn keep_in_world(&mut self) {
        let speed = self.velocity.mag();
        if speed > MOST_SPEED {
            self.velocity *= MOST_SPEED / speed;
        }
        for axis in 0..3 {
            let place = &mut self.position[axis];
            if place.abs() > FARTHEST {
                *place = place.clamp(-FARTHEST, FARTHEST);
                self.velocity[axis] = 0.0;
            }
        }
    }

    /// Flies the camera: W/S along the view, A/D sideways, Q/E down and up, Shift faster.
    fn fly(&mut self, dt: f32, controls: &Controls, yaw: f32, pitch: f32) {
        let speed = if controls.run {
            FLY_FAST_SPEED
        } else {
            FLY_SPEED
        };
        let view = Vec3::new(
            yaw.sin() * pitch.cos(),
            pitch.sin(),
            yaw.cos() * pitch.cos(),
        );
        let forward = view * axis(controls.back, controls.forward);
        let right = right_of(yaw) * axis(controls.left, controls.right);
        self.position += (forward + right) * speed * dt;
        self.position.y += axis(controls.down, controls.up) * speed * dt;
        self.velocity = Vec3::zero();
    }

    fn walk(&mut self, dt: f32, controls: &Controls, yaw: f32, solids: &dyn Solid) {
        // The speed the keys ask for, along the ground, as the camera faces.
        let forward = axis(controls.back, controls.forward);
        let right = axis(controls.left, controls.right);
        let length = (forward * forward + right * right).sqrt();
        let length = if length > 0.0 { length } else { 1.0 };
        let speed = if controls.run { RUN_SPEED } else { WALK_SPEED };
        let wish = (facing(yaw) * forward + right_of(yaw) * right) * (speed / length);
        let step = if self.grounded {
            GROUND_ACCELERATION
        } else {
            AIR_ACCELERATION
        } * dt;
        self.velocity.x = approach(self.velocity.x, wish.x, step);
        self.velocity.z = approach(self.velocity.z, wish.z, step);

        if self.grounded && controls.jump {
            self.velocity.y = JUMP_SPEED;
            self.grounded = false;
        }
        // Gravity only in the air: on the ground it would press the feet into the slope every
        // frame just for the collision to push them back.
        if !self.grounded {
            self.velocity.y -= GRAVITY * dt;
        }
        // A terminal velocity (`MOST_SPEED`): the move below stays finite and short.
        let speed = self.velocity.mag();
        if speed > MOST_SPEED {
            self.velocity *= MOST_SPEED / speed;
        }

        let was_grounded = self.grounded;
        let steps = ((self.velocity.mag() * dt / LONGEST_STEP).ceil() as u32).clamp(1, 1000);
        for _ in 0..steps {
            self.position += self.velocity * (dt / steps as f32);
            self.collide(solids);
        }
        // Walking down a slope the ground drops away below the feet: follow it.
        if was_grounded && !self.grounded && self.velocity.y <= 0.0 {
            self.position.y -= STEP_DOWN;
            self.collide(solids);
            if !self.grounded {
                self.position.y += STEP_DOWN;
            }
        }
    }

    /// Pushes both balls out of the ground and the blocks (docs/player.md, "Ground against
    /// wall").
    fn collide(&mut self, solids: &dyn Solid) {
        let walkable = WALKABLE_DEGREES.to_radians().cos();
        self.grounded = false;
        for _pass in 0..3 {
            for height in [RADIUS, HEIGHT - RADIUS] {
                let centre = self.position + Vec3::new(0.0, height, 0.0);
                let Some(surface) = solids.nearest(centre.into(), RADIUS) else {
                    continue;
                };
                let depth = RADIUS - surface.distance;
                let normal = Vec3::from(surface.normal);
                if normal.y > walkable {
                    // Ground: straight up, so that the player does not slide down a slope.
                    self.position.y += depth / normal.y;
                    self.velocity.y = self.velocity.y.max(0.0);
                    self.grounded = true;
                } else {
                    // A wall or a ceiling: back out along the normal, stop moving into it.
                    self.position += normal * depth;
                    let into = self.velocity.dot(normal);
                    if into < 0.0 {
                        self.velocity -= normal * into;
                    }
                }
            }
        }
    }

    /// Whether a solid whose distance function is `distance` (meters, a block's, say) stays
    /// clear of the player: balls at the feet, the middle and the head must not reach into it.
    /// Flying, the camera goes through anything, so nothing is in the way.
    pub fn leaves_room(&self, distance: impl Fn([f32; 3]) -> f32) -> bool {
        if self.mode == Mode::Fly {
            return true;
        }
        [RADIUS, HEIGHT / 2.0, HEIGHT - RADIUS]
            .iter()
            .all(|&height| {
                let centre = self.position + Vec3::new(0.0, height, 0.0);
                distance(centre.into()) >= RADIUS
            })
    }
}

/// Moves `value` toward `target` by at most `step`.
fn approach(value: f32, target: f32, step: f32) -> f32 {
    if value < target {
        (value + step).min(target)
    } else {
        (value - step).max(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaw_zero_faces_plus_z_and_ninety_faces_plus_x() {
        let zero = facing(0.0);
        assert!((zero - Vec3::unit_z()).mag() < 1e-6);
        let ninety = facing(90f32.to_radians());
        assert!((ninety - Vec3::unit_x()).mag() < 1e-6);
        // Right of +z, seen from above with y up in a right-handed world, is -x.
        assert!((right_of(0.0) + Vec3::unit_x()).mag() < 1e-6);
        assert!((facing(0.3).cross(Vec3::unit_y()) - right_of(0.3)).mag() < 1e-6);
    }

    #[test]
    fn approach_stops_at_the_target() {
        assert_eq!(approach(0.0, 5.0, 2.0), 2.0);
        assert_eq!(approach(4.5, 5.0, 2.0), 5.0);
        assert_eq!(approach(1.0, -5.0, 0.5), 0.5);
    }
}
