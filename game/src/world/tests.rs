use super::*;
use crate::blocks::materials::{COPPER, PLANKS, STONE};
use crate::input::{Button, ToolButton};
use crate::player::Controls;
use crate::terrain::PlaneGround;

fn generated() -> World {
    World::new(Generator::DEFAULT_SEED).unwrap()
}

/// Flat ground at y = 0, the player standing at the origin looking along +z and `pitch`
/// degrees down.
fn flat(pitch_degrees: f32) -> World {
    let pool = WorkerPool::new(1).unwrap();
    let mut world = World::on(Arc::new(PlaneGround::flat(0.0)), 2, pool);
    world.place_player([0.0, 0.0, 0.0], false, 0.0, pitch_degrees.to_radians());
    world.survey();
    world.update_aim();
    world
}

fn stone(x: i32, y: i32, z: i32) -> Block {
    Block::new(x, y, z, 2, STONE as u8, 0, false).unwrap()
}

#[test]
fn the_first_view_looks_north_and_down_from_the_spawn_onto_the_showcase() {
    let mut world = generated();
    let direction = world.look_direction();
    assert!(direction.z < -0.9, "north is −z: {direction:?}");
    assert!(direction.y < 0.0);
    let spawn = Generator::new(Generator::DEFAULT_SEED).spawn_point();
    assert!((world.eye().y - spawn[1] - EYES).abs() < 1e-5);
    assert!(world.blocks().count() > 20, "the showcase stands");
    // Its blocks lie ahead, within the block tool's reach.
    let ahead = world
        .blocks()
        .iter()
        .filter(|(_, block)| {
            let middle = block.low().map(|c| c as f32 * 0.5 + 0.5);
            let to = Vec3::from(middle) - world.eye();
            to.normalized().dot(direction) > 0.7 && to.mag() < BLOCK_REACH
        })
        .count();
    assert!(ahead > 5, "{ahead} blocks in view");
    assert!(!world.take_changed_regions().is_empty());
    assert!(world.take_changed_regions().is_empty(), "taken");
}

#[test]
fn the_terrain_tool_digs_where_the_view_meets_the_ground_and_building_puts_it_back() {
    let mut world = generated();
    world.command(Command::SwitchTool);
    world.set_look(world.yaw(), (-60f32).to_radians());
    let aim = world.ground_aim().expect("the ground ahead");
    let before = world.field().probe(aim[0], aim[1] - 0.5, aim[2]).density;
    assert!(before > 0.0);
    let (changed, _) = world.use_tool(ToolButton::Primary);
    let changed = changed.expect("samples change");
    assert!(changed.contains(aim.map(|c| c.round() as i32)));
    let after = world.field().probe(aim[0], aim[1] - 0.5, aim[2]).density;
    assert!(after < before, "{after} < {before}");
    let deeper = world.ground_aim().unwrap();
    assert!(deeper[1] < aim[1] - 0.5, "{deeper:?} below {aim:?}");
    world.edit_at(false, aim, TOOL_RADIUS).unwrap();
    assert_eq!(
        world.field().probe(aim[0], aim[1] - 0.5, aim[2]).density,
        before
    );
}

#[test]
fn a_held_tool_repeats_and_a_mound_never_buries_the_player() {
    let mut world = generated();
    world.command(Command::SwitchTool);
    world.set_look(world.yaw(), (-60f32).to_radians());
    assert!(world
        .hold_tool(ToolButton::Primary, 0.016, true)
        .0
        .is_some());
    assert!(world
        .hold_tool(ToolButton::Primary, 0.016, false)
        .0
        .is_none());
    assert!(world
        .hold_tool(ToolButton::Primary, TOOL_REPEAT, false)
        .0
        .is_some());
    world.set_look(world.yaw(), -PITCH_LIMIT_DEGREES.to_radians());
    let tool = Tool {
        radius: 3.0,
        ..*world.tool()
    };
    assert!(world.choose_tool(tool));
    assert_eq!(world.use_tool(ToolButton::Secondary).0, None);
}

