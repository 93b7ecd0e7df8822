//! The HUD: text on a dark translucent panel in the top-left corner, laid out by egui and drawn
//! by our device through egui-ash-renderer, in a pass of its own ("hud", labelled and timed)
//! over what the frame drew before.
//!
//! ```text
//!   FrameRing::begin ─ world passes ─ HudRenderer::record ─ barrier → Present / readback ─ submit
//!                                       │ egui: lay out [`Hud`] (RawInput: egui-winit's, or
//!                                       │   [`HudRenderer::raw_input`] headless)
//!                                       │ textures egui set: uploaded now (see below)
//!                                       │ textures egui freed: kept until this frame has run
//!                                       └ pass "hud": colour LOAD, no depth, egui's draws
//! ```
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
//! * **Dropping**: the egui renderer is handed to the device's deferred destruction
//!   (`Device::retire_object`) and dropped once no submission that may use it runs, even if a
//!   frame that recorded the HUD is still being recorded. So a drop never waits and is always
//!   safe.
//!
//! egui-ash-renderer's own objects (pipeline, textures, buffers) have no debug names; ours (the
//! upload command pool) has.

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::conv::is_srgb;
use blockfall_engine::gpu::{self, CommandPool, FrameRing, GpuError, FRAMES_IN_FLIGHT};
use egui::epaint::{ImageData, ImageDelta};
use egui::{Color32, ColorImage, FontId, RichText, TextureId};
use egui_ash_renderer::allocator::GpuAllocator;
use egui_ash_renderer::{DynamicRendering, Options, RenderMode, Renderer, RendererError};

use super::target::{begin_colour_load, RenderTarget};

/// The name of the frame pass (label and timing).
pub const PASS_NAME: &str = "hud";
/// Text size in points (pixels at a scale of 1).
pub const TEXT_SIZE: f32 = 14.0;
/// The panel behind the text: near black, mostly opaque (premultiplied, as egui paints).
pub const PANEL: Color32 = Color32::from_rgba_premultiplied(6, 8, 12, 215);
/// The main lines.
pub const TEXT: Color32 = Color32::from_rgb(235, 235, 230);
/// The detail lines, a little dimmer.
pub const DETAIL: Color32 = Color32::from_rgb(200, 205, 210);
/// The help line.
pub const HELP: Color32 = Color32::from_rgb(170, 175, 180);
/// The message line: warm, to stand out.
pub const MESSAGE: Color32 = Color32::from_rgb(255, 190, 90);

/// The panel's distance from the window's corner, and the text's from the panel's edge, in
/// points.
const MARGIN: f32 = 8.0;

/// What the HUD shows, top to bottom: `lines`; `detail` when `show_detail`; `help` when not
/// empty; `message` (in [`MESSAGE`]'s warm colour) when set. Each entry is one line; nothing
/// wraps. With nothing to show, no panel is drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hud {
    /// Always shown (frame time, position, …).
    pub lines: Vec<String>,
    /// Shown when `show_detail` (chunk counts, pass timings, …).
    pub detail: Vec<String>,
    pub show_detail: bool,
    /// The keys, one line.
    pub help: String,
    /// A passing message (a screenshot written, an error).
    pub message: Option<String>,
}

impl Hud {
    /// Whether nothing would be shown.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
            && (!self.show_detail || self.detail.is_empty())
            && self.help.is_empty()
            && self.message.is_none()
    }
}

/// What can go wrong drawing the HUD.
#[derive(Debug, thiserror::Error)]
pub enum HudError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("egui renderer: {0}")]
    Renderer(#[from] RendererError),
}

/// When a recording that used something has finished with it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum LastUse {
    Never,
    /// In the recording of this number (`FrameRing::recording`), maybe still open.
    Recording(u64),
    /// Once the timeline reaches this value.
    Submitted(u64),
}

/// Lays out and draws the [`Hud`] with egui (see the module's text for how it keeps
/// egui-ash-renderer's objects safe with frames in flight).
pub struct HudRenderer {
    device: Arc<gpu::Device>,
    context: egui::Context,
    /// `None` only while dropping.
    renderer: Option<Renderer<GpuAllocator>>,
    /// egui-ash-renderer's upload command buffers come from it (and are freed after each).
    upload_pool: CommandPool,
    /// A CPU copy of each egui texture, so that partial updates can be uploaded whole.
    images: HashMap<TextureId, Arc<ColorImage>>,
    /// The last use of each of egui-ash-renderer's vertex/index buffer pairs.
    mesh_uses: [LastUse; FRAMES_IN_FLIGHT],
    /// egui-ash-renderer's draws so far (it takes pair `draws % FRAMES_IN_FLIGHT` next), or
    /// `None` after a failed draw, when which pair comes next is not known.
    draws: Option<usize>,
    /// Textures egui freed, with the recording whose frame must finish first.
    pending_frees: Vec<(LastUse, Vec<TextureId>)>,
    last_recording: Option<u64>,
    meshes_last_frame: usize,
}

