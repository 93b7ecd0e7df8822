//! What lies under the edits: the generated world, or a simple ground for scenes and tests (the
//! `sim` tool's flat and sloped terrains). The edits, the field and the chunks work on any.

use std::fmt::Debug;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::generator::{ChunkKind, Generator};

/// Which ground, as data: what a save keeps to make the same ground again.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum GroundKind {
    /// The generated world of a seed.
    Generated { seed: u32 },
    /// A [`PlaneGround`].
    Plane { height: f32, slope: f32 },
}

impl GroundKind {
    /// The ground this describes; `None` for a plane with a height or slope that is not finite.
    pub fn ground(&self) -> Option<Arc<dyn Ground>> {
        match *self {
            GroundKind::Generated { seed } => Some(Arc::new(Generator::new(seed))),
            GroundKind::Plane { height, slope } => (height.is_finite() && slope.is_finite())
                .then(|| Arc::new(PlaneGround { height, slope }) as Arc<dyn Ground>),
        }
    }
}

/// Unedited ground: a density at whole meters, positive inside.
pub trait Ground: Send + Sync + Debug {
    /// The density of the sample at (x, y, z).
    fn density(&self, x: i32, y: i32, z: i32) -> f32;

    /// The densities of the samples `low + (i, j, k)`, `i < size[0]` and so on, x fastest.
    fn fill_region(&self, low: [i32; 3], size: [usize; 3], out: &mut Vec<f32>) {
        out.clear();
        out.reserve(size[0] * size[1] * size[2]);
        for k in 0..size[2] as i32 {
            for j in 0..size[1] as i32 {
                for i in 0..size[0] as i32 {
                    out.push(self.density(low[0] + i, low[1] + j, low[2] + k));
                }
            }
        }
    }

    /// The densities of the samples `low + spacing · (i, j, k)`, `i < size[0]` and so on, x
    /// fastest: a coarse level of detail's grid (`spacing` ≥ 1; 1 is [`Ground::fill_region`]).
    fn fill_region_spaced(
        &self,
        low: [i32; 3],
        size: [usize; 3],
        spacing: i32,
        out: &mut Vec<f32>,
    ) {
        if spacing == 1 {
            return self.fill_region(low, size, out);
        }
        out.clear();
        out.reserve(size[0] * size[1] * size[2]);
        for k in 0..size[2] as i32 {
            for j in 0..size[1] as i32 {
                for i in 0..size[0] as i32 {
                    let [x, y, z] = [i, j, k].map(|step| step * spacing);
                    out.push(self.density(low[0] + x, low[1] + y, low[2] + z));
                }
            }
        }
    }

    /// The height of the ground's top surface at (x, z), before caves: where to start looking
    /// down for the ground (the showcase, `crate::showcase`, does).
    fn surface_height(&self, x: f32, z: f32) -> f32;

    /// What the samples of the inclusive box hold, when it can be proven without sampling them;
    /// `Mixed` when it cannot.
    fn classify(&self, _low: [i32; 3], _high: [i32; 3]) -> ChunkKind {
        ChunkKind::Mixed
    }

    /// What makes this ground again.
    fn kind(&self) -> GroundKind;
}

impl Ground for Generator {
    fn kind(&self) -> GroundKind {
        GroundKind::Generated { seed: self.seed() }
    }

    fn density(&self, x: i32, y: i32, z: i32) -> f32 {
        Generator::density(self, x, y, z)
    }

    fn fill_region(&self, low: [i32; 3], size: [usize; 3], out: &mut Vec<f32>) {
        Generator::fill_region(self, low, size, out);
    }

    fn fill_region_spaced(
        &self,
        low: [i32; 3],
        size: [usize; 3],
        spacing: i32,
        out: &mut Vec<f32>,
    ) {
        Generator::fill_region_spaced(self, low, size, spacing, out);
    }

    fn classify(&self, low: [i32; 3], high: [i32; 3]) -> ChunkKind {
        Generator::classify(self, low, high)
    }

    fn surface_height(&self, x: f32, z: f32) -> f32 {
        Generator::surface_height(self, x, z)
    }
}

/// Ground below `y = height + slope · x`: flat when `slope` is 0. The density is the height
/// above the point, so it changes one per meter vertically like the generated world's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneGround {
    pub height: f32,
    /// Rise per meter along +x: the tangent of the slope's angle.
    pub slope: f32,
}

impl PlaneGround {
    /// Ground below `y = height`.
    pub fn flat(height: f32) -> Self {
        Self { height, slope: 0.0 }
    }

    /// Ground below `y = height + tan(degrees) · x`.
    pub fn sloped(degrees: f32, height: f32) -> Self {
        Self {
            height,
            slope: degrees.to_radians().tan(),
        }
    }
}

impl Ground for PlaneGround {
    fn kind(&self) -> GroundKind {
        GroundKind::Plane {
            height: self.height,
            slope: self.slope,
        }
    }

    fn density(&self, x: i32, y: i32, _z: i32) -> f32 {
        self.height + self.slope * x as f32 - y as f32
    }

    fn surface_height(&self, x: f32, _z: f32) -> f32 {
        self.height + self.slope * x
    }

    fn classify(&self, low: [i32; 3], high: [i32; 3]) -> ChunkKind {
        // The density is linear: its extremes are at the box's corners.
        let along_x = [low[0], high[0]].map(|x| self.slope * x as f32);
        let highest = self.height + along_x[0].max(along_x[1]) - low[1] as f32;
        let lowest = self.height + along_x[0].min(along_x[1]) - high[1] as f32;
        if highest <= 0.0 {
            ChunkKind::Air
        } else if lowest > 0.0 {
            ChunkKind::Solid
        } else {
            ChunkKind::Mixed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_classification_agrees_with_every_sample() {
        let grounds = [
            PlaneGround::flat(0.0),
            PlaneGround::flat(3.5),
            PlaneGround::sloped(36.0, -2.0),
            PlaneGround::sloped(-20.0, 1.0),
        ];
        let mut samples = Vec::new();
        for ground in grounds {
            for low in [[-8, -8, 0], [0, 0, 0], [-4, 2, 3], [5, -20, -5], [0, 10, 0]] {
                let size = [6usize, 6, 3];
                let high = [low[0] + 5, low[1] + 5, low[2] + 2];
                ground.fill_region(low, size, &mut samples);
                let inside = samples.iter().filter(|d| **d > 0.0).count();
                match ground.classify(low, high) {
                    ChunkKind::Air => assert_eq!(inside, 0, "{ground:?} {low:?}"),
                    ChunkKind::Solid => assert_eq!(inside, samples.len(), "{ground:?} {low:?}"),
                    ChunkKind::Mixed => {}
                }
            }
        }
        assert_eq!(PlaneGround::flat(0.0).density(3, -2, 9), 2.0);
        assert_eq!(
            PlaneGround::flat(0.0).classify([0, 1, 0], [4, 5, 4]),
            ChunkKind::Air
        );
        assert_eq!(
            PlaneGround::flat(0.0).classify([0, -9, 0], [4, -1, 4]),
            ChunkKind::Solid
        );
    }
}
