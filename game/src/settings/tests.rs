use std::path::{Path, PathBuf};

use super::Shadows;
use super::*;
use crate::input::{Action, Button};

/// A fresh folder of its own under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("blockfall-settings-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names of the files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Settings with every field other than the default's.
fn every_field_changed() -> Settings {
    let mut bindings = Bindings::default();
    bindings.unbind(Button::KeyF);
    bindings.bind(Button::KeyG, Action::Fly).unwrap();
    bindings.unbind(Button::ArrowUp);
    bindings.bind(Button::Numpad8, Action::Forward).unwrap();
    bindings.unbind(Button::F5);
    bindings.bind(Button::F6, Action::Save).unwrap();
    bindings.unbind(Button::MouseLeft);
    bindings.unbind(Button::MouseMiddle);
    bindings
        .bind(Button::MouseMiddle, Action::BreakOrDig)
        .unwrap();
    bindings.unbind(Button::Space);
    let settings = Settings {
        width: 1919,
        height: 17,
        fullscreen: true,
        vsync: false,
        hud: false,
        crosshair: false,
        hud_scale: 1.5,
        view_radius: 31,
        fov_degrees: 101.123_45,
        mouse_sensitivity: 0.123_456_79,
        invert_mouse_y: true,
        mesher: Mesher::MarchingCubes,
        master_volume: 0.25,
        effects_volume: 0.5,
        camera_shake: false,
        particles: 1000,
        shadows: Shadows::Low,
        bindings,
    };
    let defaults = Settings::default();
    assert!(settings.width != defaults.width && settings.height != defaults.height);
    assert!(settings.fullscreen != defaults.fullscreen && settings.vsync != defaults.vsync);
    assert!(settings.hud != defaults.hud && settings.view_radius != defaults.view_radius);
    assert!(settings.fov_degrees != defaults.fov_degrees);
    assert!(settings.mouse_sensitivity != defaults.mouse_sensitivity);
    assert!(settings.invert_mouse_y != defaults.invert_mouse_y);
    assert!(settings.mesher != defaults.mesher);
    assert!(settings.crosshair != defaults.crosshair && settings.shadows != defaults.shadows);
    assert!(settings.bindings != defaults.bindings);
    settings
}

#[test]
fn the_defaults_written_and_read_are_the_defaults() {
    let text = Settings::default().to_ron();
    assert_eq!(
        Settings::from_ron(&text, FILE_NAME),
        Ok(Settings::default())
    );
    // The file says what its keys are and names every action.
    assert!(text.contains("    width: 1280,\n"), "{text}");
    assert!(text.contains("fov_degrees: 70.0"), "{text}");
    assert!(text.contains("mesher: SurfaceNets,"), "{text}");
    assert!(text.contains("mesher: [KeyM],"), "{text}");
    assert!(text.contains("forward: [KeyW, ArrowUp],"), "{text}");
    assert!(
        text.contains("save: [F5],") && text.contains("load: [F9],"),
        "{text}"
    );
    for &action in Action::ALL {
        assert!(text.contains(&format!("        {action}: [")), "{action}");
    }
}

#[test]
fn settings_with_every_field_changed_come_back_equal() {
    let dir = scratch("round-trip");
    let path = dir.join(FILE_NAME);
    let settings = every_field_changed();
    settings.write(&path).unwrap();
    let loaded = load(&path);
    assert_eq!(loaded.problem, None);
    assert!(!loaded.wrote_defaults);
    assert_eq!(loaded.settings, settings);
    assert_eq!(loaded.settings.bindings.action(Button::Space), None);
    assert_eq!(
        loaded.settings.bindings.action(Button::KeyG),
        Some(Action::Fly)
    );
    // Writing it again gives the same bytes.
    let bytes = fs::read(&path).unwrap();
    assert_eq!(bytes, loaded.settings.to_ron().as_bytes());
    let look = loaded.settings.look();
    assert_eq!(look.sensitivity, 0.123_456_79);
    assert!(look.invert_y);
    let input = loaded.settings.input();
    assert_eq!(input.bindings, settings.bindings);
    assert_eq!(input.look, look);
    fs::remove_dir_all(dir).ok();
}