impl HudRenderer {
    /// The egui context and the renderer, drawing into targets of `colour_format` (an `_SRGB`
    /// format gets linear output, which the target encodes; any other gets sRGB-encoded output).
    pub fn new(device: &Arc<gpu::Device>, colour_format: vk::Format) -> Result<Self, HudError> {
        let renderer = Renderer::with_gpu_allocator(
            device.shared_allocator(),
            device.raw.clone(),
            RenderMode::DynamicRendering(DynamicRendering {
                color_attachment_format: colour_format,
                depth_attachment_format: None,
                stencil_attachment_format: None,
            }),
            Options {
                in_flight_frames: FRAMES_IN_FLIGHT,
                enable_depth_test: false,
                enable_depth_write: false,
                srgb_framebuffer: is_srgb(colour_format),
            },
        )?;
        let upload_pool = CommandPool::new(device, "hud: texture uploads")?;
        Ok(Self {
            device: device.clone(),
            context: egui::Context::default(),
            renderer: Some(renderer),
            upload_pool,
            images: HashMap::new(),
            mesh_uses: [LastUse::Never; FRAMES_IN_FLIGHT],
            draws: Some(0),
            pending_frees: Vec::new(),
            last_recording: None,
            meshes_last_frame: 0,
        })
    }

    /// The egui context (the window's `egui_winit::State` is made with it).
    pub fn context(&self) -> &egui::Context {
        &self.context
    }

