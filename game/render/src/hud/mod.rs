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
mod menu;
mod renderer;
mod textures;

use blockfall_engine::gpu::GpuError;
use egui::{Color32, FontId, RichText};
use egui_ash_renderer::RendererError;

pub use menu::{MenuClick, MenuRow, MenuView};
pub use renderer::HudRenderer;

/// The name of the frame pass (label and timing).
pub const PASS_NAME: &str = "hud";
/// Text size in points (pixels at a scale of 1).
pub const TEXT_SIZE: f32 = 13.0;
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
/// The warning line (the world not saved): red, over everything else.
pub const WARNING: Color32 = Color32::from_rgb(255, 85, 70);

/// The crosshair's arms: from the centre to each end, and across, in points (pixels at a
/// scale of 1).
pub const CROSSHAIR_ARM: f32 = 10.0;
pub const CROSSHAIR_WIDTH: f32 = 2.0;
/// The crosshair's outline around its arms, in points, so that it reads on sky and on snow.
pub const CROSSHAIR_OUTLINE: f32 = 1.0;
/// The crosshair: white, outlined in a translucent near black (premultiplied).
pub const CROSSHAIR: Color32 = Color32::WHITE;
pub const CROSSHAIR_BORDER: Color32 = Color32::from_rgba_premultiplied(0, 0, 0, 150);

/// The panel's distance from the window's corner, and the text's from the panel's edge, in
/// points.
const MARGIN: f32 = 8.0;

/// The detail column's text size (F3), in points: smaller, so that it stays a compact column.
pub const DETAIL_SIZE: f32 = 12.0;
/// The help line's text size, in points.
pub const HELP_SIZE: f32 = 11.0;
/// The detail column's widest, as a share of the screen's width.
pub const DETAIL_SHARE: f32 = 0.42;
/// A hotbar slot's side, in points.
pub const SLOT: f32 = 22.0;
/// The chosen slot's frame.
pub const SLOT_CHOSEN: Color32 = Color32::WHITE;

/// The HUD's scale for a target of `width` × `height` pixels at `native_pixels_per_point`
/// (the display's), times the player's `setting` (the `hud_scale` setting): how much smaller
/// or larger the target is than 1280 × 720 points, to the power 0.75, within 0.35 to 2. The HUD
/// shrinks more slowly than the window, so that its text stays as legible as it can in a small
/// window and in proportion in a large one, while it covers little of either.
pub fn hud_scale(width: u32, height: u32, native_pixels_per_point: f32, setting: f32) -> f32 {
    let native = if native_pixels_per_point.is_finite() && native_pixels_per_point > 0.0 {
        native_pixels_per_point
    } else {
        1.0
    };
    let fit = (width as f32 / native / 1280.0).min(height as f32 / native / 720.0);
    let fit = fit.max(0.0).powf(0.75).clamp(0.35, 2.0);
    let setting = if setting.is_finite() { setting } else { 1.0 };
    fit * setting.clamp(0.25, 4.0)
}

/// A slot of the hotbar: its key and its material's colour (sRGB).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HotbarSlot {
    pub key: String,
    pub colour: [u8; 3],
}

/// The block tool's materials at the bottom of the view, the chosen one framed, with a label
/// beside them (its name and the block size).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hotbar {
    pub slots: Vec<HotbarSlot>,
    pub selected: usize,
    pub label: String,
}

/// What the HUD shows. The panel at the top left, top to bottom: `warning` (in [`WARNING`]'s
/// red) when set; `lines`; `message` (in [`MESSAGE`]'s warm colour) when set. `detail` when
/// `show_detail`, in a compact column at the top right. At the bottom: the `hotbar`, and under
/// it `help`. Every text wraps within the window. With nothing to show, no panel is drawn.
/// Apart from the panel, a crosshair at the centre of the view when `crosshair`; over all of
/// it, the `menu` when open. Everything is drawn at `scale` ([`hud_scale`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Hud {
    /// Always shown (the player's state, what is falling, …).
    pub lines: Vec<String>,
    /// Shown when `show_detail` (frame times, chunk counts, pass timings, …).
    pub detail: Vec<String>,
    pub show_detail: bool,
    /// The keys of the tool in hand.
    pub help: String,
    /// A passing message (a screenshot written, an error).
    pub message: Option<String>,
    /// A line that stays while it holds (the world not saved), first and in red.
    pub warning: Option<String>,
    /// A crosshair at the centre of the view ([`crosshair_rects`]).
    pub crosshair: bool,
    /// The block tool's materials.
    pub hotbar: Option<Hotbar>,
    /// The menu, drawn over everything.
    pub menu: Option<MenuView>,
    /// The HUD's size, a multiple of its size in points ([`hud_scale`]).
    pub scale: f32,
}

