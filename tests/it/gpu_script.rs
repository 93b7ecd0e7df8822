//! Scripted runs (`blockfall --script`, headless): a tower of four blocks on flat ground, the
//! second aimed at (the state line's preview count and the orange tint over the two upper
//! blocks in a screenshot), broken with the left button; the piece falls, comes to rest on the
//! lowest block, and is drawn where the physics put it. Validation is on: any error fails the
//! run. A bad script exits 2 before any frame.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use blockfall_game::camera::Camera;
use serde_json::Value;
use ultraviolet::Vec3;

use crate::common::{headless_script, run_script, scratch, skip_gpu, text, Png};

const WIDTH: u32 = 640;
const HEIGHT: u32 = 480;
/// The player's eye: feet at (0, 0, −10) m, 1.65 m up, looking along +z (far enough that the
/// tower stands below the HUD's panel in the top-left corner).
const EYE: [f32; 3] = [0.0, 1.65, -10.0];
/// Looking at the middle of the second block's front face (z = 0, y = 1 m).
const PITCH_DEGREES: f32 = -3.72;

fn run(script: &Path) -> Output {
    run_script(script, WIDTH, HEIGHT, &[])
}

/// The headless, validated, small run of `script` the tests here make.
fn headless(script: &Path) -> Command {
    headless_script(script, WIDTH, HEIGHT, &[])
}

fn view() -> Camera {
    let pitch = PITCH_DEGREES.to_radians();
    let direction = Vec3::new(0.0, pitch.sin(), pitch.cos());
    Camera::looking_within(Vec3::from(EYE), direction, WIDTH, HEIGHT, 2, 70.0)
}

/// Orange: the tint (#f97316 at half opacity) over a block.
fn orange(p: [u8; 3]) -> bool {
    p[0] > 140 && i32::from(p[0]) - i32::from(p[1]) > 40 && p[1] > p[2]
}

fn sky(p: [u8; 3]) -> bool {
    p[2] > p[0] && p[2] > p[1] && p[2] > 180
}

