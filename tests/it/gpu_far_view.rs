//! The far view (issue "far view"): the terrain's levels of detail out to 1 km, seen in
//! scripted headless runs (`blockfall --script`, validated) with the sky cleared to magenta
//! (`--debug-sky`: the fog keeps the sky's colour), so that any hole in the terrain, a crack
//! between two levels say, is a magenta pixel below the sky line; and an edit at a level
//! border meshed again at every level it touches as the CPU meshes it (to the bit on lavapipe).
//!
//! * **The sky line** of a picture is, in each column, the first pixel from the top that is
//!   not magenta. Below it nothing may be magenta: that would be the sky seen through the
//!   ground.
//! * **Hills, not a flat cut**: the sky line varies along the picture, and just below it the
//!   terrain is nearly the fog's colour: the ground reaches into the fog before the view ends.
//!
//! A failing test leaves its script and pictures in its scratch folder, named in the message.

use std::path::{Path, PathBuf};
use std::process::Command;

use blockfall::headless::HeadlessRenderer;
use blockfall::playing::Playing;
use blockfall_engine::gpu::FrameRing;
use blockfall_game::terrain::chunks::fill_padded_grid;
use blockfall_game::terrain::{ChunkCoord, Generator, PADDED_SIZE};
use blockfall_game::world::{ToolKind, World};
use blockfall_game_render::terrain::sky_colour;
use blockfall_physics::workers::WorkerPool;
use serde_json::json;

use crate::common::{
    assert_chunk_meshed_as_the_cpu, assert_no_validation_errors, gpu, scratch, skip_gpu, text, Png,
};

/// Small pictures: lavapipe draws some 650,000 triangles a frame at a radius of 32.
const WIDTH: u32 = 480;
const HEIGHT: u32 = 270;
/// The farthest view: 32 chunks, 1,024 m, levels of detail 0 to 3.
const FAR: u32 = 32;
/// How near (per channel, of 255) a pixel must be to magenta to count as the sky.
const MAGENTA_TOLERANCE: u8 = 8;
/// How near (per channel) a pixel must be to the fog's colour to count as wholly fogged.
const FOG_TOLERANCE: i32 = 24;
/// How near (in pixels) to a wholly fogged pixel the sky may show: the world's edge.
const FOG_REACH: u32 = 3;

/// Whether a pixel is the debug sky's magenta.
fn magenta(pixel: [u8; 3]) -> bool {
    pixel[0] >= 255 - MAGENTA_TOLERANCE
        && pixel[1] <= MAGENTA_TOLERANCE
        && pixel[2] >= 255 - MAGENTA_TOLERANCE
}

/// Whether a pixel is (nearly) the fog's colour, which is the sky's.
fn fogged(pixel: [u8; 3]) -> bool {
    let fog = sky_colour();
    (0..3).all(|c| (i32::from(pixel[c]) - i32::from(fog[c])).abs() <= FOG_TOLERANCE)
}

/// The sky line of each column (the first row that is not magenta; the height when all is
/// sky), and the holes: magenta pixels below it, as (column, row), but those within
/// [`FOG_REACH`] pixels of a pixel in the fog's colour. Those lie at the world's edge, past the
/// view radius, where the ground is wholly in the fog: a hill top there may stand in front of
/// nothing, but in a picture with the true sky the fog and the sky are one colour.
fn sky_line_and_holes(picture: &Png) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut line = Vec::with_capacity(picture.width as usize);
    let mut holes = Vec::new();
    let near_fog = |x: u32, y: u32| {
        let xs = x.saturating_sub(FOG_REACH)..=(x + FOG_REACH).min(picture.width - 1);
        xs.into_iter().any(|i| {
            let ys = y.saturating_sub(FOG_REACH)..=(y + FOG_REACH).min(picture.height - 1);
            ys.into_iter().any(|j| fogged(picture.pixel(i, j)))
        })
    };
    for x in 0..picture.width {
        let top = (0..picture.height)
            .find(|&y| !magenta(picture.pixel(x, y)))
            .unwrap_or(picture.height);
        line.push(top);
        holes.extend(
            (top..picture.height)
                .filter(|&y| magenta(picture.pixel(x, y)) && !near_fog(x, y))
                .map(|y| (x, y)),
        );
    }
    (line, holes)
}

