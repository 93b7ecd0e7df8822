//! A pool of worker threads for data-parallel work: chunk generation now, the physics later.
//!
//! Work is split by the items alone, never by the number of threads: a slice of `n` items is
//! cut into the same batches whether one thread or sixteen run them, each item is handed to
//! the job exactly once, and results come back in input order. So a job that is a pure
//! function of its item gives bitwise identical results for any thread count.
//!
//! Threads are spawned per call inside a `crossbeam` scope rather than kept alive and fed
//! through channels. A persistent pool can only run borrowed jobs (`&[T]`, a closure over the
//! caller's stack) by erasing their lifetimes with `unsafe`, as rayon does internally; a scope
//! proves to the compiler that every borrow outlives the threads. Spawning costs tens of
//! microseconds per thread, small next to a chunk of terrain or a physics step of many bodies,
//! and the calling thread works too, so a pool of one spawns nothing at all.
//!
//! A panic in a job does not hang the pool: the other threads finish the batches that are
//! left, the scope joins them all, and the panic is resumed on the calling thread.

use std::panic;
use std::sync::Mutex;

use crossbeam::channel;

/// The most threads a pool may have: more than any machine this runs on has cores, and few
/// enough that a typo (a thread count of 10 000) is caught instead of exhausting the system.
pub const MAX_THREADS: usize = 256;

/// Items per batch are chosen so that a slice is cut into at most this many batches: enough
/// to balance uneven jobs over 16 threads, few enough that handing out batches costs nothing.
const MOST_BATCHES: usize = 64;

/// Why a pool could not be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WorkerError {
    /// A pool needs at least the calling thread.
    #[error("a worker pool needs at least one thread, not 0")]
    NoThreads,
    /// More threads than [`MAX_THREADS`].
    #[error("{0} worker threads asked for; at most {MAX_THREADS} are allowed")]
    TooManyThreads(usize),
}

/// Runs jobs over slices on a fixed number of threads (the caller's included).
#[derive(Debug, Clone)]
pub struct WorkerPool {
    threads: usize,
}

impl WorkerPool {
    /// A pool of `threads` threads, the calling one included. Zero, or more than
    /// [`MAX_THREADS`], is an error rather than silently clamped: a thread count comes from a
    /// setting or a command line, and the user should learn that it was not used.
    pub fn new(threads: usize) -> Result<Self, WorkerError> {
        match threads {
            0 => Err(WorkerError::NoThreads),
            count if count > MAX_THREADS => Err(WorkerError::TooManyThreads(count)),
            count => Ok(Self { threads: count }),
        }
    }

    /// A pool with one thread per core the system offers (one if it cannot tell).
    pub fn with_available_parallelism() -> Self {
        let threads = std::thread::available_parallelism()
            .map(|count| count.get())
            .unwrap_or(1)
            .min(MAX_THREADS);
        Self { threads }
    }

    /// How many threads run the jobs, the calling one included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// `job` applied to every item, the results in the order of `items`.
    ///
    /// Panics if `job` panicked on any item (with that panic's payload).
    pub fn map<T, R, F>(&self, items: &[T], job: F) -> Vec<R>
    where
        T: Sync,
        R: Send,
        F: Fn(&T) -> R + Sync,
    {
        let batch = batch_size(items.len());
        if self.threads == 1 || items.len() <= batch {
            return items.iter().map(&job).collect();
        }
        let (batch_sender, batch_receiver) = channel::unbounded();
        for (index, slice) in items.chunks(batch).enumerate() {
            // The receiver lives until the end of this function: sending cannot fail.
            let _ = batch_sender.send((index, slice));
        }
        drop(batch_sender);
        let batch_count = items.len().div_ceil(batch);
        let results = Mutex::new(Vec::with_capacity(batch_count));
        let work = || {
            while let Ok((index, slice)) = batch_receiver.recv() {
                let done: Vec<R> = slice.iter().map(&job).collect();
                lock(&results).push((index, done));
            }
        };
        self.run(work);
        let mut batches = results
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner());
        // Batches finish in any order; their indices put them back in the order of the items.
        batches.sort_unstable_by_key(|(index, _)| *index);
        batches.into_iter().flat_map(|(_, done)| done).collect()
    }

    /// `job` applied to every item in place.
    ///
    /// Panics if `job` panicked on any item (with that panic's payload).
    pub fn for_each_mut<T, F>(&self, items: &mut [T], job: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync,
    {
        let batch = batch_size(items.len());
        if self.threads == 1 || items.len() <= batch {
            items.iter_mut().for_each(&job);
            return;
        }
        let (batch_sender, batch_receiver) = channel::unbounded();
        for slice in items.chunks_mut(batch) {
            // The receiver lives until the end of this function: sending cannot fail.
            let _ = batch_sender.send(slice);
        }
        drop(batch_sender);
        let work = || {
            while let Ok(slice) = batch_receiver.recv() {
                slice.iter_mut().for_each(&job);
            }
        };
        self.run(work);
    }

    /// Runs `work` on every thread of the pool (the caller's included) until all return, then
    /// resumes the first panic, if there was one.
    fn run<W: Fn() + Sync>(&self, work: W) {
        let outcome = crossbeam::thread::scope(|scope| {
            for number in 1..self.threads {
                let work = &work;
                let spawned = scope
                    .builder()
                    .name(format!("worker {number}"))
                    .spawn(move |_| work());
                if let Err(error) = spawned {
                    // Fewer threads only make the call slower: the caller and the others
                    // still drain every batch.
                    log::warn!("could not start worker thread {number}: {error}");
                }
            }
            work();
        });
        if let Err(panics) = outcome {
            // crossbeam gathers the payloads of every thread that panicked; resume the first so
            // that the caller sees the job's own message.
            match panics.downcast::<Vec<Box<dyn std::any::Any + Send>>>() {
                Ok(mut payloads) if !payloads.is_empty() => {
                    panic::resume_unwind(payloads.swap_remove(0))
                }
                Ok(_) => panic!("a worker thread panicked"),
                Err(payload) => panic::resume_unwind(payload),
            }
        }
    }
}

