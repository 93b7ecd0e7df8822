//! The player's settings: `settings.ron` (RON) in the platform's config folder
//! ([`default_path`]; `--settings PATH` names another), with the key bindings of every control
//! ([`Bindings`]), the mouse's sensitivity and invert, the field of view, the view radius, the
//! terrain's mesher, the sun's shadows, vsync, the window's size and fullscreen, and the HUD
//! and its crosshair.
//!
//! [`load`] never refuses: a missing file is written with the defaults. The file is read key
//! by key: a bad value (out of its range, of the wrong kind, an unknown key, a key set twice, an
//! unknown button or action, a button bound to two actions) sets aside that value alone, which
//! takes its default, with a warning naming its key and line; every other value is kept, the
//! file as it was is kept aside as below and the settings kept are written in its place. A file
//! broken as a whole (bad syntax around its keys, over [`MAX_BYTES`]) is kept aside as `settings.ron.bad` (the file's name +
//! `.bad`; when that is taken, `.bad.1`, `.bad.2`, …, the first free name, so an older kept
//! file is never replaced), the defaults are written in its place and used, and the problem
//! names the line: `settings.ron line 7: window width 90000 is not between 16 and 8192`. Keys
//! left out take their defaults. Ranges are checked while the file is read, so the error carries
//! the value's place. A UTF-8 byte-order mark at the start is skipped.
//!
//! A file that is not settings at all ([`not_ours`]: a save, a script or scene's JSON, binary
//! data or anything not UTF-8) is not ours to move: it is left as it is, nothing is written
//! over it, and the defaults are used in memory.
//!
//! Scenes and scripts never read the settings: they use the default bindings and view, so a
//! script means the same on every machine.

use std::fmt::Display;
use std::fs;
use std::io;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use directories::ProjectDirs;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use blockfall_meshing::Mesher;

use crate::camera::FIELD_OF_VIEW_DEGREES;
use crate::input::{Bindings, Input, Look};
use crate::terrain::streaming::VIEW_RADIUS;

/// The settings file's name in the config folder.
pub const FILE_NAME: &str = "settings.ron";
/// A settings file larger than this is broken (it is not read whole).
pub const MAX_BYTES: u64 = 1 << 20;
/// The window's width and height, in pixels (as `--width`, `--height`).
pub const WINDOW_SIZE: RangeInclusive<u32> = 16..=8192;
/// Chunks loaded around the player (as `--view-radius`).
pub const VIEW_RADIUS_RANGE: RangeInclusive<u32> = 1..=32;
/// The vertical field of view, in degrees.
pub const FIELD_OF_VIEW_RANGE: RangeInclusive<f32> = 30.0..=120.0;
/// The mouse's sensitivity, a multiple of [`crate::input::MOUSE_RADIANS_PER_PIXEL`].
pub const SENSITIVITY_RANGE: RangeInclusive<f32> = 0.05..=20.0;
/// The HUD's scale, a multiple of the size it has for the window's size.
pub const HUD_SCALE_RANGE: RangeInclusive<f32> = 0.5..=3.0;
/// The most particles alive at once (0: none).
pub const PARTICLES_RANGE: RangeInclusive<u32> = 0..=65_536;
/// A volume: 0 (silent) to 1 (full).
pub const VOLUME_RANGE: RangeInclusive<f32> = 0.0..=1.0;

