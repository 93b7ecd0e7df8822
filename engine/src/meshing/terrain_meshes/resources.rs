//! Making the arenas: every buffer, batch slot, descriptor set and pipeline the terrain meshes
//! ever use, in one place; after this nothing allocates.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::light::LightPass;
use super::{
    BatchSlot, TerrainMeshError, TerrainMeshes, TerrainMeshesDesc, DRAW_BYTES, INDEX_BYTES,
    LIGHT_BYTES, VERTEX_BYTES,
};
use crate::gpu::arena::Arena;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{
    memory_barrier, vk, Buffer, BufferAccess, BufferDesc, Device, GpuError, MemoryLocation,
    OneTimeCommands,
};
use crate::meshing::gpu::{MeshPipelines, COUNT_WORDS, MAX_SAMPLES_PER_AXIS};
use crate::meshing::Mesher;

/// Where the light half of a batch slot's part of the staging buffer starts (bytes from the
/// part's start).
pub(super) const LIGHT_STAGING_OFFSET: u64 =
    (MAX_SAMPLES_PER_AXIS * MAX_SAMPLES_PER_AXIS * MAX_SAMPLES_PER_AXIS) as u64 * 4;

/// Bytes of the staging buffer per batch slot: a density grid and a light grid.
pub(super) const STAGING_SLOT_BYTES: u64 = 2 * LIGHT_STAGING_OFFSET;

