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
//!
//! A block's part of a falling piece's body (its mass, middle and inertia) follows from its
//! material's density: [`part_of`] (docs/physics.md, "A block's part").

use blockfall_physics::Part;

use super::shapes::shape_of;
use super::store::{Block, CELL};

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

/// A block's part of a body: mass = density × the shape's volume × size³, its middle at the
/// shape's middle, and the inertia of a cube of that mass about its middle, m s² / 6.
pub fn part_of(block: &Block) -> Part {
    let meters = f64::from(block.size) * f64::from(CELL);
    let shape = shape_of(block.cuts, block.slope);
    let density = MATERIALS
        .get(usize::from(block.material))
        .map_or(1000.0, |m| f64::from(m.density));
    let mass = density * f64::from(shape.volume) * meters.powi(3);
    let low = block.low().map(|c| f64::from(c) * f64::from(CELL));
    let center = std::array::from_fn(|axis| low[axis] + f64::from(shape.middle[axis]) * meters);
    let inertia = mass * meters * meters / 6.0;
    Part {
        mass,
        center,
        inertia: [
            [inertia, 0.0, 0.0],
            [0.0, inertia, 0.0],
            [0.0, 0.0, inertia],
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(x: i32, y: i32, z: i32) -> Block {
        Block::new(x, y, z, 2, 0, 0, false).unwrap()
    }

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

    #[test]
    fn a_blocks_part_has_the_documented_mass_middle_and_inertia() {
        // A 1 m stone cube at cells (2, 4, 6): 2600 kg, middle at (1.5, 2.5, 3.5) m.
        let part = part_of(&cube(2, 4, 6));
        assert!((part.mass - 2600.0).abs() < 1e-6);
        assert_eq!(part.center, [1.5, 2.5, 3.5]);
        assert!((part.inertia[0][0] - 2600.0 / 6.0).abs() < 1e-9);
        // A ball of copper (every edge rounded) is lighter than its cube.
        let ball = Block::new(0, 0, 0, 2, 5, 0xFFF, false).unwrap();
        let part = part_of(&ball);
        assert!(
            part.mass < 8900.0 && part.mass > 8900.0 * 0.5,
            "{}",
            part.mass
        );
    }
}