impl Default for Hud {
    fn default() -> Self {
        Self {
            lines: Vec::new(),
            detail: Vec::new(),
            show_detail: false,
            help: String::new(),
            message: None,
            warning: None,
            crosshair: false,
            hotbar: None,
            menu: None,
            scale: 1.0,
        }
    }
}

impl Hud {
    /// Whether nothing would be drawn but the crosshair.
    pub fn is_empty(&self) -> bool {
        self.panel_is_empty()
            && (!self.show_detail || self.detail.is_empty())
            && self.help.is_empty()
            && self.hotbar.is_none()
            && self.menu.is_none()
    }

    /// Whether the top-left panel would be empty.
    fn panel_is_empty(&self) -> bool {
        self.lines.is_empty() && self.message.is_none() && self.warning.is_none()
    }
}

/// How much of a target of `width` × `height` pixels the HUD `hud` covers: the share of its
/// pixels under the HUD's panels, strips and text (their rectangles, united), and whether every
/// shape lies inside the target. The crosshair and the menu are left out.
pub fn coverage(hud: &Hud, width: u32, height: u32) -> (f32, bool) {
    let context = egui::Context::default();
    let scale = if hud.scale.is_finite() && hud.scale > 0.0 {
        hud.scale
    } else {
        1.0
    };
    context.options_mut(|options| options.zoom_factor = scale);
    let mut input = HudRenderer::raw_input(width, height, 1.0);
    input.screen_rect = Some(egui::Rect::from_min_size(
        egui::Pos2::ZERO,
        egui::vec2(width as f32, height as f32) / scale,
    ));
    let hud = Hud {
        crosshair: false,
        menu: None,
        ..hud.clone()
    };
    // egui sizes a new area in a first pass it does not paint: the HUD as every later frame
    // paints it is the second.
    let mut output = egui::FullOutput::default();
    for _ in 0..2 {
        output = context.run_ui(input.clone(), |ui| {
            lay_out(ui, &hud);
        });
        // Measured, not drawn: egui's texture changes are not applied.
        output.textures_delta.clear();
    }
    let screen =
        egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width as f32, height as f32));
    // The rectangles in pixels, on a grid of 2-pixel cells, united.
    let (columns, rows) = (width.div_ceil(2) as usize, height.div_ceil(2) as usize);
    let mut covered = vec![false; columns * rows];
    let mut inside = true;
    for shape in &output.shapes {
        let rect = shape.shape.visual_bounding_rect();
        if !rect.is_positive() {
            continue;
        }
        let pixels = egui::Rect::from_min_max(
            (rect.min.to_vec2() * scale).to_pos2(),
            (rect.max.to_vec2() * scale).to_pos2(),
        );
        inside &= screen.expand(0.5).contains_rect(pixels);
        let clipped = pixels.intersect(screen);
        if !clipped.is_positive() {
            continue;
        }
        let (x0, x1) = (
            (clipped.min.x / 2.0) as usize,
            (clipped.max.x / 2.0).ceil() as usize,
        );
        let (y0, y1) = (
            (clipped.min.y / 2.0) as usize,
            (clipped.max.y / 2.0).ceil() as usize,
        );
        for y in y0..y1.min(rows) {
            for x in x0..x1.min(columns) {
                covered[y * columns + x] = true;
            }
        }
    }
    let share = covered.iter().filter(|&&c| c).count() as f32 / covered.len().max(1) as f32;
    (share, inside)
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

/// The egui layer the crosshair is painted in: over the panel.
fn crosshair_layer() -> egui::LayerId {
    egui::LayerId::new(egui::Order::Foreground, egui::Id::new("hud crosshair"))
}

/// A length of `points` in whole pixels (at least one) across a screen `screen` pixels wide:
/// of the screen's parity, so that a span of it centred on the screen starts and ends on pixel
/// edges (an even screen's centre is a pixel edge, an odd one's the middle of a pixel).
fn centred_span(screen: u32, points: f32, pixels_per_point: f32) -> f32 {
    let pixels = ((points * pixels_per_point).round() as u32).max(1);
    if pixels % 2 == screen % 2 {
        pixels as f32
    } else {
        pixels as f32 + 1.0
    }
}

