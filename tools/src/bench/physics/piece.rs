//! The physics benchmark's pieces: plain 1 m blocks in a box, full or a random lattice grown
//! face to face, as blockfall's physics core sees them: a body of one part per block, its
//! contact points (the half-meter lattice points on its outside), and the exact distance to
//! the union of its blocks.

use blockfall_game::blocks::MATERIALS;
use blockfall_physics::collision::{box_face, Around, FaceAnswer, Surface, FLUSH};
use blockfall_physics::{BodyDesc, Part};

use crate::bench::shared::Rng;

/// A piece of plain 1 m blocks in its own frame: the low corner of its box at the origin,
/// block `(i, j, k)` filling `[i, i + 1] × [j, j + 1] × [k, k + 1]`.
#[derive(Debug, Clone)]
pub struct BenchPiece {
    /// Blocks along x, y, z of its box.
    pub dims: [usize; 3],
    /// Whether each block of the box is there, x fastest.
    filled: Vec<bool>,
    /// An index into [`MATERIALS`].
    pub material: usize,
}

impl BenchPiece {
    /// A full box of `dims` blocks.
    pub fn solid_box(dims: [usize; 3], material: usize) -> Self {
        Self {
            dims,
            filled: vec![true; dims[0] * dims[1] * dims[2]],
            material,
        }
    }

    /// `count` blocks grown at random, face to face, inside a box of `dims` blocks.
    pub(super) fn lattice(dims: [usize; 3], count: usize, material: usize, rng: &mut Rng) -> Self {
        let mut piece = Self {
            dims,
            filled: vec![false; dims[0] * dims[1] * dims[2]],
            material,
        };
        let volume = piece.filled.len();
        let count = count.clamp(1, volume);
        let mut cells = vec![(rng.next_u64() % volume as u64) as usize];
        piece.filled[cells[0]] = true;
        while cells.len() < count {
            let from = cells[(rng.next_u64() % cells.len() as u64) as usize];
            let [x, y, z] = piece.position(from).map(|value| value as i32);
            let step = [
                [1, 0, 0],
                [-1, 0, 0],
                [0, 1, 0],
                [0, -1, 0],
                [0, 0, 1],
                [0, 0, -1],
            ][(rng.next_u64() % 6) as usize];
            if let Some(index) = piece.index(x + step[0], y + step[1], z + step[2]) {
                if !piece.filled[index] {
                    piece.filled[index] = true;
                    cells.push(index);
                }
            }
        }
        piece
    }

    fn position(&self, index: usize) -> [usize; 3] {
        let [nx, ny, _] = self.dims;
        [index % nx, (index / nx) % ny, index / (nx * ny)]
    }

    fn index(&self, x: i32, y: i32, z: i32) -> Option<usize> {
        let [nx, ny, nz] = self.dims.map(|value| value as i32);
        ((0..nx).contains(&x) && (0..ny).contains(&y) && (0..nz).contains(&z))
            .then(|| (x + nx * (y + ny * z)) as usize)
    }

    fn is_filled(&self, x: i32, y: i32, z: i32) -> bool {
        self.index(x, y, z).is_some_and(|index| self.filled[index])
    }

