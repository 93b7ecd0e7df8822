//! Strength (docs/blocks.md "Strength"): falling pieces break where they are struck,
//! at their weak joints, keeping mass and momentum; strong ones hold. Headless, through the
//! game's own world on flat ground.

use std::sync::Arc;

use blockfall_game::blocks::materials::{BRICKS, COPPER, PLASTER, STONE};
use blockfall_game::blocks::Block;
use blockfall_game::pieces::Split;
use blockfall_game::player::Controls;
use blockfall_game::terrain::{Ground, PlaneGround};
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{BodyView, STEP};

fn flat_world() -> World {
    let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
    World::on(ground, 1, WorkerPool::new(1).expect("a thread"))
}

fn block(x: i32, y: i32, z: i32, size: u8, material: usize) -> Block {
    Block::new(x, y, z, size, material as u8, 0, false).expect("a valid block")
}

/// A body that broke, with the bodies it broke into.
type Broke = (BodyView, Vec<BodyView>);

/// What a run saw: every split, with the pieces' total mass before and after the step it
/// happened in, the bodies that broke with the bodies they broke into, and the blocks of the
/// pieces each split made.
#[derive(Default)]
struct Seen {
    splits: Vec<Split>,
    /// Per step with splits: (mass before, mass after, what broke).
    kept: Vec<(f64, f64, Vec<Broke>)>,
    /// Per split, in order: the blocks of each piece it made.
    parts: Vec<Vec<Vec<Block>>>,
}

fn mass_of(world: &World) -> f64 {
    world.pieces().iter().map(|(_, _, body)| body.mass).sum()
}

fn momentum(bodies: &[BodyView]) -> [f64; 3] {
    let mut total = [0.0; 3];
    for body in bodies {
        for (axis, sum) in total.iter_mut().enumerate() {
            *sum += body.mass * body.velocity[axis];
        }
    }
    total
}

/// Steps the world a physics step a frame for `seconds`, or until every piece rests.
fn run(world: &mut World, seconds: f64) -> Seen {
    let mut seen = Seen::default();
    for _ in 0..(seconds / STEP) as usize {
        let before = mass_of(world);
        world.step(STEP as f32, &Controls::default());
        let splits = world.splits().to_vec();
        if !splits.is_empty() {
            let bodies = splits
                .iter()
                .map(|split| {
                    let new = split
                        .into
                        .iter()
                        .map(|&piece| world.pieces().physics().body(piece).expect("a new piece"))
                        .collect();
                    (split.body, new)
                })
                .collect();
            seen.kept.push((before, mass_of(world), bodies));
            for split in &splits {
                let parts = split
                    .into
                    .iter()
                    .map(|&handle| {
                        world
                            .pieces()
                            .iter()
                            .find(|(at, _, _)| *at == handle)
                            .map(|(_, piece, _)| piece.blocks.clone())
                            .expect("a new piece")
                    })
                    .collect();
                seen.parts.push(parts);
            }
            seen.splits.extend(splits);
        }
        if world.pieces().falling() == 0 {
            break;
        }
    }
    seen
}

/// A row of four blocks along x, its lowest `height` meters above the ground.
fn beam(material: usize, size: u8, height: f64) -> Vec<Block> {
    beam_of(4, material, size, height)
}

/// A row of `count` blocks along x from x = 0, its lowest `height` meters above the ground.
fn beam_of(count: i32, material: usize, size: u8, height: f64) -> Vec<Block> {
    let y = (height / 0.5) as i32;
    (0..count)
        .map(|i| block(i * i32::from(size), y, 0, size, material))
        .collect()
}

/// Which joints of a row of blocks (joint `i` between blocks `i` and `i + 1`) ended broken:
/// their blocks ended in different pieces (pieces keep their blocks' grid places).
fn broken_joints(world: &World, row: &[Block]) -> Vec<bool> {
    let piece_of = |b: &Block| {
        world
            .pieces()
            .iter()
            .find(|(_, piece, _)| piece.blocks.contains(b))
            .map(|(handle, _, _)| handle)
            .expect("every block is in a piece")
    };
    row.windows(2)
        .map(|pair| piece_of(&pair[0]) != piece_of(&pair[1]))
        .collect()
}