/// The player's settings, as `settings.ron` holds them (its keys are the field names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The window's width in pixels, 16–8192 (`--width` wins over it).
    #[serde(deserialize_with = "window_width")]
    pub width: u32,
    /// The window's height in pixels, 16–8192 (`--height` wins over it).
    #[serde(deserialize_with = "window_height")]
    pub height: u32,
    /// Start fullscreen (F11 toggles it).
    pub fullscreen: bool,
    /// Wait for the display to present (`--no-vsync` wins over it).
    pub vsync: bool,
    /// The HUD over the picture (`--no-hud` wins over it).
    pub hud: bool,
    /// A small crosshair at the centre of the view while the HUD is shown.
    #[serde(deserialize_with = "crosshair")]
    pub crosshair: bool,
    /// The HUD's size, a multiple (0.5–3) of the size it takes for the window's size.
    #[serde(deserialize_with = "hud_scale")]
    pub hud_scale: f32,
    /// Chunks of 32 m loaded around the player, 1–32 (`--view-radius` wins over it).
    #[serde(deserialize_with = "view_radius")]
    pub view_radius: u32,
    /// The vertical field of view in degrees, 30–120.
    #[serde(deserialize_with = "field_of_view")]
    pub fov_degrees: f32,
    /// A multiple of the default turn per pixel, 0.05–20.
    #[serde(deserialize_with = "mouse_sensitivity")]
    pub mouse_sensitivity: f32,
    /// Moving the mouse up looks down.
    pub invert_mouse_y: bool,
    /// The terrain's mesher at the start (the `mesher` action, M, switches it).
    pub mesher: Mesher,
    /// The whole sound's volume, 0–1.
    #[serde(deserialize_with = "master_volume")]
    pub master_volume: f32,
    /// The blows' sounds' volume (breaks, strikes, steps), 0–1, under the master volume.
    #[serde(deserialize_with = "effects_volume")]
    pub effects_volume: f32,
    /// The view shakes a little when heavy pieces strike near the player.
    pub camera_shake: bool,
    /// The most dust and debris particles alive at once, 0–65536 (0: none).
    #[serde(deserialize_with = "particles")]
    pub particles: u32,
    /// The sun's shadows and the blocks' ambient occlusion: `Off`, `Low` or `High`
    /// (`--shadows` wins over it).
    #[serde(deserialize_with = "shadows")]
    pub shadows: Shadows,
    /// Each action's buttons.
    pub bindings: Bindings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            width: 1280,
            height: 720,
            fullscreen: false,
            vsync: true,
            hud: true,
            crosshair: true,
            hud_scale: 1.0,
            view_radius: VIEW_RADIUS,
            fov_degrees: FIELD_OF_VIEW_DEGREES,
            mouse_sensitivity: 1.0,
            invert_mouse_y: false,
            mesher: Mesher::default(),
            master_volume: 0.8,
            effects_volume: 1.0,
            camera_shake: true,
            particles: 8192,
            shadows: Shadows::default(),
            bindings: Bindings::default(),
        }
    }
}

fn in_range<'de, D, T>(deserializer: D, what: &str, range: RangeInclusive<T>) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + PartialOrd + Display,
{
    let value = T::deserialize(deserializer)?;
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(D::Error::custom(format!(
            "{what} {value} is not between {} and {}",
            range.start(),
            range.end()
        )))
    }
}

fn window_width<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    in_range(deserializer, "window width", WINDOW_SIZE)
}

fn window_height<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    in_range(deserializer, "window height", WINDOW_SIZE)
}

fn view_radius<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    in_range(deserializer, "view radius", VIEW_RADIUS_RANGE)
}

fn field_of_view<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    in_range(deserializer, "field of view", FIELD_OF_VIEW_RANGE)
}

fn mouse_sensitivity<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    in_range(deserializer, "mouse sensitivity", SENSITIVITY_RANGE)
}

fn hud_scale<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    in_range(deserializer, "HUD scale", HUD_SCALE_RANGE)
}

fn particles<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    in_range(deserializer, "particles", PARTICLES_RANGE)
}

fn master_volume<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    in_range(deserializer, "master volume", VOLUME_RANGE)
}

fn effects_volume<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    in_range(deserializer, "effects volume", VOLUME_RANGE)
}

fn crosshair<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    bool::deserialize(deserializer)
        .map_err(|_| D::Error::custom("`crosshair` must be true or false"))
}

/// The names of the [`Shadows`] qualities, for the messages: `Off, Low or High`.
fn shadows_names() -> String {
    let names = Shadows::ALL.map(Shadows::name);
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The `shadows` key: a quality by its name ([`Shadows::name`], as it is written), the key
/// and the names in the message when it is none of them.
fn shadows<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Shadows, D::Error> {
    struct Name;
    impl serde::de::Visitor<'_> for Name {
        type Value = String;
        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("a name")
        }
        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<String, E> {
            Ok(name.to_owned())
        }
    }
    let name = deserializer.deserialize_identifier(Name).map_err(|error| {
        D::Error::custom(format!("`shadows` must be {} ({error})", shadows_names()))
    })?;
    Shadows::ALL
        .into_iter()
        .find(|quality| quality.name() == name)
        .ok_or_else(|| {
            D::Error::custom(format!(
                "`shadows` must be {}, not `{}`",
                shadows_names(),
                quoted(&name)
            ))
        })
}

/// What is wrong with a settings file: the file's name, the line (when the problem has one)
/// and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|line| format!(" line {line}")).unwrap_or_default())]
pub struct SettingsError {
    /// The file's name (`settings.ron`).
    pub file: String,
    /// The line, counting from 1.
    pub line: Option<usize>,
    pub message: String,
}

