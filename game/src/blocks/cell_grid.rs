//! Which block fills each cell, in sparse bricks of 8³ cells.
//!
//! The support search asks about every cell around every block it visits (48 around a 1 m
//! block), and the collision queries ask about the cells near a point. In a hash map of cells
//! each of those is a hash and a probe; here one brick lookup answers for up to 512 cells, and
//! the cells of a neighbourhood are read straight out of a brick.
//!
//! A brick is a bit per cell saying which are filled, and the slots of the filled cells only,
//! in cell order: a filled cell's slot is found by counting the filled cells before it. So a
//! brick's memory follows the cells it holds, whatever the layout: about 100 bytes, plus 4 a
//! filled cell (2.1 KiB when all 512 are). An empty cell, most of what the support search asks
//! about, is answered from the bits alone. The bits of one z slab are one `u64`, and of one row
//! one byte of it: a box of cells is read a row at a time.
//!
//! ```text
//!   filled: [u64; 8]    bit y·8 + x of word z: the cell (x, y, z) of the brick is filled
//!   before: [u16; 8]    filled cells in the words before each word
//!   slots:  Vec<u32>    the filled cells' slots, in cell order (z, then y, then x)
//! ```

use crate::cell_hash::CellMap;

/// Cells per brick side, as a shift: 8.
const SHIFT: i32 = 3;
const SIDE: i32 = 1 << SHIFT;
const MASK: i32 = SIDE - 1;

/// The filled cells of one brick and their slots.
#[derive(Debug, Clone, Default)]
struct Brick {
    filled: [u64; SIDE as usize],
    before: [u16; SIDE as usize],
    slots: Vec<u32>,
}

impl Brick {
    /// Where the slot of the cell `(word, bit)` is (or would be) in `slots`.
    fn rank(&self, word: usize, bit: u32) -> usize {
        let below = self.filled[word] & ((1u64 << bit) - 1);
        usize::from(self.before[word]) + below.count_ones() as usize
    }

    fn is_filled(&self, word: usize, bit: u32) -> bool {
        self.filled[word] & (1u64 << bit) != 0
    }

    fn get(&self, [word, bit]: [u32; 2]) -> Option<u32> {
        let word = word as usize;
        self.is_filled(word, bit)
            .then(|| self.slots[self.rank(word, bit)])
    }

    fn insert(&mut self, [word, bit]: [u32; 2], slot: u32) {
        let word = word as usize;
        let rank = self.rank(word, bit);
        if self.is_filled(word, bit) {
            self.slots[rank] = slot;
            return;
        }
        self.slots.insert(rank, slot);
        self.filled[word] |= 1u64 << bit;
        for before in &mut self.before[word + 1..] {
            *before += 1;
        }
    }

    /// Empties a cell; whether the brick is empty now.
    fn remove(&mut self, [word, bit]: [u32; 2]) -> bool {
        let word = word as usize;
        if self.is_filled(word, bit) {
            let rank = self.rank(word, bit);
            self.slots.remove(rank);
            self.filled[word] &= !(1u64 << bit);
            for before in &mut self.before[word + 1..] {
                *before -= 1;
            }
            // A brick emptied by half or more gives its spare room back.
            if self.slots.capacity() > 2 * self.slots.len() + 8 {
                self.slots
                    .shrink_to(self.slots.len() + self.slots.len() / 2);
            }
        }
        self.slots.is_empty()
    }

    /// Calls `visit` with the place and slot of every filled cell in the box `from..=to` of
    /// the brick's own coordinates, z, then y, then x ascending.
    fn for_each_in(&self, from: [i32; 3], to: [i32; 3], mut visit: impl FnMut([i32; 3], u32)) {
        // The x range as a mask of one row's byte.
        let row_mask = (0xFFu64 >> (MASK - (to[0] - from[0]))) << from[0];
        for z in from[2]..=to[2] {
            let word = self.filled[z as usize];
            for y in from[1]..=to[1] {
                let shift = (y << SHIFT) as u32;
                let mut row = (word >> shift) & row_mask;
                while row != 0 {
                    let x = row.trailing_zeros();
                    row &= row - 1;
                    let slot = self.slots[self.rank(z as usize, shift + x)];
                    visit([x as i32, y, z], slot);
                }
            }
        }
    }
}

/// A sparse map from cells to slot numbers.
#[derive(Debug, Default, Clone)]
pub(crate) struct CellGrid {
    bricks: CellMap<Brick>,
}

fn brick_of(cell: [i32; 3]) -> [i32; 3] {
    cell.map(|c| c >> SHIFT)
}

/// A cell's word (its z in the brick) and bit (y·8 + x) in its brick.
fn place_of(cell: [i32; 3]) -> [u32; 2] {
    let [x, y, z] = cell.map(|c| (c & MASK) as u32);
    [z, (y << SHIFT) + x]
}

impl CellGrid {
    /// The slot filling a cell.
    pub(crate) fn get(&self, cell: [i32; 3]) -> Option<u32> {
        self.bricks.get(&brick_of(cell))?.get(place_of(cell))
    }

