//! Undo and redo of the edits (`game::world::history`): breaks with what they set falling,
//! places, the chisel and the ground's digs and builds are put back exactly, the pieces an
//! edit made leave the world with all they split into, and redo does the edit again through
//! the same rules. Headless, through the game's own world.

use std::sync::Arc;

use blockfall_game::blocks::materials::{PLASTER, STONE};
use blockfall_game::blocks::{Block, MATERIALS};
use blockfall_game::player::Controls;
use blockfall_game::terrain::{Generator, Ground, PlaneGround, SampleBox};
use blockfall_game::world::{Change, Edit, World};
use blockfall_physics::workers::WorkerPool;

fn flat_world() -> World {
    let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
    World::on(ground, 1, WorkerPool::new(1).expect("a thread"))
}

fn block(x: i32, y: i32, z: i32, size: u8, material: usize) -> Block {
    Block::new(x, y, z, size, material as u8, 0, false).expect("a valid block")
}

/// The blocks standing on the grid, in order of their lowest cell.
fn standing(world: &World) -> Vec<Block> {
    let mut blocks: Vec<Block> = world.blocks().iter().map(|(_, block)| *block).collect();
    blocks.sort_by_key(|block| block.low());
    blocks
}

/// How many blocks the pieces hold.
fn in_pieces(world: &World) -> usize {
    world
        .pieces()
        .iter()
        .map(|(_, piece, _)| piece.blocks.len())
        .sum()
}

/// Steps the world `seconds` in frames of 1/60 s; returns how many pieces split meanwhile.
fn run(world: &mut World, seconds: f32) -> usize {
    let mut splits = 0;
    for _ in 0..(seconds * 60.0) as usize {
        world.step(1.0 / 60.0, &Controls::default());
        splits += world.splits().len();
    }
    splits
}

/// A tower of twelve 1 m blocks of every material in turn on flat ground: only the lowest
/// touches the ground, so breaking it drops the eleven above as one piece.
fn tower(world: &mut World) -> Vec<Block> {
    for level in 0..12 {
        world
            .add_block(block(0, 2 * level, 0, 2, level as usize % MATERIALS.len()))
            .expect("room for the tower");
    }
    world.survey();
    standing(world)
}

#[test]
fn undoing_a_break_that_dropped_eleven_blocks_restores_them_and_removes_the_piece() {
    let mut world = flat_world();
    let start = tower(&mut world);
    assert_eq!(world.undo_depth(), 0, "setting up is no edit");
    assert_eq!(world.break_cell([0, 0, 0]), (true, 11));
    assert_eq!(world.pieces().len(), 1, "the eleven fall as one piece");
    assert_eq!(in_pieces(&world), 11);
    assert!(world.blocks().iter().next().is_none());
    assert_eq!(world.undo_depth(), 1);
    let entry = world.history().to_undo().next().expect("the break");
    assert_eq!(entry.edit, Edit::Break { cell: [0, 0, 0] });
    assert_eq!(
        entry.changes.len(),
        12,
        "the block broken and the eleven that fell"
    );
    assert!(entry
        .changes
        .iter()
        .all(|change| matches!(change, Change::Removed(block) if start.contains(block))));
    assert_eq!(entry.pieces.len(), 1);
    run(&mut world, 2.0);
    assert_eq!(world.pieces().falling(), 0, "it landed and rests");
    world.take_changed_regions();

    assert!(world.undo());
    assert_eq!(
        standing(&world),
        start,
        "every block in its cell, as it was"
    );
    assert!(world.pieces().is_empty(), "the piece is gone, its body too");
    assert_eq!(world.pieces().physics().len(), 0);
    assert!(!world.take_changed_regions().is_empty(), "meshed again");
    assert_eq!((world.undo_depth(), world.redo_depth()), (0, 1));
    // The support knows the tower again: its foot still holds the rest.
    assert_eq!(world.would_fall_at([0, 0, 0]).len(), 11);

    assert!(world.redo());
    assert!(world.blocks().iter().next().is_none(), "broken again");
    assert_eq!(world.pieces().len(), 1);
    assert_eq!(in_pieces(&world), 11, "the eleven fall again");
    assert_eq!((world.undo_depth(), world.redo_depth()), (1, 0));
    // And once more: the fresh entry undoes as the first did.
    run(&mut world, 0.5);
    assert!(world.undo());
    assert_eq!(standing(&world), start);
    assert!(world.pieces().is_empty());
}

