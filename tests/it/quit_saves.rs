//! Nothing a player made is lost (docs/saves.md, "Quitting, locks and failed saves"): a run on a
//! world that gets SIGTERM, SIGINT or SIGHUP saves it and exits 0, headless and in the window;
//! a second game on a locked world is refused (exit 2) naming who holds it, or with
//! `--read-only` plays without saving; a save that fails (a full disk: a tmpfs filled up in a
//! mount namespace of the run's own) is said on stderr and in the script's state lines, a quit
//! in the window asks once, the run exits 1 and the old save is left as it was. Runs the
//! `blockfall` binary (on lavapipe in CI; the window under the display tools/test.sh starts).
//! CI cost: eight runs of a second or two at 64 × 48.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use blockfall::world_lock::WorldLock;
use blockfall_game::input::Input;
use blockfall_game::save::WorldSave;
use blockfall_game::terrain::Generator;
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;

/// The clock of the saves the tests start from.
const SAVED_AT: f64 = 5.0;

fn skip_gpu() -> bool {
    std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockfall-quit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The game's own start saved at `path`, at [`SAVED_AT`]; its bytes.
fn saved_world(path: &Path) -> Vec<u8> {
    let world = World::generated(Generator::DEFAULT_SEED, 1, WorkerPool::new(1).unwrap())
        .expect("the generated world");
    world
        .save(SAVED_AT, &Input::default())
        .write(path)
        .expect("the first save");
    std::fs::read(path).expect("written")
}

/// A script in `dir` that digs beside the spawn at 0.1 s, then `events` (JSON, each with a
/// leading comma), `duration` seconds of 0.05 s frames.
fn script(dir: &Path, duration: f64, events: &str) -> PathBuf {
    let [x, y, z] = Generator::new(Generator::DEFAULT_SEED).spawn_point();
    let path = dir.join("script.json");
    std::fs::write(
        &path,
        format!(
            r#"{{"duration": {duration}, "frame_dt": 0.05, "report_every": 0.5, "events": [
              {{"t": 0.1, "dig": {{"center": [{x}, {}, {}], "radius": 2.5}}}}{events}]}}"#,
            y - 1.0,
            z + 4.0
        ),
    )
    .expect("the script");
    path
}

/// The binary with the player's folders in `dir`, never the real ones.
fn blockfall(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_blockfall"));
    command
        .args(["--width", "64", "--height", "48", "--view-radius", "1"])
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"));
    command
}

/// Reads `child`'s trace until a line holds `wanted` (or the trace ends, or two minutes pass);
/// the lines read. The rest of the trace goes on being read so that the run never blocks.
fn read_until(child: &mut Child, wanted: &str) -> (Vec<String>, std::thread::JoinHandle<()>) {
    let stdout = child.stdout.take().expect("stdout piped");
    let (sender, receiver) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut lines = Vec::new();
    while let Ok(line) = receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        let found = line.contains(wanted);
        lines.push(line);
        if found {
            break;
        }
    }
    (lines, reader)
}

