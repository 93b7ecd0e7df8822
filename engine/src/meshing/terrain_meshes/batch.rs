//! The batch protocol: a size frame (upload, count, scan; waited for), exact ranges taken, then
//! a write frame (vertices, quads, draws, light) for up to K chunks at once.

use std::collections::HashMap;

use super::light::{light_push, LightPush};
use super::resources::{LIGHT_STAGING_OFFSET, STAGING_SLOT_BYTES};
use super::sync::{after_earlier_work, record_visible_to_draws};
use super::{
    ChunkKey, ChunkToMesh, ResidentChunk, TerrainMeshError, TerrainMeshes, SIZE_PASS_NAME,
    UPLOAD_PASS_NAME, WRITE_PASS_NAME,
};
use crate::gpu::debug::label_colour;
use crate::gpu::{memory_barrier, vk, BufferAccess, FrameRing, GpuError};
use crate::meshing::gpu::{check_grid, output_bounds, SurfaceNetsPush, COUNT_VERTICES};

impl TerrainMeshes {
    /// Sizes one batch (at most K chunks, checked, their `pushes` in the same order), places
    /// them in order and writes the placed ones; pushes each chunk's result onto `results`.
    /// Stops at the first chunk that cannot be placed, after submitting the writes of those
    /// before it.
    pub(super) fn mesh_batch(
        &mut self,
        frames: &mut FrameRing,
        chunks: &[ChunkToMesh<'_>],
        pushes: &[SurfaceNetsPush],
        results: &mut Vec<Option<ResidentChunk>>,
    ) -> Result<(), TerrainMeshError> {
        let totals = self.size(frames, chunks, pushes)?;
        let mut writes = Vec::with_capacity(chunks.len());
        let mut failure = None;
        for (slot, ((chunk, push), [vertex_count, quad_count])) in
            chunks.iter().zip(pushes).zip(totals).enumerate()
        {
            match self.take_place(chunk.key, chunk.grid.dims(), push, vertex_count, quad_count) {
                Ok(None) => results.push(None),
                Ok(Some(resident)) => {
                    results.push(Some(resident));
                    let mut push = *push;
                    push.output = [
                        resident.vertices.offset as u32,
                        resident.indices.offset as u32,
                        resident.slot,
                        1,
                    ];
                    let lighting = light_push(resident, chunk.grid.dims(), chunk.light.is_some());
                    writes.push((slot, push, lighting));
                }
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        if !writes.is_empty() {
            self.write(frames, &writes)?;
        }
        match failure {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The size frame: upload (each chunk's density grid, and its light grid if it has one,
    /// into its batch slot), count, scan, and each slot's two totals back to the CPU. Returns
    /// the vertex and quad count of each chunk.
    pub(super) fn size(
        &mut self,
        frames: &mut FrameRing,
        chunks: &[ChunkToMesh<'_>],
        pushes: &[SurfaceNetsPush],
    ) -> Result<Vec<[u32; 2]>, TerrainMeshError> {
        // The totals buffer was last used by the previous batch's size frame, waited for
        // already; the staging perhaps by a relight frame since, waited for here. The device
        // buffers only need the queue order (barriers below).
        self.device.wait_for(self.staging_use)?;
        for (slot, chunk) in chunks.iter().enumerate() {
            let base = slot as u64 * STAGING_SLOT_BYTES;
            self.staging.write(base, chunk.grid.samples())?;
            if let Some(light) = chunk.light {
                self.staging.write(base + LIGHT_STAGING_OFFSET, light)?;
            }
        }
        let command_buffer = frames.begin()?;
        let device = self.device.clone();
        frames.begin_pass_coloured(SIZE_PASS_NAME, label_colour::COMPUTE);
        self.record_pending_clears(command_buffer);
        // Everything earlier on the queue (draws of freed ranges, the previous batch's passes
        // reading the slots' samples, light samples and scratch) before this batch's writes.
        after_earlier_work(&device, command_buffer);
        frames.begin_pass_coloured(UPLOAD_PASS_NAME, label_colour::TRANSFER);
        for (slot, chunk) in chunks.iter().enumerate() {
            let base = slot as u64 * STAGING_SLOT_BYTES;
            let buffers = &self.slots[slot];
            let grids = [
                Some((chunk.grid.samples(), 0, &buffers.samples)),
                chunk
                    .light
                    .map(|light| (light, LIGHT_STAGING_OFFSET, &buffers.light_samples)),
            ];
            for (values, offset, destination) in grids.into_iter().flatten() {
                let region = vk::BufferCopy {
                    src_offset: base + offset,
                    dst_offset: 0,
                    size: std::mem::size_of_val(values) as u64,
                };
                // SAFETY: recording; both buffers live as long as `self` (dropping waits); the
                // grids were checked to fit a slot's part of the staging and its buffers.
                unsafe {
                    device.raw.cmd_copy_buffer(
                        command_buffer,
                        self.staging.raw,
                        destination.raw,
                        &[region],
                    )
                };
            }
        }
        frames.end_pass();
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::CopyWrite],
            &[BufferAccess::ComputeRead],
        );
        let sized: Vec<(usize, SurfaceNetsPush)> = pushes.iter().copied().enumerate().collect();
        self.record_passes(frames, &sized, 0..2);
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::ComputeWrite],
            &[BufferAccess::CopyRead],
        );
        for slot in 0..chunks.len() {
            let totals = vk::BufferCopy {
                // The vertex count, then the quad count.
                src_offset: COUNT_VERTICES as u64 * 4,
                dst_offset: slot as u64 * 8,
                size: 8,
            };
            // SAFETY: as above; the region lies in both buffers (2 × K words of totals).
            unsafe {
                device.raw.cmd_copy_buffer(
                    command_buffer,
                    self.slots[slot].counts.raw,
                    self.totals.raw,
                    &[totals],
                )
            };
        }
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::CopyWrite],
            &[BufferAccess::HostRead],
        );
        frames.end_pass();
        let submitted = frames.submit(&[], &[])?;
        self.staging_use = submitted;
        device.wait_for(submitted)?;
        let totals: Vec<u32> = self.totals.read::<u32>()?;
        Ok((0..chunks.len())
            .map(|slot| [totals[2 * slot], totals[2 * slot + 1]])
            .collect())
    }

    /// A counted chunk's place: checks the GPU's totals against the grid, unloads the chunk
    /// when it has no surface (`None`), else takes its ranges and slot.
    pub(super) fn take_place(
        &mut self,
        key: ChunkKey,
        dims: [usize; 3],
        push: &SurfaceNetsPush,
        vertex_count: u32,
        quad_count: u32,
    ) -> Result<Option<ResidentChunk>, TerrainMeshError> {
        // The most the mesher makes from this grid: counts past it are the GPU's fault.
        let most = output_bounds(self.mesher, push.dims(), push.skirted());
        if u64::from(vertex_count) > most.vertices || u64::from(quad_count) > most.faces {
            return Err(GpuError::Invalid(format!(
                "terrain meshes: chunk {key:?}: the GPU counted {vertex_count} vertices and \
                 {quad_count} {} for a grid of {:?} samples",
                most.faces_name, push.dims
            ))
            .into());
        }
        if quad_count == 0 {
            self.unload(key);
            return Ok(None);
        }
        self.place(
            key,
            dims,
            u64::from(vertex_count),
            most.indices_per_face * u64::from(quad_count),
        )
        .map(Some)
    }

    /// The write frame: vertices and quads (and the draw) of each `(batch slot, push, light)`
    /// of `writes` into the arenas at its push's output, then the light of the new vertices
    /// into the light arena.
    pub(super) fn write(
        &mut self,
        frames: &mut FrameRing,
        writes: &[(usize, SurfaceNetsPush, LightPush)],
    ) -> Result<(), TerrainMeshError> {
        let command_buffer = frames.begin()?;
        let device = self.device.clone();
        frames.begin_pass_coloured(WRITE_PASS_NAME, label_colour::COMPUTE);
        // Slots freed by this batch's chunks without a surface, perhaps handed to later chunks
        // of the batch: zeroed before the quads pass writes the new draws.
        self.record_pending_clears(command_buffer);
        // The size frame's flags, prefix sums and counts; everything earlier on the queue
        // (draws of the ranges these chunks now take) before the writes.
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::AnyWrite],
            &[BufferAccess::ComputeRead, BufferAccess::ComputeWrite],
        );
        let meshes: Vec<(usize, SurfaceNetsPush)> =
            writes.iter().map(|&(slot, push, _)| (slot, push)).collect();
        self.record_passes(frames, &meshes, 2..4);
        // The vertices pass's writes to the vertex arena before the light pass reads them (the
        // light samples were ordered before this frame by the barrier above).
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::ComputeWrite],
            &[BufferAccess::ComputeRead],
        );
        let lights: Vec<(usize, LightPush)> = writes
            .iter()
            .map(|&(slot, _, lighting)| (slot, lighting))
            .collect();
        self.light_pass.record(&device, frames, &lights);
        record_visible_to_draws(&device, command_buffer);
        frames.end_pass();
        frames.submit(&[], &[])?;
        Ok(())
    }

    /// Writes `light` into the light half of batch slot 0's part of the staging, once the
    /// latest submission that copies from the staging has finished.
    pub(super) fn stage_light(&mut self, light: &[f32]) -> Result<(), TerrainMeshError> {
        self.device.wait_for(self.staging_use)?;
        self.staging.write(LIGHT_STAGING_OFFSET, light)?;
        Ok(())
    }

    /// Records the copy of the light grid staged by [`TerrainMeshes::stage_light`] into batch
    /// slot 0's light samples, as a labelled, timed pass. The caller orders earlier readers of
    /// the light samples before it and the copy before the light pass.
    pub(super) fn record_light_upload(&self, frames: &mut FrameRing, light: &[f32]) {
        let command_buffer = frames.command_buffer();
        frames.begin_pass_coloured("terrain meshes: upload light", label_colour::TRANSFER);
        let region = vk::BufferCopy {
            src_offset: LIGHT_STAGING_OFFSET,
            dst_offset: 0,
            size: std::mem::size_of_val(light) as u64,
        };
        // SAFETY: recording; both buffers live as long as `self` (dropping waits); the light
        // grid has as many samples as a checked density grid, which fit both the light half of
        // the staging and the light samples.
        unsafe {
            self.device.raw.cmd_copy_buffer(
                command_buffer,
                self.staging.raw,
                self.slots[0].light_samples.raw,
                &[region],
            )
        };
        frames.end_pass();
    }

    /// Records the mesher's passes `passes` (count, scan, then the two that write: indices
    /// into the mesher's [`crate::meshing::gpu::passes`]) over every `(batch slot, push)` of
    /// `meshes`, each slot with its own descriptor set for that mesher.
    pub(super) fn record_passes(
        &self,
        frames: &mut FrameRing,
        meshes: &[(usize, SurfaceNetsPush)],
        passes: std::ops::Range<usize>,
    ) {
        let index = self.mesher.index();
        let sets: Vec<(vk::DescriptorSet, SurfaceNetsPush)> = meshes
            .iter()
            .map(|&(slot, push)| (self.slots[slot].sets[index], push))
            .collect();
        self.pipelines[index].record(&self.device, frames, &sets, passes);
    }
}