#[test]
fn placing_then_undoing_and_redoing_puts_the_same_block_back() {
    let mut world = flat_world();
    let copper = block(4, 0, 2, 4, 5);
    world.place(copper).expect("room for it");
    assert_eq!(world.undo_depth(), 1);
    world.take_changed_regions();
    assert!(world.undo());
    assert!(world.blocks().iter().next().is_none());
    assert!(!world.take_changed_regions().is_empty());
    assert!(world.redo());
    assert_eq!(standing(&world), [copper]);
    // A refused place records nothing.
    assert!(world.place(block(5, 1, 3, 1, STONE)).is_err());
    assert_eq!((world.undo_depth(), world.redo_depth()), (1, 0));
}

#[test]
fn undoing_the_chisel_restores_the_exact_cuts_and_slope() {
    let mut world = flat_world();
    let plain = block(0, 0, 0, 2, STONE);
    world.add_block(plain).unwrap();
    world.survey();
    let id = world.blocks().at(0, 0, 0).unwrap();
    assert!(world.reshape(id, 0b1000_0010_0001, false));
    assert!(world.reshape(id, 0b1000_0010_0001, true));
    assert!(
        world.reshape(id, 0b1000_0010_0001, true),
        "the same cuts again"
    );
    assert_eq!(
        world.undo_depth(),
        2,
        "a reshape that changes nothing is no edit"
    );
    let cut = |world: &World| {
        let id = world.blocks().at(0, 0, 0).unwrap();
        let block = world.blocks().get(id).unwrap();
        (block.cuts, block.slope)
    };
    assert!(world.undo());
    assert_eq!(cut(&world), (0b1000_0010_0001, false));
    assert!(world.undo());
    assert_eq!(standing(&world), [plain]);
    assert!(world.redo() && world.redo());
    assert_eq!(cut(&world), (0b1000_0010_0001, true));
    assert!(!world.redo());
}

/// Every sample of `boxed` grown by two on each side: the field's and the edit store's bits.
fn samples_around(world: &World, boxed: &SampleBox) -> Vec<(u32, u32)> {
    let mut bits = Vec::new();
    for z in boxed.low[2] - 2..=boxed.high[2] + 2 {
        for y in boxed.low[1] - 2..=boxed.high[1] + 2 {
            for x in boxed.low[0] - 2..=boxed.high[0] + 2 {
                bits.push((
                    world.field().sample(x, y, z).to_bits(),
                    world.edits().sample(x, y, z).to_bits(),
                ));
            }
        }
    }
    bits
}

#[test]
fn undoing_a_dig_and_a_build_restores_every_sample_of_the_box_bit_for_bit() {
    let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
    let [x, y, z] = generator.spawn_point();
    let ground: Arc<dyn Ground> = generator;
    let mut world = World::on(ground, 1, WorkerPool::new(1).unwrap());
    let centre = [x + 0.3, y - 1.2, z - 0.4];
    // A dig, then a build overlapping it: undone newest first.
    let wide = SampleBox {
        low: [x as i32 - 8, y as i32 - 8, z as i32 - 8],
        high: [x as i32 + 8, y as i32 + 8, z as i32 + 8],
    };
    let before = samples_around(&world, &wide);
    let (dug, _) = world.edit_sphere(true, centre, 3.0).unwrap();
    let dug = dug.expect("the ground changed");
    let after_dig = samples_around(&world, &wide);
    assert_ne!(before, after_dig);
    let (built, _) = world
        .edit_sphere(false, [centre[0] + 1.7, centre[1], centre[2]], 2.5)
        .unwrap();
    let built = built.expect("the ground changed");
    assert_eq!(world.undo_depth(), 2);
    world.take_changed_ground();

    assert!(world.undo());
    assert_eq!(samples_around(&world, &wide), after_dig, "the build undone");
    let noted = world.take_changed_ground();
    assert!(
        noted.contains(&built),
        "the undone build's box is meshed again: {noted:?} {built:?}"
    );
    assert!(world.undo());
    assert_eq!(samples_around(&world, &wide), before, "the dig undone");
    let noted = world.take_changed_ground();
    assert!(noted.contains(&dug), "{noted:?}");
    assert!(!world.undo());

    // Redo digs and builds the same spheres again.
    assert!(world.redo());
    assert_eq!(samples_around(&world, &wide), after_dig);
    assert!(world.redo());
    assert!(world.undo() && world.undo());
    assert_eq!(samples_around(&world, &wide), before);
}

