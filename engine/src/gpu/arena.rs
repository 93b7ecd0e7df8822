//! Sub-allocation of one large buffer: the terrain's vertices and indices of every chunk live
//! in one arena each, so that loading a chunk costs no Vulkan allocation (drivers limit how
//! many there may be, and each one is slow). This is the bookkeeping alone — which ranges are
//! taken — kept apart from the buffer so it can be tested without a device.
//!
//! Free ranges are kept by offset and by size: allocation takes the smallest free range that
//! fits (best fit, lowest offset on a tie, so the layout is the same on every run), and a freed
//! range joins its free neighbours at once, so the arena is one free range again when every
//! allocation has been freed.

use std::collections::{BTreeMap, BTreeSet};

/// A range of the arena, in its units (bytes, or elements: the caller decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArenaRange {
    pub offset: u64,
    pub size: u64,
}

/// Why an arena could not give or take back a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ArenaError {
    #[error(
        "no free range of {size} in the arena ({free} free in all, {largest} at most in one piece)"
    )]
    Full { size: u64, free: u64, largest: u64 },
    #[error("a range of size 0 cannot be allocated")]
    Empty,
    #[error("alignment {0} is not a power of two")]
    Alignment(u64),
    #[error("the range {0:?} was not allocated from this arena")]
    NotAllocated(ArenaRange),
}

/// Which ranges of an arena of `capacity` units are taken.
#[derive(Debug, Clone)]
pub struct Arena {
    capacity: u64,
    /// Free ranges: offset → size, and (size, offset) for best fit.
    free_by_offset: BTreeMap<u64, u64>,
    free_by_size: BTreeSet<(u64, u64)>,
    /// Taken ranges: offset → size (the size given out, alignment padding included).
    taken: BTreeMap<u64, u64>,
    used: u64,
}

impl Arena {
    pub fn new(capacity: u64) -> Self {
        let mut arena = Self {
            capacity,
            free_by_offset: BTreeMap::new(),
            free_by_size: BTreeSet::new(),
            taken: BTreeMap::new(),
            used: 0,
        };
        if capacity > 0 {
            arena.add_free(0, capacity);
        }
        arena
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Units taken.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// How many ranges are taken.
    pub fn allocations(&self) -> usize {
        self.taken.len()
    }

    /// Nothing taken, and the whole arena one free range.
    pub fn is_empty(&self) -> bool {
        self.taken.is_empty() && self.free_by_offset.get(&0) == Some(&self.capacity)
    }

    /// The largest free range.
    pub fn largest_free(&self) -> u64 {
        self.free_by_size.last().map_or(0, |&(size, _)| size)
    }

    /// A free range of `size` units whose offset is a multiple of `alignment`.
    pub fn allocate(&mut self, size: u64, alignment: u64) -> Result<ArenaRange, ArenaError> {
        if size == 0 {
            return Err(ArenaError::Empty);
        }
        if !alignment.is_power_of_two() {
            return Err(ArenaError::Alignment(alignment));
        }
        // The smallest free range that holds the size after aligning its start.
        let found = self
            .free_by_size
            .range((size, 0)..)
            .find(|&&(free_size, offset)| {
                let start = offset.next_multiple_of(alignment);
                start - offset + size <= free_size
            })
            .copied();
        let Some((free_size, offset)) = found else {
            return Err(ArenaError::Full {
                size,
                free: self.capacity - self.used,
                largest: self.largest_free(),
            });
        };
        self.remove_free(offset, free_size);
        let start = offset.next_multiple_of(alignment);
        if start > offset {
            // The padding before the aligned start stays free.
            self.add_free(offset, start - offset);
        }
        let end = start + size;
        if end < offset + free_size {
            self.add_free(end, offset + free_size - end);
        }
        self.taken.insert(start, size);
        self.used += size;
        Ok(ArenaRange {
            offset: start,
            size,
        })
    }

    /// Gives a range back; it joins the free ranges beside it.
    pub fn free(&mut self, range: ArenaRange) -> Result<(), ArenaError> {
        if self.taken.get(&range.offset) != Some(&range.size) {
            return Err(ArenaError::NotAllocated(range));
        }
        self.taken.remove(&range.offset);
        self.used -= range.size;
        let mut start = range.offset;
        let mut end = range.offset + range.size;
        if let Some((&before, &before_size)) = self.free_by_offset.range(..start).next_back() {
            if before + before_size == start {
                self.remove_free(before, before_size);
                start = before;
            }
        }
        if let Some(&after_size) = self.free_by_offset.get(&end) {
            self.remove_free(end, after_size);
            end += after_size;
        }
        self.add_free(start, end - start);
        Ok(())
    }

    fn add_free(&mut self, offset: u64, size: u64) {
        self.free_by_offset.insert(offset, size);
        self.free_by_size.insert((size, offset));
    }

    fn remove_free(&mut self, offset: u64, size: u64) {
        self.free_by_offset.remove(&offset);
        self.free_by_size.remove(&(size, offset));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loading_and_unloading_a_thousand_chunks_leaves_the_arena_empty() {
        let mut arena = Arena::new(256 << 20);
        let mut random = 0x1234_5678_9abc_def1u64;
        let mut next = move || {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            random
        };
        let mut live: Vec<ArenaRange> = Vec::new();
        for _ in 0..1000 {
            // Chunks of very different sizes, some unloaded (or remeshed) on the way.
            let size = 256 + next() % 200_000;
            let range = arena.allocate(size, 16).unwrap();
            assert_eq!(range.offset % 16, 0);
            live.push(range);
            if next() % 3 == 0 {
                let gone = live.swap_remove((next() % live.len() as u64) as usize);
                arena.free(gone).unwrap();
            }
        }
        // No two live ranges overlap.
        let mut sorted = live.clone();
        sorted.sort();
        assert!(sorted
            .windows(2)
            .all(|w| w[0].offset + w[0].size <= w[1].offset));
        assert_eq!(arena.used(), live.iter().map(|r| r.size).sum::<u64>());
        for range in live {
            arena.free(range).unwrap();
        }
        assert!(arena.is_empty(), "one free range again");
        assert_eq!(arena.used(), 0);
        assert_eq!(arena.largest_free(), 256 << 20);
    }

    #[test]
    fn best_fit_reuses_holes_and_full_is_an_error() {
        let mut arena = Arena::new(1000);
        let a = arena.allocate(100, 1).unwrap();
        let b = arena.allocate(300, 1).unwrap();
        let c = arena.allocate(100, 1).unwrap();
        arena.free(b).unwrap();
        // A 300 hole and a 500 tail: 250 goes into the hole.
        let d = arena.allocate(250, 1).unwrap();
        assert_eq!(d.offset, 100);
        let error = arena.allocate(600, 1).unwrap_err();
        assert_eq!(
            error,
            ArenaError::Full {
                size: 600,
                free: 550,
                largest: 500
            }
        );
        assert_eq!(arena.allocate(0, 1), Err(ArenaError::Empty));
        assert_eq!(arena.allocate(10, 3), Err(ArenaError::Alignment(3)));
        assert_eq!(
            arena.free(b),
            Err(ArenaError::NotAllocated(b)),
            "freed twice"
        );
        for range in [a, c, d] {
            arena.free(range).unwrap();
        }
        assert!(arena.is_empty());
    }
}
