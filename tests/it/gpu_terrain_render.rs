//! The GPU-meshed terrain on screen: the chunks of the default world around the spawn meshed by
//! the compute surface nets into the arenas, drawn through their indirect commands with the
//! terrain material, rendered headless and checked pixel by pixel: sky above, terrain below.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use blockfall::headless::OFFSCREEN_FORMAT;
use blockfall::screenshot::write_png;
use blockfall::shaders::LIBRARY;
use blockfall_engine::gpu::{FrameRing, Gpu, ImageAccess, OffscreenTarget, RgbaImage};
use blockfall_engine::meshing::TerrainMeshesDesc;
use blockfall_engine::meshing::{is_uniform, DensityGrid, GridRegion, TerrainMeshes};
use blockfall_game::camera::Camera;
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order};
use blockfall_game::terrain::{EditStore, Generator, PADDED_SIZE};
use blockfall_game_render::target::RenderTarget;
use blockfall_game_render::terrain::{
    sky_colour, TerrainLook, TerrainRenderer, CULL_PASS_NAME, PASS_NAME,
};

use common::assert_no_validation_errors;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 360;
/// Chunks around the spawn that are meshed.
const RADIUS: u32 = 2;

/// What a render gave: the pixels and the number of chunks drawn.
struct Rendered {
    image: RgbaImage,
    chunks: u32,
    wireframe_supported: bool,
}

/// Meshes the chunks within [`RADIUS`] of the spawn and renders one frame of the spawn view.
fn render(gpu: &mut Gpu, wireframe: bool) -> Rendered {
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
    let edits = EditStore::new(generator.clone());
    let spawn = generator.spawn_point();

    let mut frames = FrameRing::new(&device).unwrap();
    let mut meshes = TerrainMeshes::new(
        &device,
        &TerrainMeshesDesc {
            vertex_arena_bytes: 16 << 20,
            index_arena_bytes: 16 << 20,
            max_chunks: 256,
            ..TerrainMeshesDesc::default()
        },
    )
    .unwrap();
    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let mut samples = Vec::new();
    let mut resident = 0;
    for coord in load_order(spawn, RADIUS) {
        fill_padded_grid(&edits, coord, &mut samples);
        if is_uniform(&samples) {
            continue;
        }
        let grid = DensityGrid::new(&samples, dims).unwrap();
        if meshes
            .mesh_chunk(&mut frames, coord.key(), grid, region, 0.0, None)
            .unwrap()
            .is_some()
        {
            resident += 1;
        }
    }
    assert!(resident > 0, "chunks with a surface around the spawn");

    let ground = generator.surface_height(spawn[0], spawn[2]);
    let mut renderer = TerrainRenderer::new(
        gpu,
        &LIBRARY,
        OFFSCREEN_FORMAT,
        TerrainLook::around(ground),
        None,
    )
    .unwrap();
    let wireframe_supported = renderer.wireframe_supported();
    assert_eq!(
        renderer.set_wireframe(wireframe),
        wireframe && wireframe_supported
    );
    let target = OffscreenTarget::new(&device, WIDTH, HEIGHT, OFFSCREEN_FORMAT).unwrap();
    let view = Camera::at_spawn(&generator, WIDTH, HEIGHT);

    let command_buffer = frames.begin().unwrap();
    renderer
        .record(
            &mut frames,
            RenderTarget {
                image: target.color.raw,
                view: target.color.view,
                width: WIDTH,
                height: HEIGHT,
            },
            &mut meshes,
            &view,
            None,
        )
        .unwrap();
    frames.begin_pass("readback");
    target.record_readback(&device, command_buffer, ImageAccess::ColorAttachment);
    frames.end_pass();
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    let image = target.pixels().unwrap();

    if device.adapter.timestamps {
        let names: Vec<&str> = frames
            .last_timings()
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        if renderer.gpu_culling() {
            assert_eq!(
                names,
                [CULL_PASS_NAME, PASS_NAME, "readback"],
                "every pass is timed"
            );
        } else {
            assert_eq!(names, [PASS_NAME, "readback"], "every pass is timed");
        }
    }
    // Culled on the GPU where the device can: one draw call, the chunks counted there.
    assert_eq!(renderer.gpu_culling(), renderer.gpu_culling_supported());
    let counts = renderer.refresh_counts();
    if renderer.gpu_culling() {
        assert_eq!(renderer.draws_last_frame(), 1);
        assert!(counts.is_some());
    }
    let chunks = renderer.chunks_drawn();
    // The resident chunks in view: those behind the eye are culled.
    assert!(chunks > 0 && chunks as usize <= meshes.resident_chunks());
    drop(renderer);
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(gpu, before);
    Rendered {
        image,
        chunks,
        wireframe_supported,
    }
}

fn is_sky(pixel: [u8; 4], sky: [u8; 3]) -> bool {
    (0..3).all(|c| pixel[c].abs_diff(sky[c]) <= 2)
}

fn terrain_fraction(image: &RgbaImage) -> f64 {
    let sky = sky_colour();
    let terrain = image
        .pixels
        .chunks(4)
        .filter(|p| !is_sky([p[0], p[1], p[2], p[3]], sky))
        .count();
    terrain as f64 / (image.width * image.height) as f64
}

fn screenshot_path(name: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!("blockfall-terrain-render-{}", std::process::id()))
        .join(name)
}

#[test]
fn terrain_renders_under_the_sky_from_the_spawn() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let rendered = render(&mut gpu, false);
    let image = &rendered.image;
    assert_eq!((image.width, image.height), (WIDTH, HEIGHT));
    let path = screenshot_path("terrain.png");
    write_png(image, &path).unwrap();
    eprintln!(
        "terrain render ({} chunks): {}",
        rendered.chunks,
        path.display()
    );

    let sky = sky_colour();
    for y in 0..4 {
        for x in (0..WIDTH).step_by(5) {
            common::assert_colour_near(
                image.pixel(x, y).unwrap(),
                sky,
                2,
                &format!("sky at ({x}, {y})"),
            );
        }
    }
    for y in (HEIGHT * 7 / 8..HEIGHT).step_by(3) {
        for x in (WIDTH * 3 / 8..WIDTH * 5 / 8).step_by(5) {
            let pixel = image.pixel(x, y).unwrap();
            assert!(
                !is_sky(pixel, sky),
                "terrain expected at ({x}, {y}), got sky {pixel:?}"
            );
        }
    }
    let fraction = terrain_fraction(image);
    eprintln!("terrain covers {:.1}% of the image", fraction * 100.0);
    assert!(fraction >= 0.2, "terrain covers only {fraction:.3}");
}

#[test]
fn wireframe_draws_fewer_terrain_pixels_than_fill() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let fill = render(&mut gpu, false);
    let wireframe = render(&mut gpu, true);
    let (fill_fraction, wire_fraction) = (
        terrain_fraction(&fill.image),
        terrain_fraction(&wireframe.image),
    );
    eprintln!(
        "terrain pixels: fill {:.3}, wireframe {:.3} (wireframe supported: {})",
        fill_fraction, wire_fraction, wireframe.wireframe_supported
    );
    write_png(&wireframe.image, &screenshot_path("terrain-wireframe.png")).unwrap();
    if wireframe.wireframe_supported {
        assert!(wire_fraction < fill_fraction);
    } else {
        // Without fillModeNonSolid on the device the terrain stays filled: the same picture.
        assert_eq!(wireframe.image.pixels, fill.image.pixels);
    }
}
