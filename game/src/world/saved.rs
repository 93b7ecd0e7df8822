//! A world as a [`WorldSave`] and back (`crate::save` has the file).

use std::collections::BTreeSet;

use blockfall_physics::bounded;
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{self as physics, shown};
use ultraviolet::Vec3;

use crate::input::{Input, ToolButton};
use crate::limits::{MOST_BLOCKS, MOST_EDITED_BRICKS, MOST_PIECES, MOST_PIECE_BLOCKS};
use crate::pieces::Pieces;
use crate::player::{Mode, Player, MOST_SPEED};
use crate::save::{
    BlockColumns, SaveError, SavedInput, SavedPiece, SavedPlayer, SavedTool, WorldSave,
    LONGEST_CLOCK,
};
use crate::support::Support;
use crate::terrain::streaming::ChunkStream;
use crate::terrain::{EditStore, Field};

use super::{Tool, ToolKind, World, PITCH_LIMIT_DEGREES, TOOL_REPEAT};

impl World {
    /// The world as a save, with the clock (seconds of play) and what `held` holds down.
    pub fn save(&self, clock: f64, held: &Input) -> WorldSave {
        let (pieces, physics) = self.pieces.state();
        WorldSave {
            clock,
            ground: self.ground.kind(),
            edits: self.field.edits().edited(),
            blocks: BlockColumns::of(&self.blocks),
            pieces: pieces
                .into_iter()
                .map(|(handle, blocks)| SavedPiece {
                    handle,
                    blocks: blocks.to_vec(),
                })
                .collect(),
            physics,
            player: SavedPlayer {
                feet: self.player.position.into(),
                velocity: self.player.velocity.into(),
                grounded: self.player.grounded,
                flying: self.player.mode == Mode::Fly,
                embodied: self.embodied,
                yaw: self.yaw,
                pitch: self.pitch,
            },
            tool: SavedTool {
                terrain: self.tool.kind == ToolKind::Terrain,
                material: self.tool.material as u8,
                size: self.tool.size,
                radius: self.tool.radius,
                wait: self.tool.wait,
            },
            held: SavedInput {
                controls: held.controls,
                tool: held
                    .tool
                    .map(|(button, pressed)| (button == ToolButton::Primary, pressed)),
                tool_released: held.tool_released,
            },
        }
    }

    /// The world of a save, its chunks streamed `radius` chunks around the player, its physics
    /// on `pool`. The support starts empty and learns each block's hold when it is first asked:
    /// its answers are a function of the blocks and the ground, so they are the same as if it had
    /// surveyed (and a load of a million blocks does not wait for the survey). Refuses a save that does not hold
    /// together ([`WorldSave::check`], then a block in another's cell, a piece without a body),
    /// so that a loaded world is one the game could have made.
    pub fn from_save(save: WorldSave, pool: WorkerPool, radius: u32) -> Result<Self, SaveError> {
        save.check()?;
        let bad = SaveError::Inconsistent;
        let ground = save
            .ground
            .ground()
            .ok_or_else(|| bad(format!("the ground {:?} is not finite", save.ground)))?;
        let edits = EditStore::with_edits(ground.clone(), save.edits).map_err(bad)?;
        let blocks = save.blocks.store().map_err(bad)?;
        let pieces = Pieces::restore(
            pool.clone(),
            save.pieces
                .into_iter()
                .map(|piece| (piece.handle, piece.blocks))
                .collect(),
            &save.physics,
        )
        .map_err(|error| bad(error.to_string()))?;
        let player = player_of(&save.player);
        let tool = tool_of(&save.tool)?;
        let mut world = World {
            field: Field::new(edits),
            ground,
            chunks: ChunkStream::new(radius.max(1)),
            blocks,
            support: Support::new(),
            pieces,
            pool,
            player,
            embodied: save.player.embodied,
            yaw: save.player.yaw,
            pitch: save.player.pitch,
            tool,
            aim: None,
            changed_regions: BTreeSet::new(),
            changed_ground: Vec::new(),
            splits: Vec::new(),
            lost: Vec::new(),
            lost_named: 0,
            tool_refusal: None,
            blows: Default::default(),
            stride: Default::default(),
            history: super::History::default(),
        };
        world.changed_regions = world
            .blocks
            .iter()
            .map(|(_, block)| super::region_of_block(block))
            .collect();
        world.update_aim();
        Ok(world)
    }
}

/// How far from the origin the player's feet may be saved, on any axis, in meters.
const FARTHEST: f32 = crate::player::FARTHEST;

/// How far past the player's speed limit a saved speed may be: the rounding of its own
/// scaling to the limit (f32), never a real overshoot.
const ROUNDING: f32 = 1e-6;

