//! The history of the edits, for undo (Ctrl+Z) and redo (Ctrl+Y or Ctrl+Shift+Z): every block
//! placed ([`World::place`]), broken ([`World::break_cell`], [`World::break_block`]) or reshaped
//! by the chisel ([`World::reshape`]), and every dig and build of the ground
//! ([`World::edit_sphere`]), whether the player's tools or a scene's events made it. The world's
//! set-up (`add_block`, `build_showcase`, `replace_blocks`, `add_piece`, `edit_ground`) is not an
//! edit and is not recorded.
//!
//! An entry is recorded where the edit happens, as it happens:
//!
//! ```text
//!   edit            Break / Place / Reshape / Ground: what redo does again, through the rules
//!   changes         every change the edit made to the grid, in order, from the store's events:
//!                   the block broken or placed and every block that then fell (Removed, with
//!                   the block as it was), a reshape with its cuts and slope before and after
//!   pieces          the pieces the edit set falling, kept up to date as they split on impact
//!                   (World::step) or a block is broken out of them (World::break_piece_block):
//!                   every piece descended from the edit
//!   ground          the box of samples a dig or build changed
//! ```
//!
//! Undo reverts the newest entry: its pieces still in the world leave it (their bodies too),
//! the blocks it added leave the grid, the blocks it removed go back to their own cells with
//! their material, size, cuts and slope, reshapes get their old cuts back, and a dig is built
//! back with the same sphere (or a build dug back). The edited ground keeps every edit as whole
//! multiples of a quantum per sample (`terrain::edits`), so the opposite edit takes off exactly
//! what the edit added: every sample of the box comes back bit for bit, whatever was edited
//! since, at the cost of the sphere alone rather than the box's samples. The support then
//! settles as after any edit. Redo does the entry's edit again through the same rules (the
//! block broken at its cell, so that what it held falls again) and records a fresh entry for
//! it.
//!
//! What undo does not bring back: where rubble that an edit woke came to rest again, and
//! blocks broken out of rubble ([`World::break_piece_block`] is not recorded: a piece's pose
//! and motion are the physics', and a block broken out of one cannot be set back into it).
//! A loaded world is a new [`World`] and starts with no history.

use std::collections::VecDeque;

use blockfall_physics::BodyHandle;

use crate::blocks::store::{Block, StoreEvent, CELL};
use crate::terrain::SampleBox;

use super::World;

/// The most entries the history keeps, undone ones included: the oldest goes first.
pub const MOST_HISTORY_ENTRIES: usize = 256;

/// The most bytes the history's entries may take, by [`Entry::bytes`]: past it the oldest
/// entries go, down to the newest one, so that a few edits that dropped whole buildings do not
/// keep tens of megabytes alive.
pub const MOST_HISTORY_BYTES: usize = 64 << 20;

/// An edit as it was asked for, for redo to ask for it again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Edit {
    /// The block filling `cell` broken (its lowest cell).
    Break { cell: [i32; 3] },
    /// `block` placed.
    Place { block: Block },
    /// The block whose lowest cell is `cell` given these cuts and slope.
    Reshape {
        cell: [i32; 3],
        cuts: u16,
        slope: bool,
    },
    /// A sphere of `radius` meters around `centre` dug (`dig`) or built.
    Ground {
        dig: bool,
        centre: [f32; 3],
        radius: f32,
    },
}

/// One change an edit made to the blocks on the grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    /// A block went onto the grid.
    Added(Block),
    /// A block left the grid (broken, or fallen as part of a piece): the block as it was.
    Removed(Block),
    /// A block's cuts or slope changed.
    Reshaped { before: Block, after: Block },
}

/// What one edit did, to undo it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The edit, for redo.
    pub edit: Edit,
    /// Its changes to the grid, in the order they happened.
    pub changes: Vec<Change>,
    /// The pieces it set falling, and the pieces they split into since.
    pub pieces: Vec<BodyHandle>,
    /// The samples a dig or build changed.
    pub ground: Option<SampleBox>,
}

impl Entry {
    fn new(edit: Edit) -> Self {
        Self {
            edit,
            changes: Vec::new(),
            pieces: Vec::new(),
            ground: None,
        }
    }

    /// Whether the edit changed anything.
    pub fn changed(&self) -> bool {
        !self.changes.is_empty() || !self.pieces.is_empty() || self.ground.is_some()
    }

    /// About how many bytes the entry takes: itself and its lists' room on the heap.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Entry>()
            + self.changes.capacity() * std::mem::size_of::<Change>()
            + self.pieces.capacity() * std::mem::size_of::<BodyHandle>()
    }
}