/// The crosshair's rectangles at the centre of `screen` (egui's screen rectangle, in points:
/// the whole target) at `pixels_per_point`, in the order they are painted, with their colours:
/// the outline first ([`CROSSHAIR_BORDER`]: the vertical arm's, then the left's and the
/// right's, which meet it and never overlap it, so that no pixel is darkened twice), then the
/// white arms, vertical and horizontal ([`CROSSHAIR`]). Sizes are [`CROSSHAIR_ARM`],
/// [`CROSSHAIR_WIDTH`] and [`CROSSHAIR_OUTLINE`] in points, rounded to whole pixels so that
/// every edge is a pixel edge and each rectangle is centred on the target's centre exactly
/// (an arm a pixel longer or wider where the target's size is odd).
pub fn crosshair_rects(screen: egui::Rect, pixels_per_point: f32) -> [(egui::Rect, Color32); 5] {
    let ppp = pixels_per_point;
    let width = (screen.width() * ppp).round().max(0.0) as u32;
    let height = (screen.height() * ppp).round().max(0.0) as u32;
    // In pixels from the target's corner: the centre, and the half spans of each arm.
    let centre = egui::vec2(width as f32, height as f32) / 2.0;
    let (arm_x, across_y) = (
        centred_span(width, 2.0 * CROSSHAIR_ARM, ppp) / 2.0,
        centred_span(height, CROSSHAIR_WIDTH, ppp) / 2.0,
    );
    let (across_x, arm_y) = (
        centred_span(width, CROSSHAIR_WIDTH, ppp) / 2.0,
        centred_span(height, 2.0 * CROSSHAIR_ARM, ppp) / 2.0,
    );
    let outline = (CROSSHAIR_OUTLINE * ppp).round().max(1.0);
    let rect = |left: f32, top: f32, right: f32, bottom: f32| {
        let corner = |x: f32, y: f32| screen.min + (centre + egui::vec2(x, y)) / ppp;
        egui::Rect::from_min_max(corner(left, top), corner(right, bottom))
    };
    let (ox, oy) = (across_x + outline, across_y + outline);
    let (ax, ay) = (arm_x + outline, arm_y + outline);
    [
        (rect(-ox, -ay, ox, ay), CROSSHAIR_BORDER),
        (rect(-ax, -oy, -ox, oy), CROSSHAIR_BORDER),
        (rect(ox, -oy, ax, oy), CROSSHAIR_BORDER),
        (rect(-across_x, -arm_y, across_x, arm_y), CROSSHAIR),
        (rect(-arm_x, -across_y, arm_x, across_y), CROSSHAIR),
    ]
}

/// The crosshair at the centre of the target, over the panel.
fn paint_crosshair(ctx: &egui::Context) {
    let painter = ctx.layer_painter(crosshair_layer());
    for (rect, colour) in crosshair_rects(ctx.viewport_rect(), ctx.pixels_per_point()) {
        painter.rect_filled(rect, 0.0, colour);
    }
}

/// A label of `text` in `size` points and `colour`, wrapped within the space it is given.
fn wrapped(ui: &mut egui::Ui, text: &str, size: f32, colour: Color32) {
    ui.add(
        egui::Label::new(
            RichText::new(text)
                .font(FontId::monospace(size))
                .color(colour),
        )
        .wrap(),
    );
}

