//! Saved worlds: everything needed to carry on exactly where a world was, in one file
//! (docs/saves.md).
//!
//! A [`WorldSave`] holds the ground (its seed or its plane), the ground's edits, every block
//! (cell, size, material, cuts, slope) with the block store's ids, every piece's blocks and its
//! body's state (position, orientation, velocity, spin, resting and its clocks, in the
//! physics' own order), the player (feet, velocity, mode, view), the tools, what is held, and
//! the clock. Loading it and stepping gives the same bits as never having saved: the physics is
//! a function of that state alone (`blockfall_physics::PhysicsState`).
//!
//! - `file`: the bytes on disk (header, checksum, LZ4), the limited read and the atomic write.
//! - `columns`: the blocks of the world, column by column, for a small file.
//! - [`World::save`](crate::world::World::save) and
//!   [`World::from_save`](crate::world::World::from_save) turn a world into a save and back.
//!
//! ```text
//!   World ──save(clock, held)──▶ WorldSave ──encode──▶ bytes ──write_atomic──▶ file
//!   file ──read_limited──▶ bytes ──decode──▶ WorldSave ──World::from_save──▶ World
//! ```

mod columns;
mod file;

use std::path::{Path, PathBuf};

use blockfall_physics::bounded::{self, Budget};
use blockfall_physics::{
    BodyHandle, ContactImpulse, ContactImpulses, KeptManifold, KeptManifolds, PhysicsState,
};
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::blocks::store::Block;
use crate::limits::{EditedBricks, MOST_PIECES, MOST_PIECE_BLOCKS};
use crate::player::Controls;
use crate::terrain::{EditedBrick, GroundKind};

pub use columns::BlockColumns;
pub use file::{read_limited, write_atomic, FORMAT_VERSION, LARGEST, MAGIC};

/// The latest clock a save may hold, in seconds of play: a century. The window's clock would
/// take a hundred years of play to pass it; a clock beyond it (or negative, or not finite) is
/// a damaged or made-up file, and is refused ([`WorldSave::check`]).
pub const LONGEST_CLOCK: f64 = 100.0 * 365.25 * 24.0 * 3600.0;

/// The extension of save files.
pub const EXTENSION: &str = "blockfall";

/// Why a save could not be read, written or used. A refused load changes nothing.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("not a blockfall save (it does not begin with the save's magic bytes)")]
    NotASave,
    #[error(
        "made by a newer blockfall: its format is version {version}, this blockfall reads up \
         to version {FORMAT_VERSION}"
    )]
    Newer { version: u32 },
    #[error("the file was cut short: {length} bytes are not even a whole header")]
    Truncated { length: u64 },
    #[error("the save is damaged: {0}")]
    Damaged(String),
    #[error("the save does not hold together: {0}")]
    Inconsistent(String),
    #[error("the save asks for more than a world may hold: {0} (docs/saves.md, \"Limits\")")]
    TooMuch(String),
    #[error("{path}: larger than the {LARGEST} bytes a save may be", path = path.display())]
    TooLarge { path: PathBuf },
    #[error("{path}: {source}", path = path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The player as saved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SavedPlayer {
    pub feet: [f32; 3],
    pub velocity: [f32; 3],
    pub grounded: bool,
    pub flying: bool,
    /// Whether the player takes part (a scene without one has none).
    pub embodied: bool,
    /// Radians about the vertical (0 faces +z) and above the horizon.
    pub yaw: f32,
    pub pitch: f32,
}

/// The tools as saved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SavedTool {
    /// The terrain tool is in hand (else the block tool).
    pub terrain: bool,
    pub material: u8,
    pub size: u8,
    pub radius: f32,
    /// Seconds until a held button acts again.
    pub wait: f32,
}

/// What was held down when the world was saved: a scene carries on with it; the window, whose
/// keys are the player's own, leaves it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedInput {
    pub controls: Controls,
    /// The tool's button: primary (break, dig) or not, and whether it just went down.
    pub tool: Option<(bool, bool)>,
    /// It went up again before a frame saw it go down (it acts once more, then is let go).
    pub tool_released: bool,
}