/// The entries to undo and to redo, and the one being recorded.
#[derive(Debug, Default)]
pub struct History {
    /// Oldest first; undo takes from the back.
    undo: VecDeque<Entry>,
    /// Redo takes from the back: the entry undone last.
    redo: Vec<Entry>,
    /// The edit under way, recording its changes.
    open: Option<Entry>,
    /// Whether the edit under way is a redo (which keeps the entries left to redo).
    redoing: bool,
    /// How many entries were recorded since the world was made.
    recorded: u64,
}

impl History {
    /// How many edits there are to undo.
    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    /// How many undone edits there are to redo.
    pub fn redo_depth(&self) -> usize {
        self.redo.len()
    }

    /// The entries to undo, the newest (the next undone) first.
    pub fn to_undo(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.undo.iter().rev()
    }

    /// The entries to redo, the one undone last (the next redone) first.
    pub fn to_redo(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.redo.iter().rev()
    }

    /// About how many bytes the kept entries take, to undo and to redo ([`Entry::bytes`]).
    pub fn bytes(&self) -> usize {
        self.undo.iter().chain(&self.redo).map(Entry::bytes).sum()
    }

    /// Starts recording `edit`; false (and nothing started) while another edit is recording,
    /// whose entry then holds what this one changes.
    fn begin(&mut self, edit: Edit) -> bool {
        if self.open.is_some() {
            return false;
        }
        self.open = Some(Entry::new(edit));
        true
    }

    /// Ends the edit under way: one that changed anything becomes the newest entry to undo,
    /// and, unless it is a redo, there is nothing left to redo.
    fn end(&mut self) {
        let Some(mut entry) = self.open.take() else {
            return;
        };
        if !entry.changed() {
            return;
        }
        if !self.redoing {
            self.redo.clear();
        }
        entry.changes.shrink_to_fit();
        entry.pieces.shrink_to_fit();
        self.undo.push_back(entry);
        self.recorded += 1;
        let mut bytes = self.bytes();
        while self.undo.len() > 1
            && (self.undo.len() + self.redo.len() > MOST_HISTORY_ENTRIES
                || bytes > MOST_HISTORY_BYTES)
        {
            if let Some(oldest) = self.undo.pop_front() {
                bytes -= oldest.bytes();
            }
        }
    }

    /// The store's events, as the edit under way changed the grid (reshapes are recorded by
    /// [`History::reshaped`], which knows the cuts before).
    fn record(&mut self, events: &[StoreEvent]) {
        let Some(entry) = &mut self.open else {
            return;
        };
        entry
            .changes
            .extend(events.iter().filter_map(|event| match *event {
                StoreEvent::Added(_, block) => Some(Change::Added(block)),
                StoreEvent::Removed(_, block) => Some(Change::Removed(block)),
                StoreEvent::Reshaped(..) => None,
            }));
    }

    /// The edit under way reshaped `before` into `after`.
    fn reshaped(&mut self, before: Block, after: Block) {
        if let Some(entry) = &mut self.open {
            if before != after {
                entry.changes.push(Change::Reshaped { before, after });
            }
        }
    }

    /// The edit under way set piece `handle` falling.
    fn piece_made(&mut self, handle: BodyHandle) {
        if let Some(entry) = &mut self.open {
            entry.pieces.push(handle);
        }
    }

    /// The edit under way changed the ground's samples in `changed`.
    fn ground_changed(&mut self, changed: SampleBox) {
        if let Some(entry) = &mut self.open {
            entry.ground = Some(match entry.ground {
                Some(noted) => noted.union(&changed),
                None => changed,
            });
        }
    }

    /// Piece `piece` is gone, split into `into`: an entry that set it falling (the edit under
    /// way included) now holds the pieces it split into.
    fn piece_split(&mut self, piece: BodyHandle, into: &[BodyHandle]) {
        let entries = self.undo.iter_mut().rev().chain(self.open.as_mut());
        for entry in entries {
            if let Some(at) = entry.pieces.iter().position(|&held| held == piece) {
                entry.pieces.swap_remove(at);
                entry.pieces.extend_from_slice(into);
                // Two entries never hold one piece: each piece is made once.
                break;
            }
        }
    }

    /// The newest entry to undo, taken from the history.
    fn take_undo(&mut self) -> Option<Entry> {
        self.undo.pop_back()
    }

    /// An entry undone, kept to redo.
    fn push_redo(&mut self, entry: Entry) {
        self.redo.push(entry);
    }

    /// The entry undone last, taken from the history.
    fn take_redo(&mut self) -> Option<Entry> {
        self.redo.pop()
    }
}

impl World {
    /// How many edits there are to undo (at most [`MOST_HISTORY_ENTRIES`]).
    pub fn undo_depth(&self) -> usize {
        self.history.undo_depth()
    }

    /// How many undone edits there are to redo: those undone since the last new edit.
    pub fn redo_depth(&self) -> usize {
        self.history.redo_depth()
    }

