//! The real window under a display (Xvfb in CI): window, surface and swapchain; 60 frames of the
//! world (streamed around the spawn, a small view radius to keep lavapipe quick), a resize, 60
//! more; the swapchain follows the window and validation stays silent.
//!
//! Its own test process: winit allows one event loop per process.

use blockfall::options::RunOptions;
use blockfall::window::run_windowed;

#[test]
fn window_presents_resizes_and_presents_again() {
    let skip = std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1");
    let has_display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if !has_display {
        if skip {
            eprintln!("BLOCKFALL_SKIP_GPU=1 and no display: skipping the windowed test");
            return;
        }
        panic!(
            "the windowed test needs a display: run it through tools/test.sh (which starts Xvfb) \
             or set DISPLAY"
        );
    }
    let _ = env_logger::builder().is_test(true).try_init();
    let report = run_windowed(&RunOptions {
        width: 640,
        height: 480,
        frames: Some(120),
        validation: true,
        resize_after: Some((60, 400, 300)),
        view_radius: 2,
        ..RunOptions::default()
    });
    let report = match report {
        Ok(report) => report,
        Err(error) if skip => {
            eprintln!("BLOCKFALL_SKIP_GPU=1: skipping the windowed test ({error:#})");
            return;
        }
        Err(error) => panic!("the window run failed: {error:#}"),
    };
    assert_eq!(report.frames, 120, "frames presented");
    assert_eq!(report.swapchain_extents.first(), Some(&(640, 480)));
    assert!(
        report.swapchain_extents.len() >= 2,
        "the swapchain was never recreated: {:?}",
        report.swapchain_extents
    );
    assert_eq!(
        report.swapchain_extents.last(),
        Some(&(400, 300)),
        "the swapchain follows the resized window"
    );
    let presented = &report.frames_per_swapchain;
    assert_eq!(presented.iter().sum::<u64>(), 120, "{presented:?}");
    assert!(
        presented.first().is_some_and(|&n| n >= 60),
        "60 frames before the resize: {presented:?}"
    );
    assert!(
        presented.last().is_some_and(|&n| n >= 55),
        "about 60 frames after the resize (a few may go to a swapchain made before the window \
         settled): {presented:?}"
    );
    assert_eq!(
        report.validation_errors,
        0,
        "validation errors; the last: {}",
        report.last_validation_error.unwrap_or_default()
    );
}
