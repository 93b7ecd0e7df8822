//! The support benchmark's measured work, each done by blockfall's support search and by the
//! port of the original one ([`super::reference_support`]) on the same blocks and timed alike:
//! breaking a block (and putting it back), asking which blocks would fall, and cutting the
//! platform's only support; and the report of the two sides' times.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use blockfall_game::blocks::store::BlockStore;
use blockfall_game::blocks::BlockId;
use blockfall_game::support::{ground_holds, Support};
use blockfall_game::terrain::{Field, Samples};

use super::reference_support::{ReferenceBlock, ReferenceStore, ReferenceSupport};
use crate::bench::shared::spread;

/// The times of the breaks of one round, and how many blocks fell.
#[derive(Default)]
pub(super) struct BreakTimes {
    pub(super) ours: Vec<Duration>,
    pub(super) port: Vec<Duration>,
    pub(super) fell: usize,
}

/// blockfall's store and support search.
pub(super) type SupportSide<'a> = (&'a mut BlockStore, &'a mut Support);
/// The port's store and support search.
pub(super) type PortSide<'a> = (&'a mut ReferenceStore, &'a mut ReferenceSupport);

/// A block picked in both stores: its id in blockfall's, its id in the port's.
pub(super) type Pick = (BlockId, ReferenceBlock);

/// Breaks one block in both stores, times the search for loose groups in each, and puts the
/// block back (under a new id in blockfall's store). Both must find the same blocks loose.
fn break_one<S: Samples>(
    turn: usize,
    pick: &mut Pick,
    (store, support): SupportSide<'_>,
    (reference_store, reference_support): PortSide<'_>,
    field: &Field<S>,
    times: &mut BreakTimes,
) -> anyhow::Result<()> {
    let (id, reference_id) = pick;
    let mut run_ours = || -> anyhow::Result<(Duration, usize)> {
        let block = store
            .remove(*id)
            .context("a picked block is in the store")?;
        let started = Instant::now();
        support.removed(store, *id, &block);
        let groups = support.update(store, field);
        let time = started.elapsed();
        *id = store.add(block)?;
        Ok((time, groups.iter().map(Vec::len).sum()))
    };
    let mut run_port = || -> anyhow::Result<(Duration, usize)> {
        let block = *reference_store
            .get(*reference_id)
            .context("a picked block is in the port")?;
        reference_store.remove(*reference_id);
        let started = Instant::now();
        reference_support.removed(reference_store, *reference_id, &block);
        let groups = reference_support.update(reference_store, field);
        let time = started.elapsed();
        reference_store.restore(*reference_id, block);
        Ok((time, groups.iter().map(Vec::len).sum()))
    };
    // Whoever goes first fills the field's sample cache: take turns.
    let ((ours_time, ours_fell), (port_time, port_fell)) = if turn.is_multiple_of(2) {
        let ours = run_ours()?;
        (ours, run_port()?)
    } else {
        let port = run_port()?;
        (run_ours()?, port)
    };
    anyhow::ensure!(
        ours_fell == port_fell,
        "breaking a block: blockfall found {ours_fell} loose blocks, the port {port_fell}"
    );
    times.fell += ours_fell;
    times.ours.push(ours_time);
    times.port.push(port_time);
    Ok(())
}

/// [`break_one`] for every pick, in order.
pub(super) fn break_all<S: Samples>(
    picks: &mut [Pick],
    (store, support): SupportSide<'_>,
    (reference_store, reference_support): PortSide<'_>,
    field: &Field<S>,
) -> anyhow::Result<BreakTimes> {
    let mut times = BreakTimes::default();
    for (turn, pick) in picks.iter_mut().enumerate() {
        break_one(
            turn,
            pick,
            (&mut *store, &mut *support),
            (&mut *reference_store, &mut *reference_support),
            field,
            &mut times,
        )?;
    }
    Ok(times)
}

