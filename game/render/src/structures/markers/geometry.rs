//! The markers' vertices: the ghost's box as triangles and the outline's edges as lines, in
//! linear colour, and the box of a block's cells they are built around.

use crate::textures::srgb_to_linear;
use blockfall_game::blocks::store::{Block, CELL};

/// The outline's colour (linear) and opacity.
pub(super) const OUTLINE: [f32; 4] = [0.02, 0.02, 0.02, 0.9];
/// How far the outline lies outside the block, in meters.
pub(super) const OUTLINE_MARGIN: f32 = 0.02;
/// Vertices of the ghost (12 triangles) and of the outline (12 lines).
pub(super) const GHOST_VERTICES: usize = 36;
pub(super) const OUTLINE_VERTICES: usize = 24;

/// One marker vertex (`markers.vert`): 28 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MarkerVertex {
    pub position: [f32; 3],
    /// Linear rgb and alpha.
    pub colour: [f32; 4],
}

/// An sRGB colour as linear rgb with `alpha`.
pub(super) fn linear(srgb: [u8; 3], alpha: f32) -> [f32; 4] {
    let [r, g, b] = srgb.map(srgb_to_linear);
    [r, g, b, alpha]
}

/// The box of `block`'s cells in meters, `margin` larger on every side.
pub(super) fn block_box(block: &Block, margin: f32) -> ([f32; 3], [f32; 3]) {
    let size = f32::from(block.size) * CELL;
    let low = block.low().map(|c| c as f32 * CELL - margin);
    (low, low.map(|c| c + size + 2.0 * margin))
}

/// The 12 triangles of the box from `low` to `high`, counter-clockwise from outside.
pub(super) fn push_box(
    out: &mut Vec<MarkerVertex>,
    low: [f32; 3],
    high: [f32; 3],
    colour: [f32; 4],
) {
    let corner = |i: usize| {
        [
            if i & 1 != 0 { high[0] } else { low[0] },
            if i & 2 != 0 { high[1] } else { low[1] },
            if i & 4 != 0 { high[2] } else { low[2] },
        ]
    };
    // Each side's corners (bit 0: x, bit 1: y, bit 2: z), counter-clockwise from outside.
    const SIDES: [[usize; 4]; 6] = [
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
    ];
    for side in SIDES {
        for i in [0, 1, 2, 0, 2, 3] {
            out.push(MarkerVertex {
                position: corner(side[i]),
                colour,
            });
        }
    }
}

/// The 12 edges of the box from `low` to `high`, as line-list pairs.
pub(super) fn push_edges(
    out: &mut Vec<MarkerVertex>,
    low: [f32; 3],
    high: [f32; 3],
    colour: [f32; 4],
) {
    let corner = |i: usize| {
        [
            if i & 1 != 0 { high[0] } else { low[0] },
            if i & 2 != 0 { high[1] } else { low[1] },
            if i & 4 != 0 { high[2] } else { low[2] },
        ]
    };
    for a in 0..8usize {
        for bit in [1, 2, 4] {
            if a & bit == 0 {
                for position in [corner(a), corner(a | bit)] {
                    out.push(MarkerVertex { position, colour });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    #[test]
    fn the_ghost_box_faces_outward_and_the_outline_has_twelve_edges() {
        let mut vertices = Vec::new();
        push_box(&mut vertices, [0.0; 3], [1.0; 3], [1.0; 4]);
        assert_eq!(vertices.len(), GHOST_VERTICES);
        for triangle in vertices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|i| triangle[i].position);
            let normal = cross(
                [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
            );
            let middle = [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0 - 0.5);
            let outward: f32 = (0..3).map(|k| normal[k] * middle[k]).sum();
            assert!(outward > 0.0, "{triangle:?} faces inward");
        }
        let mut lines = Vec::new();
        push_edges(&mut lines, [0.0; 3], [1.0; 3], OUTLINE);
        assert_eq!(lines.len(), OUTLINE_VERTICES);
        for pair in lines.chunks_exact(2) {
            let differing = (0..3)
                .filter(|&k| pair[0].position[k] != pair[1].position[k])
                .count();
            assert_eq!(differing, 1, "an edge runs along one axis");
        }
    }

    #[test]
    fn the_outline_box_is_two_centimetres_outside_the_block() {
        let block = Block::new(2, 0, -4, 2, 0, 0, false).unwrap();
        let (low, high) = block_box(&block, OUTLINE_MARGIN);
        assert_eq!(low, [0.98, -0.02, -2.02]);
        assert!((high[0] - 2.02).abs() < 1e-6 && (high[2] + 0.98).abs() < 1e-6);
    }
}
