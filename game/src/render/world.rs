//! The default scene on screen: the [`World`] (ground, player, tool, and the chunks streamed
//! around the player's eyes, prepared on the workers), its chunks meshed into the engine's
//! arenas ([`ChunkMeshes`]) and drawn with the terrain material ([`TerrainRenderer`]). The
//! window and the headless run both drive it, a frame at a time:
//!
//! ```text
//!   step(dt, controls)        the player moves against the ground
//!   edit(action)              the tool digs or builds; the world's chunks it changed are
//!                             meshed again now, those near it lit again
//!   stream(frames, budget)    the world's far chunks out, its nearest missing ones in
//!   record(frames, target)    the terrain pass of the world's camera into the frame
//! ```
//!
//! Streaming and edits submit their own meshing work on the frame ring before the frame that
//! draws is begun, so a dig is in the very next frame drawn.

use blockfall_engine::gpu::{vk, FrameRing, Gpu, GpuError, ShaderLibrary};
use blockfall_engine::meshing::{TerrainMeshError, TerrainMeshes};
use blockfall_engine::workers::{WorkerError, WorkerPool};

use super::chunk_meshes::{terrain_meshes, ChunkMeshes};
use super::target::RenderTarget;
use super::terrain::{TerrainLook, TerrainRenderer};
use crate::camera::Marker;
use crate::player::Controls;
use crate::terrain::streaming::{EditReport, StreamReport};
use crate::terrain::EditError;
use crate::world::{ToolAction, World};

/// What can go wrong drawing the world.
#[derive(Debug, thiserror::Error)]
pub enum WorldRenderError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Meshing(#[from] TerrainMeshError),
    #[error("starting the worker threads: {0}")]
    Workers(#[from] WorkerError),
}

/// The world, its chunks' meshes and the renderer that draws them.
pub struct WorldRenderer {
    pub world: World,
    pool: WorkerPool,
    meshes: TerrainMeshes,
    renderer: TerrainRenderer,
    /// Whether the ground the tool would act on is marked (the window, while the mouse is
    /// captured); off by default, so headless pictures show the world alone.
    pub show_tool: bool,
}

impl WorldRenderer {
    /// The world of `seed` with `radius` chunks in view, drawn into targets of `colour_format`.
    /// Loads nothing yet: [`WorldRenderer::load_all`] or [`WorldRenderer::stream`] do.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        seed: u32,
        radius: u32,
    ) -> Result<Self, WorldRenderError> {
        let world = World::with_view_radius(seed, radius);
        let spawn = world.generator().spawn_point();
        let ground = world.generator().surface_height(spawn[0], spawn[2]);
        let renderer =
            TerrainRenderer::new(gpu, shaders, colour_format, TerrainLook::around(ground))?;
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Ok(Self {
            world,
            pool: WorkerPool::new(threads)?,
            meshes: terrain_meshes(&gpu.device, radius)?,
            renderer,
            show_tool: false,
        })
    }

    /// The arenas the world's chunks are meshed into.
    pub fn meshes(&self) -> &TerrainMeshes {
        &self.meshes
    }

    pub fn meshes_mut(&mut self) -> &mut TerrainMeshes {
        &mut self.meshes
    }

    pub fn renderer(&mut self) -> &mut TerrainRenderer {
        &mut self.renderer
    }

    pub fn pool(&self) -> &WorkerPool {
        &self.pool
    }

    /// Where the terrain is streamed around: the player's eyes.
    pub fn viewer(&self) -> [f32; 3] {
        self.world.eye().into()
    }

    /// Moves the player by one frame.
    pub fn step(&mut self, dt: f32, controls: &Controls) {
        self.world.step(dt, controls);
    }

    /// Loads every chunk within the view radius of the player (the start of a run); returns
    /// how many were loaded.
    pub fn load_all(&mut self, frames: &mut FrameRing) -> Result<usize, WorldRenderError> {
        let missing = self.world.chunks().missing(self.viewer());
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
        Ok(self.world.stream(&self.pool, &mut sink, budget)?)
    }

    /// The tool, held for `dt` seconds (`pressed`: just pressed), and the terrain brought up to
    /// date. An edit the ground refuses is logged and changes nothing.
    pub fn hold_tool(
        &mut self,
        frames: &mut FrameRing,
        action: ToolAction,
        dt: f32,
        pressed: bool,
    ) -> Result<EditReport, WorldRenderError> {
        let changed = self.world.hold_tool(action, dt, pressed);
        self.after_edit(frames, changed)
    }

    /// Digs or builds a sphere of `radius` around `centre`, and brings the terrain up to date.
    pub fn edit_at(
        &mut self,
        frames: &mut FrameRing,
        action: ToolAction,
        centre: [f32; 3],
        radius: f32,
    ) -> Result<EditReport, WorldRenderError> {
        let changed = self.world.edit_at(action, centre, radius);
        self.after_edit(frames, changed)
    }

    fn after_edit(
        &mut self,
        frames: &mut FrameRing,
        changed: Result<Option<crate::terrain::SampleBox>, EditError>,
    ) -> Result<EditReport, WorldRenderError> {
        match changed {
            Ok(Some(changed)) => {
                let mut sink = ChunkMeshes {
                    meshes: &mut self.meshes,
                    frames,
                };
                Ok(self.world.stream_edit(&self.pool, &mut sink, &changed)?)
            }
            Ok(None) => Ok(EditReport::default()),
            Err(error) => {
                log::warn!("the terrain tool: {error}");
                Ok(EditReport::default())
            }
        }
    }

    /// Records the terrain pass of the player's view into the frame being recorded.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
    ) -> Result<(), WorldRenderError> {
        let mut view = self.world.view(target.width, target.height);
        if self.show_tool {
            view.marker = self.world.aim().map(|centre| Marker {
                centre: centre.into(),
                radius: self.world.tool_radius,
            });
        }
        self.renderer
            .record(frames, target, &mut self.meshes, &view)?;
        Ok(())
    }
}
