//! How much work a scene may ask for. A scene's numbers are the user's input: a tiny `frame_dt`
//! with a long `duration`, or a `report_every` of 1e-300 over a busy world, would run for years
//! or write terabytes. So the work a scene implies is worked out before it runs and refused,
//! with the numbers and the way to ask for more, when it is beyond its limits:
//!
//! - **frames**: `(duration - start) / frame_dt`, checked when the scene is parsed (and again
//!   from a save's clock);
//! - **trace bytes**: the state lines the scene will write (at most one per frame, plus the
//!   `state` events) times the size of its first state line, plus the event lines, checked when
//!   the world is set up, before the first line is written. The pieces a run breaks off make
//!   later lines longer than the first, so the trace is also counted as it is written, and a run
//!   that outgrows the limit all the same stops there with an error.
//!
//! A scene asks for more with its `"limits"` key: `{"limits": {"frames": 20000000,
//! "trace_bytes": 10000000000}}`.

use serde::Deserialize;

use super::error::{invalid, SceneError};

/// The work a scene may ask for; its `"limits"` key raises (or lowers) them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Frames the run steps: a day of game time at 60 frames a second fits.
    pub frames: u64,
    /// Bytes of the whole trace.
    pub trace_bytes: u64,
}

impl Limits {
    /// The limits of a scene that names none.
    pub const DEFAULT: Limits = Limits {
        frames: 6_000_000,
        trace_bytes: 1 << 30,
    };

    /// Refuses `frames` frames beyond the limit.
    pub fn check_frames(&self, frames: f64, why: &str) -> Result<(), SceneError> {
        if frames > self.frames as f64 {
            return Err(invalid(
                "limits.frames",
                format!(
                    "the scene asks for {frames:.0} frames ({why}), more than its limit of {}; a \
                     scene that means it says so with \"limits\": {{\"frames\": N}}",
                    self.frames
                ),
            ));
        }
        Ok(())
    }

    /// Refuses a trace of about `bytes` bytes beyond the limit (an estimate made before the
    /// run, or the count so far while it runs).
    pub fn check_trace(&self, bytes: u64, why: &str) -> Result<(), SceneError> {
        if bytes > self.trace_bytes {
            return Err(invalid(
                "limits.trace_bytes",
                format!(
                    "{why}: {bytes} bytes of trace, more than its limit of {}; a scene that \
                     means it says so with \"limits\": {{\"trace_bytes\": N}}",
                    self.trace_bytes
                ),
            ));
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
