//! The procedural patterns the material and terrain textures are made of: tiling value noise,
//! and one pattern per material (stone speckle, brick courses, plank boards, plaster, slate
//! tiles, brushed copper), each a brightness per texel.

use super::{DIRT, GRASS, ROCK};

/// Brightness of a terrain layer at a texel, around 1.0; tiles over `size`.
pub(super) fn terrain_pattern(layer: u32, x: u32, y: u32, size: u32) -> f32 {
    let (fx, fy) = (x as f32, y as f32);
    let s = size as f32;
    let noise =
        |period: f32, seed: u32| value_noise(fx, fy, s / period, size, 100 + layer * 7 + seed);
    match layer {
        // Grass: fine blades over soft clumps.
        GRASS => 0.75 + 0.3 * noise(64.0, 1) + 0.2 * noise(8.0, 2),
        // Dirt: crumbs, and the odd darker pebble.
        DIRT => {
            let pebble = if noise(16.0, 3) > 0.78 { 0.75 } else { 1.0 };
            (0.8 + 0.25 * noise(48.0, 4) + 0.1 * noise(6.0, 5)) * pebble
        }
        // Rock: horizontal strata bent by noise, with thin dark cracks.
        ROCK => {
            let strata = ((fy / s * 6.0 + noise(4.0, 6) * 1.5) * std::f32::consts::TAU).sin();
            let crack = if noise(24.0, 7) > 0.9 { 0.6 } else { 1.0 };
            (0.85 + 0.1 * strata + 0.15 * noise(32.0, 8)) * crack
        }
        // Sand: fine grain and long soft ripples.
        _ => {
            let ripple = ((fx / s * 8.0 + noise(4.0, 9)) * std::f32::consts::TAU).sin();
            0.92 + 0.06 * ripple + 0.08 * noise(64.0, 10)
        }
    }
}

/// A repeatable hash of integer coordinates to [0, 1).
fn hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x8da6_b343)
        ^ (y as u32).wrapping_mul(0xd816_3841)
        ^ seed.wrapping_mul(0xcb1a_b31f);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297a_2d39);
    h ^= h >> 15;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// Smooth value noise with period `period` texels, tiling over `size`.
pub(super) fn value_noise(x: f32, y: f32, period: f32, size: u32, seed: u32) -> f32 {
    let cells = ((size as f32 / period).round() as i32).max(1);
    let fx = x / period;
    let fy = y / period;
    let x0 = fx.floor() as i32;
    let y0 = fy.floor() as i32;
    let tx = fx - x0 as f32;
    let ty = fy - y0 as f32;
    let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
    let at = |i: i32, j: i32| hash(i.rem_euclid(cells), j.rem_euclid(cells), seed);
    let a = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * smooth(tx);
    let b = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * smooth(tx);
    a + (b - a) * smooth(ty)
}

/// Brightness pattern of a material at a texel, around 1.0.
pub(super) fn pattern(material: usize, x: u32, y: u32, size: u32) -> f32 {
    let (fx, fy) = (x as f32, y as f32);
    let s = size as f32;
    let fine = value_noise(fx, fy, s / 32.0, size, material as u32 * 7 + 1);
    let coarse = value_noise(fx, fy, s / 8.0, size, material as u32 * 7 + 2);
    match material {
        // Stone: speckled grain, darker blotches.
        0 => 0.82 + 0.22 * fine + 0.12 * coarse,
        // Bricks: four courses, offset every other, light mortar lines.
        1 => {
            let course = s / 4.0;
            let row = (fy / course).floor();
            let shift = if row as i32 % 2 == 0 { 0.0 } else { s / 4.0 };
            let u = (fx + shift).rem_euclid(s / 2.0);
            let v = fy.rem_euclid(course);
            let mortar = s / 64.0 * 2.0;
            if u < mortar || v < mortar {
                1.35
            } else {
                let brick = hash((fx + shift).div_euclid(s / 2.0) as i32, row as i32, 11);
                0.8 + 0.25 * brick + 0.1 * fine
            }
        }
        // Planks: four vertical boards with grain along them and dark seams.
        2 => {
            let board = s / 4.0;
            let u = fx.rem_euclid(board);
            if u < s / 128.0 * 2.0 {
                0.55
            } else {
                let grain = value_noise(fx * 4.0, fy / 4.0, s / 16.0, size, 23);
                let which = hash(fx.div_euclid(board) as i32, 0, 29);
                0.8 + 0.25 * grain + 0.12 * which
            }
        }
        // Plaster: soft, faint unevenness.
        3 => 0.93 + 0.07 * coarse + 0.04 * fine,
        // Slate: overlapping tiles, each a little different, dark gaps.
        4 => {
            let tile = s / 4.0;
            let row = (fy / tile).floor();
            let shift = if row as i32 % 2 == 0 { 0.0 } else { tile / 2.0 };
            let u = (fx + shift).rem_euclid(tile);
            let v = fy.rem_euclid(tile);
            if u < s / 64.0 || v < s / 64.0 {
                0.6
            } else {
                let which = hash((fx + shift).div_euclid(tile) as i32, row as i32, 31);
                0.85 + 0.2 * which + 0.08 * fine - 0.15 * (v / tile)
            }
        }
        // Copper: brushed streaks along x.
        _ => {
            let streak = value_noise(fx / 8.0, fy * 2.0, s / 32.0, size, 37);
            0.85 + 0.3 * streak + 0.05 * fine
        }
    }
}