/// A flight: where the feet start, the look (yaw and pitch in degrees), when to take pictures.
type Flight<'a> = ([f32; 3], (f32, f32), &'a [f64]);

/// Runs flights across the level borders, pressing `KeyW` and `ShiftLeft` (60 m/s where the
/// view looks), and fails on any hole in any picture.
fn assert_no_hole_in_flights(name: &str, flights: &[Flight<'_>]) {
    for (index, (feet, look, shots)) in flights.iter().enumerate() {
        let dir = scratch(&format!("{name}-{index}"));
        let (script, pictures) = flight_from(&dir, *feet, *look, &["KeyW", "ShiftLeft"], shots);
        run_far(&script);
        for path in &pictures {
            let picture = Png::read(path, (WIDTH, HEIGHT));
            let (line, holes) = sky_line_and_holes(&picture);
            assert!(
                holes.is_empty(),
                "{}: sky below the sky line at {:?}",
                path.display(),
                &holes[..holes.len().min(20)]
            );
            assert!(
                line.iter().any(|&y| y < HEIGHT),
                "{}: no ground",
                path.display()
            );
        }
    }
}

/// A script flying `height` meters above the spawn point, looking along `yaw` and `pitch`
/// (degrees; down for negative values; flight goes where the view looks), pressing `keys` from
/// the start; a screenshot at each of `shots`.
fn flight(
    dir: &Path,
    height: f32,
    look: (f32, f32),
    keys: &[&str],
    shots: &[f64],
) -> (PathBuf, Vec<PathBuf>) {
    let spawn = Generator::new(Generator::DEFAULT_SEED).spawn_point();
    flight_from(
        dir,
        [spawn[0], spawn[1] + height, spawn[2]],
        look,
        keys,
        shots,
    )
}

/// [`flight`] from the feet at `feet`.
fn flight_from(
    dir: &Path,
    feet: [f32; 3],
    (yaw, pitch): (f32, f32),
    keys: &[&str],
    shots: &[f64],
) -> (PathBuf, Vec<PathBuf>) {
    let pictures: Vec<PathBuf> = (0..shots.len())
        .map(|index| dir.join(format!("shot-{index}.png")))
        .collect();
    let mut events: Vec<serde_json::Value> = keys
        .iter()
        .map(|key| json!({"t": 0.0, "press": key}))
        .collect();
    for (t, path) in shots.iter().zip(&pictures) {
        events.push(json!({"t": t, "screenshot": path}));
    }
    let duration = shots.iter().copied().fold(0.0, f64::max) + 0.1;
    let script = json!({
        "terrain": {"world": {"seed": Generator::DEFAULT_SEED}},
        "player": {
            "feet": feet,
            "yaw_degrees": yaw,
            "pitch_degrees": pitch,
            "mode": "fly",
        },
        "events": events,
        "duration": duration,
        "frame_dt": 0.1,
    });
    let path = dir.join("flight.json");
    std::fs::write(&path, serde_json::to_string_pretty(&script).unwrap()).unwrap();
    (path, pictures)
}

/// Runs `script` headless and validated at the far view radius with the magenta sky.
fn run_far(script: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .args([
            "--headless",
            "--validation",
            "--no-hud",
            "--debug-sky",
            "--shadows",
            "off",
            "--view-radius",
            &FAR.to_string(),
            "--width",
            &WIDTH.to_string(),
            "--height",
            &HEIGHT.to_string(),
            "--script",
            script.to_str().unwrap(),
        ])
        .output()
        .expect("the blockfall binary runs");
    assert!(
        output.status.success(),
        "{}: {}\n{}",
        script.display(),
        output.status,
        text(&output.stderr)
    );
}

#[test]
fn the_far_view_shows_hills_into_the_fog_on_the_sky_line_and_no_hole() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("far-view");
    let (script, pictures) = flight(&dir, 60.0, (180.0, -10.0), &[], &[0.2]);
    run_far(&script);
    let picture = Png::read(&pictures[0], (WIDTH, HEIGHT));
    let (line, holes) = sky_line_and_holes(&picture);
    let where_ = pictures[0].display();
    assert!(
        holes.is_empty(),
        "{where_}: sky below the sky line at {:?}",
        &holes[..holes.len().min(20)]
    );
    // The ground fills the lower part of the picture and the sky the upper.
    assert!(
        line.iter().all(|&y| y > 0 && y < HEIGHT * 3 / 4),
        "{where_}: {line:?}"
    );
    // Hills, not a flat cut: the sky line rises and falls along the picture.
    let (low, high) = (line.iter().min().unwrap(), line.iter().max().unwrap());
    let rows: std::collections::BTreeSet<u32> = line.iter().copied().collect();
    assert!(
        high - low >= 6 && rows.len() >= 6,
        "{where_}: sky line from row {low} to {high}"
    );
    // The terrain reaches into the fog: just below the sky line, the ground is nearly the
    // fog's colour (the sky's: fog of three quarters and more, some 800 m away at this radius)
    // in a good part of the columns (nearer hills hold the rest).
    let fogged_columns = line
        .iter()
        .enumerate()
        .filter(|&(x, &y)| fogged(picture.pixel(x as u32, (y + 1).min(HEIGHT - 1))))
        .count();
    eprintln!(
        "far view: sky line rows {low} to {high}, {fogged_columns} of {WIDTH} columns fogged \
         under it"
    );
    assert!(
        fogged_columns * 3 >= WIDTH as usize,
        "{where_}: only {fogged_columns} of {WIDTH} columns meet the fog at the sky line"
    );
}

