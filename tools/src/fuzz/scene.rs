//! Scene and script files (one format: `blockfall_game::scene`), parsed by `scene::parse` and,
//! when small, run by `scene::run_with_pool` into memory.
//!
//! Most inputs are valid scenes with one thing changed: a value set to an extreme (huge, tiny,
//! negative, `-0`, `1e300`, `1e-300`, out of `f64`'s range, a number as a string, a wrong
//! type), a key unknown, doubled or dropped, an array too short or too long, deep nesting, a
//! long string, unicode; or the text wrapped (a byte-order mark, a top-level array, trailing
//! text). The rest are the scenes of the tests and the README with their bytes changed.
//!
//! A refused scene must get a short message that names its place (a key path such as
//! `events[3].t`, or a line and column). An accepted scene of at most [`MOST_FRAMES`] frames,
//! with no `world_file`, is run, its `save` events writing into a temporary folder: it must
//! write a whole trace (JSON lines ending in `done`), or, refused while it runs, none at all.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::OnceLock;

use blockfall_game::blocks::materials::MATERIALS;
use blockfall_game::blocks::store::SIZES;
use blockfall_game::input::Button;
use blockfall_game::scene::{self, ActionSpec, SceneFile};
use blockfall_physics::workers::WorkerPool;

use super::{check_message, mutate_bytes, Outcome, Rng};

/// The most frames of a scene that is run.
pub const MOST_FRAMES: f64 = 120.0;
/// The longest input, in bytes.
const LONGEST: usize = 4 << 20;

