//! The test scene rendered offscreen on the GPU, checked pixel by pixel against what the CPU
//! says the scene must look like.

use crate::common;

use blockfall_engine::gpu::RgbaImage;
use blockfall_game::blocks::materials::MATERIALS;
use blockfall_game_render::test_scene::TestScene;
use blockfall_game_render::textures::TextureStyle;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 360;

fn render(style: TextureStyle, frames: u32) -> Option<(RgbaImage, u32)> {
    let mut gpu = common::gpu()?;
    let rendered = common::render_scene(&mut gpu, style, frames, WIDTH, HEIGHT);
    Some((rendered.image, rendered.draws))
}

fn expected_faces(scene: &TestScene) -> Vec<((u32, u32), [u8; 3], u32)> {
    common::expected_faces(scene, WIDTH, HEIGHT)
}

#[test]
fn offscreen_render_shows_sky_and_lit_cubes() {
    let Some((image, _)) = render(TextureStyle::Solid, 3) else {
        return;
    };
    assert_eq!((image.width, image.height), (WIDTH, HEIGHT));
    let sky = TestScene::sky_colour();
    for x in (0..WIDTH).step_by(7) {
        common::assert_colour_near(
            image.pixel(x, 0).unwrap(),
            sky,
            1,
            &format!("sky at ({x}, 0)"),
        );
    }
    let scene = TestScene::at(0.0, WIDTH, HEIGHT);
    for ((x, y), colour, _) in expected_faces(&scene) {
        common::assert_colour_near(
            image.pixel(x, y).unwrap(),
            colour,
            1,
            &format!("cube face at ({x}, {y})"),
        );
    }
    // The slab's top, in front of the cubes near the bottom of the image.
    let slab = &scene.cubes[0];
    let front = slab.centre + ultraviolet::Vec3::new(0.0, slab.size.y / 2.0, slab.size.z * 0.25);
    let (x, y) = scene.project(front, WIDTH, HEIGHT).unwrap();
    let colour = scene.lit_colour(
        MATERIALS[slab.material()].colour,
        ultraviolet::Vec3::unit_y(),
    );
    common::assert_colour_near(
        image.pixel(x as u32, y as u32).unwrap(),
        colour,
        1,
        "slab top",
    );
}

#[test]
fn bindless_draw_reads_both_texture_arrays() {
    let Some((image, draws)) = render(TextureStyle::Solid, 1) else {
        return;
    };
    // Every cube, from either array, came from one instanced draw: the index into the bindless
    // table differs within the draw.
    assert_eq!(draws, 1);
    let scene = TestScene::at(0.0, WIDTH, HEIGHT);
    let faces = expected_faces(&scene);
    for array in [0, 1] {
        let of_array: Vec<_> = faces.iter().filter(|f| f.2 == array).collect();
        assert!(!of_array.is_empty(), "the scene has cubes of array {array}");
        for ((x, y), colour, _) in of_array {
            common::assert_colour_near(
                image.pixel(*x, *y).unwrap(),
                *colour,
                1,
                &format!("array {array} cube at ({x}, {y})"),
            );
        }
    }
    // The two arrays' colours are far apart, so a wrong array would have shown.
    let planks = MATERIALS[2].colour;
    let bricks = MATERIALS[1].colour;
    assert!(planks.iter().zip(bricks).any(|(a, b)| a.abs_diff(b) > 40));
}

#[test]
fn patterned_textures_vary_across_a_face_but_keep_its_colour() {
    let Some((image, _)) = render(TextureStyle::Patterned, 1) else {
        return;
    };
    let scene = TestScene::at(0.0, WIDTH, HEIGHT);
    let sky = TestScene::sky_colour();
    for ((x, y), colour, _) in expected_faces(&scene) {
        // Around the face's middle: not sky, not one flat colour, and near the material's hue.
        let samples: Vec<[u8; 4]> = (-3i32..=3)
            .flat_map(|dy| (-3i32..=3).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| {
                image
                    .pixel((x as i32 + dx * 2) as u32, (y as i32 + dy * 2) as u32)
                    .unwrap()
            })
            .collect();
        assert!(
            samples.iter().any(|p| p[..3] != samples[0][..3]),
            "flat face at ({x}, {y})"
        );
        let mean: Vec<f32> = (0..3)
            .map(|c| samples.iter().map(|p| p[c] as f32).sum::<f32>() / samples.len() as f32)
            .collect();
        for c in 0..3 {
            assert!(
                (mean[c] - colour[c] as f32).abs() < 60.0,
                "face at ({x}, {y}): mean {mean:?} far from {colour:?}"
            );
        }
        assert_ne!(&samples[0][..3], &sky[..]);
    }
}
