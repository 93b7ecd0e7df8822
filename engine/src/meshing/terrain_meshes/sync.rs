//! The barriers of the meshing frames: after earlier work, draw slots cleared, writes made
//! visible to the draws.

use super::DRAW_BYTES;
use crate::gpu::{memory_barrier, vk, Buffer, BufferAccess, Device};

/// Records the barrier that makes a frame's compute writes to the arenas and draw slots visible
/// to the draws (indirect commands, indices, vertex attributes: positions and light) and copies
/// of later submissions.
pub(super) fn record_visible_to_draws(device: &Device, command_buffer: vk::CommandBuffer) {
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::ComputeWrite],
        &[
            BufferAccess::CopyRead,
            BufferAccess::ComputeRead,
            BufferAccess::ComputeWrite,
            BufferAccess::IndirectRead,
            BufferAccess::IndexRead,
            BufferAccess::VertexAttributeRead,
            BufferAccess::VertexShaderRead,
        ],
    );
}

/// Records the zeroing of the draw slots `slots` of `draw_buffer`, ordered after everything
/// earlier and before indirect draws, compute passes and copies; nothing for no slots.
pub(super) fn record_clears(
    device: &Device,
    command_buffer: vk::CommandBuffer,
    draw_buffer: &Buffer,
    slots: &[u32],
) {
    if slots.is_empty() {
        return;
    }
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::AnyWrite],
        &[BufferAccess::ClearWrite],
    );
    for &slot in slots {
        // SAFETY: recording; the slot lies in the draw buffer (slot < max_chunks), which has
        // TRANSFER_DST usage and outlives the submission (its owner waits for its own work);
        // offset and size are multiples of 4.
        unsafe {
            device.raw.cmd_fill_buffer(
                command_buffer,
                draw_buffer.raw,
                u64::from(slot) * DRAW_BYTES,
                DRAW_BYTES,
                0,
            )
        };
    }
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::ClearWrite],
        &[
            BufferAccess::CopyRead,
            BufferAccess::ComputeRead,
            BufferAccess::ComputeWrite,
            BufferAccess::IndirectRead,
        ],
    );
}

/// Orders everything earlier on the queue — draws of ranges handed out again, earlier passes
/// reading the samples, scratch and light samples — before a meshing frame's copies and
/// compute passes write.
pub(super) fn after_earlier_work(device: &Device, command_buffer: vk::CommandBuffer) {
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::AnyWrite],
        &[
            BufferAccess::CopyWrite,
            BufferAccess::ComputeRead,
            BufferAccess::ComputeWrite,
        ],
    );
}
