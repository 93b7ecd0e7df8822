//! The physics benchmark's scenes and where their pieces go: the drop scene (random pieces two
//! to a column, dropped onto the default world), the heap (small pieces falling into a pit),
//! the pyramid (single cubes stacked on flat ground), the resting scene of the capacity trials
//! (4 × 4 × 4 pieces just above the ground), the turns that place them, and the area a scene
//! covers.

use blockfall_game::blocks::MATERIALS;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::generator::SPAWN_XZ;
use blockfall_game::terrain::{Generator, Ground};
use blockfall_physics::collision::Solid;

use super::piece::BenchPiece;
use crate::bench::shared::{world_field, BenchField, Rng};

/// Meters between the columns of dropped pieces.
pub(super) const COLUMN_SPACING: f64 = 6.0;

/// Meters of terrain meshed for rapier around the pieces' spread.
const TERRAIN_BORDER: f64 = 10.0;

/// A piece placed in the world: the middle of its box at `at`, turned by `turn` (`[x, y, z,
/// w]`).
#[derive(Debug, Clone)]
pub(super) struct Placed {
    pub(super) piece: BenchPiece,
    pub(super) at: [f64; 3],
    pub(super) turn: [f64; 4],
}

/// The turn `b`, then `a`.
fn quaternion_times(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// A turn by `angle` radians about axis `axis` (0, 1, 2: x, y, z).
fn about_axis(axis: usize, angle: f64) -> [f64; 4] {
    let mut q = [0.0, 0.0, 0.0, (angle * 0.5).cos()];
    q[axis] = (angle * 0.5).sin();
    q
}

/// `v` turned by `q`.
pub(super) fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let [x, y, z, w] = q;
    let u = [x, y, z];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cross(u, v).map(|value| 2.0 * value);
    let c = cross(u, t);
    [0, 1, 2].map(|axis| v[axis] + w * t[axis] + c[axis])
}

/// A number in `[0, 1)`.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The highest ground under a square of `half` meters around `(x, z)`, sampled every meter.
fn ground_under(generator: &Generator, x: f64, z: f64, half: f64) -> f64 {
    let steps = (half * 2.0).ceil() as i32;
    let mut highest = f64::NEG_INFINITY;
    for i in 0..=steps {
        for k in 0..=steps {
            let sx = x - half + f64::from(i) * (2.0 * half / f64::from(steps.max(1)));
            let sz = z - half + f64::from(k) * (2.0 * half / f64::from(steps.max(1)));
            highest = highest.max(f64::from(generator.surface_height(sx as f32, sz as f32)));
        }
    }
    highest
}

/// `count` random pieces, two to a column on a grid around the spawn point: the lower one 2 to
/// 4 m above the ground, the upper one 1.5 to 3.5 m above the lower one.
pub(super) fn drop_scene(generator: &Generator, count: usize, seed: u64) -> Vec<Placed> {
    let mut rng = Rng::new(seed);
    let columns = count.div_ceil(2);
    let side = (columns as f64).sqrt().ceil() as usize;
    let mut placed = Vec::with_capacity(count);
    let mut tops = vec![0.0f64; columns];
    for index in 0..count {
        let column = index / 2;
        let dims = [0; 3].map(|_| 1 + (rng.next_u64() % 4) as usize);
        let material = (rng.next_u64() % MATERIALS.len() as u64) as usize;
        let volume = dims[0] * dims[1] * dims[2];
        let piece = if index % 4 < 2 {
            BenchPiece::solid_box(dims, material)
        } else {
            let count = 1 + (rng.next_u64() % volume as u64) as usize;
            BenchPiece::lattice(dims, count, material, &mut rng)
        };
        let turn = quaternion_times(
            about_axis(1, unit(&mut rng) * std::f64::consts::TAU),
            quaternion_times(
                about_axis(0, (unit(&mut rng) - 0.5) * 0.4),
                about_axis(2, (unit(&mut rng) - 0.5) * 0.4),
            ),
        );
        let (i, k) = (column % side, column / side);
        let x = f64::from(SPAWN_XZ[0]) + (i as f64 - (side - 1) as f64 * 0.5) * COLUMN_SPACING;
        let z = f64::from(SPAWN_XZ[1]) + (k as f64 - (side - 1) as f64 * 0.5) * COLUMN_SPACING;
        // Half the box's diagonal bounds how far it reaches from its middle, turned any way.
        let reach = 0.5 * ((dims[0].pow(2) + dims[1].pow(2) + dims[2].pow(2)) as f64).sqrt();
        let low = if index % 2 == 0 {
            ground_under(generator, x, z, COLUMN_SPACING * 0.5) + 2.0 + unit(&mut rng) * 2.0
        } else {
            tops[column] + 1.5 + unit(&mut rng) * 2.0
        };
        let y = low + reach;
        tops[column] = y + reach;
        placed.push(Placed {
            piece,
            at: [x, y, z],
            turn,
        });
    }
    placed
}

