//! What the application's GPU tests share: the harness of `blockfall-test-support` (one
//! validated GPU per test process, handed out one test at a time; a test FAILS without a Vulkan
//! device unless `BLOCKFALL_SKIP_GPU=1`), its mesh comparison, helpers of the render tests, and
//! those of the tests that run the `blockfall` binary on a script (`gpu_script`, `gpu_shadows`):
//! the headless command, its scratch folder, and the screenshots it writes.

pub use blockfall_test_support::gpu::{assert_no_validation_errors, gpu, gpu_vulkan_1_2, skip_gpu};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use blockfall_game::camera::Camera;
use ultraviolet::Vec3;

use blockfall::headless::HeadlessRenderer;
use blockfall::shaders::LIBRARY;
use blockfall::shown::Shown;
use blockfall_engine::gpu::descriptors::BufferSetLayout;
use blockfall_engine::gpu::{
    debug::label_colour, memory_barrier, vk, Buffer, BufferAccess, BufferDesc, FrameRing,
    MemoryLocation, Pipeline, PipelineLayout,
};
use blockfall_engine::gpu::{Gpu, RgbaImage};
use blockfall_game::blocks::materials::MATERIALS;
use blockfall_game_render::test_scene::TestScene;
use blockfall_game_render::textures::TextureStyle;

/// Asserts two colours are equal within `tolerance` per channel.
pub fn assert_colour_near(actual: [u8; 4], expected: [u8; 3], tolerance: u8, what: &str) {
    for c in 0..3 {
        let difference = (actual[c] as i16 - expected[c] as i16).unsigned_abs();
        assert!(
            difference <= tolerance as u16,
            "{what}: got {:?}, expected {:?} (±{tolerance})",
            &actual[..3],
            expected
        );
    }
}

/// The compute shader's hash (lowbias32), on the CPU.
pub fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct FillPush {
    count: u32,
    divisor: u32,
}

/// Runs `fill_count.comp` over `count` values; returns the values and the atomic count. Checks
/// that the pass was timed and that validation stayed silent.
pub fn fill_count(gpu: &Gpu, count: u32, divisor: u32) -> (Vec<u32>, u32) {
    let before = gpu.validation_errors();
    let device = gpu.device.clone();

    let set_layout = BufferSetLayout::new(
        &device,
        "fill_count",
        &[
            vk::DescriptorType::STORAGE_BUFFER,
            vk::DescriptorType::STORAGE_BUFFER,
        ],
        vk::ShaderStageFlags::COMPUTE,
        1,
    )
    .unwrap();
    let layout = PipelineLayout::new(
        &device,
        "fill_count",
        &[set_layout.raw],
        std::mem::size_of::<FillPush>() as u32,
        vk::ShaderStageFlags::COMPUTE,
    )
    .unwrap();
    let pipeline = Pipeline::compute(
        &device,
        &layout,
        "fill_count",
        &LIBRARY
            .get("fill_count.comp", device.shader_target())
            .unwrap(),
    )
    .unwrap();
    let values = Buffer::new(
        &device,
        &BufferDesc {
            name: "fill_count: values",
            size: count as u64 * 4,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::GpuToCpu,
        },
    )
    .unwrap();
    let mut counter = Buffer::new(
        &device,
        &BufferDesc {
            name: "fill_count: counter",
            size: 4,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::GpuToCpu,
        },
    )
    .unwrap();
    counter.write(0, &[0u32]).unwrap();
    let set = set_layout
        .allocate("fill_count: buffers", &[&values, &counter])
        .unwrap();

    let mut frames = FrameRing::new(&device).unwrap();
    let command_buffer = frames.begin().unwrap();
    frames.begin_pass_coloured("fill_count", label_colour::COMPUTE);
    pipeline.bind(command_buffer);
    // SAFETY: recording; the set and layout are alive until the frame finishes (waited below).
    unsafe {
        device.raw.cmd_bind_descriptor_sets(
            command_buffer,
            vk::PipelineBindPoint::COMPUTE,
            layout.raw,
            0,
            &[set],
            &[],
        );
    }
    layout.push(command_buffer, &FillPush { count, divisor });
    // SAFETY: recording with a compute pipeline bound.
    unsafe {
        device
            .raw
            .cmd_dispatch(command_buffer, count.div_ceil(64), 1, 1)
    };
    memory_barrier(
        &device,
        command_buffer,
        &[BufferAccess::ComputeWrite],
        &[BufferAccess::HostRead],
    );
    frames.end_pass();
    frames.submit(&[], &[]).unwrap();
    frames.wait_all().unwrap();

    let timings = frames.last_timings();
    if device.adapter.timestamps {
        assert_eq!(timings.len(), 1, "one timed pass: {timings:?}");
        assert_eq!(timings[0].name, "fill_count");
        assert!(timings[0].milliseconds >= 0.0);
    }
    let result = (
        values.read::<u32>().unwrap(),
        counter.read::<u32>().unwrap()[0],
    );
    assert_no_validation_errors(gpu, before);
    result
}

