//! The voices now sounding around one listener, mixed into stereo buffers and limited
//! ([`Mixer`]).

use crate::recipe::{mode_sounds, noise_sounds};
use crate::{Recipe, CHANNELS, DECAY_FACTOR, SAMPLE_RATE};

/// Meters beyond which a voice is not heard at all: at 120 m the inverse-distance law has it
/// about 42 dB down, and a cut there keeps far-off rubble from taking voices.
pub const HEARING_RANGE: f32 = 120.0;

/// Within this distance (meters) a sound is heard at its full gain; beyond, as the inverse of
/// the distance: a blow 3 m away is as loud as it is at the listener's feet, one 30 m away a
/// tenth as loud.
pub const REFERENCE_DISTANCE: f32 = 3.0;

/// Most a voice's gain may be: [`Mixer::play`] clamps to `0..=MAX_GAIN`.
pub const MAX_GAIN: f32 = 4.0;

/// The limiter's ceiling: no output sample is larger in magnitude (about −0.2 dBFS), leaving a
/// little room below full scale for whatever converts the samples afterwards.
const LIMIT_CEILING: f32 = 0.98;

/// Time constant of the limiter's release, in seconds: how fast its gain comes back after a
/// peak.
const LIMIT_RELEASE_S: f32 = 0.2;

/// One resonance: a phasor turned and shrunk by a fixed complex factor each frame, read as a
/// sine. `f64` keeps its frequency and decay exact over a multi-second ring.
#[derive(Debug, Clone)]
struct Resonator {
    re: f64,
    im: f64,
    step_re: f64,
    step_im: f64,
    amplitude: f64,
}

impl Resonator {
    fn new(frequency_hz: f32, decay_s: f32, amplitude: f32) -> Self {
        let omega = std::f64::consts::TAU * f64::from(frequency_hz) / f64::from(SAMPLE_RATE);
        let radius = per_frame_fall(decay_s);
        Resonator {
            re: 1.0,
            im: 0.0,
            step_re: radius * omega.cos(),
            step_im: radius * omega.sin(),
            amplitude: f64::from(amplitude),
        }
    }

    fn next(&mut self) -> f64 {
        let sample = self.im * self.amplitude;
        let re = self.re * self.step_re - self.im * self.step_im;
        self.im = self.re * self.step_im + self.im * self.step_re;
        self.re = re;
        sample
    }

    /// The amplitude of the sine now.
    fn envelope(&self) -> f64 {
        self.re.hypot(self.im) * self.amplitude
    }
}

/// The factor an exponential envelope falling by 60 dB over `decay_s` takes each frame.
fn per_frame_fall(decay_s: f32) -> f64 {
    let frames = f64::from(decay_s) * f64::from(SAMPLE_RATE);
    (-f64::from(DECAY_FACTOR).ln() / frames).exp()
}

/// A one-pole low-pass's coefficient for a corner at `hz`: `y += c (x − y)`.
fn one_pole(hz: f32) -> f32 {
    let nyquist = SAMPLE_RATE as f32 / 2.0;
    let hz = hz.clamp(0.0, nyquist);
    1.0 - (-std::f32::consts::TAU * hz / SAMPLE_RATE as f32).exp()
}

/// A band of noise under its envelope.
#[derive(Debug, Clone)]
struct NoiseBand {
    rng: u64,
    level: f32,
    fall: f32,
    /// Coefficient and state of the low-pass whose output, taken from the input, is the
    /// high-pass.
    below: f32,
    below_state: f32,
    /// Coefficient and state of the low-pass.
    above: f32,
    above_state: f32,
}

impl NoiseBand {
    fn next(&mut self) -> f32 {
        let white = uniform(&mut self.rng) * self.level;
        self.below_state += self.below * (white - self.below_state);
        let high_passed = white - self.below_state;
        self.above_state += self.above * (high_passed - self.above_state);
        self.level *= self.fall;
        self.above_state
    }
}

