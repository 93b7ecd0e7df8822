//! The backend's own rules, on a real device: clear errors for bad requests, the staging path,
//! the bindless table's slots, deferred destruction through the frame ring, timed passes.

use crate::common;

use blockfall_engine::gpu::{
    vk, BindlessTable, BoundTexture, Buffer, BufferDesc, FrameRing, GpuError, Image, ImageAccess,
    ImageDesc, MemoryLocation, TransientUse,
};

fn buffer_desc(name: &str, size: u64, location: MemoryLocation) -> BufferDesc<'_> {
    BufferDesc {
        name,
        size,
        usage: vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::STORAGE_BUFFER,
        location,
    }
}

fn texture_desc(name: &str, size: u32, layers: u32, mips: u32) -> ImageDesc<'_> {
    ImageDesc {
        name,
        format: vk::Format::R8G8B8A8_SRGB,
        width: size,
        height: size,
        layers,
        mips,
        usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
        view_type: vk::ImageViewType::TYPE_2D_ARRAY,
    }
}

#[test]
fn bad_resource_requests_are_clear_errors() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = &gpu.device;

    let empty = Buffer::new(device, &buffer_desc("empty", 0, MemoryLocation::CpuToGpu));
    assert!(matches!(empty, Err(GpuError::Invalid(ref m)) if m.contains("empty")));

    let mut small =
        Buffer::new(device, &buffer_desc("small", 16, MemoryLocation::CpuToGpu)).unwrap();
    let overrun = small.write(8, &[1u32, 2, 3]).unwrap_err().to_string();
    assert!(
        overrun.contains("small") && overrun.contains("overruns"),
        "{overrun}"
    );
    // New memory holds whatever it held before (Vulkan does not clear it; another test's
    // freed memory comes back here): the first word is written too.
    small.write(0, &[6u32]).unwrap();
    small.write(4, &[7u32, 8, 9]).unwrap();
    assert_eq!(small.read::<u32>().unwrap(), [6, 7, 8, 9]);

    // GPU-only memory may or may not be host-visible (it is on lavapipe); writing is refused
    // with a clear error exactly when it is not mapped.
    let mut gpu_only = Buffer::new(
        device,
        &buffer_desc("gpu only", 16, MemoryLocation::GpuOnly),
    )
    .unwrap();
    let mapped = gpu_only.mapped().is_some();
    let written = gpu_only.write(0, &[1u32]);
    match written {
        Ok(()) => assert!(mapped),
        Err(error) => assert!(
            !mapped && error.to_string().contains("not mapped"),
            "{error}"
        ),
    }

    let zero = Image::new(device, &texture_desc("zero", 0, 1, 1))
        .unwrap_err()
        .to_string();
    assert!(zero.contains("zero") && zero.contains("empty"), "{zero}");
    let too_many_mips = Image::new(device, &texture_desc("mips", 16, 1, 6))
        .unwrap_err()
        .to_string();
    assert!(too_many_mips.contains("mips"), "{too_many_mips}");

    common::assert_no_validation_errors(&gpu, before);
}

#[test]
fn staging_uploads_reach_buffers_and_check_sizes() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let target = Buffer::new(
        &device,
        &buffer_desc("upload target", 1024, MemoryLocation::GpuToCpu),
    )
    .unwrap();
    let data: Vec<u32> = (0..200).map(|i| i * 3 + 1).collect();
    let image = Image::new(&device, &texture_desc("upload image", 8, 2, 4)).unwrap();
    let not_dst = Buffer::new(
        &device,
        &BufferDesc {
            name: "no transfer",
            size: 64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::GpuOnly,
        },
    )
    .unwrap();

    let mut batch = gpu.uploader.begin("backend test");
    batch
        .buffer(&target, 64, bytemuck::cast_slice(&data))
        .unwrap();
    let overrun = batch
        .buffer(&target, 1000, &[0; 64])
        .unwrap_err()
        .to_string();
    assert!(overrun.contains("overruns"), "{overrun}");
    let usage = batch.buffer(&not_dst, 0, &[0; 4]).unwrap_err().to_string();
    assert!(usage.contains("TRANSFER_DST"), "{usage}");
    // 8×8 + 4×4 + 2×2 + 1×1 texels, 2 layers, 4 bytes each.
    let wrong = batch
        .image(&image, &[0; 100], ImageAccess::ShaderRead)
        .unwrap_err()
        .to_string();
    assert!(wrong.contains("needs 680 bytes"), "{wrong}");
    batch
        .image(&image, &[200; 680], ImageAccess::ShaderRead)
        .unwrap();
    let done = batch.submit().unwrap();
    device.wait_for(done).unwrap();
    assert!(device.completed().unwrap() >= done);

    let read = target.read::<u32>().unwrap();
    assert_eq!(&read[16..216], data.as_slice());
    gpu.uploader.reclaim().unwrap();
    assert_eq!(
        gpu.uploader.pending(),
        0,
        "finished staging buffers are freed"
    );
    common::assert_no_validation_errors(&gpu, before);
}