    pub(crate) fn contains(&self, cell: [i32; 3]) -> bool {
        self.get(cell).is_some()
    }

    /// Fills a cell with a slot (replacing what was there).
    pub(crate) fn insert(&mut self, cell: [i32; 3], slot: u32) {
        self.bricks
            .entry(brick_of(cell))
            .or_default()
            .insert(place_of(cell), slot);
    }

    /// Empties a cell; a brick with no filled cell left is dropped.
    pub(crate) fn remove(&mut self, cell: [i32; 3]) {
        let key = brick_of(cell);
        if let Some(brick) = self.bricks.get_mut(&key) {
            if brick.remove(place_of(cell)) {
                self.bricks.remove(&key);
            }
        }
    }

    /// How many bricks hold a filled cell.
    pub(crate) fn brick_count(&self) -> usize {
        self.bricks.len()
    }

    /// How many bricks of the box `low..=high` hold no filled cell yet.
    pub(crate) fn empty_bricks_in(&self, low: [i32; 3], high: [i32; 3]) -> usize {
        let first = brick_of(low);
        let last = brick_of(high);
        let mut empty = 0;
        for bz in first[2]..=last[2] {
            for by in first[1]..=last[1] {
                for bx in first[0]..=last[0] {
                    empty += usize::from(!self.bricks.contains_key(&[bx, by, bz]));
                }
            }
        }
        empty
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
                    brick.for_each_in(from, to, |local, slot| {
                        visit([0, 1, 2].map(|axis| origin[axis] + local[axis]), slot);
                    });
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

    /// A model of the grid: every cell's slot in a map.
    fn check_against(grid: &CellGrid, model: &std::collections::BTreeMap<[i32; 3], u32>) {
        for z in -2..10 {
            for y in -2..10 {
                for x in -2..10 {
                    assert_eq!(grid.get([x, y, z]), model.get(&[x, y, z]).copied());
                }
            }
        }
        let mut seen = Vec::new();
        grid.for_each_in([-2, -2, -2], [9, 9, 9], |cell, slot| {
            seen.push((cell, slot))
        });
        let mut expected: Vec<_> = model.iter().map(|(&cell, &slot)| (cell, slot)).collect();
        // The cells all lie in one brick, visited z, then y, then x ascending in both forms.
        expected.sort_by_key(|&([x, y, z], _)| (z, y, x));
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_brick_filled_and_emptied_in_any_order_keeps_each_cells_slot() {
        let mut grid = CellGrid::default();
        let mut model = std::collections::BTreeMap::new();
        // Every cell of one brick in a scrambled order (7 is coprime with 512).
        let cells: Vec<[i32; 3]> = (0..512)
            .map(|i| {
                let i = i * 7 % 512;
                [i & 7, (i >> 3) & 7, i >> 6]
            })
            .collect();
        for (n, &cell) in cells.iter().enumerate() {
            grid.insert(cell, n as u32 * 3);
            model.insert(cell, n as u32 * 3);
            assert_eq!(
                grid.bricks[&[0, 0, 0]].slots.len(),
                n + 1,
                "one slot a filled cell"
            );
            if n % 37 == 0 || n == 511 {
                check_against(&grid, &model);
            }
        }
        // Replacing a cell's slot keeps the count.
        grid.insert(cells[0], 7);
        model.insert(cells[0], 7);
        assert_eq!(grid.bricks[&[0, 0, 0]].slots.len(), 512);
        for (n, &cell) in cells.iter().enumerate().rev() {
            grid.remove(cell);
            model.remove(&cell);
            if n % 41 == 0 {
                check_against(&grid, &model);
            }
            if let Some(brick) = grid.bricks.get(&[0, 0, 0]) {
                assert!(
                    brick.slots.capacity() <= 2 * brick.slots.len() + 8,
                    "room given back"
                );
            }
        }
        assert!(grid.bricks.is_empty());
        assert_eq!(grid.brick_count(), 0);
    }

    #[test]
    fn a_box_across_bricks_visits_rows_in_each_brick_in_order() {
        let mut grid = CellGrid::default();
        for (slot, cell) in [[7, 1, 0], [8, 1, 0], [0, 1, 0], [9, 1, 0], [1, 0, 0]]
            .into_iter()
            .enumerate()
        {
            grid.insert(cell, slot as u32);
        }
        let mut seen = Vec::new();
        grid.for_each_in([1, 0, 0], [8, 1, 0], |cell, slot| seen.push((cell, slot)));
        assert_eq!(seen, [([1, 0, 0], 4), ([7, 1, 0], 0), ([8, 1, 0], 1)]);
    }

    #[test]
    fn empty_bricks_are_counted_in_a_box() {
        let mut grid = CellGrid::default();
        grid.insert([6, 0, 6], 0);
        assert_eq!(grid.brick_count(), 1);
        // A 4-cell block at (6, -2, 6) reaches eight bricks, one of them held already.
        assert_eq!(grid.empty_bricks_in([6, -2, 6], [9, 1, 9]), 7);
        assert_eq!(grid.empty_bricks_in([0, 0, 0], [7, 7, 7]), 0);
    }
}