/// The panel and its lines in the top-left corner, the detail column at the top right, the
/// hotbar and the help at the bottom, the crosshair, and the menu over them; what was clicked
/// on the menu.
fn lay_out(ui: &mut egui::Ui, hud: &Hud) -> Option<MenuClick> {
    let ctx = ui.ctx().clone();
    if hud.crosshair {
        paint_crosshair(&ctx);
    }
    let screen = ctx.viewport_rect();
    // Room for text inside the window: its width less the margins.
    let room = (screen.width() - 4.0 * MARGIN).max(8.0);
    if !hud.panel_is_empty() {
        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Wrap);
        ui.spacing_mut().item_spacing.y = 2.0;
        egui::Frame::NONE
            .fill(PANEL)
            .corner_radius(4.0)
            .inner_margin(MARGIN)
            .outer_margin(MARGIN)
            .show(ui, |ui| {
                ui.set_max_width(room);
                if let Some(warning) = &hud.warning {
                    // Long (a reason with a path): it wraps within the window.
                    wrapped(ui, warning, TEXT_SIZE, WARNING);
                }
                for text in &hud.lines {
                    wrapped(ui, text, TEXT_SIZE, TEXT);
                }
                if let Some(message) = &hud.message {
                    wrapped(ui, message, TEXT_SIZE, MESSAGE);
                }
            });
    }
    if hud.show_detail && !hud.detail.is_empty() {
        let width = (screen.width() * DETAIL_SHARE).min(room);
        egui::Area::new(egui::Id::new("hud detail"))
            .anchor(egui::Align2::RIGHT_TOP, egui::vec2(-MARGIN, MARGIN))
            .constrain(true)
            .interactable(false)
            .fade_in(false)
            .show(&ctx, |ui| {
                egui::Frame::NONE
                    .fill(PANEL)
                    .corner_radius(4.0)
                    .inner_margin(MARGIN / 2.0)
                    .show(ui, |ui| {
                        ui.set_max_width(width);
                        ui.spacing_mut().item_spacing.y = 1.0;
                        for text in &hud.detail {
                            wrapped(ui, text, DETAIL_SIZE, DETAIL);
                        }
                    });
            });
    }
    if hud.hotbar.is_some() || !hud.help.is_empty() {
        egui::Area::new(egui::Id::new("hud bottom"))
            .anchor(egui::Align2::CENTER_BOTTOM, egui::vec2(0.0, -MARGIN / 2.0))
            .constrain(true)
            .interactable(false)
            .fade_in(false)
            .show(&ctx, |ui| {
                // As wide as the window's room, whatever it holds: the hotbar stays centred.
                ui.set_width(room);
                ui.spacing_mut().item_spacing.y = 2.0;
                ui.vertical_centered(|ui| {
                    if let Some(hotbar) = &hud.hotbar {
                        draw_hotbar(ui, hotbar);
                    }
                    if !hud.help.is_empty() {
                        egui::Frame::NONE
                            .fill(PANEL)
                            .corner_radius(3.0)
                            .inner_margin(egui::Margin::symmetric(4, 1))
                            .show(ui, |ui| {
                                ui.set_max_width(room);
                                ui.spacing_mut().item_spacing.y = 0.0;
                                wrapped(ui, &hud.help, HELP_SIZE, HELP);
                            });
                    }
                });
            });
    }
    hud.menu.as_ref().and_then(|view| menu::draw(&ctx, view))
}

