//! The world at play, one model for the window, the headless run, scripted runs and the `sim`
//! tool's scenes: the edited ground and its chunks streamed around the player, the blocks, what
//! holds them ([`Support`]), the pieces that broke off and the rubble they became
//! ([`Pieces`]), the player and where it looks, and the two tools (docs/player.md, controls in
//! [`crate::input`]).
//!
//! The rules that tie these together live here and nowhere else: what a break, a place or a dig
//! sets falling (`rules`), what the view aims at and where a block would go (`aim`), what the
//! tools do with the buttons (`tool`), and the edits' history for undo and redo (`history`). The world's parts are private: others read them through
//! getters ([`World::blocks`], [`World::pieces`], [`World::player`], …) and change them only
//! through these calls, so that the support, the pieces, the regions to mesh again and the
//! rubble hear of every change. A scene (`crate::scene`) builds a world through the same
//! calls and applies its events to it; the window and the headless run feed it [`Input`]. The
//! CPU side alone: whoever meshes and draws it (`blockfall-game-render`) is a [`ChunkSink`] that
//! [`World::stream`] and [`World::stream_edit`] feed, reads the blocks' changed regions from
//! [`World::take_changed_regions`], and draws the [`Camera`] of [`World::view`]:
//!
//! ```text
//!   frame(dt, input) ─▶ FrameReport  the view turns, the tool acts, the pieces fall, the
//!                                    player moves; the ground's samples changed since the
//!                                    last report (the tool's, a scene's events) reported
//!   stream_edit(changed, sink)       the chunks an edit changed meshed again, those near lit again
//!   stream(budget, sink)             far chunks out, the nearest missing ones in
//!   take_changed_regions()           the block regions to mesh again
//!   view(w, h, fov) ─▶ Camera        what the renderer draws (the field of view is its own)
//!   light_at(point)                  the sky light the terrain there is lit with
//!   inside_ground(point)             whether the point is in the ground (blocks' occlusion)
//! ```

mod aim;
mod blows;
mod ground_sampler;
mod history;
mod rules;
mod saved;
pub mod scene_solids;
mod tool;

use std::collections::BTreeSet;
use std::sync::Arc;

use blockfall_meshing::Mesher;
use blockfall_physics::workers::WorkerPool;
use ultraviolet::Vec3;

use crate::blocks::store::{Block, BlockError, BlockStore};
use crate::camera::Camera;
use crate::input::{Command, Input};
use crate::pieces::Pieces;
use crate::player::{Player, EYES};
use crate::showcase::ShowcaseError;
use crate::support::Support;
use crate::terrain::streaming::{
    ChunkSink, ChunkStream, EditReport, LightSampler, StreamReport, VIEW_RADIUS,
};
use crate::terrain::{EditError, EditStore, Field, Generator, Ground, SampleBox, Samples};

pub use aim::{Aim, AimTarget, Placement, BLOCK_REACH};
pub use blows::{block_mass, Blow, BlowKind, MOST_BLOWS};
pub use ground_sampler::GroundSampler;
pub use history::{Change, Edit, Entry, History, MOST_HISTORY_BYTES, MOST_HISTORY_ENTRIES};
pub use rules::{PlaceRefusal, Settled};
pub use scene_solids::{SceneSolids, WithRubble};
pub use tool::{
    Tool, ToolKind, BLOCK_SIZES, TOOL_RADIUS, TOOL_RADIUS_MAX, TOOL_RADIUS_MIN, TOOL_RADIUS_STEP,
    TOOL_REACH, TOOL_REPEAT,
};

/// The view looks down this far below the horizon at the start, in degrees.
pub const FIRST_PITCH_DEGREES: f32 = -10.0;
/// The steepest the view may look up or down, in degrees.
pub const PITCH_LIMIT_DEGREES: f32 = 89.0;
/// How far in front of the spawn point the showcase stands, in meters (in view: the first
/// view looks along the same line, 10° down).
pub const SHOWCASE_AHEAD: f32 = 11.0;

/// The edited ground under everything.
pub type WorldField = Field<EditStore<dyn Ground>>;

