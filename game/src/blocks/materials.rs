//! What blocks can be made of, in the order of the number keys and the texture layers, with how
//! heavy and how strong each is (the table in docs/blocks.md).
//!
//! The strengths are what a joint between two blocks of a falling piece holds per square meter
//! of the side they share (`crate::strength`), in megapascals: a joint breaks when the push
//! through it in one step, over the step's length, is more than its strength times its area.
//! They follow the real materials' tensile strengths where those make a game a player can see
//! through, and part from them where the real ones would not:
//!
//! - Copper, 200: the real metal's (about 210). Nothing in the world breaks it.
//! - Stone, 40: a strong, sound rock, between granite's strength in tension (10–20) and in
//!   compression (100 and more): a block of a piece is held on every side, not pulled. A stone
//!   beam of 0.5 m to 1 m blocks dropped 10 m holds, flat or on its end; 2 m blocks, eight
//!   times as heavy on four times the area, break on their end.
//! - Planks, 10: wood is tough, strong along its fibres (40 and more) and weak across them (a
//!   few); 10 between the two. Planks are light, so little pushes through their joints: they
//!   hardly ever break.
//! - Bricks, 8, and slate, 6: middling. Bricks are only as strong as the mortar between them;
//!   slate splits along its layers. A brick or slate piece falling a storey or two holds, one
//!   falling from a tower's top breaks.
//! - Plaster, 1: brittle (set gypsum is 1–3). A plaster piece breaks on any hard landing; a
//!   4-block plaster beam dropped 10 m breaks, and so does a plaster layer in a toppling tower.

/// A material: its name, its colour (sRGB), its density and its strength.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    pub name: &'static str,
    /// sRGB bytes, `#rrggbb` in docs/blocks.md.
    pub colour: [u8; 3],
    /// Kilograms per cubic meter.
    pub density: f32,
    /// Megapascals: what a joint of this material holds per square meter of shared side (the
    /// module's documentation gives the reason for each).
    pub strength: f32,
}

/// The six materials, by their numbers.
pub const MATERIALS: [Material; 6] = [
    Material {
        name: "Stone",
        colour: [0x9a, 0x9c, 0x8e],
        density: 2600.0,
        strength: 40.0,
    },
    Material {
        name: "Bricks",
        colour: [0xb5, 0x52, 0x3b],
        density: 1900.0,
        strength: 8.0,
    },
    Material {
        name: "Planks",
        colour: [0xb9, 0x8a, 0x52],
        density: 600.0,
        strength: 10.0,
    },
    Material {
        name: "Plaster",
        colour: [0xd6, 0xdc, 0xc6],
        density: 1500.0,
        strength: 1.0,
    },
    Material {
        name: "Slate",
        colour: [0x4f, 0x4a, 0x63],
        density: 2800.0,
        strength: 6.0,
    },
    Material {
        name: "Copper",
        colour: [0xcf, 0x7a, 0x3f],
        density: 8900.0,
        strength: 200.0,
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
        let strengths: Vec<f32> = MATERIALS.iter().map(|m| m.strength).collect();
        assert_eq!(strengths, [40.0, 8.0, 10.0, 1.0, 6.0, 200.0]);
        assert_eq!(MATERIALS[PLANKS].colour, [0xb9, 0x8a, 0x52]);
        assert_eq!(
            [STONE, BRICKS, PLANKS, PLASTER, SLATE, COPPER],
            [0, 1, 2, 3, 4, 5]
        );
    }
}