/// What a headless render of the test scene gave.
pub struct Rendered {
    pub image: RgbaImage,
    pub draws: u32,
}

/// Renders `frames` frames of the test scene at time 0; checks every pass was timed and that
/// validation stayed silent.
pub fn render_scene(
    gpu: &mut Gpu,
    style: TextureStyle,
    frames: u32,
    width: u32,
    height: u32,
) -> Rendered {
    let before = gpu.validation_errors();
    let mut renderer = HeadlessRenderer::new(gpu, width, height, style).unwrap();
    for frame in 0..frames {
        renderer.render(gpu, 0.0, 0.0, frame + 1 == frames).unwrap();
    }
    let image = renderer.pixels().unwrap();
    let Shown::Test(scene) = &renderer.shown else {
        unreachable!("HeadlessRenderer::new shows the test scene")
    };
    let draws = scene.draws_last_frame();
    let timings: Vec<String> = renderer
        .frames
        .last_timings()
        .iter()
        .map(|t| t.name.clone())
        .collect();
    if gpu.device.adapter.timestamps {
        assert_eq!(timings, ["scene", "readback"], "every pass is timed");
    }
    drop(renderer);
    assert_no_validation_errors(gpu, before);
    Rendered { image, draws }
}

/// For each cube but the slab: the pixel in the middle of its face that faces the camera, the
/// colour a solid material must show there, and the cube's texture array.
pub fn expected_faces(
    scene: &TestScene,
    width: u32,
    height: u32,
) -> Vec<((u32, u32), [u8; 3], u32)> {
    scene
        .cubes
        .iter()
        .skip(1) // the slab: its facing face's middle is hidden behind cubes
        .map(|cube| {
            let (centre, normal) = scene.facing_face(cube);
            let (x, y) = scene.project(centre, width, height).unwrap();
            let albedo = MATERIALS[cube.material()].colour;
            (
                (x as u32, y as u32),
                scene.lit_colour(albedo, normal),
                cube.array,
            )
        })
        .collect()
}

/// Checks the sky row and every cube face of a solid-textured render.
pub fn assert_scene_pixels(image: &RgbaImage) {
    let (width, height) = (image.width, image.height);
    let sky = TestScene::sky_colour();
    for x in (0..width).step_by(7) {
        assert_colour_near(
            image.pixel(x, 0).unwrap(),
            sky,
            1,
            &format!("sky at ({x}, 0)"),
        );
    }
    let scene = TestScene::at(0.0, width, height);
    for ((x, y), colour, _) in expected_faces(&scene, width, height) {
        assert_colour_near(
            image.pixel(x, y).unwrap(),
            colour,
            1,
            &format!("cube face at ({x}, {y})"),
        );
    }
}

/// A fresh folder for one test's files, under the system's temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockfall-script-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A process's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The headless, validated, small run of `script` the script tests make (two chunks around the
/// player, a `width`×`height` picture), with the flags in `extra` after the others.
pub fn headless_script(script: &Path, width: u32, height: u32, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_blockfall"));
    command.args([
        "--headless",
        "--validation",
        "--view-radius",
        "2",
        "--width",
        &width.to_string(),
        "--height",
        &height.to_string(),
        "--script",
        script.to_str().unwrap(),
    ]);
    command.args(extra);
    command
}

/// [`headless_script`] run to its end.
pub fn run_script(script: &Path, width: u32, height: u32, extra: &[&str]) -> Output {
    headless_script(script, width, height, extra)
        .output()
        .expect("the blockfall binary runs")
}

/// A screenshot (RGBA, 8 bits, sRGB) read back from its PNG.
pub struct Png {
    pub width: u32,
    pub height: u32,
    pub bytes: Vec<u8>,
}