/// What a frame did that the renderer must hear of.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FrameReport {
    /// The ground's samples changed since the last report (for [`World::stream_edit`]): the
    /// terrain tool's edits this frame and any edit made between frames (a scene's `dig` and
    /// `build` events), so that whoever draws the world meshes them all the same way.
    pub ground_changed: Vec<SampleBox>,
    /// Commands the world does not handle itself (screenshot, wireframe, HUD, window).
    pub commands: Vec<Command>,
    /// What an edit (break, place, dig) set falling this frame.
    pub fell: usize,
}

/// Why a world could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    #[error("the showcase: {0}")]
    Showcase(#[from] ShowcaseError),
    #[error("a block: {0}")]
    Block(#[from] BlockError),
    #[error("an edit of the ground: {0}")]
    Edit(#[from] EditError),
    #[error("starting the worker threads: {0}")]
    Workers(#[from] blockfall_physics::workers::WorkerError),
}

/// The world at play.
pub struct World {
    ground: Arc<dyn Ground>,
    field: WorldField,
    chunks: ChunkStream,
    pool: WorkerPool,
    /// The blocks standing on the grid. Changed only by the rules (`rules`) and the set-up
    /// calls, so that `support`, `pieces` and `changed_regions` hear of every change.
    blocks: BlockStore,
    support: Support,
    /// The groups that broke off, falling or at rest (rubble).
    pieces: Pieces,
    player: Player,
    /// Whether the player takes part: a scene without one steps no player and keeps no block
    /// clear of it (its position still places the camera).
    embodied: bool,
    /// Radians about the vertical, in [0, 2π); 0 faces +z, π/2 faces +x (the player's
    /// convention).
    yaw: f32,
    /// Radians above the horizon, within ±[`PITCH_LIMIT_DEGREES`].
    pitch: f32,
    tool: Tool,
    /// What the view aims at, as of the last [`World::frame`] or [`World::update_aim`].
    aim: Option<Aim>,
    /// Block regions whose meshes are out of date, for the renderer.
    changed_regions: BTreeSet<[i32; 3]>,
    /// The ground's samples changed since the renderer last heard ([`World::frame`]'s report
    /// or [`World::take_changed_ground`]): every edit's, the terrain tool's and a scene's.
    changed_ground: Vec<SampleBox>,
    /// The pieces that broke where they were struck in the last [`World::step`].
    splits: Vec<crate::pieces::Split>,
    /// Blocks that left the world this frame without falling as pieces ([`World::lost`]), and
    /// how many of them the last frame's report already named.
    lost: Vec<crate::pieces::Lost>,
    lost_named: usize,
    /// Why the player's last use of a tool changed nothing, where a limit or the world's edge
    /// refused it ([`World::take_tool_refusal`]).
    tool_refusal: Option<String>,
    /// The blows since they were last taken ([`World::take_blows`]).
    blows: std::collections::VecDeque<Blow>,
    /// How far the player walked since its last step.
    stride: blows::Stride,
    /// The edits to undo and redo ([`World::undo`], [`World::redo`]).
    history: History,
}

impl World {
    /// The generated world of `seed`: the player at its spawn point looking north toward
    /// [`Generator::first_view_target`] and a little down, the showcase [`SHOWCASE_AHEAD`]
    /// meters ahead, chunks streamed `radius` chunks around the player, the physics on `pool`.
    pub fn generated(seed: u32, radius: u32, pool: WorkerPool) -> Result<Self, WorldError> {
        let mut world = Self::at_spawn(seed, radius, pool);
        let spawn = world.player.position;
        let yaw = world.yaw;
        world.build_showcase(
            spawn.x + SHOWCASE_AHEAD * yaw.sin(),
            spawn.z + SHOWCASE_AHEAD * yaw.cos(),
        )?;
        world.survey();
        Ok(world)
    }

    /// [`World::generated`] without the showcase: the ground alone, the player at the spawn.
    pub fn at_spawn(seed: u32, radius: u32, pool: WorkerPool) -> Self {
        let generator = Arc::new(Generator::new(seed));
        let spawn = generator.spawn_point();
        let [tx, _, tz] = generator.first_view_target();
        let (dx, dz) = (tx - spawn[0], tz - spawn[2]);
        let yaw = if dx * dx + dz * dz > 1e-6 {
            dx.atan2(dz)
        } else {
            std::f32::consts::PI
        };
        let mut world = Self::on(generator, radius, pool);
        world.place_player(spawn, false, yaw, FIRST_PITCH_DEGREES.to_radians());
        world
    }

    /// An empty world on `ground`: no blocks, no player (see [`World::place_player`]), looking
    /// along +z from above the origin's ground.
    pub fn on(ground: Arc<dyn Ground>, radius: u32, pool: WorkerPool) -> Self {
        let height = ground.surface_height(0.0, 0.0);
        let height = if height.is_finite() { height } else { 0.0 };
        Self {
            field: Field::new(EditStore::new(ground.clone())),
            ground,
            chunks: ChunkStream::new(radius.max(1)),
            blocks: BlockStore::new(),
            support: Support::new(),
            pieces: Pieces::new(pool.clone()),
            pool,
            player: Player::new([0.0, height, 0.0]),
            embodied: false,
            yaw: 0.0,
            pitch: 0.0,
            tool: Tool::default(),
            aim: None,
            changed_regions: BTreeSet::new(),
            changed_ground: Vec::new(),
            splits: Vec::new(),
            lost: Vec::new(),
            lost_named: 0,
            tool_refusal: None,
            blows: Default::default(),
            stride: blows::Stride::default(),
            history: History::default(),
        }
    }

    /// The player stands (or flies) with its feet at `feet`, looking `yaw` and `pitch` radians.
    pub fn place_player(&mut self, feet: [f32; 3], fly: bool, yaw: f32, pitch: f32) {
        self.player = Player::new(feet);
        if fly {
            self.player.toggle_fly();
        }
        self.embodied = true;
        self.yaw = yaw.rem_euclid(std::f32::consts::TAU);
        let limit = PITCH_LIMIT_DEGREES.to_radians();
        self.pitch = pitch.clamp(-limit, limit);
    }

    /// Builds the showcase (docs/support.md) around the 1 m column at (x, z) meters on the
    /// ground as it is; returns how many blocks it placed. Call [`World::survey`] after setting
    /// the world up.
    pub fn build_showcase(&mut self, x: f32, z: f32) -> Result<usize, ShowcaseError> {
        let ground = self.ground.clone();
        let added = crate::showcase::build_showcase(
            &mut self.blocks,
            &self.field,
            |px, pz| ground.surface_height(px, pz),
            x,
            z,
        )?;
        self.forget_setup_events();
        Ok(added)
    }

    /// Adds a block while setting the world up (nothing falls: see [`World::survey`]).
    pub fn add_block(&mut self, block: Block) -> Result<(), BlockError> {
        self.blocks.add(block)?;
        self.forget_setup_events();
        Ok(())
    }

    /// Digs or builds while setting the world up, before any block stands.
    pub fn edit_ground(
        &mut self,
        dig: bool,
        centre: [f32; 3],
        radius: f32,
    ) -> Result<Option<SampleBox>, EditError> {
        if dig {
            self.field.dig(centre, radius)
        } else {
            self.field.build(centre, radius)
        }
    }

    /// The support learns the world as a game does when it loads one (ground answers on the
    /// workers, kept ways to the ground). Blocks placed floating are not dropped here: the
    /// support searches only where something changed (docs/support.md), so they stay until
    /// something near them changes.
    pub fn survey(&mut self) {
        let _floating = self.support.survey(&self.blocks, &self.field, &self.pool);
        self.changed_regions
            .extend(self.blocks.iter().map(|(_, block)| region_of_block(block)));
    }

    /// Puts `blocks` on the grid in place of every block standing there while setting the
    /// world up (a world built elsewhere, as the `saves` bench builds its city), and returns the
    /// blocks that stood: the support forgets what it knew and surveys the new blocks as
    /// [`World::survey`] does (so nothing falls here either), the regions of the old blocks and
    /// the new are marked to mesh again, and the aim is worked out anew (an aimed block's id
    /// named a block of the old store). The store's pending events are dropped, as the set-up's.
    pub fn replace_blocks(&mut self, blocks: BlockStore) -> BlockStore {
        let old = std::mem::replace(&mut self.blocks, blocks);
        self.changed_regions
            .extend(old.iter().map(|(_, block)| region_of_block(block)));
        self.forget_setup_events();
        self.support = Support::new();
        self.survey();
        self.update_aim();
        old
    }

    /// Events of the set-up are no one's business: the support surveys the whole store.
    fn forget_setup_events(&mut self) {
        self.blocks.drain_events().for_each(drop);
    }

    /// The edited ground.
    pub fn edits(&self) -> &EditStore<dyn Ground> {
        self.field.edits()
    }

    /// The sampled ground, for collisions and rays.
    pub fn field(&self) -> &WorldField {
        &self.field
    }

    /// The ground under the edits.
    pub fn ground(&self) -> &Arc<dyn Ground> {
        &self.ground
    }

    /// The worker threads of the physics and the chunks.
    pub fn pool(&self) -> &WorkerPool {
        &self.pool
    }

    /// The blocks standing on the grid (changed by [`World::break_cell`], [`World::place`],
    /// [`World::reshape`], the tools, [`World::undo`] and [`World::redo`] and, while setting
    /// up, [`World::add_block`] and [`World::replace_blocks`]).
    pub fn blocks(&self) -> &BlockStore {
        &self.blocks
    }

    /// The pieces that broke off, falling or at rest (rubble).
    pub fn pieces(&self) -> &Pieces {
        &self.pieces
    }

    /// The player: where it stands, how it moves, walking or flying.
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// Whether the player takes part ([`World::place_player`]): a world without one steps no
    /// player, keeps no block clear of it and aims at nothing.
    pub fn embodied(&self) -> bool {
        self.embodied
    }

    /// Where the view looks about the vertical, in radians in [0, 2π): 0 faces +z, π/2 faces +x.
    pub fn yaw(&self) -> f32 {
        self.yaw
    }

    /// How far the view looks above the horizon, in radians, within ±[`PITCH_LIMIT_DEGREES`].
    pub fn pitch(&self) -> f32 {
        self.pitch
    }

    /// The tool in hand and its settings ([`World::choose_tool`] changes them).
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Where the camera is: the player's eyes.
    pub fn eye(&self) -> Vec3 {
        self.player.position + Vec3::new(0.0, EYES, 0.0)
    }

    /// Where the camera looks (a unit vector).
    pub fn look_direction(&self) -> Vec3 {
        Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            self.yaw.cos() * self.pitch.cos(),
        )
    }

    /// The camera for a `width`×`height` image with a vertical field of view of `fov_degrees`,
    /// its fog at the streamed radius. The field of view is the viewer's setting, not the
    /// world's: whoever draws the world keeps it (`render::world::WorldRenderer`), so that it
    /// outlives a world loaded in place of this one.
    pub fn view(&self, width: u32, height: u32, fov_degrees: f32) -> Camera {
        Camera::looking_within(
            self.eye(),
            self.look_direction(),
            width,
            height,
            self.chunks.radius(),
            fov_degrees,
        )
    }

    /// The chunks streamed around the player.
    pub fn chunks(&self) -> &ChunkStream {
        &self.chunks
    }

    /// The terrain to be meshed with `mesher`: if it is another one, every loaded chunk meshed
    /// again with the frames' streaming, nearest the player's eyes first
    /// ([`ChunkStream::remesh_with`]).
    pub fn set_terrain_mesher(&mut self, mesher: Mesher) {
        let viewer = self.eye().into();
        self.chunks.remesh_with(mesher, viewer);
    }

    /// One frame's streaming around the player's eyes: far chunks unloaded from `sink`, at most
    /// `budget` of the nearest missing ones prepared on the workers and meshed into it.
    pub fn stream<S: ChunkSink>(
        &mut self,
        sink: &mut S,
        budget: usize,
    ) -> Result<StreamReport, S::Error> {
        let viewer = self.eye().into();
        self.chunks
            .update(&self.pool, self.field.edits(), sink, viewer, budget)
    }

    /// Brings `sink` up to date after an edit that changed the samples in `changed`: the chunks
    /// it changed prepared and meshed again, those its light may reach lit again.
    pub fn stream_edit<S: ChunkSink>(
        &mut self,
        sink: &mut S,
        changed: &SampleBox,
    ) -> Result<EditReport, S::Error> {
        self.chunks
            .edited(&self.pool, self.field.edits(), sink, changed)
    }

    /// The sky light at a point, as the terrain there is lit (for blocks and pieces).
    pub fn light_at(&self, point: [f32; 3]) -> f32 {
        self.chunks.light_at(self.field.edits(), point)
    }

    /// The sky light at many points at once (see [`LightSampler`]).
    pub fn light_sampler(&self) -> LightSampler<'_, dyn Ground> {
        self.chunks.sampler(self.field.edits())
    }

    /// Whether a point is inside the edited ground (density above 0, as the meshes show it):
    /// the cells whose middle is count as solid for the blocks' ambient occlusion.
    pub fn inside_ground(&self, point: [f32; 3]) -> bool {
        self.field.probe(point[0], point[1], point[2]).density > 0.0
    }

    /// [`World::inside_ground`] for many points near each other (see [`GroundSampler`]).
    pub fn ground_sampler(&self) -> GroundSampler<'_> {
        GroundSampler::new(&self.field)
    }

    /// The block regions changed since the last call (a block added, removed or reshaped, and
    /// the regions beside it whose sides it covers or uncovers), for the renderer to mesh again.
    pub fn take_changed_regions(&mut self) -> BTreeSet<[i32; 3]> {
        std::mem::take(&mut self.changed_regions)
    }

    /// Turns the view by `yaw` and `pitch` radians (the mouse); pitch stops short of straight
    /// up and down. Values that are not finite are ignored.
    pub fn turn(&mut self, yaw: f32, pitch: f32) {
        if !yaw.is_finite() || !pitch.is_finite() {
            return;
        }
        self.yaw = (self.yaw + yaw).rem_euclid(std::f32::consts::TAU);
        let limit = PITCH_LIMIT_DEGREES.to_radians();
        self.pitch = (self.pitch + pitch).clamp(-limit, limit);
    }

    /// Sets the view directly, in degrees (scripted runs); ignored when not finite.
    pub fn look(&mut self, yaw_degrees: f32, pitch_degrees: f32) {
        self.set_look(yaw_degrees.to_radians(), pitch_degrees.to_radians());
    }

    /// Sets the view directly, in radians: `yaw` taken modulo a turn, `pitch` stopped short of
    /// straight up and down as [`World::turn`] stops it; ignored when not finite. What the view
    /// aims at is worked out again by the next frame or [`World::update_aim`].
    pub fn set_look(&mut self, yaw: f32, pitch: f32) {
        if yaw.is_finite() && pitch.is_finite() {
            self.yaw = 0.0;
            self.pitch = 0.0;
            self.turn(yaw, pitch);
        }
    }

    /// Streams chunks `radius` chunks around the player from now on (the menu's view radius):
    /// the chunks are streamed again from scratch with the same mesher; whoever draws them
    /// forgets what it drew (`WorldRenderer::renew`). The ground, blocks and pieces are kept.
    pub fn set_view_radius(&mut self, radius: u32) {
        let mesher = self.chunks.mesher();
        self.chunks = ChunkStream::new(radius.max(1));
        let viewer = self.eye().into();
        self.chunks.remesh_with(mesher, viewer);
    }

    /// F: between walking and flying.
    pub fn toggle_fly(&mut self) {
        self.player.toggle_fly();
    }

    /// One frame of `dt` seconds driven by `input`: the view turns, the commands the world
    /// knows change the tool, the tool acts, the pieces fall and the player moves; what is
    /// aimed at is worked out again for the next frame's markers.
    pub fn frame(&mut self, dt: f32, input: &mut Input, commands: &[Command]) -> FrameReport {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        // What the last frame's report named goes; what an edit lost since stays to be named.
        self.lost.drain(..self.lost_named);
        let mut report = FrameReport::default();
        let (yaw, pitch) = input.take_turn();
        self.turn(yaw, pitch);
        self.tool_wheel(input.take_wheel());
        self.update_aim();
        for &command in commands {
            if !self.command(command) {
                report.commands.push(command);
            }
        }
        if let Some((button, pressed)) = input.take_tool() {
            let (_, fell) = self.hold_tool(button, dt, pressed);
            report.fell += fell;
        }
        self.step(dt, &input.controls);
        self.update_aim();
        report.ground_changed = self.take_changed_ground();
        self.lost_named = self.lost.len();
        report
    }

    /// Blocks that left the world since the last frame began without falling as pieces: pieces
    /// that fell out of the world, groups there was no room to make pieces of. Whoever reports
    /// the frame (the trace, the HUD) names them; nothing vanishes unsaid.
    pub fn lost(&self) -> &[crate::pieces::Lost] {
        &self.lost
    }

    /// Why the player's last use of a tool changed nothing, once: a block past a limit of the
    /// world (docs/saves.md, "Limits"), a dig or build past the edited ground's limit or the
    /// world's edge. The HUD says it; a block refused because its cells are taken is not told
    /// (the tool's marker shows that already).
    pub fn take_tool_refusal(&mut self) -> Option<String> {
        self.tool_refusal.take()
    }

    /// The boxes of the ground's samples changed since the last call or [`World::frame`]
    /// (boxes that overlap united into one), for whoever meshes the terrain: the same for the
    /// terrain tool and a scene's events. A renderer that meshes every chunk from scratch anyway
    /// (a new world, a load) takes them to forget them.
    pub fn take_changed_ground(&mut self) -> Vec<SampleBox> {
        std::mem::take(&mut self.changed_ground)
    }

    /// Notes that the samples in `changed` changed, for [`World::take_changed_ground`]: united
    /// with every noted box it overlaps, so that digs far apart do not mesh everything between
    /// them, and many digs in one place mesh each chunk once.
    fn note_changed_ground(&mut self, changed: SampleBox) {
        let mut united = changed;
        loop {
            let before = self.changed_ground.len();
            self.changed_ground.retain(|noted| {
                let overlaps = noted.intersects(&united);
                if overlaps {
                    united = united.union(noted);
                }
                !overlaps
            });
            if self.changed_ground.len() == before {
                break;
            }
        }
        self.changed_ground.push(united);
    }

    /// A command the world handles (fly, the tools, undo, redo, pick-block); returns false for
    /// those it leaves to the window (screenshot, wireframe, HUD, fullscreen, Escape, save,
    /// load).
    pub fn command(&mut self, command: Command) -> bool {
        match command {
            Command::ToggleFly => self.toggle_fly(),
            Command::SwitchTool => self.tool.switch(),
            Command::Material(material) => self.tool.pick_material(material),
            Command::BlockSize(step) => self.tool.step_size(step),
            Command::Chisel => {
                self.chisel_aimed(false);
            }
            Command::ToggleSlope => {
                self.chisel_aimed(true);
            }
            Command::Undo => {
                self.undo();
            }
            Command::Redo => {
                self.redo();
            }
            Command::PickBlock => {
                self.pick_block();
            }
            Command::ToggleWireframe
            | Command::SwitchMesher
            | Command::Screenshot
            | Command::ToggleDetail
            | Command::ToggleHud
            | Command::ToggleFullscreen
            | Command::Escape
            | Command::Save
            | Command::Load => return false,
        }
        self.update_aim();
        true
    }
}