/// A stone post of `height` meters on the ground, of world blocks of `width` cells from cell
/// `(x, z)`.
fn post(world: &mut World, [x, z]: [i32; 2], width: u8, height: f64) {
    let size = i32::from(width);
    for level in 0..(height / (0.5 * f64::from(width))).round() as i32 {
        world
            .add_block(block(x, level * size, z, width, STONE))
            .expect("room for the post");
    }
}

/// A quaternion turning by `degrees` about z (from +x toward +y).
fn about_z(degrees: f64) -> [f64; 4] {
    let half = degrees.to_radians() / 2.0;
    [0.0, 0.0, half.sin(), half.cos()]
}

fn close(a: f64, b: f64, relative: f64) -> bool {
    (a - b).abs() <= relative * a.abs().max(b.abs())
}

/// Every split kept the total mass and each broken piece's mass and momentum, and each new
/// piece moves as its part of the old body moved: `v + ω × r`, with the old spin.
fn assert_kept(seen: &Seen) {
    for (before, after, splits) in &seen.kept {
        assert!(close(*before, *after, 1e-9), "mass {before} → {after}");
        for (old, new) in splits {
            let mass: f64 = new.iter().map(|body| body.mass).sum();
            assert!(close(old.mass, mass, 1e-9), "mass {} → {mass}", old.mass);
            let (was, now) = (momentum(std::slice::from_ref(old)), momentum(new));
            let size = was.iter().map(|c| c * c).sum::<f64>().sqrt();
            for axis in 0..3 {
                assert!(
                    (was[axis] - now[axis]).abs() <= 1e-6 * size,
                    "momentum {was:?} → {now:?}"
                );
            }
            for body in new {
                let r: [f64; 3] = std::array::from_fn(|a| body.position[a] - old.position[a]);
                let w = old.angular_velocity;
                let turning = [
                    w[1] * r[2] - w[2] * r[1],
                    w[2] * r[0] - w[0] * r[2],
                    w[0] * r[1] - w[1] * r[0],
                ];
                for ((got, was), turn) in body.velocity.iter().zip(old.velocity).zip(turning) {
                    assert!((got - (was + turn)).abs() < 1e-9, "{body:?} from {old:?}");
                }
                assert_eq!(body.angular_velocity, old.angular_velocity);
            }
        }
    }
}

/// A beam landing flat is pushed under every block about what that block needs to stop with
/// the rest: its joints carry almost nothing, however weak and from however high. (Strength's
/// first rule, where a joint carried the sum of the pushes beyond it, broke a 4-block plaster
/// beam dropped flat from 10 m; a piece moves as one, and now a joint carries only what the
/// pushes beyond it give more or less than the blocks there need to follow that motion.)
#[test]
fn a_beam_landing_flat_does_not_break() {
    for size in [1u8, 2] {
        for height in [10.0, 20.0] {
            for material in [PLASTER, COPPER, STONE] {
                let mut world = flat_world();
                world
                    .add_piece(beam(material, size, height))
                    .expect("a beam");
                let seen = run(&mut world, 6.0);
                assert!(
                    seen.splits.is_empty(),
                    "material {material}, {size}-cell blocks, {height} m: {} splits",
                    seen.splits.len()
                );
                assert_eq!(world.pieces().len(), 1);
                let blocks: usize = world.pieces().iter().map(|(_, p, _)| p.blocks.len()).sum();
                assert_eq!(blocks, 4);
            }
        }
    }
}

/// Beams of any length landing flat from up to 30 m hold, of the weakest material too: the
/// six-block plaster beam from 15 m broke while a landing's points bounced one by one; a
/// rigid beam landing flat is pushed evenly and loads no joint (docs/physics.md, "Impacts").
#[test]
fn beams_of_any_length_landing_flat_from_up_to_30_m_hold() {
    for count in [2, 3, 6, 9] {
        for size in [1u8, 2] {
            for height in [5.0, 15.0, 30.0] {
                for material in [PLASTER, BRICKS] {
                    let mut world = flat_world();
                    world
                        .add_piece(beam_of(count, material, size, height))
                        .expect("a beam");
                    let seen = run(&mut world, 8.0);
                    assert!(
                        seen.splits.is_empty(),
                        "{count} blocks of {size} cells, material {material}, from {height} m: \
                         {} splits",
                        seen.splits.len()
                    );
                }
            }
        }
    }
}

