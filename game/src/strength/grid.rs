//! Where points lie among a piece's cells, and which of its blocks fill them (docs/blocks.md,
//! "Strength", "Where a push goes").

use super::HAIR;
use crate::blocks::store::{Block, CELL};

/// Each cell of a piece's box, the block that fills it: for finding the blocks at a push
/// without asking the store, kept when the box is not much more than the piece (at most
/// [`GRID_SHARE`] times its cells, or [`GRID_CELLS`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Grid {
    /// The lowest cell of the box.
    low: [i32; 3],
    /// The box's cells along each axis.
    size: [i32; 3],
    /// Each cell's block ([`u32::MAX`]: none), x fastest.
    cells: Vec<u32>,
}

/// How many times a piece's cells its box may hold and still be kept as a [`Grid`].
const GRID_SHARE: usize = 8;

/// A box of this many cells is kept as a [`Grid`] however few of them the piece fills.
const GRID_CELLS: usize = 4096;

impl Grid {
    /// The grid of a piece's blocks, unless its box is too big for it.
    pub(super) fn of(blocks: &[Block]) -> Option<Self> {
        let mut low = [i32::MAX; 3];
        let mut high = [i32::MIN; 3];
        let mut filled = 0usize;
        for block in blocks {
            let size = i32::from(block.size);
            for axis in 0..3 {
                low[axis] = low[axis].min(block.low()[axis]);
                high[axis] = high[axis].max(block.low()[axis] + size);
            }
            filled += usize::from(block.size).pow(3);
        }
        let size: [i32; 3] = std::array::from_fn(|axis| high[axis] - low[axis]);
        let volume = size.iter().try_fold(1usize, |volume, &side| {
            volume.checked_mul(usize::try_from(side).ok()?)
        })?;
        if blocks.is_empty() || volume > (GRID_SHARE * filled).max(GRID_CELLS) {
            return None;
        }
        let mut grid = Grid {
            low,
            size,
            cells: vec![u32::MAX; volume],
        };
        for (index, block) in blocks.iter().enumerate() {
            for cell in block.cells() {
                if let Some(at) = grid.index(cell) {
                    grid.cells[at] = index as u32;
                }
            }
        }
        Some(grid)
    }

    /// Where a cell is in `cells`, if it is in the box.
    #[inline]
    fn index(&self, cell: [i32; 3]) -> Option<usize> {
        let offset = |axis: usize| {
            let offset = i64::from(cell[axis]) - i64::from(self.low[axis]);
            (0..i64::from(self.size[axis]))
                .contains(&offset)
                .then_some(offset as usize)
        };
        let (x, y, z) = (offset(0)?, offset(1)?, offset(2)?);
        let (width, depth) = (self.size[0] as usize, self.size[1] as usize);
        Some((z * depth + y) * width + x)
    }

    /// The block filling a cell, if any.
    #[inline]
    pub(super) fn at(&self, cell: [i32; 3]) -> Option<u32> {
        self.index(cell)
            .map(|at| self.cells[at])
            .filter(|&block| block != u32::MAX)
    }

    /// Where a corner of the cells is among the corners of the box (one more along each axis
    /// than its cells), if it is one of them.
    #[inline]
    pub(super) fn corner_index(&self, corner: [i32; 3]) -> Option<usize> {
        let offset = |axis: usize| {
            let offset = i64::from(corner[axis]) - i64::from(self.low[axis]);
            (0..=i64::from(self.size[axis]))
                .contains(&offset)
                .then_some(offset as usize)
        };
        let (x, y, z) = (offset(0)?, offset(1)?, offset(2)?);
        let (width, depth) = (self.size[0] as usize + 1, self.size[1] as usize + 1);
        Some((z * depth + y) * width + x)
    }

    /// Along each axis on whose cell sides a point lies, the side with a pushed corner (of
    /// `pushed`, by [`Grid::corner_index`]) one cell beyond it, when only one side has:
    /// +1 above, −1 below, else 0.
    pub(super) fn sides(&self, pushed: &[bool], place: &Place) -> [i8; 3] {
        let mut sides = [0i8; 3];
        let Some(at) = self.corner_index(place.corner) else {
            return sides;
        };
        let mut stride = 1usize;
        for (axis, side) in sides.iter_mut().enumerate() {
            let offset = i64::from(place.corner[axis]) - i64::from(self.low[axis]);
            if place.on_line[axis] {
                let after = offset < i64::from(self.size[axis]) && pushed[at + stride];
                let before = offset > 0 && pushed[at - stride];
                *side = i8::from(after) - i8::from(before);
            }
            stride *= self.size[axis] as usize + 1;
        }
        sides
    }

    /// How many corners the box has.
    pub(super) fn corners(&self) -> usize {
        self.size.iter().map(|&side| side as usize + 1).product()
    }
}

/// Where a point lies among the cells: the cell it is in, the nearest corner of the cells,
/// and along which axes it lies on a cell's side (within [`HAIR`]).
pub(super) struct Place {
    pub(super) cell: [i32; 3],
    pub(super) corner: [i32; 3],
    pub(super) on_line: [bool; 3],
}

impl Place {
    pub(super) fn of(point: [f64; 3]) -> Self {
        // Cells lie within ±2²⁰ of the origin (`scene::WORLD_CELLS`): shifted by 2²², a cell
        // coordinate is positive, and cutting off its fraction takes it down to the cell.
        const SHIFT: f64 = 4_194_304.0;
        let scale = 1.0 / f64::from(CELL);
        let mut place = Place {
            cell: [0; 3],
            corner: [0; 3],
            on_line: [false; 3],
        };
        for (axis, &coordinate) in point.iter().enumerate() {
            let at = coordinate * scale;
            let down = (at + SHIFT) as i64 - SHIFT as i64;
            let nearest = (at + 0.5 + SHIFT) as i64 - SHIFT as i64;
            place.cell[axis] = down as i32;
            place.corner[axis] = nearest as i32;
            place.on_line[axis] = (at - nearest as f64).abs() <= HAIR * scale;
        }
        place
    }
}
