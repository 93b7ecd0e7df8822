//! Pieces that strike each other move as rigid bodies do (docs/physics.md, "Sleeping and
//! islands", "Impacts"): momentum passes from a moving piece to a resting one (a chain of
//! dominoes falls), edge impacts keep no more spin than a rigid body keeps (a cube dropped on a
//! slope tumbles, slides and stops; it does not roll on like a wheel), a heavy piece does not
//! press a light one into the ground, and a rigid beam landing flat loads no joint. Headless,
//! through the game's own world. The same scenes stepped in rapier3d 0.36 beside blockfall
//! are `tools/tests/agree.rs`.

use std::sync::Arc;

use blockfall_game::blocks::materials::{COPPER, PLANKS, PLASTER, STONE};
use blockfall_game::blocks::Block;
use blockfall_game::player::Controls;
use blockfall_game::terrain::{Ground, PlaneGround};
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{BodyHandle, BodyView, STEP};

fn world_on(ground: PlaneGround) -> World {
    let ground: Arc<dyn Ground> = Arc::new(ground);
    World::on(ground, 1, WorkerPool::new(2).expect("threads"))
}

fn block(cell: [i32; 3], size: u8, material: usize) -> Block {
    Block::new(cell[0], cell[1], cell[2], size, material as u8, 0, false).expect("a valid block")
}

/// The blocks of a box of `cells` (x, y, z) half-meter blocks from `low`.
fn box_of(low: [i32; 3], cells: [i32; 3], material: usize) -> Vec<Block> {
    let mut blocks = Vec::new();
    for x in 0..cells[0] {
        for y in 0..cells[1] {
            for z in 0..cells[2] {
                blocks.push(block([low[0] + x, low[1] + y, low[2] + z], 1, material));
            }
        }
    }
    blocks
}

fn steps(world: &mut World, seconds: f64) {
    for _ in 0..(seconds / STEP).round() as usize {
        world.step(STEP as f32, &Controls::default());
    }
}

fn body(world: &World, handle: BodyHandle) -> BodyView {
    world
        .pieces()
        .physics()
        .body(handle)
        .expect("the piece is still whole")
}

