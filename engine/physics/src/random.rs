//! One small seeded generator for everything in the project that wants reproducible numbers —
//! random scenes in tests, the soak's script, the fuzzers' cases — so that a seed written in a
//! test, a benchmark or a bug report gives the same numbers on every machine and every build.
//! SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state, one add and two multiply-xorshifts
//! per number, every seed usable (0 too). It is for reproducibility, not for secrets.

/// A seeded SplitMix64 generator: the same seed gives the same numbers everywhere.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The seed of case `index` of a run seeded with `seed`: cases are independent, so any one
    /// is made again without the ones before it.
    pub fn case_seed(seed: u64, index: u64) -> u64 {
        let mut rng = Rng::new(seed ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        rng.next_u64()
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `0` when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A whole number in `low..=high` (`low <= high`).
    pub fn between(&mut self, low: i64, high: i64) -> i64 {
        debug_assert!(low <= high);
        let span = high.abs_diff(low) as usize;
        low.wrapping_add(self.below(span.saturating_add(1)) as i64)
    }

    /// True once in `n` times on average.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `[low, high)`.
    pub fn float(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.unit()
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_numbers_and_cases_differ() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let first: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(Rng::case_seed(7, 0), Rng::case_seed(7, 1));
        assert_ne!(Rng::case_seed(7, 0), Rng::case_seed(8, 0));
    }

    #[test]
    fn splitmix64_gives_its_published_numbers() {
        // The reference implementation's first outputs for seed 1234567.
        let mut rng = Rng::new(1_234_567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
    }

    #[test]
    fn ranges_hold_their_ends_and_nothing_outside() {
        let mut rng = Rng::new(1);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let value = rng.between(-2, 2);
            assert!((-2..=2).contains(&value));
            seen[(value + 2) as usize] = true;
            let unit = rng.unit();
            assert!((0.0..1.0).contains(&unit));
            let float = rng.float(-3.0, 5.0);
            assert!((-3.0..5.0).contains(&float));
            assert!(rng.below(3) < 3);
        }
        assert!(
            seen.iter().all(|&s| s),
            "every value of -2..=2 comes up: {seen:?}"
        );
        assert_eq!(rng.below(0), 0);
        // The widest range does not overflow.
        rng.between(i64::MIN, i64::MAX);
    }

    #[test]
    fn chance_comes_up_about_as_often_as_asked() {
        let mut rng = Rng::new(5);
        let hits = (0..10_000).filter(|_| rng.chance(0.25)).count();
        assert!((2_300..2_700).contains(&hits), "{hits} of 10,000");
        assert!(!(0..1000).any(|_| rng.chance(0.0)));
        assert!((0..1000).all(|_| rng.chance(1.0)));
    }
}
