//! What the world's blows were, for whoever makes them seen, heard and felt (dust and chips,
//! impact sounds, a camera shake): a block broken, a piece striking the ground, a block or
//! another piece, a piece splitting, the ground dug or built, the player's steps and landing.
//! The world notes them as they happen ([`World::take_blows`]); noting them changes nothing of
//! the play, so traces and saves are the same with or without anyone listening.
//!
//! A strike is found from each moving piece's motion over a frame: the change of its velocity
//! beyond what gravity gave it, times its mass, is the impulse the contacts gave it (N·s). A
//! piece at rest or barely moving strikes nothing (its contacts only hold it up).

use std::collections::BTreeMap;

use blockfall_physics::BodyHandle;
use ultraviolet::Vec3;

use crate::blocks::materials::MATERIALS;
use crate::blocks::store::{Block, CELL};
use crate::player::Mode;

use super::World;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlowKind {
    /// A block was broken (by the tool or an event).
    Break,
    /// A moving piece struck something.
    Strike,
    /// A piece broke where it was struck.
    Split,
    /// The ground was dug.
    Dig,
    /// The ground was built.
    Build,
    /// The walking player's foot came down.
    Step,
    /// The player landed after a fall.
    Landing,
}

/// A blow: what, where (meters), of which material (`None`: the ground, soil), on what (the
/// struck surface's material: a block's, or `None` for the ground), and how hard (the impulse,
/// N·s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blow {
    pub kind: BlowKind,
    pub at: [f32; 3],
    pub material: Option<usize>,
    pub surface: Option<usize>,
    pub impulse: f32,
}

/// The speed (m/s) a piece must have had for a change of its velocity to be a strike.
pub const STRIKE_SPEED: f64 = 0.75;
/// The least impulse (N·s) that counts as a strike.
pub const LEAST_STRIKE: f64 = 5.0;
/// The speed (m/s) a break gives its block's blow: a tool's blow, not a fall.
pub const BREAK_SPEED: f32 = 3.0;
/// How far (meters) the walking player goes between steps.
pub const STRIDE: f32 = 0.7;
/// The speed (m/s) of a fall whose end is a landing, not a step.
pub const LANDING_SPEED: f32 = 3.0;
/// The player's mass for its steps and landing (kg).
pub const PLAYER_MASS: f32 = 75.0;
/// The most blows kept between two takes (the oldest go first): a world nobody listens to
/// keeps no more than this.
pub const MOST_BLOWS: usize = 4096;
/// Gravity's pull, m/s² (the pieces' physics uses the same).
const GRAVITY: f64 = 9.81;

/// A block's mass, kg: its material's density times its volume.
pub fn block_mass(block: &Block) -> f32 {
    let side = f32::from(block.size) * CELL;
    MATERIALS
        .get(usize::from(block.material))
        .map_or(0.0, |material| material.density * side * side * side)
}

/// The middle of a block, meters.
fn block_middle(block: &Block) -> [f32; 3] {
    let side = f32::from(block.size) * CELL;
    block.low().map(|c| c as f32 * CELL + side / 2.0)
}

/// What each moving piece was doing before a frame's step: its velocity and mass.
pub(super) type Motions = BTreeMap<BodyHandle, ([f64; 3], f64)>;

/// What the player was doing before a frame: where, falling how fast, on the ground or not.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Stride {
    /// Meters walked on the ground since the last step.
    pub walked: f32,
}

impl World {
    /// The blows since the last call, in the order they happened.
    pub fn take_blows(&mut self) -> Vec<Blow> {
        self.blows.drain(..).collect()
    }

    /// Notes a blow (the oldest goes when the world keeps [`MOST_BLOWS`]).
    pub(super) fn note_blow(&mut self, blow: Blow) {
        if !blow.at.iter().all(|c| c.is_finite()) || !blow.impulse.is_finite() {
            return;
        }
        if self.blows.len() >= MOST_BLOWS {
            self.blows.pop_front();
        }
        self.blows.push_back(blow);
    }

    /// A block broken: a blow of its material at its middle.
    pub(super) fn note_break(&mut self, block: &Block) {
        self.note_blow(Blow {
            kind: BlowKind::Break,
            at: block_middle(block),
            material: Some(usize::from(block.material)),
            surface: Some(usize::from(block.material)),
            impulse: block_mass(block) * BREAK_SPEED,
        });
    }

