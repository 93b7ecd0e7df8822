//! The default scene on lavapipe: the world streamed around the player, edited with the terrain
//! tool, drawn headless with validation on.
//!
//! - An edit meshes again exactly the loaded chunks whose grids it changed; every other chunk's
//!   mesh stays as it was, byte for byte, and the touched ones equal the CPU mesher's meshes of
//!   the edited ground.
//! - The frame after a dig shows the hole where the view met the ground, and nothing else moved.
//! - 300 frames flying across chunk borders (loads and unloads) with digs and builds on the way
//!   give no validation error and leave the arenas consistent.

use crate::common;

use std::collections::BTreeSet;

use blockfall::headless::HeadlessRenderer;
use blockfall::playing::Playing;
use blockfall_engine::gpu::{FrameRing, Gpu, RgbaImage};
use blockfall_game::player::{Controls, Mode};
use blockfall_game::terrain::chunks::fill_padded_grid;
use blockfall_game::terrain::{ChunkCoord, Generator, PADDED_SIZE};
use blockfall_game::world::{ToolKind, World};
use blockfall_physics::workers::WorkerPool;

use common::{assert_chunk_meshed_as_the_cpu, assert_no_validation_errors, resident_mesh};

const WIDTH: u32 = 320;
const HEIGHT: u32 = 180;
/// Chunks in view: small, so that lavapipe in a debug build loads them in seconds.
const RADIUS: u32 = 2;

/// A headless world with every chunk in view loaded and the player hovering (flying, no keys)
/// at the spawn, so that nothing moves between frames but what the test does.
fn loaded_world(gpu: &mut Gpu) -> HeadlessRenderer {
    // The ground alone (no showcase) and the terrain tool in hand.
    let mut ground = World::at_spawn(Generator::DEFAULT_SEED, RADIUS, WorkerPool::new(1).unwrap());
    let mut terrain = *ground.tool();
    terrain.kind = ToolKind::Terrain;
    assert!(ground.choose_tool(terrain));
    let mut renderer = HeadlessRenderer::with_world(gpu, WIDTH, HEIGHT, ground).unwrap();
    world(&mut renderer).world.toggle_fly();
    assert_eq!(world(&mut renderer).world.player().mode, Mode::Fly);
    let loaded = renderer.load_world().unwrap();
    assert!(loaded > 0);
    renderer
}

/// The view turned to `pitch` radians above the horizon, its yaw kept.
fn look_down(renderer: &mut HeadlessRenderer, pitch: f32) {
    let world = &mut world(renderer).world;
    world.set_look(world.yaw(), pitch);
}

fn world(renderer: &mut HeadlessRenderer) -> &mut Playing {
    world_and_frames(renderer).0
}

fn world_and_frames(renderer: &mut HeadlessRenderer) -> (&mut Playing, &mut FrameRing) {
    renderer
        .world_and_frames()
        .expect("a headless renderer of the world")
}

fn frame(gpu: &mut Gpu, renderer: &mut HeadlessRenderer) -> RgbaImage {
    renderer.render(gpu, 0.0, 1.0 / 60.0, true).unwrap();
    renderer.pixels().unwrap()
}

/// One chunk's mesh as the arenas hold it: vertex floats and indices, through its draw.

