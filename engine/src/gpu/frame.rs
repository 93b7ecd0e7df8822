//! Frames in flight: a ring of two, each with its own command pool, acquire semaphore and GPU
//! timestamps.
//!
//! ```text
//!   frame 0: record ─ submit (#41) ───────────────▶ GPU runs #41
//!   frame 1:          record ─ submit (#42) ──────────────▶ GPU runs #42
//!   frame 0:                    wait #41 ─ read timestamps ─ record ─ submit (#43)
//! ```
//! The CPU records one frame while the GPU runs the other. Before a slot is reused, the timeline
//! must have passed its last submission; only then are its command buffer and its acquire
//! semaphore free (Granite's `PerFrame`). Objects dropped while a frame records are kept until
//! that frame has run by the device's deferred destruction (`super::deferred`): the ring tells
//! the device when a recording begins and ends.

use std::sync::Arc;

use ash::vk;

use super::barrier::BufferAccess;
use super::buffer::Buffer;
use super::debug::label_colour;
use super::device::{Device, Recording, SemaphoreWait, Submission};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::graph::{self, FrameGraph, ImageUse};
use super::image::{Image, ImageAccess};
use super::transient::{Transient, TransientRange, TransientUse};

/// Frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: usize = 2;

/// Timed passes per frame at most (two timestamps each).
pub const MAX_PASSES: u32 = 64;

/// GPU time of one labelled pass of a finished frame.
#[derive(Debug, Clone, PartialEq)]
pub struct PassTiming {
    pub name: String,
    pub milliseconds: f64,
}

struct PerFrame {
    pool: vk::CommandPool,
    command_buffer: vk::CommandBuffer,
    acquire: vk::Semaphore,
    query_pool: vk::QueryPool,
    /// Timeline value of the frame's last submission (0: never submitted).
    submitted: u64,
    pass_names: Vec<String>,
    open_passes: Vec<u32>,
    /// The frame's transient memory (`super::transient`).
    transient: Transient,
}

/// The ring of frames.
pub struct FrameRing {
    device: Arc<Device>,
    frames: Vec<PerFrame>,
    current: usize,
    /// Held from `begin` to `submit` or `abandon`: a frame is being recorded (and deferred
    /// destruction keeps what is dropped meanwhile until the frame has run).
    recording: Option<Recording>,
    /// Recordings begun so far (submitted, abandoned, or the one open now).
    recordings_begun: u64,
    frame_number: u64,
    last_timings: Vec<PassTiming>,
    /// What the frame being recorded did so far, for the barriers its passes need
    /// (`super::graph`).
    graph: FrameGraph,
}

impl FrameRing {
    pub fn new(device: &Arc<Device>) -> GpuResult<Self> {
        let mut frames = Vec::with_capacity(FRAMES_IN_FLIGHT);
        for index in 0..FRAMES_IN_FLIGHT {
            let pool_info = vk::CommandPoolCreateInfo::default()
                .queue_family_index(device.adapter.queue_family)
                .flags(vk::CommandPoolCreateFlags::TRANSIENT);
            // SAFETY: valid create infos on a live device, here and below.
            let pool = unsafe { device.raw.create_command_pool(&pool_info, None) }
                .vk("vkCreateCommandPool(frame)")?;
            device.set_name(pool, &format!("frame {index}: command pool"));
            let allocate = vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            // SAFETY: as above.
            let command_buffer = unsafe { device.raw.allocate_command_buffers(&allocate) }
                .vk("vkAllocateCommandBuffers(frame)")?[0];
            device.set_name(command_buffer, &format!("frame {index}: commands"));
            // SAFETY: as above.
            let acquire = unsafe {
                device
                    .raw
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }
            .vk("vkCreateSemaphore(acquire)")?;
            device.set_name(acquire, &format!("frame {index}: image acquired"));
            let query_info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(MAX_PASSES * 2);
            // SAFETY: as above.
            let query_pool = unsafe { device.raw.create_query_pool(&query_info, None) }
                .vk("vkCreateQueryPool(timestamps)")?;
            device.set_name(query_pool, &format!("frame {index}: pass timestamps"));
            // SAFETY: hostQueryReset is enabled; the pool is new and unused.
            unsafe { device.raw.reset_query_pool(query_pool, 0, MAX_PASSES * 2) };
            frames.push(PerFrame {
                pool,
                command_buffer,
                acquire,
                query_pool,
                submitted: 0,
                pass_names: Vec::new(),
                open_passes: Vec::new(),
                transient: Transient::default(),
            });
        }
        Ok(Self {
            device: device.clone(),
            frames,
            current: 0,
            recording: None,
            recordings_begun: 0,
            frame_number: 0,
            last_timings: Vec::new(),
            graph: FrameGraph::default(),
        })
    }