/// SplitMix64's output function: a well-mixed 64-bit number from any seed.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The next number of a SplitMix64 sequence, as a uniform `f32` in `[-1, 1)`.
fn uniform(state: &mut u64) -> f32 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let bits = mix64(*state) >> 40; // 24 bits: exact in an f32
    bits as f32 / (1u32 << 23) as f32 - 1.0
}

/// One sounding recipe.
#[derive(Debug, Clone)]
struct Voice {
    resonators: Vec<Resonator>,
    noise: Option<NoiseBand>,
    attack_frames: u32,
    frame: u32,
    length_frames: u32,
    gain: f32,
    at: [f32; 3],
    /// The channel gains at the end of the last buffer (to ramp from); `None` before the first.
    pan: Option<[f32; 2]>,
}

impl Voice {
    fn new(recipe: &Recipe, at: [f32; 3], gain: f32, seed: u64) -> Self {
        let resonators = recipe
            .modes
            .iter()
            .filter(|mode| mode_sounds(mode))
            .map(|mode| Resonator::new(mode.frequency_hz, mode.decay_s, mode.amplitude))
            .collect();
        let noise = noise_sounds(&recipe.noise).then(|| NoiseBand {
            rng: mix64(seed),
            level: recipe.noise.amplitude,
            fall: per_frame_fall(recipe.noise.decay_s) as f32,
            below: one_pole(recipe.noise.low_hz),
            below_state: 0.0,
            above: one_pole(recipe.noise.high_hz),
            above_state: 0.0,
        });
        let attack_frames = if recipe.attack_s.is_finite() && recipe.attack_s > 0.0 {
            (recipe.attack_s * SAMPLE_RATE as f32).round() as u32
        } else {
            0
        };
        Voice {
            resonators,
            noise,
            attack_frames,
            frame: 0,
            length_frames: frames_of(recipe.length_s()),
            gain,
            at,
            pan: None,
        }
    }

    fn next(&mut self) -> f32 {
        let mut sample = self.resonators.iter_mut().map(Resonator::next).sum::<f64>() as f32;
        if let Some(noise) = &mut self.noise {
            sample += noise.next();
        }
        if self.frame < self.attack_frames {
            sample *= self.frame as f32 / self.attack_frames as f32;
        }
        self.frame += 1;
        sample
    }

    /// The most the voice's samples reach now, before gains: the sum of its parts' amplitudes.
    fn envelope(&self) -> f32 {
        let modes: f64 = self.resonators.iter().map(Resonator::envelope).sum();
        let noise = self.noise.as_ref().map_or(0.0, |noise| noise.level);
        modes as f32 + noise
    }

    fn ended(&self) -> bool {
        self.frame >= self.length_frames
    }
}

/// Frames in `seconds`, rounded up.
fn frames_of(seconds: f32) -> u32 {
    (f64::from(seconds) * f64::from(SAMPLE_RATE)).ceil() as u32
}

fn finite3(v: [f32; 3]) -> bool {
    v.iter().all(|c| c.is_finite())
}

/// The voices sounding around one listener, mixed into stereo buffers.
///
/// A voice is a [`Recipe`] started at a point in the world with a gain. Each buffer it is heard
/// through its distance to the listener (inverse distance beyond 1 m, nothing beyond
/// [`HEARING_RANGE`]) and its direction (constant-power panning along the listener's right).
/// Those channel gains are worked out once a buffer, for where the listener is then, and ramped
/// across the buffer from the previous ones, so a listener who moves or turns does not make the
/// voices step in level.
///
/// After the sum come the output volume (master × effects, ramped the same way) and a peak
/// limiter: instant attack, so no sample ever goes past its ceiling (just under full scale),
/// and a 0.2 s release, so the gain it takes off comes back without pumping. Both channels
/// share one gain, which keeps the stereo image.
#[derive(Debug, Clone)]
pub struct Mixer {
    voices: Vec<Voice>,
    most_voices: usize,
    listener: [f32; 3],
    right: [f32; 3],
    master: f32,
    effects: f32,
    /// The output volume at the end of the last buffer (to ramp from).
    volume_now: f32,
    limiter_envelope: f32,
    limiter_release: f32,
    /// Voices started so far: the next one's noise seed.
    started: u64,
}

