//! The fuzzer's short run for CI: each target for a fixed number of cases with a fixed seed
//! (the long runs are `fuzz --minutes 10 TARGET`, figures in BENCHMARKS.md). A failure prints
//! its input and the command that checks it again. And `fuzz --replay` on what is not a saved
//! input: refused at once.

use blockfall_tools::fuzz::runner::{self, Limit, RunOptions};
use blockfall_tools::fuzz::Target;

/// The seed of every CI run: the same cases each time.
const SEED: u64 = 16;

fn fuzz(target: Target, cases: u64) {
    let report = runner::run(&RunOptions {
        target,
        seed: SEED,
        limit: Limit::Cases(cases),
        failures: None,
        log: false,
    })
    .expect("the runner starts");
    println!("{report}");
    assert_eq!(report.cases, cases);
    let failures: Vec<String> = report.failures.iter().map(ToString::to_string).collect();
    assert_eq!(report.failed, 0, "{report}\n{}", failures.join("\n"));
    // The generators reach past the parsers: some inputs are refused and some used.
    assert!(report.refused > 0 && report.used > 0, "{report}");
}

#[test]
fn scene_files_never_panic_hang_or_refuse_unclearly() {
    fuzz(Target::Scene, 1000);
}

#[test]
fn save_files_never_panic_hang_or_refuse_unclearly() {
    fuzz(Target::Save, 2000);
}

#[test]
fn settings_files_never_panic_hang_or_refuse_unclearly() {
    fuzz(Target::Settings, 2000);
}

#[test]
fn mesh_inputs_never_panic_hang_or_refuse_unclearly() {
    fuzz(Target::Mesh, 3000);
}

#[test]
fn fuzz_replay_of_an_endless_or_huge_file_is_refused_at_once() {
    let folder = std::env::temp_dir().join(format!("blockfall-fuzz-replay-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temp folder");
    // Sparse: a byte past the limit, without taking the disk.
    let huge = folder.join("huge.bin");
    std::fs::File::create(&huge)
        .and_then(|file| file.set_len(runner::LARGEST_REPLAY_BYTES + 1))
        .expect("a sparse file");
    for (path, problem) in [
        (
            std::path::PathBuf::from("/dev/zero"),
            "is a character device".to_owned(),
        ),
        (
            huge,
            format!("larger than {} bytes", runner::LARGEST_REPLAY_BYTES),
        ),
    ] {
        let result = std::process::Command::new(env!("CARGO_BIN_EXE_fuzz"))
            .args(["save", "--replay"])
            .arg(&path)
            .arg("--failures")
            .arg(folder.join("failures"))
            .output()
            .expect("running the fuzzer");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(
            result.status.code(),
            Some(2),
            "{}: {stderr}",
            path.display()
        );
        assert!(
            stderr.contains("--replay") && stderr.contains(&problem),
            "{}: {stderr}",
            path.display()
        );
        assert!(
            stderr.lines().all(|line| line.chars().count() < 300),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(folder).ok();
}