/// Asks both which blocks would fall if each pick broke, taking turns at going first: the
/// times of each side, and how many blocks would fall in all. Both must name as many blocks.
pub(super) fn would_fall_all<S: Samples>(
    picks: &[Pick],
    (store, support): SupportSide<'_>,
    (reference_store, reference_support): PortSide<'_>,
    field: &Field<S>,
) -> anyhow::Result<BreakTimes> {
    let mut times = BreakTimes::default();
    for (turn, &(id, reference_id)) in picks.iter().enumerate() {
        let mut run_ours = || {
            let started = Instant::now();
            let count = support.would_fall(store, field, id).len();
            (started.elapsed(), count)
        };
        let mut run_port = || {
            let started = Instant::now();
            let count = reference_support
                .would_fall(reference_store, field, reference_id, 0)
                .len();
            (started.elapsed(), count)
        };
        let ((ours_time, ours_count), (port_time, port_count)) = if turn % 2 == 0 {
            let a = run_ours();
            (a, run_port())
        } else {
            let b = run_port();
            (run_ours(), b)
        };
        anyhow::ensure!(
            ours_count == port_count,
            "would_fall: blockfall says {ours_count} blocks, the port {port_count}"
        );
        times.fell += ours_count;
        times.ours.push(ours_time);
        times.port.push(port_time);
    }
    Ok(times)
}

/// Breaks the top block of the platform's pillar (`pillar_top` in blockfall's store,
/// `reference_pillar` in the port's), the only support of the platform, in both, and prints both
/// times. Both must find the same blocks loose.
pub(super) fn cut_only_support<S: Samples>(
    pillar_top: BlockId,
    reference_pillar: ReferenceBlock,
    (store, support): SupportSide<'_>,
    (reference_store, reference_support): PortSide<'_>,
    field: &Field<S>,
) -> anyhow::Result<()> {
    // The worst case: the pillar's top block, the platform's only support. The field's samples
    // are made first, so that both searches find them ready and differ only in the search.
    let pillar_block = *store.get(pillar_top).context("the pillar's top block")?;
    for (_, block) in store.iter() {
        if block.y >= pillar_block.y {
            ground_holds(block, field);
        }
    }
    let block = store.remove(pillar_top).context("the pillar's top block")?;
    let started = Instant::now();
    support.removed(store, pillar_top, &block);
    let groups = support.update(store, field);
    let ours_time = started.elapsed();
    let ours_fell: usize = groups.iter().map(Vec::len).sum();
    reference_store.remove(reference_pillar);
    let started = Instant::now();
    reference_support.removed(reference_store, reference_pillar, &block);
    let groups = reference_support.update(reference_store, field);
    let port_time = started.elapsed();
    let port_fell: usize = groups.iter().map(Vec::len).sum();
    anyhow::ensure!(
        ours_fell == port_fell,
        "the platform: blockfall found {ours_fell} loose blocks, the port {port_fell}"
    );
    println!(
        "cutting the only support of {ours_fell} blocks: blockfall {:.1} ms, reference {:.1} ms \
         ({:.1}×)",
        ours_time.as_secs_f64() * 1e3,
        port_time.as_secs_f64() * 1e3,
        port_time.as_secs_f64() / ours_time.as_secs_f64()
    );
    Ok(())
}

/// Prints the spread of both sides' times and blockfall's speed-up over the port.
pub(super) fn report(what: &str, ours: &mut [Duration], port: &mut [Duration]) {
    let (ours_median, ours_p99, ours_mean) = spread(ours);
    let (port_median, port_p99, port_mean) = spread(port);
    println!("{what}:");
    println!(
        "  blockfall: median {ours_median:.1} µs, p99 {ours_p99:.1} µs, mean {ours_mean:.1} µs"
    );
    println!(
        "  reference: median {port_median:.1} µs, p99 {port_p99:.1} µs, mean {port_mean:.1} µs"
    );
    println!(
        "  speed-up: {:.1}× at the median, {:.1}× at p99, {:.1}× on the mean",
        port_median / ours_median,
        port_p99 / ours_p99,
        port_mean / ours_mean
    );
}