/// A beam released turned 20° about an axis across it strikes with one end first: the blow
/// pushes that end up and along the beam, and the end joint, which must pass it on to the
/// three blocks beyond, gives way; the rest, no longer pushed, follows freely. A copper or
/// stone beam holds.
#[test]
fn a_beam_landing_tilted_breaks_within_one_block_of_the_end_that_strikes_first() {
    for size in [1u8, 2] {
        for height in [6.0, 10.0, 20.0] {
            for (material, breaks) in [(PLASTER, true), (COPPER, false), (STONE, false)] {
                let mut world = flat_world();
                let blocks = beam(material, size, height);
                let piece = world
                    .add_piece_turned(blocks.clone(), about_z(20.0))
                    .expect("a beam");
                // The end that strikes first: the block whose middle is lowest.
                let middle_height = |b: &Block| {
                    let local = b
                        .low()
                        .map(|c| (f64::from(c) + f64::from(b.size) / 2.0) * 0.5);
                    world.pieces().to_world(piece, local).expect("the beam")[1]
                };
                let end = *blocks
                    .iter()
                    .min_by(|a, b| middle_height(a).total_cmp(&middle_height(b)))
                    .expect("blocks");
                assert!(end == blocks[0] || end == blocks[3], "{end:?} is an end");
                let seen = run(&mut world, 6.0);
                let case = format!("material {material}, {size}-cell blocks, {height} m");
                assert_eq!(!seen.splits.is_empty(), breaks, "{case}");
                if breaks {
                    // The first break: the end block alone, from the other three.
                    let first = &seen.parts[0];
                    assert_eq!(first.len(), 2, "{case}: {first:?}");
                    assert!(first.contains(&vec![end]), "{case}: {first:?}");
                }
                let blocks: usize = world.pieces().iter().map(|(_, p, _)| p.blocks.len()).sum();
                assert_eq!(blocks, 4, "{case}: no block lost or made");
                assert_kept(&seen);
            }
        }
    }
}

/// A beam dropped across a one-block stone post: the post stops the block over it, and the
/// blocks beyond must be pulled along through the joints beside it, which give way; the parts
/// beyond, no longer pushed, follow freely. Over the middle of five blocks both sides give way
/// together, the beam being symmetric; over the second of four, at least the side toward the
/// long part. Every joint that breaks lies within a block of the post. A copper beam holds.
#[test]
fn a_beam_dropped_across_a_post_breaks_over_it() {
    for size in [1u8, 2] {
        for (count, over) in [(5usize, 2usize), (4, 1)] {
            for height in [3.0, 6.0] {
                for (material, breaks) in [(PLASTER, true), (COPPER, false)] {
                    let mut world = flat_world();
                    let cells = i32::from(size);
                    post(&mut world, [over as i32 * cells, 0], size, 1.0);
                    let blocks = beam_of(count as i32, material, size, 1.0 + height);
                    world.add_piece(blocks.clone()).expect("a beam");
                    let seen = run(&mut world, 6.0);
                    let case = format!(
                        "material {material}, {size}-cell blocks, {count} over {over}, {height} m"
                    );
                    assert_eq!(!seen.splits.is_empty(), breaks, "{case}");
                    let broken = broken_joints(&world, &blocks);
                    if breaks {
                        // Joint j lies between blocks j and j + 1: joints over − 1 and over
                        // are beside the post, over − 2 and over + 1 a block from it.
                        for (joint, &gone) in broken.iter().enumerate() {
                            assert!(
                                !gone || joint + 2 >= over && joint <= over + 1,
                                "{case}: {broken:?}"
                            );
                        }
                        assert!(broken[over - 1] || broken[over], "{case}: {broken:?}");
                        if count == 5 {
                            let mirrored: Vec<bool> = broken.iter().rev().copied().collect();
                            assert_eq!(broken, mirrored, "{case}");
                        }
                    }
                    let kept: usize = world.pieces().iter().map(|(_, p, _)| p.blocks.len()).sum();
                    assert_eq!(kept, count, "{case}: no block lost or made");
                    assert_kept(&seen);
                }
            }
        }
    }
}

