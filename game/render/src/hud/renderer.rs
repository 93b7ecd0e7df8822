//! The HUD's renderer: egui's output drawn by our device through egui-ash-renderer, which the
//! engine drives (`gpu::EguiRenderer`: the drawing, the uploads with the queue locked, the drop);
//! what the HUD keeps here is when its textures and buffers may change.
//!
//! egui-ash-renderer manages its Vulkan objects itself and destroys them at once, so the HUD
//! adds what it lacks for frames in flight:
//!
//! * **Texture uploads** (`Renderer::set_texture`) record a one-time command buffer from our
//!   upload pool, submit it to the queue we pass and wait for the whole queue to idle
//!   (`vkQueueWaitIdle`). We pass the one queue with its lock held (no other thread submits
//!   meanwhile), after waiting for every submission so far: no frame still in flight samples a
//!   texture that is overwritten or replaced. Its submission signals nothing of ours, so the
//!   timeline is untouched; the frame being recorded is not submitted yet and runs after it.
//!   egui-ash-renderer's partial update starts from `UNDEFINED`, which allows the driver to
//!   discard the texture's old texels, so a partial delta (new glyphs in the font atlas) is
//!   applied to a CPU copy of the texture and uploaded whole. Uploads happen when egui adds
//!   glyphs or textures (the first frame, new characters), not every frame.
//! * **Freeing textures** (`textures_delta.free`): the ids are kept with the recording that
//!   reported them and freed once the timeline has passed that frame's submission.
//! * **Vertex and index buffers**: egui-ash-renderer keeps one pair per frame in flight and
//!   rewrites (or, when they grow, destroys and remakes) the next pair at every draw. The HUD
//!   remembers which recording last drew each pair and waits, if need be, for its submission
//!   before drawing with that pair again (normally `FrameRing::begin` has already waited; an
//!   abandoned frame or a frame without the HUD can shift the pairs against the ring's slots).
//! * **Dropping**: the engine's `EguiRenderer` hands egui-ash-renderer to the device's deferred
//!   destruction (`Device::retire_object`); it is dropped once no submission that may use it
//!   runs, even if a frame that recorded the HUD is still being recorded. So a drop never waits
//!   and is always safe.
//!
//! egui-ash-renderer's own objects (pipeline, textures, buffers) have no debug names; ours (the
//! upload command pool) has.

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, CommandPool, EguiRenderer, FrameRing, GpuError, Load, Retire, FRAMES_IN_FLIGHT,
};
use egui::{ColorImage, TextureId};

use super::super::target::RenderTarget;
use super::glyphs::add_glyphs;
use super::textures::LastUse;
use super::{lay_out, Hud, HudError, MenuClick, PASS_NAME};

/// Lays out and draws the [`Hud`] with egui (see the module's text for how it keeps
/// egui-ash-renderer's objects safe with frames in flight).
pub struct HudRenderer {
    pub(super) device: Arc<gpu::Device>,
    pub(super) context: egui::Context,
    /// egui's meshes drawn by the engine (`gpu::EguiRenderer`).
    pub(super) renderer: EguiRenderer,
    /// egui-ash-renderer's upload command buffers come from it (and are freed after each).
    pub(super) upload_pool: CommandPool,
    /// A CPU copy of each egui texture, so that partial updates can be uploaded whole.
    pub(super) images: HashMap<TextureId, Arc<ColorImage>>,
    /// The last use of each of egui-ash-renderer's vertex/index buffer pairs.
    pub(super) mesh_uses: [LastUse; FRAMES_IN_FLIGHT],
    /// egui-ash-renderer's draws so far (it takes pair `draws % FRAMES_IN_FLIGHT` next), or
    /// `None` after a failed draw, when which pair comes next is not known.
    pub(super) draws: Option<usize>,
    /// Textures egui freed, kept until the frames that may sample them have run
    /// (`gpu::Retire`: keyed to the recording that reported them, then to its submission).
    pub(super) pending_frees: Retire<Vec<TextureId>>,
    pub(super) last_recording: Option<u64>,
    pub(super) meshes_last_frame: usize,
    /// Whether the HUD's characters were put in egui's font atlas ([`add_glyphs`]).
    glyphs_added: bool,
}

impl HudRenderer {
    /// The egui context and the renderer, drawing into targets of `colour_format` (an `_SRGB`
    /// format gets linear output, which the target encodes; any other gets sRGB-encoded output).
    pub fn new(device: &Arc<gpu::Device>, colour_format: vk::Format) -> Result<Self, HudError> {
        let renderer = EguiRenderer::new(device, colour_format)?;
        let upload_pool = CommandPool::new(device, "hud: texture uploads")?;
        Ok(Self {
            device: device.clone(),
            context: egui::Context::default(),
            renderer,
            upload_pool,
            images: HashMap::new(),
            mesh_uses: [LastUse::Never; FRAMES_IN_FLIGHT],
            draws: Some(0),
            pending_frees: Retire::default(),
            last_recording: None,
            meshes_last_frame: 0,
            glyphs_added: false,
        })
    }