    /// The ground dug or built: a blow of soil at the sphere's centre, as hard as a sphere of
    /// earth of its radius moved at the tool's speed.
    pub(super) fn note_ground_edit(&mut self, dig: bool, centre: [f32; 3], radius: f32) {
        let earth = 1600.0 * 4.0 / 3.0 * std::f32::consts::PI * radius.powi(3);
        self.note_blow(Blow {
            kind: if dig { BlowKind::Dig } else { BlowKind::Build },
            at: centre,
            material: None,
            surface: None,
            impulse: earth * 0.5,
        });
    }

    /// The moving pieces' velocities and masses before a step.
    pub(super) fn motions(&self) -> Motions {
        self.pieces
            .iter()
            .filter(|(_, _, body)| !body.sleeping)
            .map(|(handle, _, body)| (handle, (body.velocity, body.mass)))
            .collect()
    }

    /// After a step of `dt` seconds: each piece that was moving and whose velocity changed
    /// beyond gravity's pull struck something; each split is a blow where its parts are.
    pub(super) fn note_strikes(&mut self, before: &Motions, dt: f64) {
        let mut strikes = Vec::new();
        for (handle, piece, body) in self.pieces.iter() {
            let Some(&(velocity, mass)) = before.get(&handle) else {
                continue;
            };
            let speed = velocity.iter().map(|v| v * v).sum::<f64>().sqrt();
            if speed < STRIKE_SPEED {
                continue;
            }
            let expected = [velocity[0], velocity[1] - GRAVITY * dt, velocity[2]];
            let change = (0..3)
                .map(|axis| (body.velocity[axis] - expected[axis]).powi(2))
                .sum::<f64>()
                .sqrt();
            let impulse = mass * change;
            if impulse < LEAST_STRIKE {
                continue;
            }
            // Where it struck: its lowest point, below its middle (most strikes are landings).
            let at = [
                body.position[0] as f32,
                (body.position[1] - body.radius * 0.5) as f32,
                body.position[2] as f32,
            ];
            strikes.push(Blow {
                kind: BlowKind::Strike,
                at,
                material: heaviest_material(&piece.blocks),
                surface: self.block_under(at),
                impulse: impulse as f32,
            });
        }
        let splits: Vec<Blow> = self
            .splits
            .iter()
            .filter_map(|split| {
                let part = *split.into.first()?;
                let (_, piece, body) = self.pieces.iter().find(|(h, _, _)| *h == part)?;
                let material = heaviest_material(&piece.blocks);
                Some(Blow {
                    kind: BlowKind::Split,
                    at: body.position.map(|c| c as f32),
                    material,
                    surface: material,
                    impulse: (body.mass * 2.0) as f32,
                })
            })
            .collect();
        for blow in strikes.into_iter().chain(splits) {
            self.note_blow(blow);
        }
    }

    /// After the player moved in a frame: a step every [`STRIDE`] walked on the ground, a
    /// landing when it came down from a fall of at least [`LANDING_SPEED`].
    pub(super) fn note_steps(&mut self, was_grounded: bool, fall_speed: f32, from: Vec3) {
        if !self.embodied || self.player.mode == Mode::Fly {
            return;
        }
        let feet: [f32; 3] = self.player.position.into();
        if self.player.grounded && !was_grounded && fall_speed >= LANDING_SPEED {
            self.stride.walked = 0.0;
            self.note_blow(Blow {
                kind: BlowKind::Landing,
                at: feet,
                material: None,
                surface: None,
                impulse: PLAYER_MASS * fall_speed,
            });
            return;
        }
        if !self.player.grounded {
            return;
        }
        let moved = self.player.position - from;
        let walked = Vec3::new(moved.x, 0.0, moved.z).mag();
        if !walked.is_finite() {
            return;
        }
        self.stride.walked += walked;
        if self.stride.walked >= STRIDE {
            self.stride.walked -= STRIDE * (self.stride.walked / STRIDE).floor();
            let speed = walked.max(0.0);
            self.note_blow(Blow {
                kind: BlowKind::Step,
                at: feet,
                material: None,
                surface: None,
                impulse: PLAYER_MASS * (1.0 + speed * 10.0),
            });
        }
    }
}

impl World {
    /// The material of the standing block just under `at` (within a quarter meter), if any:
    /// what a piece striking there struck (`None`: the ground, or another piece).
    fn block_under(&self, at: [f32; 3]) -> Option<usize> {
        let cell = |c: f32| (c / CELL).floor() as i32;
        let id = self
            .blocks
            .at(cell(at[0]), cell(at[1] - 0.25), cell(at[2]))?;
        self.blocks.get(id).map(|block| usize::from(block.material))
    }
}