#[test]
fn a_missing_file_is_written_with_the_defaults() {
    let dir = scratch("missing");
    // The folder too may be missing (a first start).
    let path = dir.join("config").join(FILE_NAME);
    let loaded = load(&path);
    assert_eq!(loaded.settings, Settings::default());
    assert_eq!(loaded.problem, None);
    assert!(loaded.wrote_defaults);
    assert_eq!(loaded.path, path);
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(
        Settings::from_ron(&text, FILE_NAME),
        Ok(Settings::default())
    );
    assert_eq!(
        files_in(&dir.join("config")),
        [FILE_NAME],
        "no temporary file left"
    );
    // Read again: the same, nothing written.
    let again = load(&path);
    assert_eq!(again.settings, Settings::default());
    assert!(!again.wrote_defaults);
    fs::remove_dir_all(dir).ok();
}

/// Loads `bytes` as `settings.ron` and checks the rule of a broken file: the defaults are used
/// and written, the problem names `line` and says `what`, the bad bytes are kept whole in
/// `settings.ron.bad`. Returns the problem.
fn broken(name: &str, bytes: &[u8], line: Option<usize>, what: &str) -> String {
    broken_keeping(name, bytes, line, what, &Settings::default())
}

/// [`broken`] for a file whose good values are kept: `expected` is what is read (the values
/// set aside at their defaults) and written in its place.
fn broken_keeping(
    name: &str,
    bytes: &[u8],
    line: Option<usize>,
    what: &str,
    expected: &Settings,
) -> String {
    let dir = scratch(name);
    let path = dir.join(FILE_NAME);
    fs::write(&path, bytes).unwrap();
    let loaded = load(&path);
    assert_eq!(&loaded.settings, expected, "{name}");
    assert!(
        loaded.wrote_defaults || !loaded.set_aside.is_empty(),
        "{name}"
    );
    let problem = loaded.problem.expect(name);
    match line {
        Some(line) => assert!(
            problem.starts_with(&format!("settings.ron line {line}: ")),
            "{name}: {problem}"
        ),
        None => assert!(problem.starts_with("settings.ron: "), "{name}: {problem}"),
    }
    assert!(problem.contains(what), "{name}: {problem}");
    assert!(problem.contains("settings.ron.bad"), "{name}: {problem}");
    assert_eq!(
        fs::read(dir.join("settings.ron.bad")).unwrap(),
        bytes,
        "{name}"
    );
    let now = fs::read_to_string(&path).unwrap();
    assert_eq!(
        Settings::from_ron(&now, FILE_NAME).as_ref(),
        Ok(expected),
        "{name}"
    );
    assert_eq!(
        files_in(&dir),
        ["settings.ron", "settings.ron.bad"],
        "{name}"
    );
    // The next start reads the defaults without a word.
    assert_eq!(load(&path).problem, None, "{name}");
    fs::remove_dir_all(dir).ok();
    problem
}

#[test]
fn a_value_out_of_its_range_names_the_line_and_the_range() {
    let text = "// mine\n\
                (\n\
                \x20   fullscreen: false,\n\
                \x20   vsync: true,\n\
                \x20   hud: true,\n\
                \n\
                \x20   width: 90000,\n\
                \x20   height: 720,\n\
                )\n";
    let problem = broken("width", text.as_bytes(), Some(7), "");
    assert!(
        problem.starts_with(
            "settings.ron line 7: window width 90000 is not between 16 and 8192: `width` takes \
             its default; the other settings are kept; the file as it was is kept as "
        ),
        "{problem}"
    );
    broken(
        "height",
        b"(\n    height: 8,\n)\n",
        Some(2),
        "window height 8 is not between 16 and 8192",
    );
    broken_keeping(
        "radius",
        b"(\n    width: 640,\n    view_radius: 0,\n)\n",
        Some(3),
        "view radius 0 is not between 1 and 32",
        &Settings {
            width: 640,
            ..Settings::default()
        },
    );
    broken(
        "fov",
        b"(\n\n    fov_degrees: 150.5,\n)",
        Some(3),
        "field of view 150.5 is not between 30 and 120",
    );
    broken(
        "sensitivity",
        b"(mouse_sensitivity: 0.01)",
        Some(1),
        "mouse sensitivity 0.01 is not between 0.05 and 20",
    );
    broken(
        "nan",
        b"(\n    mouse_sensitivity: NaN,\n)",
        Some(2),
        "mouse sensitivity NaN is not between",
    );
    broken(
        "negative",
        b"(\n    width: 1280,\n    height: -720,\n)",
        Some(3),
        "",
    );
    broken("type", b"(\n    vsync: 1,\n)", Some(2), "");
}

