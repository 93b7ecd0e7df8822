//! What the world sounds like: a recipe for a blow on each block material, the ground, the
//! player's steps and landings, and how loud a blow is from its impulse. The synthesis and
//! mixing are `blockfall-audio`'s; this module only chooses the numbers.
//!
//! Each material is a few resonant modes (the block ringing) and a band of noise (the contact):
//!
//! | material | modes | longest decay | noise | character |
//! |---|---|---|---|---|
//! | stone | 85–520 Hz | 0.18 s | strong, 60–2,500 Hz | low, short thud |
//! | bricks | 140–780 Hz | 0.14 s | 120–3,000 Hz | a little higher, dull |
//! | planks | 170–560 Hz | 0.28 s | light, 200–4,000 Hz | hollow wooden knock |
//! | plaster | 260–690 Hz, faint | 0.12 s | strong, 300–6,000 Hz | soft, crumbly |
//! | slate | 780–3,900 Hz | 0.13 s | 800–9,000 Hz | brittle clack |
//! | copper | 420–2,870 Hz, inharmonic | 2.4 s | short tick, 1.5–10 kHz | metallic ring |
//!
//! Copper's partials follow a struck metal plate's stretched ratios (about 1 : 2.7 : 4.4 : 6.8),
//! not a string's whole numbers: that is what makes it ring like metal rather than a note.

use blockfall_audio::{Mode, Noise, Recipe};

use crate::blocks::materials::{BRICKS, COPPER, PLANKS, PLASTER, SLATE, STONE};

/// Impulses below this many newton-seconds make no sound ([`blow_gain`] is 0): a block
/// settling or sliding, not striking.
pub const SILENT_BELOW_NS: f32 = 5.0;

/// The impulse, in newton-seconds, of a blow at gain 1: a 1 m stone block (2,600 kg) landing
/// at about 7.7 m/s, a fall of some 3 m.
pub const FULL_BLOW_NS: f32 = 20_000.0;

/// How the gain grows with the impulse: as its power 0.4 (a blow ten times as hard is
/// 2.5 times as loud, about 8 dB).
pub const GAIN_POWER: f32 = 0.4;

/// The loudest a blow gets ([`blow_gain`]'s ceiling), reached at about 113,000 N·s.
pub const MAX_BLOW_GAIN: f32 = 2.0;

/// A mode, briefly.
const fn mode(frequency_hz: f32, decay_s: f32, amplitude: f32) -> Mode {
    Mode {
        frequency_hz,
        decay_s,
        amplitude,
    }
}

/// A noise band, briefly.
const fn noise(amplitude: f32, decay_s: f32, low_hz: f32, high_hz: f32) -> Noise {
    Noise {
        amplitude,
        decay_s,
        low_hz,
        high_hz,
    }
}

/// How a blow on a block of `material` (a number of `blocks::materials`) sounds; an unknown
/// number sounds like stone.
pub fn material_recipe(material: usize) -> Recipe {
    match material {
        BRICKS => Recipe::new(
            vec![
                mode(140.0, 0.14, 0.30),
                mode(330.0, 0.10, 0.20),
                mode(560.0, 0.07, 0.12),
                mode(780.0, 0.05, 0.06),
            ],
            noise(0.9, 0.11, 120.0, 3_000.0),
        ),
        PLANKS => Recipe::new(
            vec![
                mode(170.0, 0.28, 0.32),
                mode(290.0, 0.24, 0.24),
                mode(410.0, 0.19, 0.16),
                mode(560.0, 0.15, 0.10),
            ],
            noise(0.35, 0.04, 200.0, 4_000.0),
        ),
        PLASTER => Recipe {
            attack_s: 0.005,
            ..Recipe::new(
                vec![mode(260.0, 0.08, 0.10), mode(690.0, 0.05, 0.05)],
                noise(1.4, 0.12, 300.0, 6_000.0),
            )
        },
        SLATE => Recipe::new(
            vec![
                mode(780.0, 0.13, 0.26),
                mode(1_450.0, 0.10, 0.20),
                mode(2_600.0, 0.07, 0.14),
                mode(3_900.0, 0.05, 0.08),
            ],
            noise(0.7, 0.05, 800.0, 9_000.0),
        ),
        COPPER => Recipe::new(
            vec![
                mode(420.0, 2.4, 0.30),
                mode(1_130.0, 2.1, 0.22),
                mode(1_860.0, 1.8, 0.15),
                mode(2_870.0, 1.5, 0.09),
            ],
            noise(0.5, 0.03, 1_500.0, 10_000.0),
        ),
        STONE => stone_recipe(),
        _ => stone_recipe(),
    }
}