#[test]
fn bindless_slots_fill_up_and_a_dropped_textures_slot_returns_only_after_its_frame() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut table = BindlessTable::new(&device, 3).unwrap();
    assert_eq!(table.capacity(), 3);
    let image =
        |i: usize| Image::new(&device, &texture_desc(&format!("slot image {i}"), 4, 1, 1)).unwrap();
    let mut textures: Vec<Option<BoundTexture>> = (0..3)
        .map(|i| Some(table.bind(image(i)).unwrap()))
        .collect();
    let slots: Vec<u32> = textures.iter().flatten().map(|t| t.slot().0).collect();
    assert_eq!(slots, [0, 1, 2]);
    let full = table.bind(image(3)).unwrap_err().to_string();
    assert!(full.contains("full"), "{full}");

    // Dropped while a frame records: the frame may sample it, so the slot stays taken until
    // that frame has finished.
    let mut frames = FrameRing::new(&device).unwrap();
    frames.begin().unwrap();
    textures[1] = None;
    assert!(
        table.bind(image(4)).is_err(),
        "reused while its frame records"
    );
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    let again = table.bind(image(5)).unwrap();
    assert_eq!(again.slot().0, 1);
    assert_eq!(table.len(), 3);
    drop(frames);
    drop(textures);
    drop(again);
    drop(table);
    device.wait_idle().unwrap();
    common::assert_no_validation_errors(&gpu, before);
}

/// Regression: a dropped texture kept its bindless slot (nothing released it), so a material
/// texture rebuilt again and again ran the table out after 1,024 builds. Each build here is
/// uploaded (a submission) and sampled by nothing else; the slots come back as their uploads
/// finish.
#[test]
fn a_material_texture_dropped_and_made_again_2000_times_never_runs_the_table_out() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut table =
        BindlessTable::new(&device, blockfall_engine::gpu::bindless::DEFAULT_CAPACITY).unwrap();
    let capacity = table.capacity() as usize;
    let mut current: Option<BoundTexture> = None;
    let mut slots_seen = std::collections::BTreeSet::new();
    let pixels = [128u8; 4 * 4 * 4];
    for build in 0..2000 {
        let image = Image::new(&device, &texture_desc("rebuilt material", 4, 1, 1)).unwrap();
        let mut batch = gpu.uploader.begin("rebuilt material");
        batch
            .image(&image, &pixels, ImageAccess::ShaderRead)
            .unwrap();
        let uploaded = batch.submit().unwrap();
        device.wait_for(uploaded).unwrap();
        let texture = table
            .bind(image)
            .unwrap_or_else(|error| panic!("build {build}: {error}"));
        slots_seen.insert(texture.slot().0);
        // The old one goes as the new one takes its place, as a material rebuilt in play.
        current = Some(texture);
        assert!(
            table.len() <= 2,
            "build {build}: {} slots taken",
            table.len()
        );
    }
    assert!(2000 > capacity, "more builds than slots");
    assert!(
        slots_seen.len() < capacity,
        "slots reused: {} distinct",
        slots_seen.len()
    );
    drop(current);
    drop(table);
    device.wait_idle().unwrap();
    common::assert_no_validation_errors(&gpu, before);
}

