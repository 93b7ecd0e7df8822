//! The settings file, `settings.ron`, read key by key by `Settings::from_bytes_by_key` (as
//! `settings::load` reads it).
//!
//! Inputs start from the file the game writes (the defaults, or settings of random values in
//! range) and change it line by line: a value set to an extreme or a wrong type, a key unknown,
//! doubled or dropped, a button unknown or bound twice, an action unknown, deep nesting, a long
//! name, a byte-order mark, RON extensions; or its bytes are changed at random. A refused file
//! must name its line with a short message; an accepted one must be written and read back the
//! same.

use std::sync::OnceLock;

use blockfall_engine::meshing::Mesher;
use blockfall_game::input::{Action, Bindings, Button};
use blockfall_game::settings::{
    Settings, FIELD_OF_VIEW_RANGE, HUD_SCALE_RANGE, SENSITIVITY_RANGE, VIEW_RADIUS_RANGE,
    WINDOW_SIZE,
};
use blockfall_game_render::shadows::Shadows;

use super::{check_message, mutate_bytes, Outcome, Rng};

/// The file's name in messages.
const FILE: &str = "settings.ron";
/// The longest input: the game reads at most `settings::MAX_BYTES`; a little over it checks
/// that a long file gets a short message too.
const LONGEST: usize = (blockfall_game::settings::MAX_BYTES as usize) + 1024;

/// Values of every kind and extreme, for any key.
const ODD_VALUES: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1e300",
    "-1e300",
    "1e-300",
    "1e999",
    "NaN",
    "inf",
    "-inf",
    "4294967296",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "0x10",
    "0b1",
    "1_000",
    "16",
    "8192",
    "8193",
    "15",
    "29.999",
    "120.0001",
    "0.049",
    "true",
    "false",
    "\"1280\"",
    "'c'",
    "r#\"raw\"#",
    "()",
    "[]",
    "{}",
    "Some(3)",
    "None",
    "(width: 3)",
    "[KeyW, KeyW]",
    "\"\\u{0}\"",
    "b\"bytes\"",
];

/// Button names that are not buttons, or are but oddly written.
const ODD_BUTTONS: &[&str] = &[
    "KeyZZ",
    "keyw",
    "Key W",
    "\"KeyW\"",
    "Mouse4",
    "MouseLeft",
    "Escape",
    "F13",
    "Numpad10",
    "ÄÖÜ",
    "",
    "0",
];

/// The file of the default settings, as the game writes it.
fn defaults() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| Settings::default().to_ron())
}

/// Settings of random values in range, and every action bound to random free buttons.
fn random_settings(rng: &mut Rng) -> Settings {
    let mut bindings = Bindings::default();
    if rng.one_in(2) {
        bindings = Bindings::none();
        for &button in Button::ALL {
            if rng.one_in(3) {
                // A button bound twice is refused by `bind`: the first binding stays.
                let _ = bindings.bind(button, *rng.pick(Action::ALL));
            }
        }
    }
    Settings {
        width: rng.between(
            i64::from(*WINDOW_SIZE.start()),
            i64::from(*WINDOW_SIZE.end()),
        ) as u32,
        height: rng.between(
            i64::from(*WINDOW_SIZE.start()),
            i64::from(*WINDOW_SIZE.end()),
        ) as u32,
        fullscreen: rng.one_in(2),
        vsync: rng.one_in(2),
        hud: rng.one_in(2),
        crosshair: rng.one_in(2),
        hud_scale: rng.float(
            f64::from(*HUD_SCALE_RANGE.start()),
            f64::from(*HUD_SCALE_RANGE.end()),
        ) as f32,
        view_radius: rng.between(
            i64::from(*VIEW_RADIUS_RANGE.start()),
            i64::from(*VIEW_RADIUS_RANGE.end()),
        ) as u32,
        fov_degrees: rng.float(
            f64::from(*FIELD_OF_VIEW_RANGE.start()),
            f64::from(*FIELD_OF_VIEW_RANGE.end()),
        ) as f32,
        mouse_sensitivity: rng.float(
            f64::from(*SENSITIVITY_RANGE.start()),
            f64::from(*SENSITIVITY_RANGE.end()),
        ) as f32,
        invert_mouse_y: rng.one_in(2),
        mesher: *rng.pick(&Mesher::ALL),
        master_volume: rng.float(0.0, 1.0) as f32,
        effects_volume: rng.float(0.0, 1.0) as f32,
        camera_shake: rng.one_in(2),
        particles: rng.between(0, 65_536) as u32,
        shadows: *rng.pick(&Shadows::ALL),
        bindings,
    }
}