/// The block region holding a block's lowest cell.
fn region_of_block(block: &Block) -> [i32; 3] {
    let [x, y, z] = block.low();
    crate::blocks::store::region_of(x, y, z)
}

/// Where a ray from `origin` along `direction` first enters the ground within `reach` meters:
/// steps of a quarter meter until the density turns positive, then halvings to a millimeter.
pub fn ground_along<S: Samples>(
    field: &Field<S>,
    origin: Vec3,
    direction: Vec3,
    reach: f32,
) -> Option<[f32; 3]> {
    let length = direction.mag();
    if !length.is_finite() || length < 1e-6 || !reach.is_finite() {
        return None;
    }
    let direction = direction / length;
    let inside = |t: f32| {
        let p = origin + direction * t;
        field.probe(p.x, p.y, p.z).density > 0.0
    };
    if inside(0.0) {
        return Some(origin.into());
    }
    const STEP: f32 = 0.25;
    let mut outside = 0.0;
    let mut t = STEP;
    while t <= reach {
        if inside(t) {
            let mut hit = t;
            while hit - outside > 1e-3 {
                let middle = 0.5 * (outside + hit);
                if inside(middle) {
                    hit = middle;
                } else {
                    outside = middle;
                }
            }
            return Some((origin + direction * hit).into());
        }
        outside = t;
        t += STEP;
    }
    None
}

impl World {
    /// The generated world of `seed` with the default view radius, physics on one thread.
    pub fn new(seed: u32) -> Result<Self, WorldError> {
        Self::generated(seed, VIEW_RADIUS, WorkerPool::new(1)?)
    }
}

#[cfg(test)]
mod tests;