impl Mixer {
    /// A mixer that sounds at most `most_voices` voices at once (0: none ever), with the
    /// listener at the origin, its right along +x, and both volumes at 1.
    pub fn new(most_voices: usize) -> Self {
        Mixer {
            voices: Vec::with_capacity(most_voices),
            most_voices,
            listener: [0.0; 3],
            right: [1.0, 0.0, 0.0],
            master: 1.0,
            effects: 1.0,
            volume_now: 1.0,
            limiter_envelope: 0.0,
            limiter_release: (-1.0 / (LIMIT_RELEASE_S * SAMPLE_RATE as f32)).exp(),
            started: 0,
        }
    }

    /// Where the listener is, and the direction to its right (the axis through its ears; it
    /// need not be of unit length, it is normalised here). A position that is not finite is
    /// ignored, and so is a `right` that is not finite or has no length: the previous one
    /// stays.
    pub fn set_listener(&mut self, position: [f32; 3], right: [f32; 3]) {
        if finite3(position) {
            self.listener = position;
        }
        let length = right.iter().map(|c| c * c).sum::<f32>().sqrt();
        if length.is_finite() && length > 1e-6 {
            self.right = right.map(|c| c / length);
        }
    }

    /// The output volumes, each from 0 (silent) to 1 (as made; values outside are clamped, a
    /// NaN leaves that one as it was): `master` for everything, `effects` for the blows, which
    /// are all this mixer plays. The output is scaled by `master × effects`, ramped over the
    /// next buffer.
    pub fn set_volume(&mut self, master: f32, effects: f32) {
        if !master.is_nan() {
            self.master = master.clamp(0.0, 1.0);
        }
        if !effects.is_nan() {
            self.effects = effects.clamp(0.0, 1.0);
        }
    }