/// A settings file: the game's own file (defaults or random values), changed.
pub fn generate(rng: &mut Rng) -> Vec<u8> {
    let text = if rng.one_in(4) {
        random_settings(rng).to_ron()
    } else {
        defaults().to_owned()
    };
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for _ in 0..rng.between(0, 3) {
        change_line(rng, &mut lines);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    match rng.below(12) {
        0 => text.insert(0, '\u{feff}'),
        1 => text.insert_str(0, "#![enable(implicit_some, unwrap_newtypes)]\n"),
        2 => {
            let depth = rng.between(10, 10_000) as usize;
            let at = text.find("width").unwrap_or(0);
            text.insert_str(
                at,
                &format!("x: {}{},\n", "(".repeat(depth), ")".repeat(depth)),
            );
        }
        3 => {
            let depth = rng.between(10, 10_000) as usize;
            text = format!("{}{}", "[".repeat(depth), "]".repeat(rng.below(depth + 1)));
        }
        4 => {
            // A long name: a key or a button of up to 1 MiB.
            let name = "k".repeat(rng.between(1000, 1 << 20) as usize);
            if rng.one_in(2) {
                text = text.replacen("width", &name, 1);
            } else {
                text = text.replacen("KeyW", &name, 1);
            }
        }
        5 => text.push_str(&"/".repeat(rng.between(1, 3) as usize)),
        6 => {
            let mut at = rng.below(text.len() / 2 + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, "/*");
        }
        _ => {}
    }
    let mut bytes = text.into_bytes();
    if rng.one_in(3) {
        mutate_bytes(rng, &mut bytes, LONGEST);
    }
    bytes.truncate(LONGEST);
    bytes
}

/// One change to the file's lines.
fn change_line(rng: &mut Rng, lines: &mut Vec<String>) {
    if lines.is_empty() {
        return;
    }
    let at = rng.below(lines.len());
    match rng.below(7) {
        // A value changed: `key: value,` keeps its key.
        0 | 1 => {
            if let Some((key, _)) = lines[at].split_once(':') {
                lines[at] = format!("{key}: {},", rng.pick(ODD_VALUES));
            }
        }
        2 => {
            let key = rng.pick(&["speed", "Width", "width ", "bindings", "vsync", "é"]);
            lines.insert(at, format!("    {key}: {},", rng.pick(ODD_VALUES)));
        }
        3 => {
            let line = lines[at].clone();
            lines.insert(rng.below(lines.len() + 1), line);
        }
        4 => {
            lines.remove(at);
        }
        // A button changed in a binding line.
        5 => {
            if lines[at].contains('[') {
                let odd = rng.pick(ODD_BUTTONS);
                lines[at] = lines[at].replacen('[', &format!("[{odd}, "), 1);
            }
        }
        // An action unknown, or listed twice.
        _ => {
            let name = rng.pick(&["fly_faster", "forward", "Forward", "save"]);
            lines.insert(at, format!("        {name}: [KeyK],"));
        }
    }
}

/// Reads the file key by key (as `settings::load` does) and checks each value set aside and
/// the whole file's error: a short message naming a line of the file; then writes the
/// settings kept and reads them back. A file with a value set aside counts as refused.
pub fn check(input: &[u8]) -> Result<Outcome, String> {
    let lines = 1 + input.iter().filter(|&&b| b == b'\n').count();
    let named = |error: &blockfall_game::settings::SettingsError| {
        check_message(&error.to_string())?;
        match error.line {
            Some(line) if (1..=lines).contains(&line) => Ok(()),
            Some(line) => Err(format!(
                "the error names line {line} of a file of {lines} lines: {error}"
            )),
            None => Err(format!("the error names no line: {error}")),
        }
    };
    match Settings::from_bytes_by_key(input, FILE) {
        Ok((settings, bad)) => {
            for value in &bad {
                named(&value.error)?;
            }
            let written = settings.to_ron();
            match Settings::from_ron(&written, FILE) {
                Ok(read) if read == settings && bad.is_empty() => Ok(Outcome::Used),
                Ok(read) if read == settings => Ok(Outcome::Refused),
                Ok(read) => Err(format!(
                    "the settings read back differ: {settings:?} was written and {read:?} read"
                )),
                Err(error) => Err(format!(
                    "the settings written are refused when read back: {error}\n{written}"
                )),
            }
        }
        Err(error) => named(&error).map(|()| Outcome::Refused),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_file_is_used_and_a_bad_one_refused() {
        assert_eq!(check(defaults().as_bytes()), Ok(Outcome::Used));
        let bad = defaults().replacen("1280", "90000", 1);
        assert_eq!(check(bad.as_bytes()), Ok(Outcome::Refused));
        assert_eq!(check(b"\xff\xfe"), Ok(Outcome::Refused));
    }

    #[test]
    fn random_settings_are_valid() {
        let mut rng = Rng::new(11);
        for _ in 0..20 {
            let text = random_settings(&mut rng).to_ron();
            assert_eq!(check(text.as_bytes()), Ok(Outcome::Used), "{text}");
        }
    }
}
