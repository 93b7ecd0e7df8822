//! The terrain culled on the GPU ("terrain cull", one `vkCmdDrawIndexedIndirectCount`) against
//! the CPU's fallback (one draw per chunk): one draw call, the same picture, a conservative cull
//! that still culls, and chunk tables that follow the chunks' residency.

use crate::common;

use std::sync::Arc;

use blockfall::headless::OFFSCREEN_FORMAT;
use blockfall::shaders::LIBRARY;
use blockfall_engine::gpu::{FrameRing, Gpu, ImageAccess, OffscreenTarget, RgbaImage};
use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GridRegion, TerrainMeshes, TerrainMeshesDesc,
};
use blockfall_game::camera::Camera;
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order, ChunkCoord};
use blockfall_game::terrain::{EditStore, Generator, PADDED_SIZE};
use blockfall_game_render::frustum::Frustum;
use blockfall_game_render::target::RenderTarget;
use blockfall_game_render::terrain::{TerrainLook, TerrainRenderer};
use ultraviolet::Vec3;

use common::assert_no_validation_errors;

const WIDTH: u32 = 480;
const HEIGHT: u32 = 270;
/// Chunks around the spawn that are meshed.
const RADIUS: u32 = 2;
/// Pixels the two paths may draw differently: only surfaces at exactly the same depth, drawn
/// in another order, can differ.
const MAX_DIFFERENT_PIXELS: usize = 12;

/// The spawn's chunks meshed, and what draws them.
struct Scene {
    generator: Arc<Generator>,
    edits: EditStore,
    frames: FrameRing,
    meshes: TerrainMeshes,
    target: OffscreenTarget,
    renderer: TerrainRenderer,
}

/// What a frame drew.
struct Drawn {
    image: RgbaImage,
    draws: u32,
    chunks: u32,
    triangles: u64,
}

impl Scene {
    fn new(gpu: &mut Gpu) -> Scene {
        let device = gpu.device.clone();
        let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
        let edits = EditStore::new(generator.clone());
        let frames = FrameRing::new(&device).unwrap();
        let meshes = TerrainMeshes::new(
            &device,
            &TerrainMeshesDesc {
                vertex_arena_bytes: 16 << 20,
                index_arena_bytes: 16 << 20,
                max_chunks: 256,
                ..TerrainMeshesDesc::default()
            },
        )
        .unwrap();
        let ground =
            generator.surface_height(generator.spawn_point()[0], generator.spawn_point()[2]);
        let renderer = TerrainRenderer::new(
            gpu,
            &LIBRARY,
            OFFSCREEN_FORMAT,
            TerrainLook::around(ground),
            None,
        )
        .unwrap();
        let target = OffscreenTarget::new(&device, WIDTH, HEIGHT, OFFSCREEN_FORMAT).unwrap();
        let mut scene = Scene {
            generator,
            edits,
            frames,
            meshes,
            target,
            renderer,
        };
        scene.mesh(false);
        scene
    }

    /// Meshes the chunks around the spawn, in load order or (`reversed`) the other way round,
    /// so that their draw slots differ.
    fn mesh(&mut self, reversed: bool) {
        let dims = [PADDED_SIZE; 3];
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        let mut samples = Vec::new();
        let mut coords: Vec<ChunkCoord> = load_order(self.generator.spawn_point(), RADIUS);
        if reversed {
            coords.reverse();
        }
        for coord in coords {
            fill_padded_grid(&self.edits, coord, &mut samples);
            if is_uniform(&samples) {
                continue;
            }
            let grid = DensityGrid::new(&samples, dims).unwrap();
            self.meshes
                .mesh_chunk(&mut self.frames, coord.key(), grid, region, 0.0, None)
                .unwrap();
        }
        assert!(self.meshes.resident_chunks() > 0);
    }

    fn spawn_view(&self) -> Camera {
        Camera::at_spawn(&self.generator, WIDTH, HEIGHT)
    }

