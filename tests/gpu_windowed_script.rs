//! A scripted run in the real window under a display (Xvfb in CI): the script's input plays at
//! its fixed frame time while the window is resized in the middle; the swapchain follows, the
//! script's screenshot comes from the window's own image, and validation stays silent.
//!
//! Its own test process: winit allows one event loop per process.

use blockfall::options::RunOptions;
use blockfall::window::run_windowed;

#[test]
fn a_script_plays_in_the_window_through_a_resize() {
    let skip = std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1");
    let has_display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if !has_display {
        if skip {
            eprintln!("BLOCKFALL_SKIP_GPU=1 and no display: skipping the windowed script");
            return;
        }
        panic!(
            "the windowed test needs a display: run it through tools/test.sh (which starts Xvfb) \
             or set DISPLAY"
        );
    }
    let dir = std::env::temp_dir().join(format!("blockfall-window-script-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("end.png");
    // One second at 40 ms: 25 frames and the closing one; a tower placed, walked toward,
    // its top block broken by a click.
    let script = blockfall_game::scene::parse(&format!(
        r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
            "player": {{"feet": [0.0, 0.0, -5.0]}},
            "duration": 1.0, "frame_dt": 0.04,
            "events": [
              {{"t": 0, "place": {{"cell": [-1, -1, 0], "material": "Stone"}}}},
              {{"t": 0, "place": {{"cell": [-1, 1, 0], "material": "Slate"}}}},
              {{"t": 0.1, "press": "KeyW"}}, {{"t": 0.3, "release": "KeyW"}},
              {{"t": 0.4, "look": {{"yaw_degrees": 0, "pitch_degrees": -2}}}},
              {{"t": 0.5, "press": "MouseLeft"}}, {{"t": 0.55, "release": "MouseLeft"}},
              {{"t": 1.0, "screenshot": {:?}}}]}}"#,
        shot.to_str().unwrap()
    ))
    .unwrap();
    let _ = env_logger::builder().is_test(true).try_init();
    let report = run_windowed(&RunOptions {
        width: 480,
        height: 320,
        validation: true,
        resize_after: Some((12, 400, 300)),
        view_radius: 2,
        script: Some(script),
        ..RunOptions::default()
    });
    let report = match report {
        Ok(report) => report,
        Err(error) if skip => {
            eprintln!("BLOCKFALL_SKIP_GPU=1: skipping the windowed script ({error:#})");
            return;
        }
        Err(error) => panic!("the scripted window run failed: {error:#}"),
    };
    // A frame whose swapchain went out of date around the resize is played but not presented.
    assert!(
        (24..=26).contains(&report.frames),
        "25 frames and the closing one: {} presented",
        report.frames
    );
    assert!(
        report.swapchain_extents.len() >= 2,
        "the swapchain was recreated: {:?}",
        report.swapchain_extents
    );
    assert_eq!(report.swapchain_extents.last(), Some(&(400, 300)));
    assert_eq!(
        report.validation_errors,
        0,
        "validation errors; the last: {}",
        report.last_validation_error.unwrap_or_default()
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&shot).expect("the script's screenshot was written"),
    ));
    let info = decoder.read_info().unwrap();
    assert_eq!(
        (info.info().width, info.info().height),
        (400, 300),
        "the window's size after the resize"
    );
    let names: Vec<&str> = report
        .pass_timings
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    for pass in ["terrain", "blocks", "pieces", "markers", "hud"] {
        assert!(names.contains(&pass), "{pass} in {names:?}");
    }
    std::fs::remove_dir_all(dir).ok();
}
