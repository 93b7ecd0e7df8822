//! What changes the world on screen between frames: the world's frame (its edits meshed at
//! once), streaming, the blocks' and pieces' meshes brought up to date, the terrain tool's
//! edits.

use blockfall_engine::gpu::{FrameRing, Gpu};

use super::{WorldRenderError, WorldRenderer};
use crate::chunk_meshes::ChunkMeshes;
use crate::structures::LitGround;
use blockfall_game::input::{Command, Input};
use blockfall_game::terrain::streaming::{EditReport, StreamReport};
use blockfall_game::terrain::SampleBox;
use blockfall_game::world::FrameReport;

impl WorldRenderer {
    /// One frame of the world driven by `input` and this frame's `commands` (see
    /// [`World::frame`]); a dig or build is meshed at once, so it is in the next frame drawn.
    /// Returns the world's report (the commands it leaves to the caller among them).
    pub fn frame(
        &mut self,
        frames: &mut FrameRing,
        dt: f32,
        input: &mut Input,
        commands: &[Command],
    ) -> Result<FrameReport, WorldRenderError> {
        let report = self.world.frame(dt, input, commands);
        for changed in &report.ground_changed {
            self.after_edit(frames, Some(changed))?;
        }
        Ok(report)
    }

    /// Loads every chunk within the view radius of the player (the start of a run); returns
    /// how many were loaded.
    pub fn load_all(&mut self, frames: &mut FrameRing) -> Result<usize, WorldRenderError> {
        let missing = self.world.chunks().missing(self.viewer());
        let report = self.stream(frames, missing)?;
        Ok(report.loaded.len())
    }

    /// Loads every chunk of full detail within 4 chunks (128 m) of the player that is not
    /// loaded yet, and the chunks before them in the load order (none: they come first):
    /// the near view, which a start shows first. Returns how many loaded.
    pub fn load_near(&mut self, frames: &mut FrameRing) -> Result<usize, WorldRenderError> {
        let missing = self.world.chunks().missing_near(self.viewer());
        let report = self.stream(frames, missing)?;
        Ok(report.loaded.len())
    }

    /// One frame's streaming around the player: at most `budget` chunks loaded.
    pub fn stream(
        &mut self,
        frames: &mut FrameRing,
        budget: usize,
    ) -> Result<StreamReport, WorldRenderError> {
        let mut sink = ChunkMeshes {
            meshes: &mut self.meshes,
            frames,
        };
        let report = self.world.stream(&mut sink, budget)?;
        // Blocks over a chunk that just came in were lit before its light was known. A block
        // region is as large as a chunk of full detail (64 cells of 0.5 m, 32 m) and aligned
        // with it; coarser chunks light no block.
        for coord in report.loaded.iter().filter(|coord| coord.level == 0) {
            let region = [coord.x, coord.y, coord.z];
            if self.world.blocks().in_region(region).next().is_some() {
                self.relit_regions.push(region);
            }
        }
        Ok(report)
    }

    /// Brings the blocks' and pieces' meshes up to date with the world: the regions that
    /// changed (or whose light came in, or whose ground an edit changed) meshed again, lit and
    /// occluded by the blocks and the ground, new pieces uploaded, gone ones freed. Call it
    /// before the frame that draws them is begun (the uploads are submitted at once).
    pub fn sync(&mut self, gpu: &mut Gpu) -> Result<(), WorldRenderError> {
        let mut changed: Vec<[i32; 3]> = self.world.take_changed_regions().into_iter().collect();
        let world = &self.world;
        // Many points at once: chunks without a kept light grid are lit once, not per vertex.
        let sampler = world.light_sampler();
        let light = |point: [f32; 3]| sampler.light_at(point);
        let grounds = world.ground_sampler();
        let ground = |point: [f32; 3]| grounds.inside(point);
        let around = LitGround {
            light: &light,
            ground: &ground,
        };
        if !self.blocks_meshed {
            self.blocks.rebuild_all(gpu, world.blocks(), &around)?;
            self.blocks_meshed = true;
        } else {
            changed.append(&mut self.relit_regions);
            if !changed.is_empty() {
                self.blocks.update(gpu, world.blocks(), changed, &around)?;
            }
        }
        self.relit_regions.clear();
        self.pieces.update(gpu, world.pieces(), &light)?;
        Ok(())
    }

    /// Digs or builds a sphere of `radius` around `centre`, and brings the terrain up to date.
    /// An edit the ground refuses is logged and changes nothing.
    pub fn edit_at(
        &mut self,
        frames: &mut FrameRing,
        dig: bool,
        centre: [f32; 3],
        radius: f32,
    ) -> Result<EditReport, WorldRenderError> {
        match self.world.edit_at(dig, centre, radius) {
            Ok(_) => {
                // This edit's box, and any the world noted before it and nobody meshed yet.
                let mut report = EditReport::default();
                for changed in self.world.take_changed_ground() {
                    let edit = self.after_edit(frames, Some(&changed))?;
                    report.remeshed.extend(edit.remeshed);
                    report.relit.extend(edit.relit);
                }
                Ok(report)
            }
            Err(error) => {
                log::warn!("the terrain tool: {error}");
                Ok(EditReport::default())
            }
        }
    }

    /// The chunks an edit changed meshed again, those near it lit again; the block regions over
    /// the chunks whose ground changed meshed again at the next sync (their occlusion by the
    /// ground, and their light).
    fn after_edit(
        &mut self,
        frames: &mut FrameRing,
        changed: Option<&SampleBox>,
    ) -> Result<EditReport, WorldRenderError> {
        let Some(changed) = changed else {
            return Ok(EditReport::default());
        };
        let mut sink = ChunkMeshes {
            meshes: &mut self.meshes,
            frames,
        };
        let report = self.world.stream_edit(&mut sink, changed)?;
        // A block region is as large as a chunk of full detail and aligned with it.
        for coord in report.remeshed.iter().filter(|coord| coord.level == 0) {
            let region = [coord.x, coord.y, coord.z];
            if self.world.blocks().in_region(region).next().is_some() {
                self.relit_regions.push(region);
            }
        }
        Ok(report)
    }
}