    /// Draws one frame of `view`, culling on the GPU or not, and reads it back.
    fn draw(&mut self, gpu: &Gpu, view: &Camera, gpu_culling: bool) -> Drawn {
        let device = gpu.device.clone();
        assert_eq!(self.renderer.set_gpu_culling(gpu_culling), gpu_culling);
        let command_buffer = self.frames.begin().unwrap();
        self.renderer
            .record(
                &mut self.frames,
                RenderTarget {
                    image: self.target.color.raw,
                    view: self.target.color.view,
                    width: WIDTH,
                    height: HEIGHT,
                },
                &mut self.meshes,
                view,
                None,
            )
            .unwrap();
        self.frames.begin_pass("readback");
        self.target
            .record_readback(&device, command_buffer, ImageAccess::ColorAttachment);
        self.frames.end_pass();
        self.frames.submit(&[], &[]).unwrap();
        self.frames.wait_all().unwrap();
        if gpu_culling {
            assert!(self.renderer.refresh_counts().is_some());
        }
        Drawn {
            image: self.target.pixels().unwrap(),
            draws: self.renderer.draws_last_frame(),
            chunks: self.renderer.chunks_drawn(),
            triangles: self.renderer.triangles_last_frame(),
        }
    }

    /// How many resident chunks the CPU's rule says `view` may see.
    fn seen_by_the_cpu(&self, view: &Camera) -> u32 {
        let frustum = Frustum::of(view);
        self.meshes
            .chunks()
            .filter(|(key, _)| {
                let (low, high) = ChunkCoord::from_key(*key).unwrap().vertex_box();
                frustum.may_see_box(Vec3::from(low), Vec3::from(high))
            })
            .count() as u32
    }
}

/// The GPU's culling where the device has it; `None` (and a note) where not.
fn scene(gpu: &mut Gpu) -> Option<Scene> {
    let scene = Scene::new(gpu);
    if !scene.renderer.gpu_culling_supported() {
        assert!(
            !gpu.device.adapter.draw_indirect_count
                || !gpu.device.adapter.multi_draw_indirect
                || !gpu.device.adapter.draw_indirect_first_instance
        );
        eprintln!("no drawIndirectCount on this device: only the fallback draws the terrain");
        return None;
    }
    Some(scene)
}

fn different_pixels(a: &RgbaImage, b: &RgbaImage) -> usize {
    assert_eq!((a.width, a.height), (b.width, b.height));
    a.pixels
        .chunks(4)
        .zip(b.pixels.chunks(4))
        .filter(|(p, q)| p != q)
        .count()
}

fn terrain_pixels(image: &RgbaImage) -> usize {
    let sky = blockfall_game_render::terrain::sky_colour();
    image
        .pixels
        .chunks(4)
        .filter(|p| (0..3).any(|c| p[c].abs_diff(sky[c]) > 2))
        .count()
}