/// The hotbar: a swatch of each material, the chosen one framed in white and its key in its
/// corner, then the label; painted into a box of exactly its size.
fn draw_hotbar(ui: &mut egui::Ui, hotbar: &Hotbar) {
    const GAP: f32 = 3.0;
    const PAD: f32 = 4.0;
    let label = ui.fonts_mut(|fonts| {
        fonts.layout_no_wrap(hotbar.label.clone(), FontId::monospace(HELP_SIZE), TEXT)
    });
    let slots = hotbar.slots.len() as f32;
    let size = egui::vec2(
        2.0 * PAD + slots * (SLOT + GAP) + GAP + label.size().x,
        SLOT + 2.0 * PAD,
    );
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    let painter = ui.painter();
    painter.rect_filled(rect, 3.0, PANEL);
    for (index, slot) in hotbar.slots.iter().enumerate() {
        let min = rect.min + egui::vec2(PAD + index as f32 * (SLOT + GAP), PAD);
        let slot_rect = egui::Rect::from_min_size(min, egui::vec2(SLOT, SLOT));
        let [r, g, b] = slot.colour;
        painter.rect_filled(slot_rect.shrink(2.0), 2.0, Color32::from_rgb(r, g, b));
        if index == hotbar.selected {
            painter.rect_stroke(
                slot_rect,
                2.0,
                egui::Stroke::new(2.0, SLOT_CHOSEN),
                egui::StrokeKind::Inside,
            );
        }
        painter.text(
            slot_rect.left_top() + egui::vec2(3.0, 1.0),
            egui::Align2::LEFT_TOP,
            &slot.key,
            FontId::monospace(9.0),
            Color32::from_rgba_premultiplied(255, 255, 255, 230),
        );
    }
    let at = egui::pos2(
        rect.min.x + PAD + slots * (SLOT + GAP) + GAP,
        rect.center().y - label.size().y / 2.0,
    );
    painter.galley(at, label, TEXT);
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

    /// The crosshair's rectangles, in pixels, that laying out `hud` on a target of `width` ×
    /// `height` at `pixels_per_point` paints, with their colours; and whether the panel was
    /// painted (under them).
    fn crosshair_painted(
        hud: &Hud,
        width: u32,
        height: u32,
        pixels_per_point: f32,
    ) -> (Vec<(egui::Rect, Color32)>, bool) {
        let context = egui::Context::default();
        let input = HudRenderer::raw_input(width, height, pixels_per_point);
        let mut output = context.run_ui(input, |ui| {
            lay_out(ui, hud);
        });
        // Applied, as far as this test goes.
        output.textures_delta.clear();
        let mut rects = Vec::new();
        let mut panel = false;
        let mut crosshair_seen = false;
        // egui's shapes come layer by layer, the top layer last: the crosshair's rectangles
        // (its colours) come after everything else.
        for shape in &output.shapes {
            let crosshair = match &shape.shape {
                egui::Shape::Rect(rect) => [CROSSHAIR, CROSSHAIR_BORDER].contains(&rect.fill),
                _ => false,
            };
            if !crosshair {
                assert!(!crosshair_seen, "{shape:?} over the crosshair");
                panel |= matches!(&shape.shape, egui::Shape::Rect(rect) if rect.fill == PANEL);
                continue;
            }
            crosshair_seen = true;
            let egui::Shape::Rect(rect) = &shape.shape else {
                unreachable!();
            };
            assert_eq!(rect.corner_radius, egui::CornerRadius::ZERO);
            assert_eq!(rect.stroke.width, 0.0);
            let pixels = egui::Rect::from_min_max(
                (rect.rect.min.to_vec2() * pixels_per_point).to_pos2(),
                (rect.rect.max.to_vec2() * pixels_per_point).to_pos2(),
            );
            rects.push((pixels, rect.fill));
        }
        (rects, panel)
    }

    #[test]
    fn the_crosshair_is_centred_on_whole_pixels_and_outlined() {
        let hud = Hud {
            lines: vec!["flying at (0.0, 40.0, 0.0)".into()],
            crosshair: true,
            ..Hud::default()
        };
        for (width, height, ppp) in [
            (1280, 720, 1.0),
            (1281, 721, 1.0),
            (1280, 721, 1.0),
            (1920, 1080, 1.5),
            (1366, 768, 1.25),
            (801, 599, 2.0),
            (33, 32, 1.0),
        ] {
            let at = format!("{width}x{height} at {ppp}");
            let (rects, panel) = crosshair_painted(&hud, width, height, ppp);
            assert!(panel, "{at}");
            assert_eq!(rects.len(), 5, "{at}: {rects:?}");
            let centre = egui::pos2(width as f32 / 2.0, height as f32 / 2.0);
            let near = |a: f32, b: f32| (a - b).abs() < 1e-3;
            for (rect, _) in &rects {
                // Every edge on a pixel edge.
                for edge in [rect.min.x, rect.min.y, rect.max.x, rect.max.y] {
                    assert!(near(edge, edge.round()), "{at}: {rect:?}");
                }
            }
            // The white arms, over the outline, centred exactly: 2 points across (a pixel more
            // where the target's side is odd), 10 points from the centre to each end.
            let (outline, arms) = rects.split_at(3);
            for (rect, colour) in arms {
                assert_eq!(*colour, CROSSHAIR, "{at}");
                assert!(near(rect.center().x, centre.x), "{at}: {rect:?}");
                assert!(near(rect.center().y, centre.y), "{at}: {rect:?}");
            }
            let (vertical, horizontal) = (arms[0].0, arms[1].0);
            let across = CROSSHAIR_WIDTH * ppp;
            let length = 2.0 * CROSSHAIR_ARM * ppp;
            assert!((across..=across + 1.5).contains(&vertical.width()), "{at}");
            assert!((length..=length + 1.5).contains(&vertical.height()), "{at}");
            assert!(
                (across..=across + 1.5).contains(&horizontal.height()),
                "{at}"
            );
            assert!(
                (length..=length + 1.5).contains(&horizontal.width()),
                "{at}"
            );
            // The outline: dark, translucent, around both arms; its three pieces meet and do
            // not overlap, and together they are centred too.
            for (_, colour) in outline {
                assert_eq!(*colour, CROSSHAIR_BORDER, "{at}");
            }
            let (up, left, right) = (outline[0].0, outline[1].0, outline[2].0);
            assert!(up.contains_rect(vertical.expand(ppp.round())), "{at}");
            assert!(
                near(up.center().x, centre.x) && near(up.center().y, centre.y),
                "{at}"
            );
            assert!(
                near(left.max.x, up.min.x) && near(right.min.x, up.max.x),
                "{at}"
            );
            let across_outline = left.union(right).union(up);
            assert!(near(across_outline.center().x, centre.x), "{at}");
            assert!(near(left.center().y, centre.y) && near(right.center().y, centre.y));
            assert!(
                near(left.min.x, horizontal.min.x - ppp.round())
                    && near(right.max.x, horizontal.max.x + ppp.round()),
                "{at}"
            );
            assert!(left.intersect(up).area() <= 0.0 && right.intersect(up).area() <= 0.0);
        }
    }

    #[test]
    fn no_crosshair_when_it_is_off_and_one_alone_when_the_panel_is_empty() {
        let hud = Hud {
            lines: vec!["walking".into()],
            ..Hud::default()
        };
        assert!(!hud.crosshair, "off by default");
        let (rects, panel) = crosshair_painted(&hud, 640, 360, 1.0);
        assert!(rects.is_empty(), "{rects:?}");
        assert!(panel);
        // On with nothing else to show: the crosshair, no panel.
        let alone = Hud {
            crosshair: true,
            ..Hud::default()
        };
        assert!(alone.is_empty());
        let (rects, panel) = crosshair_painted(&alone, 640, 360, 1.0);
        assert_eq!(rects.len(), 5);
        assert!(!panel);
    }

    #[test]
    fn the_warning_comes_first_and_in_red() {
        let hud = Hud {
            lines: vec!["walking".into()],
            message: Some("saving failed: no space".into()),
            warning: Some("World NOT saved: no space — F5 to try again".into()),
            ..Hud::default()
        };
        let context = egui::Context::default();
        let input = HudRenderer::raw_input(640, 360, 1.0);
        let mut output = context.run_ui(input, |ui| {
            lay_out(ui, &hud);
        });
        // Applied, as far as this test goes.
        output.textures_delta.clear();
        let colours: Vec<Color32> = output
            .shapes
            .iter()
            .filter_map(|shape| match &shape.shape {
                egui::Shape::Text(text) => text.galley.job.sections.first(),
                _ => None,
            })
            .map(|section| section.format.color)
            .collect();
        assert_eq!(colours, [WARNING, TEXT, MESSAGE]);
        assert!(!Hud {
            warning: Some("not saved".into()),
            ..Hud::default()
        }
        .is_empty());
    }

    #[test]
    fn the_scale_follows_the_window_and_the_setting_within_its_limits() {
        assert_eq!(hud_scale(1280, 720, 1.0, 1.0), 1.0);
        assert!((hud_scale(640, 360, 1.0, 1.0) - 0.5f32.powf(0.75)).abs() < 1e-6);
        assert!((hud_scale(320, 180, 1.0, 1.0) - 0.25f32.powf(0.75)).abs() < 1e-6);
        assert_eq!(hud_scale(16, 16, 1.0, 1.0), 0.35, "no smaller than that");
        assert_eq!(
            hud_scale(2560, 1440, 2.0, 1.0),
            1.0,
            "in the display's points"
        );
        assert!((hud_scale(1920, 1080, 1.0, 2.0) - 2.0 * 1.5f32.powf(0.75)).abs() < 1e-5);
        assert_eq!(hud_scale(1280, 720, f32::NAN, f32::NAN), 1.0);
    }

    #[test]
    fn a_long_line_wraps_within_the_window_at_every_size() {
        let hud = Hud {
            lines: vec!["walking · 11 more would fall · 3 falling, 2 at rest".into()],
            help:
                "left break · right place · middle pick · 1–6/wheel material · ,. size · C chisel \
                   · Shift+C slope · Ctrl+Z/Y undo/redo · T terrain · WASD walk · Shift run · \
                   Space jump · F fly (Q/E) · Esc menu · F1 HUD"
                    .into(),
            message: Some(format!(
                "saved /{}/world.blockfall",
                "very-long-folder".repeat(8)
            )),
            hotbar: Some(Hotbar {
                slots: vec![HotbarSlot::default(); 6],
                selected: 2,
                label: "planks · 0.5 m".into(),
            }),
            ..Hud::default()
        };
        for (width, height) in [(320, 180), (480, 270), (640, 360), (1920, 1080)] {
            let scale = hud_scale(width, height, 1.0, 1.0);
            let (_, inside) = coverage(
                &Hud {
                    scale,
                    ..hud.clone()
                },
                width,
                height,
            );
            assert!(inside, "{width}x{height}: a shape past the window's edge");
        }
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
