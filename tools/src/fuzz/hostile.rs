//! Hostile inputs made on purpose, family by family: saves and scenes of a few hundred bytes
//! that ask for huge counts and spans (docs/saves.md, "Limits"), pieces piled into one place,
//! blocks at and past the world's edge. Each family is made at a size the caller picks, so the
//! same family is checked toward its limit, at it and far past it; the fuzzers draw sizes at
//! random ([`generate_save`], [`generate_scene`]) and the tools' tests run fixed ones through
//! `sim` under a memory watch.
//!
//! What every one of them must get: refused with a short message naming the field, its value
//! and the limit (exit status 2), or run within the memory the limits promise — never an abort.

use blockfall_game::blocks::store::Block;
use blockfall_game::input::Input;
use blockfall_game::save::{BlockColumns, SavedPiece, WorldSave};
use blockfall_game::scene;
use blockfall_game::terrain::EditedBrick;
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{BodyHandle, BodyState, ContactImpulse, ContactKey};

use super::Rng;

/// A save family: what it asks for grows with `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveFamily {
    /// `n` edited bricks of the ground, each far from the others (a region of its own).
    EditsScattered,
    /// `n` edited bricks side by side.
    EditsDense,
    /// `n` blocks in a row.
    Blocks,
    /// `n` blocks on the ground in a square, one in each brick of 8³ cells of the block
    /// store's grid: the sparsest layout that still shares no brick.
    BlocksSpread,
    /// `n` blocks on the ground in a square, one in each region of 64³ cells.
    BlocksApart,
    /// `n` blocks of 4 cells a side on the ground in a square, each across the corner of
    /// eight bricks, with no other block in them: the most bricks a block can fill.
    LargeBlocksAcross,
    /// `n` blocks of 4 cells a side on the ground, two in each brick and no other there: the
    /// most bricks held as whole arrays for the blocks.
    LargeBlocksPaired,
    /// `n` blocks of 2 cells a side on the ground, eight to a brick (a cube of 2 by 2 by 2
    /// filling a corner of it) and no other there: the most blocks held in lists.
    BlocksClustered,
    /// `n` blocks of 4 cells a side filling a cube that stands on the ground: every brick
    /// whole, and the most cells there can be.
    LargeBlocksSolid,
    /// `n` empty slots in the block store, all free.
    BlockSlots,
    /// One block whose slot's generation is `n` (a count of removals).
    BlockGeneration,
    /// `n` slots in the physics' handle table, all free.
    BodySlots,
    /// `n` one-block pieces, all in one place.
    PiecesPiled,
    /// One piece of `n` blocks.
    PieceBlocks,
    /// One piece of two blocks `n` cells apart.
    PieceSpan,
    /// `n` contact pushes for the bodies there are.
    ContactImpulses,
    /// A tower of three blocks whose foot lies `n` cells from the origin (past the world's
    /// edge when `n` is above 2^20).
    BlocksAt,
    /// A piece whose blocks lie `n` cells from the origin.
    PieceAt,
    /// An edited brick `n` bricks from the origin.
    EditAt,
}