/// Comments written above the keys of a new file (after four spaces of indent, the key).
const KEY_NOTES: &[(&str, &str)] = &[
    ("width", "window size in pixels, 16-8192 (--width and --height win over it)"),
    ("fullscreen", "start fullscreen (F11 toggles it)"),
    ("vsync", "wait for the display (--no-vsync wins over it)"),
    ("hud", "the HUD at the top left (--no-hud wins over it)"),
    (
        "crosshair",
        "a small crosshair at the centre of the view while the HUD is shown",
    ),
    (
        "hud_scale",
        "the HUD's size, 0.5-3 times the size it takes for the window's size",
    ),
    (
        "view_radius",
        "chunks of 32 m loaded around the player, 1-32, at most what the GPU holds (--view-radius wins over it)",
    ),
    ("fov_degrees", "vertical field of view in degrees, 30-120"),
    (
        "mouse_sensitivity",
        "a multiple of the default turn per pixel, 0.05-20",
    ),
    ("invert_mouse_y", "moving the mouse up looks down"),
    (
        "mesher",
        "the terrain's mesher at the start, SurfaceNets or MarchingCubes (M switches it)",
    ),
    ("master_volume", "the whole sound's volume, 0-1"),
    (
        "effects_volume",
        "the blows' sounds (breaks, strikes, steps), 0-1, under the master volume",
    ),
    (
        "particles",
        "the most dust and debris particles alive at once, 0-65536 (0: none)",
    ),
    (
        "camera_shake",
        "the view shakes a little when heavy pieces strike near you",
    ),
    (
        "shadows",
        "the sun's shadows and the blocks' ambient occlusion: Off, Low or High (--shadows wins over it)",
    ),
    (
        "bindings",
        "each action's keys and buttons, by winit's KeyCode names: KeyA-KeyZ, Digit0-Digit9,\n    \
         // F1-F12, ArrowUp/Down/Left/Right, Space, Enter, Tab, Backspace, Escape, ShiftLeft/Right,\n    \
         // ControlLeft/Right, AltLeft/Right, Comma, Period, Slash, Semicolon, Quote,\n    \
         // BracketLeft/Right, Minus, Equal, Backquote, Backslash, Numpad0-Numpad9; and\n    \
         // MouseLeft, MouseRight, MouseMiddle. A button does one thing; an action left out\n    \
         // keeps its default buttons that no other action took; []: unbound. undo and redo\n    \
         // act only while ControlLeft or ControlRight is held (Shift with undo: redo).",
    ),
];

impl Settings {
    /// The settings in `text`, the contents of a file named `file` (for the messages).
    pub fn from_ron(text: &str, file: &str) -> Result<Self, SettingsError> {
        ron::from_str(text).map_err(|error| SettingsError {
            file: file.to_owned(),
            line: Some(error.span.start.line),
            message: describe(&error.code),
        })
    }

    /// The settings in `bytes` (UTF-8, a byte-order mark at the start skipped), the contents of
    /// a file named `file`.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Self, SettingsError> {
        let bytes = bytes.strip_prefix(BYTE_ORDER_MARK).unwrap_or(bytes);
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::from_ron(text, file),
            Err(error) => {
                let valid = &bytes[..error.valid_up_to()];
                Err(SettingsError {
                    file: file.to_owned(),
                    line: Some(1 + valid.iter().filter(|&&b| b == b'\n').count()),
                    message: "the file is not UTF-8 text".into(),
                })
            }
        }
    }

    /// [`Settings::from_ron_by_key`] of `bytes` (UTF-8, a byte-order mark at the start
    /// skipped), the contents of a file named `file`.
    pub fn from_bytes_by_key(
        bytes: &[u8],
        file: &str,
    ) -> Result<(Self, Vec<BadValue>), SettingsError> {
        let bytes = bytes.strip_prefix(BYTE_ORDER_MARK).unwrap_or(bytes);
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::from_ron_by_key(text, file),
            Err(_) => Self::from_bytes(bytes, file).map(|settings| (settings, Vec::new())),
        }
    }

    /// The settings as a file: a header, then RON, with a note above the keys.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .indentor("    ")
            .new_line("\n")
            .compact_arrays(true);
        let body = ron::ser::to_string_pretty(self, config)
            .expect("settings are plain values, always serialisable");
        let mut text = String::from(
            "// blockfall's settings (README, \"Settings\"). A key left out takes its default. A\n\
             // broken file is kept aside as settings.ron.bad, and the defaults are used.\n",
        );
        for line in body.lines() {
            for (key, note) in KEY_NOTES {
                if line
                    .strip_prefix("    ")
                    .and_then(|rest| rest.strip_prefix(key))
                    .is_some_and(|rest| rest.starts_with(':'))
                {
                    text.push_str("    // ");
                    text.push_str(note);
                    text.push('\n');
                }
            }
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    /// Writes the settings to `path` safely: a temporary file in the same folder, flushed and
    /// synced, renamed over `path` (the folder made first if missing, synced after).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        crate::files::write_atomically(path, self.to_ron().as_bytes())
    }

    /// How the mouse turns the view.
    pub fn look(&self) -> Look {
        Look {
            sensitivity: self.mouse_sensitivity,
            invert_y: self.invert_mouse_y,
        }
    }

    /// The player's input: these bindings and this look, nothing held.
    pub fn input(&self) -> Input {
        Input::new(self.bindings, self.look())
    }
}

