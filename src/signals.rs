//! Quitting on a signal (docs/saves.md, "Quitting, locks and failed saves"): SIGTERM, SIGINT
//! (Ctrl+C) and SIGHUP (the terminal closed) stop the run as a quit does — the window and the
//! headless and scripted runs see [`stop_asked`] between frames, leave through their usual end
//! and save the world there (as F5 does, atomically) — and the run exits 0. A second signal
//! waits for that end (stderr says so); a third exits at once, status 128 + the signal's number
//! as a shell reports a killed process: the save is written whole to a temporary file and
//! renamed, so the old save or the new one is on disk, never a part of one.
//!
//! [`listen`] (the binary calls it at start) counts the signals on a thread of its own
//! ([`Received`]); a library caller that never calls it is never stopped by one.

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// What a signal asks, by how many came before it ([`Received::take`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    /// The first: save the world and quit after this frame.
    SaveAndQuit,
    /// The second: the run is already stopping; wait for its save to finish.
    Wait,
    /// The third and later: exit now.
    ExitNow,
}

/// The quitting signals received so far, and the first of them.
#[derive(Debug)]
pub struct Received {
    count: AtomicUsize,
    first: AtomicI32,
}

impl Received {
    /// None received yet.
    pub const fn new() -> Self {
        Self {
            count: AtomicUsize::new(0),
            first: AtomicI32::new(0),
        }
    }

    /// Counts `signal` and says what it asks: the first to save and quit, the second to wait,
    /// any later one to exit at once.
    pub fn take(&self, signal: i32) -> Reaction {
        let _ = self
            .first
            .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
        match self.count.fetch_add(1, Ordering::SeqCst) {
            0 => Reaction::SaveAndQuit,
            1 => Reaction::Wait,
            _ => Reaction::ExitNow,
        }
    }

    /// The first signal received, once one was: the run is to stop.
    pub fn stop_asked(&self) -> Option<i32> {
        match self.first.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(signal),
        }
    }
}

impl Default for Received {
    fn default() -> Self {
        Self::new()
    }
}

/// Writes `line` and a line end on stderr. A stderr that is gone is no reason to fail: after
/// SIGHUP the terminal may be closed, and `eprintln!` would panic there before the world was
/// saved.
pub fn tell(line: impl std::fmt::Display) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The signals of this process, counted by [`listen`]'s thread.
static RECEIVED: Received = Received::new();

/// Whether a quitting signal came: the name of the first (`SIGTERM`), and the run is to stop.
pub fn stop_asked() -> Option<&'static str> {
    RECEIVED.stop_asked().map(name)
}

/// The name of `signal` (`SIGTERM`, `SIGINT`, `SIGHUP`; another as `signal N`).
pub fn name(signal: i32) -> &'static str {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        match signal {
            SIGTERM => return "SIGTERM",
            SIGINT => return "SIGINT",
            SIGHUP => return "SIGHUP",
            _ => {}
        }
    }
    let _ = signal;
    "a signal"
}

/// Takes SIGTERM, SIGINT and SIGHUP from now on: a thread counts them ([`Received::take`]),
/// says on stderr what each does, and exits the process at the third. Elsewhere than Unix it
/// does nothing.
#[cfg(unix)]
pub fn listen() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                react(signal, RECEIVED.take(signal));
            }
        })?;
    Ok(())
}

/// Takes no signals: only Unix has these.
#[cfg(not(unix))]
pub fn listen() -> std::io::Result<()> {
    Ok(())
}

/// What the signal thread does for `signal`, the `reaction` it asks for.
#[cfg(unix)]
fn react(signal: i32, reaction: Reaction) {
    let name = name(signal);
    match reaction {
        Reaction::SaveAndQuit => tell(format_args!(
            "{name}: stopping after this frame (a world is saved first)"
        )),
        Reaction::Wait => tell(format_args!(
            "{name} again: waiting for the save to finish (a third signal quits at once; the \
             old save or the new one stays whole)"
        )),
        Reaction::ExitNow => {
            tell(format_args!(
                "{name} a third time: quitting now, without waiting for the save"
            ));
            signal_hook::low_level::exit(128 + signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_saves_and_quits_the_second_waits_the_third_exits() {
        let received = Received::new();
        assert_eq!(received.stop_asked(), None);
        assert_eq!(received.take(15), Reaction::SaveAndQuit);
        assert_eq!(received.stop_asked(), Some(15));
        assert_eq!(received.take(2), Reaction::Wait);
        assert_eq!(received.take(1), Reaction::ExitNow);
        assert_eq!(received.take(15), Reaction::ExitNow);
        // The first one stays the one the run stopped on.
        assert_eq!(received.stop_asked(), Some(15));
    }

    #[cfg(unix)]
    #[test]
    fn the_quitting_signals_have_their_names() {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        assert_eq!(name(SIGTERM), "SIGTERM");
        assert_eq!(name(SIGINT), "SIGINT");
        assert_eq!(name(SIGHUP), "SIGHUP");
        assert_eq!(name(SIGTERM + 1000), "a signal");
    }
}
