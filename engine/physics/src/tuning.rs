//! The numbers that tune the physics; docs/physics.md lists them with what each one does.

/// Seconds per step: bodies move in small steps of the same length, whatever the frame rate,
/// so the motion is the same however fast the program runs.
pub const STEP: f64 = 1.0 / 120.0;

/// Meters per second², down (−y).
pub const GRAVITY: f64 = 9.81;

/// How often the contact rows of a step are worked through: pushing at one contact changes the
/// speed at the others, and each pass corrects what is left.
pub const ITERATIONS: usize = 8;

/// How near a surface a point counts as touching it, in meters: a resting body keeps its
/// contacts instead of dropping a hair's breadth and bouncing out every step.
pub const MARGIN: f64 = 0.02;

/// How deep a point may sink in unnoticed, in meters.
pub const SLOP: f64 = 0.004;

/// The share of a point's depth (beyond [`SLOP`]) that one step pushes out.
pub const BAUMGARTE: f64 = 0.1;

/// The fastest a body is pushed out of a surface, in meters per second: a point that sank in
/// comes out gently instead of jumping.
pub const MOST_CORRECTIVE_SPEED: f64 = 2.0;

/// A hit faster than [`BOUNCE_SPEED`] bounces back with this share of its speed.
pub const BOUNCE: f64 = 0.15;

/// Meters per second below which nothing bounces: otherwise a resting body would keep
/// hopping on its own small corrections.
pub const BOUNCE_SPEED: f64 = 1.5;

/// How hard rubbing along a surface may be, as a share of the push into it. Bodies stay on
/// slopes up to atan(0.6) ≈ 31° and slide on steeper ones.
pub const FRICTION: f64 = 0.6;

/// The share of its spin a touching body loses per second.
pub const ANGULAR_DAMPING: f64 = 2.0;

/// A touching body slower than this, in meters per second, ...
pub const STILL_SPEED: f64 = 0.15;

/// ... and spinning slower than this, in radians per second, ...
pub const STILL_ANGULAR_SPEED: f64 = 0.3;

/// ... for this many seconds comes to rest.
pub const STILL_TIME: f64 = 0.4;

/// Seconds of touching something after which a body rests wherever it is (a ball rolling down
/// a very long slope, a piece jittering in a crack). Only time in contact counts: a body in
/// free fall falls until it lands or leaves the world.
pub const LONGEST_FALL: f64 = 20.0;

/// Below this height, in meters, a body has fallen out of the world and is removed.
pub const BOTTOM: f64 = -500.0;

/// How far from the origin, in meters, on any axis, the world reaches: the game's ±2²⁰
/// half-meter cells. A body beyond it has left the world and is removed, as one below
/// [`BOTTOM`] is; a saved body beyond it is refused. Within it, f64 positions keep a step's
/// smallest move (well under a micrometer at 8 m/s) and nothing a step adds can overflow.
pub const EDGE: f64 = 524_288.0;

/// The fastest a body's middle moves, in meters per second (three times the speed of sound).
/// Nothing in play comes near it (a piece dropped from 1 km lands at 140 m/s), but a fall from
/// the top of the world would reach 3.2 km/s with no air to slow it: the step holds a body at
/// this speed, a terminal velocity. It keeps a step's move under 8.4 m, so contacts are still
/// found (a body's sphere grows by its speed times [`STEP`]) and no momentum, energy or
/// position a step computes from it can overflow; a saved body faster than it is refused.
pub const MOST_SPEED: f64 = 1000.0;

/// The fastest a body spins, in radians per second (160 turns a second: a half-meter block's
/// corners then move at 350 m/s, within [`MOST_SPEED`]). Nothing in play comes near it; the
/// step holds a body at it, and a saved body spinning faster is refused.
pub const MOST_ANGULAR_SPEED: f64 = 1000.0;

/// The most steps one call of `advance` takes. A frame that took longer (a stall, a debugger)
/// would otherwise owe more steps than a frame can run, and the next frame even more: the
/// time beyond this is dropped, and the simulation slows down instead of spiralling.
pub const MOST_STEPS: u32 = 16;

/// The most pairs of bodies a step gives contacts to; beyond it, a sample of them, and the rest
/// waits (docs/physics.md, "The pair budget"). What the game makes stays far inside it: the
/// benchmark's heap of 400 pieces has at most 1,508 pairs (under four a piece), the capacity
/// scene's 4,096 large pieces on a 5 m grid two each; 65,536 is a heap of 16,000 such pieces.
/// Twenty thousand pieces in one place have 2·10⁸ pairs.
pub const PAIR_BUDGET: usize = 1 << 16;

/// The most contacts a step's pairs of bodies may find between them, before their patches are
/// reduced; beyond it, the contact jobs share it out and the pairs left over wait (docs/
/// physics.md, "The pair budget"). It binds only where pairs find contacts at most of their
/// points, as bodies sunk into each other do: the benchmark's heap of 400 pieces, whose pairs'
/// bodies have 175,327 points between them, never reaches it. In a heap sunk into itself each
/// contact costs about a kilobyte through the step (found, three rows in the solver's lanes,
/// its push kept three times), so this holds the step to a few hundred megabytes: twenty
/// thousand of the game's pieces in one place stay near 700 MiB resident, the pieces
/// themselves 247 MiB of it.
pub const CONTACT_BUDGET: usize = 1 << 18;
