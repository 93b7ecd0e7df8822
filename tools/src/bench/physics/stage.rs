//! A scene of the physics benchmark set up for every engine: its ground as blockfall sees it
//! (the world's field, edits included), the same ground as the one triangle mesh the other
//! engines get, its pieces, and the checks on how a run left them.

use std::sync::Arc;
use std::time::Instant;

use blockfall_game::blocks::BlockStore;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::{EditStore, Field, Generator, Ground, PlaneGround};

use blockfall_game::terrain::generator::SPAWN_XZ;

use super::scene::{
    drop_scene, heap_world, pyramid_scene, DropArea, Pit, Placed, COLUMN_SPACING, PYRAMID_BASE,
};
use super::terrain::{terrain_mesh, TerrainMesh};
use super::TUNNEL_DEPTH;
use crate::bench::shared::{world_field, BenchField};

/// The top of the pyramid's flat ground, in meters: between two rows of samples, so that the
/// surface nets put the terrain mesh exactly there.
const FLAT_HEIGHT: f64 = 0.5;

/// Meters of terrain meshed above and below the area's highest and lowest ground.
const MESH_SPARE: f64 = 8.0;

/// One scene, ready for every engine.
pub(super) struct Stage {
    /// Its name in the tables: drop, heap or pyramid.
    pub(super) name: &'static str,
    /// What its pieces are and what they do, for the report.
    pub(super) about: String,
    /// The ground before edits (its height is what the area and the warming go by).
    ground: Arc<dyn Ground>,
    /// The ground as blockfall sees it: the field of `ground`, edits (the heap's pit) made.
    pub(super) field: BenchField,
    /// Its pieces, where they start.
    pub(super) placed: Vec<Placed>,
    /// The ground around the pieces: what is meshed, warmed, and how low and high it lies.
    pub(super) area: DropArea,
    /// The same ground as one triangle mesh, for rapier3d and Jolt.
    pub(super) terrain: TerrainMesh,
    /// Milliseconds spent meshing it.
    pub(super) mesh_ms: f64,
    /// No piece may end below this height: it would have tunnelled through the ground.
    pub(super) floor: f64,
}

impl Stage {
    /// The drop scene: `pieces` random pieces (shapes, materials and turns from `seed`) two to
    /// a column, dropped onto the default world around the spawn point.
    pub(super) fn drop(generator: &Generator, pieces: usize, seed: u64) -> anyhow::Result<Self> {
        let placed = drop_scene(generator, pieces, seed);
        let about = format!(
            "pieces of 1 to {} blocks (half boxes, half random lattices, the six materials), two \
             to a column {COLUMN_SPACING} m apart around the spawn point ({}, {}), dropped 2 to \
             11 m onto the default world",
            most_blocks(&placed),
            SPAWN_XZ[0],
            SPAWN_XZ[1]
        );
        Self::new(
            "drop",
            about,
            Arc::new(generator.clone()),
            world_field(generator),
            placed,
            None,
        )
    }

    /// The heap: `pieces` small pieces falling into a pit dug at the spawn point (see
    /// `scene::heap_scene`).
    pub(super) fn heap(generator: &Generator, pieces: usize, seed: u64) -> anyhow::Result<Self> {
        let (field, pit, placed) = heap_world(generator, pieces, seed)?;
        let about = format!(
            "pieces of 1 to {} blocks (boxes and lattices, the six materials) in layers over a \
             pit dug at the spawn point, falling a few meters into it and heaping up",
            most_blocks(&placed)
        );
        Self::new(
            "heap",
            about,
            Arc::new(generator.clone()),
            field,
            placed,
            Some(&pit),
        )
    }

    /// The pyramid of 210 single cubes (`scene::pyramid_scene`) on flat ground.
    pub(super) fn pyramid() -> anyhow::Result<Self> {
        let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(FLAT_HEIGHT as f32));
        let field = Field::new(EditStore::new(ground.clone()));
        let about = format!(
            "single 1 m stone cubes stacked face to face on flat ground, {PYRAMID_BASE} in the \
             bottom row and one fewer in each row above"
        );
        Self::new(
            "pyramid",
            about,
            ground,
            field,
            pyramid_scene(FLAT_HEIGHT),
            None,
        )
    }

    /// The scene of `placed` over `field` (the field of `ground`, edited), the pit `pit` dug
    /// in it if any: its area, its terrain mesh from the ground's lowest point (the pit's
    /// bottom) to its highest, and its floor.
    fn new(
        name: &'static str,
        about: String,
        ground: Arc<dyn Ground>,
        field: BenchField,
        placed: Vec<Placed>,
        pit: Option<&Pit>,
    ) -> anyhow::Result<Self> {
        let area = DropArea::around(ground.as_ref(), &placed);
        let lowest = pit.map_or(area.lowest_ground, |pit| {
            area.lowest_ground.min(pit.bottom())
        });
        let started = Instant::now();
        let terrain = terrain_mesh(
            &field,
            area.low,
            area.high,
            lowest - MESH_SPARE,
            area.highest_ground + MESH_SPARE,
        )?;
        let mesh_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(Self {
            name,
            about,
            ground,
            field,
            placed,
            area,
            terrain,
            mesh_ms,
            floor: lowest - TUNNEL_DEPTH,
        })
    }

    /// The solids blockfall steps against: the field, and no blocks.
    pub(super) fn solids<'a>(&'a self, no_blocks: &'a BlockStore) -> SceneSolids<'a> {
        SceneSolids::new(&self.field, no_blocks)
    }

    /// Warms the field's sample cache over the area, as the game's is where pieces fall.
    pub(super) fn warm(&self, solids: &SceneSolids<'_>) {
        self.area.warm(self.ground.as_ref(), solids);
    }

    /// Whether a point (a piece's middle) is inside the ground, edits included.
    pub(super) fn in_ground(&self, point: [f64; 3]) -> bool {
        let [x, y, z] = point.map(|value| value as f32);
        self.field.probe(x, y, z).density > 0.0
    }

    /// How many of the pieces' middles `middles` are inside the ground, and the height of the
    /// highest.
    pub(super) fn end_state(&self, middles: &[[f64; 3]]) -> (usize, f64) {
        let in_ground = middles
            .iter()
            .filter(|&&middle| self.in_ground(middle))
            .count();
        let highest = middles
            .iter()
            .map(|middle| middle[1])
            .fold(f64::NEG_INFINITY, f64::max);
        (in_ground, highest)
    }
}

/// The most blocks a piece of `placed` has.
fn most_blocks(placed: &[Placed]) -> usize {
    placed
        .iter()
        .map(|place| place.piece.block_count())
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pyramid_stands_on_its_flat_ground_and_its_mesh_lies_there() {
        let stage = Stage::pyramid().expect("the pyramid");
        assert_eq!(stage.placed.len(), 210);
        let lowest = stage
            .placed
            .iter()
            .map(|place| place.at[1])
            .fold(f64::INFINITY, f64::min);
        assert!((lowest - FLAT_HEIGHT - 0.5).abs() < 1e-9);
        assert!(stage
            .terrain
            .positions
            .iter()
            .all(|p| (f64::from(p[1]) - FLAT_HEIGHT).abs() < 1e-4));
        assert!(!stage.in_ground([0.0, FLAT_HEIGHT + 0.01, 0.0]));
        assert!(stage.in_ground([0.0, FLAT_HEIGHT - 0.01, 0.0]));
    }
}
