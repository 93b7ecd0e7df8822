//! The game's sound: each blow of the world (a break, a strike, a split, a dig, a step, a
//! landing; `World::take_blows`) played in its material's timbre (`game::sounds`), as loud as
//! its impulse, panned and attenuated from where the player's head is (`blockfall-audio`'s
//! mixer), under the `master_volume` and `effects_volume` settings.
//!
//! Where it goes: with `--audio-wav PATH` (any run), the mixed output is written to that WAV
//! file (48 kHz, 16-bit stereo) in step with the frames played, so a scripted run gives the
//! same file every time; a window otherwise plays it on the system's default output device
//! through cpal (chosen as the thinnest portable layer over ALSA, CoreAudio and WASAPI: the
//! synthesis and mixing are our own, so a game-audio engine such as kira would add a second
//! mixer and its own clock for nothing), mixing in the device's callback; with no device the
//! game runs silent and says so once. A headless run without `--audio-wav` is silent.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use blockfall_audio::{Mixer, WavWriter, SAMPLE_RATE};
use blockfall_game::sounds::{
    blow_gain, footstep_recipe, landing_recipe, material_recipe, soil_recipe,
};
use blockfall_game::world::{Blow, BlowKind};

/// Voices sounding at once, at most (the quietest gives way).
pub const MOST_VOICES: usize = 48;

/// Where the sound goes.
enum Output {
    /// Nowhere: the run is silent.
    Silent,
    /// A WAV file, written as the frames are played.
    Wav(WavWriter),
    /// The default output device, which pulls from the mixer (kept playing while held).
    Device { _stream: cpal::Stream },
}

/// The run's sound.
pub struct Sound {
    mixer: Arc<Mutex<Mixer>>,
    output: Output,
    /// Frames of a sample not yet written (the frames' times are not whole samples).
    carry: f64,
    /// Samples written to the WAV file so far (stereo frames).
    written: u64,
    /// Why a write to the WAV file failed, once.
    failed: Option<String>,
}

impl std::fmt::Debug for Sound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let output = match &self.output {
            Output::Silent => "silent",
            Output::Wav(_) => "a WAV file",
            Output::Device { .. } => "the output device",
        };
        f.debug_struct("Sound").field("output", &output).finish()
    }
}

impl Default for Sound {
    fn default() -> Self {
        Self::silent()
    }
}

impl Sound {
    /// A run without sound.
    pub fn silent() -> Self {
        Self {
            mixer: Arc::new(Mutex::new(Mixer::new(MOST_VOICES))),
            output: Output::Silent,
            carry: 0.0,
            written: 0,
            failed: None,
        }
    }

    /// The sound written to the WAV file at `path` (made now; its frames follow the run's).
    pub fn to_wav(path: &Path) -> std::io::Result<Self> {
        let writer = WavWriter::create(path)?;
        let mut sound = Self::silent();
        sound.output = Output::Wav(writer);
        Ok(sound)
    }

    /// The sound played on the default output device; when there is none, or it cannot be
    /// opened, the run is silent and the returned line says why (to be said once).
    pub fn to_device() -> (Self, Option<String>) {
        let mut sound = Self::silent();
        match open_device(sound.mixer.clone()) {
            Ok(stream) => {
                sound.output = Output::Device { _stream: stream };
                (sound, None)
            }
            Err(why) => (
                sound,
                Some(format!("no sound: {why}; the game runs silent")),
            ),
        }
    }

    /// Whether anything is heard (a device or a file).
    pub fn is_heard(&self) -> bool {
        !matches!(self.output, Output::Silent)
    }

    /// Stereo frames written to the WAV file so far.
    pub fn frames_written(&self) -> u64 {
        self.written
    }