    /// The low corners of its blocks.
    pub fn blocks(&self) -> impl Iterator<Item = [usize; 3]> + '_ {
        (0..self.filled.len())
            .filter(|&index| self.filled[index])
            .map(|index| self.position(index))
    }

    pub fn block_count(&self) -> usize {
        self.filled.iter().filter(|filled| **filled).count()
    }

    /// The middle of its box, in its own frame.
    pub fn box_middle(&self) -> [f64; 3] {
        self.dims.map(|value| value as f64 * 0.5)
    }

    /// Kilograms per block.
    pub fn block_mass(&self) -> f64 {
        f64::from(MATERIALS[self.material].density)
    }

    /// Its mass (kg), middle of mass and inertia about that middle (kg m²), in its own frame:
    /// what blockfall's physics core works out from its parts ([`BenchPiece::desc`]), the sum
    /// of each block's own inertia and its mass at its distance (the parallel axis theorem).
    pub fn mass_properties(&self) -> (f64, [f64; 3], [[f64; 3]; 3]) {
        let mass = self.block_mass();
        let count = self.block_count() as f64;
        let mut middle = [0.0; 3];
        for block in self.blocks() {
            for axis in 0..3 {
                middle[axis] += (block[axis] as f64 + 0.5) / count;
            }
        }
        let mut inertia = [[0.0; 3]; 3];
        for block in self.blocks() {
            let d = [0, 1, 2].map(|axis| block[axis] as f64 + 0.5 - middle[axis]);
            let square = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            for (row, line) in inertia.iter_mut().enumerate() {
                for (column, value) in line.iter_mut().enumerate() {
                    let own = if row == column {
                        mass / 6.0 + mass * square
                    } else {
                        0.0
                    };
                    *value += own - mass * d[row] * d[column];
                }
            }
        }
        (mass * count, middle, inertia)
    }

    /// Its parts (one per block: density × 1 m³, inertia m s² / 6 about the block's middle)
    /// and its contact points: every half-meter lattice point of its half-meter cells that is
    /// not surrounded by 8 of them.
    pub fn desc(&self) -> BodyDesc {
        let mass = self.block_mass();
        let own = mass / 6.0;
        let parts = self
            .blocks()
            .map(|[i, j, k]| Part {
                mass,
                center: [i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5],
                inertia: [[own, 0.0, 0.0], [0.0, own, 0.0], [0.0, 0.0, own]],
            })
            .collect();
        // A half cell (u, v, w) lies in block (u / 2, v / 2, w / 2).
        let half_filled = |u: i32, v: i32, w: i32| {
            u >= 0 && v >= 0 && w >= 0 && self.is_filled(u / 2, v / 2, w / 2)
        };
        let [nx, ny, nz] = self.dims.map(|value| 2 * value as i32);
        let mut points = Vec::new();
        let mut around = Vec::new();
        for w in 0..=nz {
            for v in 0..=ny {
                for u in 0..=nx {
                    // Which of the eight half cells around the point are filled: bit
                    // `i | j << 1 | k << 2` for the cell on the positive side along the axes
                    // whose digit is 1 (`collision::Around::octants`).
                    let mut filled = 0u8;
                    for corner in 0..8 {
                        let (du, dv, dw) = (corner & 1, (corner >> 1) & 1, corner >> 2);
                        if half_filled(u - 1 + du, v - 1 + dv, w - 1 + dw) {
                            filled |= 1 << corner;
                        }
                    }
                    if filled != 0 && filled != u8::MAX {
                        points.push([f64::from(u) * 0.5, f64::from(v) * 0.5, f64::from(w) * 0.5]);
                        around.push(filled);
                    }
                }
            }
        }
        BodyDesc {
            parts,
            points,
            around,
        }
    }

    /// The nearest surface of the union of its blocks to `point` (its own frame) within
    /// `reach`: exact outside (the nearest block); inside, the nearest empty cell among the
    /// 26 around the point's block, exact for depths below a meter.
    pub fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        if !point.iter().all(|value| value.is_finite()) {
            return None;
        }
        let cell = point.map(floor);
        // The closest point of block `c` to `point`, and the offset to it.
        let offset_to = |c: [i32; 3]| {
            let mut offset = [0.0f32; 3];
            for axis in 0..3 {
                let low = c[axis] as f32;
                offset[axis] = point[axis].clamp(low, low + 1.0) - point[axis];
            }
            offset
        };
        let length = |v: [f32; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if self.is_filled(cell[0], cell[1], cell[2]) {
            let mut best: Option<(f32, [f32; 3], [i32; 3])> = None;
            for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let c = [cell[0] + dx, cell[1] + dy, cell[2] + dz];
                        if self.is_filled(c[0], c[1], c[2]) {
                            continue;
                        }
                        let offset = offset_to(c);
                        let distance = length(offset);
                        if best.is_none_or(|(nearest, _, _)| distance < nearest) {
                            best = Some((distance, offset, [dx, dy, dz]));
                        }
                    }
                }
            }
            let Some((distance, offset, towards)) = best else {
                // Deeper than a meter: out along the way from the piece's middle.
                let middle = self.box_middle();
                let away = [0, 1, 2].map(|axis| point[axis] - middle[axis] as f32);
                let norm = length(away).max(1e-6);
                return Some(Surface {
                    distance: -1.0,
                    normal: away.map(|value| value / norm),
                });
            };
            let normal = if distance > 1e-6 {
                offset.map(|value| value / distance)
            } else {
                let direction = towards.map(|value| value as f32);
                let norm = length(direction);
                direction.map(|value| value / norm)
            };
            return Some(Surface {
                distance: -distance,
                normal,
            });
        }
        let search = reach.clamp(0.0, 64.0);
        let low = point.map(|value| floor(value - search));
        let high = point.map(|value| floor(value + search));
        let mut best: Option<(f32, [f32; 3], [i32; 3])> = None;
        for z in low[2].max(0)..=high[2].min(self.dims[2] as i32 - 1) {
            for y in low[1].max(0)..=high[1].min(self.dims[1] as i32 - 1) {
                for x in low[0].max(0)..=high[0].min(self.dims[0] as i32 - 1) {
                    if !self.is_filled(x, y, z) {
                        continue;
                    }
                    let offset = offset_to([x, y, z]);
                    let distance = length(offset);
                    if best.is_none_or(|(nearest, _, _)| distance < nearest) {
                        best = Some((distance, offset, [x, y, z]));
                    }
                }
            }
        }
        let (distance, offset, block) = best?;
        if distance >= reach {
            return None;
        }
        let normal = if distance > 1e-6 {
            offset.map(|value| -value / distance)
        } else {
            // On the block's boundary: out from its middle along the largest axis.
            let away = [0, 1, 2].map(|axis| point[axis] - (block[axis] as f32 + 0.5));
            let axis = (0..3)
                .max_by(|&a, &b| away[a].abs().total_cmp(&away[b].abs()))
                .unwrap_or(1);
            let mut normal = [0.0; 3];
            normal[axis] = away[axis].signum();
            normal
        };
        Some(Surface { distance, normal })
    }
}

