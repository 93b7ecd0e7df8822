//! The HUD: text on a dark translucent panel in the top-left corner, laid out by egui and drawn
//! by our device through egui-ash-renderer, in a pass of its own ("hud", labelled and timed)
//! over what the frame drew before.
//!
//! ```text
//!   FrameRing::begin ─ world passes ─ HudRenderer::record ─ barrier → Present / readback ─ submit
//!                                       │ egui: lay out [`Hud`] (RawInput: egui-winit's, or
//!                                       │   [`HudRenderer::raw_input`] headless)
//!                                       │ textures egui set: uploaded now (`renderer`)
//!                                       │ textures egui freed: kept until this frame has run
//!                                       └ pass "hud": colour LOAD, no depth, egui's draws
//! ```
//!
//! `renderer` draws it with egui-ash-renderer and keeps that crate's objects safe with frames
//! in flight; `textures` applies egui's texture changes; `glyphs` puts the HUD's characters in
//! egui's font atlas in the first frame.

mod glyphs;
mod renderer;
mod textures;

use blockfall_engine::gpu::GpuError;
use egui::{Color32, FontId, RichText};
use egui_ash_renderer::RendererError;

pub use renderer::HudRenderer;

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

impl HudRenderer {
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
}

/// What can go wrong drawing the HUD.
#[derive(Debug, thiserror::Error)]
pub enum HudError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("egui renderer: {0}")]
    Renderer(#[from] RendererError),
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