    /// Why writing the WAV file failed, once it has (the run goes on; the file stops there).
    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// This frame's blows started, heard from `ear` (the player's eyes) with `right` the
    /// direction to its right, under the two volumes; then, for a WAV file, `dt` seconds of
    /// the mix written.
    pub fn frame(
        &mut self,
        blows: &[Blow],
        (ear, right): ([f32; 3], [f32; 3]),
        (master, effects): (f32, f32),
        dt: f32,
    ) {
        if matches!(self.output, Output::Silent) {
            return;
        }
        {
            let mut mixer = self.mixer.lock().unwrap_or_else(PoisonError::into_inner);
            mixer.set_listener(ear, right);
            mixer.set_volume(master, effects);
            for blow in blows {
                let recipe = match (blow.kind, blow.material) {
                    (BlowKind::Step, _) => footstep_recipe(),
                    (BlowKind::Landing, _) => landing_recipe(),
                    (BlowKind::Dig | BlowKind::Build, _) | (_, None) => soil_recipe(),
                    (_, Some(material)) => material_recipe(material),
                };
                mixer.play(&recipe, blow.at, blow_gain(blow.impulse));
            }
        }
        let Output::Wav(writer) = &mut self.output else {
            return;
        };
        if self.failed.is_some() || !dt.is_finite() || dt <= 0.0 {
            return;
        }
        let exact = f64::from(dt) * f64::from(SAMPLE_RATE) + self.carry;
        let frames = exact.floor();
        self.carry = exact - frames;
        let mut samples = vec![0.0f32; frames as usize * 2];
        self.mixer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .mix(&mut samples);
        match writer.write(&samples) {
            Ok(()) => self.written += frames as u64,
            Err(error) => self.failed = Some(format!("writing the sound: {error}")),
        }
    }

    /// Ends the run's sound: a WAV file gets its header's sizes and is complete.
    pub fn finish(&mut self) -> std::io::Result<()> {
        match std::mem::replace(&mut self.output, Output::Silent) {
            Output::Wav(writer) => writer.finish(),
            Output::Silent | Output::Device { .. } => Ok(()),
        }
    }
}

impl Drop for Sound {
    fn drop(&mut self) {
        if let Err(error) = self.finish() {
            log::error!("finishing the WAV file: {error}");
        }
    }
}

/// Opens the default output device, its callback mixing `mixer` at [`SAMPLE_RATE`] and
/// resampling to the device's rate and channels; or why not.
fn open_device(mixer: Arc<Mutex<Mixer>>) -> Result<cpal::Stream, String> {
    use cpal::traits::{DeviceTrait as _, HostTrait as _, StreamTrait as _};
    // ALSA's library writes what its probing does not find (a machine with no sound card)
    // straight to stderr, a dozen lines of its own: muted while the device is looked for, so
    // that the player is told once, in our words.
    let (device, supported) = with_stderr_muted(|| {
        let host = cpal::default_host();
        let device = host
            .default_output_device()
            .ok_or_else(|| "no audio output device".to_owned())?;
        let supported = device
            .default_output_config()
            .map_err(|error| format!("the audio device has no output: {error}"))?;
        Ok::<_, String>((device, supported))
    })?;
    let format = supported.sample_format();
    let config: cpal::StreamConfig = supported.into();
    let channels = usize::from(config.channels).max(1);
    let rate = f64::from(config.sample_rate);
    let mut source = Resampler::new(mixer, rate);
    let failed = |error: cpal::Error| log::warn!("the audio device: {error}");
    let stream = match format {
        cpal::SampleFormat::F32 => device.build_output_stream::<f32, _, _>(
            config,
            move |out: &mut [f32], _| source.fill(out, channels, |x| x),
            failed,
            None,
        ),
        cpal::SampleFormat::I16 => device.build_output_stream::<i16, _, _>(
            config,
            move |out: &mut [i16], _| {
                source.fill(out, channels, |x| (x.clamp(-1.0, 1.0) * 32767.0) as i16)
            },
            failed,
            None,
        ),
        other => return Err(format!("the audio device wants {other:?} samples")),
    }
    .map_err(|error| format!("the audio device: {error}"))?;
    stream
        .play()
        .map_err(|error| format!("the audio device does not play: {error}"))?;
    Ok(stream)
}