#[test]
fn undoing_a_dig_that_dropped_a_block_puts_the_ground_and_the_block_back() {
    let mut world = flat_world();
    let sunk = block(0, -1, 0, 2, STONE);
    let above = block(0, 1, 0, 2, PLASTER);
    world.add_block(sunk).unwrap();
    world.add_block(above).unwrap();
    world.survey();
    let (changed, fell) = world.edit_sphere(true, [0.5, 0.0, 0.5], 3.0).unwrap();
    assert!(changed.is_some());
    assert_eq!(fell, 2, "the ground under them is gone");
    run(&mut world, 1.5);
    assert!(world.undo());
    assert_eq!(standing(&world), [sunk, above]);
    assert!(world.pieces().is_empty());
    assert!(
        world.field().probe(0.5, -0.5, 0.5).density > 0.0,
        "ground again"
    );
    assert_eq!(world.would_fall_at([0, -1, 0]).len(), 1, "held again");
}

#[test]
fn a_hundred_and_fifty_edits_undone_return_the_blocks_to_the_start() {
    let mut world = flat_world();
    world.add_block(block(-8, 0, -8, 2, STONE)).unwrap();
    world.survey();
    let start = standing(&world);
    // Fifty columns of two blocks (100 places), 25 chisel cuts, 25 breaks of a column's foot
    // that drop its top.
    for column in 0..50 {
        let x = 4 * (column % 10);
        let z = 4 * (column / 10);
        world.place(block(x, 0, z, 2, column as usize % 6)).unwrap();
        world
            .place(block(x, 2, z, 2, (column as usize + 1) % 6))
            .unwrap();
    }
    for column in 0..25 {
        let id = world
            .blocks()
            .at(4 * (column % 10), 2, 4 * (column / 10))
            .unwrap();
        assert!(world.reshape(id, 1 << (column % 12), column % 2 == 0));
    }
    for column in 25..50 {
        let (broken, fell) = world.break_cell([4 * (column % 10), 0, 4 * (column / 10)]);
        assert!(broken && fell == 1);
    }
    assert_eq!(world.undo_depth(), 150);
    run(&mut world, 1.0);
    let mut undone = 0;
    while world.undo() {
        undone += 1;
    }
    assert_eq!(undone, 150);
    assert_eq!(standing(&world), start);
    assert!(world.pieces().is_empty());
    assert_eq!(world.redo_depth(), 150);
}

#[test]
fn a_new_edit_clears_what_there_was_to_redo() {
    let mut world = flat_world();
    world.place(block(0, 0, 0, 2, STONE)).unwrap();
    world.place(block(4, 0, 0, 2, STONE)).unwrap();
    assert!(world.undo());
    assert_eq!(world.redo_depth(), 1);
    world.place(block(8, 0, 0, 2, STONE)).unwrap();
    assert_eq!((world.undo_depth(), world.redo_depth()), (2, 0));
    assert!(!world.redo());
    assert!(world.blocks().at(4, 0, 0).is_none());
}

#[test]
fn undo_with_nothing_to_undo_returns_false_and_changes_nothing() {
    let mut world = flat_world();
    let start = tower(&mut world);
    world.take_changed_regions();
    assert!(!world.undo());
    assert!(!world.redo());
    assert_eq!(standing(&world), start);
    assert!(world.take_changed_regions().is_empty());
    assert!(world.take_changed_ground().is_empty());
    // Breaking an empty cell is no edit either.
    assert_eq!(world.break_cell([20, 0, 20]), (false, 0));
    assert!(!world.undo());
}

#[test]
fn undoing_a_break_whose_piece_split_on_impact_removes_every_part() {
    // A plaster beam of five 1 m blocks 4 m up, hung from a stone column by one connecting
    // block; a stone post under the beam's middle. Breaking the connector drops the beam
    // across the post, where it breaks.
    let mut world = flat_world();
    for level in 0..5 {
        world.add_block(block(-4, 2 * level, 0, 2, STONE)).unwrap();
    }
    world.add_block(block(-2, 8, 0, 2, STONE)).unwrap();
    for index in 0..5 {
        world.add_block(block(2 * index, 8, 0, 2, PLASTER)).unwrap();
    }
    world.add_block(block(4, 0, 0, 2, STONE)).unwrap();
    world.survey();
    let start = standing(&world);
    assert_eq!(world.break_cell([-2, 8, 0]), (true, 5));
    let splits = run(&mut world, 4.0);
    assert!(splits > 0, "the beam broke on the post");
    assert!(world.pieces().len() > 1, "{} pieces", world.pieces().len());
    assert_eq!(in_pieces(&world), 5);
    assert!(world.undo());
    assert!(world.pieces().is_empty(), "every part of the beam is gone");
    assert_eq!(standing(&world), start);
}
