//! The step times of one run of the physics benchmark (one engine, one thread count), how it
//! ended, and their means over the falling phase and the rest.

/// Steps of the falling phase reported on their own.
pub(super) const FALL_STEPS: usize = 120;

/// Step times of one run, in milliseconds, and how it ended.
pub(super) struct Run {
    pub(super) times: Vec<f64>,
    pub(super) awake: usize,
    /// Pieces whose middle ended below the ground's height there (caves aside).
    pub(super) sunk: usize,
    /// Steps in which a piece was struck harder than a joint of it holds (blockfall with
    /// strength judged; not split, see `StrengthJudge`).
    pub(super) breaks: usize,
}

impl Run {
    pub(super) fn mean(times: &[f64]) -> f64 {
        times.iter().sum::<f64>() / times.len().max(1) as f64
    }

    /// Each step's time the fastest of this run's and `other`'s (the same steps); the end is
    /// `other`'s.
    pub(super) fn keep_fastest(&mut self, other: &Run) {
        for (time, other) in self.times.iter_mut().zip(&other.times) {
            *time = time.min(*other);
        }
        self.awake = other.awake;
        self.sunk = other.sunk;
    }

    /// The median step time (the mean of the middle two for an even count).
    pub(super) fn median(&self) -> f64 {
        let mut sorted = self.times.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        match n {
            0 => f64::NAN,
            _ if n % 2 == 1 => sorted[n / 2],
            _ => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
        }
    }

    pub(super) fn all(&self) -> f64 {
        Self::mean(&self.times)
    }

    pub(super) fn falling(&self) -> f64 {
        Self::mean(&self.times[..FALL_STEPS.min(self.times.len())])
    }

    pub(super) fn after(&self) -> f64 {
        Self::mean(&self.times[FALL_STEPS.min(self.times.len())..])
    }
}