/// A JSON value as written: numbers and literals as their text (so `-0`, `1e999` and `NaN`
/// can be written), objects as lists of pairs (so a key can be doubled).
#[derive(Debug, Clone)]
enum Json {
    Raw(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn num(value: impl std::fmt::Display) -> Json {
        Json::Raw(value.to_string())
    }

    fn str(text: &str) -> Json {
        Json::Str(text.to_owned())
    }

    fn obj(pairs: Vec<(&str, Json)>) -> Json {
        Json::Obj(
            pairs
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Raw(text) => out.push_str(text),
            Json::Str(text) => write_string(text, out),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Obj(pairs) => {
                out.push('{');
                for (i, (key, value)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_string(key, out);
                    out.push_str(": ");
                    value.write(out);
                }
                out.push('}');
            }
        }
    }

    /// Every value in the tree, counted depth first (this one is 0).
    fn count(&self) -> usize {
        1 + match self {
            Json::Raw(_) | Json::Str(_) => 0,
            Json::Arr(items) => items.iter().map(Json::count).sum(),
            Json::Obj(pairs) => pairs.iter().map(|(_, value)| value.count()).sum(),
        }
    }

    /// The value numbered `index` depth first.
    fn nth(&mut self, index: usize) -> Option<&mut Json> {
        if index == 0 {
            return Some(self);
        }
        let mut index = index - 1;
        let children: Vec<&mut Json> = match self {
            Json::Raw(_) | Json::Str(_) => return None,
            Json::Arr(items) => items.iter_mut().collect(),
            Json::Obj(pairs) => pairs.iter_mut().map(|(_, value)| value).collect(),
        };
        for child in children {
            let size = child.count();
            if index < size {
                return child.nth(index);
            }
            index -= size;
        }
        None
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Numbers at and past the edges of every range a scene has.
const ODD_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "-1",
    "1e300",
    "-1e300",
    "1e-300",
    "-1e-300",
    "1e999",
    "-1e999",
    "1.7976931348623157e308",
    "4.9e-324",
    "3.4028235e38",
    "3.5e38",
    "1e-45",
    "0.1",
    "0.1000001",
    "86400",
    "86400.000001",
    "64",
    "64.0001",
    "89",
    "1000",
    "1001",
    "1e9",
    "-1e9",
    "1e12",
    "255",
    "256",
    "65535",
    "65536",
    "1048576",
    "1048577",
    "-1048577",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "123456789012345678901234567890",
    "0.5",
    "1.5",
    "2.5",
];

/// Values of the wrong type, or a number in disguise.
const ODD_VALUES: &[&str] = &[
    "\"NaN\"",
    "\"-0\"",
    "\"1\"",
    "\"inf\"",
    "NaN",
    "Infinity",
    "-Infinity",
    "true",
    "false",
    "null",
    "[]",
    "{}",
    "[null]",
    "{\"flat\": null}",
    "\"\"",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\"é🧱\u{202e}\"",
    "01",
    ".5",
    "5.",
    "+1",
    "0x10",
];

/// A few of `items`, `low` to `high` of them.
fn some<T>(rng: &mut Rng, low: i64, high: i64, mut item: impl FnMut(&mut Rng) -> T) -> Vec<T> {
    (0..rng.between(low, high)).map(|_| item(rng)).collect()
}

fn small(rng: &mut Rng, low: f64, high: f64) -> Json {
    // Round numbers half the time: they read as integers where one is wanted.
    if rng.one_in(2) {
        Json::num(rng.between(low.ceil() as i64, high.floor() as i64))
    } else {
        Json::num(format!("{:.3}", rng.float(low, high)))
    }
}

fn point(rng: &mut Rng, spread: f64) -> Json {
    Json::Arr(some(rng, 3, 3, |rng| small(rng, -spread, spread)))
}

fn cell(rng: &mut Rng) -> Json {
    Json::Arr(some(rng, 3, 3, |rng| Json::num(rng.between(-12, 12))))
}

fn sphere(rng: &mut Rng) -> Json {
    Json::obj(vec![
        ("center", point(rng, 10.0)),
        ("radius", small(rng, 0.5, 5.0)),
    ])
}

fn block(rng: &mut Rng) -> Json {
    let mut pairs = vec![
        ("cell", cell(rng)),
        ("material", Json::str(rng.pick(&MATERIALS).name)),
    ];
    if rng.one_in(2) {
        pairs.push(("size", Json::num(rng.pick(&SIZES))));
    }
    if rng.one_in(3) {
        pairs.push(("cuts", Json::num(rng.between(0, 4095))));
    }
    if rng.one_in(4) {
        pairs.push(("slope", Json::Raw(rng.one_in(2).to_string())));
    }
    Json::obj(pairs)
}

fn button(rng: &mut Rng) -> Json {
    let name = serde_json::to_string(rng.pick(Button::ALL)).unwrap_or_default();
    Json::str(name.trim_matches('"'))
}

fn event(rng: &mut Rng, duration: f64) -> Json {
    let action = match rng.below(14) {
        0 => ("press", button(rng)),
        1 => ("release", button(rng)),
        2 => ("break", cell(rng)),
        3 => ("place", block(rng)),
        4 => ("dig", sphere(rng)),
        5 => ("build", sphere(rng)),
        6 => ("would_fall", cell(rng)),
        7 => (
            "break_piece",
            Json::obj(vec![
                ("piece", Json::num(rng.between(0, 3))),
                ("cell", cell(rng)),
            ]),
        ),
        8 => (
            "turn",
            Json::Arr(vec![small(rng, -500.0, 500.0), small(rng, -500.0, 500.0)]),
        ),
        9 => ("wheel", small(rng, -5.0, 5.0)),
        10 => (
            "look",
            Json::obj(vec![
                ("yaw_degrees", small(rng, -360.0, 360.0)),
                ("pitch_degrees", small(rng, -90.0, 90.0)),
            ]),
        ),
        11 => ("screenshot", Json::str("shot.png")),
        12 => ("state", Json::Raw(rng.one_in(4).to_string())),
        _ => ("save", Json::str("mid.blockfall")),
    };
    // Rounded down to milliseconds, so it stays within the scene.
    let t = (rng.float(0.0, duration) * 1e3).floor() / 1e3;
    Json::obj(vec![("t", Json::num(t)), action])
}

/// A valid scene (most of the time: blocks may overlap, which the world refuses).
fn valid_scene(rng: &mut Rng) -> Json {
    let mut pairs = Vec::new();
    match rng.below(8) {
        // The game's own start (the generated world and its showcase) costs the most.
        0 => {}
        1 | 2 => pairs.push((
            "terrain",
            Json::obj(vec![(
                "slope",
                Json::obj(vec![
                    ("degrees", small(rng, -60.0, 60.0)),
                    ("height", small(rng, -5.0, 5.0)),
                ]),
            )]),
        )),
        3 => pairs.push((
            "terrain",
            Json::obj(vec![(
                "world",
                Json::obj(vec![("seed", Json::num(rng.between(0, 1000)))]),
            )]),
        )),
        _ => pairs.push((
            "terrain",
            Json::obj(vec![(
                "flat",
                Json::obj(vec![("height", small(rng, -5.0, 5.0))]),
            )]),
        )),
    }
    if rng.one_in(4) {
        pairs.push(("digs", Json::Arr(some(rng, 0, 2, sphere))));
    }
    if rng.one_in(4) {
        pairs.push(("builds", Json::Arr(some(rng, 0, 2, sphere))));
    }
    if rng.one_in(2) {
        pairs.push(("blocks", Json::Arr(some(rng, 0, 8, block))));
    }
    if rng.one_in(12) {
        pairs.push((
            "showcase",
            Json::Arr(vec![small(rng, -50.0, 50.0), small(rng, -50.0, 50.0)]),
        ));
    }
    if rng.one_in(2) {
        pairs.push((
            "player",
            Json::obj(vec![
                ("feet", point(rng, 6.0)),
                ("yaw_degrees", small(rng, -180.0, 180.0)),
                ("pitch_degrees", small(rng, -89.0, 89.0)),
                (
                    "mode",
                    Json::str(if rng.one_in(3) { "fly" } else { "walk" }),
                ),
            ]),
        ));
    }
    let frame_dt = *rng.pick(&[1.0 / 60.0, 1.0 / 30.0, 0.05, 0.1]);
    let duration = (rng.float(0.0, MOST_FRAMES) * frame_dt * 1e3).round() / 1e3;
    pairs.push((
        "events",
        Json::Arr(some(rng, 0, 6, |rng| event(rng, duration))),
    ));
    pairs.push(("duration", Json::num(duration)));
    if rng.one_in(2) {
        pairs.push(("frame_dt", Json::num(frame_dt)));
    }
    if rng.one_in(2) {
        pairs.push((
            "report_every",
            Json::num(*rng.pick(&[0.0, 0.05, 0.1, 0.25, 1.0])),
        ));
    }
    let mut scene = Json::obj(pairs);
    // Shuffled keys: the order of a file's keys does not matter.
    if let Json::Obj(pairs) = &mut scene {
        for i in (1..pairs.len()).rev() {
            pairs.swap(i, rng.below(i + 1));
        }
    }
    scene
}

/// One change to a value somewhere in the scene.
fn change(rng: &mut Rng, scene: &mut Json) {
    let count = scene.count();
    let at = rng.below(count);
    let Some(value) = scene.nth(at) else {
        return;
    };
    match rng.below(10) {
        0..=2 => *value = Json::Raw(rng.pick(ODD_NUMBERS).to_string()),
        3 => *value = Json::Raw(rng.pick(ODD_VALUES).to_string()),
        4 => {
            let length = *rng.pick(&[100, 10_000, 1 << 20]);
            let unit = *rng.pick(&["x", "é", "🧱", "\\", "\""]);
            *value = Json::Str(unit.repeat(length));
        }
        5 => {
            let depth = rng.between(2, 300) as usize;
            let mut nested = value.clone();
            for _ in 0..depth {
                nested = if rng.one_in(2) {
                    Json::Arr(vec![nested])
                } else {
                    Json::obj(vec![("t", nested)])
                };
            }
            *value = nested;
        }
        _ => match value {
            Json::Obj(pairs) => match rng.below(4) {
                0 if !pairs.is_empty() => {
                    pairs.remove(rng.below(pairs.len()));
                }
                1 if !pairs.is_empty() => {
                    let copy = pairs[rng.below(pairs.len())].clone();
                    pairs.push(copy);
                }
                2 if !pairs.is_empty() => {
                    let at = rng.below(pairs.len());
                    let key = rng.pick(&["wind", "Duration", "duration ", "", "t", "é", "press"]);
                    pairs[at].0 = key.to_string();
                }
                _ => {
                    let key = rng.pick(&["wind", "world_file", "terrain", "t", "save", "gravity"]);
                    let odd = Json::Raw(rng.pick(ODD_VALUES).to_string());
                    pairs.push((key.to_string(), odd));
                }
            },
            Json::Arr(items) => match rng.below(3) {
                0 if !items.is_empty() => {
                    items.remove(rng.below(items.len()));
                }
                1 if !items.is_empty() => {
                    let copy = items[rng.below(items.len())].clone();
                    let times = *rng.pick(&[1, 2, 100]);
                    items.extend(std::iter::repeat_n(copy, times));
                }
                _ => items.push(Json::Raw(rng.pick(ODD_NUMBERS).to_string())),
            },
            Json::Raw(_) | Json::Str(_) => *value = Json::Raw(rng.pick(ODD_VALUES).to_string()),
        },
    }
}

/// Text after a scene.
const TRAILING: &[&str] = &["x", "{}", " ", "\n\n", ",", "\u{0}"];

/// Valid scenes of the tests and the README, whose bytes are changed.
const CORPUS: &[&str] = &[
    r#"{"terrain": {"flat": {"height": 0}}, "duration": 1}"#,
    r#"{
        "terrain": {"flat": {"height": 0.0}},
        "blocks": [
            {"cell": [0, 0, 0], "size": 2, "material": "Stone"},
            {"cell": [0, 2, 0], "size": 2, "material": "Bricks"},
            {"cell": [2, 2, 0], "size": 2, "material": "Planks"}
        ],
        "player": {"feet": [-6, 0, -6]},
        "events": [{"t": 0.1, "break": [0, 0, 0]}, {"t": 0.5, "state": true}],
        "duration": 1.0, "report_every": 0.25
    }"#,
    r#"{
        "terrain": {"flat": {"height": 0.0}},
        "digs": [{"center": [0, 0, 0], "radius": 3}], "builds": [],
        "blocks": [{"cell": [4, 0, 4], "size": 2, "material": "Stone", "cuts": 0, "slope": false}],
        "player": {"feet": [0, 0.5, 0], "yaw_degrees": 0, "pitch_degrees": 0, "mode": "walk"},
        "events": [{"t": 0, "press": "KeyW"}, {"t": 1, "release": "KeyW"}, {"t": 1, "break": [4, 0, 4]},
                   {"t": 1, "place": {"cell": [8, 0, 8], "size": 1, "material": "Copper"}},
                   {"t": 1, "dig": {"center": [0, 0, 5], "radius": 2}}, {"t": 0.5, "would_fall": [4, 0, 4]},
                   {"t": 1.5, "break_piece": {"piece": 0, "cell": [4, 2, 4]}},
                   {"t": 1.5, "save": "out/mid.blockfall"}],
        "duration": 2.0, "frame_dt": 0.0166667, "report_every": 0.1
    }"#,
    r#"{"terrain": {"slope": {"degrees": 36, "height": 0}},
        "player": {"feet": [0, 2, 0], "mode": "fly"},
        "events": [{"t": 0, "press": "KeyE"}, {"t": 0.2, "turn": [40, -10]},
                   {"t": 0.3, "wheel": 2}, {"t": 0.4, "look": {"yaw_degrees": 90, "pitch_degrees": -5}},
                   {"t": 0.5, "press": "MouseLeft"}, {"t": 0.6, "release": "MouseLeft"}],
        "duration": 1, "frame_dt": 0.05, "report_every": 0}"#,
    r#"{"terrain": {"world": {"seed": 1}}, "showcase": [0, 0], "duration": 0.2}"#,
];

