//! Save files, read by `WorldSave::decode` and loaded by `World::from_save`.
//!
//! Inputs start from real saves (small worlds saved after a few frames: blocks, a falling
//! piece, edited ground, a flying player) and change them at every layer: raw bytes; the header
//! (version, body length) with the checksum made right again; the compressed stream or the
//! decompressed body, wrapped again so that the checksum and length match and the decoder
//! reaches them; and the decoded save's values (NaN and huge numbers, pieces and bodies doubled
//! or dropped, block columns out of step) encoded again, so that `World::from_save` sees them.
//! The values lean toward the absurd but finite (1e30, 3e38, 1e300, -0.0, subnormals, clocks
//! near a century, positions just inside and just outside the world's edge, speeds at the
//! limits), which the loader must refuse or carry. A refused save must say why in a short
//! message; what loads must save and load again to the same bytes (load, save, load, save: the
//! two saved files equal), and after two frames must still be a save the loader accepts.

use std::sync::OnceLock;

use blockfall_game::input::Input;
use blockfall_game::save::{WorldSave, FORMAT_VERSION, LARGEST, LONGEST_CLOCK, MAGIC};
use blockfall_game::scene::{self, Runner};
use blockfall_game::terrain::{EditedBrick, GroundKind};
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{ContactImpulse, ContactKey};

use super::{check_message, mutate_bytes, Outcome, Rng};

/// The header: magic, version, checksum, body length.
const HEADER: usize = 32;
/// Chunks streamed around a loaded world's player: loading is what is checked, not streaming.
const RADIUS: u32 = 2;
/// Frames a loaded world is stepped.
const FRAMES: usize = 2;

/// The worlds saved for the corpus: scenes run for a few frames, then saved.
const WORLDS: &[&str] = &[
    r#"{"terrain": {"flat": {"height": 0}}, "duration": 0.5,
        "blocks": [{"cell": [0, 0, 0], "material": "Stone"}, {"cell": [0, 2, 0], "material": "Bricks"},
                   {"cell": [2, 2, 0], "material": "Planks"}, {"cell": [4, 2, 0], "size": 1, "material": "Copper"}],
        "player": {"feet": [-4, 0, -4]},
        "events": [{"t": 0.1, "break": [0, 0, 0]}, {"t": 0.1, "press": "KeyW"}]}"#,
    r#"{"terrain": {"slope": {"degrees": 20, "height": 2}}, "duration": 0.3,
        "digs": [{"center": [3, 1, 3], "radius": 2.5}], "builds": [{"center": [-6, 2, 0], "radius": 3}],
        "player": {"feet": [0, 8, 0], "mode": "fly", "yaw_degrees": 45},
        "events": [{"t": 0.1, "dig": {"center": [0, 2, 6], "radius": 1.5}}, {"t": 0.2, "press": "MouseLeft"}]}"#,
    r#"{"terrain": {"world": {"seed": 3}}, "duration": 0.2,
        "blocks": [{"cell": [10, 60, 10], "material": "Slate", "cuts": 5, "slope": true}]}"#,
    r#"{"terrain": {"flat": {"height": -3}}, "duration": 0}"#,
];

/// The saves of [`WORLDS`], made once.
fn corpus() -> &'static [Vec<u8>] {
    static SAVES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SAVES.get_or_init(|| WORLDS.iter().map(|text| saved(text)).collect())
}

/// The save file of a scene run to its end.
fn saved(text: &str) -> Vec<u8> {
    let scene = scene::parse(text).expect("the corpus's scenes are valid");
    let pool = WorkerPool::new(1).expect("one worker thread");
    let (mut world, start) = scene::world_of(&scene, pool, RADIUS).expect("the corpus's worlds");
    let mut runner = Runner::new(scene, &start);
    for frame in 0..runner.frame_count() {
        runner
            .events(&mut world, frame)
            .expect("the corpus's events");
        runner.step(&mut world, frame).expect("the corpus's frames");
    }
    let end = runner.frame_count();
    runner.events(&mut world, end).expect("the corpus's events");
    world.save(runner.time_of(end), &runner.input).encode()
}

/// The body of a save file made by `encode` (the corpus's).
fn body_of(file: &[u8]) -> Vec<u8> {
    let length = u64::from_le_bytes(file[24..32].try_into().expect("8 bytes")) as usize;
    lz4_flex::block::decompress(&file[HEADER..], length).expect("the corpus's saves decompress")
}