    /// The edits' history: its depths and what it holds in memory.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Ctrl+Z: reverts the newest edit (docs/player.md, "Undo and redo"): its pieces
    /// still in the world leave it, the blocks it placed leave the grid, the blocks it broke or
    /// set falling go back to their own cells as they were, a reshaped block gets its old cuts
    /// and slope, dug or built ground its old samples; the support then settles, and the edit
    /// can be redone. Returns false, changing nothing, when there is nothing to undo.
    pub fn undo(&mut self) -> bool {
        let Some(entry) = self.history.take_undo() else {
            return false;
        };
        self.revert(&entry);
        self.history.push_redo(entry);
        true
    }

    /// Ctrl+Y or Ctrl+Shift+Z: does the edit undone last again through the same rules (a
    /// break at its cell, so that what the block held falls again; the same block placed; the
    /// same cuts; the same sphere dug or built), recorded as a fresh edit to undo. Returns
    /// false when there is nothing to redo, or when the world refuses the edit now (a block
    /// or the player in the way): then it stays to redo.
    pub fn redo(&mut self) -> bool {
        let Some(entry) = self.history.take_redo() else {
            return false;
        };
        let recorded = self.history.recorded;
        self.history.redoing = true;
        match entry.edit {
            Edit::Break { cell } => {
                self.break_cell(cell);
            }
            Edit::Place { block } => {
                // A refusal records nothing, and the entry stays to redo.
                let _refused = self.place(block);
            }
            Edit::Reshape { cell, cuts, slope } => {
                if let Some(id) = self.blocks.at(cell[0], cell[1], cell[2]) {
                    self.reshape(id, cuts, slope);
                }
            }
            Edit::Ground {
                dig,
                centre,
                radius,
            } => {
                if let Err(error) = self.edit_at(dig, centre, radius) {
                    log::warn!("redoing a dig or build: {error}");
                }
            }
        }
        self.history.redoing = false;
        let done = self.history.recorded != recorded;
        if !done {
            self.history.push_redo(entry);
        }
        done
    }

    /// Starts recording `edit` for undo; false while another edit records (see
    /// [`World::end_edit`]).
    pub(super) fn begin_edit(&mut self, edit: Edit) -> bool {
        self.history.begin(edit)
    }

    /// Ends the edit that `begin_edit` started (`begun`): kept to undo if it changed anything.
    pub(super) fn end_edit(&mut self, begun: bool) {
        if begun {
            self.history.end();
        }
    }

    /// Records the store's `events` in the edit under way, if any.
    pub(super) fn record_events(&mut self, events: &[StoreEvent]) {
        self.history.record(events);
    }

    /// Records a reshape in the edit under way, if any.
    pub(super) fn record_reshape(&mut self, before: Block, after: Block) {
        self.history.reshaped(before, after);
    }

    /// Records a piece set falling by the edit under way, if any.
    pub(super) fn record_piece(&mut self, handle: BodyHandle) {
        self.history.piece_made(handle);
    }

    /// Records ground changed by the edit under way, if any.
    pub(super) fn record_ground(&mut self, changed: SampleBox) {
        self.history.ground_changed(changed);
    }

    /// The history hears of the pieces that split in the last step ([`World::splits`]).
    pub(super) fn record_splits(&mut self) {
        for split in &self.splits {
            self.history.piece_split(split.piece, &split.into);
        }
    }

    /// The history hears that `piece` was replaced by the pieces `into`.
    pub(super) fn record_split(&mut self, piece: BodyHandle, into: &[BodyHandle]) {
        self.history.piece_split(piece, into);
    }

