//! Blocks, pieces and the block tool's markers on screen: a tower of four 1 m stone blocks and
//! one loose piece, rendered headless through the passes that follow the terrain's ("blocks",
//! "pieces", "markers") after a clear, and checked pixel by pixel; and three hundred pieces
//! drawn by one indirect call.

use crate::common;

use blockfall::headless::OFFSCREEN_FORMAT;
use blockfall::shaders::LIBRARY;
use blockfall_engine::gpu::{FrameRing, Gpu, ImageAccess, OffscreenTarget, RgbaImage};
use blockfall_game::blocks::materials::{BRICKS, STONE};
use blockfall_game::blocks::store::{region_of, Block, BlockId, BlockStore};
use blockfall_game::camera::Camera;
use blockfall_game::pieces::Pieces;
use blockfall_game_render::structures::{
    BlockMaterials, BlocksRenderer, MarkerView, MarkersRenderer, PiecesRenderer, BLOCKS_PASS,
    MARKERS_PASS, PIECES_PASS,
};
use blockfall_game_render::target::{clear_colour_and_depth, DepthTarget, RenderTarget};
use blockfall_game_render::terrain::{sky_colour, WORLD_SKY};
use blockfall_physics::workers::WorkerPool;
use ultraviolet::Vec3;

use common::assert_no_validation_errors;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;

/// What a frame drew.
struct Frame {
    image: RgbaImage,
    passes: Vec<String>,
    block_draws: u32,
    piece_draws: u32,
    pieces_drawn: u32,
    marker_draws: u32,
    resident_pieces: usize,
}

/// Renders one frame of `store`, `pieces` and `markers` seen from `view`, after a clear to the
/// sky; every vertex under the open sky (light 1).
fn render(
    gpu: &mut Gpu,
    store: &BlockStore,
    pieces: &Pieces,
    markers: &MarkerView,
    view: &Camera,
) -> Frame {
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let light = |_: [f32; 3]| 1.0;
    let materials = BlockMaterials::new(gpu).unwrap();
    let mut blocks =
        BlocksRenderer::new(gpu, &LIBRARY, OFFSCREEN_FORMAT, &materials, None).unwrap();
    let mut piece_renderer =
        PiecesRenderer::new(gpu, &LIBRARY, OFFSCREEN_FORMAT, &materials, None).unwrap();
    let mut marker_renderer = MarkersRenderer::new(gpu, &LIBRARY, OFFSCREEN_FORMAT).unwrap();
    blocks.rebuild_all(gpu, store, &light).unwrap();
    piece_renderer.update(gpu, pieces, &light).unwrap();

    let target = OffscreenTarget::new(&device, WIDTH, HEIGHT, OFFSCREEN_FORMAT).unwrap();
    let render_target = RenderTarget {
        image: target.color.raw,
        view: target.color.view,
        width: WIDTH,
        height: HEIGHT,
    };
    let mut depth = DepthTarget::new(&device, "gpu_blocks: depth");
    let mut frames = FrameRing::new(&device).unwrap();
    let command_buffer = frames.begin().unwrap();
    let depth = depth.ensure(&mut frames, WIDTH, HEIGHT).unwrap();
    clear_colour_and_depth(&device, &mut frames, &render_target, depth, WORLD_SKY).unwrap();
    blocks
        .record(&mut frames, render_target, depth, view, None)
        .unwrap();
    piece_renderer
        .record(&mut frames, render_target, depth, view, pieces, None)
        .unwrap();
    marker_renderer
        .record(&mut frames, render_target, depth, view, store, markers)
        .unwrap();
    frames.begin_pass("readback");
    target.record_readback(&device, command_buffer, ImageAccess::ColorAttachment);
    frames.end_pass();
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();
    let image = target.pixels().unwrap();
    let passes = frames
        .last_timings()
        .iter()
        .map(|timing| timing.name.clone())
        .collect();
    let frame = Frame {
        image,
        passes,
        block_draws: blocks.draws_last_frame(),
        piece_draws: piece_renderer.draws_last_frame(),
        pieces_drawn: piece_renderer.pieces_last_frame(),
        marker_draws: marker_renderer.draws_last_frame(),
        resident_pieces: piece_renderer.resident_pieces(),
    };
    drop((blocks, piece_renderer, marker_renderer, frames, target));
    assert_no_validation_errors(gpu, before);
    frame
}

/// A 1 m block (2 cells) of `material` with its low cell at (x, y, z).
fn metre_block(x: i32, y: i32, z: i32, material: usize) -> Block {
    Block::new(x, y, z, 2, material as u8, 0, false).unwrap()
}

/// Where a world point lands on the picture.
fn pixel_at(image: &RgbaImage, view: &Camera, point: Vec3) -> [u8; 4] {
    let (x, y) = view.project(point, WIDTH, HEIGHT).unwrap();
    image.pixel(x as u32, y as u32).unwrap()
}

fn is_sky(pixel: [u8; 4]) -> bool {
    let sky = sky_colour();
    (0..3).all(|c| pixel[c].abs_diff(sky[c]) <= 3)
}

fn orange_ish(pixel: [u8; 4]) -> bool {
    pixel[0] > 150 && pixel[0] > pixel[1] && pixel[1] > pixel[2]
}

/// The tower (1 m stone blocks at x, z ∈ [0, 1] m, y from 0 to 4 m), its ids bottom up.
fn tower(store: &mut BlockStore) -> Vec<BlockId> {
    (0..4)
        .map(|level| store.add(metre_block(0, 2 * level, 0, STONE)).unwrap())
        .collect()
}

