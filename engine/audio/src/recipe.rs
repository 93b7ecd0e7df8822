//! How a blow sounds, as data: modal synthesis (the struck body's resonances, each a decaying
//! sine) plus a band of filtered noise (the contact's crack or crunch), after a short linear
//! attack so a voice never starts with a click.

/// The attack a recipe gets unless it says otherwise: 2 ms, long enough that a voice starting
/// at full level does not click, short enough that a blow still sounds sharp.
pub const DEFAULT_ATTACK_S: f32 = 0.002;

/// One resonance of a struck body: a sine at `frequency_hz` whose amplitude starts at
/// `amplitude` and falls exponentially, by 60 dB over `decay_s`.
///
/// A mode at or above half the sample rate, or with a decay, frequency or amplitude that is not
/// a positive finite number, is left out of the sound (it would alias or mean nothing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mode {
    /// Frequency of the sine, in hertz.
    pub frequency_hz: f32,
    /// Seconds for the amplitude to fall by 60 dB (a factor of 1000).
    pub decay_s: f32,
    /// Starting amplitude (linear; a full-scale sample is 1).
    pub amplitude: f32,
}

/// A band of noise: white noise from the voice's seeded generator, spanning ±`amplitude`
/// before filtering, through a one-pole high-pass at `low_hz` and then a one-pole low-pass at
/// `high_hz`, under an exponential envelope that falls by 60 dB over `decay_s`.
///
/// The filters remove power, so the band sounds quieter than `amplitude` says: a narrow band
/// much more than a wide one. An amplitude or decay that is not a positive finite number gives
/// no noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    /// Amplitude of the white noise before the filters (linear).
    pub amplitude: f32,
    /// Seconds for the envelope to fall by 60 dB.
    pub decay_s: f32,
    /// Corner of the high-pass, in hertz: less below it. 0 keeps everything low.
    pub low_hz: f32,
    /// Corner of the low-pass, in hertz: less above it. Clamped to half the sample rate.
    pub high_hz: f32,
}

impl Noise {
    /// No noise at all, for recipes made only of modes.
    pub const NONE: Noise = Noise {
        amplitude: 0.0,
        decay_s: 0.0,
        low_hz: 0.0,
        high_hz: 0.0,
    };
}

/// How a blow sounds: the modes that ring, the noise that cracks, and the attack that opens
/// both. A voice playing a recipe lasts [`Recipe::length_s`].
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// The struck body's resonances.
    pub modes: Vec<Mode>,
    /// The contact's noise.
    pub noise: Noise,
    /// Seconds of the linear ramp from silence at the start of the voice: a few milliseconds
    /// ([`DEFAULT_ATTACK_S`]) so nothing clicks; longer softens the blow. Negative or non-finite
    /// values mean no ramp.
    pub attack_s: f32,
}

impl Recipe {
    /// A recipe from its modes and noise, with the default attack ([`DEFAULT_ATTACK_S`]).
    pub fn new(modes: Vec<Mode>, noise: Noise) -> Self {
        Recipe {
            modes,
            noise,
            attack_s: DEFAULT_ATTACK_S,
        }
    }

    /// How long a voice of this recipe sounds, in seconds: its longest decay (a mode's or the
    /// noise's), counting only parts that make sound. By then every part is 60 dB below where
    /// it started, and the voice ends there. 0 for a recipe with nothing to play.
    pub fn length_s(&self) -> f32 {
        let modes = self
            .modes
            .iter()
            .filter(|mode| mode_sounds(mode))
            .map(|mode| mode.decay_s);
        let noise = noise_sounds(&self.noise).then_some(self.noise.decay_s);
        modes.chain(noise).fold(0.0, f32::max)
    }

    /// The sum of the starting amplitudes of the parts that sound: how loud a voice of this
    /// recipe is at its start, at gain 1 next to the listener (an upper bound on its samples).
    pub fn peak_amplitude(&self) -> f32 {
        let modes: f32 = self
            .modes
            .iter()
            .filter(|mode| mode_sounds(mode))
            .map(|mode| mode.amplitude)
            .sum();
        let noise = if noise_sounds(&self.noise) {
            self.noise.amplitude
        } else {
            0.0
        };
        modes + noise
    }
}

fn positive(value: f32) -> bool {
    value.is_finite() && value > 0.0
}

/// Whether a mode adds anything: positive finite numbers, below half the sample rate.
pub(crate) fn mode_sounds(mode: &Mode) -> bool {
    positive(mode.frequency_hz)
        && positive(mode.decay_s)
        && positive(mode.amplitude)
        && mode.frequency_hz < crate::SAMPLE_RATE as f32 / 2.0
}

/// Whether the noise adds anything: a positive finite amplitude and decay, and a pass band
/// given in finite numbers.
pub(crate) fn noise_sounds(noise: &Noise) -> bool {
    positive(noise.amplitude)
        && positive(noise.decay_s)
        && noise.low_hz.is_finite()
        && noise.high_hz.is_finite()
        && noise.high_hz > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_is_the_longest_decay_of_the_parts_that_sound() {
        let recipe = Recipe::new(
            vec![
                Mode {
                    frequency_hz: 440.0,
                    decay_s: 0.5,
                    amplitude: 0.3,
                },
                Mode {
                    frequency_hz: 880.0,
                    decay_s: 1.25,
                    amplitude: 0.2,
                },
                // Above half the sample rate: left out, whatever its decay.
                Mode {
                    frequency_hz: 30_000.0,
                    decay_s: 9.0,
                    amplitude: 0.2,
                },
            ],
            Noise {
                amplitude: 0.5,
                decay_s: 0.75,
                low_hz: 100.0,
                high_hz: 4000.0,
            },
        );
        assert_eq!(recipe.length_s(), 1.25);
        assert!((recipe.peak_amplitude() - 1.0).abs() < 1e-6);
        assert_eq!(Recipe::new(Vec::new(), Noise::NONE).length_s(), 0.0);
    }
}