#[test]
fn gpu_culling_is_one_draw_call_and_draws_the_fallbacks_picture() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let Some(mut scene) = scene(&mut gpu) else {
        return;
    };
    let resident = scene.meshes.resident_chunks() as u32;
    // The spawn view, and the same place turned: chunks straddle the edges of each.
    let eye = scene.spawn_view().eye;
    let views = [
        scene.spawn_view(),
        Camera::looking(eye, Vec3::new(1.0, -0.3, 0.4).normalized(), WIDTH, HEIGHT),
        Camera::looking(eye, Vec3::new(-0.6, -0.5, -1.0).normalized(), WIDTH, HEIGHT),
    ];
    for (index, view) in views.iter().enumerate() {
        let gpu_drawn = scene.draw(&gpu, view, true);
        let cpu_drawn = scene.draw(&gpu, view, false);
        let cpu_seen = scene.seen_by_the_cpu(view);
        eprintln!(
            "view {index}: GPU {} draw(s), {} chunks, {} triangles; CPU {} draws, {} chunks, \
             {} triangles; {resident} resident",
            gpu_drawn.draws,
            gpu_drawn.chunks,
            gpu_drawn.triangles,
            cpu_drawn.draws,
            cpu_drawn.chunks,
            cpu_drawn.triangles
        );
        assert_eq!(gpu_drawn.draws, 1, "view {index}: one draw call");
        assert_eq!(cpu_drawn.draws, cpu_drawn.chunks, "view {index}");
        assert_eq!(cpu_drawn.chunks, cpu_seen, "view {index}");
        // The same rule: the same chunks (the GPU's margin is half a millimetre).
        assert_eq!(gpu_drawn.chunks, cpu_drawn.chunks, "view {index}");
        assert_eq!(gpu_drawn.triangles, cpu_drawn.triangles, "view {index}");
        assert!(terrain_pixels(&gpu_drawn.image) > 1000, "view {index}");
        let different = different_pixels(&gpu_drawn.image, &cpu_drawn.image);
        assert!(
            different <= MAX_DIFFERENT_PIXELS,
            "view {index}: {different} pixels differ between the GPU's cull and the CPU's"
        );
    }
    drop(scene);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn the_gpu_cull_is_conservative_and_culls() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let Some(mut scene) = scene(&mut gpu) else {
        return;
    };
    let resident = scene.meshes.resident_chunks() as u32;
    let eye = scene.spawn_view().eye;
    // Up at the sky: nearly everything culled.
    let sky = Camera::looking(eye, Vec3::new(0.05, 1.0, 0.02).normalized(), WIDTH, HEIGHT);
    let up = scene.draw(&gpu, &sky, true);
    assert!(
        up.chunks < resident / 2,
        "{} of {resident} drawn looking up",
        up.chunks
    );
    assert_eq!(up.chunks, scene.seen_by_the_cpu(&sky));
    // A narrow view whose edges cut through chunks: every chunk partly in view is drawn, the
    // same as the CPU's rule (which the unit tests check on boxes straddling each plane).
    let narrow = Camera::looking_within(
        eye,
        Vec3::new(0.2, -0.4, -1.0).normalized(),
        WIDTH,
        HEIGHT,
        RADIUS,
        20.0,
    );
    let gpu_drawn = scene.draw(&gpu, &narrow, true);
    let cpu_drawn = scene.draw(&gpu, &narrow, false);
    eprintln!(
        "looking up: {} of {resident}; narrow view: GPU {}, CPU {}",
        up.chunks, gpu_drawn.chunks, cpu_drawn.chunks
    );
    assert!(gpu_drawn.chunks >= cpu_drawn.chunks, "conservative");
    assert!(gpu_drawn.chunks < resident, "the narrow view culls");
    assert!(different_pixels(&gpu_drawn.image, &cpu_drawn.image) <= MAX_DIFFERENT_PIXELS);
    drop(scene);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn chunk_tables_follow_the_chunks_to_new_slots() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let Some(mut scene) = scene(&mut gpu) else {
        return;
    };
    let view = scene.spawn_view();
    let first = scene.draw(&gpu, &view, true);
    // Both frame slots' tables written.
    scene.draw(&gpu, &view, true);
    // Every chunk unloaded and meshed again the other way round: the same chunks in other
    // slots, which the tables learn from the meshes' journal.
    let slots_before: Vec<_> = scene.meshes.chunks().map(|(k, c)| (k, c.slot)).collect();
    scene.meshes.unload_all();
    scene.mesh(true);
    let moved = slots_before
        .iter()
        .filter(|(key, slot)| scene.meshes.chunk(*key).is_some_and(|c| c.slot != *slot))
        .count();
    assert!(moved > 0, "the chunks took other slots");
    for round in 0..2 {
        let again = scene.draw(&gpu, &view, true);
        let different = different_pixels(&first.image, &again.image);
        assert!(
            different <= MAX_DIFFERENT_PIXELS,
            "round {round}: {different} pixels differ after the chunks moved"
        );
        assert_eq!(again.chunks, first.chunks);
    }
    let fallback = scene.draw(&gpu, &view, false);
    assert!(different_pixels(&first.image, &fallback.image) <= MAX_DIFFERENT_PIXELS);
    drop(scene);
    assert_no_validation_errors(&gpu, before);
}