/// Items per batch for a slice of `count`: a function of the count alone, so the split is the
/// same for every thread count.
fn batch_size(count: usize) -> usize {
    count.div_ceil(MOST_BATCHES).max(1)
}

/// Locks a mutex whose data stays valid even if a job panicked while another thread held it
/// (the lock is only held to push a finished batch).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_thread_counts_are_errors() {
        assert_eq!(WorkerPool::new(0).unwrap_err(), WorkerError::NoThreads);
        assert_eq!(
            WorkerPool::new(MAX_THREADS + 1).unwrap_err(),
            WorkerError::TooManyThreads(MAX_THREADS + 1)
        );
        assert_eq!(WorkerPool::new(3).map(|pool| pool.threads()), Ok(3));
        assert!(WorkerPool::with_available_parallelism().threads() >= 1);
    }

    #[test]
    fn map_keeps_input_order() {
        let items: Vec<u64> = (0..1000).collect();
        for threads in [1, 2, 4, 16] {
            let pool = WorkerPool::new(threads).expect("a valid thread count");
            let squares = pool.map(&items, |item| item * item);
            let expected: Vec<u64> = items.iter().map(|item| item * item).collect();
            assert_eq!(squares, expected, "{threads} threads");
        }
    }

    #[test]
    fn one_and_four_threads_give_identical_bits() {
        // A job whose float result depends on its item only, summed in a fixed order inside.
        let items: Vec<f32> = (0..777).map(|index| index as f32 * 0.37).collect();
        let job = |item: &f32| (0..100).fold(0.0f32, |sum, step| sum + (item * step as f32).sin());
        let one = WorkerPool::new(1).expect("one thread").map(&items, job);
        let four = WorkerPool::new(4).expect("four threads").map(&items, job);
        let bits = |values: &[f32]| {
            values
                .iter()
                .map(|value| value.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&one), bits(&four));
    }

    #[test]
    fn empty_input_gives_empty_output() {
        let pool = WorkerPool::new(4).expect("four threads");
        let nothing: Vec<u32> = pool.map(&[] as &[u32], |item| *item);
        assert!(nothing.is_empty());
        let mut empty: [u32; 0] = [];
        pool.for_each_mut(&mut empty, |item| *item += 1);
    }

    #[test]
    fn for_each_mut_touches_every_item_once() {
        for threads in [1, 3] {
            let pool = WorkerPool::new(threads).expect("a valid thread count");
            let mut items: Vec<u32> = (0..500).collect();
            pool.for_each_mut(&mut items, |item| *item = *item * 2 + 1);
            let expected: Vec<u32> = (0..500).map(|item| item * 2 + 1).collect();
            assert_eq!(items, expected);
        }
    }

    #[test]
    fn a_panicking_job_panics_the_caller_instead_of_hanging() {
        let pool = WorkerPool::new(4).expect("four threads");
        let items: Vec<u32> = (0..400).collect();
        let outcome = panic::catch_unwind(|| {
            pool.map(&items, |item| {
                assert!(*item != 321, "job failed on item 321");
                *item
            })
        });
        let payload = outcome.expect_err("the job's panic reaches the caller");
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        assert!(message.contains("item 321"), "payload: {message:?}");
        // The pool is still usable afterwards.
        assert_eq!(pool.map(&items, |item| *item).len(), 400);
    }
}