impl SaveFamily {
    pub const ALL: [SaveFamily; 19] = [
        SaveFamily::EditsScattered,
        SaveFamily::EditsDense,
        SaveFamily::Blocks,
        SaveFamily::BlocksSpread,
        SaveFamily::BlocksApart,
        SaveFamily::LargeBlocksAcross,
        SaveFamily::LargeBlocksPaired,
        SaveFamily::BlocksClustered,
        SaveFamily::LargeBlocksSolid,
        SaveFamily::BlockSlots,
        SaveFamily::BlockGeneration,
        SaveFamily::BodySlots,
        SaveFamily::PiecesPiled,
        SaveFamily::PieceBlocks,
        SaveFamily::PieceSpan,
        SaveFamily::ContactImpulses,
        SaveFamily::BlocksAt,
        SaveFamily::PieceAt,
        SaveFamily::EditAt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SaveFamily::EditsScattered => "edits-scattered",
            SaveFamily::EditsDense => "edits-dense",
            SaveFamily::Blocks => "blocks",
            SaveFamily::BlocksSpread => "blocks-spread",
            SaveFamily::BlocksApart => "blocks-apart",
            SaveFamily::LargeBlocksAcross => "large-blocks-across",
            SaveFamily::LargeBlocksPaired => "large-blocks-paired",
            SaveFamily::BlocksClustered => "blocks-clustered",
            SaveFamily::LargeBlocksSolid => "large-blocks-solid",
            SaveFamily::BlockSlots => "block-slots",
            SaveFamily::BlockGeneration => "block-generation",
            SaveFamily::BodySlots => "body-slots",
            SaveFamily::PiecesPiled => "pieces-piled",
            SaveFamily::PieceBlocks => "piece-blocks",
            SaveFamily::PieceSpan => "piece-span",
            SaveFamily::ContactImpulses => "contact-pushes",
            SaveFamily::BlocksAt => "blocks-at",
            SaveFamily::PieceAt => "piece-at",
            SaveFamily::EditAt => "edit-at",
        }
    }

    /// The most elements a family makes, whatever `n` asks: enough to pass every limit, few
    /// enough to make here (a million one-block pieces are a few hundred MiB to build).
    pub fn most_made(self) -> u64 {
        match self {
            SaveFamily::EditsScattered | SaveFamily::EditsDense => 1 << 16,
            SaveFamily::PiecesPiled | SaveFamily::PieceBlocks => 1 << 20,
            SaveFamily::ContactImpulses
            | SaveFamily::BlocksSpread
            | SaveFamily::BlocksApart
            | SaveFamily::LargeBlocksAcross
            | SaveFamily::LargeBlocksPaired
            | SaveFamily::BlocksClustered
            | SaveFamily::LargeBlocksSolid => 1 << 22,
            _ => 1 << 23,
        }
    }

    /// The save file of this family at size `n` (the counts no more than [`Self::most_made`];
    /// the spans and places as asked).
    pub fn make(self, n: u64) -> Vec<u8> {
        let mut save = base_save();
        let count = usize::try_from(n.min(self.most_made())).unwrap_or(usize::MAX);
        match self {
            SaveFamily::EditsScattered | SaveFamily::EditsDense => {
                let step = if self == SaveFamily::EditsScattered {
                    1000
                } else {
                    1
                };
                save.edits = (0..count)
                    .map(|i| edited_brick([(i as i64 * step) as i32, 0, 0]))
                    .collect();
            }
            SaveFamily::EditAt => {
                let at = i32::try_from(n).unwrap_or(i32::MAX);
                save.edits = vec![edited_brick([at, 0, at])];
            }
            SaveFamily::Blocks => {
                let blocks = (0..count).map(|i| block_at([(2 * i) as i32, 0, 0]));
                save.blocks = columns(blocks, 0);
            }
            SaveFamily::BlocksSpread | SaveFamily::BlocksApart | SaveFamily::LargeBlocksAcross => {
                let (spacing, offset, size) = match self {
                    SaveFamily::BlocksSpread => (8, [0, 0, 0], 2),
                    SaveFamily::BlocksApart => (64, [0, 0, 0], 2),
                    _ => (16, [6, -2, 6], 4),
                };
                save.blocks = columns(square(count, spacing, offset, size), 0);
            }
            SaveFamily::LargeBlocksPaired => {
                // Each brick's pair: one at its corner, one 4 cells along x.
                let bricks = square(count.div_ceil(2), 8, [0, 0, 0], 4);
                let blocks = bricks.flat_map(|low| {
                    [
                        low,
                        Block {
                            x: low.x + 4,
                            ..low
                        },
                    ]
                });
                save.blocks = columns(blocks.take(count), 0);
            }
            SaveFamily::BlocksClustered => {
                let corners = square(count.div_ceil(8), 8, [0, 0, 0], 2);
                let blocks = corners.flat_map(|low| {
                    (0..8).map(move |i| Block {
                        x: low.x + 2 * (i & 1),
                        y: low.y + (i & 2),
                        z: low.z + (i & 4) / 2,
                        ..low
                    })
                });
                save.blocks = columns(blocks.take(count), 0);
            }
            SaveFamily::LargeBlocksSolid => {
                let side = (count as f64).cbrt().ceil().max(1.0) as usize;
                let at = |k: usize| 4 * k as i32;
                let blocks = (0..count).map(|i| Block {
                    size: 4,
                    ..block_at([at(i % side), at(i / side / side), at(i / side % side)])
                });
                save.blocks = columns(blocks, 0);
            }
            SaveFamily::BlockSlots => save.blocks = columns(std::iter::empty(), count),
            SaveFamily::BlockGeneration => {
                let mut blocks = columns([block_at([0, 0, 0])].into_iter(), 0);
                blocks.generations[0] = u32::try_from(n).unwrap_or(u32::MAX);
                save.blocks = blocks;
            }
            SaveFamily::BlocksAt => {
                let at = i32::try_from(n).unwrap_or(i32::MAX);
                let blocks = (0..3).map(|level| block_at([at, 2 * level, at]));
                save.blocks = columns(blocks, 0);
            }
            SaveFamily::BodySlots => {
                save.physics.generations = vec![0; count];
                save.physics.free = (0..count as u32).rev().collect();
            }
            SaveFamily::PiecesPiled => {
                pieces(&mut save, (0..count).map(|_| vec![block_at([0, 4, 0])]));
            }
            SaveFamily::PieceBlocks => {
                let blocks =
                    (0..count).map(|i| block_at([2 * (i % 64) as i32, 4, 2 * (i / 64) as i32]));
                pieces(&mut save, std::iter::once(blocks.collect()));
            }
            SaveFamily::PieceSpan => {
                let span = i32::try_from(n).unwrap_or(i32::MAX);
                pieces(
                    &mut save,
                    std::iter::once(vec![block_at([0, 4, 0]), block_at([span, 4, 0])]),
                );
            }
            SaveFamily::PieceAt => {
                let at = i32::try_from(n).unwrap_or(i32::MAX);
                pieces(&mut save, std::iter::once(vec![block_at([at, 4, at])]));
            }
            SaveFamily::ContactImpulses => {
                pieces(&mut save, std::iter::once(vec![block_at([0, 4, 0])]));
                let body = save.physics.bodies[0].handle;
                save.physics.contacts = (0..count)
                    .map(|i| ContactImpulse {
                        key: ContactKey {
                            body,
                            other: None,
                            point: i as u32,
                        },
                        normal: 0.0,
                        friction: [0.0; 3],
                    })
                    .collect();
            }
        }
        save.encode()
    }
}

