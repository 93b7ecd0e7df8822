//! Scenes: a world set up from a scene file and run headless frame by frame, writing a JSON-lines
//! trace. The `sim` tool and the scenario tests both run scenes through [`run`], so what a test
//! checks is what a user sees.
//!
//! ```text
//!   {"t":0,"player":{"feet":[..],"velocity":[..],"grounded":true,"mode":"walk"},"blocks":3,"pieces":[{"id":0,"blocks":3,"mass":…,"center_of_mass":[..],"orientation":[x,y,z,w],"velocity":[..],"spin":[..],"resting":false,"contact_points":44}],"falling":1}
//!   {"t":1,"event":"break","cell":[4,0,2],"removed":true}
//!   ...
//!   {"done":true,"t":5}
//! ```
//! A state line every `report_every` seconds (0: every frame), a line per event result, and
//! `done` last. Frames are fixed steps of `frame_dt`; the same scene gives the same bytes on any
//! machine and with any number of threads.

pub mod file;

use std::io::Write;
use std::sync::Arc;

use blockfall_engine::collision::{Solid, Surface};
use blockfall_engine::workers::WorkerPool;
use serde::Serialize;

use crate::blocks::materials::MATERIALS;
use crate::blocks::store::{Block, BlockStore};
use crate::player::{Controls, Mode, Player};
use crate::solids::terrain_surface;
use crate::terrain::{EditStore, Field, Generator, Ground, PlaneGround};
pub use file::{ActionSpec, BlockSpec, EventSpec, Key, SceneFile, SphereSpec, TerrainSpec};

/// The farthest a block's cell may be from the origin, on any axis: ±2^20 cells, 524 km.
pub const WORLD_CELLS: i32 = 1 << 20;
/// The longest scene, in seconds of simulated time.
pub const LONGEST_SCENE: f64 = 24.0 * 3600.0;
/// The longest frame a scene may ask for; the player itself cuts frames at 50 ms.
pub const LONGEST_FRAME: f64 = 0.1;

/// Why a scene cannot run. The text names the place in the scene.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// Not JSON, or not a scene: serde's message has the line and column.
    #[error("{0}")]
    Parse(#[from] serde_json::Error),
    /// A value out of its range, or something the world refuses.
    #[error("{place}: {problem}")]
    Invalid { place: String, problem: String },
    /// Writing the trace failed (a closed pipe, a full disk).
    #[error("writing the trace: {0}")]
    Output(#[from] std::io::Error),
}

fn invalid(place: impl Into<String>, problem: impl Into<String>) -> SceneError {
    SceneError::Invalid {
        place: place.into(),
        problem: problem.into(),
    }
}

/// Reads and checks a scene.
pub fn parse(text: &str) -> Result<SceneFile, SceneError> {
    let scene: SceneFile = serde_json::from_str(text)?;
    validate(&scene)?;
    Ok(scene)
}

fn finite(place: &str, values: &[f32]) -> Result<(), SceneError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(invalid(place, "not a finite number"))
    }
}

fn check_sphere(place: &str, sphere: &SphereSpec) -> Result<(), SceneError> {
    finite(&format!("{place}.center"), &sphere.center)?;
    if !(sphere.radius.is_finite() && sphere.radius > 0.0 && sphere.radius <= 64.0) {
        return Err(invalid(
            format!("{place}.radius"),
            format!("{} is not a radius between 0 and 64 m", sphere.radius),
        ));
    }
    Ok(())
}

/// The block a spec describes, checked.
pub fn block_of(place: &str, spec: &BlockSpec) -> Result<Block, SceneError> {
    if spec
        .cell
        .iter()
        .any(|c| c.unsigned_abs() > WORLD_CELLS as u32)
    {
        return Err(invalid(
            format!("{place}.cell"),
            format!(
                "{:?} is outside the world (±{WORLD_CELLS} cells)",
                spec.cell
            ),
        ));
    }
    let material = MATERIALS
        .iter()
        .position(|m| m.name == spec.material)
        .ok_or_else(|| {
            invalid(
                format!("{place}.material"),
                format!(
                    "no material `{}`; the materials are {}",
                    spec.material,
                    MATERIALS.map(|m| m.name).join(", ")
                ),
            )
        })?;
    let [x, y, z] = spec.cell;
    Block::new(x, y, z, spec.size, material as u8, spec.cuts, spec.slope)
        .map_err(|error| invalid(place, error.to_string()))
}

