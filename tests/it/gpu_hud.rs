//! The HUD on the GPU: egui's text on a dark panel drawn by our device over a frame cleared to a
//! bright colour, read back and checked pixel by pixel; its pass timed; many frames with
//! changing text (new glyphs: texture updates with frames in flight), frames without the HUD
//! and an abandoned one in between; the renderer dropped with frames in flight and mid-frame.
//! Every test runs under the validation layer and asserts it stayed silent.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use blockfall::headless::OFFSCREEN_FORMAT;
use blockfall::screenshot::write_png;
use blockfall_engine::gpu::{self, FrameRing, Gpu, ImageAccess, OffscreenTarget, RgbaImage};
use blockfall_game_render::hud::{Hud, HudRenderer, PASS_NAME};
use blockfall_game_render::target::{clear_colour_and_depth, DepthTarget, RenderTarget};
use blockfall_game_render::textures::linear_to_srgb;

use common::assert_no_validation_errors;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 360;
/// The frame under the HUD, in linear light: a bright orange whose blue is low, so that the
/// HUD's light text (every channel high) and the clear colour are told apart.
const CLEAR: [f32; 3] = [0.95, 0.6, 0.05];

fn clear_srgb() -> [u8; 3] {
    CLEAR.map(linear_to_srgb)
}

/// A target and what clears it: the frame a HUD draws over.
struct Scene {
    device: Arc<gpu::Device>,
    target: OffscreenTarget,
    depth: DepthTarget,
}

impl Scene {
    fn new(gpu: &Gpu) -> Self {
        let device = gpu.device.clone();
        Self {
            target: OffscreenTarget::new(&device, WIDTH, HEIGHT, OFFSCREEN_FORMAT).unwrap(),
            depth: DepthTarget::new(&device, "gpu_hud: depth"),
            device,
        }
    }

    fn render_target(&self) -> RenderTarget {
        RenderTarget {
            image: self.target.color.raw,
            view: self.target.color.view,
            width: WIDTH,
            height: HEIGHT,
        }
    }

    /// Pass "clear": the target cleared to [`CLEAR`], left a colour attachment.
    fn record_clear(&mut self, frames: &mut FrameRing) {
        let target = self.render_target();
        let depth = self.depth.ensure(frames, WIDTH, HEIGHT).unwrap();
        clear_colour_and_depth(&self.device, frames, &target, depth, CLEAR).unwrap();
    }

    fn record_readback(&self, frames: &mut FrameRing) {
        frames.begin_pass("readback");
        self.target.record_readback(
            &self.device,
            frames.command_buffer(),
            ImageAccess::ColorAttachment,
        );
        frames.end_pass();
    }
}

fn input() -> egui::RawInput {
    HudRenderer::raw_input(WIDTH, HEIGHT, 1.0)
}

fn sample_hud(frame: u32) -> Hud {
    Hud {
        lines: vec![
            format!("frame {frame}  16.7 ms  60 fps"),
            "pos 12.5 40.0 -3.25".into(),
        ],
        // The detail (F3) and the help are drawn apart from the panel: the panel alone here.
        detail: vec!["chunks 124 resident, 37 drawn".into()],
        show_detail: false,
        help: String::new(),
        message: Some("screenshot saved".into()),
        warning: None,
        crosshair: false,
        ..Hud::default()
    }
}

fn brightness(pixel: [u8; 4]) -> u32 {
    pixel[..3].iter().map(|&c| u32::from(c)).sum()
}

fn is_clear(pixel: [u8; 4]) -> bool {
    let clear = clear_srgb();
    (0..3).all(|c| pixel[c].abs_diff(clear[c]) <= 2)
}

fn is_light(pixel: [u8; 4]) -> bool {
    pixel[..3].iter().all(|&c| c >= 170)
}

fn is_warm(pixel: [u8; 4]) -> bool {
    let [r, g, b, _] = pixel;
    r >= 170 && g >= 100 && b < 140 && r - b.min(r) >= 80
}

/// Where the panel ends (first clear pixel right of and below its top-left inside).
fn panel_extent(image: &RgbaImage) -> (u32, u32) {
    let right = (12..WIDTH)
        .find(|&x| is_clear(image.pixel(x, 12).unwrap()))
        .unwrap_or(WIDTH);
    let bottom = (12..HEIGHT)
        .find(|&y| is_clear(image.pixel(12, y).unwrap()))
        .unwrap_or(HEIGHT);
    (right, bottom)
}