    /// Starts `recipe` at `at` (world meters) with linear `gain`, clamped to `0..=4`
    /// ([`MAX_GAIN`]). Returns whether it sounds.
    ///
    /// It does not when the gain or position is not finite (ignored, nothing else changes),
    /// when the gain is 0, when the recipe has nothing to play, when `at` is beyond
    /// [`HEARING_RANGE`] of the listener, or when the mixer already sounds its most voices and
    /// this one would be no louder than the quietest of them. Otherwise, if the mixer is full,
    /// the new voice takes the quietest one's place. Loudness here is what reaches the listener
    /// now: gain × distance attenuation × the voice's envelope at this moment (a decaying voice
    /// grows quieter, so an old ring gives way to a fresh blow).
    pub fn play(&mut self, recipe: &Recipe, at: [f32; 3], gain: f32) -> bool {
        if !gain.is_finite() || !finite3(at) || self.most_voices == 0 {
            return false;
        }
        let gain = gain.clamp(0.0, MAX_GAIN);
        let loudness = gain * self.attenuation(at) * recipe.peak_amplitude();
        if loudness.is_nan() || loudness <= 0.0 || recipe.length_s() <= 0.0 {
            return false;
        }
        let slot = if self.voices.len() < self.most_voices {
            None
        } else {
            let quietest = self
                .voices
                .iter()
                .enumerate()
                .map(|(index, voice)| (index, self.loudness(voice)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match quietest {
                Some((index, quietest)) if loudness > quietest => Some(index),
                _ => return false,
            }
        };
        let voice = Voice::new(recipe, at, gain, self.started);
        self.started += 1;
        match slot {
            Some(index) => self.voices[index] = voice,
            None => self.voices.push(voice),
        }
        true
    }

    /// How many voices sound now.
    pub fn voices(&self) -> usize {
        self.voices.len()
    }

    /// Most voices that sound at once (the number given to [`Mixer::new`]).
    pub fn most_voices(&self) -> usize {
        self.most_voices
    }

    /// Fills `out` with the next frames: interleaved stereo (left, right), the sum of the
    /// voices after volume and limiter, every sample within ±1. Voices advance by
    /// `out.len() / 2` frames, and those that ended are dropped. An odd last sample (half a
    /// frame) is set to 0.
    pub fn mix(&mut self, out: &mut [f32]) {
        out.fill(0.0);
        let frames = out.len() / CHANNELS;
        if frames == 0 {
            return;
        }
        let step = 1.0 / frames as f32;
        for index in 0..self.voices.len() {
            let target = self.channel_gains(&self.voices[index]);
            let voice = &mut self.voices[index];
            let start = voice.pan.unwrap_or(target);
            let remaining = voice.length_frames.saturating_sub(voice.frame) as usize;
            for (i, frame) in out.chunks_exact_mut(CHANNELS).take(remaining).enumerate() {
                let t = (i + 1) as f32 * step;
                let sample = voice.next();
                frame[0] += sample * (start[0] + (target[0] - start[0]) * t);
                frame[1] += sample * (start[1] + (target[1] - start[1]) * t);
            }
            voice.pan = Some(target);
        }
        self.voices.retain(|voice| !voice.ended());

        let volume_start = self.volume_now;
        let volume_target = self.master * self.effects;
        for (i, frame) in out.chunks_exact_mut(CHANNELS).enumerate() {
            let volume = volume_start + (volume_target - volume_start) * (i + 1) as f32 * step;
            let left = frame[0] * volume;
            let right = frame[1] * volume;
            let peak = left.abs().max(right.abs());
            let peak = if peak.is_finite() { peak } else { 0.0 };
            self.limiter_envelope = peak.max(self.limiter_envelope * self.limiter_release);
            let gain = if self.limiter_envelope > LIMIT_CEILING {
                LIMIT_CEILING / self.limiter_envelope
            } else {
                1.0
            };
            frame[0] = limit(left * gain);
            frame[1] = limit(right * gain);
        }
        self.volume_now = volume_target;
    }

    /// The distance attenuation at `at`: 1 within [`REFERENCE_DISTANCE`], falling as the
    /// inverse of the distance beyond it (6 dB for each doubling), 0 past the hearing range.
    fn attenuation(&self, at: [f32; 3]) -> f32 {
        let distance = self.distance(at);
        if distance <= HEARING_RANGE {
            REFERENCE_DISTANCE / distance.max(REFERENCE_DISTANCE)
        } else {
            0.0
        }
    }

    fn distance(&self, at: [f32; 3]) -> f32 {
        let d: [f32; 3] = std::array::from_fn(|axis| at[axis] - self.listener[axis]);
        d.iter().map(|c| c * c).sum::<f32>().sqrt()
    }

    /// What reaches the listener of `voice` now, before panning.
    fn loudness(&self, voice: &Voice) -> f32 {
        voice.gain * self.attenuation(voice.at) * voice.envelope()
    }

    /// Left and right gains of `voice` for the listener now: its gain, the distance
    /// attenuation, and constant-power panning by where it lies along the listener's right.
    /// Within a meter the pan eases to the middle, so a sound passing through the listener's
    /// head does not jump from one side to the other.
    fn channel_gains(&self, voice: &Voice) -> [f32; 2] {
        let attenuation = self.attenuation(voice.at);
        if attenuation == 0.0 {
            return [0.0; 2];
        }
        let d: [f32; 3] = std::array::from_fn(|axis| voice.at[axis] - self.listener[axis]);
        let along: f32 = d.iter().zip(self.right).map(|(a, b)| a * b).sum();
        let side = (along / self.distance(voice.at).max(1.0)).clamp(-1.0, 1.0);
        let angle = (side + 1.0) * std::f32::consts::FRAC_PI_4;
        let level = voice.gain * attenuation;
        [level * angle.cos(), level * angle.sin()]
    }
}

/// A last guard on a limited sample: within ±1, and 0 for anything not a number.
fn limit(sample: f32) -> f32 {
    if sample.is_nan() {
        0.0
    } else {
        sample.clamp(-1.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, Noise, DEFAULT_ATTACK_S};

    fn tone(frequency_hz: f32, decay_s: f32) -> Recipe {
        Recipe::new(
            vec![Mode {
                frequency_hz,
                decay_s,
                amplitude: 0.5,
            }],
            Noise::NONE,
        )
    }

    fn knock() -> Recipe {
        Recipe::new(
            vec![
                Mode {
                    frequency_hz: 220.0,
                    decay_s: 0.4,
                    amplitude: 0.3,
                },
                Mode {
                    frequency_hz: 530.0,
                    decay_s: 0.3,
                    amplitude: 0.2,
                },
            ],
            Noise {
                amplitude: 0.4,
                decay_s: 0.1,
                low_hz: 100.0,
                high_hz: 4000.0,
            },
        )
    }

    /// Mixes `seconds` in buffers of 480 frames (10 ms), returning the frames.
    fn render(mixer: &mut Mixer, seconds: f32) -> Vec<[f32; 2]> {
        let mut frames = Vec::new();
        let mut buffer = [0.0f32; 960];
        for _ in 0..(seconds * 100.0).round() as usize {
            mixer.mix(&mut buffer);
            frames.extend(buffer.chunks_exact(2).map(|f| [f[0], f[1]]));
        }
        frames
    }

    fn rms(frames: &[[f32; 2]], channel: usize) -> f32 {
        let sum: f64 = frames.iter().map(|f| f64::from(f[channel]).powi(2)).sum();
        (sum / frames.len() as f64).sqrt() as f32
    }

    fn peak(frames: &[[f32; 2]]) -> f32 {
        frames
            .iter()
            .flat_map(|f| f.iter())
            .fold(0.0, |m, s| m.max(s.abs()))
    }

    #[test]
    fn silence_when_nothing_plays() {
        let mut mixer = Mixer::new(8);
        let frames = render(&mut mixer, 0.5);
        assert!(frames.iter().all(|f| f == &[0.0, 0.0]));
        // An odd buffer: the half frame at its end is silent too, whatever was in it.
        let mut odd = [0.7f32; 7];
        mixer.mix(&mut odd);
        assert_eq!(odd, [0.0; 7]);
        assert_eq!(mixer.voices(), 0);
    }

    #[test]
    fn a_voice_on_the_left_is_louder_on_the_left_and_on_the_right_on_the_right() {
        // The listener at (10, 2, 0) facing -z: its right is +x.
        for (x, louder) in [(5.0, 0), (15.0, 1)] {
            let mut mixer = Mixer::new(8);
            mixer.set_listener([10.0, 2.0, 0.0], [1.0, 0.0, 0.0]);
            assert!(mixer.play(&knock(), [x, 2.0, 0.0], 1.0));
            let frames = render(&mut mixer, 0.3);
            let (near, far) = (rms(&frames, louder), rms(&frames, 1 - louder));
            assert!(near > 10.0 * far, "x {x}: {near} against {far}");
        }
        // Turned around (right along -x), the same voice at x = 5 is on the right.
        let mut mixer = Mixer::new(8);
        mixer.set_listener([10.0, 2.0, 0.0], [-2.0, 0.0, 0.0]);
        mixer.play(&knock(), [5.0, 2.0, 0.0], 1.0);
        let frames = render(&mut mixer, 0.3);
        assert!(rms(&frames, 1) > 10.0 * rms(&frames, 0));
        // In front, both sides are equal (constant power: each at 1/sqrt 2).
        let mut mixer = Mixer::new(8);
        mixer.play(&knock(), [0.0, 0.0, -3.0], 1.0);
        let frames = render(&mut mixer, 0.3);
        assert!((rms(&frames, 0) - rms(&frames, 1)).abs() < 1e-6);
    }

    #[test]
    fn a_larger_gain_is_louder() {
        let level = |gain: f32| {
            let mut mixer = Mixer::new(8);
            assert!(mixer.play(&knock(), [0.0, 0.0, -4.0], gain));
            rms(&render(&mut mixer, 0.5), 0)
        };
        let (quiet, loud) = (level(0.25), level(1.0));
        assert!(quiet > 0.0);
        // Well below the limiter, the level follows the gain.
        assert!((loud / quiet - 4.0).abs() < 1e-3, "{loud} / {quiet}");
        // Farther is quieter: 8 m against 4 m, half the level.
        let mut mixer = Mixer::new(8);
        mixer.play(&knock(), [0.0, 0.0, -8.0], 1.0);
        let far = rms(&render(&mut mixer, 0.5), 0);
        assert!((loud / far - 2.0).abs() < 1e-3, "{loud} / {far}");
    }

    /// Seconds until the 10 ms windows' peak has fallen below −60 dB of the loudest window's.
    fn ring_time(frames: &[[f32; 2]]) -> f32 {
        let windows: Vec<f32> = frames.chunks(480).map(peak).collect();
        let loudest = windows.iter().fold(0.0f32, |m, &w| m.max(w));
        let last = windows
            .iter()
            .rposition(|&w| w > loudest / DECAY_FACTOR)
            .unwrap();
        (last + 1) as f32 * 0.01
    }

    #[test]
    fn a_recipe_with_longer_decays_rings_longer() {
        let ring = |recipe: &Recipe| {
            let mut mixer = Mixer::new(8);
            mixer.play(recipe, [0.0, 0.0, -2.0], 1.0);
            ring_time(&render(&mut mixer, 2.0))
        };
        let short = ring(&tone(440.0, 0.3));
        let long = ring(&tone(440.0, 1.2));
        // Each rings for its decay time, to the window.
        assert!((short - 0.3).abs() <= 0.011, "{short}");
        assert!((long - 1.2).abs() <= 0.011, "{long}");
        assert!(long > 3.0 * short);
    }

    #[test]
    fn sixty_four_voices_at_gain_four_never_clip() {
        let loud = Recipe::new(
            vec![
                Mode {
                    frequency_hz: 110.0,
                    decay_s: 1.0,
                    amplitude: 1.0,
                },
                Mode {
                    frequency_hz: 165.0,
                    decay_s: 0.8,
                    amplitude: 1.0,
                },
            ],
            Noise {
                amplitude: 1.0,
                decay_s: 0.5,
                low_hz: 20.0,
                high_hz: 20_000.0,
            },
        );
        let mut mixer = Mixer::new(64);
        for i in 0..64 {
            let angle = i as f32 * 0.1;
            assert!(mixer.play(&loud, [angle.cos() * 0.5, 0.0, angle.sin() * 0.5], 4.0));
        }
        assert_eq!(mixer.voices(), 64);
        let frames = render(&mut mixer, 1.5);
        let loudest = peak(&frames);
        assert!(loudest <= 1.0, "{loudest}");
        // It was limited, not silenced: the sum of 64 such voices is far over full scale.
        assert!(loudest > 0.9, "{loudest}");
        // A buffer of any length keeps to it too.
        for _ in 0..64 {
            mixer.play(&loud, [0.0; 3], 4.0);
        }
        let mut odd = vec![0.0f32; 1001];
        mixer.mix(&mut odd);
        assert!(odd.iter().all(|s| s.abs() <= 1.0));
    }

    #[test]
    fn voices_over_the_limit_replace_the_quietest() {
        let mut mixer = Mixer::new(3);
        let at = [0.0, 0.0, -2.0];
        assert!(mixer.play(&knock(), at, 0.2));
        assert!(mixer.play(&knock(), at, 1.0));
        assert!(mixer.play(&knock(), at, 0.6));
        assert_eq!(mixer.voices(), 3);
        let gains = |mixer: &Mixer| {
            let mut gains: Vec<f32> = mixer.voices.iter().map(|v| v.gain).collect();
            gains.sort_by(f32::total_cmp);
            gains
        };
        // Louder than the quietest (0.2): takes its place.
        assert!(mixer.play(&knock(), at, 0.5));
        assert_eq!(gains(&mixer), [0.5, 0.6, 1.0]);
        // Quieter than every voice: dropped.
        assert!(!mixer.play(&knock(), at, 0.4));
        assert_eq!(gains(&mixer), [0.5, 0.6, 1.0]);
        // Farther is quieter: the same gain 8 times as far is dropped.
        assert!(!mixer.play(&knock(), [0.0, 0.0, -16.0], 0.55));
        // A voice decays: after a while the loud one has fallen below a fresh quiet one.
        let mut mixer = Mixer::new(1);
        assert!(mixer.play(&tone(300.0, 0.5), at, 1.0));
        render(&mut mixer, 0.3);
        assert!(mixer.play(&tone(300.0, 0.5), at, 0.5));
        assert_eq!(gains(&mixer), [0.5]);
    }

    #[test]
    fn a_voice_beyond_the_hearing_range_is_silent() {
        let mut mixer = Mixer::new(8);
        mixer.set_listener([100.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
        assert!(!mixer.play(&knock(), [100.0, 0.0, HEARING_RANGE + 1.0], 4.0));
        assert_eq!(mixer.voices(), 0);
        assert_eq!(peak(&render(&mut mixer, 0.2)), 0.0);
        // Just inside, it is heard.
        assert!(mixer.play(&knock(), [100.0, 0.0, HEARING_RANGE - 1.0], 4.0));
        assert!(peak(&render(&mut mixer, 0.05)) > 0.0);
        // A listener walking out of range stops hearing it (after one buffer's ramp).
        mixer.set_listener([100.0, 0.0, -10.0], [0.0, 0.0, 1.0]);
        render(&mut mixer, 0.01);
        assert_eq!(mixer.voices(), 1);
        assert_eq!(peak(&render(&mut mixer, 0.2)), 0.0);
    }

    #[test]
    fn nan_gain_or_position_is_ignored() {
        let mut mixer = Mixer::new(8);
        assert!(!mixer.play(&knock(), [0.0; 3], f32::NAN));
        assert!(!mixer.play(&knock(), [0.0; 3], f32::INFINITY));
        assert!(!mixer.play(&knock(), [f32::NAN, 0.0, 0.0], 1.0));
        assert!(!mixer.play(&knock(), [0.0, f32::NEG_INFINITY, 0.0], 1.0));
        assert_eq!(mixer.voices(), 0);
        // A bad listener or volume leaves the previous one.
        mixer.set_listener([f32::NAN; 3], [f32::NAN, 0.0, 0.0]);
        mixer.set_listener([0.0; 3], [0.0; 3]);
        mixer.set_volume(f32::NAN, f32::NAN);
        assert!(mixer.play(&knock(), [-3.0, 0.0, 0.0], 1.0));
        let frames = render(&mut mixer, 0.2);
        assert!(frames.iter().flatten().all(|s| s.is_finite()));
        assert!(rms(&frames, 0) > 10.0 * rms(&frames, 1));
        // A recipe with nonsense in it plays what makes sense and nothing else.
        let mut odd = knock();
        odd.modes.push(Mode {
            frequency_hz: f32::NAN,
            decay_s: f32::INFINITY,
            amplitude: -1.0,
        });
        odd.attack_s = f32::NAN;
        assert!(mixer.play(&odd, [0.0; 3], 1.0));
        assert!(render(&mut mixer, 0.2)
            .iter()
            .flatten()
            .all(|s| s.is_finite()));
    }

    #[test]
    fn the_same_calls_give_the_same_samples_and_voices_end() {
        let run = || {
            let mut mixer = Mixer::new(4);
            mixer.play(&knock(), [1.0, 0.0, -2.0], 1.0);
            mixer.play(&knock(), [-1.0, 0.0, -2.0], 0.7);
            render(&mut mixer, 0.5)
        };
        assert_eq!(run(), run());
        // Two voices of one recipe differ in their noise.
        let mut mixer = Mixer::new(4);
        mixer.play(&knock(), [0.0, 0.0, -2.0], 1.0);
        let first = render(&mut mixer, 0.5);
        mixer.play(&knock(), [0.0, 0.0, -2.0], 1.0);
        assert_ne!(first, render(&mut mixer, 0.5));
        // A voice ends at its length: the knock lasts 0.4 s.
        assert_eq!(mixer.voices(), 0);
        mixer.play(&knock(), [0.0, 0.0, -2.0], 1.0);
        render(&mut mixer, 0.39);
        assert_eq!(mixer.voices(), 1);
        render(&mut mixer, 0.02);
        assert_eq!(mixer.voices(), 0);
    }

    /// Sign changes in one channel: twice the frequency, for a tone.
    fn crossings(frames: &[[f32; 2]]) -> usize {
        frames
            .windows(2)
            .filter(|w| (w[0][0] >= 0.0) != (w[1][0] >= 0.0))
            .count()
    }

    #[test]
    fn modes_sound_at_their_frequency_and_noise_in_its_band() {
        let mut mixer = Mixer::new(4);
        mixer.play(&tone(440.0, 2.0), [0.0, 0.0, -1.0], 1.0);
        // One second: 440 cycles, two sign changes each.
        let frames = render(&mut mixer, 1.0);
        assert!(
            (crossings(&frames) as i32 - 880).abs() <= 2,
            "{}",
            crossings(&frames)
        );
        let band = |low_hz: f32, high_hz: f32| {
            let mut mixer = Mixer::new(4);
            let noise = Noise {
                amplitude: 1.0,
                decay_s: 1.0,
                low_hz,
                high_hz,
            };
            mixer.play(&Recipe::new(Vec::new(), noise), [0.0, 0.0, -1.0], 1.0);
            crossings(&render(&mut mixer, 0.5))
        };
        // A low band crosses zero far less often than a high one (one-pole filters fall only
        // 6 dB an octave, so the low band keeps some treble: about 2,800 against 13,000 here).
        let (low, high) = (band(50.0, 400.0), band(4_000.0, 16_000.0));
        assert!(high > 3 * low, "{low} against {high}");
    }

    #[test]
    fn a_voice_starts_from_silence() {
        // Loud noise with no filtering to speak of would click if it started at full level.
        let crack = Recipe::new(
            Vec::new(),
            Noise {
                amplitude: 1.0,
                decay_s: 0.5,
                low_hz: 0.0,
                high_hz: 24_000.0,
            },
        );
        let mut mixer = Mixer::new(4);
        mixer.play(&crack, [0.0, 0.0, -1.0], 1.0);
        let frames = render(&mut mixer, 0.1);
        let attack = (DEFAULT_ATTACK_S * SAMPLE_RATE as f32) as usize;
        assert_eq!(frames[0], [0.0, 0.0]);
        // Within the attack each sample is at most its share of the ramp.
        for (i, frame) in frames[..attack].iter().enumerate() {
            let bound = i as f32 / attack as f32 * std::f32::consts::FRAC_1_SQRT_2 + 1e-6;
            assert!(frame[0].abs() <= bound, "frame {i}: {}", frame[0]);
        }
        assert!(peak(&frames[attack..]) > 0.5);
    }

    #[test]
    fn the_volume_scales_the_output() {
        let level = |master: f32, effects: f32| {
            let mut mixer = Mixer::new(4);
            mixer.set_volume(master, effects);
            // One buffer of silence: the volume's ramp from the old one.
            render(&mut mixer, 0.01);
            mixer.play(&knock(), [0.0, 0.0, -2.0], 1.0);
            rms(&render(&mut mixer, 0.4), 0)
        };
        let full = level(1.0, 1.0);
        let quarter = level(0.5, 0.5);
        assert!((quarter / full - 0.25).abs() < 1e-4, "{quarter} of {full}");
        assert_eq!(level(1.0, 2.0), full);
        // Silenced, after the first buffer's ramp down.
        let mut mixer = Mixer::new(4);
        mixer.set_volume(0.0, 1.0);
        mixer.play(&knock(), [0.0, 0.0, -2.0], 1.0);
        render(&mut mixer, 0.01);
        assert_eq!(peak(&render(&mut mixer, 0.3)), 0.0);
    }
}
