//! What a run shows, for the window and the headless run alike: the world (the default) or the
//! renderer's test scene.

use anyhow::Context as _;
use blockfall_engine::gpu::{vk, FrameRing, Gpu};
use blockfall_engine::workers::WorkerPool;
use blockfall_game::render::test_scene::{RenderTarget, TestScene, TestSceneRenderer};
use blockfall_game::render::textures::TextureStyle;
use blockfall_game::render::world::WorldRenderer;
use blockfall_game::scene::Start;
use blockfall_game::world::World;

use crate::options::{RunOptions, SceneChoice};
use crate::refusal::{Refusal, WorldFile};
use crate::shaders::LIBRARY;

/// The scene a run draws.
pub enum Shown {
    /// The world around the player: streamed, lit, edited with the terrain tool.
    World(Box<WorldRenderer>),
    /// Cubes of every material on a stone slab.
    Test(Box<TestSceneRenderer>),
}

impl Shown {
    /// The scene `options` ask for, drawn into targets of `colour_format`, and where a
    /// script's clock starts (a save's, when the script starts from one).
    pub fn new(
        gpu: &mut Gpu,
        options: &RunOptions,
        colour_format: vk::Format,
    ) -> anyhow::Result<(Self, Start)> {
        Ok(match options.scene {
            SceneChoice::World => {
                let (world, start) = world_for(options)?;
                let mut renderer = WorldRenderer::new(gpu, &LIBRARY, colour_format, world)
                    .context("setting up the world's renderer")?;
                // The player's field of view; a script's world keeps the default view, as
                // `sim`'s does. It is the renderer's, so a world loaded later keeps it.
                if options.script.is_none() {
                    renderer.fov_degrees = options.fov_degrees;
                }
                (Self::World(Box::new(renderer)), start)
            }
            SceneChoice::Test => (
                Self::Test(Box::new(
                    TestSceneRenderer::new(gpu, &LIBRARY, colour_format, TextureStyle::Patterned)
                        .context("setting up the test scene")?,
                )),
                Start::default(),
            ),
        })
    }

    /// The world, when it is what is shown.
    pub fn world(&mut self) -> Option<&mut WorldRenderer> {
        match self {
            Self::World(world) => Some(world),
            Self::Test(_) => None,
        }
    }

    /// Records the scene's pass into the frame being recorded; the test scene at `time`.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        time: f32,
    ) -> anyhow::Result<()> {
        match self {
            Self::World(world) => world.record(frames, target)?,
            Self::Test(scene) => {
                let at = TestScene::at(time, target.width, target.height);
                scene.record(frames, target, &at)?;
            }
        }
        Ok(())
    }
}

/// The world a run starts with: the script's, the save of `--world`, or the generated world of
/// the seed with the showcase in front of the spawn; its physics and chunks on every core;
/// and where its clock starts. (The field of view is the renderer's: see [`Shown::new`].)
pub fn world_for(options: &RunOptions) -> anyhow::Result<(World, Start)> {
    let pool = WorkerPool::with_available_parallelism();
    match &options.script {
        Some(scene) => blockfall_game::scene::world_of(scene, pool, options.view_radius)
            .context("setting up the script's world"),
        None => {
            let (world, clock) = match &options.world {
                // `--world PATH`: the save when there is one (refused whole when it is bad, so
                // that nothing overwrites it), else, when nothing at all is there, a new world
                // that the window saves there; a path that cannot be read is refused.
                Some(path) if crate::refusal::world_file(path)? == WorldFile::Existing => {
                    crate::saves::load_world(path, pool, options.view_radius)
                        .map_err(|error| Refusal::of(&error))?
                }
                _ => (
                    World::generated(options.seed, options.view_radius, pool)
                        .context("setting up the world")?,
                    0.0,
                ),
            };
            Ok((
                world,
                Start {
                    clock,
                    ..Start::default()
                },
            ))
        }
    }
}