/// Checks the picture of `hud` (with `message` set) drawn over the cleared target.
fn assert_hud_pixels(image: &RgbaImage, hud: &Hud) {
    let clear = clear_srgb();
    let (right, bottom) = panel_extent(image);
    let rows = hud.lines.len() + 1;
    eprintln!("panel: (8, 8) to ({right}, {bottom}), {rows} text rows");
    assert!(
        (150..WIDTH * 2 / 3).contains(&right),
        "panel right edge at {right}"
    );
    assert!(
        bottom >= 16 + 14 * rows as u32 && bottom < HEIGHT / 2,
        "panel bottom edge at {bottom} for {rows} rows"
    );
    // The top row of the panel, above the text: the dark panel over the clear colour.
    for x in 12..right - 4 {
        let pixel = image.pixel(x, 11).unwrap();
        assert!(
            brightness(pixel) * 10 < brightness([clear[0], clear[1], clear[2], 255]) * 6,
            "panel at ({x}, 11) should be darker than the clear colour: {pixel:?}"
        );
    }
    // Inside the panel: no clear colour shows through, some pixels are light text.
    let mut light = 0;
    for y in 12..bottom - 4 {
        for x in 12..right - 4 {
            let pixel = image.pixel(x, y).unwrap();
            assert!(
                !is_clear(pixel),
                "clear colour inside the panel at ({x}, {y})"
            );
            light += usize::from(is_light(pixel));
        }
    }
    assert!(light >= 100, "only {light} light text pixels in the panel");
    // The message, the last row: warm text (the clear colour cannot show inside the panel).
    let message_width = 8 * hud.message.as_ref().map_or(0, |m| m.len() as u32);
    let warm = (bottom - 26..bottom - 8)
        .flat_map(|y| (16..16 + message_width).map(move |x| (x, y)))
        .filter(|&(x, y)| is_warm(image.pixel(x, y).unwrap()))
        .count();
    assert!(
        warm >= 10,
        "only {warm} warm message pixels in the last row"
    );
    // The detail (F3), when shown: a column of its own at the top right.
    let detail = hud.show_detail && !hud.detail.is_empty();
    let in_detail = |x: u32, y: u32| detail && x >= WIDTH / 2 && y < HEIGHT / 3;
    if detail {
        let light = (0..HEIGHT / 3)
            .flat_map(|y| (WIDTH / 2..WIDTH).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                is_light(image.pixel(x, y).unwrap()) || !is_clear(image.pixel(x, y).unwrap())
            })
            .count();
        assert!(
            light >= 100,
            "the detail column at the top right: {light} pixels"
        );
    }
    // Beyond the panel (its anti-aliased edge aside): the clear colour, untouched.
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            if (x < right + 2 && y < bottom + 2) || in_detail(x, y) {
                continue;
            }
            common::assert_colour_near(
                image.pixel(x, y).unwrap(),
                clear,
                1,
                &format!("clear colour at ({x}, {y})"),
            );
        }
    }
}

fn screenshot_path(name: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!("blockfall-hud-{}", std::process::id()))
        .join(name)
}

#[test]
fn hud_draws_light_text_on_a_dark_panel_over_the_frame() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let mut scene = Scene::new(&gpu);
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    let mut hud_renderer = HudRenderer::new(&gpu.device, OFFSCREEN_FORMAT).unwrap();
    let hud = sample_hud(0);

    frames.begin().unwrap();
    scene.record_clear(&mut frames);
    hud_renderer
        .record(&mut frames, scene.render_target(), input(), &hud)
        .unwrap();
    scene.record_readback(&mut frames);
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    let image = scene.target.pixels().unwrap();
    let path = screenshot_path("hud.png");
    write_png(&image, &path).unwrap();
    eprintln!("hud render: {}", path.display());

    assert!(hud_renderer.meshes_last_frame() > 0);
    assert_hud_pixels(&image, &hud);
    if gpu.device.adapter.timestamps {
        let names: Vec<&str> = frames
            .last_timings()
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["clear", PASS_NAME, "readback"],
            "every pass is timed"
        );
    }
    drop(hud_renderer);
    drop(frames);
    drop(scene);
    gpu.device.wait_idle().unwrap();
    assert_eq!(gpu.device.retired_objects(), 0, "the egui renderer is gone");
    assert_no_validation_errors(&gpu, before);
}