/// A piece: its body's handle (the trace's `id` is its index) and its blocks, in their places
/// in the grid (the piece's own frame).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPiece {
    pub handle: BodyHandle,
    pub blocks: Vec<Block>,
}

/// A whole world as data: see the [module documentation](self).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorldSave {
    /// Seconds of play when it was saved: a scene's clock carries on from it.
    pub clock: f64,
    pub ground: GroundKind,
    /// The ground's edited bricks, by coordinate.
    #[serde(deserialize_with = "bounded::vec::<_, _, EditedBricks>")]
    pub edits: Vec<EditedBrick>,
    pub blocks: BlockColumns,
    #[serde(deserialize_with = "pieces")]
    pub pieces: Vec<SavedPiece>,
    pub physics: PhysicsState,
    pub player: SavedPlayer,
    pub tool: SavedTool,
    pub held: SavedInput,
}

impl WorldSave {
    /// The file's bytes: header, checksum, compressed body. The same save gives the same bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = postcard::to_stdvec(self).expect("a world save always serialises");
        let contacts =
            postcard::to_stdvec(&self.physics.contacts).expect("contact pushes always serialise");
        body.extend_from_slice(&contacts);
        let manifolds =
            postcard::to_stdvec(&self.physics.manifolds).expect("kept manifolds always serialise");
        body.extend_from_slice(&manifolds);
        file::wrap(&body)
    }

    /// A save from a file's bytes, refused with the first thing wrong with them: the file's
    /// own faults, then a state the game could not have left ([`WorldSave::check`]).
    pub fn decode(bytes: &[u8]) -> Result<WorldSave, SaveError> {
        let (version, body) = file::unwrap(bytes)?;
        bounded::clear_refusal();
        let refused = |what: &str, error: postcard::Error| match bounded::take_refusal() {
            Some(limit) => SaveError::TooMuch(limit),
            None => SaveError::Damaged(format!("its {what} do not decode: {error}")),
        };
        let (mut save, mut rest) = postcard::take_from_bytes::<WorldSave>(&body)
            .map_err(|error| refused("body's fields", error))?;
        if version >= file::CONTACTS_SINCE {
            let (contacts, after) = postcard::take_from_bytes::<Pushes>(rest)
                .map_err(|error| refused("contact pushes", error))?;
            save.physics.contacts = contacts.0;
            rest = after;
        }
        if version >= file::MANIFOLDS_SINCE {
            let (manifolds, after) = postcard::take_from_bytes::<Manifolds>(rest)
                .map_err(|error| refused("kept manifolds", error))?;
            save.physics.manifolds = manifolds.0;
            rest = after;
        }
        if !rest.is_empty() {
            return Err(SaveError::Damaged(format!(
                "{} bytes follow the world in its body",
                rest.len()
            )));
        }
        save.check()?;
        Ok(save)
    }

    /// Reads and decodes a save file.
    pub fn read(path: &Path) -> Result<WorldSave, SaveError> {
        Self::decode(&read_limited(path)?)
    }

    /// Encodes and writes a save file atomically ([`write_atomic`]); the bytes written. A save
    /// that fails [`WorldSave::check`] is one we would refuse to load: nothing is written, and
    /// the error names the first bad value.
    pub fn write(&self, path: &Path) -> Result<u64, SaveError> {
        self.check()?;
        let bytes = self.encode();
        write_atomic(path, &bytes)?;
        Ok(bytes.len() as u64)
    }
}

/// The contact pushes after a save's body, at most [`ContactImpulses`]' limit.
#[derive(Deserialize)]
struct Pushes(
    #[serde(deserialize_with = "bounded::vec::<_, _, ContactImpulses>")] Vec<ContactImpulse>,
);

/// The kept manifolds after the pushes, at most [`KeptManifolds`]' limit.
#[derive(Deserialize)]
struct Manifolds(
    #[serde(deserialize_with = "bounded::vec::<_, _, KeptManifolds>")] Vec<KeptManifold>,
);

/// The pieces of a save: at most [`MOST_PIECES`], their blocks at most [`MOST_PIECE_BLOCKS`]
/// in all, each list refused as it is read when it would pass them.
fn pieces<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<SavedPiece>, D::Error> {
    deserializer.deserialize_seq(PiecesVisitor)
}

struct PiecesVisitor;

