//! Contacts a physics engineer trusts (docs/physics.md, "Which face a point meets" and "The
//! gap closes"): boxes dropped beside, onto and between each other, the scenes every physics
//! engine is first judged by. Headless, through the game's own world on flat ground.
//!
//! Each cube is released at rest half a meter (or more) above its place, as breaking the link
//! block that held it there releases it, one every 1.5 s. Every piece must come to rest with its
//! middle within 1.5 cm of its place across, tilted less than 1°, its bottom within 5 mm of
//! what it rests on (of its place, 5 mm for each contact down to the ground), and stay so
//! (resting, not moved) over the next 10 s.
//!
//! The cubes already down are not walls: each landing wakes the island it strikes, which takes
//! its share of the blow (docs/physics.md, "Sleeping and islands"), so a scene settles as a
//! whole and its cubes end a few millimeters from where they landed. rapier3d 0.36 (8
//! iterations, the same friction and bounce) on the same scenes: the wall 1.6 cm across, the
//! slot 1.6, the pyramid 1.7, the slot on a wall 3.8, the tower of half-meter cubes 5.4 cm.
//! (While resting cubes were walls that a landing could not move, these held to 1 cm.)

use std::sync::Arc;

use blockfall_game::blocks::materials::{COPPER, PLANKS, PLASTER, STONE};
use blockfall_game::blocks::Block;
use blockfall_game::player::Controls;
use blockfall_game::terrain::{Ground, PlaneGround};
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{BodyHandle, BodyView, STEP};

/// Meters per cell of the block grid.
const CELL: f64 = 0.5;

fn flat_world() -> World {
    let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
    World::on(ground, 1, WorkerPool::new(2).expect("threads"))
}

/// A cube to drop: its place (the low corner's cell), its size in cells and its material.
#[derive(Debug, Clone, Copy)]
struct Cube {
    place: [i32; 3],
    size: u8,
    material: usize,
}

impl Cube {
    fn stone(x: f64, y: f64) -> Cube {
        Cube {
            place: [(x / CELL) as i32, (y / CELL) as i32, 0],
            size: 2,
            material: STONE,
        }
    }

    /// Where its middle belongs, meters.
    fn middle(&self) -> [f64; 3] {
        let half = f64::from(self.size) * CELL / 2.0;
        self.place.map(|c| f64::from(c) * CELL + half)
    }
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
        .expect("the cube is still a piece")
}

/// Releases each cube `above` meters over its place, at rest, one every `every` seconds, then
/// lets everything come to rest (at most `settle` seconds). The cubes' bodies, in order.
fn drop_in_turn(world: &mut World, cubes: &[Cube], above: f64, every: f64) -> Vec<BodyHandle> {
    let lift = (above / CELL).round() as i32;
    let mut handles = Vec::new();
    for cube in cubes {
        let [x, y, z] = cube.place;
        let block = Block::new(x, y + lift, z, cube.size, cube.material as u8, 0, false)
            .expect("a valid block");
        let low = [x, y + lift, z].map(|c| c as f32 * CELL as f32 + 1e-3);
        let high = low.map(|c| c + f32::from(cube.size) * CELL as f32 - 2e-3);
        assert!(
            !world.pieces().overlaps_box(low, high),
            "{cube:?}: its place in the air is taken (a piece leans into it)"
        );
        handles.push(world.add_piece(vec![block]).expect("a cube"));
        steps(world, every);
    }
    let mut waited = 0.0;
    while world.pieces().falling() > 0 && waited < 20.0 {
        steps(world, 0.5);
        waited += 0.5;
    }
    assert_eq!(world.pieces().falling(), 0, "everything comes to rest");
    handles
}

/// The angle a body is turned by, degrees.
fn tilt_degrees(body: &BodyView) -> f64 {
    let w = body.orientation[3].abs().min(1.0);
    2.0 * w.acos().to_degrees()
}

/// Each cube rests in its place (middle within 1.5 cm across, under 1° of tilt, its bottom
/// within 5 mm of its place's floor for each contact under it: the ground, or the cubes
/// below, which are checked in turn), and nothing moves over the next 10 s.
fn assert_in_place(world: &mut World, cubes: &[Cube], handles: &[BodyHandle], scene: &str) {
    assert_in_place_within(world, cubes, handles, scene, ACROSS);
}

/// How far across from its place a cube may rest, meters.
const ACROSS: f64 = 0.015;