/// A scene family: what it asks for grows with `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneFamily {
    /// `n` digs, each 100 km from the last.
    DigsScattered,
    /// `n` blocks in a row.
    Blocks,
    /// A size-4 block whose lowest cell is `n` (its cells reach `n + 3`).
    BlockAt,
    /// `n` place events at one moment.
    Places,
    /// `n` blocks at one place, then the foot of the tower broken: `n` pieces... in one pile.
    Tower,
}

impl SceneFamily {
    pub const ALL: [SceneFamily; 5] = [
        SceneFamily::DigsScattered,
        SceneFamily::Blocks,
        SceneFamily::BlockAt,
        SceneFamily::Places,
        SceneFamily::Tower,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SceneFamily::DigsScattered => "digs-scattered",
            SceneFamily::Blocks => "scene-blocks",
            SceneFamily::BlockAt => "block-at",
            SceneFamily::Places => "places",
            SceneFamily::Tower => "tower",
        }
    }

    /// The scene's JSON at size `n`.
    pub fn make(self, n: u64) -> String {
        let flat = r#""terrain": {"flat": {"height": 0}}, "duration": 0.05"#;
        match self {
            SceneFamily::DigsScattered => {
                let digs: Vec<String> = (0..n)
                    .map(|i| {
                        let x = (i as f64 * 100_000.0) % 1_000_000.0 - 500_000.0;
                        format!(
                            r#"{{"center": [{x}, 0, {}], "radius": 8}}"#,
                            (i / 10) as f64 * 1000.0
                        )
                    })
                    .collect();
                format!(r#"{{{flat}, "digs": [{}]}}"#, digs.join(","))
            }
            SceneFamily::Blocks => {
                let blocks: Vec<String> = (0..n)
                    .map(|i| {
                        format!(
                            r#"{{"cell": [{}, 0, {}], "material": "Stone"}}"#,
                            2 * (i % 1000),
                            2 * (i / 1000)
                        )
                    })
                    .collect();
                format!(r#"{{{flat}, "blocks": [{}]}}"#, blocks.join(","))
            }
            SceneFamily::BlockAt => format!(
                r#"{{{flat}, "blocks": [{{"cell": [{n}, 0, 0], "size": 4, "material": "Stone"}}]}}"#
            ),
            SceneFamily::Places => {
                let places: Vec<String> = (0..n)
                    .map(|i| {
                        format!(
                            r#"{{"t": 0, "place": {{"cell": [{}, 0, {}], "size": 1, "material": "Stone"}}}}"#,
                            i % 1000,
                            i / 1000
                        )
                    })
                    .collect();
                format!(r#"{{{flat}, "events": [{}]}}"#, places.join(","))
            }
            SceneFamily::Tower => {
                let blocks: Vec<String> = (0..n)
                    .map(|i| {
                        format!(
                            r#"{{"cell": [0, {}, 0], "size": 1, "material": "Plaster"}}"#,
                            i
                        )
                    })
                    .collect();
                format!(
                    r#"{{"terrain": {{"flat": {{"height": 0}}}}, "duration": 0.5, "blocks": [{}],
                        "events": [{{"t": 0, "break": [0, 0, 0]}}]}}"#,
                    blocks.join(",")
                )
            }
        }
    }
}

