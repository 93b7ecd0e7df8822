//! What draws the world: its chunks meshed into the engine's arenas ([`ChunkMeshes`]) and drawn
//! with the terrain material ([`TerrainRenderer`]), then its blocks ([`BlocksRenderer`]), its
//! pieces ([`PiecesRenderer`]) and the block tool's markers ([`MarkersRenderer`]) into the same
//! picture, after the sun's shadow maps. It holds no [`World`]: whoever plays one (the
//! application) owns both side by side, and each frame hands the renderer what changed and a
//! read-only view of the world:
//!
//! ```text
//!   the world's frame            World::frame: input, tools, pieces, player; what it changed
//!   the world's streaming        World::stream / World::stream_edit into chunk_sink(frames):
//!                                chunks meshed; ground_remeshed / chunks_loaded note the block
//!                                regions over them to light again
//!   sync(gpu, world, regions)    the block regions that changed meshed again, new pieces'
//!                                meshes uploaded (before the frame is begun)
//!   record(frames, target, world) the shadow, terrain, blocks, pieces and markers passes
//! ```
//!
//! Streaming and edits submit their own meshing work on the frame ring before the frame that
//! draws is begun, so a dig is in the very next frame drawn.

mod updates;

use blockfall_engine::gpu::{vk, FrameRing, Gpu, GpuError, ShaderLibrary};
use blockfall_engine::meshing::{Mesher, TerrainMeshError, TerrainMeshes};
use blockfall_physics::workers::WorkerError;

use super::chunk_meshes::terrain_meshes;
use super::shadows::{Casters, ShadowMaps, Shadows};
use super::structures::blocks::BlocksRenderer;
use super::structures::markers::{MarkerView, MarkersRenderer};
use super::structures::pieces::PiecesRenderer;
use super::structures::BlockMaterials;
use super::target::RenderTarget;
use super::terrain::{TerrainLook, TerrainRenderer, DEBUG_SKY, WORLD_SKY};
use crate::particles::{ParticlesRenderer, DEFAULT_BUDGET};
use blockfall_game::camera::{Camera, Marker, FIELD_OF_VIEW_DEGREES};
use blockfall_game::world::{AimTarget, World};

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
    meshes: TerrainMeshes,
    /// The view radius `meshes`' arenas were sized for.
    meshes_radius: u32,
    renderer: TerrainRenderer,
    /// The sun's shadow maps, drawn before the other passes when [`WorldRenderer::shadows`]
    /// is not off.
    shadow_maps: ShadowMaps,
    blocks: BlocksRenderer,
    pieces: PiecesRenderer,
    markers: MarkersRenderer,
    /// The blows' dust and debris.
    particles: ParticlesRenderer,
    /// Seconds the particles move on in the next frame recorded (the world's frame time; 0
    /// while the world does not step).
    pub particles_step: f32,
    /// Whether the blocks were meshed once (the first [`WorldRenderer::sync`] meshes all).
    blocks_meshed: bool,
    /// Block regions to mesh again because the chunks under them were loaded (their light).
    relit_regions: Vec<[i32; 3]>,
    /// Whether the ground the tool would act on is marked (the window, while the mouse is
    /// captured); off by default, so headless pictures show the world alone.
    pub show_tool: bool,
    /// The view's vertical field of view, in degrees: the player's setting (`fov_degrees` in
    /// settings.ron), [`FIELD_OF_VIEW_DEGREES`] by default. A setting of whoever looks, not of
    /// the world, so it is kept here and outlives a world loaded in place of the last (F9, a
    /// scene's `load`).
    pub fov_degrees: f32,
    /// How far the eye is moved from the player's this frame (the camera's shake), meters.
    pub shake: [f32; 3],
    /// The sun's shadows and the blocks' occlusion: the player's setting (`shadows` in
    /// settings.ron), [`Shadows::High`] by default; kept, like the field of view, across worlds
    /// loaded in place of the last.
    pub shadows: Shadows,
}