#[test]
fn a_flight_across_the_level_borders_never_shows_the_sky_through_the_ground() {
    if skip_gpu() {
        return;
    }
    // Fast flight (60 m/s) for 3 s: the borders between levels (128, 256 and 512 m from the
    // player) move across the ground under the view, chunks split and join as the frames'
    // streaming allows, and every picture is checked. Level flight 70 m up, the ground below
    // the middle of the picture.
    let spawn = Generator::new(Generator::DEFAULT_SEED).spawn_point();
    let feet = [spawn[0], spawn[1] + 70.0, spawn[2]];
    assert_no_hole_in_flights(
        "far-flight",
        &[(feet, (150.0, -2.0), &[0.5, 1.0, 1.5, 2.0, 2.5, 3.0])],
    );
}

#[test]
fn the_sky_shows_neither_where_a_side_skirt_meets_its_chunk_top_nor_under_a_steep_seam() {
    if skip_gpu() {
        return;
    }
    assert_no_hole_in_flights(
        "far-seams",
        &[
            // Diving 30° from 110 m: the ground crosses y = 0, a chunk's top, along level
            // borders 260 to 560 m away. Side skirts there once rose to the chunk's top face
            // instead of hanging down; and at 2.2 s a column half changed level (the chunks
            // above the ground already of full detail, those below not yet) left a flat border
            // between levels along the ground.
            ([0.0, 110.0, 40.0], (300.0, -30.0), &[0.1, 0.7, 1.3, 2.2]),
            // 80 m up, 10° down: the full-detail border 160 m ahead runs across a steep slope,
            // where a skirt hung along the normal went down only 0.4 m.
            ([-241.5, 80.0, 127.3], (300.0, -10.0), &[0.1]),
        ],
    );
}

/// The world renderer of a headless run.
fn world_and_frames(renderer: &mut HeadlessRenderer) -> (&mut Playing, &mut FrameRing) {
    renderer
        .world_and_frames()
        .expect("a headless renderer of the world")
}