/// The most characters of a file's own text (a key's or a button's name) that a message quotes.
const QUOTED: usize = 60;
/// The most characters of a message of ron's own words, which may quote the file at any length.
const LONGEST_MESSAGE: usize = 300;

/// `text` as a message quotes it: whole when short, else its start and its length, so that a
/// megabyte-long name in a file does not come back as a megabyte-long message.
fn quoted(text: &str) -> String {
    shortened(text, QUOTED)
}

/// The first `most` characters of `text`, and how long it was when there was more.
fn shortened(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}… ({} bytes)", &text[..end], text.len()),
    }
}

/// ron's error in the words of the settings.
fn describe(error: &ron::Error) -> String {
    match error {
        ron::Error::Message(message) => shortened(message, LONGEST_MESSAGE),
        ron::Error::NoSuchStructField {
            expected, found, ..
        } => format!(
            "unknown setting `{}` (the settings: {})",
            quoted(found),
            expected.join(", ")
        ),
        ron::Error::DuplicateStructField { field, .. } => format!("`{field}` is set twice"),
        ron::Error::NoSuchEnumVariant {
            found,
            outer: Some(outer),
            ..
        } if outer == "Button" => format!(
            "unknown button `{}` (winit's KeyCode names, e.g. KeyW, Digit1, F5, Space, \
             ShiftLeft, or MouseLeft)",
            quoted(found)
        ),
        ron::Error::NoSuchEnumVariant {
            expected,
            found,
            outer: Some(outer),
        } if outer == "Action" => format!(
            "unknown action `{}` (the actions: {})",
            quoted(found),
            expected.join(", ")
        ),
        other => shortened(&other.to_string(), LONGEST_MESSAGE),
    }
}

/// The platform's folders of blockfall (`ProjectDirs::from("", "", "blockfall")`), if the
/// platform has a home folder.
fn project_dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "blockfall")
}

/// The platform's config folder of blockfall (Linux: `$XDG_CONFIG_HOME/blockfall` or
/// `~/.config/blockfall`), where `settings.ron` lives.
pub fn config_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.config_dir().to_path_buf())
}

/// The platform's data folder of blockfall (Linux: `$XDG_DATA_HOME/blockfall` or
/// `~/.local/share/blockfall`), where saved worlds go (`worlds/NAME.blockfall`).
pub fn data_dir() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.data_dir().to_path_buf())
}

/// `settings.ron` in [`config_dir`].
pub fn default_path() -> Option<PathBuf> {
    config_dir().map(|dir| dir.join(FILE_NAME))
}

/// UTF-8's byte-order mark, which some editors put at the start of a text file.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// Where a broken settings file is kept first: its full name + `.bad`, in the same folder.
pub fn bad_path(path: &Path) -> PathBuf {
    bad_path_numbered(path, 0)
}

/// The `n`th place to keep a broken settings file: [`bad_path`] for 0, else its name + `.N`
/// (`settings.ron.bad.1`, `settings.ron.bad.2`, …).
pub fn bad_path_numbered(path: &Path, n: u32) -> PathBuf {
    let mut name = path
        .file_name()
        .map_or_else(|| FILE_NAME.into(), |name| name.to_os_string());
    name.push(".bad");
    if n > 0 {
        name.push(format!(".{n}"));
    }
    path.with_file_name(name)
}