#[test]
fn bad_syntax_names_the_line() {
    broken(
        "comma",
        b"(\n    width: 1280\n    height: 720,\n)\n",
        Some(3),
        "comma",
    );
    broken("unclosed", b"(\n    width: 1280,\n", Some(2), "end");
    broken("empty", b"", Some(1), "");
    broken("garbage", b"(width: 1280) trailing", Some(1), "");
}

/// Loads `bytes` as `settings.ron` and checks the rule of a file that is not settings at all:
/// the defaults are used, the file is neither moved nor written, and the problem says `what`.
fn not_settings(name: &str, bytes: &[u8], what: &str) {
    let dir = scratch(name);
    let path = dir.join(FILE_NAME);
    fs::write(&path, bytes).unwrap();
    let loaded = load(&path);
    assert_eq!(loaded.settings, Settings::default(), "{name}");
    assert!(!loaded.wrote_defaults && loaded.not_ours, "{name}");
    assert_eq!(loaded.kept_as, None, "{name}");
    let problem = loaded.problem.expect(name);
    assert!(problem.contains(what), "{name}: {problem}");
    assert!(problem.contains("left as it is"), "{name}: {problem}");
    assert_eq!(fs::read(&path).unwrap(), bytes, "{name}: left as it was");
    assert_eq!(files_in(&dir), [FILE_NAME], "{name}: nothing kept aside");
    fs::remove_dir_all(dir).ok();
}

#[test]
fn a_file_that_is_not_settings_is_left_alone_and_the_defaults_used() {
    let mut save = crate::save::MAGIC.to_vec();
    save.extend_from_slice(&[2, 0, 0, 0, 0xff, 0x00, 0x13]);
    not_settings("save", &save, "a blockfall save");
    not_settings(
        "script",
        b"\n  {\"duration\": 1.0, \"events\": []}\n",
        "JSON",
    );
    not_settings("array", b"[1, 2, 3]", "JSON");
    not_settings("binary", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "binary data");
    not_settings(
        "utf-8",
        b"(\n    width: 1280,\n    // \xff\xfe\n)",
        "not UTF-8",
    );
    // A save larger than a settings file may be is judged by its start too.
    let mut huge = crate::save::MAGIC.to_vec();
    huge.resize(MAX_BYTES as usize + 10, 7);
    not_settings("huge-save", &huge, "a blockfall save");
    // Settings with a byte-order mark are ours.
    assert_eq!(not_ours(b"\xEF\xBB\xBF(width: 800)"), None);
    assert_eq!(not_ours(b"// mine\n(width: 800)"), None);
}

#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    let dir = scratch("bom");
    let path = dir.join(FILE_NAME);
    let text = b"\xEF\xBB\xBF// mine\n(\n    width: 800,\n)\n";
    fs::write(&path, text).unwrap();
    let loaded = load(&path);
    assert_eq!(loaded.problem, None);
    assert_eq!(loaded.settings.width, 800);
    assert_eq!(fs::read(&path).unwrap(), text, "read, not rewritten");
    assert_eq!(files_in(&dir), [FILE_NAME]);
    // Only at the start: a mark later on is a broken file.
    let error = Settings::from_bytes(b"(width: 800,\xEF\xBB\xBF)", FILE_NAME).unwrap_err();
    assert_eq!(error.line, Some(1));
    fs::remove_dir_all(dir).ok();
}

