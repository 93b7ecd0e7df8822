//! The world at play beside what draws it. The application owns both side by side: the world
//! ([`World`]: the rules, the ground streamed, the blocks, pieces and player) knows nothing of
//! the GPU, and the renderer ([`WorldRenderer`]) holds no world, only what it drew of it. A
//! frame hands the renderer what the world changed and a read-only view of it, top to bottom:
//!
//! ```text
//!   input    the window's events or a script's events and held keys    (play)
//!   play     World::frame: the view, the tools, the pieces, the player;
//!            the ground an edit changed meshed again at once            Playing::frame
//!   stream   World::stream into the renderer's arenas: far chunks out,
//!            the nearest missing ones in                                Playing::stream
//!   sync     the block regions that changed meshed again, the pieces'
//!            meshes uploaded                                            Playing::sync
//!   record   shadows, terrain, blocks, pieces, markers                  Playing::record
//!   submit   the frame presented or read back                           (frame)
//! ```

use blockfall_engine::gpu::{vk, FrameRing, Gpu, ShaderLibrary};
use blockfall_engine::meshing::Mesher;
use blockfall_game::camera::Camera;
use blockfall_game::input::{Command, Input};
use blockfall_game::terrain::streaming::{EditReport, StreamReport};
use blockfall_game::terrain::SampleBox;
use blockfall_game::world::{FrameReport, World};
use blockfall_game_render::target::RenderTarget;
use blockfall_game_render::world::{WorldRenderError, WorldRenderer};

/// A world and what draws it.
pub struct Playing {
    pub world: World,
    pub renderer: WorldRenderer,
}

impl Playing {
    /// `world` drawn into targets of `colour_format`. Nothing is loaded yet: its streaming
    /// ([`Playing::load_all`], [`Playing::stream`]) loads it, each chunk meshed from the
    /// ground as edited so far.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        mut world: World,
    ) -> Result<Self, WorldRenderError> {
        world.take_changed_ground();
        let renderer = WorldRenderer::new(gpu, shaders, colour_format, &world)?;
        Ok(Self { world, renderer })
    }

    /// Draws [`Playing::world`] from scratch after it was replaced (a scene's `load`, F9): the
    /// old world's meshes forgotten, the new one's chunks meshed with the renderer's mesher
    /// from the ground as edited so far as they stream in ([`WorldRenderer::renew`]).
    pub fn renew(&mut self, gpu: &mut Gpu, frames: &mut FrameRing) -> anyhow::Result<()> {
        self.world.set_terrain_mesher(self.renderer.mesher());
        self.world.take_changed_ground();
        self.renderer.renew(gpu, frames, &self.world)?;
        Ok(())
    }

    /// Meshes the terrain with `mesher` from now on: every resident chunk meshed again, nearest
    /// the player first, a frame's streaming budget at a time, each drawn as it was until its
    /// new mesh replaces it. The same mesher again changes nothing. Collision does not change:
    /// it asks the density field, not the meshes.
    pub fn set_mesher(&mut self, mesher: Mesher) {
        self.renderer.set_mesher(mesher);
        self.world.set_terrain_mesher(mesher);
    }

    /// The world's frame driven by `input` and this frame's `commands` ([`World::frame`]); the
    /// ground a dig or build changed is meshed again at once, so it is in the next frame drawn.
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
            self.remesh(frames, changed)?;
        }
        Ok(report)
    }

    /// The chunks whose samples in `changed` an edit changed, meshed again; those near it lit
    /// again; the block regions over them lit again at the next sync.
    pub fn remesh(
        &mut self,
        frames: &mut FrameRing,
        changed: &SampleBox,
    ) -> Result<EditReport, WorldRenderError> {
        let report = self
            .world
            .stream_edit(&mut self.renderer.chunk_sink(frames), changed)?;
        self.renderer.chunks_meshed(&self.world, &report.remeshed);
        Ok(report)
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
        if let Err(error) = self.world.edit_at(dig, centre, radius) {
            log::warn!("the terrain tool: {error}");
            return Ok(EditReport::default());
        }
        // This edit's box, and any the world noted before it and nobody meshed yet.
        let mut report = EditReport::default();
        for changed in self.world.take_changed_ground() {
            let edit = self.remesh(frames, &changed)?;
            report.remeshed.extend(edit.remeshed);
            report.relit.extend(edit.relit);
        }
        Ok(report)
    }

    /// One frame's streaming around the player: at most `budget` chunks loaded.
    pub fn stream(
        &mut self,
        frames: &mut FrameRing,
        budget: usize,
    ) -> Result<StreamReport, WorldRenderError> {
        let report = self
            .world
            .stream(&mut self.renderer.chunk_sink(frames), budget)?;
        self.renderer.chunks_meshed(&self.world, &report.loaded);
        Ok(report)
    }

    /// Loads every chunk within the view radius of the player (the start of a run); returns
    /// how many were loaded.
    pub fn load_all(&mut self, frames: &mut FrameRing) -> Result<usize, WorldRenderError> {
        let missing = self.world.chunks().missing(self.viewer());
        Ok(self.stream(frames, missing)?.loaded.len())
    }

    /// Loads every chunk of full detail within 4 chunks (128 m) of the player that is not
    /// loaded yet, and the chunks before them in the load order (none: they come first): the
    /// near view, which a start shows first. Returns how many loaded.
    pub fn load_near(&mut self, frames: &mut FrameRing) -> Result<usize, WorldRenderError> {
        let missing = self.world.chunks().missing_near(self.viewer());
        Ok(self.stream(frames, missing)?.loaded.len())
    }

    /// Brings the blocks' and pieces' meshes up to date with the world (before the frame that
    /// draws them is begun: the uploads are submitted at once).
    pub fn sync(&mut self, gpu: &mut Gpu) -> Result<(), WorldRenderError> {
        let changed = self.world.take_changed_regions().into_iter().collect();
        self.renderer.sync(gpu, &self.world, changed)
    }

    /// Records the world's passes into the frame being recorded.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
    ) -> Result<(), WorldRenderError> {
        self.renderer.record(frames, target, &self.world)
    }

    /// The world's camera for a `width`×`height` image, with the renderer's field of view.
    pub fn view(&self, width: u32, height: u32) -> Camera {
        self.renderer.view(&self.world, width, height)
    }

    /// Where the terrain is streamed around: the player's eyes.
    pub fn viewer(&self) -> [f32; 3] {
        self.world.eye().into()
    }
}