/// A file around `compressed`: magic, `version`, the checksum of what follows, `length`.
fn file_of(version: u32, length: u64, compressed: &[u8]) -> Vec<u8> {
    let mut rest = length.to_le_bytes().to_vec();
    rest.extend_from_slice(compressed);
    let mut file = MAGIC.to_vec();
    file.extend_from_slice(&version.to_le_bytes());
    file.extend_from_slice(&crc32fast::hash(&rest).to_le_bytes());
    file.extend_from_slice(&rest);
    file
}

const ODD_F64: &[f64] = &[
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
    0.0,
    1.0,
    -1.0,
    1e9,
    -1e9,
    1e300,
    -1e300,
    1e-300,
    5e-324,
    f64::MAX,
    f64::MIN,
];

const ODD_I32: &[i32] = &[
    0,
    1,
    -1,
    i32::MIN,
    i32::MAX,
    1 << 20,
    -(1 << 20) - 1,
    1 << 28,
];

/// Finite values at and past the state's limits (docs/saves.md, "A save we would load"): the
/// world's edge (±524,288 m) and a hair either side, the speed limits (1,000 m/s and rad/s),
/// the clock's century, huge values f32 and f64 hold, subnormals and a negative zero.
const EDGE_F64: &[f64] = &[
    1e30,
    -1e30,
    3e38,
    -3e38,
    1e300,
    -1e300,
    -0.0,
    1.5e-45,
    1e-310,
    524_288.0,
    -524_288.0,
    524_287.968_75,
    524_288.031_25,
    -524_288.031_25,
    999.9,
    1000.0,
    1000.0001,
    -1000.0,
    LONGEST_CLOCK,
    LONGEST_CLOCK * (1.0 + 1e-15),
    LONGEST_CLOCK * 2.0,
    86_400.0,
];

fn odd_f64(rng: &mut Rng) -> f64 {
    if rng.one_in(2) {
        *rng.pick(EDGE_F64)
    } else {
        *rng.pick(ODD_F64)
    }
}

fn odd_f32(rng: &mut Rng) -> f32 {
    odd_f64(rng) as f32
}

fn odd_u32(rng: &mut Rng) -> u32 {
    let any = rng.next_u64() as u32;
    *rng.pick(&[0, 1, 2, 3, 255, 256, 65535, u32::MAX, any])
}

/// A save file: a real one changed at one of its layers.
pub fn generate(rng: &mut Rng) -> Vec<u8> {
    // One case in twelve: a hostile family, counts and spans toward and past their limits.
    if rng.one_in(12) {
        return super::hostile::generate_save(rng);
    }
    let file = rng.pick(corpus()).clone();
    match rng.below(10) {
        // Bytes of any kind, some with the magic in front.
        0 => {
            let mut bytes: Vec<u8> = if rng.one_in(2) {
                MAGIC.to_vec()
            } else {
                Vec::new()
            };
            let extra = rng.between(0, 48);
            bytes.extend((0..extra).map(|_| rng.next_u64() as u8));
            bytes
        }
        // The file's bytes changed: the checksum catches it.
        1 => {
            let mut bytes = file;
            mutate_bytes(rng, &mut bytes, LARGEST as usize);
            bytes
        }
        // The header's version and length, with a right checksum.
        2 => {
            let body_length = u64::from_le_bytes(file[24..32].try_into().expect("8 bytes"));
            let version = *rng.pick(&[0, 1, FORMAT_VERSION, FORMAT_VERSION + 1, u32::MAX]);
            let length = *rng.pick(&[
                0,
                1,
                body_length.saturating_sub(1),
                body_length,
                body_length + 1,
                body_length * 255,
                LARGEST,
                LARGEST + 1,
                u64::MAX,
            ]);
            file_of(version, length, &file[HEADER..])
        }
        // The compressed stream changed, the checksum and length right.
        3 => {
            let length = u64::from_le_bytes(file[24..32].try_into().expect("8 bytes"));
            let mut compressed = file[HEADER..].to_vec();
            mutate_bytes(rng, &mut compressed, 1 << 20);
            file_of(FORMAT_VERSION, length, &compressed)
        }
        // The body changed and wrapped again whole: the decoder reads it.
        4..=6 => {
            let mut body = body_of(&file);
            mutate_bytes(rng, &mut body, 1 << 20);
            file_of(
                FORMAT_VERSION,
                body.len() as u64,
                &lz4_flex::block::compress(&body),
            )
        }
        // The save's values changed and encoded again: the world's loading reads them.
        _ => {
            let mut save = WorldSave::decode(&file).expect("the corpus's saves decode");
            for _ in 0..rng.between(1, 3) {
                change_save(rng, &mut save);
            }
            save.encode()
        }
    }
}

