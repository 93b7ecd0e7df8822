//! What a run shows, for the window and the headless run alike: the world (the default) or the
//! renderer's test scene.

use anyhow::Context as _;
use blockfall_engine::gpu::{vk, FrameRing, Gpu};
use blockfall_game::scene::Start;
use blockfall_game::world::World;
use blockfall_game_render::chunk_meshes::{arenas_for, largest_view_radius};
use blockfall_game_render::target::RenderTarget;
use blockfall_game_render::test_scene::{TestScene, TestSceneRenderer};
use blockfall_game_render::textures::TextureStyle;
use blockfall_physics::workers::WorkerPool;

use crate::options::{RunOptions, SceneChoice};
use crate::playing::Playing;
use crate::refusal::{Refusal, WorldFile};
use crate::shaders::LIBRARY;

/// The scene a run draws.
pub enum Shown {
    /// The world around the player: streamed, lit, edited with the terrain tool.
    World(Box<Playing>),
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
                let fitted;
                let options = match fitted_view_radius(gpu, options)? {
                    radius if radius == options.view_radius => options,
                    radius => {
                        fitted = RunOptions {
                            view_radius: radius,
                            ..options.clone()
                        };
                        &fitted
                    }
                };
                let (world, start) = world_for(options)?;
                let mut playing = Playing::new(gpu, &LIBRARY, colour_format, world)
                    .context("setting up the world's renderer")?;
                // The player's field of view, mesher and shadows; a script's world keeps the
                // default view, as `sim`'s does, unless `--settings` names a file (then it
                // draws as the file says) or `--shadows` is given. They are the renderer's, so
                // a world loaded later keeps them.
                let settings_read = options.settings_file.is_some();
                if options.script.is_none() || settings_read {
                    playing.renderer.fov_degrees = options.fov_degrees;
                    playing.set_mesher(options.mesher);
                }
                playing.renderer.set_debug_sky(options.debug_sky);
                playing
                    .renderer
                    .particles()
                    .set_budget(options.settings.particles)
                    .context("the particles' budget")?;
                if options.script.is_none() || settings_read || options.shadows_given {
                    playing.renderer.shadows = options.shadows;
                }
                (Self::World(Box::new(playing)), start)
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
    pub fn world(&mut self) -> Option<&mut Playing> {
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

/// The largest view radius this device can show (the menu's Settings stop there).
pub fn most_view_radius(gpu: &Gpu) -> u32 {
    let limit = u64::from(gpu.device.adapter.limits.max_storage_buffer_range);
    largest_view_radius(limit, *blockfall_game::settings::VIEW_RADIUS_RANGE.end())
}

/// The view radius the run gets on this device: the terrain's arenas grow with the radius
/// (`arenas_for`), and each must fit one storage buffer (`maxStorageBufferRange`, 128 MiB on
/// lavapipe, which holds every radius up to 32). A radius from the settings or the default
/// that does not fit is lowered to the largest that does, with a warning naming both; one
/// given with `--view-radius` is refused (bad input, exit 2), naming the flag and the
/// device's limit.
fn fitted_view_radius(gpu: &Gpu, options: &RunOptions) -> anyhow::Result<u32> {
    let limit = u64::from(gpu.device.adapter.limits.max_storage_buffer_range);
    let (radius, warning) = fit_view_radius(options.view_radius, options.view_radius_given, limit)?;
    if let Some(warning) = warning {
        eprintln!("warning: {warning}");
    }
    Ok(radius)
}

/// [`fitted_view_radius`]'s rule for a device whose storage buffers hold `limit` bytes: the
/// radius to use and the warning to give, or the refusal of a `--view-radius` (`given`).
fn fit_view_radius(wanted: u32, given: bool, limit: u64) -> Result<(u32, Option<String>), Refusal> {
    let Some((what, bytes)) = arenas_for(wanted).too_large_for(limit) else {
        return Ok((wanted, None));
    };
    let largest = largest_view_radius(limit, wanted);
    let why = format!(
        "its terrain {what} would take {bytes} bytes, and this device's storage buffers hold at \
         most {limit} bytes"
    );
    if given {
        return Err(Refusal::new(format!(
            "--view-radius {wanted} is more than this device can show ({why}): at most {largest}"
        )));
    }
    Ok((
        largest,
        Some(format!(
            "a view radius of {wanted} chunks is more than this device can show ({why}); using \
             {largest}"
        )),
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Vulkan's least `maxStorageBufferRange` (2²⁷ bytes), lavapipe's.
    const LEAST_RANGE: u64 = 1 << 27;

    #[test]
    fn a_view_radius_the_device_cannot_hold_is_lowered_from_settings_and_refused_from_the_flag() {
        // With levels of detail lavapipe's 128 MiB holds the whole range.
        assert_eq!(fit_view_radius(32, true, LEAST_RANGE), Ok((32, None)));
        assert_eq!(fit_view_radius(4, false, LEAST_RANGE), Ok((4, None)));
        // A device whose storage buffers hold the arenas of a radius of 12 and no more.
        let limit = arenas_for(12).vertex_arena_bytes;
        let most = largest_view_radius(limit, 32);
        assert!((12..32).contains(&most), "{most}");
        assert_eq!(fit_view_radius(most, true, limit), Ok((most, None)));
        let (radius, warning) = fit_view_radius(32, false, limit).expect("lowered");
        assert_eq!(radius, most);
        let warning = warning.expect("a warning");
        assert!(warning.contains("view radius of 32"), "{warning}");
        assert!(warning.contains(&format!("{limit} bytes")), "{warning}");
        assert!(warning.contains(&format!("using {most}")), "{warning}");
        let refusal = fit_view_radius(most + 1, true, limit).expect_err("refused");
        assert!(
            refusal.0.contains(&format!("--view-radius {}", most + 1)),
            "{refusal}"
        );
        assert!(refusal.0.contains(&format!("at most {most}")), "{refusal}");
        // A desktop GPU's 4 GiB buffers hold the flag's whole range.
        assert_eq!(
            fit_view_radius(32, true, u64::from(u32::MAX)),
            Ok((32, None))
        );
    }
}
