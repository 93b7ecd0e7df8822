//! What holds a block, searched incrementally (the scene runner's `Support`), against a full
//! search of every block from scratch after every change: they must keep the same blocks.

use std::sync::Arc;

use blockfall_game::blocks::store::{Block, BlockStore};
use blockfall_game::scene;
use blockfall_game::support::{ground_holds, loose_groups};
use blockfall_game::terrain::{EditStore, Field, Ground, PlaneGround};
use serde_json::Value;

struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
}

/// Removes every block nothing holds, searching all of them; returns how many went.
fn settle_from_scratch<S: blockfall_game::terrain::Samples>(
    store: &mut BlockStore,
    field: &Field<S>,
) -> usize {
    let all: Vec<_> = store.iter().map(|(id, _)| id).collect();
    let groups = loose_groups(store, |_, block| ground_holds(block, field), all, None);
    let mut fell = 0;
    for id in groups.into_iter().flatten() {
        fell += usize::from(store.remove(id).is_some());
    }
    store.drain_events().for_each(drop);
    fell
}

fn ground() -> Arc<dyn Ground> {
    Arc::new(PlaneGround::sloped(12.0, 0.4))
}

#[test]
fn incremental_search_keeps_what_a_full_search_keeps() {
    let mut total_fell = 0;
    for seed in 1..=12u64 {
        let mut random = Sequence(seed);
        // A random structure of 1 m blocks over a gentle slope: towers, bridges by edges, strays.
        let mut store = BlockStore::new();
        let mut cells = Vec::new();
        for _ in 0..70 {
            let cell = [
                random.below(8) * 2,
                random.below(7) * 2,
                random.below(6) * 2,
            ];
            let material = random.below(6) as u8;
            if let Ok(block) = Block::new(
                cell[0] as i32,
                cell[1] as i32,
                cell[2] as i32,
                2,
                material,
                0,
                false,
            ) {
                if store.add(block).is_ok() {
                    cells.push(cell);
                }
            }
        }
        // Start from a world where everything holds, as play does.
        let field = Field::new(EditStore::new(ground()));
        settle_from_scratch(&mut store, &field);
        let kept: Vec<Block> = store.iter().map(|(_, block)| *block).collect();

        // The same world as a scene, with random breaks and digs.
        let mut events = Vec::new();
        let mut operations = Vec::new();
        for step in 0..30 {
            let t = 0.001 * (step + 1) as f64;
            if random.below(3) == 0 {
                let center = [
                    random.below(90) as f32 / 10.0,
                    random.below(40) as f32 / 10.0 - 1.0,
                    random.below(70) as f32 / 10.0,
                ];
                let radius = 0.8 + random.below(12) as f32 / 10.0;
                events.push(format!(
                    r#"{{"t": {t}, "dig": {{"center": [{}, {}, {}], "radius": {radius}}}}}"#,
                    center[0], center[1], center[2]
                ));
                operations.push((None, Some((center, radius))));
            } else {
                let cell = cells[random.below(cells.len() as u64) as usize];
                events.push(format!(
                    r#"{{"t": {t}, "break": [{}, {}, {}]}}"#,
                    cell[0], cell[1], cell[2]
                ));
                operations.push((Some(cell), None));
            }
        }
        let blocks: Vec<String> = kept
            .iter()
            .map(|b| {
                format!(
                    r#"{{"cell": [{}, {}, {}], "size": 2, "material": "{}"}}"#,
                    b.x,
                    b.y,
                    b.z,
                    blockfall_game::blocks::MATERIALS[b.material as usize].name
                )
            })
            .collect();
        let text = format!(
            r#"{{"terrain": {{"slope": {{"degrees": 12.0, "height": 0.4}}}}, "blocks": [{}], "events": [{}], "duration": 0.05, "report_every": 0.05}}"#,
            blocks.join(","),
            events.join(",")
        );
        let parsed = scene::parse(&text).unwrap();
        let mut out = Vec::new();
        scene::run(&parsed, &mut out).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let results: Vec<&Value> = lines.iter().filter(|l| l.get("event").is_some()).collect();
        assert_eq!(results.len(), operations.len());

        // Replay from scratch: after every change, search every block.
        let mut field = Field::new(EditStore::new(ground()));
        let mut replay = BlockStore::new();
        for block in &kept {
            replay.add(*block).unwrap();
        }
        replay.drain_events().for_each(drop);
        for (index, ((cell, dig), result)) in operations.iter().zip(&results).enumerate() {
            if let Some(cell) = cell {
                if let Some(id) = replay.at(cell[0] as i32, cell[1] as i32, cell[2] as i32) {
                    replay.remove(id);
                }
            }
            if let Some((center, radius)) = dig {
                field.dig(*center, *radius).unwrap();
            }
            let fell = settle_from_scratch(&mut replay, &field);
            total_fell += fell;
            assert_eq!(
                result["fell"].as_u64(),
                Some(fell as u64),
                "seed {seed}, operation {index}: {result}"
            );
        }
        let last = lines
            .iter()
            .rev()
            .find(|l| l.get("blocks").is_some())
            .unwrap();
        assert_eq!(
            last["blocks"].as_u64(),
            Some(replay.count() as u64),
            "seed {seed}"
        );
    }
    assert!(
        total_fell > 20,
        "the sequences made blocks fall: {total_fell}"
    );
}