/// The heap scene's pit: a sphere dug into the ground at the spawn point, its middle
/// [`PIT_RISE`] above the ground there, so a bowl 10 m deep and some 27 m across.
pub(super) struct Pit {
    pub(super) centre: [f64; 3],
    pub(super) radius: f64,
}

/// The pit's sphere radius and how far its middle is above the ground.
const PIT_RADIUS: f64 = 14.0;
const PIT_RISE: f64 = 4.0;
/// Columns of the heap on each side, and meters between neighbouring pieces (sideways and up):
/// a piece of at most 2 × 2 × 2 blocks, turned by a quarter turn and tilted by at most
/// [`HEAP_TILT`], reaches at most 1.15 m from its middle on any axis.
const HEAP_SIDE: usize = 8;
const HEAP_SPACING: f64 = 2.4;
const HEAP_TILT: f64 = 0.1;

impl Pit {
    pub(super) fn at_spawn(generator: &Generator) -> Self {
        let [x, z] = SPAWN_XZ.map(f64::from);
        let ground = f64::from(generator.surface_height(x as f32, z as f32));
        Self {
            centre: [x, ground + PIT_RISE, z],
            radius: PIT_RADIUS,
        }
    }

    /// The lowest point of the bowl.
    pub(super) fn bottom(&self) -> f64 {
        self.centre[1] - self.radius
    }

    /// Digs the pit into `field`.
    pub(super) fn dig(&self, field: &mut BenchField) -> anyhow::Result<()> {
        field.dig(self.centre.map(|value| value as f32), self.radius as f32)?;
        Ok(())
    }
}

/// The ground's height at `(x, z)` in `field` (edits included): the first point inside the
/// ground going down from `from` in steps of 5 cm.
pub(super) fn ground_height(field: &BenchField, x: f64, z: f64, from: f64) -> f64 {
    let mut y = from;
    while field.probe(x as f32, y as f32, z as f32).density <= 0.0 && y > from - 200.0 {
        y -= 0.05;
    }
    y
}

