//! The runner: cases made on this thread and checked on a worker thread, each caught if it
//! panics and timed against [`CASE_TIME_LIMIT`]; failures kept with their input, seed and case
//! number, and written to a folder for `fuzz --replay`.
//!
//! A panic is caught (`catch_unwind`), reported with its message and place, and the run goes on
//! with the next case. A hang cannot be stopped from outside the thread that hangs: it is
//! reported, its input written, and the run stops there.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Once};
use std::thread;
use std::time::{Duration, Instant};

use super::{Outcome, Rng, Target, CASE_TIME_LIMIT};

/// The worker's stack: as large as a main thread's, where the game and the tools parse files.
const WORKER_STACK: usize = 8 << 20;
/// Failing cases kept (printed and written to files) for each kind of failure
/// ([`Failure::signature`]); the rest are counted.
const KEPT_PER_KIND: usize = 3;
/// A run stops after this many kinds of failure.
const MOST_KINDS: usize = 50;
/// How often a logging run says how far it is.
const PROGRESS_EVERY: Duration = Duration::from_secs(60);
/// The largest input `fuzz --replay` reads (64 MiB): the largest file a target's entry point
/// reads whole is a scene (`blockfall_game::scene::LARGEST_SCENE_BYTES`, 64 MiB); the generators
/// make far smaller ones (4 MiB at most).
pub const LARGEST_REPLAY_BYTES: u64 = 64 << 20;

/// How long a run goes on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// This many cases.
    Cases(u64),
    /// Until this much time has passed (the case under way finishes).
    Time(Duration),
}

/// What to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub target: Target,
    /// The run's seed: case `k` is made from [`Rng::case_seed`]`(seed, k)`.
    pub seed: u64,
    pub limit: Limit,
    /// Where failing inputs are written (`TARGET-SEED-CASE.bin` and a `.txt` that says what
    /// failed); `None`: nowhere.
    pub failures: Option<PathBuf>,
    /// Print failures as they come, and a progress line every minute, on stderr.
    pub log: bool,
}

/// How a case failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// It panicked.
    Panic,
    /// It ran past [`CASE_TIME_LIMIT`].
    Hang,
    /// It broke an invariant ([`Target::check`]'s error).
    Invariant,
}

/// A failed case: what went wrong and the input that did it.
#[derive(Debug, Clone)]
pub struct Failure {
    pub target: Target,
    pub kind: FailureKind,
    /// The panic's message and place, the invariant broken, or how long it ran.
    pub message: String,
    pub input: Vec<u8>,
    /// The run's seed and the case's number, when it came from a run (not a replayed file).
    pub case: Option<(u64, u64)>,
    /// Where the input was written.
    pub saved: Option<PathBuf>,
}

impl Failure {
    /// What failures of one kind share: the message's words up to the first quote of the
    /// input (`` ` `` or `"`), without numbers (a panic's message starts with its place).
    pub fn signature(&self) -> String {
        let words: String = self
            .message
            .chars()
            .take_while(|&c| c != '`' && c != '"')
            .filter(|c| !c.is_ascii_digit())
            .take(100)
            .collect();
        format!("{:?}: {}", self.kind, words.trim_end())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            FailureKind::Panic => "panic",
            FailureKind::Hang => "hang",
            FailureKind::Invariant => "invariant broken",
        };
        write!(f, "{} {kind}", self.target.name())?;
        if let Some((seed, case)) = self.case {
            write!(f, " (seed {seed}, case {case})")?;
        }
        write!(f, ": {}", self.message)?;
        write!(
            f,
            "\n  input ({} bytes): {}",
            self.input.len(),
            preview(&self.input)
        )?;
        if let Some(path) = &self.saved {
            write!(
                f,
                "\n  replay: cargo run --release -p blockfall-tools --bin fuzz -- {} --replay {}",
                self.target.name(),
                path.display()
            )?;
        }
        if let Some((seed, case)) = self.case {
            write!(
                f,
                "\n  or: cargo run --release -p blockfall-tools --bin fuzz -- {} --seed {seed} --case {case}",
                self.target.name()
            )?;
        }
        Ok(())
    }
}