impl Png {
    /// Each pixel's largest difference in a colour channel from `other`, of the same size.
    pub fn channel_differences(&self, other: &Png) -> Vec<u8> {
        assert_eq!((self.width, self.height), (other.width, other.height));
        self.bytes
            .chunks_exact(4)
            .zip(other.bytes.chunks_exact(4))
            .map(|(a, b)| (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0))
            .collect()
    }

    /// Reads the PNG at `path`, which must be `width`×`height`.
    pub fn read(path: &Path, (width, height): (u32, u32)) -> Png {
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut bytes = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut bytes).unwrap();
        assert_eq!(
            (info.width, info.height),
            (width, height),
            "{}",
            path.display()
        );
        assert_eq!(info.color_type.samples(), 4, "{}: RGBA", path.display());
        Png {
            width,
            height,
            bytes,
        }
    }

    /// The pixel at column `x`, row `y` (from the top).
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.bytes[i], self.bytes[i + 1], self.bytes[i + 2]]
    }

    /// The pixel where a world point lands in `view`.
    pub fn at(&self, view: &Camera, point: [f32; 3]) -> [u8; 3] {
        let (x, y) = view
            .project(Vec3::from(point), self.width, self.height)
            .expect("in front of the eye");
        self.pixel(x as u32, y as u32)
    }
}

/// The mesh of a resident chunk in a read-back of the terrain arenas: its vertices' bits (six
/// floats each) and its indices, as the draw slot's command reads them.
pub fn resident_mesh(
    readback: &blockfall_engine::meshing::terrain_meshes::TerrainReadback,
    chunk: blockfall_engine::meshing::terrain_meshes::ResidentChunk,
) -> (Vec<u32>, Vec<u32>) {
    let draw = readback.draws[chunk.slot as usize];
    let first = chunk.vertices.offset as usize * 6;
    let vertices = readback.vertices[first..first + chunk.vertices.size as usize * 6]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let indices = readback.indices
        [draw.first_index as usize..(draw.first_index + draw.index_count) as usize]
        .to_vec();
    (vertices, indices)
}

/// Asserts that the arenas hold, for loaded chunk `coord`, the CPU mesher's mesh of its padded
/// grid as the world's edits now give it, with the skirt the game meshes it with, in its order
/// and to the bit on an IEEE device (`meshes::assert_same`), or no mesh, where the CPU finds no
/// surface. `readback` is the arenas read back after the meshing.
pub fn assert_chunk_meshed_as_the_cpu(
    world: &mut blockfall::playing::Playing,
    readback: &blockfall_engine::meshing::terrain_meshes::TerrainReadback,
    coord: blockfall_game::terrain::ChunkCoord,
) {
    use blockfall_engine::meshing::{DensityGrid, GridRegion, SurfaceMesh, SurfaceNets};
    use blockfall_game::terrain::PADDED_SIZE;
    let dims = [PADDED_SIZE; 3];
    let mut samples = Vec::new();
    blockfall_game::terrain::chunks::fill_padded_grid(world.world.edits(), coord, &mut samples);
    let mut cpu = SurfaceMesh::new();
    SurfaceNets::new()
        .mesh_with_skirt(
            DensityGrid::new(&samples, dims).unwrap(),
            GridRegion::owned_edges_of_padded_grid(dims),
            blockfall_game_render::chunk_meshes::skirt(coord),
            &mut cpu,
        )
        .unwrap();
    let key = coord.key();
    match world.renderer.meshes_mut().chunk(key) {
        None => assert!(cpu.indices.is_empty(), "{key:?} lost its surface"),
        Some(chunk) => {
            let (vertices, indices) = resident_mesh(readback, chunk);
            let float = |at: usize| f32::from_bits(vertices[at]);
            let vertex_count = vertices.len() / 6;
            let gpu = SurfaceMesh {
                positions: (0..vertex_count)
                    .map(|v| [float(6 * v), float(6 * v + 1), float(6 * v + 2)])
                    .collect(),
                normals: (0..vertex_count)
                    .map(|v| [float(6 * v + 3), float(6 * v + 4), float(6 * v + 5)])
                    .collect(),
                indices,
            };
            blockfall_test_support::meshes::assert_same(&cpu, &gpu, &format!("{key:?}"));
        }
    }
}
