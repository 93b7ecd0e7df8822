//! The fuzzer's short run for CI: each target for a fixed number of cases with a fixed seed
//! (the long runs are `fuzz --minutes 10 TARGET`, figures in BENCHMARKS.md). A failure prints
//! its input and the command that checks it again.

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