/// The start of an input, as text where it is text, for a failure's message.
fn preview(input: &[u8]) -> String {
    const SHOWN: usize = 400;
    let text = String::from_utf8_lossy(&input[..input.len().min(SHOWN)]);
    let mut shown: String = text.escape_debug().collect();
    if input.len() > SHOWN {
        shown.push('…');
    }
    shown
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Report {
    pub target: Target,
    pub seed: u64,
    /// Cases checked (a hung case counts).
    pub cases: u64,
    pub elapsed: Duration,
    /// Cases refused with a clear error.
    pub refused: u64,
    /// Cases accepted.
    pub accepted: u64,
    /// Cases accepted and used further (see [`Outcome::Used`]).
    pub used: u64,
    /// Cases that failed.
    pub failed: u64,
    /// The first failing cases of each kind ([`Failure::signature`]).
    pub failures: Vec<Failure>,
    /// The kinds of failure, each with how many cases failed that way, in the order found.
    pub kinds: Vec<(String, u64)>,
    /// Why the run stopped before its limit, if it did.
    pub stopped: Option<String>,
}

impl Report {
    /// Cases per second of the run.
    pub fn rate(&self) -> f64 {
        self.cases as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} cases in {:.1} min ({:.1} cases/s), seed {}: {} refused, {} accepted, {} \
             used further; {} failed ({} kinds)",
            self.target.name(),
            self.cases,
            self.elapsed.as_secs_f64() / 60.0,
            self.rate(),
            self.seed,
            self.refused,
            self.accepted,
            self.used,
            self.failed,
            self.kinds.len()
        )?;
        for (signature, cases) in &self.kinds {
            write!(f, "\n  {cases} × {signature}")?;
        }
        if let Some(why) = &self.stopped {
            write!(f, " (stopped: {why})")?;
        }
        Ok(())
    }
}

thread_local! {
    /// Whether this thread's panics are the runner's to report (not printed by the hook).
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    /// The message and place of this thread's last captured panic.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs, once, a panic hook that keeps the panics of checking threads for their report and
/// leaves every other panic to the hook that was there.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                LAST_PANIC.with(|last| *last.borrow_mut() = Some(info.to_string()));
            } else {
                previous(info);
            }
        }));
    });
}

type Verdict = Result<Outcome, (FailureKind, String)>;

/// A check of one input, as [`Target::check`].
type Check = fn(&[u8]) -> Result<Outcome, String>;

/// A thread that checks the inputs sent to it, one at a time.
struct Worker {
    inputs: Sender<Arc<Vec<u8>>>,
    verdicts: Receiver<Verdict>,
}

impl Worker {
    fn start(target: Target) -> Result<Worker, String> {
        Worker::with_check(
            target.name(),
            match target {
                Target::Scene => super::scene::check,
                Target::Save => super::save::check,
                Target::Settings => super::settings::check,
                Target::Mesh => super::mesh::check,
            },
        )
    }

    fn with_check(name: &str, check: Check) -> Result<Worker, String> {
        install_panic_hook();
        let (inputs, to_check) = mpsc::channel::<Arc<Vec<u8>>>();
        let (answer, verdicts) = mpsc::channel();
        thread::Builder::new()
            .name(format!("fuzz-{name}"))
            .stack_size(WORKER_STACK)
            .spawn(move || {
                CAPTURING.with(|capturing| capturing.set(true));
                for input in to_check {
                    let verdict = match panic::catch_unwind(AssertUnwindSafe(|| check(&input))) {
                        Ok(Ok(outcome)) => Ok(outcome),
                        Ok(Err(broken)) => Err((FailureKind::Invariant, broken)),
                        Err(payload) => {
                            let message = LAST_PANIC
                                .with(|last| last.borrow_mut().take())
                                .unwrap_or_else(|| panic_text(payload.as_ref()));
                            Err((FailureKind::Panic, message))
                        }
                    };
                    if answer.send(verdict).is_err() {
                        break;
                    }
                }
            })
            .map_err(|error| format!("starting the worker thread: {error}"))?;
        Ok(Worker { inputs, verdicts })
    }

    /// The verdict on `input`, or `None` when it ran past [`CASE_TIME_LIMIT`] (the worker is
    /// then stuck and must not be used again).
    fn check(&self, input: Arc<Vec<u8>>) -> Option<Verdict> {
        if self.inputs.send(input).is_err() {
            return Some(Err((
                FailureKind::Panic,
                "the worker thread is gone".to_owned(),
            )));
        }
        match self.verdicts.recv_timeout(CASE_TIME_LIMIT) {
            Ok(verdict) => Some(verdict),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Err((
                FailureKind::Panic,
                "the worker thread ended without an answer".to_owned(),
            ))),
        }
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_owned())
}