/// One change to a save's values.
fn change_save(rng: &mut Rng, save: &mut WorldSave) {
    match rng.below(16) {
        0 => save.clock = odd_f64(rng),
        1 => {
            save.ground = if rng.one_in(3) {
                GroundKind::Generated {
                    seed: rng.next_u64() as u32,
                }
            } else {
                GroundKind::Plane {
                    height: odd_f32(rng),
                    slope: odd_f32(rng),
                }
            }
        }
        2 => {
            let length = *rng.pick(&[0, 1, 511, 512, 513, 4096]);
            let value = *rng.pick(&[0, 1, -1, i64::MAX, i64::MIN, 1 << 40]);
            let brick = [0; 3].map(|_| *rng.pick(ODD_I32));
            save.edits.push(EditedBrick {
                brick,
                offsets: vec![value; length],
            });
        }
        3 => {
            if let Some(edit) = save.edits.first_mut() {
                let at = rng.below(edit.offsets.len().max(1));
                if let Some(offset) = edit.offsets.get_mut(at) {
                    *offset = *rng.pick(&[i64::MAX, i64::MIN, -1, 1 << 50]);
                }
                if rng.one_in(2) {
                    let copy = edit.clone();
                    save.edits.push(copy);
                }
            }
        }
        4 => {
            let blocks = &mut save.blocks;
            match rng.below(5) {
                0 if !blocks.kinds.is_empty() => {
                    let at = rng.below(blocks.kinds.len());
                    blocks.kinds[at] = odd_u32(rng);
                }
                1 => {
                    let axis = rng.below(3);
                    if !blocks.steps[axis].is_empty() {
                        let at = rng.below(blocks.steps[axis].len());
                        blocks.steps[axis][at] = *rng.pick(ODD_I32);
                    }
                }
                2 => blocks.generations.push(odd_u32(rng)),
                3 => blocks.free.push(odd_u32(rng)),
                _ => {
                    let axis = rng.below(3);
                    blocks.steps[axis].pop();
                }
            }
        }
        5 => {
            if !save.pieces.is_empty() {
                let at = rng.below(save.pieces.len());
                match rng.below(4) {
                    0 => {
                        let copy = save.pieces[at].clone();
                        save.pieces.push(copy);
                    }
                    1 => {
                        save.pieces.remove(at);
                    }
                    2 => save.pieces[at].blocks.clear(),
                    _ => {
                        let other = rng.below(save.pieces.len());
                        let handle = save.pieces[other].handle;
                        save.pieces[at].handle = handle;
                    }
                }
            }
        }
        6 => save.physics.time = odd_f64(rng),
        7 | 8 => {
            if !save.physics.bodies.is_empty() {
                let at = rng.below(save.physics.bodies.len());
                let body = &mut save.physics.bodies[at];
                match rng.below(8) {
                    0 => body.position[rng.below(3)] = odd_f64(rng),
                    1 => body.orientation[rng.below(4)] = odd_f64(rng),
                    2 => body.orientation = [0.0; 4],
                    3 => body.velocity[rng.below(3)] = odd_f64(rng),
                    4 => body.angular_velocity[rng.below(3)] = odd_f64(rng),
                    5 => body.still = odd_f64(rng),
                    6 => body.age = odd_f64(rng),
                    _ => body.touching = odd_u32(rng),
                }
            }
        }
        9 if rng.one_in(2) => {
            // The contact pushes warm starting carries on from.
            let contacts = &mut save.physics.contacts;
            let bodies = &save.physics.bodies;
            match rng.below(4) {
                0 if !contacts.is_empty() => {
                    let at = rng.below(contacts.len());
                    contacts[at].normal = odd_f64(rng);
                }
                1 if !contacts.is_empty() => {
                    let at = rng.below(contacts.len());
                    contacts[at].friction[rng.below(3)] = odd_f64(rng);
                }
                2 if !contacts.is_empty() => {
                    let at = rng.below(contacts.len());
                    contacts[at].key.point = odd_u32(rng);
                    if rng.one_in(2) {
                        let copy = contacts[at];
                        contacts.push(copy);
                    }
                }
                _ if !bodies.is_empty() => {
                    let body = bodies[rng.below(bodies.len())].handle;
                    let other = bodies[rng.below(bodies.len())].handle;
                    contacts.push(ContactImpulse {
                        key: ContactKey {
                            body,
                            other: rng.one_in(2).then_some(other),
                            point: odd_u32(rng),
                        },
                        normal: odd_f64(rng),
                        friction: [0.0; 3].map(|_| odd_f64(rng)),
                    });
                }
                _ => contacts.clear(),
            }
        }
        9 => {
            let physics = &mut save.physics;
            match rng.below(4) {
                0 => physics.generations.push(odd_u32(rng)),
                1 => physics.free.push(odd_u32(rng)),
                2 => {
                    physics.bodies.pop();
                }
                _ => {
                    if let Some(&body) = physics.bodies.first() {
                        physics.bodies.push(body);
                    }
                }
            }
        }
        10 => save.player.feet[rng.below(3)] = odd_f32(rng),
        11 => save.player.velocity[rng.below(3)] = odd_f32(rng),
        12 => {
            if rng.one_in(2) {
                save.player.yaw = odd_f32(rng);
            } else {
                save.player.pitch = odd_f32(rng);
            }
        }
        13 => match rng.below(4) {
            0 => save.tool.material = rng.next_u64() as u8,
            1 => save.tool.size = rng.next_u64() as u8,
            2 => save.tool.radius = odd_f32(rng),
            _ => save.tool.wait = odd_f32(rng),
        },
        14 => {
            save.held.tool = Some((rng.one_in(2), rng.one_in(2)));
            save.held.tool_released = rng.one_in(2);
            save.held.controls.forward = rng.one_in(2);
            save.held.controls.jump = rng.one_in(2);
        }
        _ => {
            save.player.flying = rng.one_in(2);
            save.player.grounded = rng.one_in(2);
            save.player.embodied = rng.one_in(2);
        }
    }
}