#[test]
fn a_second_broken_file_never_replaces_the_first_one_kept() {
    let dir = scratch("numbered");
    let path = dir.join(FILE_NAME);
    let mut kept = Vec::new();
    for (n, text) in ["(width: 1)", "(height: 2)", "(view_radius: 99)"]
        .iter()
        .enumerate()
    {
        fs::write(&path, text).unwrap();
        let loaded = load(&path);
        assert_eq!(loaded.settings, Settings::default(), "{n}");
        let bad = loaded.kept_as.clone().expect("kept aside");
        assert_eq!(bad, bad_path_numbered(&path, n as u32));
        assert!(
            loaded
                .problem
                .as_deref()
                .is_some_and(|problem| problem.contains(&bad.display().to_string())),
            "{loaded:?}"
        );
        kept.push((bad, text));
    }
    for (bad, text) in &kept {
        assert_eq!(fs::read_to_string(bad).unwrap(), **text);
    }
    assert_eq!(
        files_in(&dir),
        [
            "settings.ron",
            "settings.ron.bad",
            "settings.ron.bad.1",
            "settings.ron.bad.2"
        ]
    );
    // A gap is filled first: the first free name.
    fs::remove_file(&kept[1].0).unwrap();
    fs::write(&path, "(hud: 3)").unwrap();
    assert_eq!(load(&path).kept_as, Some(bad_path_numbered(&path, 1)));
    fs::remove_dir_all(dir).ok();
}

#[test]
fn the_names_a_broken_file_is_kept_under_are_known() {
    let settings = Path::new("/a/settings.ron");
    assert_eq!(
        bad_path_numbered(settings, 3),
        Path::new("/a/settings.ron.bad.3")
    );
    for kept in [
        "/a/settings.ron.bad",
        "/a/settings.ron.bad.1",
        "/b/settings.ron.bad.12",
    ] {
        assert!(is_bad_path_of(Path::new(kept), settings), "{kept}");
    }
    for other in [
        "/a/settings.ron",
        "/a/settings.ron.bad.",
        "/a/settings.ron.bad.x",
        "/a/settings.ron.bad1",
        "/a/other.ron.bad",
    ] {
        assert!(!is_bad_path_of(Path::new(other), settings), "{other}");
    }
}

#[test]
fn an_unknown_key_names_the_line_and_the_known_keys() {
    broken(
        "unknown-key",
        b"(\n    width: 1280,\n    field_of_view: 90,\n)",
        Some(3),
        "unknown setting `field_of_view` (the settings: width, height",
    );
    broken(
        "twice",
        b"(\n    width: 1280,\n    width: 1024,\n)",
        Some(3),
        "`width` is set twice",
    );
}

#[test]
fn an_unknown_button_or_action_names_the_line() {
    broken(
        "button",
        b"(\n    bindings: {\n        jump: [Space],\n        fly: [KeyF, KeyFF],\n    },\n)",
        Some(4),
        "unknown button `KeyFF`",
    );
    broken(
        "action",
        b"(\n    bindings: {\n        jump: [Space],\n        teleport: [KeyP],\n    },\n)",
        Some(4),
        "unknown action `teleport` (the actions: forward, back",
    );
}

#[test]
fn a_button_bound_to_two_actions_names_the_line() {
    broken(
        "two-actions",
        b"(\n    bindings: {\n        save: [F5],\n        jump: [Space],\n        load: [F9, F5],\n    },\n)",
        Some(5),
        "F5 is bound to both save and load",
    );
    broken(
        "listed-twice",
        b"(\n    bindings: {\n        save: [F5],\n        save: [F6],\n    },\n)",
        Some(4),
        "save is listed twice",
    );
}

#[test]
fn a_file_over_the_limit_is_broken_and_not_read_whole() {
    let mut bytes = b"(\n    width: 1280,\n".to_vec();
    bytes.resize(MAX_BYTES as usize + 10, b' ');
    let problem = broken("huge", &bytes, None, "larger than 1024 KiB");
    assert!(!problem.contains("line"), "{problem}");
}

#[test]
fn keys_left_out_take_their_defaults() {
    let settings = Settings::from_ron("(fov_degrees: 90)", FILE_NAME).unwrap();
    assert_eq!(
        settings,
        Settings {
            fov_degrees: 90.0,
            ..Settings::default()
        }
    );
    assert_eq!(Settings::from_ron("()", FILE_NAME), Ok(Settings::default()));
    // A whole number where a fraction may be, and the struct's name.
    let settings = Settings::from_ron("Settings(mouse_sensitivity: 2)", FILE_NAME).unwrap();
    assert_eq!(settings.mouse_sensitivity, 2.0);
    // An action left out keeps the defaults no listed action took; [] unbinds.
    let text = "(bindings: {fly: [KeyW, KeyG], jump: []})";
    let bindings = Settings::from_ron(text, FILE_NAME).unwrap().bindings;
    assert_eq!(bindings.action(Button::KeyW), Some(Action::Fly));
    assert_eq!(bindings.action(Button::KeyF), None);
    assert_eq!(bindings.action(Button::Space), None);
    assert_eq!(bindings.buttons(Action::Forward), [Button::ArrowUp]);
    assert_eq!(bindings.action(Button::KeyT), Some(Action::SwitchTool));
}

