//! A generated city on the world's ground, for the support benchmark: buildings of 1 m blocks
//! with walls sunk into the ground, window gaps, a floor every 3 m, and bridges between
//! neighbouring buildings; and a platform on a single pillar for the worst case.

use blockfall_game::blocks::materials::{BRICKS, PLANKS, PLASTER, STONE};
use blockfall_game::blocks::store::{Block, BlockId, BlockStore};
use blockfall_game::showcase::{first_meter_above_ground, ShowcaseError};
use blockfall_game::terrain::{Field, Samples};

use crate::bench::shared::Rng;

/// Meters between the lots' corners.
const LOT: i32 = 28;
/// Cells per block (1 m blocks) and per floor (3 m).
const BLOCK: i32 = 2;
const FLOOR: i32 = 3 * BLOCK;

/// What was built.
#[derive(Debug, Default, Clone)]
pub struct City {
    pub buildings: usize,
    pub bridges: usize,
    pub blocks: usize,
}

/// A building's place: its lowest cell corner, size in blocks, floors and base height (cells).
#[derive(Debug, Clone, Copy)]
struct Building {
    x: i32,
    z: i32,
    width: i32,
    depth: i32,
    floors: i32,
    base: i32,
}

impl Building {
    fn top(&self) -> i32 {
        self.base + self.floors * FLOOR
    }
}

/// The lots in rings around (0, 0): the city grows outward until it has enough blocks.
fn lots() -> impl Iterator<Item = (i32, i32)> {
    (0i32..).flat_map(|ring| {
        (-ring..=ring).flat_map(move |a| {
            (-ring..=ring)
                .filter(move |&b| a.abs() == ring || b.abs() == ring)
                .map(move |b| (a, b))
        })
    })
}

fn add(store: &mut BlockStore, x: i32, y: i32, z: i32, material: usize) -> usize {
    match Block::new(x, y, z, BLOCK as u8, material as u8, 0, false) {
        Ok(block) => usize::from(store.add(block).is_ok()),
        Err(_) => 0,
    }
}

/// Builds buildings on lots around the origin until about `target` blocks stand.
pub fn build_city<S: Samples>(
    store: &mut BlockStore,
    field: &Field<S>,
    surface_height: impl Fn(f32, f32) -> f32 + Copy,
    target: usize,
    seed: u64,
) -> Result<City, ShowcaseError> {
    let mut rng = Rng::new(seed);
    let mut city = City::default();
    let mut built: Vec<((i32, i32), Building)> = Vec::new();
    for (a, b) in lots() {
        if city.blocks >= target {
            break;
        }
        let width = rng.range(10, 20);
        let depth = rng.range(10, 20);
        let floors = rng.range(3, 14);
        let x = a * LOT * 2;
        let z = b * LOT * 2;
        let ground = |cx, cz| first_meter_above_ground(field, surface_height, cx, cz);
        let mut base = i32::MIN;
        for (cx, cz) in [
            (x, z),
            (x + (width - 1) * BLOCK, z),
            (x, z + (depth - 1) * BLOCK),
            (x + (width - 1) * BLOCK, z + (depth - 1) * BLOCK),
            (x + width / 2 * BLOCK, z + depth / 2 * BLOCK),
        ] {
            base = base.max(ground(cx, cz)?);
        }
        let building = Building {
            x,
            z,
            width,
            depth,
            floors,
            base,
        };
        city.blocks += build(store, &building, &ground)?;
        city.buildings += 1;
        built.push(((a, b), building));
    }
    // Bridges to the neighbour on +x, on the first floor above both bases.
    for &((a, b), from) in &built {
        let Some(&(_, to)) = built.iter().find(|(lot, _)| *lot == (a + 1, b)) else {
            continue;
        };
        let y = from.base.max(to.base) + FLOOR;
        if y > from.top().min(to.top()) {
            continue;
        }
        let z = from.z + from.depth.min(to.depth) / 2 * BLOCK;
        for x in (from.x + from.width * BLOCK..to.x).step_by(BLOCK as usize) {
            for dz in [0, BLOCK] {
                city.blocks += add(store, x, y, z + dz, PLANKS);
            }
        }
        city.bridges += 1;
    }
    Ok(city)
}

/// One building: perimeter walls from one block below their own ground up to the roof, a
/// window gap on every third column between floors, and a floor every 3 m.
fn build(
    store: &mut BlockStore,
    building: &Building,
    ground: &impl Fn(i32, i32) -> Result<i32, ShowcaseError>,
) -> Result<usize, ShowcaseError> {
    let mut added = 0;
    let top = building.top();
    for i in 0..building.width {
        for k in 0..building.depth {
            let (cx, cz) = (building.x + i * BLOCK, building.z + k * BLOCK);
            let wall = i == 0 || k == 0 || i == building.width - 1 || k == building.depth - 1;
            if wall {
                let window = (i + k) % 3 == 1;
                let foot = ground(cx, cz)?.min(building.base) - BLOCK;
                for y in (foot..=top).step_by(BLOCK as usize) {
                    let between_floors = y > building.base && (y - building.base) % FLOOR != 0;
                    if window && between_floors {
                        continue;
                    }
                    added += add(
                        store,
                        cx,
                        y,
                        cz,
                        if y < building.base { STONE } else { BRICKS },
                    );
                }
            } else {
                for y in (building.base..=top).step_by(FLOOR as usize) {
                    added += add(store, cx, y, cz, PLASTER);
                }
            }
        }
    }
    Ok(added)
}

/// A platform of about `blocks` 1 m blocks, 10 layers deep, 20 m above the highest ground under
/// it, standing on one pillar of 1 m blocks at its middle: the pillar's top block is its only
/// support. Returns that block and the platform's block count.
pub fn build_platform<S: Samples>(
    store: &mut BlockStore,
    field: &Field<S>,
    surface_height: impl Fn(f32, f32) -> f32 + Copy,
    x: i32,
    z: i32,
    blocks: usize,
) -> Result<(BlockId, usize), ShowcaseError> {
    const LAYERS: i32 = 10;
    let side = ((blocks as f64 / f64::from(LAYERS)).sqrt().ceil() as i32).max(1);
    let ground = |cx, cz| first_meter_above_ground(field, surface_height, cx, cz);
    let mut highest = i32::MIN;
    for i in (0..=side).step_by(4) {
        for k in (0..=side).step_by(4) {
            highest = highest.max(ground(x + i * BLOCK, z + k * BLOCK)?);
        }
    }
    let bottom = highest + 20 * BLOCK;
    let (px, pz) = (x + side / 2 * BLOCK, z + side / 2 * BLOCK);
    let foot = ground(px, pz)? - BLOCK;
    let mut top_of_pillar = None;
    for y in (foot..bottom).step_by(BLOCK as usize) {
        if let Ok(block) = Block::new(px, y, pz, BLOCK as u8, STONE as u8, 0, false) {
            if let Ok(id) = store.add(block) {
                top_of_pillar = Some(id);
            }
        }
    }
    let mut added = 0;
    'layers: for layer in 0..LAYERS {
        for i in 0..side {
            for k in 0..side {
                if added >= blocks {
                    break 'layers;
                }
                let y = bottom + layer * BLOCK;
                added += add(store, x + i * BLOCK, y, z + k * BLOCK, STONE);
            }
        }
    }
    let support = top_of_pillar.ok_or(ShowcaseError::OutOfGrid(x as f32, z as f32))?;
    Ok((support, added))
}