/// A symmetric piece breaks symmetrically: a plaster cross (a middle block with an arm of two
/// blocks on each of four sides) landing flat on a stone post under its middle either loses
/// all four arms at the joints around the middle block, or none, whatever the height; the
/// arms stay whole (each is pulled along only through its own joint to the middle).
#[test]
fn a_symmetric_piece_breaks_symmetrically() {
    let mut broke = 0;
    for height in [1.0, 3.0, 6.0] {
        let mut world = flat_world();
        post(&mut world, [2, 2], 1, 1.0);
        let y = ((1.0 + height) / 0.5) as i32;
        let arms: [[[i32; 2]; 2]; 4] = [
            [[1, 2], [0, 2]],
            [[3, 2], [4, 2]],
            [[2, 1], [2, 0]],
            [[2, 3], [2, 4]],
        ];
        let middle = block(2, y, 2, 1, PLASTER);
        let mut blocks = vec![middle];
        for arm in &arms {
            blocks.extend(arm.iter().map(|&[x, z]| block(x, y, z, 1, PLASTER)));
        }
        world.add_piece(blocks).expect("a cross");
        let seen = run(&mut world, 6.0);
        assert_kept(&seen);
        let piece_of = |b: &Block| {
            world
                .pieces()
                .iter()
                .find(|(_, piece, _)| piece.blocks.contains(b))
                .map(|(handle, _, _)| handle)
                .expect("every block is in a piece")
        };
        let off: Vec<bool> = arms
            .iter()
            .map(|arm| {
                let [[x, z], [ox, oz]] = *arm;
                let (inner, outer) = (block(x, y, z, 1, PLASTER), block(ox, y, oz, 1, PLASTER));
                assert_eq!(
                    piece_of(&inner),
                    piece_of(&outer),
                    "{height} m: an arm broke"
                );
                piece_of(&inner) != piece_of(&middle)
            })
            .collect();
        assert!(off == [true; 4] || off == [false; 4], "{height} m: {off:?}");
        broke += usize::from(off[0]);
    }
    assert!(broke > 0, "the cross broke from no height");
}

#[test]
fn a_split_keeps_mass_and_momentum_whatever_the_turn_and_angular_velocity() {
    // Plaster pieces of several shapes, thrown down turning: each split keeps the mass and the
    // momentum of what broke.
    let shapes: [Vec<Block>; 3] = [
        beam(PLASTER, 1, 6.0),
        (0..3)
            .flat_map(|i| [block(i, 12, 0, 1, PLASTER), block(0, 12 + i, 1, 1, PLASTER)])
            .collect(),
        vec![
            block(0, 12, 0, 2, PLASTER),
            block(2, 12, 0, 1, PLASTER),
            block(2, 13, 0, 1, PLASTER),
            block(0, 14, 0, 1, STONE),
        ],
    ];
    let mut splits = 0;
    for (index, blocks) in shapes.into_iter().enumerate() {
        let mut world = flat_world();
        let piece = world.add_piece(blocks).expect("a piece");
        let spin = [1.5 * index as f64 - 1.0, 0.7, 2.0];
        world
            .launch_piece(piece, [1.0, -12.0, 0.5], spin)
            .expect("finite");
        let seen = run(&mut world, 4.0);
        assert_kept(&seen);
        splits += seen.splits.len();
    }
    assert!(splits >= 3, "{splits} splits");
}

/// A column of eight blocks (one cell each, its foot 10 m up) turned 20° about z, to land on
/// its foot's corner: the block above `weak` is joined to it only by an edge when `edge`, else
/// it is plaster. (At first this tower stood on the ground and toppled; it now lands along its
/// length, each block stopped about as its own motion needs, and its joints carry little:
/// dropped tilted, its foot is struck and the blocks above must be stopped through the
/// column, as the weak joints cannot bear.) Returns the world and the blocks, each with its
/// height in the column.
fn falling_tower(weak: i32, edge: bool) -> (World, Vec<(i32, Block)>) {
    let mut world = flat_world();
    let foot = 20;
    let blocks: Vec<(i32, Block)> = (0..8)
        .map(|y| {
            let shifted = edge && y > weak;
            let material = if !edge && y == weak { PLASTER } else { STONE };
            (y, block(i32::from(shifted), foot + y, 0, 1, material))
        })
        .collect();
    world
        .add_piece_turned(blocks.iter().map(|&(_, b)| b).collect(), about_z(20.0))
        .expect("a tower");
    (world, blocks)
}