#[test]
fn a_broken_tower_block_drops_the_two_above_onto_the_lowest_and_they_are_drawn_there() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("tower");
    let placed_png = dir.join("placed.png");
    let aim_png = dir.join("aim.png");
    let rest_png = dir.join("rest.png");
    let script = dir.join("tower.json");
    let blocks: Vec<String> = (0..4)
        .map(|i| {
            let material = ["Stone", "Bricks", "Planks", "Planks"][i];
            format!(
                r#"{{"t": 0, "place": {{"cell": [-1, {}, 0], "material": "{material}"}}}}"#,
                2 * i as i32 - 1
            )
        })
        .collect();
    std::fs::write(
        &script,
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "player": {{"feet": [0.0, 0.0, -10.0]}},
                "duration": 4.0, "report_every": 0.5,
                "events": [{},
                  {{"t": 0, "screenshot": {:?}}},
                  {{"t": 0.1, "look": {{"yaw_degrees": 0, "pitch_degrees": {PITCH_DEGREES}}}}},
                  {{"t": 0.2, "state": true}},
                  {{"t": 0.2, "screenshot": {:?}}},
                  {{"t": 0.5, "press": "MouseLeft"}}, {{"t": 0.55, "release": "MouseLeft"}},
                  {{"t": 4.0, "state": true}},
                  {{"t": 4.0, "screenshot": {:?}}}]}}"#,
            blocks.join(", "),
            placed_png.to_str().unwrap(),
            aim_png.to_str().unwrap(),
            rest_png.to_str().unwrap(),
        ),
    )
    .unwrap();
    // Without shadows: the tint, the blocks and where they fall are the subject (4 s of frames,
    // each cascade drawn again every frame, took most of the run).
    let output = run_script(&script, WIDTH, HEIGHT, &["--shadows", "off"]);
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let lines: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is JSON"))
        .collect();

    // Four placed, all standing.
    let placed = lines.iter().filter(|l| l["event"] == "place").count();
    assert_eq!(placed, 4);
    assert!(lines
        .iter()
        .filter(|l| l["event"] == "place")
        .all(|l| l["placed"] == true));

    // Placed blocks are drawn in the frame that placed them.
    let level = Camera::looking_within(Vec3::from(EYE), Vec3::unit_z(), WIDTH, HEIGHT, 2, 70.0);
    let image = Png::read(&placed_png, (WIDTH, HEIGHT));
    for y in [0.25, 1.0, 2.0, 3.0] {
        let p = image.at(&level, [0.0, y, 0.0]);
        assert!(!sky(p), "the block at {y} m is drawn at once: {p:?}");
    }
    let beside = image.at(&level, [2.0, 3.0, 0.0]);
    assert!(sky(beside), "sky beside the tower: {beside:?}");

    // Aiming at the second: two would fall.
    let states: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("yaw_degrees").is_some())
        .collect();
    assert_eq!(states.len(), 2, "{lines:?}");
    let aimed = states[0];
    assert_eq!(
        aimed["aim"]["cell"],
        serde_json::json!([-1, 1, 0]),
        "{aimed}"
    );
    assert_eq!(aimed["aim"]["would_fall"], 2);
    assert_eq!(aimed["tool"]["kind"], "blocks");
    assert_eq!(aimed["blocks"], 4);

    // The tint over the two upper blocks, not over the lowest one.
    let view = view();
    let image = Png::read(&aim_png, (WIDTH, HEIGHT));
    for y in [2.0, 3.0] {
        let p = image.at(&view, [0.0, y, 0.0]);
        assert!(orange(p), "the block at {y} m is tinted: {p:?}");
    }
    let lowest = image.at(&view, [0.0, 0.3, 0.0]);
    assert!(
        !orange(lowest) && !sky(lowest),
        "the lowest block: {lowest:?}"
    );

    // Broken: the two above fell as one piece onto the lowest block and rest there.
    let broke = lines
        .iter()
        .find(|l| l["event"].is_null() && l["pieces"].as_array().is_some_and(|p| !p.is_empty()))
        .expect("a piece appears");
    assert_eq!(broke["blocks"], 1, "{broke}");
    let last = lines.iter().rev().find(|l| l["pieces"].is_array()).unwrap();
    let piece = &last["pieces"][0];
    assert_eq!(piece["blocks"], 2);
    assert_eq!(piece["resting"], true, "{last}");
    let middle: Vec<f32> = piece["center_of_mass"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    // On the lowest block's top (0.5 m): two 1 m blocks of planks, their middle a meter above it.
    assert!((middle[1] - 1.5).abs() < 0.15, "{middle:?}");
    assert!(
        middle[0].abs() < 0.3 && (middle[2] - 0.5).abs() < 0.3,
        "{middle:?}"
    );
    assert_eq!(states[1]["pieces"], 1);
    assert_eq!(states[1]["falling"], 0);

    // Drawn where the physics put it: the piece's middle is a block, above it the sky where the
    // top block stood.
    let image = Png::read(&rest_png, (WIDTH, HEIGHT));
    let drawn = image.at(&view, [middle[0], middle[1], middle[2] - 0.5]);
    assert!(!sky(drawn), "the piece at its middle: {drawn:?}");
    let above = image.at(&view, [0.0, 3.2, 0.0]);
    assert!(
        sky(above),
        "nothing left where the top block stood: {above:?}"
    );

    // Every pass of the frame, the HUD's among them, was timed.
    let stderr = text(&output.stderr);
    for pass in ["terrain", "blocks", "pieces", "markers", "hud"] {
        assert!(stderr.contains(&format!(", {pass} ")), "{pass} in {stderr}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_bad_script_exits_2_naming_the_place_before_any_frame() {
    let dir = scratch("bad");
    let script = dir.join("bad.json");
    std::fs::write(
        &script,
        r#"{"duration": 1, "events": [{"t": 0.5, "press": "KeyZZ"}]}"#,
    )
    .unwrap();
    let output = run(&script);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("KeyZZ"), "{stderr}");
    assert!(
        stderr.contains("events[0]") || stderr.contains("line 1"),
        "{stderr}"
    );
    assert!(text(&output.stdout).is_empty(), "no trace");

    std::fs::write(&script, r#"{"duration": 1, "frame_dt": 0}"#).unwrap();
    let output = run(&script);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("frame_dt"));

    let output = run(&dir.join("missing.json"));
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("missing.json"));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_same_script_gives_the_same_pictures() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("same");
    let script = dir.join("same.json");
    let shots: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("shot{i}.png"))).collect();
    for shot in &shots {
        // The default world and its showcase, a block placed, the view turned, the HUD's
        // detail on: nothing of the machine's speed may show.
        std::fs::write(
            &script,
            format!(
                r#"{{"duration": 0.5, "frame_dt": 0.05,
                    "events": [{{"t": 0.0, "press": "F3"}},
                               {{"t": 0.1, "turn": [40, -30]}},
                               {{"t": 0.2, "press": "MouseRight"}},
                               {{"t": 0.5, "screenshot": {:?}}}]}}"#,
                shot.to_str().unwrap()
            ),
        )
        .unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_blockfall"))
            .args([
                "--headless",
                "--view-radius",
                "1",
                "--width",
                "320",
                "--height",
                "180",
            ])
            .arg("--script")
            .arg(&script)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    let [a, b] = [&shots[0], &shots[1]].map(|p| std::fs::read(p).unwrap());
    assert!(a == b, "two runs of one script wrote different pictures");
    std::fs::remove_dir_all(dir).ok();
}

