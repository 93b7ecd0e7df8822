//! A pool of worker threads for data-parallel work: chunk grids and sky light, collision
//! queries, and the physics step's contacts, rows and solve.
//!
//! Work is split by the items alone, never by the number of threads: each item is handed to
//! the job exactly once (`map` cuts a slice into the same batches whether one thread or
//! sixteen run them, and its results come back in input order; the in-place calls hand out
//! single items by their place), so a job that is a pure function of its item gives bitwise
//! identical results for any thread count.
//!
//! The threads are started once, with the pool, and wait for work on channels (crossbeam); the
//! calling thread works too, so a pool of one starts none. A first version spawned scoped
//! threads for every call, which needs no `unsafe`, but starting threads per call ate a good
//! part of a physics step, and two threads were barely faster than one (the figures:
//! `bench physics`, docs/performance-history.md "Physics"). Handing a borrowed job (a
//! closure over the caller's stack) to a thread that outlives the call needs its lifetime
//! erased, as rayon does inside: `WorkerPool::run` does that in one place, and does not return
//! (not even by unwinding) before every worker has reported that it is done with the job, so
//! the borrow never outlives what it borrows.
//! The one other `unsafe` is `Handout`: the staged calls (stages: parallel-for stages with a
//! barrier between them) hand each item to one thread by its place instead of behind a lock,
//! which their cursors and stage counts make sound.
//!
//! One call at a time uses the threads. A call made while another is running — from a job of
//! the same pool, or from another thread holding a clone — runs on its calling thread alone:
//! the result is the same by the rule above, and nothing can deadlock.
//!
//! A panic in a job does not hang the pool: the other threads finish the items they hold (a
//! `map`, the batches that are left), every worker reports back, and the first panic is
//! resumed on the calling thread.

use std::any::Any;
use std::marker::PhantomData;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam::channel::{self, Receiver, Sender};
use crossbeam::utils::CachePadded;

/// The most threads a pool may have: more than any machine this runs on has cores, and few
/// enough that a typo (a thread count of 10 000) is caught instead of exhausting the system.
pub const MAX_THREADS: usize = 256;

/// Items per batch are chosen so that a slice is cut into at most this many batches: enough
/// to balance uneven jobs over 16 threads, few enough that handing out batches costs nothing.
const MOST_BATCHES: usize = 64;

/// How many of the last batches are cut finer (see `batch_lengths`).
const FINE_BATCHES: usize = 16;

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

/// Runs jobs over slices on a fixed number of threads (the caller's included). Clones share
/// the threads; the threads end when the last clone is dropped.
#[derive(Clone)]
pub struct WorkerPool {
    threads: usize,
    workers: Option<Arc<Workers>>,
}

impl std::fmt::Debug for WorkerPool {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("WorkerPool")
            .field("threads", &self.threads)
            .field(
                "started",
                &self.workers.as_ref().map_or(0, |w| w.senders.len()),
            )
            .finish()
    }
}