#[test]
fn a_dig_at_a_level_border_meshes_every_level_it_touches_as_the_cpu_does() {
    let Some(mut gpu) = gpu() else {
        return;
    };
    let before_errors = gpu.validation_errors();
    // A view of 16 chunks: full detail to 128 m, level 1 to 256 m, level 2 beyond.
    let mut ground = World::at_spawn(Generator::DEFAULT_SEED, 16, WorkerPool::new(2).unwrap());
    let mut terrain = *ground.tool();
    terrain.kind = ToolKind::Terrain;
    assert!(ground.choose_tool(terrain));
    let mut renderer = HeadlessRenderer::with_world(&mut gpu, 160, 90, ground).unwrap();
    renderer.load_world().unwrap();
    let (world, frames) = world_and_frames(&mut renderer);
    let loaded: Vec<ChunkCoord> = world.world.chunks().loaded().collect();
    // A border between full detail and level 1 where both sides hold the ground: a resident
    // chunk of level 1 whose neighbour across its face towards the player is a resident chunk
    // of level 0.
    let resident = |world: &mut Playing, coord: ChunkCoord| {
        world.renderer.meshes_mut().chunk(coord.key()).is_some()
    };
    let eye = world.world.eye();
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let mut found = None;
    'search: for coarse in loaded.iter().filter(|coord| coord.level == 1) {
        if !resident(world, *coarse) {
            continue;
        }
        let span = coarse.span() as f32;
        let low = [coarse.x, coarse.y, coarse.z].map(|c| c as f32 * span);
        // The face whose outside is nearest the player, along x or z.
        for (axis, side) in [(0, -1.0f32), (0, 1.0), (2, -1.0), (2, 1.0)] {
            let face = if side < 0.0 {
                low[axis]
            } else {
                low[axis] + span
            };
            let mut point = [low[0] + span / 2.0, 0.0, low[2] + span / 2.0];
            point[axis] = face;
            let across = {
                let mut p = point;
                p[axis] += side * 1.0;
                p
            };
            let height = generator.surface_height(point[0], point[2]);
            if height < low[1] + 4.0 || height > low[1] + span - 4.0 {
                continue;
            }
            let fine = ChunkCoord::containing([across[0], height, across[2]]);
            let nearer = (across[axis] - eye.as_array()[axis]).abs()
                < (point[axis] - eye.as_array()[axis]).abs();
            if nearer && loaded.contains(&fine) && resident(world, fine) {
                found = Some([point[0], height, point[2]]);
                break 'search;
            }
        }
    }
    let centre = found.expect("a border between levels 0 and 1 on the ground");
    let report = world.edit_at(frames, true, centre, 4.0).unwrap();
    frames.wait_all().unwrap();
    // Every loaded chunk whose grid the dig changed, of any level, is meshed again.
    let edits = world.world.edits();
    let mut changed = Vec::new();
    for coord in &loaded {
        let mut samples = Vec::new();
        fill_padded_grid(edits, *coord, &mut samples);
        let mut generated = Vec::new();
        edits.generator().fill_region_spaced(
            coord.padded_origin(),
            [PADDED_SIZE; 3],
            coord.spacing(),
            &mut generated,
        );
        if samples != generated {
            changed.push(*coord);
        }
    }
    let levels: std::collections::BTreeSet<u8> = changed.iter().map(|c| c.level).collect();
    assert!(
        levels.len() >= 2,
        "the dig at {centre:?} changed {changed:?}"
    );
    for coord in &changed {
        assert!(
            report.remeshed.contains(coord),
            "{coord:?} changed and was not meshed again"
        );
    }
    // The chunks meshed again hold the CPU mesher's mesh of the edited ground at every level
    // (to the bit on an IEEE device).
    let readback = world.renderer.meshes_mut().read_back().unwrap();
    for coord in &report.remeshed {
        assert_chunk_meshed_as_the_cpu(world, &readback, *coord);
    }
    eprintln!(
        "a dig at a level border: {} chunks meshed again, levels {levels:?}",
        report.remeshed.len()
    );
    drop(renderer);
    assert_no_validation_errors(&gpu, before_errors);
}