impl WorldRenderer {
    /// Draws `world` into targets of `colour_format`. Meshes nothing yet: the world's
    /// streaming into [`WorldRenderer::chunk_sink`] does (the world's ground changed so far is
    /// in the chunks it loads, so its changed boxes are for the caller to forget).
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        world: &World,
    ) -> Result<Self, WorldRenderError> {
        let shadow_maps = ShadowMaps::new(gpu, shaders)?;
        let shadow_layout = Some(shadow_maps.set_layout());
        let renderer =
            TerrainRenderer::new(gpu, shaders, colour_format, look_of(world), shadow_layout)?;
        let materials = BlockMaterials::new(gpu)?;
        let radius = world.chunks().radius();
        Ok(Self {
            shadow_maps,
            meshes: terrain_meshes(&gpu.device, radius)?,
            meshes_radius: radius,
            renderer,
            blocks: BlocksRenderer::new(gpu, shaders, colour_format, &materials, shadow_layout)?,
            pieces: PiecesRenderer::new(gpu, shaders, colour_format, &materials, shadow_layout)?,
            markers: MarkersRenderer::new(gpu, shaders, colour_format)?,
            particles: ParticlesRenderer::new(
                gpu,
                shaders,
                colour_format,
                shadow_layout,
                DEFAULT_BUDGET,
            )?,
            particles_step: 0.0,
            blocks_meshed: false,
            relit_regions: Vec::new(),
            show_tool: false,
            fov_degrees: FIELD_OF_VIEW_DEGREES,
            shake: [0.0; 3],
            shadows: Shadows::default(),
        })
    }

    /// Draws `world` from scratch after it replaced the last (a scene's `load`, F9): waits for
    /// the frames in flight (they may read the old world's meshes), then forgets every mesh of
    /// the old world, with nothing of the new one loaded yet (its streaming loads it). The
    /// passes, their pipelines, textures and arenas are kept: a load compiles nothing, and a
    /// session of many loads costs no more than one (the soak's resident memory). The terrain's
    /// arenas are made anew only when the new world streams a different radius. `show_tool`,
    /// the field of view and the wireframe stay as they were. The new world is to mesh its
    /// chunks with [`WorldRenderer::mesher`].
    pub fn renew(
        &mut self,
        gpu: &mut Gpu,
        frames: &mut FrameRing,
        world: &World,
    ) -> Result<(), WorldRenderError> {
        frames.wait_all()?;
        let radius = world.chunks().radius();
        if radius == self.meshes_radius {
            self.meshes.unload_all();
        } else {
            let mesher = self.meshes.mesher();
            self.meshes = terrain_meshes(&gpu.device, radius)?;
            self.meshes.set_mesher(mesher);
            self.meshes_radius = radius;
        }
        self.renderer.set_look(look_of(world));
        self.blocks.forget_all();
        self.pieces.forget_all();
        self.markers.forget_all();
        self.blocks_meshed = false;
        self.relit_regions.clear();
        Ok(())
    }

    /// The mesher the terrain's chunks are meshed with.
    pub fn mesher(&self) -> Mesher {
        self.meshes.mesher()
    }

    /// Meshes the terrain with `mesher` from now on (the world is to stream its chunks again
    /// with it: `World::set_terrain_mesher`). The same mesher again changes nothing.
    pub fn set_mesher(&mut self, mesher: Mesher) {
        self.meshes.set_mesher(mesher);
    }

    /// Whether the sky is cleared to magenta ([`DEBUG_SKY`]) instead of its colour, the fog
    /// keeping the sky's: holes in the terrain stand out (`--debug-sky`).
    pub fn set_debug_sky(&mut self, on: bool) {
        self.renderer
            .set_clear_colour(if on { DEBUG_SKY } else { WORLD_SKY });
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

    /// `world`'s camera for a `width`×`height` image, with this renderer's field of view,
    /// the eye moved by [`WorldRenderer::shake`].
    pub fn view(&self, world: &World, width: u32, height: u32) -> Camera {
        if self.shake == [0.0; 3] || !self.shake.iter().all(|c| c.is_finite()) {
            return world.view(width, height, self.fov_degrees);
        }
        Camera::looking_within(
            world.eye() + ultraviolet::Vec3::from(self.shake),
            world.look_direction(),
            width,
            height,
            world.chunks().radius(),
            self.fov_degrees,
        )
    }

    /// Terrain draw calls recorded in the last frame (1 where the GPU culls).
    pub fn terrain_draws(&self) -> u32 {
        self.renderer.draws_last_frame()
    }

    /// Terrain chunks drawn (`TerrainRenderer::chunks_drawn`: where the GPU culls, counted
    /// there and read back two frames later).
    pub fn terrain_chunks_drawn(&self) -> u32 {
        self.renderer.chunks_drawn()
    }

    /// The blocks' renderer (draw counts, resident regions).
    pub fn blocks(&self) -> &BlocksRenderer {
        &self.blocks
    }

    /// The pieces' renderer (draw counts, resident pieces).
    pub fn pieces(&self) -> &PiecesRenderer {
        &self.pieces
    }

    /// The sun's shadow maps (triangles drawn, the atlas's memory).
    pub fn shadow_maps(&self) -> &ShadowMaps {
        &self.shadow_maps
    }

    /// The blows' dust and debris (their budget, the live count; [`ParticlesRenderer::emit`]).
    pub fn particles(&mut self) -> &mut ParticlesRenderer {
        &mut self.particles
    }

    /// Particles alive now ([`ParticlesRenderer::live`]).
    pub fn particles_live(&self) -> u32 {
        self.particles.live()
    }

    /// The particles' budget.
    pub fn particles_budget(&self) -> u32 {
        self.particles.budget()
    }

    /// The markers' renderer.
    pub fn markers(&self) -> &MarkersRenderer {
        &self.markers
    }

    /// Records the passes of `world` seen from the player's eyes into the frame being
    /// recorded: the sun's shadow maps, the terrain, the blocks, the pieces and the markers.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        world: &World,
    ) -> Result<(), WorldRenderError> {
        let mut view = self.view(world, target.width, target.height);
        // The particles move on first: a compute pass, before the frame's draws.
        let step = std::mem::take(&mut self.particles_step);
        self.particles.record_update(frames, step)?;
        if self.show_tool {
            view.marker = world.ground_aim().map(|centre| Marker {
                centre: centre.into(),
                radius: world.tool().radius,
            });
        }
        // The wireframe shows the meshes alone: no shadows drawn for it.
        let quality = if self.renderer.wireframe() {
            Shadows::Off
        } else {
            self.shadows
        };
        let chunks = world.chunks();
        let shadows = self.shadow_maps.record(
            frames,
            quality,
            &view,
            Casters {
                terrain: &self.meshes,
                dark: &|coord| chunks.is_dark(coord),
                blocks: &self.blocks,
                pieces: &self.pieces,
                world_pieces: world.pieces(),
            },
        )?;
        self.renderer
            .record(frames, target, &mut self.meshes, &view, shadows)?;
        let Some(depth) = self.renderer.depth() else {
            return Ok(());
        };
        self.blocks.record(frames, target, depth, &view, shadows)?;
        self.pieces
            .record(frames, target, depth, &view, world.pieces(), shadows)?;
        let markers = if self.show_tool {
            marker_view(world)
        } else {
            MarkerView::default()
        };
        self.markers
            .record(frames, target, depth, &view, world.blocks(), &markers)?;
        self.particles
            .record_draw(frames, target, depth, &view, shadows)?;
        Ok(())
    }
}

/// The block tool's markers for what `world`'s view aims at: the ghost of the block to place,
/// the aimed block's outline and the tint over what would fall with it.
pub fn marker_view(world: &World) -> MarkerView {
    let Some(aim) = world.aim() else {
        return MarkerView::default();
    };
    MarkerView {
        ghost: aim.placement.map(|p| (p.block, p.fits())),
        outline: match aim.target {
            AimTarget::Block { block, .. } => Some(block),
            _ => None,
        },
        tint: aim.would_fall.clone(),
    }
}

/// The terrain's look for `world`: its layers placed around the ground under the player.
fn look_of(world: &World) -> TerrainLook {
    let feet = world.player().position;
    let ground = world.ground().surface_height(feet.x, feet.z);
    TerrainLook::around(if ground.is_finite() { ground } else { feet.y })
}