/// How far a body's own up axis is tilted from the world's, degrees.
fn tilt_degrees(body: &BodyView) -> f64 {
    let [x, _, z, _] = body.orientation;
    (1.0 - 2.0 * (x * x + z * z))
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

/// A quaternion turning by `degrees` about z (from +x toward +y).
fn about_z(degrees: f64) -> [f64; 4] {
    let half = degrees.to_radians() / 2.0;
    [0.0, 0.0, half.sin(), half.cos()]
}

/// Runs until nothing falls (at most `longest` seconds); the seconds it took.
fn until_still(world: &mut World, longest: f64) -> f64 {
    let mut waited = 0.0;
    while world.pieces().falling() > 0 && waited < longest {
        steps(world, 0.25);
        waited += 0.25;
    }
    waited
}

/// Dominoes of `cells` half-meter blocks (thin along x), `spacing` meters apart along x; the
/// first is released leaning `lean` degrees toward the next, its lowest corner just above
/// the ground, so that its middle lies beyond its base and it topples into the second.
/// Returns the world and the dominoes' handles.
fn dominoes(
    count: i32,
    cells: [i32; 3],
    spacing_cells: i32,
    lean: f64,
    material: usize,
) -> (World, Vec<BodyHandle>) {
    let mut world = world_on(PlaneGround::flat(0.0));
    let mut handles = Vec::new();
    for index in 0..count {
        let low = [index * spacing_cells, 0, 0];
        let handle = if index == 0 {
            // Turned about its middle, its corner would sink: lifted by whole cells until
            // it is clear of the ground.
            let (half_x, half_y) = (f64::from(cells[0]) * 0.25, f64::from(cells[1]) * 0.25);
            let angle = lean.to_radians();
            let drop = half_y * angle.cos() + half_x * angle.sin() - half_y;
            let lift = (drop / 0.5).ceil() as i32 + 1;
            let blocks = box_of([low[0], lift, low[2]], cells, material);
            world
                .add_piece_turned(blocks, about_z(-lean))
                .expect("the first domino")
        } else {
            world
                .add_piece(box_of(low, cells, material))
                .expect("a domino")
        };
        handles.push(handle);
    }
    (world, handles)
}

/// Five 0.5 × 2 × 1 m stone dominoes 1.5 m apart: the first topples into the second, and
/// every one falls (rapier3d 0.36: 70°, 71°, 71°, 72°, 90°). Before, a resting domino was a
/// wall to the one striking it until the step was over: the chain stopped at 35°, 5°, 0°.
#[test]
fn a_chain_of_dominoes_falls_to_the_last() {
    let (mut world, handles) = dominoes(5, [1, 4, 2], 3, 20.0, STONE);
    steps(&mut world, 1.0);
    until_still(&mut world, 20.0);
    let tilts: Vec<f64> = handles
        .iter()
        .map(|&handle| tilt_degrees(&body(&world, handle)))
        .collect();
    eprintln!("dominoes' tilts: {tilts:.1?}");
    assert!(
        tilts.iter().all(|&tilt| tilt >= 20.0),
        "every domino falls: tilts {tilts:.1?}°"
    );
}

/// Dominoes of other sizes, materials and spacings fall to the last too.
#[test]
fn chains_of_other_dominoes_fall_to_the_last() {
    for (cells, spacing, material) in [
        ([1, 6, 2], 4, PLANKS),
        ([1, 4, 4], 3, COPPER),
        ([2, 8, 2], 6, STONE),
    ] {
        let (mut world, handles) = dominoes(6, cells, spacing, 20.0, material);
        steps(&mut world, 1.0);
        until_still(&mut world, 30.0);
        let tilts: Vec<f64> = handles
            .iter()
            .map(|&handle| tilt_degrees(&body(&world, handle)))
            .collect();
        eprintln!("{cells:?} every {spacing} cells, material {material}: tilts {tilts:.1?}");
        assert!(
            tilts.iter().all(|&tilt| tilt >= 20.0),
            "{cells:?} every {spacing} cells, material {material}: every domino falls: tilts \
             {tilts:.1?}°"
        );
    }
}

/// What became of a cube dropped onto a slope: how many quarter turns it tumbled, how far
/// its middle ended from where it was dropped (meters, along the ground), and whether it rests.
struct Tumble {
    quarter_turns: f64,
    travelled: f64,
    most_spin: f64,
    resting: bool,
}

/// A cube of `size` cells of `material` dropped from `height` meters (its bottom above the
/// ground under its middle) onto a slope of `degrees` rising along +x.
fn tumble(size: u8, material: usize, degrees: f64, height: f64) -> Tumble {
    let mut world = world_on(PlaneGround::sloped(degrees as f32, 0.0));
    let side = f64::from(size) * 0.5;
    let ground = |x: f64| degrees.to_radians().tan() * x;
    let lift = ((ground(side / 2.0) + height) / 0.5).round() as i32;
    let handle = world
        .add_piece(vec![block([0, lift, 0], size, material)])
        .expect("a cube");
    let start = body(&world, handle).position;
    let mut turned = 0.0f64;
    let mut most_spin = 0.0f64;
    let mut last = body(&world, handle).orientation;
    let mut waited = 0.0;
    while waited < 30.0 {
        world.step(STEP as f32, &Controls::default());
        waited += STEP;
        let now = body(&world, handle);
        // The turn of this step, added up: the angle between the orientations.
        let dot: f64 = (0..4).map(|i| now.orientation[i] * last[i]).sum();
        turned += 2.0 * dot.abs().min(1.0).acos();
        last = now.orientation;
        most_spin = most_spin.max(
            now.angular_velocity
                .iter()
                .map(|c| c * c)
                .sum::<f64>()
                .sqrt(),
        );
        if now.sleeping {
            break;
        }
    }
    let end = body(&world, handle);
    let travelled = (0..3)
        .map(|axis| {
            let across = end.position[axis] - start[axis];
            if axis == 1 {
                // Down the slope: only the part along it.
                0.0
            } else {
                across * across
            }
        })
        .sum::<f64>()
        .sqrt()
        / degrees.to_radians().cos();
    Tumble {
        quarter_turns: turned / std::f64::consts::FRAC_PI_2,
        travelled,
        most_spin,
        resting: end.sleeping,
    }
}

/// A 1 m stone cube dropped 2 m onto a 25° slope (friction holds to 31°) tumbles once or
/// twice, slides and stops within 4.5 m (rapier3d 0.36: once, 3.0 m). Before, its corner
/// points' rows gave back the spin of every edge impact and it rolled on like a wheel: four
/// times over, 6.3 m down.
#[test]
fn a_cube_dropped_on_a_slope_tumbles_and_stops() {
    let seen = tumble(2, STONE, 25.0, 2.0);
    eprintln!(
        "25°: {:.2} quarter turns, {:.2} m, most spin {:.2} rad/s, resting {}",
        seen.quarter_turns, seen.travelled, seen.most_spin, seen.resting
    );
    assert!(seen.resting, "it comes to rest");
    assert!(
        seen.quarter_turns <= 2.5,
        "it tumbles at most twice: {:.2} quarter turns",
        seen.quarter_turns
    );
    assert!(
        seen.travelled <= 4.5,
        "it stops within 4.5 m: {:.2} m",
        seen.travelled
    );
}

/// Cubes of other sizes and materials, from other heights, onto other slopes below the
/// friction angle: each tumbles a few times at most and stops within a few meters. (Heights in
/// proportion to the cube: a half-meter cube from 1 m lands as a 1 m cube from 2 m does.
/// rapier3d 0.36 on the same: the half-meter stone cube 1.4 quarter turns and 2.3 m, the
/// copper cube 2.5 and 3.8 m, the 2 m plank cube 0.3 and 1.9 m.)
#[test]
fn cubes_dropped_on_gentle_slopes_stop() {
    for (size, material, degrees, height) in [
        (1, STONE, 25.0, 1.0),
        (2, COPPER, 20.0, 3.0),
        (4, PLANKS, 25.0, 1.0),
        (2, PLASTER, 22.0, 2.0),
    ] {
        let seen = tumble(size, material, degrees, height);
        let side = f64::from(size) * 0.5;
        eprintln!(
            "{side} m, material {material}, {degrees}°, {height} m: {:.2} quarter turns, \
             {:.2} m, resting {}",
            seen.quarter_turns, seen.travelled, seen.resting
        );
        assert!(
            seen.resting && seen.quarter_turns <= 3.0 && seen.travelled <= 5.0 * side.max(1.0),
            "{side} m cube, material {material}, {degrees}°, from {height} m: {:.2} quarter \
             turns, {:.2} m, resting {}",
            seen.quarter_turns,
            seen.travelled,
            seen.resting
        );
    }
}

/// A heavy piece on light ones: a 1 m copper cube (8.9 t) on four 0.5 m plank cubes (75 kg
/// each). The planks sink no more than 5 mm into the ground and lie still over 4 s.
#[test]
fn a_heavy_cube_does_not_press_light_ones_into_the_ground() {
    for (top, bottom) in [(COPPER, PLANKS), (STONE, PLANKS), (COPPER, PLASTER)] {
        let mut world = world_on(PlaneGround::flat(0.0));
        let mut planks = Vec::new();
        for [x, z] in [[0, 0], [1, 0], [0, 1], [1, 1]] {
            let piece = world
                .add_piece(vec![block([x, 0, z], 1, bottom)])
                .expect("a plank cube");
            planks.push(piece);
        }
        world
            .add_piece(vec![block([0, 1, 0], 2, top)])
            .expect("the heavy cube");
        steps(&mut world, 2.0);
        let before: Vec<BodyView> = planks.iter().map(|&h| body(&world, h)).collect();
        let mut deepest = 0.0f64;
        for _ in 0..(4.0 / STEP) as usize {
            world.step(STEP as f32, &Controls::default());
            for &plank in &planks {
                let now = body(&world, plank);
                // The lowest corner of a half-meter cube, nearly upright.
                deepest = deepest.max(0.25 - now.position[1]);
            }
        }
        for (&plank, was) in planks.iter().zip(&before) {
            let now = body(&world, plank);
            let moved = (0..3)
                .map(|a| (now.position[a] - was.position[a]).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                moved < 1e-3 && now.sleeping,
                "materials {top} on {bottom}: a plank cube moved {moved} m over 4 s: {now:?}"
            );
        }
        eprintln!("materials {top} on {bottom}: deepest {deepest:.4} m");
        assert!(
            deepest <= 0.005,
            "materials {top} on {bottom}: a plank cube {deepest} m into the ground"
        );
    }
}

/// A cube released leaning on an edge falls back onto its face: the face strikes at its far
/// edge, and the cube keeps about the angular momentum it had about that edge, a quarter of
/// its spin (for a cube, (I + m d² cos 90°) / (I + m d²) = 1/4, with the far edge held; less
/// what the bounce takes): it does not roll on over the next edge. The impulse that holds the
/// far edge pushes it sideways 0.6 times as hard as up, friction's limit exactly, so an edge
/// that slips a little keeps a little more: at most 3/10 here (measured 2 % for the 1 m stone
/// cube, 29 % for the half-meter copper one, 14 % for the 2 m plank one).
#[test]
fn a_cube_tipping_over_an_edge_keeps_about_a_quarter_of_its_angular_velocity() {
    for (size, material) in [(2u8, STONE), (1, COPPER), (4, PLANKS)] {
        let mut world = world_on(PlaneGround::flat(0.0));
        let side = f64::from(size) * 0.5;
        // Turned 40° about z: its lowest edge 0.5 m up (whole cells), the middle past it.
        let lift = 1;
        let handle = world
            .add_piece_turned(vec![block([0, lift, 0], size, material)], about_z(-40.0))
            .expect("a cube");
        // The spin of the fall (about +z: it falls back onto the face it leans from) before
        // the face strikes, and the most of it kept, the same way, after.
        let mut before = 0.0f64;
        let mut after = f64::NEG_INFINITY;
        let mut struck = false;
        let mut turned_after = 0.0f64;
        for _ in 0..(3.0 / STEP) as usize {
            let was = body(&world, handle);
            world.step(STEP as f32, &Controls::default());
            let now = body(&world, handle);
            let tilt = tilt_degrees(&now);
            if !struck {
                before = before.max(was.angular_velocity[2]);
                // The face strikes: most of the spin goes in one step.
                if tilt < 3.0
                    && was.angular_velocity[2] > 0.5
                    && now.angular_velocity[2] < 0.6 * was.angular_velocity[2]
                {
                    struck = true;
                    after = now.angular_velocity[2];
                }
            } else {
                after = after.max(now.angular_velocity[2]);
                turned_after = turned_after.max(tilt_degrees(&now));
            }
        }
        let end = body(&world, handle);
        eprintln!(
            "{side} m, material {material}: spin {before:.2} rad/s before, {after:.2} after, \
             tilted up to {turned_after:.1}° after, resting {}",
            end.sleeping
        );
        assert!(struck, "{side} m: it fell onto its face");
        assert!(
            after <= 0.3 * before,
            "{side} m, material {material}: {after:.3} rad/s kept of {before:.3}"
        );
        assert!(
            tilt_degrees(&end) < 1.0 && end.sleeping,
            "it lies on its face: {end:?}"
        );
    }
}
