//! Strength (issue 18, docs/blocks.md "Strength"): falling pieces break where they are struck,
//! at their weak joints, keeping mass and momentum; strong ones hold. Headless, through the
//! game's own world on flat ground.

use std::sync::Arc;

use blockfall_engine::physics::{BodyView, STEP};
use blockfall_engine::workers::WorkerPool;
use blockfall_game::blocks::materials::{COPPER, PLASTER, STONE};
use blockfall_game::blocks::Block;
use blockfall_game::pieces::Split;
use blockfall_game::player::Controls;
use blockfall_game::terrain::{Ground, PlaneGround};
use blockfall_game::world::World;

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
/// happened in, and the bodies that broke with the bodies they broke into.
#[derive(Default)]
struct Seen {
    splits: Vec<Split>,
    /// Per step with splits: (mass before, mass after, what broke).
    kept: Vec<(f64, f64, Vec<Broke>)>,
}

fn mass_of(world: &World) -> f64 {
    world.pieces.iter().map(|(_, _, body)| body.mass).sum()
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
                        .map(|&piece| world.pieces.physics().body(piece).expect("a new piece"))
                        .collect();
                    (split.body, new)
                })
                .collect();
            seen.kept.push((before, mass_of(world), bodies));
            seen.splits.extend(splits);
        }
        if world.pieces.falling() == 0 {
            break;
        }
    }
    seen
}

/// A row of four blocks along x, its lowest `height` meters above the ground.
fn beam(material: usize, size: u8, height: f64) -> Vec<Block> {
    let y = (height / 0.5) as i32;
    (0..4)
        .map(|i| block(i * i32::from(size), y, 0, size, material))
        .collect()
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
                let w = old.spin;
                let turning = [
                    w[1] * r[2] - w[2] * r[1],
                    w[2] * r[0] - w[0] * r[2],
                    w[0] * r[1] - w[1] * r[0],
                ];
                for ((got, was), turn) in body.velocity.iter().zip(old.velocity).zip(turning) {
                    assert!((got - (was + turn)).abs() < 1e-9, "{body:?} from {old:?}");
                }
                assert_eq!(body.spin, old.spin);
            }
        }
    }
}

#[test]
fn a_plaster_beam_dropped_10_m_breaks_and_a_copper_or_stone_one_does_not() {
    for size in [1u8, 2] {
        for (material, breaks) in [(PLASTER, true), (COPPER, false), (STONE, false)] {
            let mut world = flat_world();
            world
                .pieces
                .add(beam(material, size, 10.0))
                .expect("a beam");
            let seen = run(&mut world, 6.0);
            assert_eq!(
                !seen.splits.is_empty(),
                breaks,
                "material {material}, {size}-cell blocks: {} splits",
                seen.splits.len()
            );
            let blocks: usize = world.pieces.iter().map(|(_, p, _)| p.blocks.len()).sum();
            assert_eq!(blocks, 4, "no block lost or made");
            assert_eq!(world.pieces.len() > 1, breaks);
            assert_kept(&seen);
        }
    }
}

#[test]
fn a_split_keeps_mass_and_momentum_whatever_the_turn_and_spin() {
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
        let piece = world.pieces.add(blocks).expect("a piece");
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

/// A column of `heights` blocks (from y = 0 up, one cell each) tilted to topple: the block
/// above `weak` is joined to it only by an edge when `edge`, else it is plaster.
fn toppling_tower(weak: i32, edge: bool) -> (World, Vec<Block>) {
    let mut world = flat_world();
    let blocks: Vec<Block> = (0..8)
        .map(|y| {
            let shifted = edge && y > weak;
            let material = if !edge && y == weak { PLASTER } else { STONE };
            block(i32::from(shifted), y, 0, 1, material)
        })
        .collect();
    let piece = world.pieces.add(blocks.clone()).expect("a tower");
    // Leaning over: a turn toward −x about z, and a push.
    world
        .launch_piece(piece, [0.0, 0.0, 0.0], [0.0, 0.0, 1.2])
        .expect("finite");
    (world, blocks)
}

#[test]
fn a_toppling_tower_breaks_at_its_weak_joints_and_nowhere_else() {
    for (weak, edge) in [(3, false), (5, false), (3, true), (4, true)] {
        let (mut world, blocks) = toppling_tower(weak, edge);
        let seen = run(&mut world, 6.0);
        assert!(
            !seen.splits.is_empty(),
            "weak at {weak} (edge {edge}): the tower did not break"
        );
        // Which piece each block ended in, by its place in the grid (pieces keep their
        // blocks' grid places).
        let piece_of = |b: &Block| {
            world
                .pieces
                .iter()
                .find(|(_, piece, _)| piece.blocks.contains(b))
                .map(|(handle, _, _)| handle)
                .expect("every block is in a piece")
        };
        for pair in blocks.windows(2) {
            let (lower, upper) = (&pair[0], &pair[1]);
            let weak_joint = if edge {
                lower.y == weak
            } else {
                lower.y == weak || upper.y == weak
            };
            if !weak_joint {
                assert_eq!(
                    piece_of(lower),
                    piece_of(upper),
                    "weak at {weak} (edge {edge}): the strong joint between y = {} and {} broke",
                    lower.y,
                    upper.y
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
    world.pieces.add(slab).expect("a slab");
    world.pieces.add(tower).expect("a tower");
    let seen = run(&mut world, 10.0);
    assert!(seen.splits.is_empty(), "{} splits", seen.splits.len());
    assert_eq!(world.pieces.falling(), 0, "they came to rest");
}

#[test]
fn sim_reports_each_split_and_its_state_lines_list_every_piece() {
    // A plaster beam 10 m up on a planks block (blocks stand until something near them
    // changes): breaking the block drops the beam.
    let blocks: Vec<String> = (0..4)
        .map(|x| format!(r#"{{"cell": [{x}, 20, 0], "size": 1, "material": "Plaster"}}"#))
        .chain([r#"{"cell": [0, 19, 0], "size": 1, "material": "Planks"}"#.to_owned()])
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
