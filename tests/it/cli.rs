//! The `blockfall` binary as a user runs it: headless PNGs, clear errors, no panics.

use std::path::PathBuf;
use std::process::{Command, Output};

fn blockfall(args: &[&str], env: &[(&str, &str)], remove: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_blockfall"));
    command.args(args);
    // A windowed run reads (and, when missing, writes) the player's settings in the config
    // folder: tests keep theirs in a folder of their own, never the real one.
    let home = scratch("xdg");
    command.env("XDG_CONFIG_HOME", home.join("config"));
    command.env("XDG_DATA_HOME", home.join("data"));
    for (key, value) in env {
        command.env(key, value);
    }
    for key in remove {
        command.env_remove(key);
    }
    command.output().expect("the blockfall binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockfall-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn skip_gpu() -> bool {
    std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1")
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let info = decoder.read_info().unwrap();
    (info.info().width, info.info().height)
}

#[test]
fn headless_writes_the_png_it_names() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("headless");
    let path = dir.join("shots").join("scene.png");
    let output = blockfall(
        &[
            "--headless",
            "--frames",
            "3",
            "--width",
            "320",
            "--height",
            "180",
            "--validation",
            "--view-radius",
            "2",
            "--screenshot",
            path.to_str().unwrap(),
        ],
        &[],
        &[],
    );
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    assert_eq!(text(&output.stdout).trim(), path.to_str().unwrap());
    assert_eq!(png_size(&path), (320, 180));
    // The world: sky above, ground below.
    let image = read_png(&path);
    let sky = blockfall_game_render::terrain::sky_colour();
    let near = |p: [u8; 3], q: [u8; 3]| (0..3).all(|c| p[c].abs_diff(q[c]) <= 2);
    assert!(near(image.pixel(160, 2), sky), "sky at the top");
    assert!(!near(image.pixel(160, 170), sky), "ground at the bottom");
    assert!(
        text(&output.stderr).contains("3 frames"),
        "{}",
        text(&output.stderr)
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A decoded RGB(A) PNG.
struct Png {
    width: u32,
    channels: usize,
    bytes: Vec<u8>,
}

impl Png {
    fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let at = (y * self.width + x) as usize * self.channels;
        [self.bytes[at], self.bytes[at + 1], self.bytes[at + 2]]
    }
}

fn read_png(path: &std::path::Path) -> Png {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut bytes = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut bytes).unwrap();
    Png {
        width: info.width,
        channels: info.color_type.samples(),
        bytes,
    }
}

