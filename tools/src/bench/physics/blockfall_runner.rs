//! blockfall's side of the physics benchmark: the pieces as bodies of its physics core, each
//! with the exact box-union distance of its blocks as its shape, stepped against the scene's
//! solids, and (in the plain benchmark) their strength judged after every step as the game's
//! pieces judge it; and the checks that every body is still there, finite and above the floor.

use std::time::Instant;

use anyhow::{ensure, Context as _};
use blockfall_physics::collision::{Around, Surface};
use std::collections::BTreeMap;

use blockfall_game::blocks::{Block, BlockStore};
use blockfall_game::scene::SceneSolids;
use blockfall_game::strength::{Joints, Push};
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{BodyHandle, BodyShape, Impact, PhysicsWorld};

use super::piece::BenchPiece;
use super::scene::{rotate, Placed};
use super::stage::Stage;
use super::steps::{is_moving, Run};

/// The shapes of the bodies of a blockfall world, by the slot of their handle.
#[derive(Default)]
pub(super) struct PieceShapes {
    by_slot: Vec<Option<usize>>,
    pieces: Vec<BenchPiece>,
}

impl BodyShape for PieceShapes {
    fn nearest(&self, body: BodyHandle, point: [f32; 3], reach: f32) -> Option<Surface> {
        let piece = (*self.by_slot.get(body.index() as usize)?)?;
        self.pieces[piece].nearest(point, reach)
    }

    fn nearest_around(
        &self,
        body: BodyHandle,
        point: [f32; 3],
        reach: f32,
        around: Around,
    ) -> Option<Surface> {
        let piece = (*self.by_slot.get(body.index() as usize)?)?;
        self.pieces[piece].nearest_around(point, reach, &around)
    }
}

/// The pieces in a blockfall world stepped on `threads` threads.
pub(super) fn blockfall_world(
    placed: &[Placed],
    threads: usize,
) -> anyhow::Result<(PhysicsWorld, PieceShapes, Vec<BodyHandle>)> {
    let mut physics = PhysicsWorld::new(WorkerPool::new(threads)?);
    let mut shapes = PieceShapes::default();
    let mut handles = Vec::with_capacity(placed.len());
    for (index, place) in placed.iter().enumerate() {
        let handle = physics.add(&place.piece.desc())?;
        let view = physics.body(handle).context("a body just added")?;
        let from_box =
            [0, 1, 2].map(|axis| view.center_of_mass[axis] - place.piece.box_middle()[axis]);
        let turned = rotate(place.turn, from_box);
        let position = [0, 1, 2].map(|axis| place.at[axis] + turned[axis]);
        physics.set_pose(handle, position, place.turn)?;
        let slot = handle.index() as usize;
        if shapes.by_slot.len() <= slot {
            shapes.by_slot.resize(slot + 1, None);
        }
        shapes.by_slot[slot] = Some(index);
        shapes.pieces.push(place.piece.clone());
        handles.push(handle);
    }
    Ok((physics, shapes, handles))
}

/// Strength as the game's pieces judge it (`game::strength`, `Pieces::update`): each piece's
/// joints and impact limit, and after each step the loads of the pushes reported. Only the
/// judging: a piece whose joints would break is counted, not split, so that the timed scene
/// stays the one timed without strength.
pub(super) struct StrengthJudge {
    by_slot: Vec<Option<Judged>>,
    /// Steps in which a piece would have broken.
    pub breaks: usize,
}

/// A piece as strength sees it: its blocks (1 m blocks: 2-cell game blocks), their store,
/// and their joints.
struct Judged {
    blocks: Vec<Block>,
    own: BlockStore,
    joints: Joints,
}

impl StrengthJudge {
    /// The joints of every piece, and each body's impact limit set from them.
    pub(super) fn new(
        placed: &[Placed],
        physics: &mut PhysicsWorld,
        handles: &[BodyHandle],
    ) -> anyhow::Result<Self> {
        let mut by_slot = Vec::new();
        for (place, &handle) in placed.iter().zip(handles) {
            let blocks: Vec<Block> = place
                .piece
                .blocks()
                .map(|cell| {
                    let [x, y, z] = cell.map(|c| 2 * c as i32);
                    Block::new(x, y, z, 2, place.piece.material as u8, 0, false)
                })
                .collect::<Result<_, _>>()?;
            let mut own = BlockStore::new();
            let ids = blocks
                .iter()
                .map(|block| own.add(*block))
                .collect::<Result<Vec<_>, _>>()?;
            let joints = Joints::of(&blocks, &own, &ids);
            physics.set_impact_limit(handle, joints.impact_limit())?;
            let slot = handle.index() as usize;
            if by_slot.len() <= slot {
                by_slot.resize_with(slot + 1, || None);
            }
            by_slot[slot] = Some(Judged {
                blocks,
                own,
                joints,
            });
        }
        Ok(Self { by_slot, breaks: 0 })
    }