fn stone_recipe() -> Recipe {
    Recipe::new(
        vec![
            mode(85.0, 0.18, 0.30),
            mode(190.0, 0.12, 0.18),
            mode(330.0, 0.08, 0.10),
            mode(520.0, 0.05, 0.05),
        ],
        noise(1.6, 0.15, 60.0, 2_500.0),
    )
}

/// Digging or striking the ground: a muffled burst of low noise over a faint thump, no ring.
pub fn soil_recipe() -> Recipe {
    Recipe {
        attack_s: 0.004,
        ..Recipe::new(vec![mode(70.0, 0.12, 0.20)], noise(1.5, 0.20, 40.0, 900.0))
    }
}

/// One footstep: short and soft, a dull scuff with a slow (8 ms) attack so it has no edge.
pub fn footstep_recipe() -> Recipe {
    Recipe {
        attack_s: 0.008,
        ..Recipe::new(
            vec![mode(110.0, 0.06, 0.08)],
            noise(0.6, 0.08, 100.0, 1_800.0),
        )
    }
}

/// The player landing from a jump or fall: a heavier, lower thud than a step, lasting longer.
pub fn landing_recipe() -> Recipe {
    Recipe {
        attack_s: 0.004,
        ..Recipe::new(
            vec![mode(60.0, 0.20, 0.35), mode(130.0, 0.12, 0.18)],
            noise(1.2, 0.22, 50.0, 1_500.0),
        )
    }
}

