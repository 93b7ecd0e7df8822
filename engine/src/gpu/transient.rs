//! Per-frame transient memory: data the CPU writes for one frame's draws (instances, vertices,
//! indirect commands) bump-allocated from buffers that belong to the frame slot, as Granite's
//! per-frame allocators do. No renderer keeps a ring of its own.
//!
//! ```text
//!   frame slot 0:  vertex chunks  [ instances | markers' lines | ...  free ]
//!                  indirect chunks [ draw commands | ... free ]
//!   FrameRing::begin (slot 0 again): the slot's last frame has finished (begin waits for it),
//!   so its chunks are handed out again from the start; a frame that needed more than one
//!   chunk gets one chunk of the whole size instead (the old ones go through the deferred
//!   queue), so a steady load settles on one chunk per use.
//! ```
//!
//! A [`TransientRange`] names the frame it was written in: asking for its buffer in another
//! frame is an error, not a read of what another frame wrote over it.

use std::sync::Arc;

use ash::vk;

use super::buffer::{Buffer, BufferDesc};
use super::device::Device;
use super::error::{GpuError, GpuResult};
use super::memory::MemoryLocation;

/// What transient data is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransientUse {
    /// Read by draws as vertex (or instance) attributes.
    Vertex,
    /// Read as indirect draw commands.
    Indirect,
}

impl TransientUse {
    const ALL: [TransientUse; 2] = [TransientUse::Vertex, TransientUse::Indirect];

    fn index(self) -> usize {
        self as usize
    }

    fn usage(self) -> vk::BufferUsageFlags {
        match self {
            TransientUse::Vertex => vk::BufferUsageFlags::VERTEX_BUFFER,
            TransientUse::Indirect => vk::BufferUsageFlags::INDIRECT_BUFFER,
        }
    }

    fn name(self) -> &'static str {
        match self {
            TransientUse::Vertex => "vertices",
            TransientUse::Indirect => "indirect commands",
        }
    }
}

/// Where a frame's transient data lies: which chunk, the byte range, and the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransientRange {
    pub use_: TransientUse,
    chunk: u32,
    /// Bytes from the chunk's start.
    pub offset: u64,
    pub size: u64,
    /// The recording it was written in (`FrameRing::recording`).
    recording: u64,
}

/// Every range starts at a multiple of this many bytes (any vertex format and indirect
/// command is aligned within it).
const ALIGN: u64 = 256;

/// The smallest chunk, bytes.
const FIRST_CHUNK: u64 = 64 * 1024;

/// One frame slot's transient buffers, per use.
#[derive(Default)]
pub(crate) struct Transient {
    chunks: [Vec<Buffer>; 2],
    /// Bytes handed out from the last chunk of each use this frame.
    used: [u64; 2],
}

impl Transient {
    /// The slot's frame begins again: its last frame has finished. Each use's chunks are
    /// handed out from the start; several become one of their whole size.
    pub(crate) fn begin(&mut self, device: &Arc<Device>, slot: usize) -> GpuResult<()> {
        for use_ in TransientUse::ALL {
            let at = use_.index();
            let chunks = &mut self.chunks[at];
            if chunks.len() > 1 {
                let whole: u64 = chunks.iter().map(|chunk| chunk.size).sum();
                // The old chunks were last used by this slot's finished frame.
                chunks.clear();
                chunks.push(new_chunk(device, use_, slot, whole)?);
            }
            self.used[at] = 0;
        }
        Ok(())
    }

    /// Writes `data` into this frame's memory for `use_`.
    pub(crate) fn write<T: bytemuck::Pod>(
        &mut self,
        device: &Arc<Device>,
        (slot, recording): (usize, u64),
        use_: TransientUse,
        data: &[T],
    ) -> GpuResult<TransientRange> {
        let at = use_.index();
        let size = std::mem::size_of_val(data) as u64;
        let start = self.used[at].div_ceil(ALIGN) * ALIGN;
        let fits = self.chunks[at]
            .last()
            .is_some_and(|chunk| start + size.max(1) <= chunk.size);
        let offset = if fits {
            start
        } else {
            let last = self.chunks[at].last().map_or(0, |chunk| chunk.size);
            let chunk_size = size.max(last * 2).max(FIRST_CHUNK).div_ceil(ALIGN) * ALIGN;
            self.chunks[at].push(new_chunk(device, use_, slot, chunk_size)?);
            0
        };
        let chunk = self.chunks[at].len() - 1;
        if size > 0 {
            self.chunks[at][chunk].write(offset, data)?;
        }
        self.used[at] = offset + size;
        Ok(TransientRange {
            use_,
            chunk: chunk as u32,
            offset,
            size,
            recording,
        })
    }

    /// The buffer `range` lies in, if it was written in `recording`.
    pub(crate) fn buffer(&self, range: &TransientRange, recording: u64) -> GpuResult<&Buffer> {
        if range.recording != recording {
            return Err(GpuError::Invalid(format!(
                "transient {} of recording {} asked for in recording {recording}",
                range.use_.name(),
                range.recording
            )));
        }
        self.chunks[range.use_.index()]
            .get(range.chunk as usize)
            .ok_or_else(|| GpuError::Invalid("a transient range of no chunk".into()))
    }

    /// Bytes of transient memory the slot holds.
    pub(crate) fn bytes(&self) -> u64 {
        self.chunks.iter().flatten().map(|chunk| chunk.size).sum()
    }
}

fn new_chunk(
    device: &Arc<Device>,
    use_: TransientUse,
    slot: usize,
    size: u64,
) -> GpuResult<Buffer> {
    Buffer::new(
        device,
        &BufferDesc {
            name: &format!("frame {slot}: transient {}", use_.name()),
            size,
            usage: use_.usage(),
            location: MemoryLocation::CpuToGpu,
        },
    )
}