#[test]
fn a_path_that_cannot_be_read_is_left_alone_and_the_defaults_used() {
    let dir = scratch("unreadable");
    // A folder where the file should be.
    let path = dir.join(FILE_NAME);
    fs::create_dir(&path).unwrap();
    let loaded = load(&path);
    assert_eq!(loaded.settings, Settings::default());
    assert!(!loaded.wrote_defaults);
    assert!(loaded.problem.is_some());
    assert!(path.is_dir(), "left as it was");
    assert_eq!(files_in(&dir), [FILE_NAME]);
    fs::remove_dir_all(dir).ok();
}

#[test]
fn writing_replaces_the_file_whole_and_leaves_no_temporary_file() {
    let dir = scratch("atomic");
    let path = dir.join("mine.ron");
    Settings::default().write(&path).unwrap();
    let changed = Settings {
        hud: false,
        ..Settings::default()
    };
    changed.write(&path).unwrap();
    assert_eq!(load(&path).settings, changed);
    assert_eq!(files_in(&dir), ["mine.ron"]);
    // A file of another name is kept aside under its own name.
    fs::write(&path, b"(width: 5)").unwrap();
    let loaded = load(&path);
    assert!(
        loaded
            .problem
            .as_deref()
            .is_some_and(|problem| problem.starts_with("mine.ron line 1: window width 5")),
        "{loaded:?}"
    );
    assert_eq!(files_in(&dir), ["mine.ron", "mine.ron.bad"]);
    fs::remove_dir_all(dir).ok();
}

#[test]
fn the_folders_are_blockfalls() {
    assert_eq!(
        bad_path(Path::new("/a/settings.ron")),
        Path::new("/a/settings.ron.bad")
    );
    assert_eq!(bad_path(Path::new("mine.ron")), Path::new("mine.ron.bad"));
    // Where the platform has a home (every test machine does), the files live in folders of
    // blockfall's own.
    if let Some(config) = config_dir() {
        assert!(config.ends_with("blockfall"), "{}", config.display());
        assert_eq!(default_path(), Some(config.join(FILE_NAME)));
    }
    if let Some(data) = data_dir() {
        assert!(data.ends_with("blockfall"), "{}", data.display());
    }
}

#[test]
fn a_megabyte_long_button_or_key_name_is_not_echoed_in_full() {
    // Found by `fuzz settings`: the whole name came back in the message (and the HUD).
    let long = "k".repeat(1 << 20);
    for text in [
        Settings::default().to_ron().replacen("KeyW", &long, 1),
        Settings::default()
            .to_ron()
            .replacen("width:", &format!("{long}:"), 1),
        Settings::default()
            .to_ron()
            .replacen("forward:", &format!("{long}:"), 1),
        format!("({long})"),
    ] {
        let error = Settings::from_ron(&text, FILE_NAME).expect_err("an unknown name");
        let message = error.to_string();
        assert!(
            message.len() < 1000,
            "{} bytes: {}",
            message.len(),
            &message[..200]
        );
        assert!(
            message.contains("kkkk"),
            "the name's start is quoted: {message}"
        );
        assert!(error.line.is_some(), "{message}");
    }
    let short = Settings::default().to_ron().replacen("KeyW", "KeyWW", 1);
    let message = Settings::from_ron(&short, FILE_NAME)
        .unwrap_err()
        .to_string();
    assert!(message.contains("unknown button `KeyWW`"), "{message}");
}

