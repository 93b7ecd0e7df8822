//! The textures' unit tests: colours, mips, sRGB, patterns that tile.

use super::patterns::value_noise;
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