#[test]
fn an_edit_meshes_again_exactly_the_chunks_it_touched() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before_errors = gpu.validation_errors();
    let mut renderer = loaded_world(&mut gpu);
    let world = world(&mut renderer);
    let loaded: Vec<ChunkCoord> = world.world.chunks().loaded().collect();
    let before = world.renderer.meshes_mut().read_back().unwrap();
    let resident_before: Vec<_> = world.renderer.meshes_mut().chunks().collect();

    // A dig at a chunk corner near the spawn reaches the padded grids of several chunks.
    let spawn = generator().spawn_point();
    let ground = generator().surface_height(spawn[0], spawn[2] - 8.0);
    let centre = [
        (spawn[0] / 32.0).round() * 32.0,
        ground,
        (spawn[2] / 32.0).round() * 32.0 - 0.5,
    ];
    let centre = [
        centre[0],
        generator().surface_height(centre[0], centre[2]),
        centre[2],
    ];
    let (world, frames) = world_and_frames(&mut renderer);
    let counters = world.world.chunks().counters();
    let report = world.edit_at(frames, true, centre, 3.0).unwrap();
    frames.wait_all().unwrap();
    let changed = {
        // Worked out apart from the streamer: the loaded chunks whose padded grid now differs
        // from the generated ground's.
        let edits = world.world.edits();
        let mut changed = Vec::new();
        for coord in &loaded {
            let padded = coord.padded_box();
            let mut samples = Vec::new();
            fill_padded_grid(edits, *coord, &mut samples);
            let generated: Vec<f32> = {
                let mut out = Vec::new();
                edits
                    .generator()
                    .fill_region(padded.low, [PADDED_SIZE; 3], &mut out);
                out
            };
            if samples != generated {
                changed.push(*coord);
            }
        }
        changed
    };
    assert!(
        changed.len() >= 2,
        "the dig reached {} chunks",
        changed.len()
    );
    assert_eq!(
        report.remeshed, changed,
        "exactly the loaded chunks whose samples changed are meshed again"
    );
    let after_counters = world.world.chunks().counters();
    assert!(after_counters.meshes - counters.meshes <= changed.len() as u64);
    assert!(
        report.relit.iter().all(|coord| !changed.contains(coord)),
        "relit chunks are not meshed"
    );

    let after = world.renderer.meshes_mut().read_back().unwrap();
    let touched: BTreeSet<[i32; 4]> = changed.iter().map(|c| c.key()).collect();
    for (key, chunk) in &resident_before {
        if touched.contains(key) {
            continue;
        }
        let now = world
            .renderer
            .meshes_mut()
            .chunk(*key)
            .expect("still resident");
        assert_eq!(now, *chunk, "chunk {key:?} kept its ranges");
        assert_eq!(
            resident_mesh(&after, now),
            resident_mesh(&before, *chunk),
            "chunk {key:?} was not meshed again"
        );
    }
    // The touched chunks hold the CPU mesher's mesh of the edited ground, with the skirt the
    // game gives them (to the bit on an IEEE device).
    for coord in &changed {
        assert_chunk_meshed_as_the_cpu(world, &after, *coord);
    }
    drop(renderer);
    assert_no_validation_errors(&gpu, before_errors);
}

#[test]
fn the_frame_after_a_dig_shows_the_hole() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before_errors = gpu.validation_errors();
    let mut renderer = loaded_world(&mut gpu);
    look_down(&mut renderer, (-25f32).to_radians());
    let before = frame(&mut gpu, &mut renderer);
    let world = world(&mut renderer);
    let aim = world.world.ground_aim().expect("the view meets the ground");
    let view = world.view(WIDTH, HEIGHT);
    let (px, py) = view.project(aim.into(), WIDTH, HEIGHT).unwrap();
    assert!((px - WIDTH as f32 / 2.0).abs() < 1.0 && (py - HEIGHT as f32 / 2.0).abs() < 1.0);
    let eye = world.world.eye();
    let reach = (ultraviolet::Vec3::from(aim) - eye).mag();

    let (world, frames) = world_and_frames(&mut renderer);
    let report = world.edit_at(frames, true, aim, 2.5).unwrap();
    assert!(!report.remeshed.is_empty());
    let deeper = world.world.ground_aim().expect("the hole's floor");
    let deeper_reach = (ultraviolet::Vec3::from(deeper) - eye).mag();
    assert!(deeper_reach > reach + 1.0, "{deeper_reach} vs {reach}");

    let after = frame(&mut gpu, &mut renderer);
    let dir = std::env::temp_dir().join(format!("blockfall-world-{}", std::process::id()));
    blockfall::screenshot::write_png(&before, &dir.join("before-dig.png")).unwrap();
    blockfall::screenshot::write_png(&after, &dir.join("after-dig.png")).unwrap();
    eprintln!("before and after the dig: {}", dir.display());

    // Around the middle of the image, where the view met the ground, the picture changed.
    let difference = |x: u32, y: u32| {
        let (a, b) = (before.pixel(x, y).unwrap(), after.pixel(x, y).unwrap());
        (0..3).map(|c| a[c].abs_diff(b[c]) as u32).sum::<u32>()
    };
    let (cx, cy) = (WIDTH / 2, HEIGHT / 2);
    let mut changed = 0;
    let mut total = 0;
    for y in cy - 4..=cy + 4 {
        for x in cx - 4..=cx + 4 {
            total += 1;
            if difference(x, y) > 30 {
                changed += 1;
            }
        }
    }
    // The bowl is dirt (and shaded where it faces away from the sky) instead of grass.
    assert!(
        changed * 2 >= total,
        "{changed} of {total} pixels at the hole changed"
    );
    // Every pixel that changed lies where the dug sphere projects (its box, a meter larger
    // for the light's blend and the normals at the rim), and many did.
    let reach_box = 2.5 + 1.0;
    let corners: Vec<(f32, f32)> = (0..8)
        .map(|corner| {
            let offset = |bit: u32| {
                if corner & bit == 0 {
                    -reach_box
                } else {
                    reach_box
                }
            };
            let point =
                ultraviolet::Vec3::new(aim[0] + offset(1), aim[1] + offset(2), aim[2] + offset(4));
            view.project(point, WIDTH, HEIGHT).expect("in front")
        })
        .collect();
    let low_x = corners.iter().map(|c| c.0).fold(f32::MAX, f32::min).floor() - 1.0;
    let high_x = corners.iter().map(|c| c.0).fold(f32::MIN, f32::max).ceil() + 1.0;
    let low_y = corners.iter().map(|c| c.1).fold(f32::MAX, f32::min).floor() - 1.0;
    let high_y = corners.iter().map(|c| c.1).fold(f32::MIN, f32::max).ceil() + 1.0;
    let mut changed_anywhere = 0;
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            if difference(x, y) == 0 {
                continue;
            }
            changed_anywhere += 1;
            let (fx, fy) = (x as f32, y as f32);
            assert!(
                (low_x..=high_x).contains(&fx) && (low_y..=high_y).contains(&fy),
                "({x}, {y}) changed, away from the hole ({low_x}..{high_x}, {low_y}..{high_y})"
            );
        }
    }
    assert!(changed_anywhere >= 100, "{changed_anywhere} pixels changed");
    drop(renderer);
    assert_no_validation_errors(&gpu, before_errors);
}