impl TerrainMeshes {
    /// Makes the arenas, the draw slots (zeroed), `desc.batch` batch slots of scratch buffers
    /// for grids of up to [`MAX_SAMPLES_PER_AXIS`]³ samples, the staging for as many grids (and
    /// light grids) and the pipelines. The only Vulkan allocations the arenas ever make.
    pub fn new(device: &Arc<Device>, desc: &TerrainMeshesDesc) -> Result<Self, TerrainMeshError> {
        let vertex_capacity = desc.vertex_arena_bytes / VERTEX_BYTES;
        let index_capacity = desc.index_arena_bytes / INDEX_BYTES;
        let storage_limit = u64::from(device.adapter.limits.max_storage_buffer_range);
        let invalid = |what: String| TerrainMeshError::from(GpuError::Invalid(what));
        if vertex_capacity == 0 || index_capacity == 0 || desc.max_chunks == 0 {
            return Err(invalid(format!(
                "terrain meshes: {desc:?} leaves no room for a single chunk"
            )));
        }
        if desc.batch == 0 {
            return Err(invalid(format!(
                "terrain meshes: {desc:?} has batch 0; a batch meshes at least one chunk"
            )));
        }
        // Draws carry the first vertex as an i32 and the first index as a u32.
        if vertex_capacity > i32::MAX as u64 || index_capacity > u64::from(u32::MAX) {
            return Err(invalid(format!(
                "terrain meshes: {desc:?} has more vertices or indices than a draw can address"
            )));
        }
        let draw_bytes = u64::from(desc.max_chunks) * DRAW_BYTES;
        if let Some((what, bytes)) = desc.too_large_for(storage_limit) {
            return Err(invalid(format!(
                "terrain meshes: the {what} ({bytes} bytes) exceeds the device's storage buffer \
                 range of {storage_limit} bytes"
            )));
        }

        let max_samples = MAX_SAMPLES_PER_AXIS.pow(3) as u64;
        let max_cells = (MAX_SAMPLES_PER_AXIS - 1).pow(3) as u64;
        let max_quads = 3 * max_samples;
        let buffer = |name: &str, size: u64, usage: vk::BufferUsageFlags, location| {
            Buffer::new(
                device,
                &BufferDesc {
                    name,
                    size,
                    usage,
                    location,
                },
            )
        };
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let gpu_only = MemoryLocation::GpuOnly;
        let batch = u64::from(desc.batch);
        // Per batch slot: density samples, then light samples.
        let staging = buffer(
            "terrain meshes: staging",
            batch * STAGING_SLOT_BYTES,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        let totals = buffer(
            "terrain meshes: totals readback",
            batch * 8,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let vertex_buffer = buffer(
            "terrain meshes: vertex arena",
            vertex_capacity * VERTEX_BYTES,
            storage | vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            gpu_only,
        )?;
        let light_buffer = buffer(
            "terrain meshes: light arena",
            vertex_capacity * LIGHT_BYTES,
            storage | vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            gpu_only,
        )?;
        let index_buffer = buffer(
            "terrain meshes: index arena",
            index_capacity * INDEX_BYTES,
            storage | vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            gpu_only,
        )?;
        let draw_buffer = buffer(
            "terrain meshes: draw slots",
            draw_bytes,
            storage
                | vk::BufferUsageFlags::INDIRECT_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            gpu_only,
        )?;

        // By `Mesher::index`.
        let pipelines = [
            MeshPipelines::new(device, Mesher::SurfaceNets, "terrain meshes")?,
            MeshPipelines::new(
                device,
                Mesher::MarchingCubes,
                "terrain meshes: marching cubes",
            )?,
        ];
        // The same bindings as both meshers' set layouts, so its sets bind with their layouts:
        // two sets per batch slot, one for each mesher.
        let slot_set_layout = BufferSetLayout::new(
            device,
            "terrain meshes: batch slots",
            &[vk::DescriptorType::STORAGE_BUFFER; 8],
            vk::ShaderStageFlags::COMPUTE,
            2 * desc.batch,
        )?;
        let mut slots = Vec::with_capacity(desc.batch as usize);
        for slot in 0..desc.batch {
            let samples = buffer(
                &format!("terrain meshes: samples {slot}"),
                max_samples * 4,
                storage | vk::BufferUsageFlags::TRANSFER_DST,
                gpu_only,
            )?;
            let light_samples = buffer(
                &format!("terrain meshes: light samples {slot}"),
                max_samples * 4,
                storage | vk::BufferUsageFlags::TRANSFER_DST,
                gpu_only,
            )?;
            let flags = buffer(
                &format!("terrain meshes: flags {slot}"),
                (max_cells + max_quads) * 4,
                storage,
                gpu_only,
            )?;
            let prefix = buffer(
                &format!("terrain meshes: prefix sums {slot}"),
                (max_cells + max_quads) * 4,
                storage,
                gpu_only,
            )?;
            let vertex_offsets = buffer(
                &format!("terrain meshes: vertex offsets {slot}"),
                max_cells * 3 * 4,
                storage,
                gpu_only,
            )?;
            let counts = buffer(
                &format!("terrain meshes: counts {slot}"),
                COUNT_WORDS as u64 * 4,
                storage | vk::BufferUsageFlags::TRANSFER_SRC,
                gpu_only,
            )?;
            // Binding 3: the mesher's case table (marching cubes), else the slot's vertex
            // offsets (surface nets).
            let set = |mesher: Mesher, name: &str| {
                let third = pipelines[mesher.index()]
                    .case_table
                    .as_ref()
                    .unwrap_or(&vertex_offsets);
                slot_set_layout.allocate(
                    name,
                    &[
                        &samples,
                        &flags,
                        &prefix,
                        third,
                        &vertex_buffer,
                        &index_buffer,
                        &counts,
                        &draw_buffer,
                    ],
                )
            };
            let sets = [
                set(
                    Mesher::SurfaceNets,
                    &format!("terrain meshes: buffers {slot}"),
                )?,
                set(
                    Mesher::MarchingCubes,
                    &format!("terrain meshes: marching-cubes buffers {slot}"),
                )?,
            ];
            slots.push(BatchSlot {
                sets,
                samples,
                light_samples,
                _scratch: [flags, prefix, vertex_offsets],
                counts,
            });
        }
        let light_samples: Vec<&Buffer> = slots.iter().map(|slot| &slot.light_samples).collect();
        let light_pass = LightPass::new(device, &vertex_buffer, &light_samples, &light_buffer)?;

        // Every slot starts as an empty draw.
        let commands = OneTimeCommands::new(device, "terrain meshes: clear draw slots")?;
        // SAFETY: recording; the buffer is new, has TRANSFER_DST usage and lives past the wait.
        unsafe {
            device.raw.cmd_fill_buffer(
                commands.command_buffer(),
                draw_buffer.raw,
                0,
                vk::WHOLE_SIZE,
                0,
            )
        };
        memory_barrier(
            device,
            commands.command_buffer(),
            &[BufferAccess::ClearWrite],
            &[BufferAccess::Any],
        );
        commands.submit_and_wait()?;

        Ok(Self {
            device: device.clone(),
            pipelines,
            mesher: Mesher::default(),
            _slot_set_layout: slot_set_layout,
            light_pass,
            slots,
            staging,
            staging_use: 0,
            totals,
            vertex_buffer,
            light_buffer,
            index_buffer,
            draw_buffer,
            vertex_arena: Arena::new(vertex_capacity),
            index_arena: Arena::new(index_capacity),
            max_chunks: desc.max_chunks,
            free_slots: BTreeSet::new(),
            draw_count: 0,
            chunks: HashMap::new(),
            pending_clears: Vec::new(),
            id: super::next_meshes_id(),
            slot_keys: vec![None; desc.max_chunks as usize],
            journal: super::SlotJournal::default(),
        })
    }
}