#[test]
fn shadows_read_each_quality_by_its_name() {
    assert_eq!(Settings::default().shadows, Shadows::High);
    for quality in Shadows::ALL {
        let text = format!("(\n    shadows: {},\n)", quality.name());
        let settings = Settings::from_ron(&text, FILE_NAME).unwrap();
        assert_eq!(
            settings,
            Settings {
                shadows: quality,
                ..Settings::default()
            },
            "{text}"
        );
        // Written as it is read.
        assert!(
            settings
                .to_ron()
                .contains(&format!("    shadows: {},\n", quality.name())),
            "{quality:?}"
        );
    }
    // The file's note lists them.
    let text = Settings::default().to_ron();
    assert!(
        text.contains(
            "    // the sun's shadows and the blocks' ambient occlusion: Off, Low or High \
             (--shadows wins over it)\n    shadows: High,\n"
        ),
        "{text}"
    );
}

#[test]
fn the_crosshair_is_on_by_default_and_reads_either_way() {
    assert!(Settings::default().crosshair);
    for on in [true, false] {
        let settings = Settings::from_ron(&format!("(crosshair: {on})"), FILE_NAME).unwrap();
        assert_eq!(
            settings,
            Settings {
                crosshair: on,
                ..Settings::default()
            }
        );
    }
    let text = Settings::default().to_ron();
    assert!(
        text.contains(
            "    // a small crosshair at the centre of the view while the HUD is shown\n    \
             crosshair: true,\n"
        ),
        "{text}"
    );
}

#[test]
fn a_wrong_shadows_or_crosshair_names_the_key_the_line_and_the_values() {
    for (name, value, what) in [
        (
            "medium",
            "Medium",
            "`shadows` must be Off, Low or High, not `Medium`",
        ),
        // Names are written as the file writes them.
        (
            "lower-case",
            "high",
            "`shadows` must be Off, Low or High, not `high`",
        ),
        (
            "boolean",
            "true",
            "`shadows` must be Off, Low or High, not `true`",
        ),
        ("string", "\"Low\"", "`shadows` must be Off, Low or High ("),
        ("number", "2", "`shadows` must be Off, Low or High ("),
    ] {
        let text = format!("(\n    hud: true,\n    shadows: {value},\n)\n");
        broken(&format!("shadows-{name}"), text.as_bytes(), Some(3), what);
    }
    for value in ["3", "yes", "\"true\"", "High"] {
        let text = format!("(\n    crosshair: {value},\n)\n");
        broken(
            "crosshair",
            text.as_bytes(),
            Some(2),
            "`crosshair` must be true or false",
        );
    }
    // A megabyte-long name is not echoed whole.
    let long = "L".repeat(1 << 19);
    let problem = Settings::from_ron(&format!("(shadows: {long})"), FILE_NAME)
        .unwrap_err()
        .to_string();
    assert!(problem.len() < 400, "{} bytes", problem.len());
    assert!(
        problem.contains("`shadows` must be Off, Low or High"),
        "{problem}"
    );
}

#[test]
fn one_bad_value_and_two_good_ones_start_with_the_two_and_a_warning_naming_the_key() {
    let dir = scratch("one-bad-two-good");
    let path = dir.join(FILE_NAME);
    let text = "(\n    fov_degrees: 100,\n    width: 90000,\n    invert_mouse_y: true,\n)\n";
    fs::write(&path, text).unwrap();
    let loaded = load(&path);
    let expected = Settings {
        fov_degrees: 100.0,
        invert_mouse_y: true,
        ..Settings::default()
    };
    assert_eq!(loaded.settings, expected);
    assert_eq!(loaded.set_aside, ["width"]);
    let problem = loaded.problem.expect("a warning");
    assert!(problem.contains("`width`"), "{problem}");
    assert!(problem.contains("line 3"), "{problem}");
    // Nothing lost: the file as it was is kept, the good values are written back.
    assert_eq!(fs::read_to_string(bad_path(&path)).unwrap(), text);
    let again = load(&path);
    assert_eq!(again.settings, expected);
    assert_eq!(again.problem, None);
    // Two bad values: both named, the good one kept.
    fs::write(&path, "(hud_scale: 9, crosshair: false, shadows: Ultra)").unwrap();
    let loaded = load(&path);
    assert!(!loaded.settings.crosshair);
    assert_eq!(loaded.settings.hud_scale, 1.0);
    assert_eq!(loaded.set_aside, ["hud_scale", "shadows"]);
    let problem = loaded.problem.unwrap();
    assert!(
        problem.contains("HUD scale 9 is not between 0.5 and 3"),
        "{problem}"
    );
    fs::remove_dir_all(dir).ok();
}
