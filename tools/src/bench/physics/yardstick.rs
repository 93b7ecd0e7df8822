//! The engines blockfall's physics core is measured against, and how each is set up beyond the
//! scene: rapier3d always, Jolt Physics when the tools are built with `--features jolt`.

use super::rapier_world::{self, run_rapier, RAPIER_VERSION};
use super::stage::Stage;
use super::steps::Run;

/// How one of the other engines is set up beyond the scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Setup {
    /// Whether bodies may fall asleep (both engines' default: yes).
    pub(super) sleeping: bool,
    /// The solver's iterations; `None`: the engine's default. rapier3d: its solver iterations
    /// (4 by default); Jolt: its velocity steps (10 by default), its position steps left at
    /// their default (2).
    pub(super) iterations: Option<usize>,
}

impl Setup {
    /// The engine as it comes: sleeping on, its own iteration count.
    pub(super) const DEFAULTS: Setup = Setup {
        sleeping: true,
        iterations: None,
    };

    /// Sleeping on, `iterations` solver iterations.
    pub(super) const fn iterations(iterations: usize) -> Setup {
        Setup {
            sleeping: true,
            iterations: Some(iterations),
        }
    }

    /// The same with sleeping off.
    pub(super) const fn awake(self) -> Setup {
        Setup {
            sleeping: false,
            ..self
        }
    }
}

/// One of the other engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Yardstick {
    /// rapier3d ([`RAPIER_VERSION`], `parallel`).
    Rapier,
    /// Jolt Physics 5.0 through joltc-sys 0.3.1.
    #[cfg(feature = "jolt")]
    Jolt,
}

impl Yardstick {
    /// Every engine this build has.
    pub(super) const ALL: &'static [Yardstick] = &[
        Yardstick::Rapier,
        #[cfg(feature = "jolt")]
        Yardstick::Jolt,
    ];

    /// Whether this build has Jolt.
    pub(super) const HAS_JOLT: bool = cfg!(feature = "jolt");

    /// Its name in the tables.
    pub(super) fn name(self) -> &'static str {
        match self {
            Yardstick::Rapier => "rapier3d",
            #[cfg(feature = "jolt")]
            Yardstick::Jolt => "Jolt",
        }
    }

    /// Its name and version, as the scene's description gives it.
    pub(super) fn release(self) -> String {
        match self {
            Yardstick::Rapier => format!("rapier3d {RAPIER_VERSION}"),
            #[cfg(feature = "jolt")]
            Yardstick::Jolt => format!("Jolt {}", super::jolt_world::JOLT_VERSION),
        }
    }

    /// Its default iteration count, in its own words.
    pub(super) fn default_iterations(self) -> String {
        match self {
            Yardstick::Rapier => {
                format!("{} solver iterations", rapier_world::default_iterations())
            }
            #[cfg(feature = "jolt")]
            Yardstick::Jolt => {
                let (velocity, position) = super::jolt_world::default_steps();
                format!("{velocity} velocity and {position} position steps")
            }
        }
    }

    /// Steps the pieces of `stage` `steps` times on `threads` threads, set up as `setup`.
    pub(super) fn run(
        self,
        stage: &Stage,
        threads: usize,
        steps: u32,
        setup: Setup,
    ) -> anyhow::Result<Run> {
        match self {
            Yardstick::Rapier => run_rapier(stage, threads, steps, setup),
            #[cfg(feature = "jolt")]
            Yardstick::Jolt => super::jolt_world::run_jolt(stage, threads, steps, setup),
        }
    }
}