    /// Undoes `entry`'s changes (see [`World::undo`]), then lets the support settle.
    fn revert(&mut self, entry: &Entry) {
        for &handle in &entry.pieces {
            if let Some((low, high)) = self.pieces.remove(handle) {
                // What lay on it wakes, and the blocks it held are searched again.
                self.support.solid_changed(&self.blocks, low, high);
                for (_, low, high) in self.pieces.wake_in(low, high) {
                    self.support.solid_changed(&self.blocks, low, high);
                }
            }
        }
        // The box of the blocks put back, to wake the rubble that came to lie there since.
        let mut put_back: Option<([f32; 3], [f32; 3])> = None;
        for change in entry.changes.iter().rev() {
            match *change {
                Change::Added(block) => {
                    let [x, y, z] = block.low();
                    let placed = self.blocks.at(x, y, z).filter(|&id| {
                        self.blocks
                            .get(id)
                            .is_some_and(|b| b.low() == block.low() && b.size == block.size)
                    });
                    if let Some(id) = placed {
                        self.blocks.remove(id);
                    }
                }
                Change::Removed(block) => match self.blocks.add(block) {
                    Ok(_) => {
                        let meters = f32::from(block.size) * CELL;
                        let low = block.low().map(|c| c as f32 * CELL);
                        let high = low.map(|c| c + meters);
                        put_back = Some(match put_back {
                            Some((l, h)) => (
                                std::array::from_fn(|a| low[a].min(l[a])),
                                std::array::from_fn(|a| high[a].max(h[a])),
                            ),
                            None => (low, high),
                        });
                    }
                    Err(error) => log::warn!("undo could not put a block back: {error}"),
                },
                Change::Reshaped { before, .. } => {
                    let [x, y, z] = before.low();
                    if let Some(id) = self.blocks.at(x, y, z) {
                        if let Err(error) = self.blocks.reshape(id, before.cuts, before.slope) {
                            log::warn!("undo could not reshape a block back: {error}");
                        }
                    }
                }
            }
        }
        if let Some((low, high)) = put_back {
            // Rubble reaching into a block put back wakes, for the physics to push it out.
            for (_, low, high) in self.pieces.wake_in(low, high) {
                self.support.solid_changed(&self.blocks, low, high);
            }
        }
        if let (
            Edit::Ground {
                dig,
                centre,
                radius,
            },
            Some(_),
        ) = (entry.edit, entry.ground)
        {
            // The opposite edit with the same sphere takes off exactly what the edit added.
            let back = if dig {
                self.field.build(centre, radius)
            } else {
                self.field.dig(centre, radius)
            };
            match back {
                Ok(Some(changed)) => self.ground_edited(changed),
                Ok(None) => {}
                Err(error) => log::warn!("undo could not put the ground back: {error}"),
            }
        }
        self.settle();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(cuts: u16) -> Block {
        Block::new(0, 0, 0, 2, 0, cuts, false).unwrap()
    }

    /// Records an edit that reshaped a block `changes` times.
    fn reshape(history: &mut History, changes: usize) {
        assert!(history.begin(Edit::Reshape {
            cell: [0, 0, 0],
            cuts: 1,
            slope: false,
        }));
        for _ in 0..changes {
            history.reshaped(block(0), block(1));
        }
        history.end();
    }

    #[test]
    fn the_history_keeps_the_newest_entries_and_drops_the_oldest_past_its_count() {
        let mut history = History::default();
        for _ in 0..MOST_HISTORY_ENTRIES + 44 {
            reshape(&mut history, 1);
        }
        assert_eq!(history.undo_depth(), MOST_HISTORY_ENTRIES);
        // Undone entries count too: with ten to redo, a redo keeps the count.
        for _ in 0..10 {
            let entry = history.take_undo().unwrap();
            history.push_redo(entry);
        }
        history.redoing = true;
        reshape(&mut history, 1);
        history.redoing = false;
        assert_eq!(
            (history.undo_depth(), history.redo_depth()),
            (MOST_HISTORY_ENTRIES - 10, 10)
        );
        // A new edit leaves nothing to redo.
        reshape(&mut history, 1);
        assert_eq!(
            (history.undo_depth(), history.redo_depth()),
            (MOST_HISTORY_ENTRIES - 9, 0)
        );
    }

    #[test]
    fn the_oldest_entries_go_while_the_history_holds_more_than_its_bytes() {
        let mut history = History::default();
        let per_entry = MOST_HISTORY_BYTES / 3 / std::mem::size_of::<Change>();
        reshape(&mut history, 5);
        for _ in 0..3 {
            reshape(&mut history, per_entry);
        }
        assert_eq!(history.undo_depth(), 2, "the small one and a big one went");
        assert!(history.bytes() <= MOST_HISTORY_BYTES);
        // One entry larger than the bound alone is still kept: the newest always is.
        reshape(
            &mut history,
            MOST_HISTORY_BYTES / std::mem::size_of::<Change>() + 1,
        );
        assert_eq!(history.undo_depth(), 1);
        assert!(history.bytes() > MOST_HISTORY_BYTES);
    }

    #[test]
    fn an_edit_that_changes_nothing_is_not_kept_and_edits_within_an_edit_are_one() {
        let mut history = History::default();
        reshape(&mut history, 0);
        assert_eq!(history.undo_depth(), 0);
        assert!(history.begin(Edit::Break { cell: [0, 0, 0] }));
        assert!(!history.begin(Edit::Place { block: block(0) }));
        history.reshaped(block(0), block(0));
        history.ground_changed(SampleBox {
            low: [0; 3],
            high: [1; 3],
        });
        history.ground_changed(SampleBox {
            low: [-2; 3],
            high: [0; 3],
        });
        history.end();
        let entry = history.take_undo().unwrap();
        assert_eq!(entry.edit, Edit::Break { cell: [0, 0, 0] });
        assert!(entry.changes.is_empty(), "a reshape to the same cuts");
        assert_eq!(
            entry.ground,
            Some(SampleBox {
                low: [-2; 3],
                high: [1; 3]
            })
        );
    }
}
