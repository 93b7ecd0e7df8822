//! `bench -- saves`: how long a save and a load take, and how large the file is, for two
//! worlds: the default world after `digs` digs of the terrain tool's sphere around the spawn
//! point, and the generated city of the support benchmark ([`super::support::city`]) of about
//! `blocks` 1 m blocks.
//!
//! A save is the whole of what F5 does: the world as a `WorldSave`, encoded (postcard, LZ4,
//! checksum) and written atomically (temporary file, sync, rename, folder sync). A load is what
//! F9 does before the renderer sees the world: the file read, checked and decoded, and the
//! world rebuilt from it (block store, pieces, the support's survey of every block).

use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use blockfall_game::blocks::store::BlockStore;
use blockfall_game::input::Input;
use blockfall_game::save::WorldSave;
use blockfall_game::terrain::streaming::VIEW_RADIUS;
use blockfall_game::terrain::Generator;
use blockfall_game::world::{World, TOOL_RADIUS};
use blockfall_physics::workers::WorkerPool;

use crate::bench::shared::{median, Rng};
use crate::bench::support::city::build_city;

/// Times each save and load this many times; the median is printed.
const REPEATS: usize = 5;

/// Runs both cases and prints their lines.
pub fn run(digs: usize, blocks: usize) -> anyhow::Result<()> {
    let folder = std::env::temp_dir().join(format!("blockfall-bench-saves-{}", std::process::id()));
    std::fs::create_dir_all(&folder).context("a scratch folder")?;
    let pool = WorkerPool::with_available_parallelism();
    println!("threads: {}", pool.threads());

    let mut world = World::generated(Generator::DEFAULT_SEED, VIEW_RADIUS, pool.clone())
        .context("the default world")?;
    let spawn = world.player().position;
    let mut rng = Rng::new(11);
    for _ in 0..digs {
        let x = spawn.x + rng.range(-60, 60) as f32;
        let z = spawn.z + rng.range(-60, 60) as f32;
        let y = world.ground().surface_height(x, z);
        world
            .edit_ground(true, [x, y, z], TOOL_RADIUS)
            .context("a dig")?;
    }
    measure(
        &format!("default world, {digs} digs"),
        &world,
        &folder.join("digs.blockfall"),
        &pool,
    )?;
    drop(world);

    let mut world = World::generated(Generator::DEFAULT_SEED, VIEW_RADIUS, pool.clone())
        .context("the default world")?;
    let started = Instant::now();
    let ground = world.ground().clone();
    // The city goes up beside the showcase's blocks, then the whole stands in the world,
    // surveyed as a world being set up is (`World::replace_blocks`).
    let mut store = world.replace_blocks(BlockStore::new());
    let city = build_city(
        &mut store,
        world.field(),
        |x, z| ground.surface_height(x, z),
        blocks,
        5,
    )?;
    world.replace_blocks(store);
    println!(
        "city: {} buildings, {} blocks in all, built and surveyed in {:.1} s",
        city.buildings,
        world.blocks().count(),
        started.elapsed().as_secs_f64()
    );
    measure(
        &format!("city of {} blocks", world.blocks().count()),
        &world,
        &folder.join("city.blockfall"),
        &pool,
    )?;
    std::fs::remove_dir_all(&folder).context("removing the scratch folder")?;
    Ok(())
}

/// Saves and loads `world` [`REPEATS`] times through `path`; prints the medians and the size.
fn measure(name: &str, world: &World, path: &Path, pool: &WorkerPool) -> anyhow::Result<()> {
    let held = Input::default();
    let mut saves = Vec::new();
    let mut bytes = 0;
    for _ in 0..REPEATS {
        let started = Instant::now();
        bytes = world.save(0.0, &held).write(path)?;
        saves.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let mut loads = Vec::new();
    let mut loaded_blocks = 0;
    for _ in 0..REPEATS {
        let started = Instant::now();
        let save = WorldSave::read(path)?;
        let loaded = World::from_save(save, pool.clone(), VIEW_RADIUS)?;
        loads.push(started.elapsed().as_secs_f64() * 1000.0);
        loaded_blocks = loaded.blocks().count();
    }
    anyhow::ensure!(
        loaded_blocks == world.blocks().count(),
        "{name}: the load has {loaded_blocks} blocks, not {}",
        world.blocks().count()
    );
    let body = postcard_size(world);
    let per_block = if loaded_blocks > 0 {
        format!(
            ", {:.2} bytes per block",
            bytes as f64 / loaded_blocks as f64
        )
    } else {
        String::new()
    };
    println!(
        "{name}: save {:.1} ms, load {:.1} ms (median of {REPEATS}); file {bytes} bytes \
         ({body} before compression){per_block}",
        median(&mut saves),
        median(&mut loads),
    );
    Ok(())
}

/// The body's size before compression: the header's length field (docs/saves.md).
fn postcard_size(world: &World) -> u64 {
    let file = world.save(0.0, &Input::default()).encode();
    let length: [u8; 8] = file[24..32].try_into().unwrap_or_default();
    u64::from_le_bytes(length)
}
