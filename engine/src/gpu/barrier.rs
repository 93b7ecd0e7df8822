//! Memory barriers between named buffer accesses, as images have [`super::ImageAccess`].
//!
//! A barrier goes from what earlier commands did to what later ones will do, each side a list of
//! [`BufferAccess`]es whose stages and access masks are joined:
//!
//! ```text
//!   memory_barrier(device, cb, &[BufferAccess::ComputeWrite],
//!                  &[BufferAccess::IndirectRead, BufferAccess::IndexRead])
//! ```
//! The barriers are global (`VkMemoryBarrier2`): on one queue they cost the same as per-buffer
//! ones on every driver we know, and one covers every buffer a pass touches.

use ash::vk;

use super::device::Device;

/// Every pipeline stage in which the engine's commands touch a buffer: transfers (copies, fills),
/// compute passes, and draws (their indirect commands, indices, vertices and shaders' storage
/// reads). [`BufferAccess::AnyWrite`] and [`BufferAccess::Any`] name these stages one by one
/// instead of `ALL_COMMANDS`, which would order the whole GPU, presentation and all, around the
/// barrier (and which the validation layer's best practices flag).
pub const BUFFER_STAGES: vk::PipelineStageFlags2 = vk::PipelineStageFlags2::from_raw(
    vk::PipelineStageFlags2::ALL_TRANSFER.as_raw()
        | vk::PipelineStageFlags2::COPY.as_raw()
        | vk::PipelineStageFlags2::CLEAR.as_raw()
        | vk::PipelineStageFlags2::COMPUTE_SHADER.as_raw()
        | vk::PipelineStageFlags2::DRAW_INDIRECT.as_raw()
        | vk::PipelineStageFlags2::INDEX_INPUT.as_raw()
        | vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT.as_raw()
        | vk::PipelineStageFlags2::VERTEX_SHADER.as_raw()
        | vk::PipelineStageFlags2::FRAGMENT_SHADER.as_raw(),
);

/// What a buffer is used for at a point in a command buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferAccess {
    /// Any use of a buffer by any earlier command ([`BUFFER_STAGES`]), its writes made
    /// visible: "after everything before" (reads included: a write after them waits for them).
    AnyWrite,
    /// Any read or write of a buffer by any later command ([`BUFFER_STAGES`]): "before
    /// everything after".
    Any,
    /// Read by `vkCmdCopyBuffer` (or a copy to an image).
    CopyRead,
    /// Written by `vkCmdCopyBuffer`.
    CopyWrite,
    /// Written by `vkCmdFillBuffer`.
    ClearWrite,
    /// Written by any transfer command (copies, fills, image copies).
    TransferWrite,
    /// Read as a storage buffer by a compute shader.
    ComputeRead,
    /// Written as a storage buffer by a compute shader.
    ComputeWrite,
    /// Read as a storage buffer by a vertex shader.
    VertexShaderRead,
    /// Read as `VkDrawIndexedIndirectCommand`s.
    IndirectRead,
    /// Read as an index buffer.
    IndexRead,
    /// Read as a vertex buffer.
    VertexAttributeRead,
    /// Read by the CPU through a mapping.
    HostRead,
}

impl BufferAccess {
    /// The pipeline stages and access mask of this use.
    pub fn stage_and_access(self) -> (vk::PipelineStageFlags2, vk::AccessFlags2) {
        use vk::AccessFlags2 as A;
        use vk::PipelineStageFlags2 as S;
        match self {
            Self::AnyWrite => (BUFFER_STAGES, A::MEMORY_WRITE),
            Self::Any => (BUFFER_STAGES, A::MEMORY_READ | A::MEMORY_WRITE),
            Self::CopyRead => (S::COPY, A::TRANSFER_READ),
            Self::CopyWrite => (S::COPY, A::TRANSFER_WRITE),
            Self::ClearWrite => (S::CLEAR, A::TRANSFER_WRITE),
            Self::TransferWrite => (S::ALL_TRANSFER, A::TRANSFER_WRITE),
            Self::ComputeRead => (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ),
            Self::ComputeWrite => (S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE),
            Self::VertexShaderRead => (S::VERTEX_SHADER, A::SHADER_STORAGE_READ),
            Self::IndirectRead => (S::DRAW_INDIRECT, A::INDIRECT_COMMAND_READ),
            Self::IndexRead => (S::INDEX_INPUT, A::INDEX_READ),
            Self::VertexAttributeRead => (S::VERTEX_ATTRIBUTE_INPUT, A::VERTEX_ATTRIBUTE_READ),
            Self::HostRead => (S::HOST, A::HOST_READ),
        }
    }

    /// The joined stages and accesses of a list.
    pub fn join(accesses: &[Self]) -> (vk::PipelineStageFlags2, vk::AccessFlags2) {
        accesses.iter().fold(
            (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE),
            |(stages, access), use_| {
                let (s, a) = use_.stage_and_access();
                (stages | s, access | a)
            },
        )
    }
}

/// Records a global memory barrier from the accesses `src` of earlier commands to the accesses
/// `dst` of later ones.
pub fn memory_barrier(
    device: &Device,
    command_buffer: vk::CommandBuffer,
    src: &[BufferAccess],
    dst: &[BufferAccess],
) {
    let (src_stages, src_access) = BufferAccess::join(src);
    let (dst_stages, dst_access) = BufferAccess::join(dst);
    let barrier = vk::MemoryBarrier2::default()
        .src_stage_mask(src_stages)
        .src_access_mask(src_access)
        .dst_stage_mask(dst_stages)
        .dst_access_mask(dst_access);
    let barriers = [barrier];
    let dependency = vk::DependencyInfo::default().memory_barriers(&barriers);
    // SAFETY: the command buffer is recording (callers record into their own).
    unsafe { device.cmd_pipeline_barrier2(command_buffer, &dependency) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_joins_its_stages_and_accesses() {
        let (stages, access) =
            BufferAccess::join(&[BufferAccess::IndirectRead, BufferAccess::ComputeRead]);
        assert_eq!(
            stages,
            vk::PipelineStageFlags2::DRAW_INDIRECT | vk::PipelineStageFlags2::COMPUTE_SHADER
        );
        assert_eq!(
            access,
            vk::AccessFlags2::INDIRECT_COMMAND_READ | vk::AccessFlags2::SHADER_STORAGE_READ
        );
        assert_eq!(
            BufferAccess::join(&[]),
            (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE)
        );
    }

    #[test]
    fn before_everything_after_is_every_read_and_write_of_every_buffer_stage_named() {
        assert_eq!(
            BufferAccess::Any.stage_and_access(),
            (
                BUFFER_STAGES,
                vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE
            )
        );
        // Every stage a named buffer access uses is among them, and not every command.
        for access in [
            BufferAccess::TransferWrite,
            BufferAccess::CopyRead,
            BufferAccess::CopyWrite,
            BufferAccess::ClearWrite,
            BufferAccess::ComputeRead,
            BufferAccess::ComputeWrite,
            BufferAccess::VertexShaderRead,
            BufferAccess::IndirectRead,
            BufferAccess::IndexRead,
            BufferAccess::VertexAttributeRead,
        ] {
            let (stages, _) = access.stage_and_access();
            assert!(BUFFER_STAGES.contains(stages), "{access:?}");
        }
        assert!(!BUFFER_STAGES.contains(vk::PipelineStageFlags2::ALL_COMMANDS));
        assert_eq!(
            BufferAccess::ClearWrite.stage_and_access().0,
            vk::PipelineStageFlags2::CLEAR,
            "fills are ordered at the clear stage, not the copy stage"
        );
    }
}
