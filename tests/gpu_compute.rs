//! Compute on the GPU: a dispatch fills a storage buffer and counts with an atomic; the result
//! must equal the same computation on the CPU, bit for bit.

mod common;

use blockfall::shaders::LIBRARY;
use blockfall_engine::gpu::descriptors::BufferSetLayout;
use blockfall_engine::gpu::{
    debug::label_colour, image::memory_barrier, vk, Buffer, BufferDesc, FrameRing, MemoryLocation,
    Pipeline, PipelineLayout,
};

/// The shader's hash (lowbias32), on the CPU.
fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct FillPush {
    count: u32,
    divisor: u32,
}

fn run_fill(count: u32, divisor: u32) -> Option<(Vec<u32>, u32)> {
    let gpu = common::gpu()?;
    let before = gpu.validation_errors();
    let device = gpu.device.clone();

    let set_layout = BufferSetLayout::new(
        &device,
        "fill_count",
        &[
            vk::DescriptorType::STORAGE_BUFFER,
            vk::DescriptorType::STORAGE_BUFFER,
        ],
        vk::ShaderStageFlags::COMPUTE,
        1,
    )
    .unwrap();
    let layout = PipelineLayout::new(
        &device,
        "fill_count",
        &[set_layout.raw],
        std::mem::size_of::<FillPush>() as u32,
        vk::ShaderStageFlags::COMPUTE,
    )
    .unwrap();
    let pipeline = Pipeline::compute(
        &device,
        &layout,
        "fill_count",
        &LIBRARY.get("fill_count.comp").unwrap(),
    )
    .unwrap();
    let values = Buffer::new(
        &device,
        &BufferDesc {
            name: "fill_count: values",
            size: count as u64 * 4,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::GpuToCpu,
        },
    )
    .unwrap();
    let mut counter = Buffer::new(
        &device,
        &BufferDesc {
            name: "fill_count: counter",
            size: 4,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::GpuToCpu,
        },
    )
    .unwrap();
    counter.write(0, &[0u32]).unwrap();
    let set = set_layout
        .allocate("fill_count: buffers", &[&values, &counter])
        .unwrap();

    let mut frames = FrameRing::new(&device).unwrap();
    let command_buffer = frames.begin().unwrap();
    frames.begin_pass_coloured("fill_count", label_colour::COMPUTE);
    pipeline.bind(command_buffer);
    // SAFETY: recording; the set and layout are alive until the frame finishes (waited below).
    unsafe {
        device.raw.cmd_bind_descriptor_sets(
            command_buffer,
            vk::PipelineBindPoint::COMPUTE,
            layout.raw,
            0,
            &[set],
            &[],
        );
    }
    layout.push(command_buffer, &FillPush { count, divisor });
    // SAFETY: recording with a compute pipeline bound.
    unsafe {
        device
            .raw
            .cmd_dispatch(command_buffer, count.div_ceil(64), 1, 1)
    };
    memory_barrier(
        &device,
        command_buffer,
        (
            vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::SHADER_STORAGE_WRITE,
        ),
        (vk::PipelineStageFlags2::HOST, vk::AccessFlags2::HOST_READ),
    );
    frames.end_pass();
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();

    let timings = frames.last_timings();
    if device.adapter.timestamps {
        assert_eq!(timings.len(), 1, "one timed pass: {timings:?}");
        assert_eq!(timings[0].name, "fill_count");
        assert!(timings[0].milliseconds >= 0.0);
    }
    let result = (
        values.read::<u32>().unwrap(),
        counter.read::<u32>().unwrap()[0],
    );
    common::assert_no_validation_errors(&gpu, before);
    Some(result)
}

#[test]
fn dispatch_fills_a_buffer_and_counts_like_the_cpu() {
    // Not a multiple of the workgroup size: the tail invocations must do nothing.
    let count = 100_003;
    let divisor = 7;
    let Some((values, multiples)) = run_fill(count, divisor) else {
        return;
    };
    let expected: Vec<u32> = (0..count).map(hash).collect();
    assert_eq!(values.len(), expected.len());
    let first_wrong = values.iter().zip(&expected).position(|(a, b)| a != b);
    assert_eq!(first_wrong, None, "GPU and CPU hashes differ");
    let expected_multiples = expected.iter().filter(|v| *v % divisor == 0).count() as u32;
    assert_eq!(multiples, expected_multiples);
    assert!(multiples > 0);
}

#[test]
fn atomics_count_every_invocation_when_all_match() {
    let count = 4096 + 5;
    let Some((values, multiples)) = run_fill(count, 1) else {
        return;
    };
    assert_eq!(multiples, count, "every value is a multiple of 1");
    assert_eq!(values[4096], hash(4096));
}