/// A job handed to the worker threads: the caller's closure with its lifetime erased (see
/// [`WorkerPool::run`] for why that is sound). It is called with the thread's number: 0 for
/// the calling thread, the worker's own (1, 2, …) for a worker.
struct Job(*const (dyn Fn(usize) + Sync + 'static));

// SAFETY: the closure behind the pointer is `Sync`, so calling it from another thread through a
// shared reference is allowed; the pointer only travels to the workers while `run` keeps the
// closure alive.
unsafe impl Send for Job {}

/// The started threads: a channel to each, one channel back, and the lock that lets one call
/// at a time use them.
struct Workers {
    senders: Vec<Sender<Job>>,
    done: Receiver<Option<Box<dyn Any + Send>>>,
    busy: Mutex<()>,
    handles: Vec<JoinHandle<()>>,
}

impl Workers {
    fn start(count: usize) -> Option<Arc<Workers>> {
        if count == 0 {
            return None;
        }
        let (done_sender, done) = channel::unbounded();
        let mut senders = Vec::with_capacity(count);
        let mut handles = Vec::with_capacity(count);
        for number in 1..=count {
            let (sender, jobs) = channel::bounded::<Job>(1);
            let done_sender = done_sender.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("worker {number}"))
                .spawn(move || {
                    while let Ok(Job(job)) = receive(&jobs) {
                        // SAFETY: `run` keeps the closure alive until this thread has sent its
                        // report below.
                        let job = unsafe { &*job };
                        let outcome = panic::catch_unwind(AssertUnwindSafe(|| job(number)));
                        if done_sender.send(outcome.err()).is_err() {
                            break;
                        }
                    }
                });
            match spawned {
                Ok(handle) => {
                    senders.push(sender);
                    handles.push(handle);
                }
                // Fewer threads only make calls slower: the caller and the others still
                // drain every batch.
                Err(error) => log::warn!("could not start worker thread {number}: {error}"),
            }
        }
        Some(Arc::new(Workers {
            senders,
            done,
            busy: Mutex::new(()),
            handles,
        }))
    }
}

// A panic never leaves the workers in a broken state: jobs' panics are caught on the threads
// and resumed by `run` after every thread has reported, and a poisoned lock is taken over.
impl std::panic::RefUnwindSafe for Workers {}
impl std::panic::UnwindSafe for Workers {}

/// How long a thread waits for a message on its core before it sleeps: calls come in bursts
/// (a physics step makes several, with serial work between them), and waking a sleeping
/// thread takes tens of microseconds, as long as a small call itself. For the first [`SPIN`]
/// it only spins; after that it gives its core to any other thread that wants it between
/// looks, until [`WAIT`] has passed. The serial stretches of a physics step (the solver's
/// plan; keeping the pushes, moving the bodies and the next step's start) can outlast the
/// spin alone: with only the spin, a worker slept in nearly every step of
/// `bench -- physics --equal-work --only-heap` and was late for the next call (their times:
/// that command; docs/performance-history.md, "Equal work, the serial parts and the
/// threads").
const SPIN: Duration = Duration::from_micros(50);
const WAIT: Duration = Duration::from_micros(400);

/// The next message, waited for on the core (see [`SPIN`] and [`WAIT`]), then asleep.
fn receive<T>(receiver: &Receiver<T>) -> Result<T, channel::RecvError> {
    let started = Instant::now();
    loop {
        for _ in 0..64 {
            match receiver.try_recv() {
                Ok(message) => return Ok(message),
                Err(channel::TryRecvError::Disconnected) => return Err(channel::RecvError),
                Err(channel::TryRecvError::Empty) => std::hint::spin_loop(),
            }
        }
        let waited = started.elapsed();
        if waited >= WAIT {
            return receiver.recv();
        }
        if waited >= SPIN {
            std::thread::yield_now();
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Closing the channels ends the threads' loops.
        self.senders.clear();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

impl WorkerPool {
    /// A pool of `threads` threads, the calling one included. Zero, or more than
    /// [`MAX_THREADS`], is an error rather than silently clamped: a thread count comes from a
    /// setting or a command line, and the user should learn that it was not used.
    pub fn new(threads: usize) -> Result<Self, WorkerError> {
        match threads {
            0 => Err(WorkerError::NoThreads),
            count if count > MAX_THREADS => Err(WorkerError::TooManyThreads(count)),
            count => Ok(Self {
                threads: count,
                workers: Workers::start(count - 1),
            }),
        }
    }

    /// A pool with one thread per core the system offers (one if it cannot tell).
    pub fn with_available_parallelism() -> Self {
        let threads = std::thread::available_parallelism()
            .map(|count| count.get())
            .unwrap_or(1)
            .min(MAX_THREADS);
        Self {
            threads,
            workers: Workers::start(threads - 1),
        }
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
        let mut rest = items;
        let mut batch_count = 0;
        for (index, length) in batch_lengths(items.len()).enumerate() {
            let (slice, after) = rest.split_at(length);
            rest = after;
            batch_count += 1;
            // The receiver lives until the end of this function: sending cannot fail.
            let _ = batch_sender.send((index, slice));
        }
        drop(batch_sender);
        let results = Mutex::new(Vec::with_capacity(batch_count));
        let work = |_thread: usize| {
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

    /// `job` applied to every item in place: one stage of [`WorkerPool::for_each_in_stages`],
    /// each thread its share of the items (every `threads`-th, in order) and then helping
    /// with the others'. Neighbouring items (a heap's bodies in dense order) cost about the
    /// same, so the shares end together; and an item tends to go to the same thread from call
    /// to call, its data still in that core's cache. (Batches off a channel, as `map` takes
    /// them, made a heap step's contact search slower on two threads: `bench physics
    /// --equal-work --only-heap`, docs/performance-history.md "Physics".)
    ///
    /// Panics if `job` panicked on any item (with that panic's payload).
    pub fn for_each_mut<T, F>(&self, items: &mut [T], job: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync,
    {
        let all = 0..items.len();
        self.for_each_in_stages(items, std::slice::from_ref(&all), job);
    }

    /// `job` applied to every item in place, each thread first the items whose `owner` is its
    /// own number modulo the threads (in order), then helping with the others'. For work whose
    /// data a thread already holds: the physics step gives each awake body's contact search to
    /// the thread that solved its region the step before, which then builds the rows of those
    /// contacts from its own cache. Which thread runs an item changes nothing else: the result
    /// is the same for any owners and any number of threads, as [`WorkerPool::for_each_mut`]'s.
    ///
    /// Panics if `job` panicked on any item (with that panic's payload).
    pub fn for_each_mut_owned<T, F>(&self, items: &mut [T], owner: impl Fn(usize) -> usize, job: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync,
    {
        let threads = self.threads;
        if threads == 1 || items.len() <= 1 {
            items.iter_mut().for_each(&job);
            return;
        }
        // The items by owner (a counting sort, each owner's in order), and where each owner's
        // run starts.
        let mut starts = vec![0usize; threads + 1];
        for at in 0..items.len() {
            starts[owner(at) % threads + 1] += 1;
        }
        for share in 0..threads {
            starts[share + 1] += starts[share];
        }
        let mut fill = starts.clone();
        let mut order = vec![0u32; items.len()];
        for at in 0..items.len() {
            let share = owner(at) % threads;
            order[fill[share]] = at as u32;
            fill[share] += 1;
        }
        let items = Handout::new(items);
        let cursors: Vec<CachePadded<AtomicUsize>> = (0..threads)
            .map(|_| CachePadded::new(AtomicUsize::new(0)))
            .collect();
        let work = |thread: usize| {
            for turn in 0..threads {
                let share = (thread + turn) % threads;
                let run = &order[starts[share]..starts[share + 1]];
                let cursor = &cursors[share];
                // Another's run is looked at before it is taken from (as the stages do).
                if turn > 0 && cursor.load(Ordering::Relaxed) >= run.len() {
                    continue;
                }
                loop {
                    let at = cursor.fetch_add(1, Ordering::Relaxed);
                    let Some(&item) = run.get(at) else {
                        break;
                    };
                    // SAFETY: `order` names each item once, and each place of a run is handed
                    // out once by its cursor, so no other thread holds this item.
                    job(unsafe { items.take(item as usize) });
                }
            }
        };
        // Every item was taken once the threads return, and `run` waits for all of them.
        self.run(work);
    }

    /// `job` applied to items stage after stage. Each stage is a range of `items` (a range may
    /// come again, as the passes of a solver do); every item of a stage is finished before any
    /// item of the next begins, and the items of one stage run on whichever threads are free,
    /// each on exactly one. So when the items of a stage do not depend on each other, the
    /// result is the same for any number of threads.
    ///
    /// One call for many small stages: the threads wait for each other between stages on a
    /// counter instead of being handed a new job, which costs a fraction of a microsecond
    /// rather than the several a call does. A stage waits for its items to be finished, not
    /// for every thread to arrive, so a thread that starts late (or a nested call that runs
    /// alone) only finds less to do.
    ///
    /// Panics if a range is out of bounds, or if `job` panicked (with that panic's payload);
    /// the other threads stop at the next stage instead of waiting for it.
    pub fn for_each_in_stages<T, F>(&self, items: &mut [T], stages: &[Range<usize>], job: F)
    where
        T: Send,
        F: Fn(&mut T) + Sync,
    {
        for stage in stages {
            assert!(
                stage.start <= stage.end && stage.end <= items.len(),
                "stage {stage:?} outside the {} items",
                items.len()
            );
        }
        // One item (or one thread) is not worth waking the workers for.
        if self.threads == 1 || items.len() <= 1 {
            for stage in stages {
                items[stage.clone()].iter_mut().for_each(&job);
            }
            return;
        }
        let items = Handout::new(items);
        let threads = self.threads;
        // Each stage is cut into one share per thread, and each share has its own cursor: a
        // thread works its own share first and then helps with the others'. An item's share
        // is its place in `items` modulo the threads, whatever stage holds it, so an item that
        // comes again (a solver's bundle, built in one stage and worked in each pass) tends to
        // go to the same thread each time, with its data still in that core's cache, and the
        // cursors are rarely contended. So the shares take turns along a stage (with two
        // threads, one the even places and one the odd): a stage laid out longest first (the
        // solver's) then gives each thread its like share of long and short items, in the
        // same order, so they run out together and take little from each other, where halves
        // would give one thread all the long items.
        // Each counter on its own cache line: a thread taking items from its own share does
        // not take the line from a thread counting another share, or another stage.
        let cursors: Vec<CachePadded<AtomicUsize>> = (0..stages.len() * threads)
            .map(|_| CachePadded::new(AtomicUsize::new(0)))
            .collect();
        let finished: Vec<CachePadded<AtomicUsize>> = stages
            .iter()
            .map(|_| CachePadded::new(AtomicUsize::new(0)))
            .collect();
        let failed = AtomicBool::new(false);
        // Each thread starts with the share of its own number, so a share goes to the same
        // thread from call to call (its items' data in that core's cache), whichever thread
        // arrives first.
        let work = |thread: usize| {
            let me = thread % threads;
            for (index, (stage, finished)) in stages.iter().zip(&finished).enumerate() {
                let count = stage.len();
                let mut complete = false;
                for turn in 0..threads {
                    let share = (me + turn) % threads;
                    let cursor = &cursors[index * threads + share];
                    // The share's items: those whose place in `items` is `share` modulo the
                    // threads, in order.
                    let first = (share + threads - stage.start % threads) % threads;
                    let place = |taken: usize| taken.saturating_mul(threads).saturating_add(first);
                    // Another's share is looked at before it is taken from: taking from one
                    // already done would only pull its cursor from the core counting it.
                    if turn > 0 && place(cursor.load(Ordering::Relaxed)) >= count {
                        continue;
                    }
                    let mut done = 0;
                    loop {
                        let at = place(cursor.fetch_add(1, Ordering::Relaxed));
                        if at >= count {
                            break;
                        }
                        // SAFETY: `at` came from this share's cursor, which hands out each
                        // place once per stage, and the shares take turns along the stage, so
                        // no other thread holds this item in this stage; the item of an
                        // earlier stage was let go before its stage counted it finished, and
                        // this stage began only once that count was complete.
                        let item = unsafe { items.take(stage.start + at) };
                        let outcome = panic::catch_unwind(AssertUnwindSafe(|| job(item)));
                        if let Err(payload) = outcome {
                            failed.store(true, Ordering::Relaxed);
                            panic::resume_unwind(payload);
                        }
                        done += 1;
                    }
                    // Release: what the items' jobs wrote is seen by whoever sees the count;
                    // acquire: the thread that completes it has seen every other item's, and
                    // goes on without waiting or looking at the shares left (all done).
                    if done > 0 && finished.fetch_add(done, Ordering::AcqRel) + done == count {
                        complete = true;
                        break;
                    }
                }
                if complete {
                    continue;
                }
                let mut spins = 0u32;
                while finished.load(Ordering::Acquire) < count {
                    if failed.load(Ordering::Relaxed) {
                        return;
                    }
                    spins += 1;
                    if spins < 4096 {
                        std::hint::spin_loop();
                    } else {
                        // Another thread holds the rest of the stage but is not running.
                        std::thread::yield_now();
                    }
                }
            }
        };
        self.run(work);
    }

    /// Runs `work` on every thread of the pool (the caller's included), each with its number
    /// (the caller 0, worker k k), until all return, then resumes the first panic, if there was
    /// one. A call that runs alone calls `work(0)`: a job must get through every share from any
    /// thread.
    fn run<W: Fn(usize) + Sync>(&self, work: W) {
        let Some(workers) = &self.workers else {
            work(0);
            return;
        };
        let _busy = match workers.busy.try_lock() {
            Ok(guard) => guard,
            // A call that panicked left the lock poisoned; the threads are fine.
            Err(std::sync::TryLockError::Poisoned(poison)) => poison.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                // Another call has the threads (perhaps this is one of its jobs): alone gives
                // the same result.
                work(0);
                return;
            }
        };
        let job: &(dyn Fn(usize) + Sync) = &work;
        // SAFETY: the lifetime is erased only to hand `work` to the workers. Every worker that
        // gets the job sends exactly one report after it has finished with it (a panic is
        // caught first), and this function receives one report per job sent before it returns
        // or unwinds: the caller's own share of the work runs under `catch_unwind` too. So no
        // worker touches `work` after this call ends.
        let job = unsafe {
            std::mem::transmute::<
                *const (dyn Fn(usize) + Sync + '_),
                *const (dyn Fn(usize) + Sync + 'static),
            >(job)
        };
        let sent = workers
            .senders
            .iter()
            .filter(|sender| sender.send(Job(job)).is_ok())
            .count();
        let mine = panic::catch_unwind(AssertUnwindSafe(|| work(0)));
        let mut first_panic = mine.err();
        for _ in 0..sent {
            match receive(&workers.done) {
                Ok(None) => {}
                Ok(Some(payload)) => {
                    first_panic.get_or_insert(payload);
                }
                // Every worker holds a sender until it exits, and none exits while the pool
                // lives: unreachable, but waiting on is impossible, so stop waiting.
                Err(_) => break,
            }
        }
        if let Some(payload) = first_panic {
            panic::resume_unwind(payload);
        }
    }
}

/// A slice whose items the threads of a staged call take one at a time, each by its place,
/// without a lock. A lock per item slowed a heap step's solve (1,800 items of a fraction of a
/// microsecond each) on two threads, and not on one (its cost: `bench physics --equal-work
/// --only-heap`, docs/performance-history.md "Physics").
struct Handout<'a, T> {
    first: *mut T,
    count: usize,
    items: PhantomData<&'a mut [T]>,
}

// SAFETY: the items are only reached through `take`, whose callers keep any item to one thread
// at a time, so sharing the handout moves items (`T: Send`) between threads and never shares
// one.
unsafe impl<T: Send> Sync for Handout<'_, T> {}

impl<'a, T> Handout<'a, T> {
    fn new(items: &'a mut [T]) -> Self {
        Self {
            first: items.as_mut_ptr(),
            count: items.len(),
            items: PhantomData,
        }
    }

    /// The item at `at`.
    ///
    /// # Safety
    ///
    /// No other reference to the item (from an earlier `take` of the same place) may be used
    /// while the one returned is.
    #[allow(clippy::mut_from_ref)]
    unsafe fn take(&self, at: usize) -> &mut T {
        assert!(at < self.count, "item {at} of {}", self.count);
        // SAFETY: `at` is inside the slice borrowed for 'a, and the caller keeps the item to
        // itself.
        unsafe { &mut *self.first.add(at) }
    }
}

/// Items per batch for a slice of `count`: a function of the count alone, so the split is the
/// same for every thread count.
fn batch_size(count: usize) -> usize {
    count.div_ceil(MOST_BATCHES).max(1)
}

/// The lengths of the batches a slice of `count` is cut into, in order: [`batch_size`] each,
/// but the items of the last [`FINE_BATCHES`] batches in batches a quarter as long. The threads
/// take the batches in order, so they end on small ones and neither waits long for the other
/// to finish its last.
fn batch_lengths(count: usize) -> impl Iterator<Item = usize> {
    let batch = batch_size(count);
    let fine = (batch / 4).max(1);
    let tail = count.min(FINE_BATCHES * batch);
    let head = count - tail;
    let pieces = |total: usize, length: usize| {
        (0..total.div_ceil(length)).map(move |at| length.min(total - at * length))
    };
    pieces(head, batch).chain(pieces(tail, fine))
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
    fn stages_run_in_order_and_every_item_of_a_stage_once() {
        // Each item records, in the stage it runs, what its neighbour held at the end of the
        // last stage: only right if no stage starts before the last one finished.
        for threads in [1, 2, 4] {
            let pool = WorkerPool::new(threads).expect("a pool");
            let mut items: Vec<(u64, u64)> = (0..100).map(|index| (index, 0)).collect();
            let stages: Vec<Range<usize>> = (0..20).map(|_| 0..100).collect();
            // Stage by stage, every item adds one: after 20 stages each holds its index + 20.
            pool.for_each_in_stages(&mut items, &stages, |item| item.0 += 1);
            assert!(items
                .iter()
                .enumerate()
                .all(|(i, item)| item.0 == i as u64 + 20));
            // Odd and even halves alternate, each stage reading the other half's last value
            // through a shared array: a stage that began early would read a stale value.
            let shared: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
            let mut cells: Vec<usize> = (0..100).collect();
            let stages = [0..50, 50..100, 0..50, 50..100];
            pool.for_each_in_stages(&mut cells, &stages, |cell| {
                let partner = (*cell + 50) % 100;
                let seen = shared[partner].load(Ordering::Relaxed);
                shared[*cell].store(seen + 1, Ordering::Relaxed);
            });
            let values: Vec<usize> = shared.iter().map(|v| v.load(Ordering::Relaxed)).collect();
            assert!(
                values[..50].iter().all(|&v| v == 3),
                "{threads}: {values:?}"
            );
            assert!(
                values[50..].iter().all(|&v| v == 4),
                "{threads}: {values:?}"
            );
        }
    }

    #[test]
    fn stages_starting_at_any_place_work_each_of_their_items_once() {
        // The shares go by place in the items, not in the stage: ranges starting at odd and
        // even places, overlapping from stage to stage, of one item and of none.
        let stages = [3..17, 0..3, 17..100, 1..99, 50..51, 40..40, 0..100];
        let expected: Vec<u32> = (0..100)
            .map(|place| {
                let inside = stages.iter().filter(|stage| stage.contains(&place)).count();
                inside as u32
            })
            .collect();
        for threads in [1, 2, 3, 4] {
            let pool = WorkerPool::new(threads).expect("a pool");
            let mut items = vec![0u32; 100];
            pool.for_each_in_stages(&mut items, &stages, |item| *item += 1);
            assert_eq!(items, expected, "{threads} threads");
        }
    }

    #[test]
    fn a_panic_in_a_stage_panics_the_caller_instead_of_hanging() {
        let pool = WorkerPool::new(4).expect("a pool");
        let mut items: Vec<u32> = (0..64).collect();
        let stages = [0..64, 0..64, 0..64];
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.for_each_in_stages(&mut items, &stages, |item| {
                assert!(*item != 70, "item 6 in its second stage");
                *item += 32;
            });
        }));
        assert!(outcome.is_err());
        // The threads still work.
        let mut items = vec![0u32; 64];
        let whole = std::iter::once(0..64).collect::<Vec<_>>();
        pool.for_each_in_stages(&mut items, &whole, |item| *item = 1);
        assert!(items.iter().all(|&item| item == 1));
    }

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
    fn batches_cover_every_item_once_and_end_fine() {
        for count in [1, 2, 3, 7, 63, 64, 65, 100, 400, 1000, 4099] {
            let lengths: Vec<usize> = batch_lengths(count).collect();
            assert_eq!(lengths.iter().sum::<usize>(), count, "{count}");
            assert!(lengths.iter().all(|&length| length > 0), "{count}");
            let batch = batch_size(count);
            assert!(lengths.iter().all(|&length| length <= batch), "{count}");
            if batch >= 4 {
                assert!(
                    lengths.last() <= Some(&batch.div_ceil(4)),
                    "{count}: {lengths:?}"
                );
            }
        }
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
    fn owned_items_are_each_worked_once_whoever_owns_them() {
        // Owners past the thread count, all on one thread, and spread: the same result.
        let owners: [fn(usize) -> usize; 3] = [|at| at * 7 + 3, |_| 0, |at| at % 5];
        for threads in [1, 2, 3] {
            let pool = WorkerPool::new(threads).expect("a valid thread count");
            for owner in owners {
                let mut items: Vec<(u32, u32)> = (0..500).map(|item| (item, 0)).collect();
                pool.for_each_mut_owned(&mut items, owner, |(item, times)| {
                    *item = *item * 2 + 1;
                    *times += 1;
                });
                let expected: Vec<(u32, u32)> = (0..500).map(|item| (item * 2 + 1, 1)).collect();
                assert_eq!(items, expected, "{threads} threads");
            }
        }
    }

    #[test]
    fn a_panic_in_an_owned_job_panics_the_caller_and_the_pool_works_on() {
        let pool = WorkerPool::new(3).expect("three threads");
        let mut items: Vec<u32> = (0..64).collect();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.for_each_mut_owned(&mut items, |at| at, |item| assert_ne!(*item, 40, "item 40"));
        }));
        assert!(outcome.is_err(), "the job's panic reaches the caller");
        pool.for_each_mut_owned(&mut items, |at| at, |item| *item += 1);
        assert_eq!(items, (1..65).collect::<Vec<u32>>());
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

    #[test]
    fn a_job_that_uses_the_same_pool_runs_alone_instead_of_deadlocking() {
        let pool = WorkerPool::new(3).unwrap();
        let outer: Vec<u64> = (0..40).collect();
        let sums = pool.map(&outer, |&n| {
            let inner: Vec<u64> = (0..n).collect();
            pool.map(&inner, |&k| k * k).iter().sum::<u64>()
        });
        let expected: Vec<u64> = outer.iter().map(|&n| (0..n).map(|k| k * k).sum()).collect();
        assert_eq!(sums, expected);
    }

    #[test]
    fn after_a_panic_the_threads_still_work_and_clones_share_them() {
        let pool = WorkerPool::new(2).unwrap();
        let items: Vec<u32> = (0..1000).collect();
        let caught = std::panic::catch_unwind(|| {
            pool.map(&items, |&n| {
                assert!(n != 500, "boom");
                n
            })
        });
        assert!(caught.is_err());
        let clone = pool.clone();
        let threads = std::sync::Mutex::new(std::collections::HashSet::new());
        let doubled = clone.map(&items, |&n| {
            lock(&threads).insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_micros(200));
            n * 2
        });
        assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        assert_eq!(lock(&threads).len(), 2, "both threads took batches");
        drop(pool);
        drop(clone);
    }
}