#[test]
fn bad_input_changes_nothing() {
    let mut world = generated();
    let (yaw, pitch) = (world.yaw(), world.pitch());
    world.turn(f32::NAN, 1.0);
    world.look(f32::INFINITY, 0.0);
    world.tool_wheel(f32::INFINITY);
    assert_eq!(
        (world.yaw(), world.pitch(), *world.tool()),
        (yaw, pitch, Tool::default())
    );
    world.turn(0.0, 10.0);
    assert!(world.pitch() <= PITCH_LIMIT_DEGREES.to_radians());
    world.command(Command::SwitchTool);
    world.tool_wheel(100.0);
    assert_eq!(world.tool().radius, TOOL_RADIUS_MAX);
    assert!(world.edit_at(true, [f32::NAN, 0.0, 0.0], 1.0).is_err());
    assert_eq!(
        ground_along(world.field(), world.eye(), Vec3::zero(), 10.0),
        None
    );
    world.command(Command::Material(99));
    assert_eq!(world.tool().material, 0);
    let (mut huge, tool) = (*world.tool(), *world.tool());
    huge.radius = f32::NAN;
    assert!(!world.choose_tool(huge));
    assert_eq!(*world.tool(), tool, "a tool out of range is refused");
    let (yaw, pitch) = (world.yaw(), world.pitch());
    world.set_look(f32::NAN, 0.0);
    assert_eq!((world.yaw(), world.pitch()), (yaw, pitch));
    world.set_look(-1.0, 2.0);
    assert_eq!(world.yaw(), std::f32::consts::TAU - 1.0);
    assert_eq!(world.pitch(), PITCH_LIMIT_DEGREES.to_radians());
}

#[test]
fn walking_forward_moves_north() {
    let mut world = generated();
    let start = world.player().position;
    let controls = Controls {
        forward: true,
        ..Controls::default()
    };
    for _ in 0..120 {
        world.step(1.0 / 60.0, &controls);
    }
    let moved = world.player().position - start;
    assert!(moved.z < -3.0, "{moved:?}");
    assert!(world.player().grounded);
}

#[test]
fn the_block_tool_places_on_the_ground_then_on_the_block_and_breaks_what_it_aims_at() {
    // Looking down at the ground 3 m ahead.
    let mut world = flat(-(EYES / 3.0).atan().to_degrees());
    let aim = world.aim().expect("the ground ahead").clone();
    assert_eq!(aim.target, AimTarget::Ground);
    assert_eq!(aim.side, 3, "on top");
    let ghost = aim.placement.unwrap();
    assert!(ghost.fits(), "{ghost:?}");
    assert_eq!(
        ghost.block.y, -1,
        "the block holds the met cell, in the ground by up to a cell"
    );
    let mut input = Input {
        captured: true,
        ..Input::default()
    };
    input.button(Button::MouseRight, true, false);
    world.frame(1.0 / 60.0, &mut input, &[]);
    assert_eq!(
        world.blocks().count(),
        1,
        "{:?} {:?}",
        world.aim(),
        world.player().position
    );
    assert!(world.take_changed_regions().contains(&[0, -1, 0]));
    // The view meets the block's front now; looking at its top, the next goes on it.
    assert!(matches!(
        world.aim().unwrap().target,
        AimTarget::Block { .. }
    ));
    assert_eq!(world.aim().unwrap().side, 4, "its −z side");
    world.look(0.0, -((EYES - 0.5) / 3.0).atan().to_degrees());
    world.update_aim();
    let aim = world.aim().unwrap().clone();
    assert!(matches!(aim.target, AimTarget::Block { .. }));
    let on_top = aim.placement.unwrap();
    assert_eq!(on_top.block.y, ghost.block.y + 2);
    assert_eq!(
        (on_top.block.x, on_top.block.z),
        (ghost.block.x, ghost.block.z)
    );
    input.button(Button::MouseRight, false, false);
    input.button(Button::MouseRight, true, false);
    world.frame(1.0 / 60.0, &mut input, &[]);
    assert_eq!(world.blocks().count(), 2);
    // Aiming at the lower one's front shows the upper one would fall; breaking it drops it.
    input.button(Button::MouseRight, false, false);
    world.look(0.0, -(EYES / 2.5).atan().to_degrees());
    world.update_aim();
    let aimed = world.aim().unwrap().clone();
    let AimTarget::Block { block, .. } = aimed.target else {
        panic!("aims at a block: {aimed:?}");
    };
    assert_eq!(block.y, ghost.block.y, "the lower block");
    assert_eq!(aimed.would_fall.len(), 1, "the upper block would fall");
    input.button(Button::MouseLeft, true, false);
    let report = world.frame(1.0 / 60.0, &mut input, &[]);
    assert_eq!(report.fell, 1);
    assert_eq!(world.blocks().count(), 0);
    assert_eq!(world.pieces().len(), 1, "the upper block falls as a piece");
}

