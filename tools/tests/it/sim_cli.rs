//! The `sim` tool as a user runs it: a trace on stdout, the same bytes for any `--threads`,
//! exit code 2 and a message naming the place for a bad scene.

use std::path::PathBuf;
use std::process::{Command, Output};

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockfall-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sim"))
        .args(args)
        .output()
        .expect("the sim binary runs")
}

const SCENE: &str = r#"{
    "terrain": {"slope": {"degrees": 20.0, "height": 0.0}},
    "blocks": [{"cell": [4, 2, 4], "size": 2, "material": "Copper", "cuts": 4095}],
    "player": {"feet": [0.0, 0.5, 0.0], "yaw_degrees": 45.0},
    "events": [{"t": 0.1, "press": "KeyW"}, {"t": 0.4, "press": "Space"}, {"t": 0.6, "break": [4, 2, 4]}],
    "duration": 1.0, "report_every": 0.25
}"#;

#[test]
fn trace_is_the_same_for_any_thread_count() {
    let path = scratch("slope.json", SCENE);
    let one = sim(&[path.to_str().unwrap(), "--threads", "1"]);
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let two = sim(&[path.to_str().unwrap(), "--threads", "2"]);
    let sixteen = sim(&[path.to_str().unwrap(), "--threads", "16"]);
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stdout, sixteen.stdout);
    let text = String::from_utf8(one.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(r#"{"t":0.0,"player":{"feet":["#),
        "{}",
        lines[0]
    );
    assert!(lines
        .iter()
        .any(|l| l.contains(r#""event":"break""#) && l.contains(r#""removed":true"#)));
    assert_eq!(*lines.last().unwrap(), r#"{"done":true,"t":1.0}"#);
}

#[test]
fn bad_scenes_exit_with_two_and_name_the_place() {
    let cases = [
        ("broken.json", "{\"terrain\": ", "broken.json"),
        (
            "material.json",
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1, "blocks": [{"cell": [0,0,0], "material": "Cheese"}]}"#,
            "blocks[0].material",
        ),
        (
            "field.json",
            r#"{"terrain": {"flat": {"height": 0}}, "duration": 1, "gravity": 3}"#,
            "gravity",
        ),
    ];
    for (name, text, expected) in cases {
        let path = scratch(name, text);
        let output = sim(&[path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(
            output.stdout.is_empty(),
            "{name}: no trace for a refused scene"
        );
    }
    let missing = sim(&["/nonexistent/scene.json"]);
    assert_eq!(missing.status.code(), Some(2));
    let threads = sim(&[
        scratch("ok.json", SCENE).to_str().unwrap(),
        "--threads",
        "0",
    ]);
    assert_eq!(threads.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&threads.stderr).contains("--threads 0"));
}

#[test]
fn a_huge_or_endless_scene_file_is_refused() {
    // Reading /dev/zero as a scene ate memory without bound; a device is not read at all now.
    let output = sim(&["/dev/zero"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("/dev/zero") && stderr.contains("is a character device"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    // A file larger than a scene may be is refused after its largest size.
    let huge = scratch("huge.json", "");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&huge)
        .and_then(|file| file.set_len((64 << 20) + 1))
        .unwrap();
    let output = sim(&[huge.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("larger than 67108864 bytes"), "{stderr}");
    assert!(output.stdout.is_empty());
}