impl<'de> Visitor<'de> for PiecesVisitor {
    type Value = Vec<SavedPiece>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(formatter, "a list of at most {MOST_PIECES} pieces")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<SavedPiece>, A::Error> {
        let too_many = |count: usize| {
            let message = bounded::over_limit(count, "pieces", MOST_PIECES);
            bounded::keep_refusal(&message);
            de::Error::custom(message)
        };
        let claimed = seq.size_hint().unwrap_or(0);
        if claimed > MOST_PIECES {
            return Err(too_many(claimed));
        }
        let budget = Budget::new(MOST_PIECE_BLOCKS, "blocks in pieces");
        let mut pieces = Vec::with_capacity(claimed.min(1024));
        while let Some(piece) = seq.next_element_seed(PieceSeed { budget: &budget })? {
            if pieces.len() == MOST_PIECES {
                return Err(too_many(pieces.len() + 1));
            }
            pieces.push(piece);
        }
        Ok(pieces)
    }
}

/// One piece, its blocks spending the pieces' budget.
struct PieceSeed<'a> {
    budget: &'a Budget,
}

impl<'de> DeserializeSeed<'de> for PieceSeed<'_> {
    type Value = SavedPiece;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<SavedPiece, D::Error> {
        deserializer.deserialize_struct("SavedPiece", &["handle", "blocks"], self)
    }
}

impl<'de> Visitor<'de> for PieceSeed<'_> {
    type Value = SavedPiece;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a piece: its handle and its blocks")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SavedPiece, A::Error> {
        let missing = || de::Error::custom("a piece without its handle or its blocks");
        let handle = seq.next_element()?.ok_or_else(missing)?;
        let blocks = seq
            .next_element_seed(bounded::vec_within(
                MOST_PIECE_BLOCKS,
                "blocks in one piece",
                self.budget,
            ))?
            .ok_or_else(missing)?;
        Ok(SavedPiece { handle, blocks })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use blockfall_physics::workers::WorkerPool;

    use super::*;
    use crate::blocks::Block;
    use crate::input::Input;
    use crate::terrain::PlaneGround;
    use crate::world::World;

    /// Flat ground and two blocks.
    fn small_world() -> World {
        let pool = WorkerPool::new(1).expect("a thread");
        let mut world = World::on(Arc::new(PlaneGround::flat(0.0)), 2, pool);
        for y in [0, 2] {
            let block = Block::new(0, y, 0, 2, 0, 0, false).expect("a block");
            world.add_block(block).expect("room");
        }
        world
    }

    #[test]
    fn a_version_1_save_from_before_warm_starting_loads_with_no_contact_pushes() {
        let world = small_world();
        let save = world.save(0.0, &Input::default());
        // A version 1 body: the world alone, no contact pushes after it.
        let body = postcard::to_stdvec(&save).expect("serialises");
        let old = file::wrap_as(&body, 1);
        let loaded = WorldSave::decode(&old).expect("a version 1 save loads");
        assert!(loaded.physics.contacts.is_empty());
        assert_eq!(loaded.blocks, save.blocks);
        // The same body marked version 2 lacks its contact list: refused, saying so.
        let error = WorldSave::decode(&file::wrap_as(&body, 2)).expect_err("no contact list");
        assert!(error.to_string().contains("contact pushes"), "{error}");
    }

    #[test]
    fn a_version_2_save_from_before_kept_manifolds_loads_with_none() {
        let world = small_world();
        let save = world.save(0.0, &Input::default());
        // A version 2 body: the world and its contact pushes, no manifolds after them.
        let mut body = postcard::to_stdvec(&save).expect("serialises");
        body.extend(postcard::to_stdvec(&save.physics.contacts).expect("serialises"));
        let loaded = WorldSave::decode(&file::wrap_as(&body, 2)).expect("a version 2 save loads");
        assert!(loaded.physics.manifolds.is_empty());
        assert_eq!(loaded.physics.contacts, save.physics.contacts);
        // The same body marked version 3 lacks its manifolds: refused, saying so.
        let error = WorldSave::decode(&file::wrap_as(&body, 3)).expect_err("no manifold list");
        assert!(error.to_string().contains("kept manifolds"), "{error}");
    }
}