/// The scene of the README with every key: a text that reaches the most code when changed.
fn corpus_text(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = rng.pick(CORPUS).as_bytes().to_vec();
    mutate_bytes(rng, &mut bytes, LONGEST);
    String::from_utf8_lossy(&bytes).into_owned().into_bytes()
}

/// A scene file: a valid one with one to three changes, or a corpus scene with its bytes
/// changed; sometimes wrapped.
pub fn generate(rng: &mut Rng) -> Vec<u8> {
    if rng.one_in(5) {
        return corpus_text(rng);
    }
    // One case in twelve: a hostile family (many digs, blocks, placements, a tower; a block
    // at and past the world's edge).
    if rng.one_in(12) {
        return super::hostile::generate_scene(rng);
    }
    let mut scene = valid_scene(rng);
    let changes = *rng.pick(&[0, 1, 1, 1, 2, 3]);
    for _ in 0..changes {
        change(rng, &mut scene);
    }
    let mut text = String::new();
    scene.write(&mut text);
    match rng.below(16) {
        0 => text.insert(0, '\u{feff}'),
        1 => text = format!("[{text}]"),
        2 => {
            let trailing: &&str = rng.pick(TRAILING);
            text.push_str(trailing);
        }
        3 => text = text.replace(", ", ",\n  "),
        _ => {}
    }
    let mut end = text.len().min(LONGEST);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.into_bytes()
}

