//! Material textures made at start, no downloaded assets: one pattern per material (stone
//! speckle, brick courses, plank boards, plaster, slate tiles, brushed copper), as layers of a
//! 2D texture array with a full mip chain, in sRGB RGBA8.
//!
//! Mips are averaged in linear light, not in sRGB bytes, so distant surfaces keep their
//! brightness.

mod patterns;

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{Device, GpuResult, Image, ImageDesc};

use blockfall_game::blocks::materials::MATERIALS;
use patterns::{pattern, terrain_pattern};

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

    /// An empty sampled 2D-array image of its size, layers and mips (sRGB RGBA8), named
    /// `name`, for its bytes to be uploaded into.
    pub fn image(&self, device: &Arc<Device>, name: &str) -> GpuResult<Image> {
        Image::new(
            device,
            &ImageDesc {
                name,
                format: vk::Format::R8G8B8A8_SRGB,
                width: self.size,
                height: self.size,
                layers: self.layers,
                mips: self.mips,
                usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
                view_type: vk::ImageViewType::TYPE_2D_ARRAY,
            },
        )
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
mod tests;