/// A tower with a plaster block, or a block joined by an edge only, breaks there and nowhere
/// else. (At first the tower toppled where it stood; landing along its length, it no longer
/// breaks at all, so it is dropped tilted: see [`falling_tower`].)
#[test]
fn a_falling_tower_breaks_at_its_weak_joints_and_nowhere_else() {
    for (weak, edge) in [(3, false), (5, false), (3, true), (4, true)] {
        let (mut world, blocks) = falling_tower(weak, edge);
        let seen = run(&mut world, 6.0);
        assert!(
            !seen.splits.is_empty(),
            "weak at {weak} (edge {edge}): the tower did not break"
        );
        // Which piece each block ended in, by its place in the grid (pieces keep their
        // blocks' grid places).
        let piece_of = |b: &Block| {
            world
                .pieces()
                .iter()
                .find(|(_, piece, _)| piece.blocks.contains(b))
                .map(|(handle, _, _)| handle)
                .expect("every block is in a piece")
        };
        for pair in blocks.windows(2) {
            let ((low_y, lower), (high_y, upper)) = (&pair[0], &pair[1]);
            let weak_joint = if edge {
                *low_y == weak
            } else {
                *low_y == weak || *high_y == weak
            };
            if !weak_joint {
                assert_eq!(
                    piece_of(lower),
                    piece_of(upper),
                    "weak at {weak} (edge {edge}): the strong joint between y = {low_y} and \
                     {high_y} broke"
                );
            }
        }
        assert_kept(&seen);
    }
}

#[test]
fn pieces_lying_still_do_not_break_under_their_own_weight() {
    // A long plaster slab and a plaster tower set down on the ground: they settle and rest
    // without breaking.
    let mut world = flat_world();
    let slab: Vec<Block> = (0..8)
        .flat_map(|x| (0..2).map(move |z| block(x, 0, z, 1, PLASTER)))
        .collect();
    let tower: Vec<Block> = (0..6).map(|y| block(20, y, 0, 1, PLASTER)).collect();
    world.add_piece(slab).expect("a slab");
    world.add_piece(tower).expect("a tower");
    let seen = run(&mut world, 10.0);
    assert!(seen.splits.is_empty(), "{} splits", seen.splits.len());
    assert_eq!(world.pieces().falling(), 0, "they came to rest");
}

/// The sim tool writes a line for each split, and its state lines list every piece. A
/// plaster beam 10 m up on a planks block (blocks stand until something near them changes):
/// breaking the block drops the beam across a 1 m stone post under its second block, where it
/// breaks. (At first the beam fell flat on the ground and broke; a beam landing flat no longer
/// breaks: see `a_beam_landing_flat_does_not_break`.)
#[test]
fn sim_reports_each_split_and_its_state_lines_list_every_piece() {
    let blocks: Vec<String> = (0..4)
        .map(|x| format!(r#"{{"cell": [{x}, 20, 0], "size": 1, "material": "Plaster"}}"#))
        .chain([r#"{"cell": [0, 19, 0], "size": 1, "material": "Planks"}"#.to_owned()])
        .chain(
            (0..2).map(|y| format!(r#"{{"cell": [1, {y}, 0], "size": 1, "material": "Stone"}}"#)),
        )
        .collect();
    let text = format!(
        r#"{{"terrain": {{"flat": {{"height": 0.0}}}}, "blocks": [{}],
            "events": [{{"t": 0.1, "break": [0, 19, 0]}}],
            "duration": 4.0, "frame_dt": 0.0083333333, "report_every": 0}}"#,
        blocks.join(",")
    );
    let scene = blockfall_game::scene::parse(&text).expect("a valid scene");
    let mut out = Vec::new();
    blockfall_game::scene::run(&scene, &mut out).expect("it runs");
    let trace = String::from_utf8(out).expect("UTF-8");
    let splits: Vec<serde_json::Value> = trace
        .lines()
        .filter(|line| line.contains(r#""event":"split""#))
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert!(!splits.is_empty(), "the beam broke:\n{trace}");
    for split in &splits {
        let keys: Vec<&String> = split.as_object().expect("an object").keys().collect();
        assert_eq!(keys, ["event", "into", "piece", "t"], "{split}");
        assert!(split["into"].as_array().expect("a list").len() >= 2);
    }
    // The last state line lists every piece, all four blocks among them.
    let last = trace
        .lines()
        .rev()
        .find(|line| line.contains(r#""pieces""#))
        .expect("a state line");
    let state: serde_json::Value = serde_json::from_str(last).expect("JSON");
    let pieces = state["pieces"].as_array().expect("pieces");
    let blocks: u64 = pieces
        .iter()
        .map(|p| p["blocks"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(blocks, 4);
    assert!(pieces.len() >= 2);
}
