//! Deferred destruction: dropping a GPU object is always safe. A buffer that a running
//! submission reads, one that the frame being recorded has bound, a pipeline with its sets and
//! buffers right after its dispatch, an upload's destination before the upload is submitted —
//! each is dropped at once, under the validation layer, with no error; its handles wait in the
//! device's queue until the timeline has passed every submission that may use them, and the data
//! the GPU read from it was intact.

use blockfall_engine::gpu::{
    vk, Buffer, BufferDesc, Device, FrameRing, MemoryLocation, OneTimeCommands,
};
use blockfall_engine::meshing::{DensityGrid, GpuMesher, GridRegion, Mesher};

use crate::common::{self, assert_no_validation_errors};
use crate::meshes::sphere_grid;

/// 8 MiB of a counting pattern: long enough that lavapipe copies it while the test goes on.
const WORDS: usize = 2 << 20;

fn pattern() -> Vec<u32> {
    (0..WORDS as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect()
}

fn buffer(device: &std::sync::Arc<Device>, name: &str, location: MemoryLocation) -> Buffer {
    Buffer::new(
        device,
        &BufferDesc {
            name,
            size: (WORDS * 4) as u64,
            usage: vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
            location,
        },
    )
    .unwrap()
}

/// Records a copy of the whole of `src` into `dst`.
fn record_copy(device: &Device, command_buffer: vk::CommandBuffer, src: &Buffer, dst: &Buffer) {
    let region = vk::BufferCopy {
        src_offset: 0,
        dst_offset: 0,
        size: src.size,
    };
    // SAFETY: recording; both buffers are live handles of this device, the region lies in both.
    unsafe {
        device
            .raw
            .cmd_copy_buffer(command_buffer, src.raw, dst.raw, &[region])
    };
}

/// A device-local source filled with [`pattern`] and a mapped destination.
fn source_and_destination(gpu: &mut blockfall_engine::gpu::Gpu) -> (Buffer, Buffer) {
    let device = gpu.device.clone();
    let source = buffer(&device, "lifetimes: source", MemoryLocation::GpuOnly);
    let destination = buffer(&device, "lifetimes: destination", MemoryLocation::GpuToCpu);
    let mut batch = gpu.uploader.begin("lifetimes: pattern");
    batch
        .buffer(&source, 0, bytemuck::cast_slice(&pattern()))
        .unwrap();
    batch.submit().unwrap();
    // The upload done and its staging buffer destroyed: the tests count from nothing retired.
    device.wait_idle().unwrap();
    assert_eq!(device.retired_objects(), 0);
    (source, destination)
}

#[test]
fn a_buffer_that_a_running_submission_reads_is_dropped_at_once_without_harm() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    device.wait_idle().unwrap();
    let allocations = device.memory_report().allocations;
    let (source, destination) = source_and_destination(&mut gpu);

    let mut frames = FrameRing::new(&device).unwrap();
    let command_buffer = frames.begin().unwrap();
    record_copy(&device, command_buffer, &source, &destination);
    let copy = frames.submit(&[], &[]).unwrap();
    // The copy is submitted, not waited for: the source goes now.
    drop(source);
    assert_eq!(
        device.retired_objects(),
        1,
        "kept while the copy may read it"
    );
    assert_eq!(device.memory_report().allocations, allocations + 2);

    device.wait_for(copy).unwrap();
    device.destroy_finished().unwrap();
    assert_eq!(
        device.retired_objects(),
        0,
        "destroyed once the copy finished"
    );
    assert_eq!(destination.read::<u32>().unwrap(), pattern(), "read intact");
    drop(destination);
    drop(frames);
    device.wait_idle().unwrap();
    assert_eq!(
        device.memory_report().allocations,
        allocations,
        "nothing leaks"
    );
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_buffer_dropped_while_its_frame_records_lives_until_the_frame_has_run() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let (source, destination) = source_and_destination(&mut gpu);

    let mut frames = FrameRing::new(&device).unwrap();
    let command_buffer = frames.begin().unwrap();
    record_copy(&device, command_buffer, &source, &destination);
    // Bound in a command buffer not yet submitted: destroying it now would invalidate the
    // command buffer, and the submit below would be a validation error.
    drop(source);
    assert_eq!(device.retired_objects(), 1);
    frames.submit(&[], &[]).unwrap();
    assert_eq!(
        device.retired_objects(),
        1,
        "its frame was only just submitted"
    );
    frames.wait_all().unwrap();
    assert_eq!(device.retired_objects(), 0);
    assert_eq!(destination.read::<u32>().unwrap(), pattern());
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_frame_abandoned_after_a_drop_still_frees_what_it_held() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let (source, destination) = source_and_destination(&mut gpu);
    let mut frames = FrameRing::new(&device).unwrap();
    let command_buffer = frames.begin().unwrap();
    record_copy(&device, command_buffer, &source, &destination);
    drop(source);
    frames.abandon().unwrap();
    device.wait_idle().unwrap();
    assert_eq!(
        device.retired_objects(),
        0,
        "abandoned: nothing will use it"
    );
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_mesher_dropped_right_after_its_dispatches_leaves_the_gpu_to_finish() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    device.wait_idle().unwrap();
    let allocations = device.memory_report().allocations;
    let mut frames = FrameRing::new(&device).unwrap();
    let dims = [34; 3];
    let samples = sphere_grid(dims, [17.0; 3], 12.0);
    let mut mesher = GpuMesher::new(&device, Mesher::SurfaceNets).unwrap();
    mesher
        .mesh(
            &mut gpu,
            &mut frames,
            DensityGrid::new(&samples, dims).unwrap(),
            GridRegion::owned_edges_of_padded_grid(dims),
        )
        .unwrap();
    // Its pipelines, layouts, descriptor pools and buffers, all while the passes may run.
    drop(mesher);
    assert!(
        device.retired_objects() > 10,
        "{}",
        device.retired_objects()
    );
    drop(frames);
    device.wait_idle().unwrap();
    assert_eq!(device.retired_objects(), 0);
    assert_eq!(device.memory_report().allocations, allocations);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn an_uploads_destination_dropped_before_the_submit_is_kept_for_the_copy() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let destination = buffer(&device, "lifetimes: upload target", MemoryLocation::GpuOnly);
    let mut batch = gpu
        .uploader
        .begin("lifetimes: upload into a dropped buffer");
    batch
        .buffer(&destination, 0, bytemuck::cast_slice(&pattern()))
        .unwrap();
    drop(destination);
    let copy = batch.submit().unwrap();
    assert!(device.retired_objects() >= 1);
    device.wait_for(copy).unwrap();
    device.wait_idle().unwrap();
    assert_eq!(device.retired_objects(), 0);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn one_time_commands_keep_what_was_dropped_while_they_recorded() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let (source, destination) = source_and_destination(&mut gpu);
    let commands = OneTimeCommands::new(&device, "lifetimes: one-time copy").unwrap();
    record_copy(&device, commands.command_buffer(), &source, &destination);
    drop(source);
    assert_eq!(device.retired_objects(), 1);
    commands.submit_and_wait().unwrap();
    device.destroy_finished().unwrap();
    assert_eq!(device.retired_objects(), 0);
    assert_eq!(destination.read::<u32>().unwrap(), pattern());
    assert_no_validation_errors(&gpu, before);
}