/// A save family at a random size: toward its limit, at it, past it, absurd. Counts stay
/// small enough for a fuzz case to make and check in well under its time limit (the tools'
/// tests run the large ones through `sim`); places and spans take any size.
pub fn generate_save(rng: &mut Rng) -> Vec<u8> {
    let family = *rng.pick(&SaveFamily::ALL);
    let most = match family {
        SaveFamily::PiecesPiled => 1 << 5,
        SaveFamily::EditsScattered | SaveFamily::EditsDense | SaveFamily::PieceBlocks => 1 << 10,
        SaveFamily::Blocks
        | SaveFamily::BlocksSpread
        | SaveFamily::BlocksApart
        | SaveFamily::LargeBlocksAcross
        | SaveFamily::LargeBlocksPaired
        | SaveFamily::BlocksClustered
        | SaveFamily::LargeBlocksSolid => 1 << 12,
        SaveFamily::BlockSlots | SaveFamily::BodySlots | SaveFamily::ContactImpulses => 1 << 15,
        _ => u64::MAX,
    };
    family.make(size(rng).min(most))
}

/// A scene family at a random size (counts at most 4,096, so that a case runs quickly).
pub fn generate_scene(rng: &mut Rng) -> Vec<u8> {
    let family = *rng.pick(&SceneFamily::ALL);
    let n = match family {
        SceneFamily::BlockAt => size(rng),
        _ => size(rng).min(4096),
    };
    family.make(n).into_bytes()
}

/// Sizes that matter: small, powers of two and their neighbours, the world's edge in cells.
fn size(rng: &mut Rng) -> u64 {
    let power = rng.below(32) as u32;
    let base = 1u64 << power;
    match rng.below(4) {
        0 => base - 1,
        1 => base + 1,
        2 => *rng.pick(&[
            (1 << 20) - 4,
            (1 << 20) - 3,
            1 << 20,
            (1 << 20) + 1,
            1 << 31,
        ]),
        _ => base,
    }
}

/// A small world saved: flat ground, nothing on it (made once).
fn base_save() -> WorldSave {
    static SAVE: std::sync::OnceLock<WorldSave> = std::sync::OnceLock::new();
    SAVE.get_or_init(|| {
        let text = r#"{"terrain": {"flat": {"height": 0}}, "duration": 0}"#;
        let scene = scene::parse(text).expect("a valid scene");
        let pool = WorkerPool::new(1).expect("one worker thread");
        let (world, _) = scene::world_of(&scene, pool, 1).expect("a flat world");
        world.save(0.0, &Input::default())
    })
    .clone()
}

fn block_at(cell: [i32; 3]) -> Block {
    Block {
        x: cell[0],
        y: cell[1],
        z: cell[2],
        size: 2,
        material: 0,
        cuts: 0,
        slope: false,
    }
}

fn edited_brick(brick: [i32; 3]) -> EditedBrick {
    EditedBrick {
        brick,
        offsets: vec![-4096; 512],
    }
}

/// `count` blocks of `size` cells in a square on the ground, `spacing` cells apart, from
/// `offset`.
fn square(count: usize, spacing: i64, offset: [i32; 3], size: u8) -> impl Iterator<Item = Block> {
    let side = (count as f64).sqrt().ceil().max(1.0) as usize;
    (0..count).map(move |i| {
        let at = |k: usize| (k as i64 * spacing).clamp(i32::MIN.into(), i32::MAX.into()) as i32;
        Block {
            size,
            ..block_at([
                offset[0].saturating_add(at(i % side)),
                offset[1],
                offset[2].saturating_add(at(i / side)),
            ])
        }
    })
}

/// Block columns of `blocks`, after `empty` empty free slots.
fn columns(blocks: impl Iterator<Item = Block>, empty: usize) -> BlockColumns {
    let mut columns = BlockColumns {
        generations: vec![0; empty],
        kinds: vec![0; empty],
        steps: Default::default(),
        free: (0..empty as u32).rev().collect(),
    };
    let mut previous = [0i32; 3];
    for block in blocks {
        columns.generations.push(0);
        let size_index = match block.size {
            1 => 0,
            2 => 1,
            _ => 2,
        };
        columns.kinds.push(1 + size_index);
        for (axis, low) in [block.x, block.y, block.z].into_iter().enumerate() {
            columns.steps[axis].push(low.wrapping_sub(previous[axis]));
            previous[axis] = low;
        }
    }
    columns
}

/// Pieces of `blocks`, each with a body at rest where its blocks are.
fn pieces(save: &mut WorldSave, blocks: impl Iterator<Item = Vec<Block>>) {
    for (index, blocks) in blocks.enumerate() {
        let handle: BodyHandle = serde_json::from_value(serde_json::json!({
            "index": index, "generation": 0
        }))
        .expect("a handle");
        let first = blocks.first().copied().unwrap_or(block_at([0, 0, 0]));
        let middle = [first.x, first.y, first.z].map(|c| f64::from(c) * 0.5 + 0.5);
        save.physics.generations.push(0);
        save.physics.bodies.push(BodyState {
            handle,
            position: middle,
            orientation: [0.0, 0.0, 0.0, 1.0],
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            sleeping: false,
            still: 0.0,
            age: 0.0,
            touching: 0,
        });
        save.pieces.push(SavedPiece { handle, blocks });
    }
}