/// The crosshair on the GPU, alone (no panel), over the bright clear colour: white pixels
/// exactly at the target's centre, 2 across and 20 long, a darker outline around them, the
/// clear colour beyond; and with the crosshair off, nothing at all.
#[test]
fn the_crosshair_is_white_outlined_and_centred() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let mut scene = Scene::new(&gpu);
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    let mut hud_renderer = HudRenderer::new(&gpu.device, OFFSCREEN_FORMAT).unwrap();
    let mut draw = |crosshair: bool| {
        let hud = Hud {
            crosshair,
            ..Hud::default()
        };
        frames.begin().unwrap();
        scene.record_clear(&mut frames);
        hud_renderer
            .record(&mut frames, scene.render_target(), input(), &hud)
            .unwrap();
        scene.record_readback(&mut frames);
        frames.submit(&[], &[]).unwrap();
        frames.wait_all().unwrap();
        scene.target.pixels().unwrap()
    };
    let image = draw(true);
    let path = screenshot_path("crosshair.png");
    write_png(&image, &path).unwrap();
    eprintln!("crosshair: {}", path.display());
    let (cx, cy) = (WIDTH / 2, HEIGHT / 2);
    let white = |x: u32, y: u32| image.pixel(x, y).unwrap()[..3].iter().all(|&c| c >= 250);
    let dark = |x: u32, y: u32| {
        let pixel = image.pixel(x, y).unwrap();
        !is_clear(pixel) && brightness(pixel) * 10 < brightness([255, 255, 255, 255]) * 6
    };
    // The arms: pixels cx-1 and cx across (the centre is a pixel edge), cy-10 to cy+9 along.
    for along in cy - 10..cy + 10 {
        for x in [cx - 1, cx] {
            assert!(white(x, along), "vertical arm at ({x}, {along})");
        }
        // Beside it the outline, but for where the horizontal arm crosses.
        if along != cy - 1 && along != cy {
            assert!(
                dark(cx - 2, along) && dark(cx + 1, along),
                "outline beside (x, {along})"
            );
        }
    }
    for along in cx - 10..cx + 10 {
        for y in [cy - 1, cy] {
            assert!(white(along, y), "horizontal arm at ({along}, {y})");
        }
        if along != cx - 1 && along != cx {
            assert!(
                dark(along, cy - 2) && dark(along, cy + 1),
                "outline beside ({along}, y)"
            );
        }
    }
    for x in [cx - 1, cx] {
        assert!(
            dark(x, cy - 11) && dark(x, cy + 10),
            "outline at the vertical ends"
        );
    }
    for y in [cy - 1, cy] {
        assert!(
            dark(cx - 11, y) && dark(cx + 10, y),
            "outline at the horizontal ends"
        );
    }
    // Symmetric about the centre, and only there.
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let near = x.abs_diff(cx) <= 12 && y.abs_diff(cy) <= 12;
            let pixel = image.pixel(x, y).unwrap();
            if near {
                let mirror = image.pixel(2 * cx - 1 - x, 2 * cy - 1 - y).unwrap();
                assert_eq!(pixel, mirror, "({x}, {y}) against its mirror");
            } else {
                common::assert_colour_near(pixel, clear_srgb(), 1, &format!("at ({x}, {y})"));
            }
        }
    }
    // Off: the clear colour everywhere.
    let image = draw(false);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let pixel = image.pixel(x, y).unwrap();
            common::assert_colour_near(pixel, clear_srgb(), 1, &format!("off: ({x}, {y})"));
        }
    }
    drop(hud_renderer);
    drop(frames);
    drop(scene);
    gpu.device.wait_idle().unwrap();
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn hud_draws_many_frames_with_changing_text() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let mut scene = Scene::new(&gpu);
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    let mut hud_renderer = HudRenderer::new(&gpu.device, OFFSCREEN_FORMAT).unwrap();
    // Characters egui has not laid out before come in over the frames: the font atlas grows
    // and is updated while earlier frames are in flight.
    let extra = [
        "", "äöü", "ÄÖÜß", "é€£", "{}[]|~", "ñçø", "±×÷", "«»¿¡", "ÆØÅ", "þðý",
    ];
    let mut last = Hud::default();
    for frame in 0..12u32 {
        let mut hud = sample_hud(frame);
        hud.lines.push(format!(
            "{} {}",
            extra[frame as usize % extra.len()],
            "#".repeat(frame as usize)
        ));
        hud.show_detail = frame % 3 != 1;
        frames.begin().unwrap();
        scene.record_clear(&mut frames);
        match frame {
            // A frame without the HUD: the ring's slots and egui's buffers shift apart.
            5 => {}
            _ => {
                hud_renderer
                    .record(&mut frames, scene.render_target(), input(), &hud)
                    .unwrap();
            }
        }
        if frame == 7 {
            // The window's swapchain went out of date mid-frame: recorded, never submitted.
            frames.abandon().unwrap();
            continue;
        }
        let last_frame = frame == 11;
        if last_frame {
            scene.record_readback(&mut frames);
        }
        frames.submit(&[], &[]).unwrap();
        last = hud;
    }
    frames.wait_all().unwrap();
    let image = scene.target.pixels().unwrap();
    write_png(&image, &screenshot_path("hud-frame-11.png")).unwrap();
    assert_hud_pixels(&image, &last);
    if gpu.device.adapter.timestamps {
        assert!(
            frames.last_timings().iter().any(|t| t.name == PASS_NAME),
            "{:?}",
            frames.last_timings()
        );
    }

    // Twice in one frame is refused (egui's buffers would be rewritten under the first draw).
    frames.begin().unwrap();
    scene.record_clear(&mut frames);
    hud_renderer
        .record(&mut frames, scene.render_target(), input(), &last)
        .unwrap();
    assert!(hud_renderer
        .record(&mut frames, scene.render_target(), input(), &last)
        .is_err());
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();

    drop(hud_renderer);
    drop(frames);
    drop(scene);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn dropping_the_hud_with_frames_in_flight_is_safe() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let mut scene = Scene::new(&gpu);
    let mut frames = FrameRing::new(&gpu.device).unwrap();

    // Right after a submit: the frame that draws with it is in flight.
    let mut hud_renderer = HudRenderer::new(&gpu.device, OFFSCREEN_FORMAT).unwrap();
    for frame in 0..2 {
        frames.begin().unwrap();
        scene.record_clear(&mut frames);
        hud_renderer
            .record(
                &mut frames,
                scene.render_target(),
                input(),
                &sample_hud(frame),
            )
            .unwrap();
        frames.submit(&[], &[]).unwrap();
    }
    drop(hud_renderer);

    // Mid-frame: recorded into a frame that is submitted after the drop.
    let mut hud_renderer = HudRenderer::new(&gpu.device, OFFSCREEN_FORMAT).unwrap();
    frames.begin().unwrap();
    scene.record_clear(&mut frames);
    hud_renderer
        .record(&mut frames, scene.render_target(), input(), &sample_hud(2))
        .unwrap();
    drop(hud_renderer);
    scene.record_readback(&mut frames);
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    let image = scene.target.pixels().unwrap();
    assert_hud_pixels(&image, &sample_hud(2));
    assert_eq!(
        gpu.device.retired_objects(),
        0,
        "both egui renderers are gone"
    );

    drop(frames);
    drop(scene);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn an_empty_hud_leaves_the_frame_as_it_was() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let mut scene = Scene::new(&gpu);
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    let mut hud_renderer = HudRenderer::new(&gpu.device, OFFSCREEN_FORMAT).unwrap();
    frames.begin().unwrap();
    scene.record_clear(&mut frames);
    hud_renderer
        .record(&mut frames, scene.render_target(), input(), &Hud::default())
        .unwrap();
    scene.record_readback(&mut frames);
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    let image = scene.target.pixels().unwrap();
    assert_eq!(hud_renderer.meshes_last_frame(), 0);
    let clear = clear_srgb();
    for (i, pixel) in image.pixels.chunks_exact(4).enumerate().step_by(7) {
        common::assert_colour_near(
            [pixel[0], pixel[1], pixel[2], pixel[3]],
            clear,
            1,
            &format!("pixel {i}"),
        );
    }
    drop(hud_renderer);
    drop(frames);
    drop(scene);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn recording_the_hud_outside_a_frame_is_an_error() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let scene = Scene::new(&gpu);
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    let mut hud_renderer = HudRenderer::new(&gpu.device, OFFSCREEN_FORMAT).unwrap();
    assert!(hud_renderer
        .record(&mut frames, scene.render_target(), input(), &sample_hud(0))
        .is_err());
}