/// A `vk_layer_settings.txt` in `dir` turning on the validation layer's best-practices and
/// synchronisation checks; its path, for `VK_LAYER_SETTINGS_PATH`.
fn strict_validation_settings(dir: &Path) -> PathBuf {
    let settings = dir.join("vk_layer_settings.txt");
    std::fs::write(
        &settings,
        "khronos_validation.enables = \
         VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,\
         VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT\n",
    )
    .unwrap();
    settings
}

/// A run's output under [`strict_validation_settings`]: it succeeded, the best-practices checks
/// ran (the warning every debug instance gets shows it), no barrier orders all commands
/// (`BestPractices-pipeline-stage-flags`: every barrier names its stages), no image barrier's
/// access disagrees with its layout, no hazard.
fn assert_clean_under_strict_validation(output: &Output) {
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    assert!(
        stderr.contains("BestPractices-"),
        "the best-practices checks did not run: {stderr}"
    );
    for flagged in [
        "BestPractices-pipeline-stage-flags",
        "BestPractices-ImageBarrierAccessLayout",
        "SYNC-HAZARD",
    ] {
        let count = stderr.matches(flagged).count();
        assert_eq!(count, 0, "{count} × {flagged}: {stderr}");
    }
}

/// The plaster tower's script (`tools/scripts/plaster_tower.json`) headless under the strict
/// checks ([`assert_clean_under_strict_validation`]).
#[test]
fn the_plaster_tower_runs_clean_under_best_practices_and_synchronisation_validation() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("best-practices");
    let settings = strict_validation_settings(&dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/scripts/plaster_tower.json");
    let output = headless(&script)
        .current_dir(&dir)
        .env("VK_LAYER_SETTINGS_PATH", &settings)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the blockfall binary runs");
    assert_clean_under_strict_validation(&output);
    std::fs::remove_dir_all(dir).ok();
}

/// 600 frames of the game in a window (the swapchain's images acquired, drawn through the frame
/// graph and presented) under the strict checks. Needs a display: `tools/test.sh` starts Xvfb.
#[test]
fn six_hundred_window_frames_run_clean_under_best_practices_and_synchronisation_validation() {
    if skip_gpu() {
        return;
    }
    let display = std::env::var_os("DISPLAY").or_else(|| std::env::var_os("WAYLAND_DISPLAY"));
    assert!(
        display.is_some(),
        "this test opens a window and needs a display: run it through tools/test.sh (which \
         starts Xvfb), or under xvfb-run"
    );
    let dir = scratch("best-practices-window");
    let settings = strict_validation_settings(&dir);
    let output = Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .args([
            "--validation",
            "--frames",
            "600",
            "--view-radius",
            "1",
            "--width",
            "160",
            "--height",
            "120",
        ])
        .current_dir(&dir)
        .env("VK_LAYER_SETTINGS_PATH", &settings)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the blockfall binary runs");
    assert_clean_under_strict_validation(&output);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("600 frames on "),
        "600 frames presented: {stderr}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// The `chunks` of every `state` line of a run's output, by time: (t, mesher, loaded, waiting).
fn chunk_states(stdout: &str) -> Vec<(f64, String, u64, u64)> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|state| {
            let chunks = state.get("chunks")?;
            Some((
                state["t"].as_f64()?,
                chunks["mesher"].as_str()?.to_owned(),
                chunks["loaded"].as_u64()?,
                chunks["waiting"].as_u64()?,
            ))
        })
        .collect()
}

