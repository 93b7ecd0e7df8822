//! A scripted run in the real window under a display (Xvfb in CI): the script's input plays at
//! its fixed frame time while the window is resized in the middle; the swapchain follows, the
//! script's screenshot comes from the window's own image, and validation stays silent. The same
//! script run headless first: its presses of L, F2 and F5 (wireframe, screenshot, save) do the
//! same in both.
//!
//! Its own test process: winit allows one event loop per process.

use std::path::Path;

use blockfall::headless::run_headless;
use blockfall::options::RunOptions;
use blockfall::window::run_windowed;

/// What a run said, each message's first two words (paths and sizes differ between runs).
fn said(messages: &[String]) -> Vec<String> {
    messages
        .iter()
        .map(|message| {
            message
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .map(|start| {
            // "saved /tmp/.../window.bfw": the path is the run's own.
            if start.starts_with("saved ") {
                "saved".to_string()
            } else {
                start
            }
        })
        .collect()
}

/// The F2 screenshots written into `dir` (the run's working folder).
fn f2_screenshots(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().to_string();
            name.starts_with("blockfall-screenshot-") && name.ends_with(".png")
        })
        .count()
}

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
              {{"t": 0.6, "press": "KeyL"}}, {{"t": 0.62, "release": "KeyL"}},
              {{"t": 0.7, "press": "F2"}}, {{"t": 0.72, "release": "F2"}},
              {{"t": 0.8, "press": "F5"}}, {{"t": 0.82, "release": "F5"}},
              {{"t": 1.0, "screenshot": {:?}}}]}}"#,
        shot.to_str().unwrap()
    ))
    .unwrap();
    let _ = env_logger::builder().is_test(true).try_init();

    // Headless first, in a working folder of its own (F2 writes there).
    let headless_dir = dir.join("headless");
    std::fs::create_dir_all(&headless_dir).unwrap();
    std::env::set_current_dir(&headless_dir).unwrap();
    // Both runs: the same size, script and checks, each with a save of its own.
    let options = |world: &Path| RunOptions {
        width: 480,
        height: 320,
        validation: true,
        view_radius: 2,
        script: Some(script.clone()),
        world: Some(world.join("world.bfw")),
        ..RunOptions::default()
    };
    let headless = run_headless(&options(&headless_dir));
    let headless = match headless {
        Ok(report) => report,
        Err(error) if skip => {
            eprintln!("BLOCKFALL_SKIP_GPU=1: skipping the windowed script ({error:#})");
            return;
        }
        Err(error) => panic!("the scripted headless run failed: {error:#}"),
    };
    assert_eq!(headless.validation_errors, 0, "headless: validation errors");

    let window_dir = dir.join("window");
    std::fs::create_dir_all(&window_dir).unwrap();
    std::env::set_current_dir(&window_dir).unwrap();
    let report = run_windowed(&RunOptions {
        resize_after: Some((12, 400, 300)),
        ..options(&window_dir)
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

    // L, F2 and F5 did the same in both runs: the wireframe turned on, a screenshot written
    // into the working folder, the world saved where --world says (the script's own
    // screenshot says nothing).
    let expected = ["terrain wireframe", "screenshot written", "saved"];
    assert_eq!(
        said(&headless.messages),
        expected,
        "headless: {:?}",
        headless.messages
    );
    assert_eq!(
        said(&report.messages),
        expected,
        "window: {:?}",
        report.messages
    );
    assert_eq!(headless.messages[0], "terrain wireframe on");
    assert_eq!(report.messages[0], "terrain wireframe on");
    for run in [&headless_dir, &window_dir] {
        assert_eq!(
            f2_screenshots(run),
            1,
            "F2's screenshot in {}",
            run.display()
        );
        assert!(
            run.join("world.bfw").is_file(),
            "F5's save in {}",
            run.display()
        );
    }
    std::env::set_current_dir(std::env::temp_dir()).unwrap();
    std::fs::remove_dir_all(dir).ok();
}