/// How loud a blow of `impulse_newton_seconds` is, as a linear gain for `Mixer::play`: 0 at
/// or below [`SILENT_BELOW_NS`] (5 N·s), then the impulse's power [`GAIN_POWER`] over
/// [`FULL_BLOW_NS`]'s (1 at 20,000 N·s, 0.16 at 200, 0.4 at 2,000), up to [`MAX_BLOW_GAIN`]
/// (2, from about 113,000 N·s on). A power below one: a blow ten times as hard sounds about
/// 8 dB louder, not ten times as loud, while the blows players compare (a cube landing from
/// 4 m or from half a meter) still differ plainly. A NaN or negative impulse is silent.
pub fn blow_gain(impulse_newton_seconds: f32) -> f32 {
    if impulse_newton_seconds.is_nan() || impulse_newton_seconds <= SILENT_BELOW_NS {
        return 0.0;
    }
    (impulse_newton_seconds / FULL_BLOW_NS)
        .powf(GAIN_POWER)
        .min(MAX_BLOW_GAIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::materials::MATERIALS;
    use blockfall_audio::{read_wav, Mixer, WavWriter, SAMPLE_RATE};

    /// The impulse of a body of `mass` kilograms stopped after falling `height` meters.
    fn landing_impulse(mass: f32, height: f32) -> f32 {
        mass * (2.0 * 9.81 * height).sqrt()
    }

    fn copper_cube_mass() -> f32 {
        MATERIALS[COPPER].density * 1.0
    }

    /// The amplitude-weighted mean of a recipe's mode frequencies: where its ring sits.
    fn pitch(recipe: &Recipe) -> f32 {
        let weight: f32 = recipe.modes.iter().map(|m| m.amplitude).sum();
        recipe
            .modes
            .iter()
            .map(|m| m.frequency_hz * m.amplitude)
            .sum::<f32>()
            / weight
    }

    /// The loudest sample of `recipe` played 3 m in front of the listener at `gain`.
    /// The peak of `recipe` at `gain` heard from 12 m (a cube landing across the street).
    fn mixed_peak(recipe: &Recipe, gain: f32) -> f32 {
        let mut mixer = Mixer::new(8);
        assert!(mixer.play(recipe, [0.0, 0.0, -12.0], gain));
        let mut out = vec![0.0f32; SAMPLE_RATE as usize]; // half a second
        mixer.mix(&mut out);
        out.iter().fold(0.0, |m, s| m.max(s.abs()))
    }

    #[test]
    fn each_material_sounds_its_own_way() {
        let recipes: Vec<Recipe> = (0..MATERIALS.len()).map(material_recipe).collect();
        for (a, first) in recipes.iter().enumerate() {
            for (b, second) in recipes.iter().enumerate().skip(a + 1) {
                assert_ne!(
                    first, second,
                    "{} and {}",
                    MATERIALS[a].name, MATERIALS[b].name
                );
            }
            assert!(first.length_s() > 0.0 && first.peak_amplitude() > 0.0);
        }
        assert_eq!(material_recipe(99), material_recipe(STONE));
        // Stone is lowest, bricks a little higher, slate and copper high.
        let pitches: Vec<f32> = recipes.iter().map(pitch).collect();
        assert!(pitches[STONE] < pitches[BRICKS], "{pitches:?}");
        assert!(pitches[BRICKS] < pitches[SLATE], "{pitches:?}");
        assert!(pitches[PLANKS] < pitches[COPPER], "{pitches:?}");
        // Stone and plaster are mostly noise; planks and copper mostly ring.
        let noisiness = |r: &Recipe| r.noise.amplitude / r.peak_amplitude();
        assert!(noisiness(&recipes[STONE]) > 0.5);
        assert!(noisiness(&recipes[PLASTER]) > 0.8);
        assert!(noisiness(&recipes[PLANKS]) < 0.5);
        assert!(noisiness(&recipes[COPPER]) < 0.5);
    }

    #[test]
    fn planks_knock_and_copper_rings_clearly_longer() {
        let planks = material_recipe(PLANKS);
        assert!(planks
            .modes
            .iter()
            .all(|m| (150.0..=600.0).contains(&m.frequency_hz)));
        assert!((0.15..=0.3).contains(&planks.length_s()));
        let copper = material_recipe(COPPER);
        assert!(copper
            .modes
            .iter()
            .all(|m| (400.0..=3_000.0).contains(&m.frequency_hz)));
        assert!((1.5..=2.5).contains(&copper.length_s()));
        assert!(copper.length_s() > 5.0 * planks.length_s());
        // Copper rings longest of all the materials; the rest are short blows.
        for material in [STONE, BRICKS, PLANKS, PLASTER, SLATE] {
            assert!(material_recipe(material).length_s() < 0.5, "{material}");
        }
    }

    #[test]
    fn the_other_sounds_are_short_and_low() {
        for (name, recipe) in [
            ("soil", soil_recipe()),
            ("footstep", footstep_recipe()),
            ("landing", landing_recipe()),
        ] {
            assert!(
                recipe.length_s() > 0.0 && recipe.length_s() <= 0.3,
                "{name}"
            );
            assert!(recipe.noise.high_hz <= 2_000.0, "{name} is muffled");
        }
        // A landing is heavier than a step: louder, lower, longer.
        let (step, landing) = (footstep_recipe(), landing_recipe());
        assert!(landing.peak_amplitude() > 1.5 * step.peak_amplitude());
        assert!(pitch(&landing) < pitch(&step));
        assert!(landing.length_s() > step.length_s());
    }

    #[test]
    fn the_gain_grows_with_the_impulse_and_is_silent_for_tiny_ones() {
        for tiny in [f32::NAN, -10.0, 0.0, 1.0, SILENT_BELOW_NS] {
            assert_eq!(blow_gain(tiny), 0.0, "{tiny}");
        }
        assert!((blow_gain(FULL_BLOW_NS) - 1.0).abs() < 1e-5);
        assert!((blow_gain(200.0) - 0.01f32.powf(GAIN_POWER)).abs() < 1e-5);
        assert_eq!(blow_gain(5.0e6), MAX_BLOW_GAIN);
        assert_eq!(blow_gain(1.0e12), MAX_BLOW_GAIN);
        assert_eq!(blow_gain(f32::INFINITY), MAX_BLOW_GAIN);
        let mut last = 0.0;
        for impulse in [6.0, 20.0, 100.0, 1_000.0, 10_000.0, 100_000.0] {
            let gain = blow_gain(impulse);
            assert!(gain > last, "{impulse}: {gain} after {last}");
            last = gain;
        }
        // A 1 m copper cube (8,900 kg) landing from 4 m against 0.5 m: √8 times the impulse,
        // half as loud again.
        let high = blow_gain(landing_impulse(copper_cube_mass(), 4.0));
        let low = blow_gain(landing_impulse(copper_cube_mass(), 0.5));
        assert!(high > 1.4 * low, "{high} against {low}");
        assert!(low > 1.0 && high < MAX_BLOW_GAIN);
    }

    #[test]
    fn a_copper_cube_from_four_meters_peaks_higher_than_from_half_a_meter() {
        let copper = material_recipe(COPPER);
        let high = mixed_peak(&copper, blow_gain(landing_impulse(copper_cube_mass(), 4.0)));
        let low = mixed_peak(&copper, blow_gain(landing_impulse(copper_cube_mass(), 0.5)));
        assert!(high > 1.1 * low, "{high} against {low}");
        // Neither reached the limiter: the difference is the blow's, not squashed.
        assert!(high < 0.9, "{high}");
    }

    /// A few seconds of the world's sounds, through a WAV file and back: a stone block and a
    /// copper one landing on either side, a plank knock in front, steps and a landing.
    /// `BLOCKFALL_SOUNDS_WAV=path.wav` keeps the file there, to listen to.
    #[test]
    fn a_scene_of_blows_goes_through_a_wav_file() {
        let kept = std::env::var_os("BLOCKFALL_SOUNDS_WAV");
        let path = kept.clone().map_or_else(
            || std::env::temp_dir().join(format!("blockfall-sounds-{}.wav", std::process::id())),
            std::path::PathBuf::from,
        );
        let mut mixer = Mixer::new(32);
        mixer.set_listener([0.0, 1.7, 0.0], [1.0, 0.0, 0.0]);
        // (start in tenths of a second, recipe, where, impulse in N·s)
        let stone_cube = MATERIALS[STONE].density;
        let events = [
            (
                0,
                material_recipe(STONE),
                [-4.0, 0.0, -3.0],
                landing_impulse(stone_cube, 2.0),
            ),
            (
                6,
                material_recipe(COPPER),
                [4.0, 0.0, -3.0],
                landing_impulse(copper_cube_mass(), 4.0),
            ),
            (
                12,
                material_recipe(PLANKS),
                [0.0, 0.5, -2.0],
                landing_impulse(75.0, 1.0),
            ),
            (
                16,
                material_recipe(PLASTER),
                [-2.0, 0.0, -5.0],
                landing_impulse(190.0, 3.0),
            ),
            (
                20,
                material_recipe(SLATE),
                [2.0, 0.0, -5.0],
                landing_impulse(350.0, 3.0),
            ),
            (
                24,
                material_recipe(BRICKS),
                [0.0, 0.0, -6.0],
                landing_impulse(240.0, 3.0),
            ),
            (28, soil_recipe(), [0.0, 0.0, -1.5], 2_000.0),
            (32, footstep_recipe(), [0.0, 0.0, 0.0], 5_000.0),
            (35, footstep_recipe(), [0.0, 0.0, 0.0], 5_000.0),
            (40, landing_recipe(), [0.0, 0.0, 0.0], 5_000.0),
        ];
        let mut writer = WavWriter::create(&path).unwrap();
        let mut buffer = vec![0.0f32; 2 * SAMPLE_RATE as usize / 10];
        let mut peaks = Vec::new();
        for tenth in 0..50 {
            for (_, recipe, at, impulse) in events.iter().filter(|e| e.0 == tenth) {
                assert!(mixer.play(recipe, *at, blow_gain(*impulse)));
            }
            mixer.mix(&mut buffer);
            writer.write(&buffer).unwrap();
            peaks.push(buffer.iter().fold(0.0f32, |m, s| m.max(s.abs())));
        }
        writer.finish().unwrap();

        let (rate, frames) = read_wav(&path).unwrap();
        assert_eq!(rate, SAMPLE_RATE);
        assert_eq!(frames.len(), 5 * SAMPLE_RATE as usize);
        // The stone to the left is in the left channel; the copper to the right still rings
        // in the right one after the rest have ended.
        let tenth = |t: usize| &frames[t * 4_800..(t + 1) * 4_800];
        let energy = |frames: &[[f32; 2]], channel: usize| -> f32 {
            frames.iter().map(|f| f[channel] * f[channel]).sum()
        };
        assert!(energy(tenth(1), 0) > 4.0 * energy(tenth(1), 1));
        assert!(energy(tenth(11), 1) > 4.0 * energy(tenth(11), 0));
        // Every blow is heard when it comes, and nothing clips.
        for (start, ..) in &events {
            assert!(peaks[*start] > 0.01, "{start}: {}", peaks[*start]);
        }
        assert!(frames.iter().flatten().all(|s| s.abs() <= 1.0));
        if kept.is_none() {
            std::fs::remove_file(&path).unwrap();
        }
    }
}