#[test]
fn a_block_past_the_worlds_limits_is_not_placed_and_the_player_is_told_why() {
    use crate::limits::MOST_BLOCK_BRICKS;
    // Looking down at the ground 3 m ahead, with the world's blocks in as many bricks as they
    // may fill, all far behind the player.
    let mut world = flat(-(EYES / 3.0).atan().to_degrees());
    let mut store = crate::blocks::store::BlockStore::new();
    let side = (MOST_BLOCK_BRICKS as f64).sqrt().ceil() as i32;
    for i in 0..MOST_BLOCK_BRICKS as i32 {
        let block = Block::new(8 * (i % side), 0, -800 - 8 * (i / side), 1, 0, 0, false);
        store.add(block.unwrap()).unwrap();
    }
    world.replace_blocks(store);
    world.update_aim();
    assert!(world.aim().unwrap().placement.unwrap().fits());
    let mut input = Input {
        captured: true,
        ..Input::default()
    };
    input.button(Button::MouseRight, true, false);
    world.frame(1.0 / 60.0, &mut input, &[]);
    assert_eq!(world.blocks().count(), MOST_BLOCK_BRICKS, "nothing placed");
    let told = world.take_tool_refusal().expect("the refusal is told");
    assert!(
        told.starts_with("Not placed") && told.contains(&MOST_BLOCK_BRICKS.to_string()),
        "{told}"
    );
    assert_eq!(world.take_tool_refusal(), None, "told once");
    let refused = world.place(stone(0, 0, 6)).unwrap_err();
    assert_eq!(refused, PlaceRefusal::Full(BlockError::Spread));
    assert_eq!(refused.name(), "full");
}

#[test]
fn a_block_is_refused_where_it_would_reach_into_the_player_or_a_piece() {
    let mut world = flat(0.0);
    let at_feet = stone(0, 0, 0);
    assert_eq!(world.refuse_place(&at_feet), Some(PlaceRefusal::Player));
    world.toggle_fly();
    assert_eq!(world.refuse_place(&at_feet), None, "flying, anything goes");
    world.toggle_fly();
    // A piece falling through (5, 3, 5) meters: a block there is refused, moving or not.
    world.add_piece(vec![stone(10, 6, 10)]).unwrap();
    assert_eq!(
        world.refuse_place(&stone(10, 6, 10)),
        Some(PlaceRefusal::Occupied)
    );
    assert_eq!(
        world.refuse_place(&stone(11, 7, 10)),
        Some(PlaceRefusal::Occupied),
        "overlapping by half"
    );
    assert_eq!(world.refuse_place(&stone(14, 6, 10)), None);
    world.add_block(stone(20, 0, 20)).unwrap();
    assert_eq!(
        world.refuse_place(&stone(21, 1, 20)),
        Some(PlaceRefusal::Occupied)
    );
}

#[test]
fn the_would_fall_preview_counts_what_a_break_drops() {
    let mut world = flat(0.0);
    for y in 0..4 {
        world.add_block(stone(4, 2 * y - 1, 8)).unwrap();
    }
    world.survey();
    // The second block from the bottom holds the two above it.
    assert_eq!(world.would_fall_at([4, 1, 8]).len(), 2);
    let (removed, fell) = world.break_cell([4, 1, 8]);
    assert!(removed);
    assert_eq!(fell, 2);
    assert_eq!(world.pieces().len(), 1);
}

#[test]
fn blocks_put_in_place_of_the_standing_ones_are_surveyed_and_meshed() {
    let mut world = flat(0.0);
    world.add_block(stone(20, -1, 20)).unwrap();
    world.survey();
    world.take_changed_regions();
    let mut store = BlockStore::new();
    for y in 0..4 {
        store.add(stone(4, 2 * y - 1, 8)).unwrap();
    }
    let old = world.replace_blocks(store);
    assert_eq!(old.count(), 1, "the blocks that stood come back");
    assert_eq!(world.blocks().count(), 4);
    let regions = world.take_changed_regions();
    for block in [stone(20, -1, 20), stone(4, 5, 8)] {
        assert!(regions.contains(&region_of_block(&block)), "{block:?}");
    }
    // The support knows the new blocks: the second from the bottom holds the two above it.
    assert_eq!(world.would_fall_at([4, 1, 8]).len(), 2);
    assert_eq!(world.break_cell([4, 1, 8]), (true, 2));
    assert_eq!(world.pieces().len(), 1);
}

#[test]
fn wheel_digits_comma_and_period_pick_material_and_size() {
    let mut world = flat(0.0);
    world.tool_wheel(-1.0);
    assert_eq!(world.tool().material, 1);
    world.tool_wheel(2.0);
    assert_eq!(world.tool().material, 5, "wraps around");
    world.command(Command::Material(COPPER));
    assert_eq!(world.tool().material, COPPER);
    world.command(Command::BlockSize(-1));
    assert_eq!(world.tool().size, 1);
    world.command(Command::BlockSize(-1));
    assert_eq!(world.tool().size, 1, "0.5 m is the smallest");
    world.command(Command::BlockSize(1));
    world.command(Command::BlockSize(1));
    world.command(Command::BlockSize(1));
    assert_eq!(world.tool().size_meters(), 2.0);
    assert!(!world.command(Command::Screenshot), "left to the window");
}

