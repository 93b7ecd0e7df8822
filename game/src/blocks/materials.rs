//! What blocks can be made of, in the order of the number keys and the texture layers, with how
//! heavy each is (the table in docs/blocks.md).

/// A material: its name, its colour (sRGB) and its density.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    pub name: &'static str,
    /// sRGB bytes, `#rrggbb` in docs/blocks.md.
    pub colour: [u8; 3],
    /// Kilograms per cubic meter.
    pub density: f32,
}

/// The six materials, by their numbers.
pub const MATERIALS: [Material; 6] = [
    Material {
        name: "Stone",
        colour: [0x9a, 0x9c, 0x8e],
        density: 2600.0,
    },
    Material {
        name: "Bricks",
        colour: [0xb5, 0x52, 0x3b],
        density: 1900.0,
    },
    Material {
        name: "Planks",
        colour: [0xb9, 0x8a, 0x52],
        density: 600.0,
    },
    Material {
        name: "Plaster",
        colour: [0xd6, 0xdc, 0xc6],
        density: 1500.0,
    },
    Material {
        name: "Slate",
        colour: [0x4f, 0x4a, 0x63],
        density: 2800.0,
    },
    Material {
        name: "Copper",
        colour: [0xcf, 0x7a, 0x3f],
        density: 8900.0,
    },
];

/// Material numbers: the number keys and texture layers, from 0.
pub const STONE: usize = 0;
pub const BRICKS: usize = 1;
pub const PLANKS: usize = 2;
pub const PLASTER: usize = 3;
pub const SLATE: usize = 4;
pub const COPPER: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn densities_are_the_documented_ones() {
        let densities: Vec<f32> = MATERIALS.iter().map(|m| m.density).collect();
        assert_eq!(densities, [2600.0, 1900.0, 600.0, 1500.0, 2800.0, 8900.0]);
        assert_eq!(MATERIALS[COPPER].name, "Copper");
        assert_eq!(MATERIALS[PLANKS].colour, [0xb9, 0x8a, 0x52]);
        assert_eq!(
            [STONE, BRICKS, PLANKS, PLASTER, SLATE, COPPER],
            [0, 1, 2, 3, 4, 5]
        );
    }
}
