//! ARCHITECTURE.md's worked example of a new pass ("Adding a pass"), followed literally: the
//! code it shows is `tint_pass.rs` character for character, and the pass it makes draws what it
//! says (a colour blended over the picture), named and timed, under the validation layer.

use crate::common;
use crate::tint_pass::TintPass;

use blockfall::headless::OFFSCREEN_FORMAT;
use blockfall::shaders::LIBRARY;
use blockfall_engine::gpu::{FrameRing, ImageAccess, Load, OffscreenTarget, RenderTarget};
use blockfall_game_render::textures::linear_to_srgb;

use common::assert_no_validation_errors;

const WIDTH: u32 = 64;
const HEIGHT: u32 = 48;
const CLEAR: [f32; 3] = [0.8, 0.5, 0.1];
const TINT: [f32; 4] = [0.0, 0.1, 0.9, 0.25];

/// The ```rust block under ARCHITECTURE.md's heading "Adding a pass".
fn example_in_architecture() -> String {
    let text = include_str!("../../ARCHITECTURE.md");
    let section = text
        .split("\n## Adding a pass\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a section \"Adding a pass\"");
    let code = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the section shows its code in a ```rust block");
    code.to_owned()
}

#[test]
fn the_worked_example_is_the_code_that_runs_and_is_under_sixty_lines_without_unsafe() {
    let source = include_str!("tint_pass.rs");
    // The file's code without its opening doc comment.
    let code: Vec<&str> = source
        .lines()
        .skip_while(|line| line.starts_with("//!"))
        .collect();
    let code = code.join("\n").trim().to_owned();
    assert_eq!(
        example_in_architecture().trim(),
        code,
        "ARCHITECTURE.md and tint_pass.rs"
    );
    assert!(code.lines().count() < 60, "{} lines", code.lines().count());
    assert!(!code.contains("unsafe"));
}

#[test]
fn the_worked_examples_pass_blends_its_colour_over_the_picture() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let offscreen = OffscreenTarget::new(&gpu.device, WIDTH, HEIGHT, OFFSCREEN_FORMAT).unwrap();
    let target = RenderTarget {
        image: offscreen.color.raw,
        view: offscreen.color.view,
        width: WIDTH,
        height: HEIGHT,
    };
    let tint = TintPass::new(&gpu, &LIBRARY, OFFSCREEN_FORMAT).unwrap();
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    frames.begin().unwrap();
    let cleared = frames.pass("clear").draws_into(&target, Load::Clear(CLEAR));
    drop(cleared.draw(&gpu.device).unwrap());
    tint.record(&gpu, &mut frames, &target, TINT).unwrap();
    frames.begin_pass("readback");
    offscreen.record_readback(
        &gpu.device,
        frames.command_buffer(),
        ImageAccess::ColorAttachment,
    );
    frames.end_pass();
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    let image = offscreen.pixels().unwrap();
    // Blended in linear light: the tint covers a quarter of the clear colour.
    let expected: [u8; 3] =
        [0, 1, 2].map(|c| linear_to_srgb(CLEAR[c] * (1.0 - TINT[3]) + TINT[c] * TINT[3]));
    for (x, y) in [
        (0, 0),
        (WIDTH - 1, 0),
        (0, HEIGHT - 1),
        (WIDTH / 2, HEIGHT / 2),
    ] {
        common::assert_colour_near(image.pixel(x, y).unwrap(), expected, 2, "tinted");
    }
    if gpu.device.adapter.timestamps {
        let names: Vec<&str> = frames
            .last_timings()
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["clear", "tint", "readback"],
            "every pass is named and timed"
        );
    }
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}