/// The material most of a piece's mass is made of.
fn heaviest_material(blocks: &[Block]) -> Option<usize> {
    let mut by_material = [0.0f32; MATERIALS.len()];
    for block in blocks {
        if let Some(mass) = by_material.get_mut(usize::from(block.material)) {
            *mass += block_mass(block);
        }
    }
    by_material
        .iter()
        .enumerate()
        .filter(|(_, &mass)| mass > 0.0)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(material, _)| material)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use blockfall_physics::workers::WorkerPool;

    use super::*;
    use crate::blocks::materials::{COPPER, PLANKS};
    use crate::player::Controls;
    use crate::terrain::PlaneGround;

    fn world() -> World {
        let mut world = World::on(
            Arc::new(PlaneGround::flat(0.0)),
            1,
            WorkerPool::new(1).unwrap(),
        );
        world.place_player([20.0, 0.0, 20.0], true, 0.0, 0.0);
        world
    }

    /// The strikes of a 1 m cube of `material` let go with its bottom `height` meters up, over
    /// three seconds.
    fn strikes(material: usize, height: i32) -> Vec<Blow> {
        let mut world = world();
        let cube = Block::new(0, 2 * height, 0, 2, material as u8, 0, false).unwrap();
        world.add_piece(vec![cube]).unwrap();
        world.take_blows();
        for _ in 0..180 {
            world.step(1.0 / 60.0, &Controls::default());
        }
        world
            .take_blows()
            .into_iter()
            .filter(|blow| blow.kind == BlowKind::Strike)
            .collect()
    }

    #[test]
    fn a_cube_that_falls_farther_strikes_harder_in_its_material() {
        let high = strikes(COPPER, 4);
        let low = strikes(COPPER, 1);
        assert!(!high.is_empty() && !low.is_empty(), "{high:?} {low:?}");
        let hardest = |blows: &[Blow]| blows.iter().map(|b| b.impulse).fold(0.0, f32::max);
        assert!(hardest(&high) > 1.5 * hardest(&low), "{high:?} {low:?}");
        assert!(high.iter().all(|blow| blow.material == Some(COPPER)));
        // Where it landed: near the ground, under the cube.
        let first = high[0];
        assert!(
            first.at[1] < 1.0 && (first.at[0] - 0.5).abs() < 0.5,
            "{first:?}"
        );
        // A cube at rest on the ground strikes nothing.
        let mut world = world();
        let cube = Block::new(0, 0, 0, 2, PLANKS as u8, 0, false).unwrap();
        world.add_piece(vec![cube]).unwrap();
        for _ in 0..240 {
            world.step(1.0 / 60.0, &Controls::default());
        }
        world.take_blows();
        for _ in 0..60 {
            world.step(1.0 / 60.0, &Controls::default());
        }
        assert!(world.take_blows().is_empty(), "resting makes no blows");
    }

    #[test]
    fn a_break_and_a_dig_are_blows_where_they_were() {
        let mut world = world();
        let block = Block::new(4, 0, 4, 2, COPPER as u8, 0, false).unwrap();
        world.add_block(block).unwrap();
        world.take_blows();
        let (removed, _) = world.break_cell([4, 0, 4]);
        assert!(removed);
        let blows = world.take_blows();
        assert_eq!(blows.len(), 1, "{blows:?}");
        assert_eq!(blows[0].kind, BlowKind::Break);
        assert_eq!(blows[0].material, Some(COPPER));
        assert_eq!(blows[0].at, [2.5, 0.5, 2.5]);
        assert!(blows[0].impulse > 0.0);
        world.edit_sphere(true, [-6.0, 0.0, -6.0], 1.5).unwrap();
        let blows = world.take_blows();
        assert_eq!(blows.len(), 1, "{blows:?}");
        assert_eq!((blows[0].kind, blows[0].material), (BlowKind::Dig, None));
        assert!(world.take_blows().is_empty(), "taken once");
    }

    #[test]
    fn the_walking_player_steps_and_lands() {
        let mut world = World::on(
            Arc::new(PlaneGround::flat(0.0)),
            1,
            WorkerPool::new(1).unwrap(),
        );
        world.place_player([0.0, 3.0, 0.0], false, 0.0, 0.0);
        for _ in 0..120 {
            world.step(1.0 / 60.0, &Controls::default());
        }
        let landed = world.take_blows();
        assert!(
            landed.iter().any(|blow| blow.kind == BlowKind::Landing),
            "{landed:?}"
        );
        let forward = Controls {
            forward: true,
            ..Controls::default()
        };
        for _ in 0..120 {
            world.step(1.0 / 60.0, &forward);
        }
        let steps = world
            .take_blows()
            .into_iter()
            .filter(|blow| blow.kind == BlowKind::Step)
            .count();
        assert!(steps >= 2, "{steps} steps in two seconds of walking");
    }
}