impl BenchPiece {
    /// [`BenchPiece::nearest`] asked from a body's point with what that body fills around it,
    /// as the game's blocks answer it (`collision::box_face`, each block a 1 m box, a side
    /// covered by a neighbour no way out): the face the point meets; where a block faces it
    /// with a real edge or corner, that block's true distance; deep inside, the union's way
    /// out ([`BenchPiece::nearest`]).
    pub fn nearest_around(&self, point: [f32; 3], reach: f32, around: &Around) -> Option<Surface> {
        if around.octants == 0 || !point.iter().all(|value| value.is_finite()) {
            return self.nearest(point, reach);
        }
        let search = reach.clamp(0.0, 64.0) + FLUSH;
        let low = point.map(|value| floor(value - search));
        let high = point.map(|value| floor(value + search));
        let mut best: Option<Surface> = None;
        let mut inside = false;
        for z in low[2].max(0)..=high[2].min(self.dims[2] as i32 - 1) {
            for y in low[1].max(0)..=high[1].min(self.dims[1] as i32 - 1) {
                for x in low[0].max(0)..=high[0].min(self.dims[0] as i32 - 1) {
                    if !self.is_filled(x, y, z) {
                        continue;
                    }
                    let cell = [x, y, z];
                    let bounds = (cell.map(|c| c as f32), cell.map(|c| c as f32 + 1.0));
                    let is_open = |side: usize| {
                        let mut next = cell;
                        next[side / 2] += if side % 2 == 1 { 1 } else { -1 };
                        !self.is_filled(next[0], next[1], next[2])
                    };
                    match box_face(bounds, point, around, 0.25, is_open) {
                        FaceAnswer::Face(surface) => {
                            if surface.distance < reach
                                && best.is_none_or(|b| surface.sooner(&b, around.motion))
                            {
                                best = Some(surface);
                            }
                        }
                        FaceAnswer::Beside => {}
                        FaceAnswer::Distance => {
                            // A real edge or corner of this block: its own true distance.
                            // Deep inside: the union's way out, below.
                            let away: [f32; 3] = std::array::from_fn(|axis| {
                                point[axis] - point[axis].clamp(bounds.0[axis], bounds.1[axis])
                            });
                            let distance =
                                (away[0] * away[0] + away[1] * away[1] + away[2] * away[2]).sqrt();
                            if distance <= 1e-6 {
                                inside = true;
                            } else if distance < reach {
                                let surface = Surface {
                                    distance,
                                    normal: away.map(|value| value / distance),
                                };
                                if best.is_none_or(|b| surface.sooner(&b, around.motion)) {
                                    best = Some(surface);
                                }
                            }
                        }
                    }
                }
            }
        }
        if inside {
            if let Some(surface) = self.nearest(point, reach) {
                if best.is_none_or(|b| surface.sooner(&b, around.motion)) {
                    best = Some(surface);
                }
            }
        }
        best
    }
}