#[test]
fn blocks_pieces_and_markers_are_drawn_into_one_picture() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let mut store = BlockStore::new();
    let ids = tower(&mut store);
    // A brick piece, 1 m to the right of the tower, where it broke off.
    let mut pieces = Pieces::new(WorkerPool::new(1).unwrap());
    pieces.add(vec![metre_block(4, 0, 0, BRICKS)]).unwrap();
    let view = Camera::looking(
        Vec3::new(1.5, 2.0, 7.0),
        Vec3::new(0.0, -0.05, -1.0),
        WIDTH,
        HEIGHT,
    );
    // The ghost of a block to the left, where it fits; the lowest block outlined; the upper
    // two tinted as if they would fall.
    let markers = MarkerView {
        ghost: Some((metre_block(-6, 0, 0, STONE), true)),
        outline: Some(metre_block(0, 0, 0, STONE)),
        tint: ids[2..].to_vec(),
    };
    let frame = render(&mut gpu, &store, &pieces, &markers, &view);
    let image = &frame.image;

    let front = |x: f32, y: f32| pixel_at(image, &view, Vec3::new(x, y, 1.0));
    for y in [0.5, 1.5] {
        let pixel = front(0.5, y);
        assert!(
            !is_sky(pixel),
            "the tower's front at {y} m is drawn: {pixel:?}"
        );
        assert!(
            !orange_ish(pixel),
            "the lower blocks are not tinted: {pixel:?}"
        );
    }
    for y in [2.5, 3.5] {
        let pixel = front(0.5, y);
        assert!(orange_ish(pixel), "the upper blocks are tinted: {pixel:?}");
    }
    let piece = front(2.5, 0.5);
    assert!(!is_sky(piece), "the piece is drawn: {piece:?}");
    let beside = front(1.5, 3.5);
    assert!(
        is_sky(beside),
        "sky between tower and piece, above the piece: {beside:?}"
    );
    let ghost = front(-2.5, 0.5);
    let sky = sky_colour();
    // In the stone's grey, translucent over the sky: bluer than stone, greyer than the sky,
    // never the would-fall orange (red well over green and blue).
    assert!(
        ghost[2] + 10 < sky[2] && ghost[2] > ghost[0],
        "the ghost shows over the sky: {ghost:?} (sky {sky:?})"
    );
    assert!(
        !(ghost[0] > ghost[1] + 30 && ghost[0] > ghost[2] + 30),
        "the ghost is not orange: {ghost:?}"
    );

    assert_eq!(frame.block_draws, 1, "one region");
    assert_eq!((frame.pieces_drawn, frame.resident_pieces), (1, 1));
    assert_eq!(frame.marker_draws, 3, "tint, ghost and outline");
    if gpu.device.adapter.timestamps {
        for name in [BLOCKS_PASS, PIECES_PASS, MARKERS_PASS] {
            assert!(
                frame.passes.iter().any(|pass| pass == name),
                "pass {name} timed: {:?}",
                frame.passes
            );
        }
    }
}

#[test]
fn three_hundred_pieces_cost_one_indirect_draw() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let store = BlockStore::new();
    let mut pieces = Pieces::new(WorkerPool::new(1).unwrap());
    // A 20 × 15 field of 1 m pieces, 2 m apart, ahead of and below the eye.
    for i in 0..20 {
        for j in 0..15 {
            pieces
                .add(vec![metre_block(4 * i - 40, 0, -4 * j - 20, BRICKS)])
                .unwrap();
        }
    }
    let view = Camera::looking(
        Vec3::new(0.0, 30.0, 15.0),
        Vec3::new(0.0, -30.0, -35.0),
        WIDTH,
        HEIGHT,
    );
    let frame = render(&mut gpu, &store, &pieces, &MarkerView::default(), &view);
    assert_eq!(frame.resident_pieces, 300);
    assert!(frame.pieces_drawn >= 200, "{} in view", frame.pieces_drawn);
    let adapter = &gpu.device.adapter;
    if adapter.multi_draw_indirect && adapter.draw_indirect_first_instance {
        assert_eq!(frame.piece_draws, 1, "one indirect call for every piece");
    } else {
        assert_eq!(frame.piece_draws, frame.pieces_drawn);
    }
    let drawn = frame
        .image
        .pixels
        .chunks(4)
        .filter(|p| !is_sky([p[0], p[1], p[2], p[3]]))
        .count();
    assert!(drawn > 1000, "the pieces cover {drawn} pixels");
}

#[test]
fn a_region_emptied_frees_its_mesh() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let light = |_: [f32; 3]| 1.0;
    let materials = BlockMaterials::new(&mut gpu).unwrap();
    let mut blocks =
        BlocksRenderer::new(&mut gpu, &LIBRARY, OFFSCREEN_FORMAT, &materials, None).unwrap();
    let mut store = BlockStore::new();
    let ids = tower(&mut store);
    let far = store.add(metre_block(200, 0, 0, STONE)).unwrap();
    blocks.rebuild_all(&mut gpu, &store, &light).unwrap();
    assert_eq!(blocks.resident_regions(), 2);
    for id in ids {
        store.remove(id);
    }
    blocks
        .update(&mut gpu, &store, [region_of(0, 0, 0)], &light)
        .unwrap();
    assert_eq!(blocks.resident_regions(), 1);
    store.remove(far);
    blocks
        .update(&mut gpu, &store, [region_of(200, 0, 0)], &light)
        .unwrap();
    assert_eq!(blocks.resident_regions(), 0);
    gpu.device.wait_idle().unwrap();
    drop(blocks);
    assert_no_validation_errors(&gpu, before);
}