/// Waits for `child` (killing it after two minutes); its status and stderr.
fn finish(mut child: Child) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("the child's status").is_none() {
        if Instant::now() > deadline {
            child.kill().ok();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("the child's end");
    (output.status.code(), text(&output.stderr))
}

/// A run on a saved world that digs, stopped by `signal` (`TERM`, `INT`, `HUP`) once its trace
/// shows the dig: it exits 0 and the save on disk holds the dig and the session's clock. With
/// `hung_up`, its stderr is closed first, as a terminal that went away would be.
fn a_signal_saves(name: &str, signal: &str, headless: bool, hung_up: bool) {
    let dir = scratch(name);
    let world = dir.join("w.blockfall");
    saved_world(&world);
    let before = WorldSave::read(&world).expect("the first save");
    assert!(before.edits.is_empty(), "the game's start has no digs");
    let script = script(&dir, 30.0, "");
    let mut command = blockfall(&dir);
    if headless {
        command.arg("--headless");
    }
    let mut child = command
        .args(["--world", world.to_str().unwrap(), "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the blockfall binary runs");
    let (lines, reader) = read_until(&mut child, "\"event\":\"dig\"");
    let dig = lines.last().cloned().unwrap_or_default();
    if !dig.contains("\"dig\"") {
        let (status, stderr) = finish(child);
        if skip_gpu() {
            return;
        }
        panic!("no dig in the trace ({status:?}): {lines:?}\n{stderr}");
    }
    assert!(dig.contains("\"changed\":true"), "{dig}");
    if hung_up {
        drop(child.stderr.take());
    }
    // A few frames more, then the signal.
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let (status, stderr) = finish(child);
    reader.join().ok();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        hung_up || stderr.contains(&format!("stopped on SIG{signal}")),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let after = WorldSave::read(&world).expect("the save at the signal loads");
    assert!(
        after.clock > SAVED_AT + 0.1,
        "the session's clock: {} after {SAVED_AT}; {stderr}",
        after.clock
    );
    assert!(!after.edits.is_empty(), "the dig was saved");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn sigterm_saves_a_headless_scripted_world_and_exits_0() {
    a_signal_saves("term", "TERM", true, false);
}

#[test]
fn sigint_saves_a_headless_scripted_world_and_exits_0() {
    a_signal_saves("int", "INT", true, false);
}

#[test]
fn sighup_saves_a_headless_scripted_world_and_exits_0() {
    a_signal_saves("hup", "HUP", true, false);
}

#[test]
fn sighup_with_its_terminal_gone_still_saves_and_exits_0() {
    a_signal_saves("hup-gone", "HUP", true, true);
}

#[test]
fn a_signal_stops_a_run_without_a_world_cleanly() {
    let dir = scratch("no-world");
    // Headless frames without end: the PNG of the frame it stopped at.
    let png = dir.join("last.png");
    let mut child = blockfall(&dir)
        .args(["--headless", "--frames", "100000000", "--screenshot"])
        .arg(&png)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the blockfall binary runs");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut log = String::new();
    for line in stderr.by_ref().map_while(Result::ok) {
        log.push_str(&line);
        log.push('\n');
        if line.contains("chunks within") {
            break;
        }
    }
    // The rest of stderr, read as it comes.
    let rest = std::thread::spawn(move || {
        stderr
            .map_while(Result::ok)
            .fold(String::new(), |all, line| all + &line + "\n")
    });
    if !log.contains("chunks within") {
        child.kill().ok();
        child.wait().ok();
        assert!(skip_gpu(), "no frames: {log}");
        return;
    }
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("its end");
    let rest = rest.join().expect("stderr read");
    assert_eq!(output.status.code(), Some(0), "{log}{rest}");
    assert!(rest.contains("stopped on SIGTERM"), "{rest}");
    assert_eq!(text(&output.stdout).trim(), png.to_str().unwrap());
    assert!(
        std::fs::metadata(&png).is_ok_and(|m| m.len() > 0),
        "the PNG"
    );

    // A script: every line of the frames played is out, whole, and no `done`.
    let script = script(&dir, 30.0, "");
    let mut child = blockfall(&dir)
        .args(["--headless", "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the blockfall binary runs");
    let (lines, reader) = read_until(&mut child, "\"event\":\"dig\"");
    assert!(
        lines.last().is_some_and(|line| line.contains("\"dig\"")),
        "{lines:?}"
    );
    let killed = Command::new("kill")
        .args(["-s", "INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let (status, stderr) = finish(child);
    reader.join().ok();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("SIGINT: the script stopped at t = ")
            && stderr.contains("stopped on SIGINT"),
        "{stderr}"
    );
    for line in &lines {
        serde_json::from_str::<serde_json::Value>(line).expect("a whole line");
        assert!(
            !line.contains("\"save\""),
            "no world, no save tried: {line}"
        );
    }
    assert!(
        !dir.join("data").exists(),
        "nothing saved in the data folder"
    );
    std::fs::remove_dir_all(dir).ok();
}

fn assert_display() {
    let has_display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    assert!(
        has_display || skip_gpu(),
        "the windowed test needs a display: run it through tools/test.sh (which starts Xvfb)"
    );
}

#[test]
fn sigterm_saves_the_window_s_world_and_exits_0() {
    assert_display();
    a_signal_saves("window", "TERM", false, false);
}

#[test]
fn a_locked_world_is_refused_naming_its_holder_and_opens_read_only() {
    let dir = scratch("locked");
    let world = dir.join("w.blockfall");
    let bytes = saved_world(&world);
    // This test process holds the lock, as another game would.
    let held = WorldLock::take(&world).expect("the lock");
    let png = dir.join("never.png");
    let refused = blockfall(&dir)
        .args([
            "--headless",
            "--world",
            world.to_str().unwrap(),
            "--screenshot",
        ])
        .arg(&png)
        .output()
        .expect("runs");
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(refused.stdout.is_empty(), "{stderr}");
    for said in [
        "open in another game".to_owned(),
        format!("process {}", std::process::id()),
        held.path().display().to_string(),
        "--read-only".into(),
    ] {
        assert!(stderr.contains(&said), "{said:?} in: {stderr}");
    }
    assert!(!stderr.contains("Vulkan"), "before the device: {stderr}");
    assert!(!png.exists());

    // Read-only: it plays (F5 pressed), says it does not save, and the save is as it was.
    let script = script(
        &dir,
        0.5,
        r#", {"t": 0.2, "press": "F5"}, {"t": 0.25, "release": "F5"}"#,
    );
    let output = blockfall(&dir)
        .args([
            "--headless",
            "--read-only",
            "--world",
            world.to_str().unwrap(),
        ])
        .arg("--script")
        .arg(&script)
        .output()
        .expect("runs");
    let stderr = text(&output.stderr);
    if skip_gpu() && !output.status.success() {
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("read-only"), "F5 says so: {stderr}");
    assert!(
        !text(&output.stdout).contains("\"save\""),
        "a read-only run reports no saves"
    );
    assert_eq!(std::fs::read(&world).unwrap(), bytes, "nothing saved");
    drop(held);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_script_on_a_world_may_not_name_its_own() {
    let dir = scratch("clash");
    let world = dir.join("w.blockfall");
    let script = dir.join("flat.json");
    std::fs::write(
        &script,
        r#"{"terrain": {"flat": {"height": 0}}, "duration": 0.1}"#,
    )
    .unwrap();
    let output = blockfall(&dir)
        .args(["--headless", "--world", world.to_str().unwrap(), "--script"])
        .arg(&script)
        .output()
        .expect("runs");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--world") && stderr.contains("`terrain`"),
        "{stderr}"
    );
    assert!(!world.exists(), "nothing made");
    std::fs::remove_dir_all(dir).ok();
}
/// How a test makes the world's saves fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failing {
    /// A full disk: a tmpfs filled up, mounted in a mount namespace of the run's own
    /// (`unshare` with these flags); `--world` is there.
    FullDisk(&'static str),
    /// Where no namespace can be had: the data folder's world (no `--world`), whose lock this
    /// test holds, so that every save of the run is refused. (A file size limit cannot stand
    /// in for a full disk: lavapipe's device memory is a memfd, which the limit also stops, and
    /// the driver dies of SIGBUS.)
    LockHeld,
}

/// How saves can be made to fail on this machine: a tmpfs mounted by `unshare -rm` (any user
/// with user namespaces) or `unshare -m` (root), else the lock.
fn failing(dir: &Path) -> Failing {
    let probe = dir.join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    for flags in ["-rm", "-m"] {
        let mounted = Command::new("unshare")
            .args([flags, "sh", "-c", "mount -t tmpfs -o size=16k none \"$0\""])
            .arg(&probe)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if mounted {
            return Failing::FullDisk(flags);
        }
    }
    Failing::LockHeld
}

/// `blockfall` with `args` on a world whose saves all fail ([`failing`]), the save `old` there
/// first: the run's output, the save's bytes after it, and how the saves failed.
fn with_failing_saves(dir: &Path, old: &[u8], args: &[&str]) -> (Output, Vec<u8>, Failing) {
    let how = failing(dir);
    let run = "\"$BIN\" --width 64 --height 48 --view-radius 1 \"$@\"";
    let mut command = match how {
        Failing::FullDisk(flags) => {
            let full = dir.join("full");
            std::fs::create_dir_all(&full).unwrap();
            std::fs::write(dir.join("old.blockfall"), old).unwrap();
            let size = old.len() / 1024 + 16;
            let mut command = Command::new("unshare");
            command.args([flags, "sh", "-c"]).arg(format!(
                "mount -t tmpfs -o size={size}k none \"$FULL\" && cp \"$DIR/old.blockfall\" \
                 \"$FULL/w.blockfall\" && {{ dd if=/dev/zero of=\"$FULL/fill\" bs=1k 2>/dev/null; \
                 true; }} && {run} --world \"$FULL/w.blockfall\"; status=$?; \
                 cp \"$FULL/w.blockfall\" \"$DIR/after.blockfall\"; exit $status"
            ));
            command.env("FULL", full);
            command
        }
        Failing::LockHeld => {
            let world = dir.join("data/blockfall/worlds/world.blockfall");
            std::fs::create_dir_all(world.parent().unwrap()).unwrap();
            std::fs::write(&world, old).unwrap();
            let mut command = Command::new("sh");
            command.arg("-c").arg(format!(
                "{run}; status=$?; cp \"$DIR/data/blockfall/worlds/world.blockfall\" \
                 \"$DIR/after.blockfall\"; exit $status"
            ));
            command
        }
    };
    let held = (how == Failing::LockHeld).then(|| {
        WorldLock::take(&dir.join("data/blockfall/worlds/world.blockfall")).expect("the lock")
    });
    let output = command
        .arg("blockfall")
        .args(args)
        .env("BIN", env!("CARGO_BIN_EXE_blockfall"))
        .env("DIR", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .output()
        .expect("sh runs");
    drop(held);
    let saved = std::fs::read(dir.join("after.blockfall")).unwrap_or_default();
    (output, saved, how)
}

/// The `t` of a trace's first line.
fn first_time(trace: &str) -> f64 {
    let first = trace.lines().next().unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(first).unwrap_or_default();
    value["t"].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn a_save_that_fails_is_said_reported_and_exits_1_leaving_the_old_save() {
    let dir = scratch("full");
    let old = saved_world(&dir.join("first.blockfall"));
    let script = script(
        &dir,
        1.0,
        r#", {"t": 0.3, "press": "F5"}, {"t": 0.35, "release": "F5"}, {"t": 0.5, "state": true}"#,
    );
    let script = script.to_str().unwrap();
    let (output, after, how) = with_failing_saves(&dir, &old, &["--headless", "--script", script]);
    let stderr = text(&output.stderr);
    if skip_gpu() && !stderr.contains("World NOT saved") {
        return;
    }
    assert_eq!(output.status.code(), Some(1), "{how:?}: {stderr}");
    // The HUD's line, on stderr too; and the reason the run exits 1.
    assert!(
        stderr.contains("World NOT saved: ") && stderr.contains("F5 to "),
        "{how:?}: {stderr}"
    );
    assert!(
        stderr.contains("error: the world was not saved: "),
        "{stderr}"
    );
    if how != Failing::LockHeld {
        assert!(stderr.contains("No space left on device"), "{stderr}");
    }
    // The state line after F5 reports it; with --world the first reported nothing tried yet.
    let trace = text(&output.stdout);
    if how != Failing::LockHeld {
        let first = trace.lines().next().unwrap_or_default();
        assert!(first.contains("\"save\":null"), "{trace}");
    }
    let state = trace
        .lines()
        .find(|line| line.contains("\"yaw_degrees\""))
        .expect("the state event's line");
    assert!(state.contains("\"save\":{\"ok\":false,"), "{state}");
    assert!(state.contains("\"error\":\""), "{state}");
    assert_eq!(after, old, "the old save's bytes are untouched");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_quit_in_the_window_whose_save_fails_asks_once_then_leaves_with_status_1() {
    assert_display();
    let dir = scratch("window-full");
    let old = saved_world(&dir.join("first.blockfall"));
    // F5 fails; then the menu's Quit twice: the first quit tries again, fails and stays; the
    // second leaves. Thirty seconds of script were never played.
    let script = script(
        &dir,
        30.0,
        r#", {"t": 0.15, "press": "F5"}, {"t": 0.2, "release": "F5"},
            {"t": 0.3, "press": "Escape"}, {"t": 0.35, "release": "Escape"},
            {"t": 0.35, "menu": "quit"},
            {"t": 0.6, "menu": "quit"}"#,
    );
    let script = script.to_str().unwrap();
    let (output, after, how) = with_failing_saves(&dir, &old, &["--script", script]);
    let stderr = text(&output.stderr);
    if skip_gpu() && !stderr.contains("could not save") {
        return;
    }
    assert_eq!(output.status.code(), Some(1), "{how:?}: {stderr}");
    assert!(
        stderr.contains("could not save: ")
            && stderr.contains("quit again to leave without saving"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("could not save: ").count(),
        1,
        "asked once; the second quit left without trying again: {stderr}"
    );
    let trace = text(&output.stdout);
    let between = format!("{{\"t\":{},", first_time(&trace) + 0.5);
    assert!(
        trace.lines().any(|line| line.starts_with(&between)),
        "it stayed after the first quit ({between}): {trace}"
    );
    assert!(
        !trace.contains("\"done\""),
        "it left before the script's end"
    );
    assert_eq!(after, old, "the old save's bytes are untouched");
    std::fs::remove_dir_all(dir).ok();
}

/// The signal family of the soak: bursts of one, two or three signals (SIGTERM, SIGINT or
/// SIGHUP, drawn by a seeded generator) at random moments of a run that saves its world over
/// and over (F5 every tenth of a second), so that many land while a save is being written.
/// Whatever the moment: one or two signals end the run with status 0 and the world saved; a
/// third may end it at once (128 + its number) or find the save already done (0); and the
/// world on disk always loads, never older than the session's start.
#[test]
fn bursts_of_signals_while_the_world_saves_never_lose_it() {
    let mut rng = blockfall_physics::random::Rng::new(52);
    let presses: String = (1..200)
        .map(|k| {
            let t = f64::from(k) * 0.1;
            format!(
                r#", {{"t": {t:.2}, "press": "F5"}}, {{"t": {:.2}, "release": "F5"}}"#,
                t + 0.05
            )
        })
        .collect();
    for round in 0..8 {
        let dir = scratch(&format!("burst-{round}"));
        let world = dir.join("w.blockfall");
        saved_world(&world);
        let script = script(&dir, 30.0, &presses);
        let mut child = blockfall(&dir)
            .args(["--headless", "--world", world.to_str().unwrap(), "--script"])
            .arg(&script)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the blockfall binary runs");
        let (lines, reader) = read_until(&mut child, "\"event\":\"dig\"");
        if !lines.iter().any(|line| line.contains("\"dig\"")) {
            let (status, stderr) = finish(child);
            if skip_gpu() {
                return;
            }
            panic!("no dig in the trace ({status:?}): {lines:?}\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(rng.below(1500) as u64));
        let count = 1 + rng.below(3);
        let signals: Vec<&str> = (0..count)
            .map(|_| *rng.pick(&["TERM", "INT", "HUP"]))
            .collect();
        for signal in &signals {
            // The process may be gone after an earlier signal of the burst: that is its end.
            let _ = Command::new("kill")
                .args(["-s", signal, &child.id().to_string()])
                .status();
            std::thread::sleep(Duration::from_millis(rng.below(30) as u64));
        }
        let (status, stderr) = finish(child);
        reader.join().ok();
        let number = |name: &str| match name {
            "HUP" => 1,
            "INT" => 2,
            _ => 15,
        };
        let allowed = match count {
            3 => vec![Some(0), Some(128 + number(signals[2]))],
            _ => vec![Some(0)],
        };
        assert!(
            allowed.contains(&status),
            "round {round}, signals {signals:?}: exit {status:?}\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        let after = WorldSave::read(&world)
            .unwrap_or_else(|error| panic!("round {round}, {signals:?}: the world: {error}"));
        eprintln!(
            "round {round}: {signals:?}, exit {status:?}, the world saved at {:.2} s",
            after.clock
        );
        assert!(after.clock >= SAVED_AT, "{}", after.clock);
        std::fs::remove_dir_all(dir).ok();
    }
}

/// The two-games family: two games started on one world at the same moment. Exactly one holds
/// it and plays; the other is refused with status 2 naming the holder's process (whichever won
/// the race); the holder, stopped, saves the world, which loads.
#[test]
fn two_games_started_together_on_one_world_leave_one_holder() {
    let dir = scratch("two-at-once");
    let world = dir.join("w.blockfall");
    saved_world(&world);
    let start = |name: &str| {
        blockfall(&dir)
            .args(["--headless", "--frames", "100000000", "--world"])
            .arg(&world)
            .arg("--screenshot")
            .arg(dir.join(format!("{name}.png")))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the blockfall binary runs")
    };
    let (first, second) = (start("first"), start("second"));
    let (first_id, second_id) = (first.id(), second.id());
    // The one refused ends by itself, at once; the other plays on until stopped.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut children = [Some(first), Some(second)];
    let refused = loop {
        let ended = children.iter_mut().position(|child| {
            child
                .as_mut()
                .is_some_and(|child| child.try_wait().ok().flatten().is_some())
        });
        if let Some(index) = ended {
            break index;
        }
        assert!(Instant::now() < deadline, "neither game was refused");
        std::thread::sleep(Duration::from_millis(50));
    };
    let loser = children[refused].take().expect("the refused game");
    let winner = children[1 - refused].take().expect("the holder");
    let holder = [first_id, second_id][1 - refused];
    let (status, stderr) = finish(loser);
    // The holder is stopped (and saves) whatever became of the other, so none is left running.
    let _ = Command::new("kill")
        .args(["-s", "TERM", &winner.id().to_string()])
        .status();
    let (held, holder_stderr) = finish(winner);
    if skip_gpu() && status != Some(2) {
        return;
    }
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("process {holder}")),
        "the refusal names the holder {holder}: {stderr}"
    );
    assert_eq!(held, Some(0), "{holder_stderr}");
    WorldSave::read(&world).expect("the holder's save loads");
    std::fs::remove_dir_all(dir).ok();
}