/// `value.floor() as i32` without the call into libm that `floor` is on a baseline x86-64
/// build (no SSE4.1): the contact search floors nine times per point. Saturates like the cast.
fn floor(value: f32) -> i32 {
    let truncated = value as i32;
    if (truncated as f32) > value {
        truncated.saturating_sub(1)
    } else {
        truncated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_have_the_game_pieces_contact_points() {
        assert_eq!(BenchPiece::solid_box([1, 1, 1], 0).desc().points.len(), 26);
        assert_eq!(BenchPiece::solid_box([4, 4, 4], 0).desc().points.len(), 386);
        let desc = BenchPiece::solid_box([2, 1, 1], 2).desc();
        assert_eq!(desc.parts.len(), 2);
        assert!((desc.parts[0].mass - 600.0).abs() < 1e-9);
    }

    #[test]
    fn the_fast_floor_is_the_floor_cast() {
        for value in [
            0.0f32, -0.0, 0.5, -0.5, 1.0, -1.0, 2.999, -2.001, 1e9, -1e9, 3e9, -3e9, 1e-30,
        ] {
            assert_eq!(floor(value), value.floor() as i32, "{value}");
        }
    }

    #[test]
    fn lattices_have_as_many_blocks_as_asked() {
        let mut rng = Rng::new(3);
        for count in [1, 5, 20, 64] {
            let piece = BenchPiece::lattice([4, 4, 4], count, 0, &mut rng);
            assert_eq!(piece.block_count(), count);
        }
    }

    #[test]
    fn the_box_union_distance_is_exact() {
        // An L of three blocks: (0,0,0), (1,0,0), (0,1,0).
        let mut piece = BenchPiece::solid_box([2, 2, 1], 0);
        piece.filled[3] = false;
        let above = piece.nearest([1.5, 1.25, 0.5], 1.0).expect("near");
        assert!((above.distance - 0.25).abs() < 1e-6 && above.normal == [0.0, 1.0, 0.0]);
        let corner = piece.nearest([1.5, 1.5, 0.5], 1.0).expect("near");
        assert!((corner.distance - 0.5).abs() < 1e-6 && corner.normal == [0.0, 1.0, 0.0]);
        let inside = piece.nearest([0.5, 0.9, 0.5], 1.0).expect("inside");
        // Half a meter from the outside at x = 0 and at z = 0 and 1, farther from the
        // missing block (1, 1, 0).
        assert!((inside.distance + 0.5).abs() < 1e-6);
        let shallow = piece.nearest([1.5, 0.9, 0.5], 1.0).expect("inside");
        assert!((shallow.distance + 0.1).abs() < 1e-6 && shallow.normal == [0.0, 1.0, 0.0]);
        assert!(piece.nearest([5.0, 5.0, 5.0], 1.0).is_none());
    }
}