/// `count` random small pieces (1 to 2 blocks on each side, boxes and lattices) over `pit`,
/// dug into `field`, in [`HEAP_SIDE`]² columns [`HEAP_SPACING`] apart, layer above layer from
/// just over the ground under each column: they fall a few meters and heap up, so that most
/// contacts are piece against piece.
pub(super) fn heap_scene(field: &BenchField, pit: &Pit, count: usize, seed: u64) -> Vec<Placed> {
    let mut rng = Rng::new(seed);
    let columns = HEAP_SIDE * HEAP_SIDE;
    (0..count)
        .map(|index| {
            let (column, layer) = (index % columns, index / columns);
            let dims = [0; 3].map(|_| 1 + (rng.next_u64() % 2) as usize);
            let material = (rng.next_u64() % MATERIALS.len() as u64) as usize;
            let volume = dims[0] * dims[1] * dims[2];
            let piece = if index % 4 < 2 || volume == 1 {
                BenchPiece::solid_box(dims, material)
            } else {
                let count = 1 + (rng.next_u64() % volume as u64) as usize;
                BenchPiece::lattice(dims, count, material, &mut rng)
            };
            let quarter = (rng.next_u64() % 4) as f64 * std::f64::consts::FRAC_PI_2;
            let turn = quaternion_times(
                about_axis(1, quarter),
                quaternion_times(
                    about_axis(0, (unit(&mut rng) - 0.5) * 2.0 * HEAP_TILT),
                    about_axis(2, (unit(&mut rng) - 0.5) * 2.0 * HEAP_TILT),
                ),
            );
            let offset = |i: usize| (i as f64 - (HEAP_SIDE - 1) as f64 * 0.5) * HEAP_SPACING;
            let (x, z) = (
                pit.centre[0] + offset(column % HEAP_SIDE),
                pit.centre[2] + offset(column / HEAP_SIDE),
            );
            // The highest ground under the piece's reach (the bowl rises to its rim).
            let half = HEAP_SPACING * 0.5;
            let floor = [
                (0.0, 0.0),
                (-half, -half),
                (-half, half),
                (half, -half),
                (half, half),
            ]
            .iter()
            .map(|(sx, sz)| ground_height(field, x + sx, z + sz, pit.centre[1] + 20.0))
            .fold(f64::NEG_INFINITY, f64::max);
            let y = floor + 1.5 + HEAP_SPACING * layer as f64;
            Placed {
                piece,
                at: [x, y, z],
                turn,
            }
        })
        .collect()
}

/// The heap scene whole: the pit at the spawn point of `generator`'s world, that world's
/// field with the pit dug, and `count` pieces over it (see [`heap_scene`]).
pub(super) fn heap_world(
    generator: &Generator,
    count: usize,
    seed: u64,
) -> anyhow::Result<(BenchField, Pit, Vec<Placed>)> {
    let pit = Pit::at_spawn(generator);
    let mut field = world_field(generator);
    pit.dig(&mut field)?;
    let placed = heap_scene(&field, &pit, count, seed);
    Ok((field, pit, placed))
}

/// `count` 4 × 4 × 4 stone pieces on a 5 m grid around the spawn point, 5 cm above the ground
/// under them.
pub(super) fn resting_scene(generator: &Generator, count: usize) -> Vec<Placed> {
    let side = (count as f64).sqrt().ceil() as usize;
    (0..count)
        .map(|index| {
            let (i, k) = (index % side, index / side);
            let x = f64::from(SPAWN_XZ[0]) + (i as f64 - (side - 1) as f64 * 0.5) * 5.0;
            let z = f64::from(SPAWN_XZ[1]) + (k as f64 - (side - 1) as f64 * 0.5) * 5.0;
            let y = ground_under(generator, x, z, 2.0) + 0.05 + 2.0;
            Placed {
                piece: BenchPiece::solid_box([4, 4, 4], 0),
                at: [x, y, z],
                turn: [0.0, 0.0, 0.0, 1.0],
            }
        })
        .collect()
}

/// Cubes in the bottom row of the pyramid; each row above has one fewer, so 210 in all.
pub(super) const PYRAMID_BASE: usize = 20;

/// The pyramid: [`PYRAMID_BASE`] single 1 m stone cubes in a row on flat ground whose top is at
/// `ground`, each row above one shorter and shifted half a cube, every cube touching its
/// neighbours face to face (one cube deep: the two-dimensional pyramid every engine's
/// examples stack). The bottom row's middle is over the origin.
pub(super) fn pyramid_scene(ground: f64) -> Vec<Placed> {
    let mut placed = Vec::new();
    for row in 0..PYRAMID_BASE {
        let count = PYRAMID_BASE - row;
        for index in 0..count {
            let x = (index as f64 - (count - 1) as f64 * 0.5) * 1.0;
            let y = ground + 0.5 + row as f64;
            placed.push(Placed {
                piece: BenchPiece::solid_box([1, 1, 1], 0),
                at: [x, y, 0.0],
                turn: [0.0, 0.0, 0.0, 1.0],
            });
        }
    }
    placed
}