    /// The egui context (the window's `egui_winit::State` is made with it).
    pub fn context(&self) -> &egui::Context {
        &self.context
    }

    /// egui meshes drawn in the last frame (0: nothing to show).
    pub fn meshes_last_frame(&self) -> usize {
        self.meshes_last_frame
    }

    /// Lays out `hud` for this frame's `raw_input` and records the pass "hud" into the frame
    /// being recorded, over what `target` holds: call it between `FrameRing::begin` and
    /// `submit`, after the passes it draws over (which leave the target a colour attachment)
    /// and before the target's barrier to present or its readback; once per frame. The target
    /// is left a colour attachment. Uploads egui's new textures first (which waits for every
    /// earlier submission; rare). `raw_input` without `max_texture_side` gets the device's.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        mut raw_input: egui::RawInput,
        hud: &Hud,
    ) -> Result<Option<MenuClick>, HudError> {
        let recording = frames.recording().ok_or_else(|| {
            GpuError::Invalid("HudRenderer::record outside a frame (FrameRing::begin first)".into())
        })?;
        if self.last_recording == Some(recording) {
            return Err(GpuError::Invalid("HudRenderer::record twice in one frame".into()).into());
        }
        self.last_recording = Some(recording);
        self.settle(recording);
        self.free_finished()?;

        if raw_input.max_texture_side.is_none() {
            raw_input.max_texture_side =
                Some(self.device.adapter.limits.max_image_dimension2_d as usize);
        }
        // The HUD's scale is egui's zoom: the window's pointer (egui-winit) and the screen in
        // points below agree with it.
        let native = raw_input
            .viewport()
            .native_pixels_per_point
            .filter(|ppp| ppp.is_finite() && *ppp > 0.0)
            .unwrap_or(1.0);
        let scale = if hud.scale.is_finite() && hud.scale > 0.0 {
            hud.scale
        } else {
            1.0
        };
        self.context
            .options_mut(|options| options.zoom_factor = scale);
        raw_input.screen_rect = Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(target.width as f32, target.height as f32) / (native * scale),
        ));
        let first = !self.glyphs_added;
        let mut clicked = None;
        let output = self.context.run_ui(raw_input, |ui| {
            if first {
                add_glyphs(ui);
            }
            clicked = lay_out(ui, hud);
        });
        self.glyphs_added = true;
        let egui::FullOutput {
            mut textures_delta,
            shapes,
            pixels_per_point,
            ..
        } = output;
        // Taken at once, so that an error below drops no unapplied delta. What egui freed goes
        // once this frame has run (keyed to this recording, so the order here does not matter).
        let set = std::mem::take(&mut textures_delta.set);
        let freed: Vec<TextureId> = textures_delta.free.drain().collect();
        if !freed.is_empty() {
            for id in &freed {
                self.images.remove(id);
            }
            self.pending_frees.in_recording(recording, freed);
        }
        self.set_textures(set)?;
        let primitives = self.context.tessellate(shapes, pixels_per_point);

        self.draw(frames, &target, pixels_per_point, &primitives, recording)?;
        self.meshes_last_frame = primitives.len();
        Ok(clicked)
    }

    /// Records the rendering: colour loaded, egui's meshes drawn (none: only the pass).
    fn draw(
        &mut self,
        frames: &mut FrameRing,
        target: &RenderTarget,
        pixels_per_point: f32,
        primitives: &[egui::ClippedPrimitive],
        recording: u64,
    ) -> Result<(), HudError> {
        let meshes = !primitives.is_empty();
        if meshes {
            // The vertex/index pair egui-ash-renderer rewrites next must be out of use.
            match self.draws {
                Some(draws) => match self.mesh_uses[draws % FRAMES_IN_FLIGHT] {
                    LastUse::Submitted(value) => self.device.wait_for(value)?,
                    LastUse::Never => {}
                    LastUse::Recording(_) => {
                        return Err(GpuError::Invalid(
                            "HUD vertex buffers still in use by this frame".into(),
                        )
                        .into())
                    }
                },
                // After a failed draw: wait for every earlier frame.
                None => self.device.wait_for(self.device.last_submitted())?,
            }
        }
        let device = self.device.clone();
        // egui-ash-renderer's buffers are written by the host: no buffer reads to declare.
        let pass = frames
            .pass(PASS_NAME)
            .draws_into(target, Load::Keep)
            .draw(&device)?;
        let drawn = self.renderer.draw(
            &pass,
            vk::Extent2D {
                width: target.width,
                height: target.height,
            },
            pixels_per_point,
            primitives,
        );
        drop(pass);
        if meshes {
            match (&drawn, self.draws) {
                (Ok(()), Some(draws)) => {
                    self.mesh_uses[draws % FRAMES_IN_FLIGHT] = LastUse::Recording(recording);
                    self.draws = Some(draws + 1);
                }
                _ => {
                    self.mesh_uses = [LastUse::Recording(recording); FRAMES_IN_FLIGHT];
                    self.draws = None;
                }
            }
        }
        Ok(drawn?)
    }
}
