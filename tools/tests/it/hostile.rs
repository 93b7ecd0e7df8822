//! Hostile saves and scenes (`blockfall_tools::fuzz::hostile`) run through `sim` as a user runs
//! it, each under a cap on its address space and its peak resident memory read back: every one
//! is refused with a short message naming the field and the limit (exit status 2), or runs
//! within 1 GiB of resident memory. None aborts.

use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use blockfall_tools::fuzz::hostile::{SaveFamily, SceneFamily};

/// The most resident memory a run may reach.
const MOST_RESIDENT: u64 = 1 << 30;
/// The address space a run is given: an allocation past it fails (and would abort the run),
/// so a run that asks for gigabytes ends at once instead of taking the machine's memory.
const ADDRESS_SPACE: u64 = 4 << 30;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockfall-hostile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a run of `sim` came to.
#[derive(Debug)]
pub struct Ran {
    /// The exit status, or `None` when a signal ended it.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// Peak resident memory, in bytes.
    pub peak: u64,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `program` with `args` under [`ADDRESS_SPACE`] and reads its peak resident memory.
pub fn run_watched(program: &Path, args: &[&str]) -> Ran {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().expect("the program starts");
    let pid = child.id();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        out.read_to_end(&mut text).unwrap();
        text
    });
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        err.read_to_end(&mut text).unwrap();
        text
    });
    // The peak resident memory of the program itself (VmHWM), read while it runs: the
    // rusage of a child counts the parent's memory at the fork.
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the program") {
            break status;
        }
        peak = peak.max(high_water(pid));
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let stdout = reader.join().unwrap();
    let stderr = errors.join().unwrap();
    use std::os::unix::process::ExitStatusExt as _;
    Ran {
        code: status.code(),
        signal: status.signal(),
        peak,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// The peak resident memory of process `pid` so far, in bytes (0 once it is gone).
fn high_water(pid: u32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Checks one run: refused with a short message, or run to its end, within the memory.
fn check(name: &str, ran: &Ran) -> Result<&'static str, String> {
    if ran.peak > MOST_RESIDENT {
        return Err(format!(
            "{name}: {} MiB resident, more than {} MiB",
            ran.peak >> 20,
            MOST_RESIDENT >> 20
        ));
    }
    match ran.code {
        Some(0) if ran.stdout.contains("\"done\":true") => Ok("ran"),
        Some(2) => {
            let message = ran.stderr.trim();
            if message.is_empty() || message.lines().count() > 2 || message.len() > 600 {
                return Err(format!("{name}: refused with a poor message: {message:?}"));
            }
            Ok("refused")
        }
        _ => Err(format!(
            "{name}: exit {:?}, signal {:?}: {}",
            ran.code,
            ran.signal,
            ran.stderr.chars().take(400).collect::<String>()
        )),
    }
}

fn sim_save(dir: &Path, name: &str, bytes: &[u8]) -> Ran {
    let save = dir.join(format!("{name}.blockfall"));
    std::fs::write(&save, bytes).unwrap();
    let scene = dir.join(format!("{name}.json"));
    let text = format!(
        r#"{{"world_file": {}, "duration": 0.05, "report_every": 0.05}}"#,
        serde_json::to_string(save.to_str().unwrap()).unwrap()
    );
    std::fs::write(&scene, text).unwrap();
    run_watched(
        Path::new(env!("CARGO_BIN_EXE_sim")),
        &[scene.to_str().unwrap()],
    )
}

fn sim_scene(dir: &Path, name: &str, text: &str) -> Ran {
    let scene = dir.join(format!("{name}.json"));
    std::fs::write(&scene, text).unwrap();
    run_watched(
        Path::new(env!("CARGO_BIN_EXE_sim")),
        &[scene.to_str().unwrap()],
    )
}

/// The sizes each family is tried at: small, toward the limits, far past them.
const SIZES: [u64; 6] = [3, 4096, 16_384, 1 << 20, 1 << 24, 1 << 31];

/// Checks each case (its name, its input's size and its run), printing what became of it;
/// every failure named at the end.
fn check_all(cases: impl Iterator<Item = (String, usize, Ran)>) {
    let mut failures = Vec::new();
    for (name, bytes, ran) in cases {
        match check(&name, &ran) {
            Ok(what) => eprintln!(
                "{name}: {bytes} bytes, {what}, {} MiB: {}",
                ran.peak >> 20,
                ran.stderr.trim().chars().take(200).collect::<String>()
            ),
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_hostile_save_is_refused_or_runs_within_a_gibibyte() {
    let dir = &scratch("saves");
    let cases = SaveFamily::ALL.into_iter().flat_map(|family| {
        SIZES.into_iter().map(move |n| {
            let name = format!("{}-{n}", family.name());
            let bytes = family.make(n);
            let ran = sim_save(dir, &name, &bytes);
            (name, bytes.len(), ran)
        })
    });
    check_all(cases);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn every_hostile_scene_is_refused_or_runs_within_a_gibibyte() {
    let dir = &scratch("scenes");
    let cases = SceneFamily::ALL.into_iter().flat_map(|family| {
        [3, 100, 20_000, 1 << 20, 1 << 31]
            .into_iter()
            .map(move |n| {
                let name = format!("{}-{n}", family.name());
                // Counts stop at 200,000 (a scene of some 10 MB); a place takes any size.
                let n = if matches!(family, SceneFamily::BlockAt) {
                    n
                } else {
                    n.min(200_000)
                };
                let text = family.make(n);
                let ran = sim_scene(dir, &name, &text);
                (name, text.len(), ran)
            })
    });
    check_all(cases);
    std::fs::remove_dir_all(dir).ok();
}