#[test]
fn three_hundred_streamed_frames_with_edits_stay_valid() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before_errors = gpu.validation_errors();
    let mut renderer = loaded_world(&mut gpu);
    let start = world(&mut renderer).world.chunks().counters();
    look_down(&mut renderer, (-20f32).to_radians());
    let fly = Controls {
        forward: true,
        run: true,
        ..Controls::default()
    };
    let mut edits = 0;
    for frame_number in 0..300u32 {
        let world = world(&mut renderer);
        // Fly north fast (60 m/s, two chunks a second) for 200 frames, then turn back.
        if frame_number == 200 {
            world.world.turn(std::f32::consts::PI, 0.0);
        }
        // Level flight; the tool aims down at the ground.
        let yaw = world.world.yaw();
        world.world.set_look(yaw, 0.0);
        world.world.step(1.0 / 60.0, &fly);
        world.world.set_look(yaw, (-30f32).to_radians());
        if frame_number % 25 == 0 {
            let dig = frame_number % 50 == 0;
            let (world, frames) = world_and_frames(&mut renderer);
            let Some(aim) = world.world.ground_aim() else {
                continue;
            };
            let radius = world.world.tool().radius;
            let report = world.edit_at(frames, dig, aim, radius).unwrap();
            if !report.remeshed.is_empty() {
                edits += 1;
            }
        }
        renderer
            .render(
                &mut gpu,
                frame_number as f32 / 60.0,
                0.0,
                frame_number == 299,
            )
            .unwrap();
    }
    let image = renderer.pixels().unwrap();
    let world = world(&mut renderer);
    let counters = world.world.chunks().counters();
    assert!(edits >= 6, "edits that changed the terrain: {edits}");
    assert!(counters.unloads > start.unloads, "chunks were unloaded");
    assert!(counters.loads > start.loads + 20, "chunks were loaded");
    // The arenas hold exactly the resident chunks' ranges.
    let meshes = world.renderer.meshes_mut();
    let resident: Vec<_> = meshes.chunks().collect();
    assert!(!resident.is_empty());
    let vertices: u64 = resident.iter().map(|(_, c)| c.vertices.size).sum();
    let indices: u64 = resident.iter().map(|(_, c)| c.indices.size).sum();
    assert_eq!(meshes.vertex_arena().used(), vertices);
    assert_eq!(meshes.index_arena().used(), indices);
    assert_eq!(meshes.vertex_arena().allocations(), resident.len());
    // The last frame shows terrain and sky.
    let sky = blockfall_game_render::terrain::sky_colour();
    let sky_pixels = image
        .pixels
        .chunks(4)
        .filter(|p| (0..3).all(|c| p[c].abs_diff(sky[c]) <= 2))
        .count();
    let all = (WIDTH * HEIGHT) as usize;
    assert!(sky_pixels > 0 && sky_pixels < all, "{sky_pixels} of {all}");
    drop(renderer);
    assert_no_validation_errors(&gpu, before_errors);
}

