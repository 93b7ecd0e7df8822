//! Dust and debris, driven by scripts headless: a break shows particles of its material where
//! the block was (the state line counts them; the picture there changes against a run without
//! particles), and they fade: a few seconds on the picture is the one without them. A heavier
//! blow throws more. Under 300 falling pieces the live particles stay within the budget.

use std::path::Path;

use serde_json::Value;

use crate::common::{run_script, scratch, skip_gpu, text, Png};

const WIDTH: u32 = 320;
const HEIGHT: u32 = 180;

/// The state lines' particle counts, in order.
fn particle_counts(stdout: &[u8]) -> Vec<u64> {
    text(stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| line.get("particles").and_then(Value::as_u64))
        .collect()
}

/// A block of `size` cells and `material` in front of the player, broken at 1 s, with
/// screenshots at 1.15 s and 4.6 s; `settings` is the settings file's text. Returns the counts
/// of particles alive at 1.1 s and at 4.6 s, and the two pictures.
fn broken(
    dir: &Path,
    name: &str,
    size: u8,
    material: &str,
    settings: &str,
) -> (Vec<u64>, Png, Png) {
    let script = dir.join(format!("{name}.json"));
    let (during, after) = (
        dir.join(format!("{name}-during.png")),
        dir.join(format!("{name}-after.png")),
    );
    std::fs::write(
        &script,
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "player": {{"feet": [0.5, 0.0, -5.0], "pitch_degrees": -8}},
                "duration": 4.6, "frame_dt": 0.05,
                "events": [
                  {{"t": 0, "place": {{"cell": [0, 0, 0], "size": {size}, "material": "{material}"}}}},
                  {{"t": 1.0, "break": [0, 0, 0]}},
                  {{"t": 1.1, "state": true}},
                  {{"t": 1.15, "screenshot": {during:?}}},
                  {{"t": 4.6, "state": true}},
                  {{"t": 4.6, "screenshot": {after:?}}}]}}"#
        ),
    )
    .unwrap();
    let file = dir.join(format!("{name}.ron"));
    std::fs::write(&file, settings).unwrap();
    let output = run_script(
        &script,
        WIDTH,
        HEIGHT,
        &["--settings", file.to_str().unwrap(), "--no-hud"],
    );
    assert!(output.status.success(), "{name}: {}", text(&output.stderr));
    (
        particle_counts(&output.stdout),
        Png::read(&during, (WIDTH, HEIGHT)),
        Png::read(&after, (WIDTH, HEIGHT)),
    )
}

#[test]
fn a_break_shows_its_materials_dust_where_it_was_and_it_fades() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("particles");
    let settings = "(shadows: Off, camera_shake: false)";
    let (counts, during, after) = broken(&dir, "bricks", 2, "Bricks", settings);
    let (off_counts, during_off, after_off) = broken(
        &dir,
        "bricks-off",
        2,
        "Bricks",
        "(shadows: Off, camera_shake: false, particles: 0)",
    );
    assert!(counts[0] > 0, "particles alive after the break: {counts:?}");
    assert_eq!(counts[1], 0, "all faded within 3.6 s: {counts:?}");
    assert_eq!(off_counts, [0, 0], "none with a budget of 0");

    // Where the block was, the picture changed, toward the bricks' red.
    let mut changed = Vec::new();
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let (a, b) = (during.pixel(x, y), during_off.pixel(x, y));
            if a.iter().zip(b).any(|(p, q)| p.abs_diff(q) > 8) {
                changed.push((x, y, a, b));
            }
        }
    }
    assert!(changed.len() > 30, "{} pixels changed", changed.len());
    let (sx, sy) = changed
        .iter()
        .fold((0u64, 0u64), |(sx, sy), &(x, y, _, _)| {
            (sx + u64::from(x), sy + u64::from(y))
        });
    let (cx, cy) = (sx / changed.len() as u64, sy / changed.len() as u64);
    assert!(
        (WIDTH as u64 / 4..WIDTH as u64 * 3 / 4).contains(&cx)
            && (HEIGHT as u64 / 4..HEIGHT as u64 * 3 / 4).contains(&cy),
        "around the block ahead: centred at ({cx}, {cy})"
    );
    let redder = changed
        .iter()
        .filter(|(_, _, a, b)| {
            i32::from(a[0]) - i32::from(a[2]) > i32::from(b[0]) - i32::from(b[2])
        })
        .count();
    assert!(
        redder * 2 > changed.len(),
        "the bricks' colour: {redder} of {} redder",
        changed.len()
    );
    // Faded back: the same picture as without particles.
    assert_eq!(after.bytes, after_off.bytes, "the dust is gone");

    // A heavier blow throws more: a 2 m block against a 0.5 m one.
    let (heavy, _, _) = broken(&dir, "heavy", 4, "Bricks", settings);
    let (light, _, _) = broken(&dir, "light", 1, "Bricks", settings);
    assert!(heavy[0] > light[0], "heavy {heavy:?} light {light:?}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn three_hundred_falling_pieces_keep_within_the_budget() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("particles-budget");
    // The game's benchmark scene (tools/bench/game.py): 300 towers of two, the lower blocks
    // broken at once; state lines every frame.
    let mut blocks = Vec::new();
    let mut events = Vec::new();
    for i in 0..300 {
        let (x, z) = ((i % 20) * 4 - 40, (i / 20) * 4 + 12);
        blocks.push(format!(
            r#"{{"cell": [{x}, -1, {z}], "material": "Stone"}}"#
        ));
        blocks.push(format!(
            r#"{{"cell": [{x}, 1, {z}], "material": "Copper"}}"#
        ));
        events.push(format!(r#"{{"t": 0.1, "break": [{x}, -1, {z}]}}"#));
    }
    for step in 1..=15 {
        events.push(format!(
            r#"{{"t": {}, "state": true}}"#,
            f64::from(step) * 0.1
        ));
    }
    let script = dir.join("pieces.json");
    std::fs::write(
        &script,
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "player": {{"feet": [0.0, 6.0, -8.0], "mode": "fly", "pitch_degrees": -25}},
                "blocks": [{}], "events": [{}], "duration": 1.5, "frame_dt": 0.05}}"#,
            blocks.join(", "),
            events.join(", ")
        ),
    )
    .unwrap();
    let settings = dir.join("budget.ron");
    std::fs::write(&settings, "(shadows: Off, particles: 500)").unwrap();
    let output = run_script(
        &script,
        160,
        90,
        &["--settings", settings.to_str().unwrap(), "--no-hud"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let counts = particle_counts(&output.stdout);
    assert_eq!(counts.len(), 15, "{counts:?}");
    assert!(counts.iter().all(|&n| n <= 500), "{counts:?}");
    assert!(
        counts.iter().any(|&n| n >= 250),
        "300 breaks and their landings fill the budget: {counts:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}
