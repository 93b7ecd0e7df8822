//! blockfall's sound: blows synthesised from data and mixed for one listener. It knows nothing
//! of the game (which sound a stone block makes is the game's `sounds` module), nor of any sound
//! device: it fills buffers of samples, and whoever owns a device or a file takes them.
//!
//! - [`Recipe`]: how a blow sounds, as data: a few resonant modes (decaying sines, the body
//!   ringing) and a band of noise (the crack of the contact), after a short attack.
//! - [`Mixer`]: the voices now sounding, placed in the world around a listener: quieter with
//!   distance, panned by direction, at most a fixed number at once, summed and limited so no
//!   sample clips.
//! - [`WavWriter`] and [`read_wav`]: 16-bit stereo PCM files, to listen to a run or check it in
//!   tests.
//!
//! Output is [`SAMPLE_RATE`] frames a second, stereo, `f32` samples interleaved left, right.
//! Everything is deterministic: a voice's noise comes from a generator seeded by how many voices
//! the mixer started before it, never by the clock, so the same calls give the same samples.

mod mixer;
mod recipe;
mod wav;

pub use mixer::{Mixer, HEARING_RANGE, MAX_GAIN, REFERENCE_DISTANCE};
pub use recipe::{Mode, Noise, Recipe, DEFAULT_ATTACK_S};
pub use wav::{read_wav, WavWriter};

/// Frames per second of everything this crate makes and reads: 48 kHz.
pub const SAMPLE_RATE: u32 = 48_000;

/// Channels per frame: left and right, interleaved in that order.
pub const CHANNELS: usize = 2;

/// How much an amplitude falls over a decay time: 60 dB, a factor of 1000. A decay time
/// (`decay_s` of [`Mode`] and [`Noise`]) is the time to fall by this much.
pub const DECAY_FACTOR: f32 = 1000.0;