fn validate(scene: &SceneFile) -> Result<(), SceneError> {
    match scene.terrain {
        TerrainSpec::Flat { height } => finite("terrain.flat.height", &[height])?,
        TerrainSpec::Slope { degrees, height } => {
            finite("terrain.slope", &[degrees, height])?;
            if degrees.abs() >= 89.0 {
                return Err(invalid("terrain.slope.degrees", "a slope is less than 89°"));
            }
        }
        TerrainSpec::World { .. } => {}
    }
    for (i, dig) in scene.digs.iter().enumerate() {
        check_sphere(&format!("digs[{i}]"), dig)?;
    }
    for (i, build) in scene.builds.iter().enumerate() {
        check_sphere(&format!("builds[{i}]"), build)?;
    }
    for (i, block) in scene.blocks.iter().enumerate() {
        block_of(&format!("blocks[{i}]"), block)?;
    }
    if let Some(at) = scene.sample_scene {
        finite("sample_scene", &at)?;
    }
    if let Some(player) = &scene.player {
        finite("player.feet", &player.feet)?;
        finite("player.yaw_degrees", &[player.yaw_degrees])?;
    }
    if !(scene.duration.is_finite() && (0.0..=LONGEST_SCENE).contains(&scene.duration)) {
        return Err(invalid(
            "duration",
            format!("{} is not 0 to {LONGEST_SCENE} s", scene.duration),
        ));
    }
    if !(scene.frame_dt.is_finite() && scene.frame_dt > 0.0 && scene.frame_dt <= LONGEST_FRAME) {
        return Err(invalid(
            "frame_dt",
            format!(
                "{} is not above 0 and at most {LONGEST_FRAME} s",
                scene.frame_dt
            ),
        ));
    }
    if !(scene.report_every.is_finite() && scene.report_every >= 0.0) {
        return Err(invalid(
            "report_every",
            format!("{} is not 0 or more seconds", scene.report_every),
        ));
    }
    for (i, event) in scene.events.iter().enumerate() {
        let place = format!("events[{i}]");
        if !(event.t.is_finite() && event.t >= 0.0) {
            return Err(invalid(
                format!("{place}.t"),
                format!("{} is not 0 or more seconds", event.t),
            ));
        }
        if event.t > scene.duration {
            return Err(invalid(
                format!("{place}.t"),
                format!(
                    "{} s is after the scene's end ({} s)",
                    event.t, scene.duration
                ),
            ));
        }
        match &event.action {
            ActionSpec::Place(block) => {
                block_of(&format!("{place}.place"), block)?;
            }
            ActionSpec::Dig(sphere) => check_sphere(&format!("{place}.dig"), sphere)?,
            ActionSpec::Build(sphere) => check_sphere(&format!("{place}.build"), sphere)?,
            ActionSpec::Press(_)
            | ActionSpec::Release(_)
            | ActionSpec::Break(_)
            | ActionSpec::WouldFall(_)
            | ActionSpec::BreakPiece(_) => {}
        }
    }
    Ok(())
}

/// Everything solid in a scene: the edited ground and the blocks.
pub struct SceneSolids<'a> {
    pub field: &'a Field<EditStore<dyn Ground>>,
    pub blocks: &'a BlockStore,
}

impl Solid for SceneSolids<'_> {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        if !point.iter().all(|c| c.is_finite()) {
            return None;
        }
        let terrain = terrain_surface(self.field, point, reach);
        let blocks = crate::solids::blocks_surface(self.blocks, point, reach);
        nearer(terrain, blocks)
    }

    fn nearest_many(&self, queries: &[([f32; 3], f32)], out: &mut [Option<Surface>]) {
        crate::solids::terrain_surfaces(self.field, queries, out);
        for (answer, &(point, reach)) in out.iter_mut().zip(queries) {
            if !point.iter().all(|c| c.is_finite()) {
                *answer = None;
                continue;
            }
            let blocks = crate::solids::blocks_surface(self.blocks, point, reach);
            *answer = nearer(*answer, blocks);
        }
    }
}

/// The ground, the blocks and the rubble: what the player and the block tool meet.
pub struct WithRubble<'a> {
    pub solids: SceneSolids<'a>,
    pub rubble: crate::pieces::Rubble<'a>,
}