    /// Input for a frame without a window (headless runs, tests): a target of `width` ×
    /// `height` pixels at `pixels_per_point`, no events.
    pub fn raw_input(width: u32, height: u32, pixels_per_point: f32) -> egui::RawInput {
        let points = egui::vec2(width as f32, height as f32) / pixels_per_point;
        let mut input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, points)),
            focused: true,
            ..Default::default()
        };
        input
            .viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .native_pixels_per_point = Some(pixels_per_point);
        input
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
    ) -> Result<(), HudError> {
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
        let output = self.context.run_ui(raw_input, |ui| lay_out(ui, hud));
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
            self.pending_frees
                .push((LastUse::Recording(recording), freed));
        }
        self.set_textures(set)?;
        let primitives = self.context.tessellate(shapes, pixels_per_point);

        frames.begin_pass(PASS_NAME);
        let drawn = self.draw(
            frames.command_buffer(),
            &target,
            pixels_per_point,
            &primitives,
            recording,
        );
        frames.end_pass();
        drawn?;
        self.meshes_last_frame = primitives.len();
        Ok(())
    }

    /// Uses in recordings before `current` have been submitted or abandoned: the latest
    /// submitted value covers them.
    fn settle(&mut self, current: u64) {
        let last_submitted = self.device.last_submitted();
        let settle = |last_use: &mut LastUse| {
            if let LastUse::Recording(recording) = *last_use {
                if recording != current {
                    *last_use = LastUse::Submitted(last_submitted);
                }
            }
        };
        self.mesh_uses.iter_mut().for_each(settle);
        self.pending_frees
            .iter_mut()
            .for_each(|(last_use, _)| settle(last_use));
    }

    /// Frees the textures egui gave up whose frames have finished.
    fn free_finished(&mut self) -> Result<(), HudError> {
        if self.pending_frees.is_empty() {
            return Ok(());
        }
        let completed = self.device.completed()?;
        let renderer = self.renderer.as_mut().expect("renderer lives until drop");
        let mut kept = Vec::new();
        for (last_use, ids) in self.pending_frees.drain(..) {
            match last_use {
                LastUse::Submitted(value) if value > completed => kept.push((last_use, ids)),
                LastUse::Recording(_) => kept.push((last_use, ids)),
                LastUse::Never | LastUse::Submitted(_) => {
                    for id in ids {
                        renderer.free_texture(id)?;
                    }
                }
            }
        }
        self.pending_frees = kept;
        Ok(())
    }

    /// Applies egui's new and changed textures, each uploaded whole.
    fn set_textures(
        &mut self,
        set: impl IntoIterator<Item = (TextureId, impl IntoIterator<Item = ImageDelta>)>,
    ) -> Result<(), HudError> {
        let set: Vec<_> = set.into_iter().collect();
        if set.is_empty() {
            return Ok(());
        }
        // Every submission so far finished: no frame in flight samples a texture replaced below,
        // and what egui freed in those frames can go too.
        self.device.wait_idle()?;
        self.free_finished()?;
        for (id, deltas) in set {
            for delta in deltas {
                let ImageData::Color(part) = &delta.image;
                let whole = match delta.pos {
                    None => part.clone(),
                    Some(pos) => {
                        log::debug!(
                            "hud: egui texture {id:?}: {:?} at {pos:?}, uploaded whole",
                            part.size
                        );
                        let whole = self.images.get_mut(&id).ok_or_else(|| {
                            GpuError::Invalid(format!(
                                "egui updated texture {id:?} before setting it"
                            ))
                        })?;
                        patch(Arc::make_mut(whole), pos, part)?;
                        whole.clone()
                    }
                };
                self.images.insert(id, whole.clone());
                let renderer = self.renderer.as_mut().expect("renderer lives until drop");
                // The queue's lock keeps every other submission out while egui-ash-renderer
                // submits its upload and waits for the queue to idle.
                let queue = self.device.lock_queue();
                renderer.set_texture(
                    *queue,
                    self.upload_pool.raw,
                    id,
                    &ImageDelta::full(whole, delta.options),
                )?;
            }
        }
        Ok(())
    }

    /// Records the rendering: colour loaded, egui's meshes drawn (none: only the pass).
    fn draw(
        &mut self,
        command_buffer: vk::CommandBuffer,
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
        let pass = begin_colour_load(&device, command_buffer, target);
        let renderer = self.renderer.as_mut().expect("renderer lives until drop");
        let drawn = renderer.cmd_draw(
            command_buffer,
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

impl Drop for HudRenderer {
    fn drop(&mut self) {
        // egui-ash-renderer destroys its objects in its own drop, at once: the device keeps it
        // until no submission that may use it runs (also a frame still being recorded).
        if let Some(renderer) = self.renderer.take() {
            self.device.retire_object(renderer);
        }
    }
}

/// Writes `part` into `whole` at `pos`.
fn patch(whole: &mut ColorImage, pos: [usize; 2], part: &ColorImage) -> Result<(), GpuError> {
    let [width, height] = whole.size;
    let [part_width, part_height] = part.size;
    if pos[0] + part_width > width || pos[1] + part_height > height {
        return Err(GpuError::Invalid(format!(
            "egui texture update of {part_width}×{part_height} at {pos:?} outside its \
             {width}×{height} texture"
        )));
    }
    for row in 0..part_height {
        let to = (pos[1] + row) * width + pos[0];
        let from = row * part_width;
        whole.pixels[to..to + part_width].copy_from_slice(&part.pixels[from..from + part_width]);
    }
    Ok(())
}

/// The panel and its lines, in the top-left corner.
fn lay_out(ui: &mut egui::Ui, hud: &Hud) {
    if hud.is_empty() {
        return;
    }
    ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
    ui.spacing_mut().item_spacing.y = 2.0;
    egui::Frame::NONE
        .fill(PANEL)
        .corner_radius(4.0)
        .inner_margin(MARGIN)
        .outer_margin(MARGIN)
        .show(ui, |ui| {
            let line = |ui: &mut egui::Ui, text: &str, colour: Color32| {
                ui.label(
                    RichText::new(text)
                        .font(FontId::monospace(TEXT_SIZE))
                        .color(colour),
                );
            };
            for text in &hud.lines {
                line(ui, text, TEXT);
            }
            if hud.show_detail {
                for text in &hud.detail {
                    line(ui, text, DETAIL);
                }
            }
            if !hud.help.is_empty() {
                line(ui, &hud.help, HELP);
            }
            if let Some(message) = &hud.message {
                // A message may be long (an error with a path): it wraps within the window.
                ui.add(
                    egui::Label::new(
                        RichText::new(message)
                            .font(FontId::monospace(TEXT_SIZE))
                            .color(MESSAGE),
                    )
                    .wrap(),
                );
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_update_lands_where_egui_put_it() {
        let mut whole = ColorImage::new([4, 3], vec![Color32::BLACK; 12]);
        let part = ColorImage::new([2, 2], vec![Color32::WHITE; 4]);
        patch(&mut whole, [1, 1], &part).unwrap();
        let white: Vec<usize> = (0..12)
            .filter(|&i| whole.pixels[i] == Color32::WHITE)
            .collect();
        assert_eq!(white, [5, 6, 9, 10]);
        assert!(patch(&mut whole, [3, 0], &part).is_err());
    }

    #[test]
    fn raw_input_covers_the_target_in_points() {
        let input = HudRenderer::raw_input(800, 600, 2.0);
        assert_eq!(
            input.screen_rect,
            Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(400.0, 300.0)
            ))
        );
        assert_eq!(input.viewport().native_pixels_per_point, Some(2.0));
    }

    #[test]
    fn an_empty_hud_draws_nothing() {
        let hud = Hud {
            detail: vec!["hidden".into()],
            ..Hud::default()
        };
        assert!(hud.is_empty());
        assert!(!Hud {
            show_detail: true,
            ..hud
        }
        .is_empty());
    }
}
