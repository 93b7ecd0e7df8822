//! Material textures made at start, no downloaded assets: one pattern per material (stone
//! speckle, brick courses, plank boards, plaster, slate tiles, brushed copper), as layers of a
//! 2D texture array with a full mip chain, in sRGB RGBA8.
//!
//! Mips are averaged in linear light, not in sRGB bytes, so distant surfaces keep their
//! brightness.

use crate::blocks::materials::MATERIALS;

/// How the layers look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureStyle {
    /// The material's pattern.
    Patterned,
    /// One flat colour per layer: the material's colour. For pixel-exact tests.
    Solid,
}

/// A texture array ready to upload: mip 0 of every layer, then mip 1 of every layer, …
/// (the order `engine::gpu::upload` takes).
#[derive(Debug, Clone, PartialEq)]
pub struct TextureArrayData {
    pub name: String,
    pub size: u32,
    pub layers: u32,
    pub mips: u32,
    pub bytes: Vec<u8>,
}

impl TextureArrayData {
    /// Byte offset of mip `mip` of layer `layer`.
    pub fn offset(&self, mip: u32, layer: u32) -> usize {
        let mut offset = 0;
        for m in 0..mip {
            let s = (self.size >> m).max(1) as usize;
            offset += s * s * 4 * self.layers as usize;
        }
        let s = (self.size >> mip).max(1) as usize;
        offset + s * s * 4 * layer as usize
    }

    /// The RGBA bytes of a texel.
    pub fn texel(&self, mip: u32, layer: u32, x: u32, y: u32) -> [u8; 4] {
        let s = (self.size >> mip).max(1);
        let i = self.offset(mip, layer) + ((y * s + x) * 4) as usize;
        [
            self.bytes[i],
            self.bytes[i + 1],
            self.bytes[i + 2],
            self.bytes[i + 3],
        ]
    }
}

/// sRGB byte → linear light.
pub fn srgb_to_linear(byte: u8) -> f32 {
    let c = byte as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light → sRGB byte (rounded).
pub fn linear_to_srgb(value: f32) -> u8 {
    let c = value.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0 + 0.5).floor() as u8
}

/// Builds a texture array of `size`² layers (a power of two) for the given materials.
pub fn material_array(
    name: &str,
    materials: &[usize],
    size: u32,
    style: TextureStyle,
) -> TextureArrayData {
    let size = size.max(1).next_power_of_two();
    let layers = materials
        .iter()
        .map(|&material| layer_pixels(material, size, style))
        .collect();
    array_of(name, layers, size)
}

/// The terrain's layers, in the order of [`terrain_array`]: name and base colour (sRGB).
pub const TERRAIN_LAYERS: [(&str, [u8; 3]); 4] = [
    ("Grass", [0x5d, 0x8a, 0x3a]),
    ("Dirt", [0x7a, 0x5a, 0x3c]),
    ("Rock", [0x86, 0x84, 0x7e]),
    ("Sand", [0xd6, 0xc4, 0x8e]),
];
pub const GRASS: u32 = 0;
pub const DIRT: u32 = 1;
pub const ROCK: u32 = 2;
pub const SAND: u32 = 3;

/// The terrain's texture array, `size`² per layer with a full mip chain: grass (blades and
/// clumps), dirt (crumbs and pebbles), rock (strata and cracks), sand (fine grain and ripples).
/// All tile seamlessly, for triplanar mapping at one repeat per few meters.
pub fn terrain_array(size: u32) -> TextureArrayData {
    let size = size.max(1).next_power_of_two();
    let layers = TERRAIN_LAYERS
        .iter()
        .enumerate()
        .map(|(layer, (_, colour))| {
            let linear = colour.map(srgb_to_linear);
            let mut pixels = Vec::with_capacity((size * size) as usize);
            for y in 0..size {
                for x in 0..size {
                    let brightness = terrain_pattern(layer as u32, x, y, size);
                    pixels.push(linear.map(|c| c * brightness));
                }
            }
            pixels
        })
        .collect();
    array_of("terrain", layers, size)
}

