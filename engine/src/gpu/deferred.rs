//! Deferred destruction: every GPU object's `Drop` hands its handles here, and they are destroyed
//! once the device's timeline has passed the last submission that may use them (as Granite does).
//!
//! ```text
//!   drop(buffer) ──▶ Device::defer(Retired::Buffer)
//!                      │ no command buffer recording: key = last submitted value (#41)
//!                      │ one recording (a frame, one-time commands): held open until every
//!                      │   recording open now has ended, then key = last submitted value then
//!                      ▼
//!   queue  [ (#39, image) (#41, buffer) (#43, pipeline) … ]   keys never decrease
//!                      │
//!   collect: timeline counter ≥ key ──▶ vkDestroy* and the memory back to the allocator
//!   (every submit, every frame begin, wait_idle; all of it when the device drops)
//! ```
//!
//! So a safe `drop` can never free memory the GPU still reads: not a buffer a submitted frame
//! draws from, nor one that the frame being recorded has already bound. Owners need no retire
//! lists and no waits of their own.

use std::collections::VecDeque;

use ash::vk;
use gpu_allocator::vulkan::Allocation;

/// Handles of a dropped object, waiting for the GPU to be done with them.
#[derive(Debug)]
pub(crate) enum Retired {
    Buffer {
        raw: vk::Buffer,
        allocation: Option<Allocation>,
    },
    Image {
        raw: vk::Image,
        view: vk::ImageView,
        allocation: Option<Allocation>,
    },
    Pipeline(vk::Pipeline),
    PipelineLayout(vk::PipelineLayout),
    /// A descriptor pool (its sets go with it) and the layout of its sets.
    DescriptorPool {
        pool: vk::DescriptorPool,
        layout: vk::DescriptorSetLayout,
    },
    Sampler(vk::Sampler),
    CommandPool(vk::CommandPool),
    /// A bindless slot whose texture was dropped: handed back to its table's list.
    BindlessSlot {
        slot: u32,
        returned: super::bindless::ReturnedSlots,
    },
    /// Another library's object that destroys its handles when dropped
    /// (`Device::retire_object`).
    Object(RetiredObject),
}

/// An object kept whole until the GPU is done with it, then dropped (its `Drop` does the work).
pub(crate) struct RetiredObject {
    _object: Box<dyn Send>,
}

impl RetiredObject {
    pub(crate) fn new(object: Box<dyn Send>) -> Self {
        Self { _object: object }
    }
}

impl std::fmt::Debug for RetiredObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RetiredObject")
    }
}

/// The queue of retired objects, keyed by timeline value, and the recordings still open.
#[derive(Debug, Default)]
pub(crate) struct DeferredQueue {
    /// Command buffers being recorded now (frames, one-time commands).
    recordings: usize,
    /// Retired while a recording was open: a submission not yet made may use them.
    awaiting_submission: Vec<Retired>,
    /// Retired objects with the timeline value after which nothing uses them, in order.
    queued: VecDeque<(u64, Retired)>,
}

impl DeferredQueue {
    /// Takes a dropped object; `last_submitted` is the device's latest timeline value.
    pub(crate) fn retire(&mut self, retired: Retired, last_submitted: u64) {
        if self.recordings > 0 {
            self.awaiting_submission.push(retired);
        } else {
            self.queued.push_back((last_submitted, retired));
        }
    }

    pub(crate) fn recording_began(&mut self) {
        self.recordings += 1;
    }

    /// A recording was submitted (or abandoned); `last_submitted` includes its submission.
    pub(crate) fn recording_ended(&mut self, last_submitted: u64) {
        self.recordings = self.recordings.saturating_sub(1);
        if self.recordings == 0 {
            // Every recording that was open when these were dropped has now been submitted (or
            // abandoned), so the latest value covers each submission that may use them.
            for retired in self.awaiting_submission.drain(..) {
                self.queued.push_back((last_submitted, retired));
            }
        }
    }

    /// Removes what the GPU is done with: everything keyed at or below `completed`.
    pub(crate) fn take_finished(&mut self, completed: u64) -> Vec<Retired> {
        let finished = self
            .queued
            .iter()
            .take_while(|(key, _)| *key <= completed)
            .count();
        self.queued.drain(..finished).map(|(_, r)| r).collect()
    }

    /// Removes everything (the device is idle and about to go).
    pub(crate) fn take_all(&mut self) -> Vec<Retired> {
        let mut all: Vec<Retired> = self.queued.drain(..).map(|(_, r)| r).collect();
        all.append(&mut self.awaiting_submission);
        all
    }

    /// Objects waiting to be destroyed.
    pub(crate) fn len(&self) -> usize {
        self.queued.len() + self.awaiting_submission.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

    fn pipeline(n: u64) -> Retired {
        Retired::Pipeline(vk::Pipeline::from_raw(n))
    }

    fn names(retired: &[Retired]) -> Vec<u64> {
        retired
            .iter()
            .map(|r| match r {
                Retired::Pipeline(p) => p.as_raw(),
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn an_object_dropped_between_recordings_waits_for_the_last_submission() {
        let mut queue = DeferredQueue::default();
        queue.retire(pipeline(1), 41);
        assert!(queue.take_finished(40).is_empty(), "#41 has not finished");
        assert_eq!(names(&queue.take_finished(41)), [1]);
        assert_eq!(queue.len(), 0);
    }

    #[test]
    fn an_object_dropped_while_recording_waits_for_that_recordings_submission() {
        let mut queue = DeferredQueue::default();
        queue.recording_began();
        queue.retire(pipeline(1), 41);
        // Nothing finished can free it: its user is not even submitted.
        assert!(queue.take_finished(u64::MAX).is_empty());
        queue.recording_ended(42);
        assert!(queue.take_finished(41).is_empty());
        assert_eq!(names(&queue.take_finished(42)), [1]);
    }

    #[test]
    fn overlapping_recordings_key_to_the_submission_of_the_last_to_end() {
        let mut queue = DeferredQueue::default();
        queue.recording_began();
        queue.recording_began();
        queue.retire(pipeline(1), 40);
        queue.recording_ended(41);
        queue.retire(pipeline(2), 41);
        queue.recording_ended(43);
        queue.retire(pipeline(3), 43);
        assert!(queue.take_finished(42).is_empty());
        assert_eq!(names(&queue.take_finished(43)), [1, 2, 3]);
        assert_eq!(queue.len(), 0);
    }

    #[test]
    fn take_all_empties_the_queue_and_what_awaits_submission() {
        let mut queue = DeferredQueue::default();
        queue.retire(pipeline(1), 5);
        queue.recording_began();
        queue.retire(pipeline(2), 5);
        assert_eq!(queue.len(), 2);
        assert_eq!(names(&queue.take_all()), [1, 2]);
        assert_eq!(queue.len(), 0);
    }
}
