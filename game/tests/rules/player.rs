//! The player on the terrain, held to the measurements of docs/player.md at 60 frames per
//! second: walking, jumping, standing on a slope, falling into a pit dug under the feet.

use std::sync::atomic::{AtomicBool, Ordering};

use blockfall_game::player::{Controls, Player};
use blockfall_game::solids::TerrainSolid;
use blockfall_game::terrain::{Field, SampleBox};

const FRAME: f32 = 1.0 / 60.0;

fn flat_ground(height: f32) -> Field<impl Fn(i32, i32, i32) -> f32 + Sync> {
    Field::new(move |_x: i32, y: i32, _z: i32| height - y as f32)
}

/// Lets a player dropped just above the ground come to rest.
fn settle(player: &mut Player, solid: &TerrainSolid<'_, impl blockfall_game::terrain::Samples>) {
    for _ in 0..60 {
        player.update(FRAME, &Controls::default(), 0.0, 0.0, solid);
    }
    assert!(player.grounded, "the player landed");
}

#[test]
fn walking_two_seconds_from_standstill_covers_nine_point_seven_meters() {
    let field = flat_ground(0.0);
    let solid = TerrainSolid { field: &field };
    let mut player = Player::new([0.0, 0.5, 0.0]);
    settle(&mut player, &solid);
    let start = player.position;
    let walk = Controls {
        forward: true,
        ..Controls::default()
    };
    for _ in 0..120 {
        player.update(FRAME, &walk, 0.0, 0.0, &solid);
    }
    let moved = player.position - start;
    let distance = (moved.x * moved.x + moved.z * moved.z).sqrt();
    assert!((distance - 9.7).abs() <= 0.1, "walked {distance} m");
    assert!(
        moved.z > 9.0 && moved.x.abs() < 1e-4,
        "yaw 0 walks along +z: {moved:?}"
    );
    assert!(player.grounded);
}

#[test]
fn a_jump_rises_one_point_one_seven_meters() {
    let field = flat_ground(0.0);
    let solid = TerrainSolid { field: &field };
    let mut player = Player::new([0.0, 0.5, 0.0]);
    settle(&mut player, &solid);
    let ground = player.position.y;
    let jump = Controls {
        jump: true,
        ..Controls::default()
    };
    player.update(FRAME, &jump, 0.0, 0.0, &solid);
    let mut highest = player.position.y;
    for _ in 0..90 {
        player.update(FRAME, &Controls::default(), 0.0, 0.0, &solid);
        highest = highest.max(player.position.y);
    }
    let rise = highest - ground;
    assert!((rise - 1.17).abs() <= 0.02, "rose {rise} m");
    assert!(player.grounded, "landed again");
    assert!((player.position.y - ground).abs() < 1e-3);
}

#[test]
fn standing_five_seconds_on_a_36_degree_slope_moves_less_than_a_millimeter() {
    let slope = 36f32.to_radians().tan();
    let field = Field::new(move |x: i32, y: i32, _z: i32| slope * x as f32 - y as f32);
    let solid = TerrainSolid { field: &field };
    let mut player = Player::new([3.3, slope * 3.3 + 0.3, 1.7]);
    settle(&mut player, &solid);
    let start = player.position;
    for _ in 0..300 {
        player.update(FRAME, &Controls::default(), 0.0, 0.0, &solid);
    }
    let moved = (player.position - start).mag();
    assert!(moved < 1e-3, "slid {moved} m");
    assert!(player.grounded);
}

#[test]
fn a_pit_dug_under_the_feet_drops_the_player_to_its_floor() {
    // Flat ground at 0; once dug, a pit 4 m deep and 3 m around under the feet.
    let dug = AtomicBool::new(false);
    let field = Field::new(|x: i32, y: i32, z: i32| {
        let in_pit = dug.load(Ordering::SeqCst) && x.abs() <= 3 && z.abs() <= 3;
        let floor = if in_pit { -4.0 } else { 0.0 };
        floor - y as f32
    });
    let solid = TerrainSolid { field: &field };
    let mut player = Player::new([0.2, 0.5, -0.3]);
    settle(&mut player, &solid);
    dug.store(true, Ordering::SeqCst);
    field.forget(&SampleBox {
        low: [-3, -5, -3],
        high: [3, 1, 3],
    });
    let mut fell = false;
    for _ in 0..180 {
        player.update(FRAME, &Controls::default(), 0.0, 0.0, &solid);
        fell |= !player.grounded;
    }
    assert!(fell, "the ground went away");
    assert!(player.grounded, "landed on the pit's floor");
    assert!(
        (player.position.y + 4.0).abs() < 0.05,
        "feet at {}",
        player.position.y
    );
}

#[test]
fn walls_stop_the_player_and_it_slides_along_them() {
    // Ground at 0 and a wall from x = 2 on.
    let field = Field::new(|x: i32, y: i32, _z: i32| {
        let ground = -(y as f32);
        let wall = x as f32 - 2.0;
        ground.max(wall)
    });
    let solid = TerrainSolid { field: &field };
    let mut player = Player::new([0.0, 0.5, 0.0]);
    settle(&mut player, &solid);
    // Facing +x at yaw 90°, walking forward and to the right, which is +z (x × y = z).
    let controls = Controls {
        forward: true,
        right: true,
        ..Controls::default()
    };
    for _ in 0..120 {
        player.update(FRAME, &controls, 90f32.to_radians(), 0.0, &solid);
    }
    assert!(
        player.position.x < 2.0 - 0.39,
        "stopped by the wall at {}",
        player.position.x
    );
    assert!(
        player.position.z > 2.0,
        "slid along it: {}",
        player.position.z
    );
}

#[test]
fn flying_goes_where_the_camera_looks_and_landing_falls() {
    let field = flat_ground(0.0);
    let solid = TerrainSolid { field: &field };
    let mut player = Player::new([0.0, 0.5, 0.0]);
    settle(&mut player, &solid);
    player.toggle_fly();
    let up = Controls {
        up: true,
        ..Controls::default()
    };
    for _ in 0..60 {
        player.update(FRAME, &up, 0.0, 0.0, &solid);
    }
    assert!((player.position.y - 15.0).abs() < 0.1, "E flies up 15 m/s");
    player.toggle_fly();
    for _ in 0..180 {
        player.update(FRAME, &Controls::default(), 0.0, 0.0, &solid);
    }
    assert!(player.grounded && player.position.y.abs() < 0.05);
}

#[test]
fn bad_frames_change_nothing() {
    let field = flat_ground(0.0);
    let solid = TerrainSolid { field: &field };
    let mut player = Player::new([0.0, 3.0, 0.0]);
    let before = player.clone();
    for dt in [f32::NAN, -1.0, 0.0, f32::INFINITY] {
        player.update(dt, &Controls::default(), 0.0, 0.0, &solid);
    }
    player.update(FRAME, &Controls::default(), f32::NAN, 0.0, &solid);
    assert_eq!(player, before);
}