#[test]
fn an_object_dropped_while_its_frame_records_lives_until_the_frame_finishes() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut frames = FrameRing::new(&device).unwrap();
    // Whatever earlier tests on this shared device retired is destroyed first, so the counts
    // below see only this test's buffer (the order tests run in is not fixed).
    device.wait_idle().unwrap();
    assert_eq!(device.retired_objects(), 0);
    let baseline = device.memory_report().allocations;
    let (buffers_before, _) = device.resources_created();

    let retired = Buffer::new(
        &device,
        &buffer_desc("retired", 256, MemoryLocation::GpuOnly),
    )
    .unwrap();
    assert_eq!(device.resources_created().0, buffers_before + 1);
    frames.begin().unwrap();
    frames.begin_pass("outer");
    frames.begin_pass("inner");
    frames.end_pass();
    frames.end_pass();
    drop(retired);
    frames.submit(&[], &[]).unwrap();
    assert_eq!(
        device.memory_report().allocations,
        baseline + 1,
        "kept while in flight"
    );
    assert_eq!(device.retired_objects(), 1);

    // The next frame uses the other slot; the one after reuses the first and frees it.
    frames.begin().unwrap();
    frames.submit(&[], &[]).unwrap();
    assert_eq!(
        frames.last_timings().len(),
        0,
        "the other slot has no timings yet"
    );
    frames.begin().unwrap();
    assert_eq!(
        device.memory_report().allocations,
        baseline,
        "freed once its frame finished"
    );
    assert_eq!(device.retired_objects(), 0);
    let names: Vec<&str> = frames
        .last_timings()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    if device.adapter.timestamps {
        assert_eq!(names, ["outer", "inner"]);
        let outer = frames.last_timings()[0].milliseconds;
        let inner = frames.last_timings()[1].milliseconds;
        assert!(
            outer >= inner && inner >= 0.0,
            "outer {outer} ms, inner {inner} ms"
        );
    }
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    drop(frames);
    common::assert_no_validation_errors(&gpu, before);
}

/// Per-frame transient memory: refused outside a frame; a frame that needs more than its chunk
/// gets another; the next time the slot comes round the two are one chunk of their size; a
/// range written in one frame is refused in another.
#[test]
fn transient_memory_is_the_frames_own_and_settles_on_one_chunk() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut frames = FrameRing::new(&device).unwrap();
    assert!(frames.transient(TransientUse::Vertex, &[1u32]).is_err());

    frames.begin().unwrap();
    let small = frames.transient(TransientUse::Vertex, &[7u32; 10]).unwrap();
    let large = frames
        .transient(TransientUse::Vertex, &vec![1u8; 100 * 1024])
        .unwrap();
    let commands = frames
        .transient(TransientUse::Indirect, &[0u32; 5])
        .unwrap();
    assert_eq!((small.offset, small.size), (0, 40));
    assert_eq!(large.offset, 0, "a second chunk");
    let first = frames.transient_buffer(&small).unwrap().raw;
    let second = frames.transient_buffer(&large).unwrap().raw;
    assert_ne!(first, second);
    assert!(frames
        .transient_buffer(&commands)
        .unwrap()
        .usage
        .contains(vk::BufferUsageFlags::INDIRECT_BUFFER));
    let held = frames.transient_bytes();
    frames.submit(&[], &[]).unwrap();

    // The other slot: the first frame's ranges are not this frame's.
    frames.begin().unwrap();
    assert!(frames.transient_buffer(&small).is_err());
    frames.submit(&[], &[]).unwrap();

    // The first slot again: its two vertex chunks are one, which the same load fits.
    frames.begin().unwrap();
    let small = frames.transient(TransientUse::Vertex, &[7u32; 10]).unwrap();
    let large = frames
        .transient(TransientUse::Vertex, &vec![1u8; 100 * 1024])
        .unwrap();
    assert_eq!(
        frames.transient_buffer(&small).unwrap().raw,
        frames.transient_buffer(&large).unwrap().raw,
        "one chunk"
    );
    assert!(
        large.offset >= 40 && large.offset.is_multiple_of(256),
        "{large:?}"
    );
    assert_eq!(frames.transient_bytes(), held, "no growth");
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    drop(frames);
    common::assert_no_validation_errors(&gpu, before);
}
