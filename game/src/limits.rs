//! What a world may hold, and so what a save, a scene or a script may ask for (docs/saves.md,
//! "Limits"). Each limit is derived from what the game itself makes and what one process can
//! hold: the game refuses to grow a world past them as it plays (a block not placed, a dig not
//! made, a group that cannot fall as a piece crumbles with a report), so every save it writes
//! is one it reads back, and the loader refuses anything past them before allocating it, with
//! the field, its value and the limit. At the limits a world loads and runs in well under 1 GiB.

use blockfall_physics::most;

/// Blocks standing in the world, and slots of its block store (a slot is made only when no
/// free one is left, so the slots never outnumber the most blocks there ever were). The
/// support benchmark's generated city is a million blocks, 240 MiB in `sim`; a solid cube of
/// twice that many 0.5 m blocks is some 330 MiB. How far apart they may lie is
/// [`MOST_BLOCK_BRICKS`].
pub const MOST_BLOCKS: usize = 1 << 21;

/// Bricks of 8³ cells (4 m a side) of the block store's grid holding a block's cell: what the
/// grid's memory follows (`blocks::cell_grid`), about 100 bytes a brick and 4 a filled cell, so
/// at most some 280 MiB with every brick full. Without it a few blocks a brick apart would
/// cost far more than a block's share: a 4-cell block across the corner of eight bricks fills
/// eight. The support benchmark's city of a million blocks fills 46,104 bricks, a third of
/// this; a solid cube of 2 m blocks stops here at about a million blocks (some 450 MiB in
/// `sim`, the most any layout of blocks reaches within the limits).
pub const MOST_BLOCK_BRICKS: usize = 1 << 17;

/// Pieces (loose groups falling or lying as rubble) at once: forty times the heap of the
/// physics benchmark (400 pieces), four times its capacity test (4,000 awake pieces).
pub const MOST_PIECES: usize = blockfall_physics::MOST_BODIES;

/// Blocks in all the pieces together: a piece keeps its blocks' mesh, contact points and
/// joints, some 2–6 KiB a block, so this is at most about 400 MiB. A break that would drop
/// more than this crumbles the excess to dust with a report instead.
pub const MOST_PIECE_BLOCKS: usize = 1 << 16;

/// Edited 16 m cells of the ground (8 bricks of 8³ samples each). A dig of the tool's largest
/// radius (8 m) touches up to 8 cells and a scene's largest (64 m) about 700; 16,384 cells is
/// a region 400 m on a side dug through, some 250 km of tunnel, or 1,000 digs of 8–64 m spread
/// over a square kilometre. A cell is 2–3 KiB (at most 8 KiB baked, 128 MiB at the limit); a
/// save writes each brick's 512 offsets, 4 KiB each as it is written and read (at most 512
/// MiB, briefly).
pub const MOST_EDITED_CELLS: usize = 16_384;

/// Edited bricks in a save: eight to a cell.
pub const MOST_EDITED_BRICKS: usize = 8 * MOST_EDITED_CELLS;

most!(
    /// The block store's slots ([`MOST_BLOCKS`]).
    BlockSlots,
    MOST_BLOCKS,
    "block slots"
);
most!(
    /// The block store's free slots ([`MOST_BLOCKS`]).
    FreeBlockSlots,
    MOST_BLOCKS,
    "free block slots"
);
most!(
    /// The blocks' cells, per axis ([`MOST_BLOCKS`]).
    BlockCells,
    MOST_BLOCKS,
    "block cells"
);
most!(
    /// The ground's edited bricks ([`MOST_EDITED_BRICKS`]).
    EditedBricks,
    MOST_EDITED_BRICKS,
    "edited bricks of the ground"
);
most!(
    /// One edited brick's offsets: one per sample of its 8³.
    BrickOffsets,
    512,
    "offsets in one edited brick"
);