#[test]
fn pressing_m_meshes_the_terrain_again_with_marching_cubes_and_back() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("mesher");
    let before = dir.join("before.png");
    let after = dir.join("after.png");
    let script = dir.join("mesher.json");
    // The default world; M at 1 s, the pictures before and 3 s after, M again at 4.2 s.
    std::fs::write(
        &script,
        format!(
            r#"{{"duration": 7.0, "frame_dt": 0.05,
                "events": [{{"t": 1.0, "state": true}}, {{"t": 1.0, "screenshot": {:?}}},
                           {{"t": 1.05, "press": "KeyM"}}, {{"t": 1.1, "release": "KeyM"}},
                           {{"t": 1.1, "state": true}},
                           {{"t": 4.1, "state": true}}, {{"t": 4.1, "screenshot": {:?}}},
                           {{"t": 4.2, "press": "KeyM"}}, {{"t": 4.25, "release": "KeyM"}},
                           {{"t": 4.3, "state": true}}, {{"t": 7.0, "state": true}}]}}"#,
            before.to_str().unwrap(),
            after.to_str().unwrap()
        ),
    )
    .unwrap();
    // Without shadows: the meshers' ground is the subject, and 7 s of frames with every
    // cascade drawn again took most of the run.
    let output = run_script(&script, WIDTH, HEIGHT, &["--shadows", "off"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let states = chunk_states(&stdout);
    let at = |t: f64| {
        states
            .iter()
            .find(|state| (state.0 - t).abs() < 1e-6)
            .unwrap_or_else(|| panic!("no state at {t}: {stdout}"))
            .clone()
    };
    let (_, mesher, loaded, waiting) = at(1.0);
    assert_eq!(
        (mesher.as_str(), waiting),
        ("surface-nets", 0),
        "{states:?}"
    );
    assert!(loaded > 20, "{states:?}");
    // Every chunk with a surface queued the moment M is pressed, all meshed again 3 s later.
    let (_, mesher, _, waiting) = at(1.1);
    assert_eq!(mesher, "marching-cubes");
    assert!(waiting > 5, "{states:?}");
    assert_eq!(at(4.1).3, 0, "{states:?}");
    assert_eq!(at(4.1).1, "marching-cubes");
    // And back (a few dozen chunks: meshed again within a frame or two of the press).
    assert_eq!(at(4.3).1, "surface-nets");
    assert_eq!(at(7.0).1, "surface-nets");
    assert_eq!(at(7.0).3, 0, "{states:?}");

    // The same hills in both pictures: below the HUD's panel, the sky where it was and the
    // ground where it was, pixel for pixel but for a few along the skyline, and the ground
    // lit alike (each mesher's own triangles: mean brightness within a few levels).
    let (before, after) = (
        Png::read(&before, (WIDTH, HEIGHT)),
        Png::read(&after, (WIDTH, HEIGHT)),
    );
    let rows = (HEIGHT / 2)..HEIGHT;
    let (mut sky_moved, mut ground, mut sums) = (0u32, 0u32, [0u64; 2]);
    for y in rows {
        for x in 0..WIDTH {
            let i = ((y * WIDTH + x) * 4) as usize;
            let pixel = |png: &Png| [png.bytes[i], png.bytes[i + 1], png.bytes[i + 2]];
            let (b, a) = (pixel(&before), pixel(&after));
            if sky(b) != sky(a) {
                sky_moved += 1;
            }
            if !sky(b) {
                ground += 1;
                sums[0] += b.iter().map(|&c| u64::from(c)).sum::<u64>();
                sums[1] += a.iter().map(|&c| u64::from(c)).sum::<u64>();
            }
        }
    }
    assert!(ground > WIDTH * HEIGHT / 4, "{ground} ground pixels");
    assert!(
        sky_moved < ground / 100,
        "{sky_moved} pixels changed between sky and ground"
    );
    let mean = |sum: u64| sum as f64 / (3.0 * f64::from(ground));
    assert!(
        (mean(sums[0]) - mean(sums[1])).abs() < 6.0,
        "ground brightness {} against {}",
        mean(sums[0]),
        mean(sums[1])
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A headless scripted run of `script` at 320×180 with the HUD off, a view radius of 2 and
/// `extra` flags; its output, checked to have succeeded.
fn small_run(script: &Path, extra: &[&str]) -> Output {
    let output = run_script(script, 320, 180, &[&["--no-hud"], extra].concat());
    assert!(output.status.success(), "{}", text(&output.stderr));
    output
}

#[test]
fn surface_nets_and_marching_cubes_draw_the_same_hills_where_shelves_stood() {
    if skip_gpu() {
        return;
    }
    // Where a newcomer first saw the shelves: feet at (-5, 2.3, 39.5) m, looking south and
    // down 34°, onto hills that cross y = 0 (a layer border). Surface nets drew flat terraces
    // with upright walls there (their skirts rose to the chunk's top face); marching cubes,
    // which hang no skirt, drew the hills smooth. The same hills now, in both.
    let dir = scratch("shelves");
    let (nets, cubes) = (dir.join("nets.png"), dir.join("cubes.png"));
    let script = dir.join("shelves.json");
    for (feet, yaw, pitch) in [
        ([-5.0f32, 2.3, 39.5], 180.0f32, -34.0f32),
        // Hills just under y = 32, 300 m south-west of the spawn.
        ([-294.0, 35.0, -204.0], 180.0, -30.0),
    ] {
        std::fs::write(
            &script,
            format!(
                r#"{{"duration": 1.5, "frame_dt": 0.05,
                    "player": {{"feet": {feet:?}, "yaw_degrees": {yaw}, "pitch_degrees": {pitch},
                                "mode": "fly"}},
                    "events": [{{"t": 0.1, "screenshot": {:?}}},
                               {{"t": 0.15, "press": "KeyM"}}, {{"t": 0.2, "release": "KeyM"}},
                               {{"t": 1.5, "state": true}}, {{"t": 1.5, "screenshot": {:?}}}]}}"#,
                nets.to_str().unwrap(),
                cubes.to_str().unwrap()
            ),
        )
        .unwrap();
        let output = small_run(&script, &[]);
        let states = chunk_states(&text(&output.stdout));
        let last = states.last().expect("a state line");
        assert_eq!(
            (last.1.as_str(), last.3),
            ("marching-cubes", 0),
            "{states:?}"
        );
        let (a, b) = (Png::read(&nets, (320, 180)), Png::read(&cubes, (320, 180)));
        let differences = a.channel_differences(&b);
        // Each mesher's own triangles light the ground a little differently (91 and 15 pixels
        // past 40 levels here); a shelf's wall and its shadow change a whole strip (372 and
        // 623 pixels).
        let changed = differences.iter().filter(|&&d| d > 40).count();
        eprintln!(
            "feet {feet:?}: {changed} of {} pixels differ by more than 40 between the meshers",
            differences.len()
        );
        assert!(
            changed <= differences.len() / 250,
            "feet {feet:?}: {changed} of {} pixels differ by more than 40 between surface nets \
             and marching cubes ({} and {})",
            differences.len(),
            nets.display(),
            cubes.display()
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_scripts_dig_and_build_are_drawn_as_the_terrain_tools_are() {
    if skip_gpu() {
        return;
    }
    // Looking down at open ground away from the showcase: a scene's `dig` event, then a
    // `build`, each meshed at once (the world notes every edit, and the renderer meshes what
    // the frame reports, as for the terrain tool). A dig once changed the world and not the
    // picture.
    use blockfall_game::terrain::Generator;
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let (x, z) = (-30.0f32, 20.0f32);
    let ground = generator.surface_height(x, z + 6.0);
    let feet = [x, generator.surface_height(x, z) + 3.0, z];
    let dir = scratch("scripted-edits");
    let shots: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("shot{i}.png"))).collect();
    let script = dir.join("edits.json");
    std::fs::write(
        &script,
        format!(
            r#"{{"duration": 0.5, "frame_dt": 0.05,
                "player": {{"feet": {feet:?}, "yaw_degrees": 0, "pitch_degrees": -30,
                            "mode": "fly"}},
                "events": [{{"t": 0.1, "screenshot": {:?}}},
                           {{"t": 0.15, "dig": {{"center": [{x}, {ground}, {}], "radius": 3}}}},
                           {{"t": 0.15, "screenshot": {:?}}},
                           {{"t": 0.3, "build": {{"center": [{}, {ground}, {}], "radius": 2}}}},
                           {{"t": 0.3, "screenshot": {:?}}}]}}"#,
            shots[0].to_str().unwrap(),
            z + 6.0,
            shots[1].to_str().unwrap(),
            x + 4.0,
            z + 4.0,
            shots[2].to_str().unwrap()
        ),
    )
    .unwrap();
    let output = small_run(&script, &[]);
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(r#""event":"dig""#) && stdout.contains(r#""changed":true"#),
        "{stdout}"
    );
    let pictures: Vec<Png> = shots.iter().map(|s| Png::read(s, (320, 180))).collect();
    for (i, what) in [(1, "the dig"), (2, "the mound")] {
        let differences = pictures[i - 1].channel_differences(&pictures[i]);
        let changed = differences.iter().filter(|&&d| d > 24).count();
        eprintln!("{what}: {changed} pixels changed");
        assert!(
            changed > differences.len() / 50,
            "{what} was not drawn in the frame it was made in: {changed} of {} pixels changed \
             ({})",
            differences.len(),
            shots[i].display()
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_scripted_run_draws_as_its_settings_file_says_and_names_what_it_cannot_honour() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("script-settings");
    let script = dir.join("settings.json");
    let picture = |name: &str| dir.join(format!("{name}.png"));
    let run = |name: &str, settings: Option<&str>| -> (Png, String, String) {
        let shot = picture(name);
        std::fs::write(
            &script,
            format!(
                r#"{{"duration": 0.2, "frame_dt": 0.05,
                    "events": [{{"t": 0.2, "state": true}}, {{"t": 0.2, "screenshot": {:?}}}]}}"#,
                shot.to_str().unwrap()
            ),
        )
        .unwrap();
        let settings_path = dir.join(format!("{name}.ron"));
        let mut extra = Vec::new();
        if let Some(settings) = settings {
            std::fs::write(&settings_path, settings).unwrap();
            extra = vec!["--settings", settings_path.to_str().unwrap()];
        }
        let output = small_run(&script, &extra);
        (
            Png::read(&shot, (320, 180)),
            text(&output.stdout),
            text(&output.stderr),
        )
    };
    let (default, _, _) = run("default", None);
    let (written_defaults, _, stderr) = run("defaults", Some("()"));
    assert_eq!(
        default.bytes, written_defaults.bytes,
        "a settings file of defaults draws the default picture"
    );
    assert!(!stderr.contains("cannot honour"), "{stderr}");
    let changed = |png: &Png| {
        default
            .channel_differences(png)
            .iter()
            .filter(|&&d| d > 24)
            .count()
    };
    let (narrow, _, _) = run("fov", Some("(fov_degrees: 30.0)"));
    assert!(changed(&narrow) > 320 * 180 / 10, "a field of view of 30°");
    let (flat, _, _) = run("shadows", Some("(shadows: Off)"));
    assert!(changed(&flat) > 320 * 180 / 200, "shadows off");
    let (_, stdout, _) = run("mesher", Some("(mesher: MarchingCubes)"));
    assert!(stdout.contains("marching-cubes"), "{stdout}");
    // Keys and the mouse are not a script's: one warning line names them, and the run goes on.
    let (keys, _, stderr) = run(
        "keys",
        Some("(bindings: {fly: [KeyG]}, mouse_sensitivity: 2.0, fov_degrees: 30.0)"),
    );
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("cannot honour"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("bindings") && warnings[0].contains("mouse_sensitivity"),
        "{stderr}"
    );
    assert!(!warnings[0].contains("fov_degrees"), "{stderr}");
    assert_eq!(keys.bytes, narrow.bytes, "the rest of the file is honoured");
    std::fs::remove_dir_all(dir).ok();
}
