//! Arena bookkeeping: where a chunk's mesh goes (its vertex and index ranges and its draw
//! slot), and giving them back.

use super::{ArenaKind, ChunkKey, Resident, ResidentChunk, TerrainMeshError, TerrainMeshes};
use crate::gpu::arena::{ArenaError, ArenaRange};

impl TerrainMeshes {
    /// Takes the ranges and slot for chunk `key`'s new mesh, from a grid of `dims` samples,
    /// giving back its old ranges.
    pub(super) fn place(
        &mut self,
        key: ChunkKey,
        dims: [usize; 3],
        vertex_count: u64,
        index_count: u64,
    ) -> Result<ResidentChunk, TerrainMeshError> {
        let old = self.chunks.get(&key).map(|resident| resident.chunk);
        let slot = match old {
            Some(old) => old.slot,
            None => self.take_slot().ok_or(TerrainMeshError::TooManyChunks {
                key,
                max_chunks: self.max_chunks,
            })?,
        };
        // With the old mesh still in place first, so that a failure leaves it drawn.
        let ranges = match self.allocate(vertex_count, index_count) {
            Ok(ranges) => {
                if let Some(old) = old {
                    self.free_ranges(old);
                }
                ranges
            }
            Err((kind, count, source)) => {
                let Some(old) = old else {
                    self.release_slot(slot);
                    return Err(TerrainMeshError::ArenaFull {
                        key,
                        kind,
                        count,
                        source,
                        previous_dropped: false,
                    });
                };
                // Perhaps it fits where the old mesh was.
                self.free_ranges(old);
                match self.allocate(vertex_count, index_count) {
                    Ok(ranges) => ranges,
                    Err((kind, count, source)) => {
                        self.chunks.remove(&key);
                        self.note_slot(slot, None);
                        self.release_slot(slot);
                        self.pending_clears.push(slot);
                        return Err(TerrainMeshError::ArenaFull {
                            key,
                            kind,
                            count,
                            source,
                            previous_dropped: true,
                        });
                    }
                }
            }
        };
        let chunk = ResidentChunk {
            slot,
            vertices: ranges.0,
            indices: ranges.1,
        };
        self.chunks.insert(key, Resident { chunk, dims });
        self.note_slot(slot, Some(key));
        Ok(chunk)
    }

    /// A vertex range and an index range, or neither.
    pub(super) fn allocate(
        &mut self,
        vertex_count: u64,
        index_count: u64,
    ) -> Result<(ArenaRange, ArenaRange), (ArenaKind, u64, ArenaError)> {
        let vertices = self
            .vertex_arena
            .allocate(vertex_count, 1)
            .map_err(|error| (ArenaKind::Vertex, vertex_count, error))?;
        match self.index_arena.allocate(index_count, 1) {
            Ok(indices) => Ok((vertices, indices)),
            Err(error) => {
                if let Err(free_error) = self.vertex_arena.free(vertices) {
                    log::error!("terrain meshes: freeing a vertex range: {free_error}");
                }
                Err((ArenaKind::Index, index_count, error))
            }
        }
    }

    pub(super) fn free_ranges(&mut self, chunk: ResidentChunk) {
        // Both were allocated from these arenas and are freed once: only a bug here fails.
        if let Err(error) = self.vertex_arena.free(chunk.vertices) {
            log::error!("terrain meshes: freeing a vertex range: {error}");
        }
        if let Err(error) = self.index_arena.free(chunk.indices) {
            log::error!("terrain meshes: freeing an index range: {error}");
        }
    }

    /// The lowest free slot, or a new one at the end.
    pub(super) fn take_slot(&mut self) -> Option<u32> {
        if let Some(slot) = self.free_slots.pop_first() {
            return Some(slot);
        }
        if self.draw_count < self.max_chunks {
            self.draw_count += 1;
            return Some(self.draw_count - 1);
        }
        None
    }

    pub(super) fn release_slot(&mut self, slot: u32) {
        self.free_slots.insert(slot);
        // Keep the highest slot in use at `draw_count - 1`.
        while self.draw_count > 0 && self.free_slots.remove(&(self.draw_count - 1)) {
            self.draw_count -= 1;
        }
    }
}