/// Brightness of a terrain layer at a texel, around 1.0; tiles over `size`.
fn terrain_pattern(layer: u32, x: u32, y: u32, size: u32) -> f32 {
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

/// Mip chain (averaged in linear light) and sRGB bytes of some layers of `size`² texels.
fn array_of(name: &str, layers: Vec<Vec<[f32; 3]>>, size: u32) -> TextureArrayData {
    let mips = 32 - size.leading_zeros();
    let layer_count = layers.len() as u32;
    let mut levels: Vec<Vec<Vec<[f32; 3]>>> = vec![layers];
    for mip in 1..mips {
        let previous = &levels[mip as usize - 1];
        let source = (size >> (mip - 1)).max(1);
        levels.push(
            previous
                .iter()
                .map(|layer| downsample(layer, source))
                .collect(),
        );
    }
    let mut bytes = Vec::new();
    for level in &levels {
        for layer in level {
            for pixel in layer {
                bytes.extend_from_slice(&[
                    linear_to_srgb(pixel[0]),
                    linear_to_srgb(pixel[1]),
                    linear_to_srgb(pixel[2]),
                    255,
                ]);
            }
        }
    }
    TextureArrayData {
        name: name.to_owned(),
        size,
        layers: layer_count,
        mips,
        bytes,
    }
}

fn downsample(layer: &[[f32; 3]], source: u32) -> Vec<[f32; 3]> {
    let target = (source / 2).max(1);
    let mut out = Vec::with_capacity((target * target) as usize);
    for y in 0..target {
        for x in 0..target {
            let mut sum = [0.0f32; 3];
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let sx = (x * 2 + dx).min(source - 1);
                let sy = (y * 2 + dy).min(source - 1);
                let p = layer[(sy * source + sx) as usize];
                for c in 0..3 {
                    sum[c] += p[c] * 0.25;
                }
            }
            out.push(sum);
        }
    }
    out
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
fn value_noise(x: f32, y: f32, period: f32, size: u32, seed: u32) -> f32 {
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
fn pattern(material: usize, x: u32, y: u32, size: u32) -> f32 {
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

fn layer_pixels(material: usize, size: u32, style: TextureStyle) -> Vec<[f32; 3]> {
    let base = MATERIALS
        .get(material)
        .map(|m| m.colour)
        .unwrap_or([255, 0, 255]);
    let linear = [
        srgb_to_linear(base[0]),
        srgb_to_linear(base[1]),
        srgb_to_linear(base[2]),
    ];
    let mut pixels = Vec::with_capacity((size * size) as usize);
    for y in 0..size {
        for x in 0..size {
            let brightness = match style {
                TextureStyle::Solid => 1.0,
                TextureStyle::Patterned => pattern(material, x, y, size),
            };
            pixels.push([
                linear[0] * brightness,
                linear[1] * brightness,
                linear[2] * brightness,
            ]);
        }
    }
    pixels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terrain_layers_have_their_colours_full_mips_and_tile() {
        let array = terrain_array(128);
        assert_eq!((array.size, array.layers, array.mips), (128, 4, 8));
        assert_eq!(array.bytes.len(), array.offset(7, 4));
        for (layer, (name, colour)) in TERRAIN_LAYERS.iter().enumerate() {
            let layer = layer as u32;
            // The 1×1 mip is the layer's average, near its colour (the patterns average ~1).
            let mean = array.texel(7, layer, 0, 0);
            for c in 0..3 {
                let wanted = srgb_to_linear(colour[c]);
                let got = srgb_to_linear(mean[c]);
                assert!(
                    (got / wanted - 1.0).abs() < 0.25,
                    "{name}: {mean:?} vs {colour:?}"
                );
            }
            // Seamless: the first and last columns and rows differ as little as neighbours do.
            let edge = (0..128)
                .map(|y| {
                    let a = array.texel(0, layer, 0, y);
                    let b = array.texel(0, layer, 127, y);
                    (0..3)
                        .map(|c| (a[c] as i32 - b[c] as i32).abs())
                        .max()
                        .unwrap()
                })
                .max()
                .unwrap();
            assert!(edge < 60, "{name} tiles: {edge}");
        }
        // The layers tell apart: grass is greener than rock, sand brighter than dirt.
        let grass = array.texel(7, GRASS, 0, 0);
        let rock = array.texel(7, ROCK, 0, 0);
        assert!(grass[1] > grass[0] && rock[1] <= rock[0] + 2);
        let sum = |t: [u8; 4]| t[0] as u32 + t[1] as u32 + t[2] as u32;
        assert!(sum(array.texel(7, SAND, 0, 0)) > sum(array.texel(7, DIRT, 0, 0)));
    }

    #[test]
    fn srgb_round_trips_every_byte() {
        for byte in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(byte)), byte);
        }
    }

    #[test]
    fn array_has_full_mip_chain_in_upload_order() {
        let data = material_array("test", &[0, 5], 64, TextureStyle::Patterned);
        assert_eq!(data.mips, 7);
        assert_eq!(data.layers, 2);
        let expected: usize = (0..7).map(|m| ((64 >> m) as usize).pow(2) * 4 * 2).sum();
        assert_eq!(data.bytes.len(), expected);
        assert_eq!(data.offset(1, 0), 64 * 64 * 4 * 2);
    }

    #[test]
    fn solid_layers_are_the_material_colour_at_every_mip() {
        let data = material_array("solid", &[1, 4], 16, TextureStyle::Solid);
        for mip in 0..data.mips {
            let b = MATERIALS[1].colour;
            let s = MATERIALS[4].colour;
            assert_eq!(data.texel(mip, 0, 0, 0), [b[0], b[1], b[2], 255]);
            assert_eq!(data.texel(mip, 1, 0, 0), [s[0], s[1], s[2], 255]);
        }
    }

    #[test]
    fn patterns_differ_between_texels_and_keep_their_mean_in_the_mips() {
        let data = material_array("bricks", &[1], 64, TextureStyle::Patterned);
        let first = data.texel(0, 0, 10, 10);
        assert!((0..64).any(|x| data.texel(0, 0, x, 20) != first));
        // Mip 0's average in linear light equals the last mip's single texel.
        let mut sum = 0.0f64;
        for y in 0..64 {
            for x in 0..64 {
                sum += srgb_to_linear(data.texel(0, 0, x, y)[0]) as f64;
            }
        }
        let mean = (sum / 4096.0) as f32;
        let last = srgb_to_linear(data.texel(data.mips - 1, 0, 0, 0)[0]);
        assert!((mean - last).abs() < 0.01, "mean {mean} vs last mip {last}");
    }

    #[test]
    fn patterns_tile_seamlessly() {
        // Value noise wraps: the texel left of x = 0 is the one at x = size - 1.
        let size = 64;
        let a = value_noise(-1.0, 5.0, 8.0, size, 3);
        let b = value_noise(63.0, 5.0, 8.0, size, 3);
        assert!((a - b).abs() < 1e-5);
    }
}