/// [`assert_in_place`], a cube's middle within `across` meters of its place across.
fn assert_in_place_within(
    world: &mut World,
    cubes: &[Cube],
    handles: &[BodyHandle],
    scene: &str,
    across_most: f64,
) {
    let before: Vec<BodyView> = handles.iter().map(|&h| body(world, h)).collect();
    for (index, (cube, body)) in cubes.iter().zip(&before).enumerate() {
        let want = cube.middle();
        let across =
            ((body.position[0] - want[0]).powi(2) + (body.position[2] - want[2]).powi(2)).sqrt();
        let tilt = tilt_degrees(body);
        let half = f64::from(cube.size) * CELL / 2.0;
        let gap = body.position[1] - half - f64::from(cube.place[1]) * CELL;
        // Each contact under it may be sunk in up to 5 mm (its own, and those of the cubes
        // it stands on, counted by its height in cubes).
        let contacts = 1 + cube.place[1] / i32::from(cube.size);
        assert!(
            across <= across_most
                && tilt < 1.0
                && gap.abs() <= 0.005 * f64::from(contacts)
                && body.sleeping,
            "{scene}: cube {index} ({cube:?}) rests {across:.4} m off its place across, tilted \
             {tilt:.3}°, its bottom {gap:.4} m from its floor, resting {}: {body:?}",
            body.sleeping
        );
    }
    steps(world, 10.0);
    for (index, (&handle, was)) in handles.iter().zip(&before).enumerate() {
        let now = body(world, handle);
        let moved = (0..3)
            .map(|axis| (now.position[axis] - was.position[axis]).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(
            now.sleeping && moved < 1e-3,
            "{scene}: cube {index} moved {moved} m over 10 s (resting {})",
            now.sleeping
        );
    }
}

fn wall(count: usize) -> Vec<Cube> {
    (0..count).map(|i| Cube::stone(i as f64, 0.0)).collect()
}

#[test]
fn a_wall_of_eight_cubes_dropped_side_by_side_stays_a_wall() {
    for above in [0.5, 1.0] {
        let mut world = flat_world();
        let cubes = wall(8);
        let handles = drop_in_turn(&mut world, &cubes, above, 1.5);
        assert_in_place(
            &mut world,
            &cubes,
            &handles,
            &format!("wall from {above} m"),
        );
    }
}

#[test]
fn a_pyramid_of_4_3_2_1_cubes_stands() {
    let mut cubes = Vec::new();
    for (row, count) in [4, 3, 2, 1].into_iter().enumerate() {
        for i in 0..count {
            cubes.push(Cube::stone(i as f64 + row as f64 * 0.5, row as f64));
        }
    }
    let mut world = flat_world();
    let handles = drop_in_turn(&mut world, &cubes, 0.5, 1.5);
    assert_in_place(&mut world, &cubes, &handles, "pyramid");
}

#[test]
fn a_cube_dropped_into_a_slot_its_width_reaches_the_ground() {
    // Two resting cubes with a gap of exactly one cube between them; then the cube into it.
    let mut world = flat_world();
    let cubes = [
        Cube::stone(0.0, 0.0),
        Cube::stone(2.0, 0.0),
        Cube::stone(1.0, 0.0),
    ];
    let handles = drop_in_turn(&mut world, &cubes, 0.5, 1.5);
    assert_in_place(&mut world, &cubes, &handles, "slot");
}

#[test]
fn cubes_of_other_sizes_and_materials_fill_slots_and_walls() {
    // Half-meter plank cubes into a slot between copper ones, from 1.5 m; a wall of 1 m plaster
    // cubes with a half-meter copper cube dropped into a slot on top of it.
    let small = |x: i32, y: i32, material: usize| Cube {
        place: [x, y, 0],
        size: 1,
        material,
    };
    let slot = [
        small(0, 0, COPPER),
        small(2, 0, COPPER),
        small(1, 0, PLANKS),
    ];
    let mut world = flat_world();
    let handles = drop_in_turn(&mut world, &slot, 1.5, 1.5);
    assert_in_place(&mut world, &slot, &handles, "half-meter slot");

    let big = |x: i32, y: i32, material: usize| Cube {
        place: [x, y, 0],
        size: 2,
        material,
    };
    let mut built = vec![
        big(0, 0, PLASTER),
        big(2, 0, PLASTER),
        big(4, 0, PLASTER),
        big(0, 2, PLASTER),
        big(4, 2, PLASTER),
    ];
    built.push(big(2, 2, COPPER));
    let mut world = flat_world();
    let handles = drop_in_turn(&mut world, &built, 0.5, 1.5);
    assert_in_place(&mut world, &built, &handles, "slot on a wall");
}

#[test]
fn two_cubes_dropped_side_by_side_do_not_push_each_other_apart() {
    for (above, size) in [(0.5, 2u8), (2.0, 2), (0.5, 1)] {
        let mut world = flat_world();
        let cubes: Vec<Cube> = (0..2)
            .map(|i| Cube {
                place: [i * i32::from(size), 0, 0],
                size,
                material: STONE,
            })
            .collect();
        // Both at once.
        let handles = drop_in_turn(&mut world, &cubes, above, 0.0);
        for (cube, &handle) in cubes.iter().zip(&handles) {
            let body = body(&world, handle);
            let sideways = (0..3)
                .filter(|&axis| axis != 1)
                .map(|axis| (body.position[axis] - cube.middle()[axis]).abs())
                .fold(0.0, f64::max);
            assert!(
                sideways <= 0.002,
                "from {above} m, {size}-cell cubes: moved {sideways} m sideways: {body:?}"
            );
        }
    }
}

#[test]
fn a_sleeping_cube_touches_what_it_rests_on() {
    // On the ground and on another cube, from several heights: the gap is closed, not held at
    // the touching margin.
    for above in [0.0, 0.5, 3.0] {
        let mut world = flat_world();
        let cubes = [Cube::stone(0.0, 0.0), Cube::stone(0.0, 1.0)];
        let handles = drop_in_turn(&mut world, &cubes, above, 2.0);
        for (index, (cube, &handle)) in cubes.iter().zip(&handles).enumerate() {
            let body = body(&world, handle);
            let gap = body.position[1] - 0.5 - f64::from(cube.place[1]) * CELL;
            assert!(
                gap.abs() <= 0.005,
                "from {above} m, cube {index}: its bottom {gap} m from its floor"
            );
        }
    }
}

#[test]
fn cubes_drop_into_a_slot_between_standing_blocks_and_beside_a_standing_wall() {
    // The world's own blocks, standing on the ground (away from where the player stands): a
    // 1 m slot between two columns of 1 m stone blocks two high, and a half-meter slot between
    // half-meter stone columns three high.
    const Z: i32 = 20;
    for (size, height, material) in [(2u8, 2, STONE), (1, 3, PLANKS)] {
        let mut world = flat_world();
        let s = i32::from(size);
        for column in [0, 2 * s] {
            for level in 0..height {
                let block = Block::new(column, level * s, Z, size, STONE as u8, 0, false)
                    .expect("a valid block");
                world.place(block).expect("room on the ground");
            }
        }
        let cube = Cube {
            place: [s, 0, Z],
            size,
            material,
        };
        let above = f64::from(height * s) * CELL + 0.5;
        let handles = drop_in_turn(&mut world, &[cube], above, 1.5);
        assert_in_place(&mut world, &[cube], &handles, &format!("{size}-cell slot"));
        // And beside the standing wall, flush with its outer side.
        let beside = Cube {
            place: [3 * s, 0, Z],
            size,
            material,
        };
        let handles = drop_in_turn(&mut world, &[beside], 0.5, 1.5);
        assert_in_place(
            &mut world,
            &[beside],
            &handles,
            &format!("{size}-cell, beside"),
        );
    }
}

#[test]
fn towers_floors_and_pyramids_of_other_sizes_stand_from_higher_drops() {
    // Beyond the listed scenes: a tower of six half-meter cubes, each released 3 m above its
    // place, a pyramid of 1 m plank cubes from 1 m, and a 3 × 3 floor of 1 m cubes side by
    // side in both directions from 1.5 m.
    let cube = |x: i32, y: i32, z: i32, size: u8, material: usize| Cube {
        place: [x, y, z],
        size,
        material,
    };
    let tower: Vec<Cube> = (0..6).map(|y| cube(0, y, 0, 1, STONE)).collect();
    let pyramid: Vec<Cube> = [
        (0, 0),
        (2, 0),
        (4, 0),
        (6, 0),
        (1, 2),
        (3, 2),
        (5, 2),
        (2, 4),
        (4, 4),
        (3, 6),
    ]
    .iter()
    .map(|&(x, y)| cube(x, y, 0, 2, PLANKS))
    .collect();
    let floor: Vec<Cube> = (0..3)
        .flat_map(|x| (0..3).map(move |z| cube(x * 2, 0, z * 2, 2, STONE)))
        .collect();
    // A half-meter cube from 3 m strikes the tower at 7.7 m/s: the tower, woken, takes the
    // blow and sways (rapier3d 0.36 on the same tower: its cubes up to 5.4 cm across at the
    // end), so its cubes may rest up to 3 cm from their places, the rest 1.5 cm. The plank
    // pyramid is dropped from 1 m: from 3 m, a 600 kg cube striking the woken pyramid at
    // 7.7 m/s knocks it down, as it does in rapier3d 0.36, which knocks it down from 1 m too.
    for (scene, cubes, above, across) in [
        ("tower of half-meter cubes", tower, 3.0, 0.03),
        ("pyramid of plank cubes", pyramid, 1.0, ACROSS),
        ("3 × 3 floor", floor, 1.5, ACROSS),
    ] {
        let mut world = flat_world();
        let handles = drop_in_turn(&mut world, &cubes, above, 1.5);
        assert_in_place_within(&mut world, &cubes, &handles, scene, across);
    }
}