    /// Judges one step's impacts, as `Pieces::update` does.
    fn judge(&mut self, physics: &PhysicsWorld, impacts: &[Impact]) {
        let mut by_body: BTreeMap<BodyHandle, Vec<Push>> = BTreeMap::new();
        for impact in impacts {
            by_body
                .entry(impact.body)
                .or_default()
                .push((impact.point, impact.impulse));
        }
        for (handle, pushes) in by_body {
            let Some(Some(piece)) = self.by_slot.get(handle.index() as usize) else {
                continue;
            };
            if physics.body(handle).is_none() {
                continue;
            }
            let broken = piece.joints.broken(&piece.blocks, &piece.own, &pushes);
            self.breaks += usize::from(broken.iter().any(|&joint| joint));
        }
    }
}

/// Steps the pieces of `stage` `steps` times on `threads` threads against `solids` (the
/// stage's), bodies coming to rest or not (`resting`, see `PhysicsWorld::set_resting`), their
/// strength judged after each step when `strength` (within the step's time): each step's time,
/// and how the run ended. No body may fall out of the world or below the stage's floor.
pub(super) fn run_blockfall(
    stage: &Stage,
    solids: &SceneSolids<'_>,
    threads: usize,
    steps: u32,
    resting: bool,
    strength: bool,
) -> anyhow::Result<Run> {
    let placed = &stage.placed;
    let (mut physics, shapes, handles) = blockfall_world(placed, threads)?;
    physics.set_sleeping(resting);
    let mut judge = if strength {
        Some(StrengthJudge::new(placed, &mut physics, &handles)?)
    } else {
        None
    };
    let mut times = Vec::with_capacity(steps as usize);
    for step in 0..steps {
        let started = Instant::now();
        let report = physics.step(solids, &shapes);
        if let Some(judge) = &mut judge {
            judge.judge(&physics, &report.impacts);
        }
        times.push(started.elapsed().as_secs_f64() * 1e3);
        ensure!(
            report.fell_out.is_empty(),
            "blockfall, {}, {threads} thread(s), step {step}: {} bodies fell out of the world",
            stage.name,
            report.fell_out.len()
        );
    }
    check_blockfall(
        &physics,
        &handles,
        stage.floor,
        &format!("{}, {threads} thread(s)", stage.name),
    )?;
    let views: Vec<_> = handles
        .iter()
        .filter_map(|&handle| physics.body(handle))
        .collect();
    let middles: Vec<[f64; 3]> = views.iter().map(|view| view.position).collect();
    let (in_ground, highest) = stage.end_state(&middles);
    Ok(Run {
        times,
        awake: physics.awake_count(),
        moving: views
            .iter()
            .filter(|view| is_moving(view.velocity, view.angular_velocity))
            .count(),
        in_ground,
        highest,
        breaks: judge.map_or(0, |judge| judge.breaks),
    })
}

/// A body's inverse inertia in the world's axes, R I⁻¹ Rᵀ: what the other engines' tests
/// compare theirs with.
#[cfg(test)]
pub(super) fn world_inverse_inertia(view: &blockfall_physics::BodyView) -> [[f64; 3]; 3] {
    // The columns of R I⁻¹, then the rows of R (R I⁻¹)ᵀ: the same matrix, as it is symmetric.
    let turned = [0, 1, 2].map(|column| {
        let line = [0, 1, 2].map(|row| view.inverse_inertia[row][column]);
        rotate(view.orientation, line)
    });
    [0, 1, 2].map(|row| {
        let line = [0, 1, 2].map(|column| turned[column][row]);
        rotate(view.orientation, line)
    })
}

/// Every body still there, finite, and not below `floor`.
pub(super) fn check_blockfall(
    physics: &PhysicsWorld,
    handles: &[BodyHandle],
    floor: f64,
    what: &str,
) -> anyhow::Result<()> {
    for &handle in handles {
        let view = physics
            .body(handle)
            .with_context(|| format!("blockfall, {what}: a body is gone"))?;
        let finite = view
            .position
            .iter()
            .chain(&view.orientation)
            .chain(&view.velocity)
            .chain(&view.angular_velocity)
            .all(|value| value.is_finite());
        ensure!(
            finite,
            "blockfall, {what}: a body's state is not finite: {view:?}"
        );
        ensure!(
            view.position[1] >= floor,
            "blockfall, {what}: a body tunnelled to y = {:.1} m (floor {floor:.1} m)",
            view.position[1]
        );
    }
    Ok(())
}