/// Whether a scene's message names its place: a key path (`events[3].t: ...`) or the line and
/// column of a parse error.
fn names_a_place(message: &str) -> bool {
    let key_path = message.split_once(": ").is_some_and(|(place, _)| {
        !place.is_empty()
            && place
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c))
    });
    key_path || line_and_column(message)
}

/// Whether the text says `line N column M`.
fn line_and_column(message: &str) -> bool {
    message.match_indices("line ").any(|(at, _)| {
        let rest = &message[at + 5..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        digits > 0
            && rest[digits..]
                .strip_prefix(" column ")
                .is_some_and(|column| column.starts_with(|c: char| c.is_ascii_digit()))
    })
}

fn check_refusal(message: &str) -> Result<(), String> {
    check_message(message)?;
    if names_a_place(message) {
        Ok(())
    } else {
        Err(format!(
            "refused with a message that names no place: {message}"
        ))
    }
}

/// A folder for the files a run's `save` events write, one per process, emptied as it goes.
fn save_folder() -> &'static PathBuf {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER
        .get_or_init(|| std::env::temp_dir().join(format!("blockfall-fuzz-{}", std::process::id())))
}

/// Parses the scene; runs it when it is small.
pub fn check(input: &[u8]) -> Result<Outcome, String> {
    // `sim` and `--script` read scenes as UTF-8 text.
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(Outcome::Refused);
    };
    let scene = match scene::parse(text) {
        Ok(scene) => scene,
        Err(error) => {
            check_refusal(&error.to_string())?;
            return Ok(Outcome::Refused);
        }
    };
    let frames = (scene.duration / scene.frame_dt - 1e-9).ceil();
    if scene.world_file.is_some() || frames > MOST_FRAMES {
        return Ok(Outcome::Accepted);
    }
    run(scene)
}