/// Decodes the file; loads and steps what decodes.
pub fn check(input: &[u8]) -> Result<Outcome, String> {
    let save = match WorldSave::decode(input) {
        Ok(save) => save,
        Err(error) => {
            check_message(&error.to_string())?;
            return Ok(Outcome::Refused);
        }
    };
    let pool = WorkerPool::new(1).map_err(|error| format!("one worker thread: {error}"))?;
    let (clock, mut held) = (save.clock, Input::default());
    save.held.hold(&mut held);
    let mut world = match World::from_save(save, pool.clone(), RADIUS) {
        Ok(world) => world,
        Err(error) => {
            check_message(&error.to_string())?;
            return Ok(Outcome::Accepted);
        }
    };
    // What loads saves, and loads again to the same bytes.
    let first = again(&world, clock, &held)?;
    let loaded = World::from_save(
        WorldSave::decode(&first).map_err(|error| format!("its save is refused: {error}"))?,
        pool,
        RADIUS,
    )
    .map_err(|error| format!("its save does not load: {error}"))?;
    let second = again(&loaded, clock, &held)?;
    if first != second {
        return Err(format!(
            "load, save, load, save gives two different files ({} and {} bytes)",
            first.len(),
            second.len()
        ));
    }
    let mut input = Input::default();
    for _ in 0..FRAMES {
        world.frame(1.0 / 60.0, &mut input, &[]);
    }
    // Stepped, it is still a world we would load (at the same clock: a clock at the century
    // would pass it).
    again(&world, clock, &input)?;
    Ok(Outcome::Used)
}

/// `world`'s save file at `clock`, or why it would be refused: a world that loaded must save.
fn again(world: &World, clock: f64, held: &Input) -> Result<Vec<u8>, String> {
    let save = world.save(clock, held);
    save.check()
        .map_err(|error| format!("a world that loaded does not save: {error}"))?;
    Ok(save.encode())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_loads_and_a_damaged_file_is_refused() {
        for file in corpus() {
            assert_eq!(check(file), Ok(Outcome::Used));
            assert_eq!(check(&file[..file.len() - 1]), Ok(Outcome::Refused));
        }
    }

    #[test]
    fn a_file_made_again_around_its_body_is_the_same_file() {
        let file = &corpus()[0];
        let body = body_of(file);
        let length = body.len() as u64;
        assert_eq!(&file_of(FORMAT_VERSION, length, &file[HEADER..]), file);
    }
}
