//! Which block fills each cell, in sparse bricks of 8³ cells.
//!
//! The support search asks about every cell around every block it visits (48 around a 1 m
//! block), and the collision queries ask about the cells near a point. In a hash map of cells
//! each of those is a hash and a probe; here one brick lookup answers for up to 512 cells, and
//! the cells of a neighbourhood are read straight out of arrays. The bricks cost less memory
//! than a map of cells where blocks stand close: 2 KiB for 512 cells (4 bytes a cell) against
//! about 24 bytes per filled cell.

use crate::cell_hash::CellMap;

/// Cells per brick side, as a shift: 8.
const SHIFT: i32 = 3;
const SIDE: i32 = 1 << SHIFT;
const MASK: i32 = SIDE - 1;
const VOLUME: usize = (SIDE * SIDE * SIDE) as usize;

#[derive(Debug, Clone)]
struct Brick {
    /// A slot number plus one per cell; 0 is an empty cell.
    cells: [u32; VOLUME],
    filled: u16,
}

/// A sparse map from cells to slot numbers.
#[derive(Debug, Default, Clone)]
pub(crate) struct CellGrid {
    bricks: CellMap<Brick>,
}

fn brick_of(cell: [i32; 3]) -> [i32; 3] {
    cell.map(|c| c >> SHIFT)
}

fn index_of(cell: [i32; 3]) -> usize {
    let [x, y, z] = cell.map(|c| (c & MASK) as usize);
    x + (y << SHIFT) + (z << (2 * SHIFT))
}

impl CellGrid {
    /// The slot filling a cell.
    pub(crate) fn get(&self, cell: [i32; 3]) -> Option<u32> {
        let brick = self.bricks.get(&brick_of(cell))?;
        brick.cells[index_of(cell)].checked_sub(1)
    }

    pub(crate) fn contains(&self, cell: [i32; 3]) -> bool {
        self.get(cell).is_some()
    }

    /// Fills a cell with a slot (replacing what was there).
    pub(crate) fn insert(&mut self, cell: [i32; 3], slot: u32) {
        let brick = self.bricks.entry(brick_of(cell)).or_insert_with(|| Brick {
            cells: [0; VOLUME],
            filled: 0,
        });
        let value = &mut brick.cells[index_of(cell)];
        if *value == 0 {
            brick.filled += 1;
        }
        // Slot numbers come from a Vec index below u32::MAX (the store checks).
        *value = slot.saturating_add(1);
    }

    /// Empties a cell; a brick with no filled cell left is dropped.
    pub(crate) fn remove(&mut self, cell: [i32; 3]) {
        let key = brick_of(cell);
        let Some(brick) = self.bricks.get_mut(&key) else {
            return;
        };
        let value = &mut brick.cells[index_of(cell)];
        if *value != 0 {
            *value = 0;
            brick.filled -= 1;
            if brick.filled == 0 {
                self.bricks.remove(&key);
            }
        }
    }

    /// Calls `visit` with every filled cell of the box `low..=high` and its slot, brick by
    /// brick, and in each brick z, then y, then x ascending.
    pub(crate) fn for_each_in(
        &self,
        low: [i32; 3],
        high: [i32; 3],
        mut visit: impl FnMut([i32; 3], u32),
    ) {
        if (0..3).any(|axis| low[axis] > high[axis]) {
            return;
        }
        let first = brick_of(low);
        let last = brick_of(high);
        for bz in first[2]..=last[2] {
            for by in first[1]..=last[1] {
                for bx in first[0]..=last[0] {
                    let Some(brick) = self.bricks.get(&[bx, by, bz]) else {
                        continue;
                    };
                    let origin = [bx, by, bz].map(|b| b << SHIFT);
                    let from = [0, 1, 2].map(|axis| low[axis].max(origin[axis]) - origin[axis]);
                    let to = [0, 1, 2].map(|axis| {
                        high[axis].min(origin[axis].saturating_add(MASK)) - origin[axis]
                    });
                    for z in from[2]..=to[2] {
                        for y in from[1]..=to[1] {
                            let row = ((y << SHIFT) + (z << (2 * SHIFT))) as usize;
                            for x in from[0]..=to[0] {
                                let value = brick.cells[row + x as usize];
                                if value != 0 {
                                    let cell = [origin[0] + x, origin[1] + y, origin[2] + z];
                                    visit(cell, value - 1);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_found_where_they_were_put_including_negative_and_extreme_ones() {
        let mut grid = CellGrid::default();
        let cells = [
            [0, 0, 0],
            [-1, -1, -1],
            [3, 4, -5],
            [i32::MAX, i32::MIN, 7],
            [i32::MIN, i32::MAX, -8],
        ];
        for (slot, &cell) in cells.iter().enumerate() {
            grid.insert(cell, slot as u32);
        }
        for (slot, &cell) in cells.iter().enumerate() {
            assert_eq!(grid.get(cell), Some(slot as u32), "{cell:?}");
        }
        assert_eq!(grid.get([1, 0, 0]), None);
        grid.remove([3, 4, -5]);
        assert_eq!(grid.get([3, 4, -5]), None);
        assert_eq!(grid.get([-1, -1, -1]), Some(1));
    }

    #[test]
    fn a_box_visits_exactly_its_filled_cells_and_empty_bricks_go() {
        let mut grid = CellGrid::default();
        let mut filled = Vec::new();
        for x in -5i32..6 {
            for y in -3..4 {
                for z in -6..2 {
                    if (x * 7 + y * 3 + z * 5).rem_euclid(4) == 0 {
                        grid.insert([x, y, z], (x + 100) as u32);
                        filled.push([x, y, z]);
                    }
                }
            }
        }
        let (low, high) = ([-4, -2, -5], [4, 2, 0]);
        let mut seen = Vec::new();
        grid.for_each_in(low, high, |cell, slot| {
            assert_eq!(slot, (cell[0] + 100) as u32);
            seen.push(cell);
        });
        seen.sort_unstable();
        let mut expected: Vec<_> = filled
            .iter()
            .copied()
            .filter(|c| (0..3).all(|a| c[a] >= low[a] && c[a] <= high[a]))
            .collect();
        expected.sort_unstable();
        assert_eq!(seen, expected);
        for cell in filled {
            grid.remove(cell);
        }
        assert!(grid.bricks.is_empty(), "empty bricks are dropped");
    }
}
