//! The world of a running scene: set up from the scene file before t = 0, changed by the
//! scene's events, and stepped frame by frame (the pieces, then the player).

use std::sync::Arc;

use blockfall_engine::workers::WorkerPool;

use crate::blocks::store::BlockStore;
use crate::player::{Controls, Player};
use crate::terrain::{EditStore, Field, Generator, Ground, PlaneGround};

use super::error::{invalid, SceneError};
use super::file::{ActionSpec, Key, ModeSpec, SceneFile, TerrainSpec};
use super::solids::{SceneSolids, WithRubble};
use super::trace::{trace_time, EventLine};
use super::validate::block_of;

/// The world of a running scene.
pub struct SceneWorld {
    pub field: Field<EditStore<dyn Ground>>,
    pub blocks: BlockStore,
    pub support: crate::support::Support,
    /// The loose groups that broke off, falling or at rest.
    pub pieces: crate::pieces::Pieces,
    pub player: Option<Player>,
    yaw: f32,
    controls: Controls,
}

impl SceneWorld {
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
            if spec.mode == ModeSpec::Fly {
                player.toggle_fly();
            }
            player
        });
        // The support learns the world as a game does when it loads one (ground answers on the
        // workers, kept ways to the ground). Blocks placed floating are not dropped here: the
        // support searches only where something changed (docs/support.md), so they stay until
        // something near them changes.
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
    pub(super) fn apply(
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
    pub(super) fn step(&mut self, dt: f32) {
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
