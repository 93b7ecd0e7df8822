//! A world as a [`WorldSave`] and back (`crate::save` has the file).

use std::collections::BTreeSet;

use blockfall_engine::workers::WorkerPool;
use ultraviolet::Vec3;

use crate::input::{Input, ToolButton};
use crate::pieces::Pieces;
use crate::player::{Mode, Player};
use crate::save::{
    BlockColumns, SaveError, SavedInput, SavedPiece, SavedPlayer, SavedTool, WorldSave,
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
    /// together (a block in another's cell, a piece without a body, a value out of range), so
    /// that a loaded world is one the game could have made.
    pub fn from_save(save: WorldSave, pool: WorkerPool, radius: u32) -> Result<Self, SaveError> {
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
        let player = player_of(&save.player)?;
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
            splits: Vec::new(),
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

fn player_of(saved: &SavedPlayer) -> Result<Player, SaveError> {
    let finite = saved
        .feet
        .iter()
        .chain(&saved.velocity)
        .chain([&saved.yaw, &saved.pitch])
        .all(|value| value.is_finite());
    let limit = PITCH_LIMIT_DEGREES.to_radians();
    if !finite || !(0.0..=std::f32::consts::TAU).contains(&saved.yaw) || saved.pitch.abs() > limit {
        return Err(SaveError::Inconsistent(format!(
            "the player {saved:?} is not finite or looks beyond the view's limits"
        )));
    }
    let mut player = Player::new(saved.feet);
    player.velocity = Vec3::from(saved.velocity);
    player.grounded = saved.grounded;
    player.mode = if saved.flying { Mode::Fly } else { Mode::Walk };
    Ok(player)
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