/// Checks every chunk's grid, region, skirt and light grid, and that no key comes twice;
/// returns the push constants of each chunk's grid, in order.
pub(super) fn check_chunks(
    chunks: &[ChunkToMesh<'_>],
) -> Result<Vec<SurfaceNetsPush>, TerrainMeshError> {
    let mut seen: HashMap<ChunkKey, usize> = HashMap::with_capacity(chunks.len());
    let mut pushes = Vec::with_capacity(chunks.len());
    for (index, chunk) in chunks.iter().enumerate() {
        pushes.push(check_grid(chunk.grid, chunk.region, chunk.skirt)?);
        if let Some(light) = chunk.light {
            check_light(chunk.key, light, chunk.grid.dims())?;
        }
        if let Some(first) = seen.insert(chunk.key, index) {
            return Err(GpuError::Invalid(format!(
                "terrain meshes: chunk {:?} is both chunk {first} and chunk {index} of one \
                 call; a call meshes a chunk once",
                chunk.key
            ))
            .into());
        }
    }
    Ok(pushes)
}

/// Checks that `light` is a light grid for a density grid of `dims` samples: one finite value
/// per sample.
pub(super) fn check_light(key: ChunkKey, light: &[f32], dims: [usize; 3]) -> Result<(), GpuError> {
    let expected = dims[0] * dims[1] * dims[2];
    if light.len() != expected {
        return Err(GpuError::Invalid(format!(
            "terrain meshes: chunk {key:?}: the light grid holds {} values but the density grid \
             of {dims:?} samples needs {expected}",
            light.len()
        )));
    }
    if let Some(index) = light.iter().position(|value| !value.is_finite()) {
        let position = [
            index % dims[0],
            index / dims[0] % dims[1],
            index / (dims[0] * dims[1]),
        ];
        return Err(GpuError::Invalid(format!(
            "terrain meshes: chunk {key:?}: light value {index} at (x, y, z) = {position:?} is \
             {}, not a finite number",
            light[index]
        )));
    }
    Ok(())
}
