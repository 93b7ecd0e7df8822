//! What each body has learned of how clear of the world its points are (their clearance: the
//! bound of conservative advancement, or a fat AABB's margin), kept from step to step so that a
//! body lying still does not ask about all of its points again every step.
//!
//! ```text
//!      ● p, asked: the world says no surface         p may have moved t meters since:
//!      ¦        within c of p, for any reach         a question with reach r would
//!      ¦ c                                           find nothing while c − t ≥ r
//!   ═══╧═══════ surface
//! ```
//!
//! The bound comes from the world itself: [`Solid::nearest_many_clear`] answers each question
//! and says how clear of every surface the point surely is, in the sense that a question from
//! any point within `c − r` of it, with reach `r`, finds nothing. (The terrain works this out
//! from its density and the steepest its samples around the points rise; a true distance is
//! its own bound.) So skipping a point changes no answer; the world promises it.
//!
//! The bound holds only while the world stays what it was: each step asks the world for its
//! [`Solid::stamp`] (a version number), and a new stamp (or none) starts a new epoch, which forgets
//! everything learned ([`Clearance::start`]).
//!
//! How far a body's points may have moved is its `travel`: each step adds how far its middle
//! moved and how far its turn can carry a point at its radius, from where it was seen last
//! ([`Clearance::follow`]), so moves made through the API between steps count as well. A
//! question reaches [`LOOK`] farther than it must, so that what a world finds only within the
//! reach (the blocks) still leaves a bound that lasts while the point moves.
//!
//! [`Solid::nearest_many_clear`]: crate::collision::Solid::nearest_many_clear
//! [`Solid::stamp`]: crate::collision::Solid::stamp

use super::math::{self, Quaternion, Vector};

/// How much farther than its reach a question to the world reaches, in meters, so that its
/// answer stays good while the point moves: a quarter of a meter, half a block cell.
pub(crate) const LOOK: f64 = 0.25;

/// One body's learned clearances. Each is kept as a *base*, `clearance + travel` at the time
/// it was learned, so that none needs updating as the body moves: the bound now is
/// `base − travel`.
#[derive(Debug, Clone)]
pub(crate) struct Clearance {
    /// The world epoch the bases belong to (0: none, the epochs start at 1).
    epoch: u64,
    /// How far any point of the body may have moved, in all, meters.
    travel: f64,
    /// Where the body was when `travel` was last brought up to date.
    seen: (Vector, Quaternion),
    /// The bases of its points, and of each cluster the lowest of its points' (−∞ until all
    /// its points were asked).
    points: Vec<f64>,
    clusters: Vec<f64>,
    /// The base of its middle, asked with a reach past its radius (−∞ until asked).
    middle: f64,
    /// The travel from which the middle is worth asking about again: [`LOOK`] past where an
    /// answer fell short of what the body needed.
    middle_again: f64,
}

impl Default for Clearance {
    fn default() -> Self {
        Self::new(math::ZERO, math::NO_TURN)
    }
}

impl Clearance {
    /// Nothing learned yet, the body seen where it is.
    pub fn new(position: Vector, orientation: Quaternion) -> Self {
        Self {
            epoch: 0,
            travel: 0.0,
            seen: (position, orientation),
            points: Vec::new(),
            clusters: Vec::new(),
            middle: f64::NEG_INFINITY,
            middle_again: 0.0,
        }
    }

