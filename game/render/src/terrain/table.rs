//! The chunk table: for each draw slot of a [`TerrainMeshes`], the chunk it holds — its padded
//! origin and spacing (an instance attribute of `terrain.vert`: binding 2, the draw's
//! `firstInstance` is the slot) and its vertex box (for the cull, `terrain_cull.comp`).
//!
//! One table per frame in flight, in host-visible memory the CPU writes: frame slot `i`'s table
//! is read only by frames recorded in slot `i`, whose last one has finished when the slot comes
//! round (`FrameRing::begin` waits for it), so no GPU barrier is needed (host writes are visible
//! to the submission that follows them). A table is brought up to date from the meshes' journal
//! of slot changes ([`TerrainMeshes::slot_changes_since`]): what a frame costs is as many
//! entries as chunks were placed or unloaded since that table's last frame, not the resident
//! count; a table too far behind (or new meshes) is written whole.

use std::sync::Arc;

use blockfall_engine::gpu::{
    self, Buffer, BufferDesc, GpuResult, MemoryLocation, FRAMES_IN_FLIGHT,
};
use blockfall_engine::meshing::{SlotChanges, TerrainMeshes};

use blockfall_game::terrain::chunks::ChunkCoord;

/// One draw slot's entry, 48 bytes (`Chunk` of `terrain_cull.comp`; `terrain.vert` reads
/// `origin` alone).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkEntry {
    /// xyz: the padded origin (meters); w: the spacing (meters per grid unit, 2^level).
    pub origin: [f32; 4],
    /// xyz: the low corner of the box the vertices lie in; w: 1 where the slot holds a chunk,
    /// 0 where it is empty (the whole entry is then zero).
    pub low: [f32; 4],
    /// xyz: the box's high corner; w: 0.
    pub high: [f32; 4],
}

/// Bytes of a [`ChunkEntry`]: the vertex binding's stride.
pub const ENTRY_BYTES: u64 = std::mem::size_of::<ChunkEntry>() as u64;

impl ChunkEntry {
    /// An empty slot's entry.
    pub const EMPTY: ChunkEntry = ChunkEntry {
        origin: [0.0; 4],
        low: [0.0; 4],
        high: [0.0; 4],
    };

    /// The entry of chunk `key` (a chunk coordinate), or the empty one for a key that is not.
    pub fn of(key: Option<[i32; 4]>) -> ChunkEntry {
        let Some(coord) = key.and_then(ChunkCoord::from_key) else {
            return ChunkEntry::EMPTY;
        };
        let [x, y, z] = coord.padded_origin().map(|value| value as f32);
        let (low, high) = coord.vertex_box();
        ChunkEntry {
            origin: [x, y, z, coord.spacing() as f32],
            low: [low[0], low[1], low[2], 1.0],
            high: [high[0], high[1], high[2], 0.0],
        }
    }
}

/// One frame slot's table and how far it is up to date.
struct TableFrame {
    buffer: Buffer,
    /// The meshes' journal cursor this table has applied; `None`: written whole next time.
    cursor: Option<u64>,
}

/// The chunk tables, one per frame in flight, for one [`TerrainMeshes`] at a time.
pub(super) struct ChunkTable {
    device: Arc<gpu::Device>,
    frames: Vec<TableFrame>,
    /// The meshes ([`TerrainMeshes::id`]) and their slot count the tables were made for.
    made_for: Option<(u64, u32)>,
}

impl ChunkTable {
    pub(super) fn new(device: &Arc<gpu::Device>) -> Self {
        Self {
            device: device.clone(),
            frames: Vec::new(),
            made_for: None,
        }
    }

    /// Brings frame slot `slot`'s table up to date with `meshes`. Returns whether the tables
    /// were made anew (for other meshes: what refers to them must be made again).
    pub(super) fn update(&mut self, slot: usize, meshes: &TerrainMeshes) -> GpuResult<bool> {
        let wanted = (meshes.id(), meshes.max_chunks());
        let remade = self.made_for != Some(wanted);
        if remade {
            self.frames = (0..FRAMES_IN_FLIGHT)
                .map(|frame| {
                    Ok(TableFrame {
                        buffer: Buffer::new(
                            &self.device,
                            &BufferDesc {
                                name: &format!("terrain: chunk table, frame {frame}"),
                                size: u64::from(wanted.1.max(1)) * ENTRY_BYTES,
                                usage: ash::vk::BufferUsageFlags::VERTEX_BUFFER
                                    | ash::vk::BufferUsageFlags::STORAGE_BUFFER,
                                location: MemoryLocation::CpuToGpu,
                            },
                        )?,
                        cursor: None,
                    })
                })
                .collect::<GpuResult<Vec<_>>>()?;
            self.made_for = Some(wanted);
        }
        let frame = &mut self.frames[slot];
        let changes = match frame.cursor {
            Some(cursor) => meshes.slot_changes_since(meshes.id(), cursor),
            None => SlotChanges::All,
        };
        match changes {
            SlotChanges::Some(slots) => {
                for &changed in slots {
                    let entry = ChunkEntry::of(meshes.slot_key(changed));
                    frame
                        .buffer
                        .write(u64::from(changed) * ENTRY_BYTES, &[entry])?;
                }
            }
            SlotChanges::All => {
                let entries: Vec<ChunkEntry> = (0..meshes.max_chunks())
                    .map(|slot| ChunkEntry::of(meshes.slot_key(slot)))
                    .collect();
                frame.buffer.write(0, &entries)?;
            }
        }
        frame.cursor = Some(meshes.slot_journal_end());
        Ok(remade)
    }

    /// Frame slot `slot`'s table (after an [`ChunkTable::update`]).
    pub(super) fn buffer(&self, slot: usize) -> GpuResult<&Buffer> {
        self.frames
            .get(slot)
            .map(|frame| &frame.buffer)
            .ok_or_else(|| gpu::GpuError::Invalid("terrain: no chunk table yet".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_holds_the_origin_spacing_and_box_of_its_chunk() {
        assert_eq!(ENTRY_BYTES, 48);
        let key = [1, -2, 0, 1];
        let coord = ChunkCoord::from_key(key).unwrap();
        let entry = ChunkEntry::of(Some(key));
        let origin = coord.padded_origin().map(|value| value as f32);
        assert_eq!(entry.origin, [origin[0], origin[1], origin[2], 2.0]);
        let (low, high) = coord.vertex_box();
        assert_eq!(&entry.low[..3], &low[..]);
        assert_eq!(&entry.high[..3], &high[..]);
        assert_eq!(entry.low[3], 1.0, "a resident slot");
        assert_eq!(ChunkEntry::of(None), ChunkEntry::EMPTY);
        assert_eq!(ChunkEntry::of(Some([0, 0, 0, 99])), ChunkEntry::EMPTY);
    }
}
