//! The blows heard, through `--audio-wav`: scripted runs headless whose sound is written to a
//! WAV file and read back. Silence before the first blow; a copper cube landing from 4 m is
//! louder than one from half a meter and rings longer than a planks cube; a blow on the
//! player's left is louder in the left channel; nothing clips.

use std::path::{Path, PathBuf};

use blockfall_audio::read_wav;

use crate::common::{run_script, scratch, skip_gpu, text};

/// When the blocks are broken, seconds.
const BREAK_AT: f64 = 1.0;

/// A scene: the player at (0, 0, −10) facing +z (its left is +x), the blocks of `places`
/// placed at the start, the cell `broken` broken at [`BREAK_AT`]; three seconds, its sound
/// written to `wav`. Returns the samples.
fn heard(
    dir: &Path,
    name: &str,
    places: &[(i32, i32, i32, u8, &str)],
    broken: [i32; 3],
) -> Vec<[f32; 2]> {
    let wav: PathBuf = dir.join(format!("{name}.wav"));
    let events: Vec<String> = places
        .iter()
        .map(|(x, y, z, size, material)| {
            format!(
                r#"{{"t": 0, "place": {{"cell": [{x}, {y}, {z}], "size": {size}, "material": "{material}"}}}}"#
            )
        })
        .collect();
    let script = dir.join(format!("{name}.json"));
    std::fs::write(
        &script,
        format!(
            r#"{{"terrain": {{"flat": {{"height": 0.0}}}},
                "player": {{"feet": [0.0, 0.0, -10.0]}},
                "duration": 3.0, "frame_dt": 0.02,
                "events": [{}, {{"t": {BREAK_AT}, "break": {broken:?}}}]}}"#,
            events.join(", ")
        ),
    )
    .unwrap();
    let output = run_script(
        &script,
        160,
        90,
        &[
            "--shadows",
            "off",
            "--no-hud",
            "--audio-wav",
            wav.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{name}: {}", text(&output.stderr));
    let (rate, samples) = read_wav(&wav).expect("the WAV file reads back");
    assert_eq!(rate, 48_000);
    let seconds = samples.len() as f64 / 48_000.0;
    assert!(
        (seconds - 3.0).abs() < 0.05,
        "{name}: {seconds} s of sound for 3 s of play"
    );
    samples
}

/// A pillar of 1 m stone blocks up to `top` cells, an arm off it at +x (or −x when `side` is
/// −1), and a 1 m block of `material` hanging off the arm: breaking the arm drops it from
/// `top` cells (half meters).
fn arm(top: i32, side: i32, material: &str) -> Vec<(i32, i32, i32, u8, &str)> {
    let mut places: Vec<(i32, i32, i32, u8, &str)> =
        (0..=top / 2).map(|i| (0, 2 * i, 0, 2, "Stone")).collect();
    places.push((2 * side, top, 0, 2, "Stone"));
    places.push((4 * side, top, 0, 2, material));
    places
}

const RATE: f64 = 48_000.0;

fn at(seconds: f64) -> usize {
    (seconds * RATE) as usize
}

/// The loudest sample from `from` seconds on, and when.
fn peak_after(samples: &[[f32; 2]], from: f64) -> (f32, usize) {
    samples[at(from)..]
        .iter()
        .enumerate()
        .map(|(i, s)| (s[0].abs().max(s[1].abs()), at(from) + i))
        .fold(
            (0.0, 0),
            |best, this| if this.0 > best.0 { this } else { best },
        )
}

/// Seconds from the sample `start` until the loudest of each 10 ms stays below `level`.
fn ring_time(samples: &[[f32; 2]], start: usize, level: f32) -> f64 {
    let window = at(0.01);
    let mut last_loud = start;
    for (index, chunk) in samples[start..].chunks(window).enumerate() {
        let loudest = chunk
            .iter()
            .map(|s| s[0].abs().max(s[1].abs()))
            .fold(0.0, f32::max);
        if loudest >= level {
            last_loud = start + index * window;
        }
    }
    (last_loud - start) as f64 / RATE
}

/// Root mean square of each channel over `samples`.
fn rms(samples: &[[f32; 2]]) -> (f32, f32) {
    let n = samples.len().max(1) as f32;
    let (l, r) = samples
        .iter()
        .fold((0.0, 0.0), |(l, r), s| (l + s[0] * s[0], r + s[1] * s[1]));
    ((l / n).sqrt(), (r / n).sqrt())
}

#[test]
fn blows_are_heard_by_their_impulse_material_and_side_and_nothing_clips() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("sound");
    let copper_high = heard(&dir, "copper-4m", &arm(8, 1, "Copper"), [2, 8, 0]);
    // A copper cube on a half-meter plaster block: breaking the plaster drops it 0.5 m.
    let copper_low = heard(
        &dir,
        "copper-half",
        &[(4, 0, 0, 1, "Plaster"), (4, 1, 0, 2, "Copper")],
        [4, 0, 0],
    );
    let planks_high = heard(&dir, "planks-4m", &arm(8, 1, "Planks"), [2, 8, 0]);
    let copper_right = heard(&dir, "copper-4m-right", &arm(8, -1, "Copper"), [-2, 8, 0]);

    for (name, samples) in [
        ("copper 4 m", &copper_high),
        ("copper 0.5 m", &copper_low),
        ("planks 4 m", &planks_high),
        ("copper 4 m on the right", &copper_right),
    ] {
        // Silence before the first blow (the break), exactly.
        let before = &samples[..at(BREAK_AT - 0.01)];
        assert!(
            before.iter().all(|s| s[0] == 0.0 && s[1] == 0.0),
            "{name}: sound before the first blow"
        );
        // Heard, and never over 0 dBFS.
        let (peak, _) = peak_after(samples, 0.0);
        assert!(peak > 0.01, "{name}: nothing heard ({peak})");
        assert!(peak <= 1.0, "{name}: clipped ({peak})");
    }

    // Landings, after the break's own sound (the arm's stone, the plaster) has passed.
    let (high, high_at) = peak_after(&copper_high, BREAK_AT + 0.5);
    let (low, _) = peak_after(&copper_low, BREAK_AT + 0.2);
    assert!(
        high > 1.2 * low,
        "copper from 4 m {high} against 0.5 m {low}"
    );

    let (planks, planks_at) = peak_after(&planks_high, BREAK_AT + 0.5);
    let copper_rings = ring_time(&copper_high, high_at, high * 0.01);
    let planks_rings = ring_time(&planks_high, planks_at, planks * 0.01);
    eprintln!("rings to -40 dB: copper {copper_rings} s, planks {planks_rings} s");
    assert!(
        copper_rings > 2.0 * planks_rings && copper_rings > 0.5,
        "copper rings {copper_rings} s, planks {planks_rings} s"
    );

    // The cube lands at +x, the player's left: louder on the left; mirrored, on the right.
    let span = |start: usize| start..(start + at(0.5)).min(copper_high.len());
    let (left, right) = rms(&copper_high[span(high_at)]);
    eprintln!("on the left: left {left}, right {right}");
    assert!(left > 1.2 * right, "left {left} right {right}");
    let (_, mirrored_at) = peak_after(&copper_right, BREAK_AT + 0.5);
    let (left, right) = rms(&copper_right[span(mirrored_at)]);
    assert!(right > 1.2 * left, "mirrored: left {left} right {right}");
    std::fs::remove_dir_all(dir).ok();
}