    /// Adds how far a point of the body (within `radius` of its middle) may have moved since
    /// it was seen last, and sees it where it is now. A move that is not finite forgets
    /// everything learned.
    pub fn follow(&mut self, position: Vector, orientation: Quaternion, radius: f64) {
        let (seen_position, seen_orientation) = self.seen;
        let shift = math::length(math::sub(position, seen_position));
        // A turn by θ carries a point at distance r by 2 r sin(θ/2), no more than
        // 2 r |q − q₀| (either sign of q₀: both name the same turn).
        let apart = |sign: f64| {
            (0..4)
                .map(|k| (orientation[k] - sign * seen_orientation[k]).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        let moved = shift + 2.0 * radius * apart(1.0).min(apart(-1.0));
        if moved.is_finite() && self.travel.is_finite() {
            self.travel += moved;
        } else {
            self.travel = 0.0;
            self.epoch = 0;
        }
        self.seen = (position, orientation);
    }

    /// Readies the bases for a step in world `epoch`, for `clusters` clusters and `points`
    /// points: all forgotten if they were learned in another epoch.
    pub fn start(&mut self, epoch: u64, clusters: usize, points: usize) {
        if self.epoch != epoch || self.points.len() != points || self.clusters.len() != clusters {
            self.epoch = epoch;
            self.points.clear();
            self.points.resize(points, f64::NEG_INFINITY);
            self.clusters.clear();
            self.clusters.resize(clusters, f64::NEG_INFINITY);
            self.middle = f64::NEG_INFINITY;
            self.middle_again = 0.0;
        }
    }

    /// How clear of the world the body's middle surely is now: less the body's radius, how
    /// clear every point of it is.
    #[inline]
    pub fn middle(&self) -> f64 {
        self.now(self.middle)
    }

    /// The middle was found `clear` meters clear of the world just now, where the body
    /// needed `need`; a clearance that is not a number teaches nothing.
    #[inline]
    pub fn learn_middle(&mut self, clear: f64, need: f64) {
        self.middle = self.base(clear);
        if clear.is_nan() || clear < need {
            self.middle_again = self.travel + LOOK;
        }
    }

    /// Whether the middle is worth asking about: not while the body has moved less than
    /// [`LOOK`] since an answer fell short (a body near the world would ask in vain every
    /// step; its clusters and points are asked instead, which is always safe).
    #[inline]
    pub fn middle_worth_asking(&self) -> bool {
        self.travel >= self.middle_again
    }

    /// How clear of the world every point of cluster `which` surely is now.
    #[inline]
    pub fn cluster(&self, which: usize) -> f64 {
        self.now(self.clusters[which])
    }

    /// Works out again the lowest base of cluster `which`, whose points are `members`.
    pub fn sum_up(&mut self, which: usize, members: std::ops::Range<usize>) {
        self.clusters[which] = self.points[members]
            .iter()
            .fold(f64::INFINITY, |low, &base| low.min(base));
    }

    /// How clear of the world point `index` surely is now.
    #[inline]
    pub fn point(&self, index: usize) -> f64 {
        self.now(self.points[index])
    }

    /// Point `index` was found `clear` meters clear of the world just now (see the module);
    /// a clearance that is not a number teaches nothing.
    #[inline]
    pub fn learn_point(&mut self, index: usize, clear: f64) {
        self.points[index] = self.base(clear);
    }

    #[inline]
    fn now(&self, base: f64) -> f64 {
        base - self.travel
    }

    /// The base of a clearance learned now; −∞ (nothing known) for one that is not a number.
    #[inline]
    fn base(&self, clear: f64) -> f64 {
        if clear.is_nan() {
            f64::NEG_INFINITY
        } else {
            clear + self.travel
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::NO_TURN;

    #[test]
    fn a_bound_shrinks_by_how_far_the_body_moved() {
        let mut clearance = Clearance::new([0.0; 3], NO_TURN);
        clearance.start(1, 1, 2);
        assert_eq!(clearance.point(0), f64::NEG_INFINITY);
        clearance.learn_point(0, 0.5);
        assert_eq!(clearance.point(0), 0.5);
        clearance.follow([0.0, 0.1, 0.0], NO_TURN, 1.0);
        assert!((clearance.point(0) - 0.4).abs() < 1e-12);
        // Learned after the move: from there on.
        clearance.learn_point(1, 0.3);
        assert!((clearance.point(1) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn a_turn_counts_what_it_carries_a_point_at_the_radius() {
        let mut clearance = Clearance::new([0.0; 3], NO_TURN);
        clearance.start(1, 1, 1);
        clearance.learn_point(0, 10.0);
        // A quarter turn about y carries a point 2 m out by 2·√2 m.
        let half = std::f64::consts::FRAC_PI_4;
        let quarter = [0.0, half.sin(), 0.0, half.cos()];
        clearance.follow([0.0; 3], quarter, 2.0);
        let lost = 10.0 - clearance.point(0);
        let carried = 2.0 * 2.0f64.sqrt();
        assert!(lost >= carried - 1e-9, "{lost}");
        assert!(lost <= carried * 1.1, "{lost}");
        // The same turn named by the other sign moves nothing.
        let before = clearance.point(0);
        clearance.follow([0.0; 3], quarter.map(|value| -value), 2.0);
        assert!((clearance.point(0) - before).abs() < 1e-12);
    }

    #[test]
    fn a_cluster_is_as_clear_as_its_least_clear_point() {
        let mut clearance = Clearance::new([0.0; 3], NO_TURN);
        clearance.start(1, 2, 4);
        clearance.learn_point(0, 0.5);
        clearance.learn_point(1, 0.2);
        clearance.sum_up(0, 0..2);
        assert_eq!(clearance.cluster(0), 0.2);
        // A point never asked keeps its cluster unknown.
        clearance.learn_point(2, 3.0);
        clearance.sum_up(1, 2..4);
        assert_eq!(clearance.cluster(1), f64::NEG_INFINITY);
        clearance.follow([0.1, 0.0, 0.0], NO_TURN, 1.0);
        assert!((clearance.cluster(0) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn a_middle_that_fell_short_is_asked_again_only_after_a_look_of_travel() {
        let mut clearance = Clearance::new([0.0; 3], NO_TURN);
        clearance.start(1, 1, 1);
        assert!(clearance.middle_worth_asking());
        clearance.learn_middle(2.5, 2.0);
        assert!(clearance.middle_worth_asking(), "it did not fall short");
        clearance.learn_middle(1.5, 2.0);
        assert!(!clearance.middle_worth_asking());
        clearance.follow([0.0, LOOK * 0.9, 0.0], NO_TURN, 1.0);
        assert!(!clearance.middle_worth_asking());
        clearance.follow([0.0, LOOK * 1.1, 0.0], NO_TURN, 1.0);
        assert!(clearance.middle_worth_asking());
        // A new epoch asks at once.
        clearance.learn_middle(f64::NAN, 2.0);
        assert!(!clearance.middle_worth_asking());
        clearance.start(2, 1, 1);
        assert!(clearance.middle_worth_asking());
    }

    #[test]
    fn a_new_epoch_or_a_move_that_is_not_finite_forgets_everything() {
        let mut clearance = Clearance::new([0.0; 3], NO_TURN);
        clearance.start(1, 1, 3);
        clearance.learn_point(2, 2.0);
        clearance.learn_middle(4.0, 1.0);
        clearance.start(1, 1, 3);
        assert_eq!(clearance.point(2), 2.0);
        assert_eq!(clearance.middle(), 4.0);
        clearance.start(2, 1, 3);
        assert_eq!(clearance.point(2), f64::NEG_INFINITY);
        assert_eq!(clearance.middle(), f64::NEG_INFINITY);

        clearance.learn_point(2, 2.0);
        clearance.follow([f64::NAN, 0.0, 0.0], NO_TURN, 1.0);
        clearance.follow([0.0; 3], NO_TURN, 1.0);
        clearance.start(2, 1, 3);
        assert_eq!(clearance.point(2), f64::NEG_INFINITY);
        assert!(clearance.travel.is_finite());

        // A clearance that is not a number teaches nothing.
        clearance.learn_point(1, f64::NAN);
        assert_eq!(clearance.point(1), f64::NEG_INFINITY);
        clearance.learn_middle(f64::NAN, 1.0);
        assert_eq!(clearance.middle(), f64::NEG_INFINITY);
    }
}