impl WorldSave {
    /// Whether this is a state the game could have left, so that a save we write is one we
    /// would load (docs/saves.md, "A save we would load"): the clock finite, not negative and
    /// under [`LONGEST_CLOCK`]; the player's feet within the world (±[`WORLD_METERS`] m), its
    /// velocity under [`player::MOST_SPEED`](crate::player::MOST_SPEED), its view within the
    /// view's limits; the tool in range; every piece's body as a step leaves it
    /// ([`BodyState::check`]: within the world, under the speed and spin limits, a unit
    /// orientation); the physics' time within a step. The error names the first bad value.
    /// The loader ([`WorldSave::decode`], [`World::from_save`]) refuses what fails it, and
    /// [`WorldSave::write`] writes nothing that fails it.
    ///
    /// [`BodyState::check`]: blockfall_physics::BodyState::check
    /// [`WORLD_METERS`]: crate::scene::WORLD_METERS
    pub fn check(&self) -> Result<(), SaveError> {
        let bad = |reason: String| Err(SaveError::Inconsistent(reason));
        let clock = self.clock;
        if !(clock.is_finite() && (0.0..=LONGEST_CLOCK).contains(&clock)) {
            return bad(format!(
                "the clock, {} s, is not between 0 and {LONGEST_CLOCK} s (a century)",
                shown(clock)
            ));
        }
        let player = &self.player;
        const AXES: [&str; 3] = ["x", "y", "z"];
        for (field, value) in [("feet", player.feet), ("velocity", player.velocity)] {
            if let Some(axis) = value.iter().position(|c| !c.is_finite()) {
                return bad(format!(
                    "the player's {field} {} = {} is not finite",
                    AXES[axis], value[axis]
                ));
            }
        }
        if let Some(axis) = player.feet.iter().position(|c| c.abs() > FARTHEST) {
            return bad(format!(
                "the player's feet {} = {} is outside the world (±{FARTHEST} m)",
                AXES[axis],
                shown(player.feet[axis])
            ));
        }
        // In f64: an f32 speed of 3e38 m/s on two axes is past f32's range.
        let speed = player
            .velocity
            .iter()
            .map(|&c| f64::from(c) * f64::from(c))
            .sum::<f64>()
            .sqrt();
        if speed > f64::from(MOST_SPEED) * (1.0 + f64::from(ROUNDING)) {
            let speed = match speed as f32 {
                fits if fits.is_finite() => shown(fits),
                _ => shown(speed),
            };
            return bad(format!(
                "the player's velocity {:?} is {speed} m/s, faster than the {MOST_SPEED} m/s \
                 the player may move",
                player.velocity.map(shown),
            ));
        }
        let limit = PITCH_LIMIT_DEGREES.to_radians();
        let yaw = player.yaw;
        if !(yaw.is_finite() && (0.0..=std::f32::consts::TAU).contains(&yaw)) {
            return bad(format!("the player's yaw, {yaw} radians, is not 0 to 2π"));
        }
        if !(player.pitch.is_finite() && player.pitch.abs() <= limit) {
            return bad(format!(
                "the player's pitch, {} radians, looks beyond the view's ±{PITCH_LIMIT_DEGREES}°",
                player.pitch
            ));
        }
        tool_of(&self.tool)?;
        self.check_limits()?;
        let time = self.physics.time;
        if !(time.is_finite() && (0.0..physics::STEP).contains(&time)) {
            return bad(format!(
                "the physics' time not yet stepped, {time} s, is not within a step"
            ));
        }
        for body in &self.physics.bodies {
            if let Err(reason) = body.check() {
                return bad(format!("piece {}'s {reason}", body.handle.index()));
            }
        }
        Ok(())
    }
}

impl WorldSave {
    /// Whether every count is within the world's limits (`crate::limits`): what the reader
    /// refuses as it reads, the writer refuses to write, so a failed save says so at once.
    fn check_limits(&self) -> Result<(), SaveError> {
        let piece_blocks: usize = self.pieces.iter().map(|piece| piece.blocks.len()).sum();
        let physics = &self.physics;
        let counts = [
            (
                self.edits.len(),
                MOST_EDITED_BRICKS,
                "edited bricks of the ground",
            ),
            (self.blocks.generations.len(), MOST_BLOCKS, "block slots"),
            (self.pieces.len(), MOST_PIECES, "pieces"),
            (piece_blocks, MOST_PIECE_BLOCKS, "blocks in pieces"),
            (
                physics.generations.len(),
                physics::MOST_BODIES,
                "body slots",
            ),
            (
                physics.contacts.len(),
                physics::MOST_CONTACT_IMPULSES,
                "contact pushes",
            ),
            (
                physics.manifolds.len(),
                physics::MOST_KEPT_MANIFOLDS,
                "kept manifolds",
            ),
        ];
        for (count, most, what) in counts {
            if count > most {
                return Err(SaveError::TooMuch(bounded::over_limit(count, what, most)));
            }
        }
        Ok(())
    }
}

impl SavedInput {
    /// Holds down in `input` what was held when the world was saved.
    pub fn hold(&self, input: &mut Input) {
        input.controls = self.controls;
        input.tool = self.tool.map(|(primary, pressed)| {
            let button = if primary {
                ToolButton::Primary
            } else {
                ToolButton::Secondary
            };
            (button, pressed)
        });
        input.tool_released = self.tool.is_some() && self.tool_released;
    }
}

fn player_of(saved: &SavedPlayer) -> Player {
    let mut player = Player::new(saved.feet);
    player.velocity = Vec3::from(saved.velocity);
    player.grounded = saved.grounded;
    player.mode = if saved.flying { Mode::Fly } else { Mode::Walk };
    player
}

fn tool_of(saved: &SavedTool) -> Result<Tool, SaveError> {
    let tool = Tool {
        kind: if saved.terrain {
            ToolKind::Terrain
        } else {
            ToolKind::Blocks
        },
        material: usize::from(saved.material),
        size: saved.size,
        radius: saved.radius,
        wait: saved.wait,
    };
    if !tool.in_range() || !(0.0..=TOOL_REPEAT).contains(&saved.wait) {
        return Err(SaveError::Inconsistent(format!(
            "the tool {saved:?} has a material, size, radius or wait out of range"
        )));
    }
    Ok(tool)
}
