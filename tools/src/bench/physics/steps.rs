//! The step times of one run of the physics benchmark (one engine, one thread count), how it
//! ended, and their means over the falling phase and the rest.

/// Steps of the falling phase reported on their own.
pub(super) const FALL_STEPS: usize = 120;

/// A piece moving faster than this at its middle, in meters per second, ...
pub(super) const MOVING_SPEED: f64 = 0.01;
/// ... or turning faster than this, in radians per second, still moves.
pub(super) const MOVING_SPIN: f64 = 0.01;

/// Whether a piece with this velocity and angular velocity still moves at the end of a run.
pub(super) fn is_moving(velocity: [f64; 3], spin: [f64; 3]) -> bool {
    let length = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    length(velocity) > MOVING_SPEED || length(spin) > MOVING_SPIN
}

/// Step times of one run, in milliseconds, and how it ended.
pub(super) struct Run {
    pub(super) times: Vec<f64>,
    /// Pieces the engine still steps at the end: not resting (blockfall), not asleep (the
    /// others).
    pub(super) awake: usize,
    /// Pieces still moving at the end ([`is_moving`]), whatever the engine calls them.
    pub(super) moving: usize,
    /// Pieces whose middle ended inside the ground.
    pub(super) in_ground: usize,
    /// The height of the highest piece's middle at the end, in meters.
    pub(super) highest: f64,
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
        self.moving = other.moving;
        self.in_ground = other.in_ground;
        self.highest = other.highest;
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