    /// Waits for the next slot to be free, collects its timings, destroys the dropped objects
    /// the GPU is done with, and starts recording the slot's command buffer.
    pub fn begin(&mut self) -> GpuResult<vk::CommandBuffer> {
        if self.recording.is_some() {
            return Err(GpuError::Invalid(
                "FrameRing::begin while a frame is recording".into(),
            ));
        }
        self.current = (self.frame_number % FRAMES_IN_FLIGHT as u64) as usize;
        let device = self.device.clone();
        let frame = &mut self.frames[self.current];
        device.wait_for(frame.submitted)?;
        if frame.submitted != 0 {
            self.last_timings = read_timings(&device, frame)?;
        }
        device.destroy_finished()?;
        frame.pass_names.clear();
        frame.open_passes.clear();
        frame.transient.begin(&device, self.current)?;
        // SAFETY: the frame's submission finished (waited above), so its command buffer is not
        // pending; host query reset is enabled.
        unsafe {
            device
                .raw
                .reset_command_pool(frame.pool, vk::CommandPoolResetFlags::empty())
                .vk("vkResetCommandPool")?;
            device
                .raw
                .reset_query_pool(frame.query_pool, 0, MAX_PASSES * 2);
            device
                .raw
                .begin_command_buffer(
                    frame.command_buffer,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .vk("vkBeginCommandBuffer(frame)")?;
        }
        self.recording = Some(device.begin_recording());
        self.recordings_begun += 1;
        self.graph.begin_frame();
        Ok(frame.command_buffer)
    }

    /// Which recording is open: a number that every `begin` raises (so a frame abandoned and
    /// begun again is a new recording, though its frame number stays), or `None` between
    /// `submit`/`abandon` and the next `begin`. Renderers that keep per-use state tell "in
    /// this frame" from "in an earlier frame" by it: an earlier recording has been submitted
    /// or abandoned, so [`Device::last_submitted`] now covers whatever it used.
    pub fn recording(&self) -> Option<u64> {
        self.recording.as_ref().map(|_| self.recordings_begun)
    }

    /// Writes `data` into the frame's transient memory for `use_` (`super::transient`): valid
    /// for the draws of this frame only. Only while a frame records.
    pub fn transient<T: bytemuck::Pod>(
        &mut self,
        use_: TransientUse,
        data: &[T],
    ) -> GpuResult<TransientRange> {
        let recording = self.recording().ok_or_else(|| {
            GpuError::Invalid("transient memory asked for while no frame records".into())
        })?;
        let device = self.device.clone();
        self.frames[self.current]
            .transient
            .write(&device, (self.current, recording), use_, data)
    }

    /// The buffer a range of this frame's transient memory lies in (at `range.offset`).
    pub fn transient_buffer(&self, range: &TransientRange) -> GpuResult<&Buffer> {
        let recording = self.recording().ok_or_else(|| {
            GpuError::Invalid("transient memory asked for while no frame records".into())
        })?;
        self.frames[self.current].transient.buffer(range, recording)
    }

    /// Bytes of transient memory the ring's frames hold.
    pub fn transient_bytes(&self) -> u64 {
        self.frames
            .iter()
            .map(|frame| frame.transient.bytes())
            .sum()
    }

    /// Declares the next pass's images and buffer reads to the frame graph and records the
    /// barriers it derives (`super::graph`). Only while a frame records.
    pub fn declare_pass(&mut self, images: &[ImageUse], reads: &[BufferAccess]) -> GpuResult<()> {
        if self.recording.is_none() {
            return Err(GpuError::Invalid(
                "a pass declared while no frame records".into(),
            ));
        }
        let derived = self.graph.derive(images, reads)?;
        graph::record(&self.device, self.command_buffer(), &derived);
        Ok(())
    }

    /// Declares the next compute pass's buffer reads and writes to the frame graph and records
    /// the barriers it derives ([`FrameGraph::derive_compute`]); the passes after it that read
    /// buffers get a barrier from its writes. Only while a frame records.
    pub fn declare_compute(
        &mut self,
        reads: &[BufferAccess],
        writes: &[BufferAccess],
    ) -> GpuResult<()> {
        if self.recording.is_none() {
            return Err(GpuError::Invalid(
                "a compute pass declared while no frame records".into(),
            ));
        }
        let derived = self.graph.derive_compute(reads, writes)?;
        graph::record(&self.device, self.command_buffer(), &derived);
        Ok(())
    }

    /// Records the barrier that hands `image` on at the end of the frame (to the presentation
    /// engine) from its last use in the frame.
    pub fn hand_on(
        &mut self,
        image: vk::Image,
        range: vk::ImageSubresourceRange,
        to: ImageAccess,
    ) -> GpuResult<()> {
        let derived = self.graph.hand_on(image, range, to)?;
        graph::record(&self.device, self.command_buffer(), &[derived]);
        Ok(())
    }

    /// The frame graph, for what is recorded outside passes (a readback's copy says what it
    /// left the image as: [`FrameGraph::import`]).
    pub fn graph(&mut self) -> &mut FrameGraph {
        &mut self.graph
    }

    /// The command buffer of the frame being recorded.
    pub fn command_buffer(&self) -> vk::CommandBuffer {
        self.frames[self.current].command_buffer
    }

    /// The semaphore to acquire a swapchain image with in this frame.
    pub fn acquire_semaphore(&self) -> vk::Semaphore {
        self.frames[self.current].acquire
    }

    /// The slot of the frame being recorded, `0..FRAMES_IN_FLIGHT`: which of a renderer's
    /// per-frame resources it may write (the slot's last submission has finished).
    pub fn slot(&self) -> usize {
        self.current
    }

    /// The frame's number, counting from 0.
    pub fn frame_number(&self) -> u64 {
        self.frame_number
    }

    /// Opens the label and the first timestamp of a pass begun through [`FrameRing::pass`]; the
    /// returned end closes both (the guard's drop). Only while a frame records.
    pub(crate) fn open_pass<'d>(
        &mut self,
        device: &'d Device,
        name: &str,
        colour: [f32; 4],
    ) -> GpuResult<PassEnd<'d>> {
        if self.recording.is_none() {
            return Err(GpuError::Invalid(format!(
                "pass `{name}` begun while no frame records"
            )));
        }
        let frame = &mut self.frames[self.current];
        device.begin_label(frame.command_buffer, name, colour);
        let index = frame.pass_names.len() as u32;
        frame.pass_names.push(name.to_owned());
        let query = (device.adapter.timestamps && index < MAX_PASSES).then_some(index * 2 + 1);
        if query.is_some() {
            // SAFETY: recording; query `2 * index` was reset at `begin`.
            unsafe {
                device.cmd_write_timestamp2(
                    frame.command_buffer,
                    vk::PipelineStageFlags2::TOP_OF_PIPE,
                    frame.query_pool,
                    index * 2,
                )
            };
        }
        Ok(PassEnd {
            device,
            command_buffer: frame.command_buffer,
            query_pool: frame.query_pool,
            query,
            open: true,
        })
    }

    /// Opens a labelled, timed pass: a debug label for RenderDoc and a timestamp pair.
    pub fn begin_pass(&mut self, name: &str) {
        self.begin_pass_coloured(name, label_colour::GRAPHICS);
    }

    /// As [`FrameRing::begin_pass`] with a label colour (compute passes use another).
    pub fn begin_pass_coloured(&mut self, name: &str, colour: [f32; 4]) {
        let device = &self.device;
        let frame = &mut self.frames[self.current];
        device.begin_label(frame.command_buffer, name, colour);
        let index = frame.pass_names.len() as u32;
        frame.pass_names.push(name.to_owned());
        frame.open_passes.push(index);
        if device.adapter.timestamps && index < MAX_PASSES {
            // SAFETY: recording; query `2 * index` was reset at `begin`.
            unsafe {
                device.cmd_write_timestamp2(
                    frame.command_buffer,
                    vk::PipelineStageFlags2::TOP_OF_PIPE,
                    frame.query_pool,
                    index * 2,
                )
            };
        }
    }

    /// Closes the innermost open pass.
    pub fn end_pass(&mut self) {
        let device = &self.device;
        let frame = &mut self.frames[self.current];
        let Some(index) = frame.open_passes.pop() else {
            log::error!("end_pass without an open pass");
            return;
        };
        if device.adapter.timestamps && index < MAX_PASSES {
            // SAFETY: recording; the query was reset at `begin`.
            unsafe {
                device.cmd_write_timestamp2(
                    frame.command_buffer,
                    vk::PipelineStageFlags2::BOTTOM_OF_PIPE,
                    frame.query_pool,
                    index * 2 + 1,
                )
            };
        }
        device.end_label(frame.command_buffer);
    }

    /// Says that `image` is kept from frame to frame (a depth target, the shadow atlas): from
    /// the next frame on, each frame starts it in the state the last submitted frame left it
    /// in (`FrameGraph::keep`). Call it each frame that uses the image, before its first pass.
    pub fn keep(&mut self, image: &Image) {
        self.graph.keep(image.raw, image.id());
    }

    /// Ends recording and submits the frame.
    pub fn submit(&mut self, waits: &[SemaphoreWait], signals: &[vk::Semaphore]) -> GpuResult<u64> {
        if self.recording.is_none() {
            return Err(GpuError::Invalid("FrameRing::submit without begin".into()));
        }
        let device = self.device.clone();
        let frame = &mut self.frames[self.current];
        while !frame.open_passes.is_empty() {
            log::error!("pass left open at submit; closing it");
            frame.open_passes.pop();
            device.end_label(frame.command_buffer);
        }
        // SAFETY: recording and complete.
        let submitted = unsafe { device.raw.end_command_buffer(frame.command_buffer) }
            .vk("vkEndCommandBuffer(frame)")
            .and_then(|()| {
                device.submit(Submission {
                    command_buffers: &[frame.command_buffer],
                    waits,
                    signals,
                })
            });
        // Submitted or not, this recording is over: what was dropped during it is keyed now.
        self.recording = None;
        let value = submitted?;
        frame.submitted = value;
        self.graph.end_frame(self.frame_number);
        self.frame_number += 1;
        Ok(value)
    }

    /// Ends recording without submitting (the swapchain went out of date mid-frame).
    pub fn abandon(&mut self) -> GpuResult<()> {
        if self.recording.is_some() {
            let frame = &mut self.frames[self.current];
            frame.open_passes.clear();
            frame.pass_names.clear();
            self.recording = None;
            // SAFETY: recording; ending it lets `begin` reset the pool.
            unsafe { self.device.raw.end_command_buffer(frame.command_buffer) }
                .vk("vkEndCommandBuffer(abandoned frame)")?;
        }
        Ok(())
    }

    /// GPU times of the passes of the latest finished frame.
    pub fn last_timings(&self) -> &[PassTiming] {
        &self.last_timings
    }

    /// Waits for every frame, then reads the timings of the latest one.
    pub fn wait_all(&mut self) -> GpuResult<()> {
        self.device.wait_idle()?;
        if self.frame_number > 0 && self.recording.is_none() {
            let last = ((self.frame_number - 1) % FRAMES_IN_FLIGHT as u64) as usize;
            let device = self.device.clone();
            let frame = &mut self.frames[last];
            if frame.submitted != 0 && !frame.pass_names.is_empty() {
                self.last_timings = read_timings(&device, frame)?;
                frame.pass_names.clear();
                // SAFETY: the frame finished; host reset is enabled.
                unsafe {
                    device
                        .raw
                        .reset_query_pool(frame.query_pool, 0, MAX_PASSES * 2)
                };
            }
        }
        Ok(())
    }
}