#[test]
fn blocks_and_pieces_get_the_light_the_terrain_is_lit_with() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before_errors = gpu.validation_errors();
    let mut renderer = loaded_world(&mut gpu);
    let world = world(&mut renderer);
    let generator = generator();
    let spawn = generator.spawn_point();
    assert_eq!(
        world.world.light_at([spawn[0], spawn[1] + 3.0, spawn[2]]),
        1.0
    );
    assert_eq!(
        world.world.light_at([spawn[0], spawn[1] - 12.0, spawn[2]]),
        0.0
    );
    assert_eq!(world.world.light_at([f32::NAN, 0.0, 0.0]), 0.0);

    // At the terrain's vertices, `light_at` gives what the light arena holds.
    let readback = world.renderer.meshes_mut().read_back().unwrap();
    let resident: Vec<_> = world.renderer.meshes_mut().chunks().collect();
    let mut compared = 0;
    let mut dark = 0;
    for (key, chunk) in resident {
        let coord = ChunkCoord::new(key[0], key[1], key[2]);
        let origin = coord.padded_origin();
        for vertex in 0..chunk.vertices.size as usize {
            let at = chunk.vertices.offset as usize + vertex;
            let local = &readback.vertices[at * 6..at * 6 + 3];
            let point: [f32; 3] = std::array::from_fn(|axis| local[axis] + origin[axis] as f32);
            // Points in the chunk proper: its own grid answers `light_at` there.
            if ChunkCoord::containing(point) != coord {
                continue;
            }
            let expected = readback.light[at];
            let light = world.world.light_at(point);
            // Within rounding: the world point is the local one plus the origin, in f32.
            assert!(
                (light - expected).abs() <= 1e-5,
                "{point:?}: light_at {light}, the terrain {expected}"
            );
            compared += 1;
            if expected < 0.5 {
                dark += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared} vertices compared");
    assert!(dark > 0, "some of the terrain in view is in a cave's shade");
    drop(renderer);
    assert_no_validation_errors(&gpu, before_errors);
}

#[test]
fn the_tool_marks_the_ground_it_would_dig_and_only_that() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before_errors = gpu.validation_errors();
    let mut renderer = loaded_world(&mut gpu);
    look_down(&mut renderer, (-25f32).to_radians());
    let plain = frame(&mut gpu, &mut renderer);
    world(&mut renderer).renderer.show_tool = true;
    let marked = frame(&mut gpu, &mut renderer);
    world(&mut renderer).renderer.show_tool = false;
    let plain_again = frame(&mut gpu, &mut renderer);
    assert_eq!(
        plain.pixels, plain_again.pixels,
        "the marker leaves no trace"
    );

    let world = world(&mut renderer);
    let aim = world.world.ground_aim().expect("the view meets the ground");
    let radius = world.world.tool().radius;
    let view = world.view(WIDTH, HEIGHT);
    let (cx, cy) = (WIDTH / 2, HEIGHT / 2);
    let (p, m) = (plain.pixel(cx, cy).unwrap(), marked.pixel(cx, cy).unwrap());
    let warmth = |c: [u8; 4]| i32::from(c[0]) - i32::from(c[2]);
    assert!(
        warmth(m) > warmth(p) + 20,
        "the aimed ground is tinted: {p:?} -> {m:?}"
    );
    // Nothing outside the sphere's box on screen changed.
    let mut low = (f32::MAX, f32::MAX);
    let mut high = (f32::MIN, f32::MIN);
    for corner in 0..8 {
        let offset = |bit: u32| if corner & bit == 0 { -radius } else { radius };
        let point =
            ultraviolet::Vec3::new(aim[0] + offset(1), aim[1] + offset(2), aim[2] + offset(4));
        let (x, y) = view.project(point, WIDTH, HEIGHT).expect("in front");
        low = (low.0.min(x), low.1.min(y));
        high = (high.0.max(x), high.1.max(y));
    }
    let mut changed = 0;
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            if plain.pixel(x, y) != marked.pixel(x, y) {
                changed += 1;
                let (fx, fy) = (x as f32, y as f32);
                assert!(
                    fx >= low.0 - 1.0
                        && fx <= high.0 + 1.0
                        && fy >= low.1 - 1.0
                        && fy <= high.1 + 1.0,
                    "({x}, {y}) changed outside the tool's sphere"
                );
            }
        }
    }
    assert!(changed > 50, "{changed} pixels marked");
    drop(renderer);
    assert_no_validation_errors(&gpu, before_errors);
}

/// The generated world's own generator, for its spawn point and heights.
fn generator() -> Generator {
    Generator::new(Generator::DEFAULT_SEED)
}
