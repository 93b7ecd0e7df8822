//! The camera's shake: heavy blows near the player (a piece striking, splitting, the ground
//! dug under it) shake the view a little, more for a harder blow and less the farther away it
//! struck, and it dies away within a second. The `camera_shake` setting turns it off. It moves
//! only the eye the world is drawn from, never the player or the aim.

use blockfall_game::world::{Blow, BlowKind};
use ultraviolet::Vec3;

/// The largest shake, meters the eye moves.
pub const MOST_SHAKE: f32 = 0.12;
/// The impulse (N·s) of a blow at the player's feet that shakes the most.
pub const FULL_SHAKE_IMPULSE: f32 = 60_000.0;
/// Beyond this distance (meters) a blow shakes a quarter as much as at the feet, and it falls
/// off with the square of the distance farther on.
pub const SHAKE_REACH: f32 = 8.0;
/// How fast the shake dies away: its strength falls by e every this many seconds.
pub const SHAKE_DECAY_S: f32 = 0.18;

/// The shake now.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Shake {
    /// Meters, at most [`MOST_SHAKE`].
    strength: f32,
    /// Seconds of shaking, for its wobble.
    time: f32,
}

impl Shake {
    /// How much `blow`, heard from `listener`, would shake the view (meters).
    pub fn of(blow: &Blow, listener: Vec3) -> f32 {
        if !matches!(
            blow.kind,
            BlowKind::Strike | BlowKind::Split | BlowKind::Dig | BlowKind::Build
        ) {
            return 0.0;
        }
        let distance = (Vec3::from(blow.at) - listener).mag();
        if !distance.is_finite() || !blow.impulse.is_finite() {
            return 0.0;
        }
        let falloff = 1.0 / (1.0 + 3.0 * (distance / SHAKE_REACH).powi(2));
        let hardness = (blow.impulse / FULL_SHAKE_IMPULSE).clamp(0.0, 1.0);
        MOST_SHAKE * hardness * falloff
    }

    /// The view is struck by `blow`, heard from `listener`: the stronger shake wins.
    pub fn hit(&mut self, blow: &Blow, listener: Vec3) {
        let strength = Self::of(blow, listener);
        if strength > self.strength {
            self.strength = strength.min(MOST_SHAKE);
        }
    }

    /// The eye's offset after `dt` more seconds (zero once it has died away).
    pub fn advance(&mut self, dt: f32) -> [f32; 3] {
        if !dt.is_finite() || dt <= 0.0 || self.strength < 1e-4 {
            if self.strength < 1e-4 {
                self.strength = 0.0;
            }
            return self.offset();
        }
        self.time += dt;
        self.strength *= (-dt / SHAKE_DECAY_S).exp();
        self.offset()
    }

    /// The eye's offset now: a wobble of incommensurate frequencies, `strength` meters at most
    /// on each axis.
    pub fn offset(&self) -> [f32; 3] {
        if self.strength < 1e-4 {
            return [0.0; 3];
        }
        let t = self.time;
        let wobble = |a: f32, b: f32, phase: f32| {
            ((a * t + phase).sin() * 0.6 + (b * t + phase * 2.0).sin() * 0.4) * self.strength
        };
        [
            wobble(47.0, 71.0, 0.0),
            wobble(53.0, 83.0, 1.3),
            wobble(41.0, 67.0, 2.1),
        ]
    }

    /// The shake's strength now, meters.
    pub fn strength(&self) -> f32 {
        self.strength
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strike(at: [f32; 3], impulse: f32) -> Blow {
        Blow {
            kind: BlowKind::Strike,
            at,
            material: Some(0),
            surface: None,
            impulse,
        }
    }

    #[test]
    fn a_harder_nearer_blow_shakes_more_and_it_dies_away() {
        let me = Vec3::zero();
        let near = Shake::of(&strike([2.0, 0.0, 0.0], 50_000.0), me);
        let far = Shake::of(&strike([30.0, 0.0, 0.0], 50_000.0), me);
        let light = Shake::of(&strike([2.0, 0.0, 0.0], 5_000.0), me);
        assert!(
            near > 2.0 * far && near > 2.0 * light,
            "{near} {far} {light}"
        );
        assert!(Shake::of(&strike([0.0; 3], 1e9), me) <= MOST_SHAKE);
        let step = Blow {
            kind: BlowKind::Step,
            ..strike([0.0; 3], 1e9)
        };
        assert_eq!(Shake::of(&step, me), 0.0, "steps do not shake");
        assert_eq!(Shake::of(&strike([f32::NAN; 3], 1.0), me), 0.0);
        let mut shake = Shake::default();
        assert_eq!(shake.advance(1.0 / 60.0), [0.0; 3]);
        shake.hit(&strike([1.0, 0.0, 0.0], 60_000.0), me);
        let first = shake.advance(1.0 / 60.0);
        assert!(first.iter().any(|c| c.abs() > 1e-3), "{first:?}");
        assert!(first.iter().all(|c| c.abs() <= MOST_SHAKE));
        for _ in 0..120 {
            shake.advance(1.0 / 60.0);
        }
        assert_eq!(shake.offset(), [0.0; 3], "gone within two seconds");
    }
}
