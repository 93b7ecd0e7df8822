//! Fuzzing on stable Rust: seeded, structure-aware generators for the inputs a player or a user
//! hands blockfall, and the invariants every one of them must keep (docs/fuzzing.md).
//!
//! Each [`Target`] makes inputs from a seed ([`Target::generate`]) and checks one input
//! ([`Target::check`]): no panic, no case over [`CASE_TIME_LIMIT`], and every refused input
//! answered with a clear error ([`check_message`]). The [`runner`] drives the cases on a worker
//! thread, catches panics, times each case, and writes what failed to a file that
//! `fuzz --replay` reads back.
//!
//! | target | input | entry points |
//! |---|---|---|
//! | [`scene`] | scene and script files (JSON) | `scene::parse`, then `scene::run_with_pool` |
//! | [`save`] | save files | `WorldSave::decode`, then `World::from_save` and two frames |
//! | [`settings`] | `settings.ron` | `Settings::from_bytes`, then `to_ron` read back |
//! | [`mesh`] | the `mesh` tool's `--dims` and grid | dims parsed, the grid meshed by surface nets |
//!
//! The generators are seeded ([`Rng`]): case `k` of a run with seed `s` is the same input on
//! every machine, so a failure is reproduced from the two numbers the runner prints.

pub mod hostile;
pub mod mesh;
pub mod runner;
pub mod save;
pub mod scene;
pub mod settings;

use std::time::Duration;

/// The longest a case may take before it counts as a hang.
pub const CASE_TIME_LIMIT: Duration = Duration::from_secs(10);

/// The longest error message an input may get, in characters: an input's own text may be
/// quoted, but not a long one in full.
pub const LONGEST_MESSAGE: usize = 2000;

/// What an input is fed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Scene and script files: parsed, and the small accepted ones run.
    Scene,
    /// Save files: decoded, and the accepted ones loaded and stepped.
    Save,
    /// The settings file, `settings.ron`.
    Settings,
    /// The `mesh` tool's dimensions and density grid.
    Mesh,
}

impl Target {
    /// Every target, in the order `fuzz all` runs them.
    pub const ALL: [Target; 4] = [Target::Scene, Target::Save, Target::Settings, Target::Mesh];

    /// The target's name on the command line and in failure files.
    pub fn name(self) -> &'static str {
        match self {
            Target::Scene => "scene",
            Target::Save => "save",
            Target::Settings => "settings",
            Target::Mesh => "mesh",
        }
    }

    /// The target of a name, as [`Target::name`] spells it.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|target| target.name() == name)
    }

    /// An input made from `rng`.
    pub fn generate(self, rng: &mut Rng) -> Vec<u8> {
        match self {
            Target::Scene => scene::generate(rng),
            Target::Save => save::generate(rng),
            Target::Settings => settings::generate(rng),
            Target::Mesh => mesh::generate(rng),
        }
    }

    /// Feeds `input` to the target and checks what comes back; `Err` says which invariant broke.
    /// A panic is the runner's to catch.
    pub fn check(self, input: &[u8]) -> Result<Outcome, String> {
        match self {
            Target::Scene => scene::check(input),
            Target::Save => save::check(input),
            Target::Settings => settings::check(input),
            Target::Mesh => mesh::check(input),
        }
    }
}

/// What became of an input that kept every invariant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Refused, with a clear error.
    Refused,
    /// Accepted.
    Accepted,
    /// Accepted and used further: a scene run, a save loaded and stepped, settings written and
    /// read back, a mesh with triangles.
    Used,
}

pub use blockfall_physics::random::Rng;

/// Bytes that matter to parsers: brackets, quotes, separators, escapes, signs and digits,
/// whitespace, and the extremes of a byte.
const INTERESTING_BYTES: &[u8] = b"{}[]():,\"'\\-+.0123456789eE \n\t\r/*#\x00\x7f\x80\xff";

/// Changes `bytes` in one to four places: a bit flipped, a byte set, a run deleted, duplicated
/// or cut off, bytes inserted. The result is at most `longest` bytes.
pub fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>, longest: usize) {
    for _ in 0..rng.between(1, 4) {
        let len = bytes.len();
        let at = rng.below(len + 1);
        match rng.below(8) {
            0 if len > 0 => bytes[at.min(len - 1)] ^= 1 << rng.below(8),
            1 if len > 0 => bytes[at.min(len - 1)] = rng.next_u64() as u8,
            2 if len > 0 => bytes[at.min(len - 1)] = *rng.pick(INTERESTING_BYTES),
            3 => {
                let end = (at + rng.between(1, 64) as usize).min(len);
                bytes.drain(at..end);
            }
            4 if len > 0 => {
                let start = rng.below(len);
                let end = (start + rng.between(1, 64) as usize).min(len);
                let run = bytes[start..end].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, run);
            }
            5 => bytes.truncate(at),
            6 => {
                let inserted: Vec<u8> = (0..rng.between(1, 16))
                    .map(|_| *rng.pick(INTERESTING_BYTES))
                    .collect();
                bytes.splice(at..at, inserted);
            }
            _ => {
                let inserted: Vec<u8> = (0..rng.between(1, 8))
                    .map(|_| rng.next_u64() as u8)
                    .collect();
                bytes.splice(at..at, inserted);
            }
        }
    }
    bytes.truncate(longest);
}

/// Checks a refused input's message: not empty, and at most [`LONGEST_MESSAGE`] characters.
pub fn check_message(message: &str) -> Result<(), String> {
    if message.trim().is_empty() {
        return Err("refused with an empty message".into());
    }
    let length = message.chars().count();
    if length > LONGEST_MESSAGE {
        return Err(format!(
            "refused with a message of {length} characters (at most {LONGEST_MESSAGE}): {}…",
            message.chars().take(300).collect::<String>()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_keep_to_the_longest_allowed() {
        let mut rng = Rng::new(3);
        for _ in 0..500 {
            let mut bytes = b"{\"duration\": 1}".to_vec();
            mutate_bytes(&mut rng, &mut bytes, 20);
            assert!(bytes.len() <= 20);
        }
    }

    #[test]
    fn messages_must_say_something_and_not_too_much() {
        assert!(check_message("duration: -1 is not 0 to 86400 s").is_ok());
        assert!(check_message("  ").is_err());
        assert!(check_message(&"x".repeat(LONGEST_MESSAGE + 1)).is_err());
    }

    #[test]
    fn names_round_trip() {
        for target in Target::ALL {
            assert_eq!(Target::from_name(target.name()), Some(target));
        }
        assert_eq!(Target::from_name("all"), None);
    }
}