impl Solid for WithRubble<'_> {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        nearer(
            self.solids.nearest(point, reach),
            self.rubble.nearest(point, reach),
        )
    }
}

/// The nearer of two surfaces (the terrain's first on a tie).
fn nearer(terrain: Option<Surface>, blocks: Option<Surface>) -> Option<Surface> {
    match (terrain, blocks) {
        (Some(a), Some(b)) => Some(if b.distance < a.distance { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The world of a running scene.
pub struct Simulation {
    pub field: Field<EditStore<dyn Ground>>,
    pub blocks: BlockStore,
    pub support: crate::support::Support,
    /// The loose groups that broke off, falling or at rest.
    pub pieces: crate::pieces::Pieces,
    pub player: Option<Player>,
    yaw: f32,
    controls: Controls,
}

/// A piece in the trace: its id (the body's slot), its blocks, mass and middle, and its motion;
/// the orientation as a quaternion x, y, z, w.
#[derive(Serialize)]
struct PieceLine {
    id: u32,
    blocks: usize,
    mass: f64,
    center_of_mass: [f64; 3],
    orientation: [f64; 4],
    velocity: [f64; 3],
    spin: [f64; 3],
    resting: bool,
    contact_points: usize,
}

#[derive(Serialize)]
struct PlayerLine {
    feet: [f32; 3],
    velocity: [f32; 3],
    grounded: bool,
    mode: &'static str,
}

#[derive(Serialize)]
struct StateLine {
    t: f64,
    player: Option<PlayerLine>,
    blocks: usize,
    pieces: Vec<PieceLine>,
    falling: usize,
}

/// The result of an event; fields that do not apply are left out.
#[derive(Serialize, Default)]
struct EventLine {
    t: f64,
    event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cell: Option<[i32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    center: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    radius: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    placed: Option<bool>,
    /// Why a block was not placed: "occupied" or "player".
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changed: Option<bool>,
    /// How many blocks would fall.
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
    /// How many blocks lost their hold and left the world after a break or a dig.
    #[serde(skip_serializing_if = "Option::is_none")]
    fell: Option<usize>,
    /// The piece a block was broken out of.
    #[serde(skip_serializing_if = "Option::is_none")]
    piece: Option<u32>,
    /// The pieces it split into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pieces: Option<Vec<u32>>,
}

#[derive(Serialize)]
struct DoneLine {
    done: bool,
    t: f64,
}

/// Time as the trace prints it: to the microsecond, so 6 frames of 1/60 s read 0.1.
fn trace_time(t: f64) -> f64 {
    (t * 1e6).round() / 1e6
}

impl Simulation {
    /// Sets the world up as the scene says, before t = 0.
    pub fn new(scene: &SceneFile) -> Result<Self, SceneError> {
        Self::with_pool(
            scene,
            WorkerPool::new(1).map_err(|e| invalid("threads", e.to_string()))?,
        )
    }

    /// Sets the world up as the scene says, its physics on `pool` (the trace is the same for
    /// any number of threads).
    pub fn with_pool(scene: &SceneFile, pool: WorkerPool) -> Result<Self, SceneError> {
        let ground: Arc<dyn Ground> = match scene.terrain {
            TerrainSpec::Flat { height } => Arc::new(PlaneGround::flat(height)),
            TerrainSpec::Slope { degrees, height } => {
                Arc::new(PlaneGround::sloped(degrees, height))
            }
            TerrainSpec::World { seed } => Arc::new(Generator::new(seed)),
        };
        let mut field = Field::new(EditStore::new(ground));
        for (i, dig) in scene.digs.iter().enumerate() {
            field
                .dig(dig.center, dig.radius)
                .map_err(|error| invalid(format!("digs[{i}]"), error.to_string()))?;
        }
        for (i, build) in scene.builds.iter().enumerate() {
            field
                .build(build.center, build.radius)
                .map_err(|error| invalid(format!("builds[{i}]"), error.to_string()))?;
        }
        let mut blocks = BlockStore::new();
        for (i, spec) in scene.blocks.iter().enumerate() {
            let place = format!("blocks[{i}]");
            let block = block_of(&place, spec)?;
            blocks
                .add(block)
                .map_err(|error| invalid(place, error.to_string()))?;
        }
        if let Some([x, z]) = scene.sample_scene {
            let ground = field.edits().generator().clone();
            crate::sample::build_sample(
                &mut blocks,
                &field,
                |px, pz| ground.surface_height(px, pz),
                x,
                z,
            )
            .map_err(|error| invalid("sample_scene", error.to_string()))?;
        }
        // Events of the set-up are not part of the trace.
        blocks.drain_events().for_each(drop);
        let player = scene.player.map(|spec| {
            let mut player = Player::new(spec.feet);
            if spec.mode == file::ModeSpec::Fly {
                player.toggle_fly();
            }
            player
        });
        // The support learns the world as a game does when it loads one (ground answers on the
        // workers, kept ways to the ground). Blocks placed floating are not dropped here: as in
        // the seed, they stay until something near them changes.
        let mut support = crate::support::Support::new();
        let _floating = support.survey(&blocks, &field, &pool);
        Ok(Self {
            field,
            blocks,
            support,
            pieces: crate::pieces::Pieces::new(pool),
            player,
            yaw: scene.player.map_or(0.0, |p| p.yaw_degrees.to_radians()),
            controls: Controls::default(),
        })
    }

    fn state_line(&self, t: f64) -> StateLine {
        StateLine {
            t: trace_time(t),
            player: self.player.as_ref().map(|player| PlayerLine {
                feet: player.position.into(),
                velocity: player.velocity.into(),
                grounded: player.grounded,
                mode: match player.mode {
                    Mode::Walk => "walk",
                    Mode::Fly => "fly",
                },
            }),
            blocks: self.blocks.count(),
            pieces: self
                .pieces
                .iter()
                .map(|(handle, piece, body)| PieceLine {
                    id: handle.index(),
                    blocks: piece.blocks.len(),
                    mass: body.mass,
                    center_of_mass: body.position,
                    orientation: body.orientation,
                    velocity: body.velocity,
                    spin: body.spin,
                    resting: body.resting,
                    contact_points: piece.contact_points,
                })
                .collect(),
            falling: self.pieces.falling(),
        }
    }

    fn key(&mut self, key: Key, down: bool) {
        let controls = &mut self.controls;
        let held = match key {
            Key::KeyW => &mut controls.forward,
            Key::KeyS => &mut controls.back,
            Key::KeyA => &mut controls.left,
            Key::KeyD => &mut controls.right,
            Key::Space => &mut controls.jump,
            Key::ShiftLeft => &mut controls.run,
            Key::KeyE => &mut controls.up,
            Key::KeyQ => &mut controls.down,
            Key::KeyF => {
                // F toggles on the press, as the game does on keydown.
                if down {
                    if let Some(player) = &mut self.player {
                        player.toggle_fly();
                    }
                }
                return;
            }
        };
        *held = down;
    }

    /// Applies one event; returns its result line, if it has one.
    fn apply(
        &mut self,
        t: f64,
        action: &ActionSpec,
        place: &str,
    ) -> Result<Option<String>, SceneError> {
        let t = trace_time(t);
        let line = match action {
            ActionSpec::Press(key) => {
                self.key(*key, true);
                return Ok(None);
            }
            ActionSpec::Release(key) => {
                self.key(*key, false);
                return Ok(None);
            }
            ActionSpec::Break(cell) => {
                let removed = match self.blocks.at(cell[0], cell[1], cell[2]) {
                    Some(id) => self.blocks.remove(id).is_some(),
                    None => false,
                };
                let fell = self.settle();
                EventLine {
                    t,
                    event: "break",
                    cell: Some(*cell),
                    removed: Some(removed),
                    fell: Some(fell),
                    ..EventLine::default()
                }
            }
            ActionSpec::Place(spec) => {
                let block = block_of(&format!("{place}.place"), spec)?;
                // Not into the blocks, and not into rubble (where its middle would be inside).
                let meters = f32::from(block.size) * crate::blocks::store::CELL;
                let middle = block
                    .low()
                    .map(|c| c as f32 * crate::blocks::store::CELL + meters / 2.0);
                let fits = self.blocks.fits(block.x, block.y, block.z, block.size)
                    && !crate::support::Holder::holds_at(&self.pieces.rubble(), middle);
                let clear = self.player.as_ref().is_none_or(|player| {
                    player.leaves_room(|point| crate::solids::block_distance_plain(&block, point))
                });
                let placed = fits && clear && self.blocks.add(block).is_ok();
                // Adding a block holds more, never less: the support need not hear of it.
                self.blocks.drain_events().for_each(drop);
                let reason = if placed {
                    None
                } else if !fits {
                    Some("occupied")
                } else {
                    Some("player")
                };
                EventLine {
                    t,
                    event: "place",
                    cell: Some(spec.cell),
                    placed: Some(placed),
                    reason,
                    ..EventLine::default()
                }
            }
            ActionSpec::Dig(sphere) | ActionSpec::Build(sphere) => {
                let digging = matches!(action, ActionSpec::Dig(_));
                let changed = if digging {
                    self.field.dig(sphere.center, sphere.radius)
                } else {
                    self.field.build(sphere.center, sphere.radius)
                }
                .map_err(|error| invalid(place, error.to_string()))?;
                if let Some(changed) = &changed {
                    self.support.ground_changed(&self.blocks, changed);
                    // Rubble whose points may lie on the changed ground wakes (the blend reaches
                    // a meter from a changed sample).
                    let low = changed
                        .low
                        .map(|c| c as f32 - 1.0 - crate::support::GROUND_REACH);
                    let high = changed
                        .high
                        .map(|c| c as f32 + 1.0 + crate::support::GROUND_REACH);
                    for (_, low, high) in self.pieces.wake_in(low, high) {
                        self.support.solid_changed(&self.blocks, low, high);
                    }
                }
                let fell = self.settle();
                EventLine {
                    t,
                    event: action.name(),
                    center: Some(sphere.center),
                    radius: Some(sphere.radius),
                    changed: Some(changed.is_some()),
                    // Building only adds ground: nothing can fall from it.
                    fell: digging.then_some(fell),
                    ..EventLine::default()
                }
            }
            ActionSpec::BreakPiece(spec) => {
                let handle = self.pieces.by_index(spec.piece);
                let bounds = handle.and_then(|handle| self.pieces.bounds(handle));
                let broken = handle.map(|handle| self.pieces.break_block(handle, spec.cell));
                let (removed, reason, pieces) = match broken {
                    None => (false, Some("no piece"), None),
                    Some(Err(_)) => (false, Some("no block"), None),
                    Some(Ok((_, made))) => {
                        let ids = made.iter().map(|handle| handle.index()).collect();
                        if let Some((low, high)) = bounds {
                            // What lay on it wakes, and the blocks it held are searched again.
                            self.support.solid_changed(&self.blocks, low, high);
                            for (_, low, high) in self.pieces.wake_in(low, high) {
                                self.support.solid_changed(&self.blocks, low, high);
                            }
                        }
                        (true, None, Some(ids))
                    }
                };
                let fell = self.settle();
                EventLine {
                    t,
                    event: "break_piece",
                    cell: Some(spec.cell),
                    piece: Some(spec.piece),
                    removed: Some(removed),
                    reason,
                    pieces,
                    fell: Some(fell),
                    ..EventLine::default()
                }
            }
            ActionSpec::WouldFall(cell) => {
                let count = self.blocks.at(cell[0], cell[1], cell[2]).map_or(0, |id| {
                    self.support
                        .would_fall_with(&self.blocks, &self.field, id, &self.pieces.rubble())
                        .len()
                });
                EventLine {
                    t,
                    event: "would_fall",
                    cell: Some(*cell),
                    count: Some(count),
                    ..EventLine::default()
                }
            }
        };
        Ok(Some(serde_json::to_string(&line)?))
    }

    /// Tells the support what left the store, then every group that lost its hold leaves the
    /// grid and falls as a piece; rubble that lay on a block that left wakes, and the blocks
    /// it held are searched again, until nothing more changes. Returns how many blocks fell.
    fn settle(&mut self) -> usize {
        let mut fell = 0;
        loop {
            self.forward_removals();
            if !self.support.pending() {
                break;
            }
            let rubble = self.pieces.rubble();
            let groups = self.support.update_with(&self.blocks, &self.field, &rubble);
            for group in groups {
                let blocks = group.len();
                match self.pieces.break_off(&group, &mut self.blocks) {
                    Ok(Some(_)) => fell += blocks,
                    Ok(None) => {}
                    Err(error) => {
                        // Blocks of the store always make a valid piece; if not, they vanish
                        // as before pieces existed rather than stopping the scene.
                        log::warn!("a loose group could not become a piece: {error}");
                    }
                }
            }
        }
        fell
    }

    /// Tells the support which blocks left the store, and wakes the rubble lying on them.
    fn forward_removals(&mut self) {
        let events: Vec<_> = self.blocks.drain_events().collect();
        for event in events {
            if let crate::blocks::store::StoreEvent::Removed(id, block) = event {
                self.support.removed(&self.blocks, id, &block);
                let meters = f32::from(block.size) * crate::blocks::store::CELL;
                let low = block
                    .low()
                    .map(|c| c as f32 * crate::blocks::store::CELL - 0.05);
                let high = low.map(|c| c + meters + 0.1);
                for (_, low, high) in self.pieces.wake_in(low, high) {
                    self.support.solid_changed(&self.blocks, low, high);
                }
            }
        }
    }

    /// One frame of `dt` seconds.
    fn step(&mut self, dt: f32) {
        let solids = SceneSolids {
            field: &self.field,
            blocks: &self.blocks,
        };
        let report = self.pieces.update(f64::from(dt), &solids);
        // Rubble that came to rest may hold blocks, rubble that woke may have held some.
        for (_, low, high) in report.came_to_rest.iter().chain(&report.woke) {
            self.support.solid_changed(&self.blocks, *low, *high);
        }
        if !report.woke.is_empty() {
            self.settle();
        }
        let Some(mut player) = self.player.take() else {
            return;
        };
        let solids = WithRubble {
            solids: SceneSolids {
                field: &self.field,
                blocks: &self.blocks,
            },
            rubble: self.pieces.rubble(),
        };
        player.update(dt, &self.controls, self.yaw, 0.0, &solids);
        self.player = Some(player);
    }
}

/// Runs a checked scene and writes its trace.
pub fn run(scene: &SceneFile, out: &mut dyn Write) -> Result<(), SceneError> {
    run_with_pool(
        scene,
        out,
        WorkerPool::new(1).map_err(|e| invalid("threads", e.to_string()))?,
    )
}

/// [`run`] with the physics on `pool`: the trace is the same, byte for byte, for any pool.
pub fn run_with_pool(
    scene: &SceneFile,
    out: &mut dyn Write,
    pool: WorkerPool,
) -> Result<(), SceneError> {
    let mut simulation = Simulation::with_pool(scene, pool)?;
    let mut order: Vec<usize> = (0..scene.events.len()).collect();
    // By time; events at the same time in the order the file gives them.
    order.sort_by(|&a, &b| {
        scene.events[a]
            .t
            .total_cmp(&scene.events[b].t)
            .then(a.cmp(&b))
    });
    let mut pending = order.into_iter().peekable();

    let frames = (scene.duration / scene.frame_dt - 1e-9).ceil().max(0.0) as u64;
    let epsilon = scene.frame_dt * 1e-6;
    writeln!(
        out,
        "{}",
        serde_json::to_string(&simulation.state_line(0.0))?
    )?;
    let mut next_report = scene.report_every;
    for frame in 0..frames {
        let t = frame as f64 * scene.frame_dt;
        while let Some(&index) = pending.peek() {
            let event = &scene.events[index];
            if event.t > t + epsilon {
                break;
            }
            pending.next();
            if let Some(line) = simulation.apply(t, &event.action, &format!("events[{index}]"))? {
                writeln!(out, "{line}")?;
            }
        }
        simulation.step(scene.frame_dt as f32);
        let after = (frame + 1) as f64 * scene.frame_dt;
        if scene.report_every == 0.0 || after + epsilon >= next_report {
            writeln!(
                out,
                "{}",
                serde_json::to_string(&simulation.state_line(after))?
            )?;
            if scene.report_every > 0.0 {
                while next_report <= after + epsilon {
                    next_report += scene.report_every;
                }
            }
        }
    }
    let end = frames as f64 * scene.frame_dt;
    // Events at the very end happen after the last frame (later ones are refused by `parse`).
    for index in pending {
        let event = &scene.events[index];
        if let Some(line) = simulation.apply(end, &event.action, &format!("events[{index}]"))? {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(
        out,
        "{}",
        serde_json::to_string(&DoneLine {
            done: true,
            t: trace_time(end)
        })?
    )?;
    out.flush()?;
    Ok(())
}