/// Whether `path` is one of the names a broken settings file at `settings` is kept under
/// ([`bad_path_numbered`]): a run must not write anything else there.
pub fn is_bad_path_of(path: &Path, settings: &Path) -> bool {
    let (Some(name), Some(settings_name)) = (path.file_name(), settings.file_name()) else {
        return false;
    };
    let (Some(name), Some(settings_name)) = (name.to_str(), settings_name.to_str()) else {
        return false;
    };
    let Some(rest) = name
        .strip_prefix(settings_name)
        .and_then(|rest| rest.strip_prefix(".bad"))
    else {
        return false;
    };
    rest.is_empty()
        || rest
            .strip_prefix('.')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// How many numbered names [`keep_aside`] tries before it gives up.
const MOST_KEPT: u32 = 1000;

/// Keeps the file at `path` aside under the first free name of [`bad_path_numbered`], never
/// replacing a file already there; returns that name. The file stays at `path` too (a hard
/// link) until the caller writes over it, so a failure between leaves nothing lost.
fn keep_aside(path: &Path) -> io::Result<PathBuf> {
    for n in 0..MOST_KEPT {
        let bad = bad_path_numbered(path, n);
        match fs::hard_link(path, &bad) {
            Ok(()) => return Ok(bad),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(_) => {
                // A file system without hard links: copy to a new file that is created only
                // when the name is free.
                let bytes = fs::read(path)?;
                let created = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&bad);
                match created {
                    Ok(mut file) => {
                        use std::io::Write as _;
                        file.write_all(&bytes)?;
                        file.sync_all()?;
                        return Ok(bad);
                    }
                    Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(error) => return Err(error),
                }
            }
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} to {} are all taken",
            bad_path(path).display(),
            bad_path_numbered(path, MOST_KEPT - 1).display()
        ),
    ))
}

/// What a file is when it is not a settings file at all, judged by its first bytes: a
/// blockfall save, a script's or scene's JSON, binary data, not UTF-8 text. `None`: it may be
/// settings (broken or not). Such a file is never moved nor written over by [`load`].
pub fn not_ours(bytes: &[u8]) -> Option<&'static str> {
    let bytes = bytes.strip_prefix(BYTE_ORDER_MARK).unwrap_or(bytes);
    if bytes.starts_with(&crate::save::MAGIC) {
        return Some("a blockfall save");
    }
    if bytes.contains(&0) {
        return Some("binary data");
    }
    // A file cut at the limit may end inside a character: judge only what was whole.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return Some("not UTF-8 text"),
    };
    match text.trim_start().chars().next() {
        Some('{') | Some('[') => Some("JSON (a script or a scene?), not RON settings"),
        _ => None,
    }
}

/// What [`load`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The settings to use: the file's, or the defaults.
    pub settings: Settings,
    /// The file.
    pub path: PathBuf,
    /// Whether the defaults were written to it (it was missing or broken).
    pub wrote_defaults: bool,
    /// What went wrong, for the log and the HUD: the broken file's line and what is wrong
    /// there and where it was kept, or why the file could not be read or written.
    pub problem: Option<String>,
    /// Where the broken file was kept ([`bad_path_numbered`]), when it was.
    pub kept_as: Option<PathBuf>,
    /// The file is not settings at all ([`not_ours`]): left as it is, nothing written over it.
    pub not_ours: bool,
    /// The keys whose values were set aside (they take their defaults), every other value
    /// of the file kept.
    pub set_aside: Vec<String>,
}

/// Why a file's bytes were not read.
enum Unread {
    Missing,
    TooLarge,
    Failed(io::Error),
}

/// The file's bytes, at most [`MAX_BYTES`].
fn read_capped(path: &Path) -> Result<Vec<u8>, Unread> {
    crate::files::read_at_most(path, MAX_BYTES)
        .map_err(|error| match error.kind() {
            io::ErrorKind::NotFound => Unread::Missing,
            _ => Unread::Failed(error),
        })?
        .ok_or(Unread::TooLarge)
}

/// The first bytes of the file at `path` (a file too large to read whole), to tell whether it
/// is ours; none when it cannot be read.
fn first_bytes(path: &Path) -> Vec<u8> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    if !fs::metadata(path).is_ok_and(|metadata| metadata.is_file()) {
        return bytes;
    }
    if let Ok(file) = fs::File::open(path) {
        let _ = file.take(4096).read_to_end(&mut bytes);
    }
    bytes
}

