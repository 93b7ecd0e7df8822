//! Running a scene: its frames of `frame_dt` in order, each event applied at the first frame
//! at or after its time, and the trace written as it goes.

use std::io::Write;

use blockfall_engine::workers::WorkerPool;

use super::error::{invalid, SceneError};
use super::file::SceneFile;
use super::trace::{trace_time, DoneLine, StateLine};
use super::world::SceneWorld;

/// Runs a checked scene and writes its trace.
pub fn run(scene: &SceneFile, out: &mut dyn Write) -> Result<(), SceneError> {
    run_with_pool(
        scene,
        out,
        WorkerPool::new(1).map_err(|e| invalid("threads", e.to_string()))?,
    )
}

/// [`run()`] with the physics on `pool`: the trace is the same, byte for byte, for any pool.
pub fn run_with_pool(
    scene: &SceneFile,
    out: &mut dyn Write,
    pool: WorkerPool,
) -> Result<(), SceneError> {
    let mut world = SceneWorld::with_pool(scene, pool)?;
    let mut order: Vec<usize> = (0..scene.events.len()).collect();
    // By time; events at the same time in the order the file gives them.
    order.sort_by(|&a, &b| {
        scene.events[a]
            .t
            .total_cmp(&scene.events[b].t)
            .then(a.cmp(&b))
    });
    let mut pending = order.into_iter().peekable();

    let frames = (scene.duration / scene.frame_dt - 1e-9).ceil().max(0.0) as u64;
    let epsilon = scene.frame_dt * 1e-6;
    writeln!(
        out,
        "{}",
        serde_json::to_string(&StateLine::of(&world, 0.0))?
    )?;
    let mut next_report = scene.report_every;
    for frame in 0..frames {
        let t = frame as f64 * scene.frame_dt;
        while let Some(&index) = pending.peek() {
            let event = &scene.events[index];
            if event.t > t + epsilon {
                break;
            }
            pending.next();
            if let Some(line) = world.apply(t, &event.action, &format!("events[{index}]"))? {
                writeln!(out, "{line}")?;
            }
        }
        world.step(scene.frame_dt as f32);
        let after = (frame + 1) as f64 * scene.frame_dt;
        if scene.report_every == 0.0 || after + epsilon >= next_report {
            writeln!(
                out,
                "{}",
                serde_json::to_string(&StateLine::of(&world, after))?
            )?;
            if scene.report_every > 0.0 {
                while next_report <= after + epsilon {
                    next_report += scene.report_every;
                }
            }
        }
    }
    let end = frames as f64 * scene.frame_dt;
    // Events at the very end happen after the last frame (later ones are refused by `parse`).
    for index in pending {
        let event = &scene.events[index];
        if let Some(line) = world.apply(end, &event.action, &format!("events[{index}]"))? {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(
        out,
        "{}",
        serde_json::to_string(&DoneLine {
            done: true,
            t: trace_time(end)
        })?
    )?;
    out.flush()?;
    Ok(())
}