fn read_timings(device: &Device, frame: &PerFrame) -> GpuResult<Vec<PassTiming>> {
    let passes = (frame.pass_names.len() as u32).min(MAX_PASSES);
    if !device.adapter.timestamps || passes == 0 {
        return Ok(Vec::new());
    }
    let mut stamps = vec![0u64; passes as usize * 2];
    // SAFETY: the frame finished, so every query written in it is available; only those are
    // read.
    let read = unsafe {
        device.raw.get_query_pool_results(
            frame.query_pool,
            0,
            &mut stamps,
            vk::QueryResultFlags::TYPE_64,
        )
    };
    match read {
        Ok(()) => {}
        // A pass that was never closed leaves its second query unwritten: no timings then.
        Err(vk::Result::NOT_READY) => return Ok(Vec::new()),
        Err(result) => {
            return Err(GpuError::Vulkan {
                call: "vkGetQueryPoolResults",
                result,
            })
        }
    }
    let period = device.adapter.limits.timestamp_period as f64;
    Ok(frame
        .pass_names
        .iter()
        .take(passes as usize)
        .enumerate()
        .map(|(i, name)| PassTiming {
            name: name.clone(),
            milliseconds: stamps[2 * i + 1].saturating_sub(stamps[2 * i]) as f64 * period / 1e6,
        })
        .collect())
}