/// The settings of the file at `path`; never fails. Missing: the defaults, written there.
/// Broken: the file kept aside under the first free of [`bad_path_numbered`], the defaults
/// written in its place and used, and [`Loaded::problem`] says which line and what. Not
/// settings at all ([`not_ours`]) or unreadable (not a file, no permission): the defaults,
/// nothing moved, nothing written.
pub fn load(path: &Path) -> Loaded {
    let file = path.file_name().map_or_else(
        || FILE_NAME.into(),
        |name| name.to_string_lossy().into_owned(),
    );
    let mut loaded = Loaded {
        settings: Settings::default(),
        path: path.to_path_buf(),
        wrote_defaults: false,
        problem: None,
        kept_as: None,
        not_ours: false,
        set_aside: Vec::new(),
    };
    let leave_alone = |mut loaded: Loaded, what: &str| {
        loaded.not_ours = true;
        loaded.problem = Some(format!(
            "{}: this is {what}, not a settings file; it is left as it is and nothing is \
             written over it; the default settings are used",
            path.display()
        ));
        loaded
    };
    let broken = match read_capped(path) {
        Ok(bytes) if not_ours(&bytes).is_some() => {
            return leave_alone(loaded, not_ours(&bytes).unwrap_or_default());
        }
        Ok(bytes) => match Settings::from_bytes_by_key(&bytes, &file) {
            Ok((settings, bad)) => {
                loaded.settings = settings;
                if !bad.is_empty() {
                    set_aside(&mut loaded, bad);
                }
                return loaded;
            }
            Err(error) => error,
        },
        Err(Unread::Missing) => {
            match loaded.settings.write(path) {
                Ok(()) => loaded.wrote_defaults = true,
                Err(error) => {
                    loaded.problem = Some(format!(
                        "{}: writing the default settings: {error}; the defaults are used",
                        path.display()
                    ))
                }
            }
            return loaded;
        }
        Err(Unread::TooLarge) if not_ours(&first_bytes(path)).is_some() => {
            return leave_alone(loaded, not_ours(&first_bytes(path)).unwrap_or_default());
        }
        Err(Unread::TooLarge) => SettingsError {
            file,
            line: None,
            message: format!("larger than {} KiB, not read", MAX_BYTES / 1024),
        },
        Err(Unread::Failed(error)) => {
            loaded.problem = Some(format!(
                "{}: {error}; the default settings are used",
                path.display()
            ));
            return loaded;
        }
    };
    let mut problem = broken.to_string();
    match keep_aside(path) {
        Ok(bad) => {
            problem.push_str(&format!("; the file is kept as {}", bad.display()));
            loaded.kept_as = Some(bad);
            match loaded.settings.write(path) {
                Ok(()) => {
                    loaded.wrote_defaults = true;
                    problem.push_str(", and the defaults are written and used");
                }
                Err(error) => {
                    problem.push_str(&format!(
                        "; writing the defaults: {error}; the defaults are used"
                    ));
                }
            }
        }
        Err(error) => problem.push_str(&format!(
            "; it could not be kept aside as {} ({error}), so it is left as it is; the \
             defaults are used",
            bad_path(path).display()
        )),
    }
    loaded.problem = Some(problem);
    loaded
}

/// The values in `bad` were set aside and the rest of the file kept ([`load`]): the file as
/// it was is kept aside, the settings kept are written in its place, and the problem names
/// each key set aside, its line and what was wrong.
fn set_aside(loaded: &mut Loaded, bad: Vec<BadValue>) {
    let path = loaded.path.clone();
    let mut problem = bad
        .iter()
        .map(|bad| format!("{}: `{}` takes its default", bad.error, bad.key))
        .collect::<Vec<_>>()
        .join("; ");
    problem.push_str("; the other settings are kept");
    loaded.set_aside = bad.into_iter().map(|bad| bad.key).collect();
    match keep_aside(&path) {
        Ok(kept) => {
            problem.push_str(&format!(
                "; the file as it was is kept as {}",
                kept.display()
            ));
            loaded.kept_as = Some(kept);
            match loaded.settings.write(&path) {
                Ok(()) => problem.push_str(", and the settings kept are written"),
                Err(error) => problem.push_str(&format!("; writing the settings: {error}")),
            }
        }
        Err(error) => problem.push_str(&format!(
            "; the file could not be kept aside as {} ({error}), so it is left as it is",
            bad_path(&path).display()
        )),
    }
    loaded.problem = Some(problem);
}

mod keys;
mod shadows;

pub use keys::BadValue;
pub use shadows::Shadows;

#[cfg(test)]
mod tests;