/// Runs `probe` with the process's stderr sent to `/dev/null`, then puts it back (where
/// there is no `/dev/null`, or on other systems, it runs as it is).
fn with_stderr_muted<T>(probe: impl FnOnce() -> T) -> T {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd as _;
        let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else {
            return probe();
        };
        // SAFETY: dup, dup2 and close act on file descriptors this function owns (the copy
        // of stderr, and `null`, open until the end of the function) and on stderr, which is
        // put back before returning; no Rust object holds fd 2 as owned.
        let saved = unsafe { libc::dup(libc::STDERR_FILENO) };
        if saved < 0 {
            return probe();
        }
        // SAFETY: as above.
        unsafe { libc::dup2(null.as_raw_fd(), libc::STDERR_FILENO) };
        let result = probe();
        // SAFETY: as above: stderr back to what it was, the copy closed.
        unsafe {
            libc::dup2(saved, libc::STDERR_FILENO);
            libc::close(saved);
        }
        result
    }
    #[cfg(not(unix))]
    {
        probe()
    }
}

/// The mixer's 48 kHz stereo, resampled (linearly) to a device's rate and spread over its
/// channels.
struct Resampler {
    mixer: Arc<Mutex<Mixer>>,
    /// Source frames per device frame.
    step: f64,
    /// Where in the source the next device frame lies, from `last`.
    position: f64,
    /// The last source frame and the one after it.
    last: [f32; 2],
    next: [f32; 2],
    buffer: Vec<f32>,
}

impl Resampler {
    fn new(mixer: Arc<Mutex<Mixer>>, device_rate: f64) -> Self {
        let step = if device_rate.is_finite() && device_rate > 0.0 {
            f64::from(SAMPLE_RATE) / device_rate
        } else {
            1.0
        };
        Self {
            mixer,
            step,
            position: 0.0,
            last: [0.0; 2],
            next: [0.0; 2],
            buffer: Vec::new(),
        }
    }

    /// Fills the device's interleaved `out` of `channels` channels.
    fn fill<T: Copy>(&mut self, out: &mut [T], channels: usize, convert: impl Fn(f32) -> T) {
        let frames = out.len() / channels;
        let source_frames = ((frames as f64 * self.step) + self.position).ceil() as usize + 1;
        self.buffer.resize(source_frames * 2, 0.0);
        self.buffer.fill(0.0);
        self.mixer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .mix(&mut self.buffer);
        let mut source = 0usize;
        for frame in out.chunks_mut(channels) {
            while self.position >= 1.0 {
                self.position -= 1.0;
                self.last = self.next;
                let at = (source * 2).min(self.buffer.len().saturating_sub(2));
                self.next = [self.buffer[at], self.buffer[at + 1]];
                source += 1;
            }
            let t = self.position as f32;
            let left = self.last[0] + (self.next[0] - self.last[0]) * t;
            let right = self.last[1] + (self.next[1] - self.last[1]) * t;
            for (channel, sample) in frame.iter_mut().enumerate() {
                *sample = convert(match channel {
                    0 => left,
                    1 => right,
                    _ => 0.5 * (left + right),
                });
            }
            self.position += self.step;
        }
    }
}

/// The sound of a run of `options`: `--audio-wav`'s file (any run), else the default output
/// device in a window (`window`), else silence; and what to say once when a window finds no
/// device.
pub fn for_run(
    options: &crate::options::RunOptions,
    window: bool,
) -> anyhow::Result<(Sound, Option<String>)> {
    use anyhow::Context as _;
    match &options.audio_wav {
        Some(path) => Ok((
            Sound::to_wav(path)
                .with_context(|| format!("--audio-wav {}: cannot write it", path.display()))?,
            None,
        )),
        None if window => Ok(Sound::to_device()),
        None => Ok((Sound::silent(), None)),
    }
}

/// The direction to the right of a view turned `yaw` radians (0 faces +z, π/2 faces +x).
pub fn right_of(yaw: f32) -> [f32; 3] {
    [-yaw.cos(), 0.0, yaw.sin()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_right_is_a_quarter_turn_clockwise_from_the_view() {
        // Facing +z, the right is -x; facing +x, the right is +z.
        let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(right_of(0.0), [-1.0, 0.0, 0.0]));
        assert!(close(
            right_of(std::f32::consts::FRAC_PI_2),
            [0.0, 0.0, 1.0]
        ));
    }
}
