//! [`Retire`]: things kept until the GPU is done with them, keyed by the one timeline.
//!
//! The rule is the same for everything below the object level that a submission may still
//! use once the CPU lets go of it — a range of a mesh arena, an upload's command buffer, a
//! texture egui gave up: it is kept with the timeline value of the last submission that may
//! use it, and handed back for reuse or freeing once the timeline has passed that value
//! ([`Retire::release`]). Something let go of while a frame is being recorded does not know
//! that value yet (the frame is not submitted): it is kept with the recording's number
//! ([`Retire::in_recording`]) and keyed once that recording is over ([`Retire::settle`]:
//! submitted or abandoned, the latest submitted value covers it). Whole Vulkan objects go the
//! same way through the device's deferred destruction (`super::deferred`), which keys what is
//! dropped during a recording when the recording ends.
//!
//! ```text
//!   retire ─▶ waiting (value) ──── timeline ≥ value ───▶ release(item)
//!   in_recording ─▶ (recording) ── settle ──▶ waiting (last submitted value)
//! ```

/// Items kept until the timeline passes the submissions that may use them.
#[derive(Debug)]
pub struct Retire<T> {
    /// Let go of during a recording not yet over: with its number.
    recording: Vec<(u64, T)>,
    /// With the timeline value after which nothing uses them, in the order let go of.
    waiting: Vec<(u64, T)>,
}

impl<T> Default for Retire<T> {
    fn default() -> Self {
        Self {
            recording: Vec::new(),
            waiting: Vec::new(),
        }
    }
}

impl<T> Retire<T> {
    /// `item` may be used by submissions up to timeline value `after` (usually
    /// `Device::last_submitted` when nothing is being recorded that uses it).
    pub fn after(&mut self, after: u64, item: T) {
        self.waiting.push((after, item));
    }

    /// `item` may be used by recording `recording` (`FrameRing::recording`), not submitted yet.
    pub fn in_recording(&mut self, recording: u64, item: T) {
        self.recording.push((recording, item));
    }

    /// The recordings other than `current` are over (submitted or abandoned): their items are
    /// keyed with `last_submitted`, which covers whatever they were submitted as.
    pub fn settle(&mut self, current: Option<u64>, last_submitted: u64) {
        let (open, over): (Vec<_>, Vec<_>) = std::mem::take(&mut self.recording)
            .into_iter()
            .partition(|(recording, _)| Some(*recording) == current);
        self.recording = open;
        self.waiting
            .extend(over.into_iter().map(|(_, item)| (last_submitted, item)));
    }

    /// Hands every item the timeline has passed (`completed`) to `release`, in the order they
    /// were let go of; the others stay. On an error the item that failed is gone and the ones
    /// not reached yet stay.
    pub fn release<E>(
        &mut self,
        completed: u64,
        mut release: impl FnMut(T) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut kept = Vec::new();
        let mut items = std::mem::take(&mut self.waiting).into_iter();
        let mut outcome = Ok(());
        for (value, item) in items.by_ref() {
            if value > completed {
                kept.push((value, item));
            } else if let Err(error) = release(item) {
                outcome = Err(error);
                break;
            }
        }
        kept.extend(items);
        self.waiting = kept;
        outcome
    }

    /// Items kept, in and out of recordings.
    pub fn len(&self) -> usize {
        self.recording.len() + self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every item kept, in no particular order.
    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.recording
            .iter()
            .chain(&self.waiting)
            .map(|(_, item)| item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_back_once_the_timeline_passes_them_in_the_order_let_go() {
        let mut retire = Retire::default();
        retire.after(5, "a");
        retire.after(3, "b");
        retire.after(7, "c");
        let mut released = Vec::new();
        retire
            .release(4, |item| -> Result<(), ()> {
                released.push(item);
                Ok(())
            })
            .unwrap();
        assert_eq!(released, ["b"]);
        retire
            .release(7, |item| -> Result<(), ()> {
                released.push(item);
                Ok(())
            })
            .unwrap();
        assert_eq!(released, ["b", "a", "c"]);
        assert!(retire.is_empty());
    }

    #[test]
    fn what_a_recording_let_go_waits_for_its_submission() {
        let mut retire = Retire::default();
        retire.in_recording(2, "texture");
        // Recording 2 still open: nothing is keyed, nothing released however far the timeline.
        retire.settle(Some(2), 10);
        let mut released = Vec::new();
        let mut take = |item| -> Result<(), ()> {
            released.push(item);
            Ok(())
        };
        retire.release(u64::MAX, &mut take).unwrap();
        assert_eq!(retire.len(), 1);
        // Recording 3 begun: 2 was submitted (as at most 11), so the texture waits for 11.
        retire.settle(Some(3), 11);
        retire.release(10, &mut take).unwrap();
        assert_eq!(retire.items().count(), 1);
        retire.release(11, &mut take).unwrap();
        assert_eq!(released, ["texture"]);
    }

    #[test]
    fn an_error_keeps_what_was_not_reached() {
        let mut retire = Retire::default();
        for value in 1..=3 {
            retire.after(value, value);
        }
        let outcome = retire.release(3, |item| if item == 2 { Err(item) } else { Ok(()) });
        assert_eq!(outcome, Err(2));
        assert_eq!(retire.items().copied().collect::<Vec<_>>(), [3]);
    }
}
