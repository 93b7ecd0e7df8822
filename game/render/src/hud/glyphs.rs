//! The HUD's characters put in egui's font atlas in the first frame ([`add_glyphs`]), so that
//! the atlas does not change, and is not uploaded again, as new numbers appear.

use egui::FontId;

use super::{DETAIL_SIZE, HELP_SIZE, TEXT, TEXT_SIZE};

/// The characters the HUD's text is made of beyond printable ASCII (the separators, degrees,
/// dashes and arrows its lines and help use).
const MORE_GLYPHS: &str = "·°–—×→←↑↓…µ";

/// Lays out every character the HUD's text uses, at its size and at each of the four quarter
/// pixel offsets egui rasterizes a glyph at (its subpixel bins), so that egui puts them all in
/// its font atlas in the first frame. Otherwise a character's first appearance at an offset (a
/// digit the clock had not shown there yet) changes the atlas, and a changed atlas is uploaded
/// whole once every frame in flight has finished: 1-3 ms of a frame's recording, a dozen times
/// in a run's first seconds. A character outside the set (in a message's path) still takes
/// that way.
pub(super) fn add_glyphs(ui: &egui::Ui) {
    let pixels_per_point = ui.ctx().pixels_per_point();
    let mut job = egui::text::LayoutJob::default();
    // The panel's size, the detail's and help's, and the hotbar's keys'.
    for size in [TEXT_SIZE, DETAIL_SIZE, HELP_SIZE, 9.0] {
        for glyph in (' '..='~').chain(MORE_GLYPHS.chars()) {
            for quarter in 0..4u8 {
                // Each on a line of its own, which starts at x = 0: the leading space alone
                // places it.
                let leading_space = f32::from(quarter) * 0.25 / pixels_per_point;
                let format = egui::TextFormat::simple(FontId::monospace(size), TEXT);
                job.append(&format!("{glyph}\n"), leading_space, format);
            }
        }
    }
    ui.ctx().fonts_mut(|fonts| {
        fonts.layout_job(job);
    });
}

#[cfg(test)]
mod tests {
    use super::super::{lay_out, Hud, HudRenderer};
    use super::*;

    /// Frames of a HUD whose numbers change every frame (a clock, a position, frame times) on
    /// an egui context alone: how many frames after the first changed egui's textures.
    fn frames_that_change_the_atlas(pixels_per_point: f32, glyphs_first: bool) -> usize {
        let context = egui::Context::default();
        let (width, height) = (1280, 720);
        let mut changed = 0;
        for frame in 0..120u32 {
            let t = f64::from(frame) * 0.0173;
            let hud = Hud {
                lines: vec![
                    format!("scripted run: t {t:.2} s of 2.00 s"),
                    format!(
                        "walking at ({:.1}, {:.1}, {:.1}) · facing {:.0}°",
                        t * 7.3 - 4.0,
                        t * 0.37,
                        -t * 13.1,
                        (t * 91.0) % 360.0
                    ),
                    format!("{} falling, {} at rest", frame % 17, frame * 3 % 301),
                ],
                detail: vec![format!("terrain {:7.3} ms GPU", t * 3.1)],
                show_detail: true,
                help: "F2 screenshot · F3 detail · F11 fullscreen".into(),
                message: None,
                warning: None,
                crosshair: true,
                ..Hud::default()
            };
            let input = HudRenderer::raw_input(width, height, pixels_per_point);
            let mut output = context.run_ui(input, |ui| {
                if glyphs_first && frame == 0 {
                    add_glyphs(ui);
                }
                lay_out(ui, &hud);
            });
            if frame > 0 && !output.textures_delta.set.is_empty() {
                changed += 1;
            }
            // Applied, as far as this test goes.
            output.textures_delta.clear();
        }
        changed
    }

    #[test]
    fn the_hud_characters_are_in_the_font_atlas_from_the_first_frame() {
        for pixels_per_point in [1.0, 1.25, 1.5, 2.0] {
            assert_eq!(
                frames_that_change_the_atlas(pixels_per_point, true),
                0,
                "at {pixels_per_point} pixels per point"
            );
        }
        // Without them, new digits at new offsets change it as they come.
        assert!(frames_that_change_the_atlas(1.0, false) > 3);
    }
}