/// Runs `options.target` on generated cases until the limit, a hang, or too many failures.
pub fn run(options: &RunOptions) -> Result<Report, String> {
    let worker = Worker::start(options.target)?;
    let started = Instant::now();
    let mut last_progress = started;
    let mut report = Report {
        target: options.target,
        seed: options.seed,
        cases: 0,
        elapsed: Duration::ZERO,
        refused: 0,
        accepted: 0,
        used: 0,
        failed: 0,
        failures: Vec::new(),
        kinds: Vec::new(),
        stopped: None,
    };
    loop {
        let more = match options.limit {
            Limit::Cases(cases) => report.cases < cases,
            Limit::Time(time) => started.elapsed() < time,
        };
        if !more {
            break;
        }
        let case = report.cases;
        // A generator's panic is the fuzzer's own bug: reported as the case's failure, with
        // no input (the seed and case number make it again).
        let generated = panic::catch_unwind(|| case_input(options.target, options.seed, case));
        let (input, verdict) = match generated {
            Ok(input) => {
                let input = Arc::new(input);
                (input.clone(), worker.check(input))
            }
            Err(payload) => (
                Arc::new(Vec::new()),
                Some(Err((
                    FailureKind::Panic,
                    format!("the generator panicked: {}", panic_text(payload.as_ref())),
                ))),
            ),
        };
        report.cases += 1;
        let (kind, message) = match verdict {
            Some(Ok(outcome)) => {
                match outcome {
                    Outcome::Refused => report.refused += 1,
                    Outcome::Accepted => report.accepted += 1,
                    Outcome::Used => report.used += 1,
                }
                if options.log && last_progress.elapsed() >= PROGRESS_EVERY {
                    last_progress = Instant::now();
                    report.elapsed = started.elapsed();
                    eprintln!("… {report}");
                }
                continue;
            }
            Some(Err(failure)) => failure,
            None => (
                FailureKind::Hang,
                format!("still running after {} s", CASE_TIME_LIMIT.as_secs()),
            ),
        };
        let mut failure = Failure {
            target: options.target,
            kind,
            message,
            input: input.to_vec(),
            case: Some((options.seed, case)),
            saved: None,
        };
        report.failed += 1;
        let signature = failure.signature();
        let seen = match report.kinds.iter_mut().find(|(kind, _)| *kind == signature) {
            Some((_, cases)) => {
                *cases += 1;
                *cases
            }
            None => {
                report.kinds.push((signature, 1));
                1
            }
        };
        if seen as usize <= KEPT_PER_KIND {
            if let Some(folder) = &options.failures {
                failure.saved = Some(save_failure(folder, &failure)?);
            }
            if options.log {
                eprintln!("{failure}");
            }
            report.failures.push(failure);
        }
        if kind == FailureKind::Hang {
            report.stopped = Some(format!(
                "case {case} hung; a hung case cannot be stopped, so the run ends here"
            ));
            break;
        }
        if report.kinds.len() >= MOST_KINDS {
            report.stopped = Some(format!("{MOST_KINDS} kinds of failure"));
            break;
        }
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Checks one input (a replayed file or a case made again) as a run would: on a worker thread,
/// panics caught, timed.
pub fn check_one(
    target: Target,
    input: Vec<u8>,
    case: Option<(u64, u64)>,
) -> Result<Result<Outcome, Failure>, String> {
    let worker = Worker::start(target)?;
    let input = Arc::new(input);
    let (kind, message) = match worker.check(input.clone()) {
        Some(Ok(outcome)) => return Ok(Ok(outcome)),
        Some(Err(failure)) => failure,
        None => (
            FailureKind::Hang,
            format!("still running after {} s", CASE_TIME_LIMIT.as_secs()),
        ),
    };
    Ok(Err(Failure {
        target,
        kind,
        message,
        input: input.to_vec(),
        case,
        saved: None,
    }))
}

/// A saved input for `fuzz --replay`: at most [`LARGEST_REPLAY_BYTES`] read, and only from a
/// regular file (a FIFO or a device such as `/dev/zero` is refused at once, never read or
/// waited on); a larger file is refused naming the limit.
pub fn read_replay(path: &Path) -> Result<Vec<u8>, String> {
    blockfall_game::files::read_at_most(path, LARGEST_REPLAY_BYTES)
        .map_err(|error| format!("--replay: cannot read `{}`: {error}", path.display()))?
        .ok_or_else(|| {
            format!(
                "--replay: `{}` is larger than {LARGEST_REPLAY_BYTES} bytes (64 MiB), the most a \
                 replayed input may be: the largest file a target reads whole is a 64 MiB scene",
                path.display()
            )
        })
}

/// The input made for case `case` of a run seeded with `seed`.
pub fn case_input(target: Target, seed: u64, case: u64) -> Vec<u8> {
    target.generate(&mut Rng::new(Rng::case_seed(seed, case)))
}

/// Writes a failure's input to `folder/TARGET-SEED-CASE.bin` and what failed beside it (`.txt`);
/// the `.bin` path.
fn save_failure(folder: &Path, failure: &Failure) -> Result<PathBuf, String> {
    std::fs::create_dir_all(folder)
        .map_err(|error| format!("creating {}: {error}", folder.display()))?;
    let stem = match failure.case {
        Some((seed, case)) => format!("{}-{seed}-{case}", failure.target.name()),
        None => format!("{}-replayed", failure.target.name()),
    };
    let input = folder.join(format!("{stem}.bin"));
    std::fs::write(&input, &failure.input)
        .map_err(|error| format!("writing {}: {error}", input.display()))?;
    let shown = Failure {
        saved: Some(input.clone()),
        ..failure.clone()
    };
    let note = folder.join(format!("{stem}.txt"));
    std::fs::write(&note, format!("{shown}\n"))
        .map_err(|error| format!("writing {}: {error}", note.display()))?;
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touchy(input: &[u8]) -> Result<Outcome, String> {
        match input {
            [] => Ok(Outcome::Refused),
            [0] => Err("zero".to_owned()),
            _ => panic!("the input {input:?} is not welcome"),
        }
    }

    #[test]
    fn a_panic_in_a_check_is_reported_with_its_message_and_the_worker_goes_on() {
        let worker = Worker::with_check("touchy", touchy).expect("the worker starts");
        let (kind, message) = worker
            .check(Arc::new(vec![7]))
            .expect("no hang")
            .expect_err("a panic");
        assert_eq!(kind, FailureKind::Panic);
        assert!(message.contains("is not welcome"), "{message}");
        assert!(
            message.contains("runner.rs"),
            "the place is given: {message}"
        );
        assert_eq!(
            worker.check(Arc::new(vec![0])).expect("no hang"),
            Err((FailureKind::Invariant, "zero".to_owned()))
        );
        assert_eq!(
            worker.check(Arc::new(Vec::new())).expect("no hang"),
            Ok(Outcome::Refused)
        );
    }

    #[test]
    fn a_replay_reads_a_file_no_larger_than_the_limit_and_nothing_else() {
        let folder = std::env::temp_dir().join(format!("blockfall-replay-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a folder");
        let small = folder.join("small.bin");
        std::fs::write(&small, b"4,4,4\0").expect("an input");
        assert_eq!(read_replay(&small).as_deref(), Ok(&b"4,4,4\0"[..]));
        // Sparse: no disk taken, and only the limit and one byte more are read.
        let large = folder.join("large.bin");
        std::fs::File::create(&large)
            .and_then(|file| file.set_len(LARGEST_REPLAY_BYTES + 1))
            .expect("a sparse file");
        let message = read_replay(&large).unwrap_err();
        assert!(message.contains("larger than 67108864 bytes"), "{message}");
        let message = read_replay(Path::new("/dev/zero")).unwrap_err();
        assert!(message.contains("is a character device"), "{message}");
        std::fs::remove_dir_all(folder).ok();
    }

    #[test]
    fn a_payload_without_a_hook_message_is_still_read() {
        assert_eq!(panic_text(&"boom"), "boom");
        assert_eq!(panic_text(&String::from("bang")), "bang");
        assert_eq!(panic_text(&3u8), "a panic with no message");
    }

    #[test]
    fn a_run_counts_its_cases_and_a_case_is_made_again_from_its_seed() {
        let report = run(&RunOptions {
            target: Target::Mesh,
            seed: 5,
            limit: Limit::Cases(20),
            failures: None,
            log: false,
        })
        .expect("the worker starts");
        assert_eq!(report.cases, 20);
        assert_eq!(
            report.refused + report.accepted + report.used + report.failed,
            20
        );
        assert_eq!(
            case_input(Target::Mesh, 5, 3),
            case_input(Target::Mesh, 5, 3)
        );
        assert_ne!(
            case_input(Target::Mesh, 5, 3),
            case_input(Target::Mesh, 5, 4)
        );
    }
}