#[test]
fn the_test_scene_is_still_there_on_request() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("testscene");
    let path = dir.join("cubes.png");
    let output = blockfall(
        &[
            "--headless",
            "--test-scene",
            "--width",
            "128",
            "--height",
            "72",
            "--validation",
            "--screenshot",
            path.to_str().unwrap(),
        ],
        &[],
        &[],
    );
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let image = read_png(&path);
    // The test scene's own sky, not the world's.
    let sky = blockfall_game_render::test_scene::TestScene::sky_colour();
    let top = image.pixel(64, 0);
    assert!(
        (0..3).all(|c| top[c].abs_diff(sky[c]) <= 1),
        "{top:?} vs {sky:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn without_a_display_it_says_so_and_renders_headless() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("nodisplay");
    let path = dir.join("fallback.png");
    let output = blockfall(
        &[
            "--width",
            "160",
            "--height",
            "90",
            "--view-radius",
            "2",
            "--screenshot",
            path.to_str().unwrap(),
        ],
        &[],
        &["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"],
    );
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(stderr.contains("headless"), "{stderr}");
    // What is missing, not a place in winit's sources under the cargo registry.
    assert!(stderr.contains("DISPLAY is set"), "{stderr}");
    assert!(
        !stderr.contains(".cargo") && !stderr.contains(".rs:"),
        "{stderr}"
    );
    assert_eq!(text(&output.stdout).trim(), path.to_str().unwrap());
    assert_eq!(png_size(&path), (160, 90));
    // The player's windowed play read its settings: missing, they were written (in the tests'
    // own config folder); the flags won over them.
    let settings = scratch("xdg").join("config/blockfall/settings.ron");
    assert!(settings.exists(), "{}", settings.display());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn missing_vulkan_driver_is_a_clear_error() {
    let dir = scratch("nodriver");
    let path = dir.join("never.png");
    let output = blockfall(
        &["--headless", "--screenshot", path.to_str().unwrap()],
        &[
            ("VK_DRIVER_FILES", "/nonexistent/blockfall-no-driver.json"),
            ("VK_ICD_FILENAMES", "/nonexistent/blockfall-no-driver.json"),
        ],
        &[],
    );
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("no Vulkan device found"), "{stderr}");
    assert!(stderr.contains("tools/setup.sh"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!path.exists());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn unknown_gpu_index_lists_the_devices() {
    if skip_gpu() {
        return;
    }
    let output = blockfall(&["--headless", "--gpu", "99"], &[], &[]);
    assert_eq!(output.status.code(), Some(2), "bad input");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("there is no device 99"), "{stderr}");
    assert!(
        stderr.contains("Vulkan devices:") && stderr.contains("[0]"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn renderdoc_flag_without_renderdoc_says_so_and_goes_on() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("renderdoc");
    let path = dir.join("frame.png");
    let output = blockfall(
        &[
            "--headless",
            "--frames",
            "2",
            "--width",
            "64",
            "--height",
            "64",
            "--renderdoc-capture-frame",
            "1",
            "--view-radius",
            "1",
            "--screenshot",
            path.to_str().unwrap(),
        ],
        &[],
        &["LD_PRELOAD", "ENABLE_VULKAN_RENDERDOC_CAPTURE"],
    );
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("RenderDoc is not injected"), "{stderr}");
    assert!(path.exists());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bad_arguments_are_refused_before_touching_the_gpu() {
    for args in [
        &["--frames", "0"][..],
        &["--width", "0"],
        &["--width", "lots"],
        &["--time-step", "NaN"],
        &["--time-step", "-1"],
        &["--view-radius", "0"],
        &["--view-radius", "99"],
        &["--seed", "-3"],
        &["--shadows", "medium"],
        &["--shadows"],
    ] {
        let output = blockfall(args, &[], &[]);
        assert!(!output.status.success(), "{args:?} was accepted");
        let stderr = text(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn an_unknown_shadows_quality_is_refused_with_the_qualities() {
    for value in ["ultra", "0", "on", "Medium"] {
        let output = blockfall(&["--headless", "--shadows", value], &[], &[]);
        assert_eq!(output.status.code(), Some(2), "{value:?}");
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "invalid value '{value}' for '--shadows <QUALITY>'"
            )),
            "{value:?}: {stderr}"
        );
        assert!(
            stderr.contains("[possible values: off, low, high]"),
            "{value:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // The help names the flag and its values.
    let output = blockfall(&["--help"], &[], &[]);
    let help = text(&output.stdout);
    assert!(help.contains("--shadows <QUALITY>"), "{help}");
}

/// The passes of the last frame whose names start with "shadow", from the run's summary on
/// stderr (`…, shadow cascade 0 1.234 ms GPU, …`); `None` when the device times no passes.
fn shadow_passes(stderr: &str) -> Option<usize> {
    let summary = stderr.lines().rev().find(|line| line.contains(" ms GPU"))?;
    Some(
        summary
            .split(", ")
            .filter(|item| item.starts_with("shadow") && item.ends_with(" ms GPU"))
            .count(),
    )
}

#[test]
fn the_shadows_flag_and_the_crosshair_setting_reach_the_picture() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("shadows-crosshair");
    let settings = dir.join("settings.ron");
    // The file asks for Low shadows and no crosshair.
    std::fs::write(&settings, "(shadows: Low, crosshair: false)\n").unwrap();
    let settings = settings.to_str().unwrap();
    let script = dir.join("script.json");
    std::fs::write(&script, "{\"duration\": 0.05, \"events\": []}").unwrap();
    let script = script.to_str().unwrap();
    let run = |name: &str, size: (&str, &str), extra: &[&str]| {
        let path = dir.join(name);
        let mut args = vec![
            "--headless",
            "--width",
            size.0,
            "--height",
            size.1,
            "--view-radius",
            "1",
            "--validation",
            "--screenshot",
            path.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let output = blockfall(&args, &[], &[]);
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        (path, text(&output.stderr))
    };
    // Each quality draws its passes: none off, 3 cascades low, 4 high (the default); the
    // settings' quality, and the flag's over it. A script draws the default, the quality of
    // the settings file it is given, or the flag's.
    let small = ("64", "48");
    for (extra, passes) in [
        (&["--shadows", "off"][..], 0),
        (&["--shadows", "low"], 3),
        (&["--shadows", "High"], 4),
        (&[], 4),
        (&["--settings", settings], 3),
        (&["--settings", settings, "--shadows", "off"], 0),
        (&["--settings", settings, "--script", script], 3),
        (&["--script", script, "--shadows", "low"], 3),
    ] {
        let (_, stderr) = run("quality.png", small, extra);
        if let Some(found) = shadow_passes(&stderr) {
            assert_eq!(found, passes, "{extra:?}: {stderr}");
        }
    }
    // With the crosshair (the default): white arms 2 pixels across and 20 long at the centre
    // (the centre of a 1280 x 720 picture is a pixel corner, well below the HUD's panel; at
    // that size the HUD's scale is 1); without it (the settings') the same picture there.
    let size = ("1280", "720");
    let (with, _) = run("with.png", size, &["--shadows", "off"]);
    let (without, _) = run(
        "without.png",
        size,
        &["--settings", settings, "--shadows", "off"],
    );
    let (with, without) = (read_png(&with), read_png(&without));
    let (cx, cy) = (640u32, 360u32);
    let white = |p: [u8; 3]| p.iter().all(|&c| c >= 250);
    let on_arm = |x: u32, y: u32| {
        let (dx, dy) = (x as i64 - i64::from(cx), y as i64 - i64::from(cy));
        ((-1..1).contains(&dx) && (-10..10).contains(&dy))
            || ((-1..1).contains(&dy) && (-10..10).contains(&dx))
    };
    let mut changed = 0;
    for y in cy - 20..cy + 20 {
        for x in cx - 20..cx + 20 {
            let (a, b) = (with.pixel(x, y), without.pixel(x, y));
            if on_arm(x, y) {
                assert!(white(a), "crosshair at ({x}, {y}): {a:?}");
                changed += usize::from(a != b);
            } else if x.abs_diff(cx) > 12 || y.abs_diff(cy) > 12 {
                assert_eq!(a, b, "beyond the crosshair at ({x}, {y})");
            }
        }
    }
    assert!(
        changed > 20,
        "only {changed} pixels of the arms differ without the crosshair"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn settings_named_by_flag_are_read_the_flags_win_and_a_broken_file_is_kept_aside() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("settings");
    let settings = dir.join("mine.ron");
    let path = dir.join("frame.png");
    std::fs::write(
        &settings,
        "(width: 96, height: 64, view_radius: 1, hud: false)\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--headless",
            "--settings",
            settings.to_str().unwrap(),
            "--screenshot",
            path.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        blockfall(&args, &[], &[])
    };
    let output = run(&[]);
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    assert_eq!(png_size(&path), (96, 64), "the file's size");
    let output = run(&["--width", "80"]);
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    assert_eq!(png_size(&path), (80, 64), "the flag wins");

    let broken = "(\n    width: 96,\n    height: 90000,\n)\n";
    std::fs::write(&settings, broken).unwrap();
    let output = run(&["--width", "48", "--height", "32", "--view-radius", "1"]);
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("mine.ron line 3: window height 90000 is not between 16 and 8192"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(png_size(&path), (48, 32));
    assert_eq!(
        std::fs::read_to_string(dir.join("mine.ron.bad")).unwrap(),
        broken
    );
    // Only the bad value is set aside, and named; the good one is kept and written back.
    assert!(stderr.contains("`height` takes its default"), "{stderr}");
    let kept = std::fs::read_to_string(&settings).unwrap();
    assert!(kept.contains("width: 96,"), "{kept}");
    assert!(kept.contains("height: 720,"), "{kept}");

    // Headless runs without --settings read none (nor write one).
    let config = dir.join("config");
    let output = blockfall(
        &[
            "--headless",
            "--width",
            "32",
            "--height",
            "32",
            "--view-radius",
            "1",
            "--screenshot",
            path.to_str().unwrap(),
        ],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
        &[],
    );
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    assert!(!config.exists(), "nothing written into the config folder");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_bad_screenshot_path_is_refused_before_any_frame() {
    // It was reported only after every frame was rendered. Without a Vulkan driver the run
    // would fail at the device: the path is checked before that.
    let dir = scratch("badshot");
    let file = dir.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let path = file.join("shot.png");
    let output = blockfall(
        &[
            "--headless",
            "--frames",
            "1000000",
            "--screenshot",
            path.to_str().unwrap(),
        ],
        &[
            ("VK_DRIVER_FILES", "/nonexistent/blockfall-no-driver.json"),
            ("VK_ICD_FILENAMES", "/nonexistent/blockfall-no-driver.json"),
        ],
        &[],
    );
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("cannot write the screenshot") && stderr.contains("shot.png"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Vulkan"),
        "checked before the device: {stderr}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn headless_frames_of_u64_max_renders_without_running_out_of_memory() {
    // It panicked (capacity overflow) or aborted allocating a list of one instant per frame.
    if skip_gpu() {
        return;
    }
    use std::io::{BufRead, BufReader};
    let dir = scratch("manyframes");
    let mut child = Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .args(["--headless", "--frames", &u64::MAX.to_string()])
        .args(["--width", "32", "--height", "24", "--view-radius", "1"])
        .arg("--screenshot")
        .arg(dir.join("never.png"))
        .env("RUST_LOG", "info")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the blockfall binary runs");
    // The log says when the world is loaded: the frames start right after.
    let stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut log = String::new();
    for line in stderr.lines() {
        let line = line.expect("a log line");
        log.push_str(&line);
        log.push('\n');
        if line.contains("chunks within") {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    let status = child.try_wait().expect("the child's status");
    child.kill().ok();
    child.wait().ok();
    assert!(
        status.is_none(),
        "it stopped ({status:?}) instead of rendering on:\n{log}"
    );
    assert!(log.contains("chunks within"), "{log}");
    std::fs::remove_dir_all(dir).ok();
}

/// The environment of a machine without a Vulkan driver: a run that gets as far as the device
/// fails there, so a refusal that comes without "Vulkan" came before it.
const NO_DRIVER: [(&str, &str); 2] = [
    ("VK_DRIVER_FILES", "/nonexistent/blockfall-no-driver.json"),
    ("VK_ICD_FILENAMES", "/nonexistent/blockfall-no-driver.json"),
];

/// Checks a refusal of bad input: exit status 2, nothing on stdout, the message says each of
/// `said`, and it came before the device. Returns stderr.
fn refused(output: &Output, said: &[&str]) -> String {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(text(&output.stdout), "", "nothing on stdout: {stderr}");
    for words in said {
        assert!(stderr.contains(words), "{words:?} in: {stderr}");
    }
    assert!(!stderr.contains("Vulkan"), "before the device: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn a_run_never_writes_over_its_own_inputs() {
    let dir = scratch("own-inputs");
    let world = dir.join("w.blockfall");
    let save = b"blockfall world\n-- the bytes of a save, kept byte for byte --".to_vec();
    std::fs::write(&world, &save).unwrap();
    let linked = dir.join("linked.png");
    std::fs::hard_link(&world, &linked).unwrap();
    let world_arg = world.to_str().unwrap();
    // The screenshot over the world, by its own path and by a hard link to it; the settings.
    for args in [
        &[
            "--headless",
            "--world",
            world_arg,
            "--screenshot",
            world_arg,
        ][..],
        &[
            "--headless",
            "--world",
            world_arg,
            "--screenshot",
            linked.to_str().unwrap(),
        ],
        &["--headless", "--world", world_arg, "--settings", world_arg],
        &[
            "--world",
            world_arg,
            "--settings",
            world_arg,
            "--frames",
            "1",
        ],
    ] {
        let output = blockfall(args, &NO_DRIVER, &[]);
        refused(&output, &["the same file", "w.blockfall"]);
        assert_eq!(std::fs::read(&world).unwrap(), save, "{args:?}");
        assert!(!dir.join("w.blockfall.bad").exists(), "{args:?}");
    }
    // The settings over the script, and a script's screenshot over the settings.
    let script = dir.join("s.json");
    let text_of_script = "{\"duration\": 0.1, \"events\": [{\"t\": 0, \"screenshot\": \"PATH\"}]}";
    let settings = dir.join("mine.ron");
    std::fs::write(&settings, "(width: 64)\n").unwrap();
    std::fs::write(
        &script,
        text_of_script.replace("PATH", settings.to_str().unwrap()),
    )
    .unwrap();
    for args in [
        &["--headless", "--script", script.to_str().unwrap()][..],
        &[
            "--headless",
            "--script",
            script.to_str().unwrap(),
            "--settings",
            settings.to_str().unwrap(),
        ],
        &[
            "--headless",
            "--script",
            script.to_str().unwrap(),
            "--settings",
            script.to_str().unwrap(),
        ],
    ] {
        let output = blockfall(args, &NO_DRIVER, &[]);
        if args.len() == 3 {
            // No settings read: the screenshot is merely a PNG somewhere; it fails at the device.
            assert_ne!(output.status.code(), Some(2), "{}", text(&output.stderr));
            continue;
        }
        refused(&output, &["the same file"]);
    }
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "(width: 64)\n");
    assert!(std::fs::read_to_string(&script)
        .unwrap()
        .starts_with("{\"duration\""));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn broken_settings_are_kept_under_new_names_and_files_not_ours_are_left_alone() {
    let dir = scratch("settings-kept");
    let settings = dir.join("settings.ron");
    let run = || {
        blockfall(
            &[
                "--headless",
                "--settings",
                settings.to_str().unwrap(),
                "--screenshot",
                dir.join("never.png").to_str().unwrap(),
            ],
            &NO_DRIVER,
            &[],
        )
    };
    // Two broken files in a row: both kept.
    for (n, broken) in ["(width: 1)\n", "(height: 2)\n"].iter().enumerate() {
        std::fs::write(&settings, broken).unwrap();
        let stderr = text(&run().stderr);
        let kept = if n == 0 {
            dir.join("settings.ron.bad")
        } else {
            dir.join("settings.ron.bad.1")
        };
        assert!(
            stderr.contains(&format!("kept as {}", kept.display())),
            "{stderr}"
        );
        assert_eq!(&std::fs::read_to_string(&kept).unwrap(), broken);
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("settings.ron.bad")).unwrap(),
        "(width: 1)\n"
    );
    // A save, a scene and binary data are not settings: not moved, not written over.
    let mut save = b"blockfall world\n".to_vec();
    save.extend_from_slice(&[2, 0, 0, 0, 0, 0xff, 0, 7]);
    for (bytes, what) in [
        (save, "a blockfall save"),
        (b"{\"duration\": 1}".to_vec(), "JSON"),
        (vec![0x89, b'P', b'N', b'G', 0, 0, 0xff], "binary data"),
    ] {
        std::fs::write(&settings, &bytes).unwrap();
        let stderr = text(&run().stderr);
        assert!(
            stderr.contains(what) && stderr.contains("left as it is"),
            "{stderr}"
        );
        assert_eq!(std::fs::read(&settings).unwrap(), bytes, "{what}");
        assert!(!dir.join("settings.ron.bad.2").exists(), "{what}");
    }
    // A byte-order mark is skipped.
    let bom = "\u{feff}(\n    width: 96,\n)\n";
    std::fs::write(&settings, bom).unwrap();
    let stderr = text(&run().stderr);
    assert!(!stderr.contains("settings.ron"), "read fine: {stderr}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), bom);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_world_path_that_cannot_be_read_is_refused_not_made_new() {
    let dir = scratch("world-paths");
    let looped = dir.join("loop.blockfall");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let folder = dir.join("folder.blockfall");
    std::fs::create_dir(&folder).unwrap();
    let trailing = format!("{}/", dir.join("slash.blockfall").display());
    for (path, why) in [
        (looped.to_str().unwrap(), "symbolic links"),
        (folder.to_str().unwrap(), "a folder"),
        (trailing.as_str(), "trailing slash"),
    ] {
        let output = blockfall(
            &[
                "--headless",
                "--world",
                path,
                "--screenshot",
                dir.join("never.png").to_str().unwrap(),
            ],
            &NO_DRIVER,
            &[],
        );
        refused(&output, &["--world", why]);
    }
    let mut left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["folder.blockfall", "loop.blockfall"], "nothing made");
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    std::fs::remove_dir_all(dir).ok();
}

/// A script whose one event (`key`, at `t` s) writes under a regular file, where no folder can
/// be made: refused before any frame, headless and windowed, with `said` in the message; the
/// file in the way untouched.
fn script_output_under_a_file_is_refused(
    name: &str,
    key: &str,
    t: f64,
    under: &str,
    said: &[&str],
) {
    let dir = scratch(name);
    let file = dir.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let output_path = file.join(under);
    let script = dir.join("s.json");
    std::fs::write(
        &script,
        format!(
            "{{\"duration\": 0.5, \"events\": [{{\"t\": {t}, \"{key}\": {:?}}}]}}",
            output_path.to_str().unwrap()
        ),
    )
    .unwrap();
    for headless in [true, false] {
        let mut args = vec!["--script", script.to_str().unwrap()];
        if headless {
            args.push("--headless");
        }
        let output = blockfall(&args, &NO_DRIVER, &[]);
        refused(&output, said);
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        b"",
        "the file in the way is untouched"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_script_screenshot_that_cannot_be_written_is_refused_before_any_frame() {
    script_output_under_a_file_is_refused(
        "script-shot",
        "screenshot",
        0.5,
        "shots/end.png",
        &["cannot write the screenshot", "end.png"],
    );
}

#[test]
fn a_world_that_is_not_a_good_save_is_bad_input() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("bad-save");
    let world = dir.join("w.blockfall");
    let bytes = b"not a save at all".to_vec();
    std::fs::write(&world, &bytes).unwrap();
    let output = blockfall(
        &[
            "--headless",
            "--world",
            world.to_str().unwrap(),
            "--screenshot",
            dir.join("never.png").to_str().unwrap(),
        ],
        &[],
        &[],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(text(&output.stdout), "", "{stderr}");
    assert!(stderr.contains("w.blockfall"), "{stderr}");
    assert_eq!(std::fs::read(&world).unwrap(), bytes);
    assert!(!dir.join("never.png").exists());
    std::fs::remove_dir_all(dir).ok();
}

/// The smallest `maxStorageBufferRange` of the machine's Vulkan devices, as `vulkaninfo` reports
/// it (`tools/setup.sh` installs it). Asked without the display (the limits need none): under
/// the test run's Xvfb, busy with the windowed tests, vulkaninfo's surface queries once failed
/// and it printed no limits (CI). Asked up to three times.
fn least_storage_buffer_range() -> Option<u64> {
    (0..3).find_map(|_| {
        let output = Command::new("vulkaninfo")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .ok()?;
        text(&output.stdout)
            .lines()
            .filter(|line| line.trim_start().starts_with("maxStorageBufferRange"))
            .filter_map(|line| line.split('=').nth(1)?.trim().parse().ok())
            .min()
    })
}

#[test]
fn the_farthest_view_radius_is_drawn_or_refused_naming_what_the_device_holds() {
    if skip_gpu() {
        return;
    }
    let range = least_storage_buffer_range().expect("vulkaninfo reports the device's limits");
    let most = blockfall_game_render::chunk_meshes::largest_view_radius(range, 32);
    let dir = scratch("view-radius");
    let shot = dir.join("far.png");
    let output = blockfall(
        &[
            "--headless",
            "--frames",
            "1",
            "--width",
            "32",
            "--height",
            "24",
            "--view-radius",
            "32",
            "--screenshot",
            shot.to_str().unwrap(),
        ],
        &[],
        &[],
    );
    let stderr = text(&output.stderr);
    if most == 32 {
        // With levels of detail Vulkan's least storage buffers (lavapipe's, CI's, 128 MiB)
        // hold the farthest view.
        assert!(output.status.success(), "stderr: {stderr}");
        assert!(shot.exists(), "the frame was drawn");
    } else {
        assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
        assert!(stderr.contains("--view-radius 32"), "{stderr}");
        assert!(stderr.contains(&format!("at most {most}")), "{stderr}");
        assert!(
            !stderr.contains("arena ("),
            "the bare arena error: {stderr}"
        );
        assert!(output.stdout.is_empty(), "nothing on stdout");
        assert!(!shot.exists(), "no frame was drawn");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_script_save_that_cannot_be_written_is_refused_before_any_frame() {
    script_output_under_a_file_is_refused(
        "script-save",
        "save",
        0.25,
        "saves/mid.blockfall",
        &["cannot write the save", "mid.blockfall"],
    );
}