/// Runs a parsed scene into memory, its saves written into [`save_folder`].
fn run(mut scene: SceneFile) -> Result<Outcome, String> {
    let folder = save_folder();
    let mut saves = Vec::new();
    for (i, event) in scene.events.iter_mut().enumerate() {
        if let ActionSpec::Save(path) = &mut event.action {
            *path = folder.join(format!("events-{i}.blockfall"));
            saves.push(path.clone());
        }
    }
    let pool = WorkerPool::new(1).map_err(|error| format!("one worker thread: {error}"))?;
    let mut trace = Vec::new();
    let result = scene::run_with_pool(&scene, &mut trace, pool);
    for path in &saves {
        let _ = std::fs::remove_file(path);
    }
    match result {
        Ok(()) => {
            let text = String::from_utf8(trace).map_err(|_| "the trace is not UTF-8")?;
            let lines: Vec<&str> = text.lines().collect();
            for line in &lines {
                serde_json::from_str::<serde_json::Value>(line)
                    .map_err(|error| format!("a trace line is not JSON ({error}): {line}"))?;
            }
            match lines.last() {
                Some(last) if last.starts_with("{\"done\":true") => Ok(Outcome::Used),
                _ => Err(format!("the trace does not end with `done`:\n{text}")),
            }
        }
        Err(error) => {
            let message = error.to_string();
            check_refusal(&message)?;
            if trace.is_empty() {
                Ok(Outcome::Refused)
            } else {
                Err(format!(
                    "refused while it ran ({message}) after writing {} bytes of trace",
                    trace.len()
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_key_paths_or_lines_and_columns() {
        assert!(names_a_place("events[3].t: -1 is not 0 or more seconds"));
        assert!(names_a_place("expected value at line 1 column 1"));
        assert!(names_a_place("blocks[0].material: no material `x`"));
        assert!(!names_a_place("invalid type: string, expected f64"));
        assert!(!names_a_place("line 3"));
        assert!(!names_a_place("oh no: it broke"));
    }

    #[test]
    fn a_changed_tree_is_still_written_as_text() {
        let mut rng = Rng::new(9);
        for _ in 0..200 {
            let mut scene = valid_scene(&mut rng);
            let count = scene.count();
            assert!(scene.nth(count - 1).is_some() && scene.nth(count).is_none());
            change(&mut rng, &mut scene);
            let mut text = String::new();
            scene.write(&mut text);
            assert!(text.starts_with('{') || text.starts_with('[') || !text.is_empty());
        }
    }

    #[test]
    fn a_valid_scene_parses_as_written() {
        let mut rng = Rng::new(2);
        let mut parsed = 0;
        for _ in 0..100 {
            let mut text = String::new();
            valid_scene(&mut rng).write(&mut text);
            if scene::parse(&text).is_ok() {
                parsed += 1;
            }
        }
        assert_eq!(parsed, 100, "every unchanged scene parses");
    }

    #[test]
    fn a_small_scene_runs_and_a_bad_one_is_refused_in_place() {
        assert_eq!(check(CORPUS[0].as_bytes()), Ok(Outcome::Used));
        assert_eq!(
            check(br#"{"terrain": {"flat": {"height": 0}}, "duration": -1}"#),
            Ok(Outcome::Refused)
        );
    }
}
