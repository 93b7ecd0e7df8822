//! Meshes kept on the GPU by key (a region of blocks, a piece), in one vertex buffer and one
//! index buffer made once and sub-allocated with the engine's [`Arena`] books: adding or
//! replacing a mesh costs no Vulkan allocation, only a staged copy.
//!
//! A freed range may still be read by a frame in flight, so it is not given out again at once:
//! it waits (`gpu::Retire`), keyed by the timeline value of the latest submission, until the GPU
//! has passed it
//! ([`MeshArena::reclaim`], done before every allocation). So meshes must be put and removed
//! between frames (before `FrameRing::begin`, or after a frame's submit), never while a frame
//! that draws them records.
//!
//! When the books are full, [`MeshArena::put`] says so and the owner makes a bigger arena
//! ([`MeshArena::new`]) and puts every mesh into it again; the old buffers are retired through
//! the device's deferred destruction when the old arena drops.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::arena::{Arena, ArenaError, ArenaRange};
use blockfall_engine::gpu::upload::UploadBatch;
use blockfall_engine::gpu::{
    Buffer, BufferDesc, Device, GpuError, GpuResult, MemoryLocation, Retire,
};

use super::{BlockVertex, VERTEX_BYTES};

/// Where one mesh lies, in elements (vertices, indices) of the arena's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshRange {
    pub vertices: ArenaRange,
    pub indices: ArenaRange,
}

impl MeshRange {
    /// Indices to draw.
    pub fn index_count(&self) -> u32 {
        self.indices.size as u32
    }

    /// The draw's `firstIndex`.
    pub fn first_index(&self) -> u32 {
        self.indices.offset as u32
    }

    /// The draw's `vertexOffset`: the mesh's indices count from its first vertex.
    pub fn vertex_offset(&self) -> i32 {
        self.vertices.offset as i32
    }
}

/// Meshes by key in one vertex and one index buffer.
pub struct MeshArena<K> {
    device: Arc<Device>,
    vertices: Buffer,
    indices: Buffer,
    vertex_books: Arena,
    index_books: Arena,
    meshes: HashMap<K, MeshRange>,
    /// Ranges freed, each with the timeline value after which no frame reads it.
    retired: Retire<MeshRange>,
}

impl<K: Copy + Eq + Hash> MeshArena<K> {
    /// An arena named `name` of `vertex_capacity` vertices and `index_capacity` indices.
    pub fn new(
        device: &Arc<Device>,
        name: &str,
        vertex_capacity: u64,
        index_capacity: u64,
    ) -> GpuResult<Self> {
        let vertices = Buffer::new(
            device,
            &BufferDesc {
                name: &format!("{name}: vertex arena"),
                size: vertex_capacity * VERTEX_BYTES,
                usage: vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            },
        )?;
        let indices = Buffer::new(
            device,
            &BufferDesc {
                name: &format!("{name}: index arena"),
                size: index_capacity * 4,
                usage: vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            },
        )?;
        Ok(Self {
            device: device.clone(),
            vertices,
            indices,
            vertex_books: Arena::new(vertex_capacity),
            index_books: Arena::new(index_capacity),
            meshes: HashMap::new(),
            retired: Retire::default(),
        })
    }

    /// Vertices and indices the arena holds at most.
    pub fn capacity(&self) -> (u64, u64) {
        (self.vertex_books.capacity(), self.index_books.capacity())
    }

    /// Vertices and indices taken (retired ranges not yet reclaimed included).
    pub fn used(&self) -> (u64, u64) {
        (self.vertex_books.used(), self.index_books.used())
    }

    pub fn vertex_buffer(&self) -> &Buffer {
        &self.vertices
    }

    pub fn index_buffer(&self) -> &Buffer {
        &self.indices
    }

    /// Where `key`'s mesh lies.
    pub fn get(&self, key: &K) -> Option<&MeshRange> {
        self.meshes.get(key)
    }

    /// Every mesh.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &MeshRange)> + '_ {
        self.meshes.iter()
    }

    pub fn len(&self) -> usize {
        self.meshes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.meshes.is_empty()
    }

    /// Forgets `key`'s mesh; its ranges are given out again once the frames that may draw it
    /// have run.
    pub fn remove(&mut self, key: &K) {
        if let Some(range) = self.meshes.remove(key) {
            self.retired.after(self.device.last_submitted(), range);
        }
    }

    /// Forgets every mesh (as [`MeshArena::remove`] each); the buffers stay.
    pub fn clear(&mut self) {
        let keys: Vec<K> = self.meshes.keys().copied().collect();
        for key in &keys {
            self.remove(key);
        }
    }

    /// Gives back the retired ranges no frame reads any more.
    pub fn reclaim(&mut self) -> GpuResult<()> {
        let completed = self.device.completed()?;
        let (vertex_books, index_books) = (&mut self.vertex_books, &mut self.index_books);
        self.retired.release(completed, |range| {
            vertex_books.free(range.vertices).map_err(arena_error)?;
            index_books.free(range.indices).map_err(arena_error)
        })
    }

    /// Puts `key`'s mesh (replacing any it had) and stages its copy into `batch`. `Ok(false)`:
    /// the arena has no room (the key then has no mesh); the owner makes a bigger one.
    pub fn put(
        &mut self,
        batch: &mut UploadBatch<'_>,
        key: K,
        vertices: &[BlockVertex],
        indices: &[u32],
    ) -> GpuResult<bool> {
        self.remove(&key);
        if vertices.is_empty() || indices.is_empty() {
            return Ok(true);
        }
        self.reclaim()?;
        let vertex_range = match self.vertex_books.allocate(vertices.len() as u64, 1) {
            Ok(range) => range,
            Err(ArenaError::Full { .. }) => return Ok(false),
            Err(error) => return Err(arena_error(error)),
        };
        let index_range = match self.index_books.allocate(indices.len() as u64, 1) {
            Ok(range) => range,
            Err(ArenaError::Full { .. }) => {
                self.vertex_books.free(vertex_range).map_err(arena_error)?;
                return Ok(false);
            }
            Err(error) => return Err(arena_error(error)),
        };
        batch.buffer(
            &self.vertices,
            vertex_range.offset * VERTEX_BYTES,
            bytemuck::cast_slice(vertices),
        )?;
        batch.buffer(
            &self.indices,
            index_range.offset * 4,
            bytemuck::cast_slice(indices),
        )?;
        self.meshes.insert(
            key,
            MeshRange {
                vertices: vertex_range,
                indices: index_range,
            },
        );
        Ok(true)
    }
}

fn arena_error(error: ArenaError) -> GpuError {
    GpuError::Invalid(format!("mesh arena: {error}"))
}