impl Drop for FrameRing {
    fn drop(&mut self) {
        if let Err(error) = self.device.wait_idle() {
            log::error!("waiting for frames before dropping them: {error}");
        }
        self.recording = None;
        for frame in &mut self.frames {
            // SAFETY: every frame finished (waited above).
            unsafe {
                self.device.raw.destroy_query_pool(frame.query_pool, None);
                self.device.raw.destroy_semaphore(frame.acquire, None);
                self.device.raw.destroy_command_pool(frame.pool, None);
            }
        }
    }
}

/// The end of a pass begun through [`FrameRing::pass`]: its closing timestamp and label.
pub(crate) struct PassEnd<'d> {
    device: &'d Device,
    command_buffer: vk::CommandBuffer,
    query_pool: vk::QueryPool,
    /// The closing timestamp's query, where the device times passes.
    query: Option<u32>,
    open: bool,
}

impl PassEnd<'_> {
    pub(crate) fn command_buffer(&self) -> vk::CommandBuffer {
        self.command_buffer
    }

    /// Writes the closing timestamp and ends the label (once).
    pub(crate) fn close_in_place(&mut self) {
        if !std::mem::replace(&mut self.open, false) {
            return;
        }
        if let Some(query) = self.query {
            // SAFETY: recording; the query was reset at `begin`.
            unsafe {
                self.device.cmd_write_timestamp2(
                    self.command_buffer,
                    vk::PipelineStageFlags2::BOTTOM_OF_PIPE,
                    self.query_pool,
                    query,
                )
            };
        }
        self.device.end_label(self.command_buffer);
    }

    pub(crate) fn close(mut self) {
        self.close_in_place();
    }
}
