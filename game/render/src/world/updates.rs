//! What the renderer does with what changed in the world between frames: the world's streaming
//! meshes its chunks into the renderer's arenas ([`WorldRenderer::chunk_sink`]); the block
//! regions over chunks meshed or lit anew are noted, to be lit again at the next sync; the
//! blocks' and pieces' meshes are brought up to date.

use blockfall_engine::gpu::{FrameRing, Gpu};

use super::{WorldRenderError, WorldRenderer};
use crate::chunk_meshes::ChunkMeshes;
use crate::structures::LitGround;
use blockfall_game::terrain::chunks::ChunkCoord;
use blockfall_game::world::World;

impl WorldRenderer {
    /// Where the world's streaming meshes its chunks (`World::stream`, `World::stream_edit`):
    /// the renderer's arenas, the meshing submitted on `frames` before the frame that draws
    /// is begun.
    pub fn chunk_sink<'a>(&'a mut self, frames: &'a mut FrameRing) -> ChunkMeshes<'a> {
        ChunkMeshes {
            meshes: &mut self.meshes,
            frames,
        }
    }

    /// Notes the chunks of `world` just meshed or loaded (a frame's streaming, an edit's
    /// meshing again): the block regions over them were lit before their ground's light was
    /// known, or with the ground as it was, and are meshed again at the next
    /// [`WorldRenderer::sync`]. A block region is as large as a chunk of full detail (64 cells
    /// of 0.5 m, 32 m) and aligned with it; coarser chunks light no block.
    pub fn chunks_meshed(&mut self, world: &World, chunks: &[ChunkCoord]) {
        for coord in chunks.iter().filter(|coord| coord.level == 0) {
            let region = [coord.x, coord.y, coord.z];
            if world.blocks().in_region(region).next().is_some() {
                self.relit_regions.push(region);
            }
        }
    }

    /// Brings the blocks' and pieces' meshes up to date with `world`: the block regions that
    /// changed (`changed`, from `World::take_changed_regions`) or whose chunks were meshed
    /// again meshed anew, lit and occluded by the blocks and the ground, new pieces uploaded,
    /// gone ones freed. Call it before the frame that draws them is begun (the uploads are
    /// submitted at once).
    pub fn sync(
        &mut self,
        gpu: &mut Gpu,
        world: &World,
        mut changed: Vec<[i32; 3]>,
    ) -> Result<(), WorldRenderError> {
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
}