/// The ground under a scene: a rectangle of x and z around the pieces' spread with
/// [`TERRAIN_BORDER`] to spare, and the lowest and highest ground in it (before any edit),
/// sampled every meter.
pub(super) struct DropArea {
    /// The low x and z.
    pub(super) low: [f64; 2],
    /// The high x and z.
    pub(super) high: [f64; 2],
    pub(super) lowest_ground: f64,
    pub(super) highest_ground: f64,
}

impl DropArea {
    pub(super) fn around(ground: &dyn Ground, placed: &[Placed]) -> Self {
        let mut low = [f64::INFINITY; 2];
        let mut high = [f64::NEG_INFINITY; 2];
        for place in placed {
            for (axis, along) in [(0, 0), (1, 2)] {
                low[axis] = low[axis].min(place.at[along] - TERRAIN_BORDER);
                high[axis] = high[axis].max(place.at[along] + TERRAIN_BORDER);
            }
        }
        let mut lowest_ground = f64::INFINITY;
        let mut highest_ground = f64::NEG_INFINITY;
        let mut x = low[0];
        while x <= high[0] {
            let mut z = low[1];
            while z <= high[1] {
                let height = f64::from(ground.surface_height(x as f32, z as f32));
                lowest_ground = lowest_ground.min(height);
                highest_ground = highest_ground.max(height);
                z += 1.0;
            }
            x += 1.0;
        }
        Self {
            low,
            high,
            lowest_ground,
            highest_ground,
        }
    }

    /// Warms the field's sample cache over the area, as the game's is where pieces fall.
    pub(super) fn warm(&self, ground: &dyn Ground, solids: &SceneSolids<'_>) {
        let (low, high) = (self.low, self.high);
        let mut z = low[1];
        while z <= high[1] {
            let mut x = low[0];
            while x <= high[0] {
                let height = ground.surface_height(x as f32, z as f32);
                for dy in -2..=4 {
                    solids.nearest([x as f32, height + dy as f32 * 4.0, z as f32], 1.0);
                }
                x += 4.0;
            }
            z += 4.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_pieces_start_apart_and_above_the_ground() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let (field, pit, placed) = heap_world(&generator, 400, 1).expect("the heap");
        assert_eq!(placed.len(), 400);
        let lowest = placed
            .iter()
            .map(|place| place.at[1])
            .fold(f64::INFINITY, f64::min);
        assert!(
            lowest < pit.centre[1] - PIT_RISE - 3.0,
            "the first layer is down in the pit: {lowest} m"
        );
        // Half the spacing: neighbours 2.4 m apart never overlap.
        let room = HEAP_SPACING * 0.5;
        for place in &placed {
            let middle = place.piece.box_middle();
            for corner in 0..8 {
                let local = [0, 1, 2].map(|axis| {
                    let high = (corner >> axis) & 1 == 1;
                    if high {
                        middle[axis]
                    } else {
                        -middle[axis]
                    }
                });
                let turned = rotate(place.turn, local);
                for (axis, offset) in turned.iter().enumerate() {
                    assert!(
                        offset.abs() < room,
                        "axis {axis}: {offset} m from the middle"
                    );
                }
                let [x, y, z] = [0, 1, 2].map(|axis| place.at[axis] + turned[axis]);
                let density = field.probe(x as f32, y as f32, z as f32).density;
                assert!(density <= 0.0, "a corner in the ground at {:?}", [x, y, z]);
            }
        }
    }
}