#[test]
fn c_chisels_the_aimed_edge_and_shift_c_toggles_the_slope() {
    let mut world = flat(0.0);
    world.add_block(stone(-1, 2, 6)).unwrap();
    world.survey();
    // Eye at 1.65 m, looking at the block's −z face (z = 3 m) a little above its middle.
    world.look(0.0, 0.0);
    world.update_aim();
    let aim = world.aim().unwrap().clone();
    assert!(matches!(aim.target, AimTarget::Block { .. }), "{aim:?}");
    assert_eq!(aim.side, 4);
    assert!(world.command(Command::Chisel));
    let id = world.blocks().at(-1, 2, 6).unwrap();
    let block = *world.blocks().get(id).unwrap();
    assert_eq!(block.cuts.count_ones(), 1);
    world.command(Command::ToggleSlope);
    assert!(world.blocks().get(id).unwrap().slope);
    assert!(!world.take_changed_regions().is_empty());
}

#[test]
fn the_light_sampler_answers_as_light_at_without_lighting_a_chunk_per_point() {
    // Over flat ground the chunk above the surface keeps no light grid: each `light_at` there
    // lights the chunk anew; the sampler lights it once and answers the same.
    let world = flat(0.0);
    let sampler = world.light_sampler();
    for point in [
        [0.5, 0.75, 3.0],
        [1.25, 0.25, 4.5],
        [-3.0, 2.0, 8.0],
        [0.0, -2.0, 0.0],
    ] {
        assert_eq!(sampler.light_at(point), world.light_at(point), "{point:?}");
    }
    assert_eq!(sampler.light_at([f32::NAN, 0.0, 0.0]), 0.0);
}

#[test]
fn the_middle_button_picks_the_aimed_blocks_material_and_size() {
    let mut world = flat(0.0);
    // A 2 m copper block ahead, at eye height.
    world
        .add_block(Block::new(-2, 2, 6, 4, COPPER as u8, 0, false).unwrap())
        .unwrap();
    world.survey();
    world.update_aim();
    assert!(world.command(Command::PickBlock));
    assert_eq!(
        (world.tool().kind, world.tool().material, world.tool().size),
        (ToolKind::Blocks, COPPER, 4)
    );
    // With the terrain tool in hand: the block tool back, with the block's material and size.
    world.command(Command::Material(STONE));
    world.command(Command::BlockSize(-1));
    world.command(Command::SwitchTool);
    assert!(world.pick_block());
    assert_eq!(
        (world.tool().kind, world.tool().material, world.tool().size),
        (ToolKind::Blocks, COPPER, 4)
    );
    // The ground, or nothing, gives nothing.
    world.command(Command::Material(STONE));
    let tool = *world.tool();
    world.set_look(std::f32::consts::PI, -60f32.to_radians());
    world.update_aim();
    assert_eq!(world.aim().map(|aim| aim.target), Some(AimTarget::Ground));
    assert!(!world.pick_block());
    world.set_look(std::f32::consts::PI, 60f32.to_radians());
    world.update_aim();
    assert!(world.aim().is_none());
    assert!(!world.pick_block());
    assert_eq!(*world.tool(), tool);
}

#[test]
fn the_middle_button_picks_a_block_of_rubble() {
    let mut world = flat(0.0);
    let planks = Block::new(-2, 0, 6, 4, PLANKS as u8, 0, false).unwrap();
    let piece = world.add_piece(vec![planks]).unwrap();
    for _ in 0..600 {
        world.step(1.0 / 60.0, &Controls::default());
        if world.pieces().is_sleeping(piece) {
            break;
        }
    }
    assert!(world.pieces().is_sleeping(piece), "at rest on the ground");
    world.update_aim();
    assert!(
        matches!(
            world.aim().map(|aim| aim.target),
            Some(AimTarget::Piece { .. })
        ),
        "{:?}",
        world.aim()
    );
    assert!(world.pick_block());
    assert_eq!((world.tool().material, world.tool().size), (PLANKS, 4));
}

#[test]
fn ctrl_z_through_the_commands_undoes_the_chisel_and_ctrl_y_redoes_it() {
    let mut world = flat(0.0);
    world.add_block(stone(-1, 2, 6)).unwrap();
    world.survey();
    world.update_aim();
    let cuts = |world: &World| {
        let id = world.blocks().at(-1, 2, 6).unwrap();
        world.blocks().get(id).unwrap().cuts
    };
    assert!(world.command(Command::Chisel));
    let cut = cuts(&world);
    assert_ne!(cut, 0);
    let mut input = Input::default();
    input.button(Button::ControlLeft, true, false);
    let undo = input.button(Button::KeyZ, true, false).unwrap();
    let redo = input.button(Button::KeyY, true, false).unwrap();
    assert!(world.command(undo));
    assert_eq!(cuts(&world), 0);
    assert!(world.command(redo));
    assert_eq!(cuts(&world), cut);
    assert!(!world.command(Command::ToggleHud), "left to the window");
}
