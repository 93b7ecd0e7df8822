//! The soak: a long scripted session of random play — digging, building, placing and
//! breaking blocks, towers toppled so that pieces fall, the pieces broken up again, walking and
//! turning — with a save and a load every game minute, played through the game's own headless
//! loop ([`HeadlessRenderer`], [`Play`], [`Script`]) with the validation layer on, while the
//! process's resident memory and the GPU allocator's report are sampled.
//!
//! [`script`] writes the scene (`soak` in `tools` writes it to a file for `blockfall --headless
//! --script`); [`run`] plays it and returns a [`SoakReport`]; [`SoakReport::problems`] says what
//! broke the soak's rules:
//! - private resident memory ([`Resident::private`]: all but the shared memory that is
//!   lavapipe's device memory, which the GPU allocator's report covers) grows by less than
//!   [`RSS_GROWTH_LIMIT`] after the first save/load cycle (the baseline is the sample taken just after the first load: by then every path — meshing,
//!   pieces, saving, loading, the renderer built anew — has run once, and the caches that are
//!   bounded by design (the field's bricks, the worker threads' copies, the staging buffers)
//!   have filled; growth after that is a leak),
//! - the GPU allocator holds, once the world's renderer is dropped and the device idle, exactly
//!   the bytes it held before the world was set up,
//! - no validation error.
//!
//! The world stays bounded on purpose, so that growth means a leak and not more world: towers
//! are built on a fixed set of columns, each toppled (its lowest block broken) and its fallen
//! piece broken up block by block a few seconds later; every dug sphere is built back later.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use blockfall_engine::gpu::{Gpu, GpuDesc, MemoryReport};
use blockfall_game::scene::{Limits, LONGEST_FRAME, LONGEST_SCENE};
use blockfall_game::terrain::Generator;
use blockfall_physics::random::Rng;
use serde_json::{json, Value};

use crate::headless::HeadlessRenderer;
use crate::options::RunOptions;
use crate::play::Play;
use crate::script::Script;

/// Private resident memory may grow by less than this fraction after the baseline sample.
pub const RSS_GROWTH_LIMIT: f64 = 0.05;

/// Columns of towers, 3 m apart: a tower is built on each in turn.
const TOWER_COLUMNS: i32 = 16;
/// Blocks in a tower (1 m blocks): the lowest is broken, the rest fall as one piece.
const TOWER_HEIGHT: i32 = 4;
/// Piece ids tried when a fallen tower is broken up: ids are body slots, reused once free, and
/// the few pieces alive at once keep them small.
const PIECE_IDS: u32 = 6;

/// The longest soak, in minutes of game time (240, four hours: eight times the 30-minute soak
/// of BENCHMARKS.md). Its script of random play is made whole in memory, about 1.6 MB a
/// minute, so at most some 400 MB (and 10 MB of JSON); a day, the longest scene the game plays
/// ([`LONGEST_SCENE`]), would take 2.3 GB.
pub const LONGEST_MINUTES: f64 = 240.0;
/// The shortest save/load cycle, in seconds of game time: each cycle writes and reads the whole
/// world and samples memory, and more often than once a second the soak would measure saving
/// rather than play.
pub const SHORTEST_CYCLE: f64 = 1.0;

/// A number option of the soak (the `soak` tool's command line): its name, its range and why.
#[derive(Debug, Clone, Copy)]
pub struct NumberOption {
    /// As the command line spells it, `--frame-dt`.
    pub name: &'static str,
    /// The lowest value, and whether it is allowed itself (else only what is above it).
    pub low: f64,
    pub low_included: bool,
    /// The highest value (allowed).
    pub high: f64,
    /// Why the range is what it is.
    pub why: &'static str,
}

/// `--minutes-of-game-time`: above 0, at most [`LONGEST_MINUTES`].
pub const MINUTES_OPTION: NumberOption = NumberOption {
    name: "--minutes-of-game-time",
    low: 0.0,
    low_included: false,
    high: LONGEST_MINUTES,
    why: "the script of random play is made whole in memory, 1.6 MB a minute",
};
/// `--frame-dt`: above 0, at most [`LONGEST_FRAME`].
pub const FRAME_DT_OPTION: NumberOption = NumberOption {
    name: "--frame-dt",
    low: 0.0,
    low_included: false,
    high: LONGEST_FRAME,
    why: "the longest frame a scene may ask for",
};
/// `--cycle-seconds`: [`SHORTEST_CYCLE`] to a day (and no longer than the soak, see
/// [`SoakScript::check`]).
pub const CYCLE_OPTION: NumberOption = NumberOption {
    name: "--cycle-seconds",
    low: SHORTEST_CYCLE,
    low_included: true,
    high: LONGEST_SCENE,
    why: "a cycle saves and loads the world: more often than once a second the soak measures \
          saving, not play",
};

impl NumberOption {
    /// The number `text` gives, refused (naming the option, the start of the text and the
    /// range) unless it is finite and in range.
    pub fn parse(&self, text: &str) -> Result<f64, String> {
        let value: f64 = text.trim().parse().map_err(|_| {
            format!(
                "{} {} is not a number; {}",
                self.name,
                excerpt(text),
                self.range()
            )
        })?;
        let above_low = if self.low_included {
            value >= self.low
        } else {
            value > self.low
        };
        if !value.is_finite() {
            return Err(format!(
                "{} {} is not a finite number; {}",
                self.name,
                excerpt(text),
                self.range()
            ));
        }
        if !(above_low && value <= self.high) {
            return Err(format!(
                "{} {} is out of range; {}",
                self.name,
                excerpt(text),
                self.range()
            ));
        }
        Ok(value)
    }

    fn range(&self) -> String {
        let low = if self.low_included {
            "at least"
        } else {
            "above"
        };
        format!(
            "it must be {low} {} and at most {} ({})",
            shown(self.low),
            shown(self.high),
            self.why
        )
    }
}

/// A whole-number option, `option`, from `text`: `low..=high`, refused (naming the option, the
/// start of the text and the range) otherwise.
pub fn parse_whole(option: &str, text: &str, low: u64, high: u64) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|value| (low..=high).contains(value))
        .ok_or_else(|| {
            format!(
                "{option} {} is not a whole number from {low} to {high}",
                excerpt(text)
            )
        })
}

/// The start of `text` for a message: `` `text` `` when short, else its first 32 characters,
/// `…` and its length; escaped, so the message stays one line.
fn excerpt(text: &str) -> String {
    const SHOWN: usize = 32;
    let count = text.chars().count();
    let shown: String = text.chars().take(SHOWN).collect();
    let shown: String = shown.escape_debug().take(2 * SHOWN).collect();
    if count > SHOWN || shown.chars().count() == 2 * SHOWN {
        format!("`{shown}…` ({count} characters)")
    } else {
        format!("`{shown}`")
    }
}

/// A number for a message: plainly when it is plain, else in exponent form (never 300 digits).
fn shown(value: f64) -> String {
    if value == 0.0 || (1e-4..1e9).contains(&value.abs()) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// What a soak plays.
#[derive(Debug, Clone)]
pub struct SoakScript {
    /// Seconds of game time.
    pub seconds: f64,
    /// Seconds between save/load cycles (60 for the real soak).
    pub cycle: f64,
    /// The scene's fixed frame time, in seconds.
    pub frame_dt: f64,
    /// The seed of the random play (the world is the game's own start).
    pub seed: u64,
    /// Where the save of each cycle is written and loaded from.
    pub save: PathBuf,
}

impl SoakScript {
    /// Checks the numbers before anything is made from them: the game time, the frame time
    /// and the cycle each in its option's range ([`MINUTES_OPTION`], [`FRAME_DT_OPTION`],
    /// [`CYCLE_OPTION`]), the cycle no longer than the soak (its baseline is the sample after
    /// the first cycle), and the frames within what a scene may run
    /// ([`Limits::DEFAULT`]`.frames`). [`run`] checks them first; `soak` in tools before it
    /// writes a script or starts the GPU.
    pub fn check(&self) -> Result<(), String> {
        let minutes = self.seconds / 60.0;
        for (option, value) in [
            (MINUTES_OPTION, minutes),
            (FRAME_DT_OPTION, self.frame_dt),
            (CYCLE_OPTION, self.cycle),
        ] {
            option.parse(&shown(value))?;
        }
        if self.cycle > self.seconds {
            return Err(format!(
                "{} {} is longer than the soak ({} {} min): no save and load would happen",
                CYCLE_OPTION.name,
                shown(self.cycle),
                MINUTES_OPTION.name,
                shown(minutes)
            ));
        }
        let frames = (self.seconds / self.frame_dt).ceil();
        let most = Limits::DEFAULT.frames;
        if frames > most as f64 {
            return Err(format!(
                "{} {} over {} {} is {} frames, more than the {most} a scene may run",
                FRAME_DT_OPTION.name,
                shown(self.frame_dt),
                MINUTES_OPTION.name,
                shown(minutes),
                shown(frames)
            ));
        }
        Ok(())
    }
}

/// The soak's scene as JSON: the game's own start (the default world, its showcase, the
/// player at the spawn) and `soak.seconds` of random play, a save and a load of `soak.save`
/// every `soak.cycle` seconds, a `state` line at each cycle.
pub fn script(soak: &SoakScript) -> Value {
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let [sx, _, sz] = generator.spawn_point();
    let mut random = Rng::new(soak.seed);
    let mut events: Vec<(f64, Value)> = Vec::new();
    let save = soak.save.display().to_string();
    let end = soak.seconds;
    let push = |events: &mut Vec<(f64, Value)>, t: f64, key: &str, value: Value| {
        if t <= end {
            let mut event = json!({ "t": (t * 1000.0).round() / 1000.0 });
            event[key] = value;
            events.push((t, event));
        }
    };

    // Towers: one every 4 s on the next column, toppled 2 s later, broken up 3 s after that.
    let mut column = 0;
    let mut t = 1.0;
    while t < end {
        let (x, z) = (
            sx + 6.0 + 3.0 * (column % 4) as f32,
            sz - 6.0 - 3.0 * (column / 4) as f32,
        );
        let cx = (x / 0.5).floor() as i32;
        let cz = (z / 0.5).floor() as i32;
        let base = (generator.surface_height(x + 0.5, z + 0.5) / 0.5).floor() as i32;
        let material = ["Stone", "Bricks", "Planks", "Slate"][random.below(4)];
        let cells: Vec<[i32; 3]> = (0..TOWER_HEIGHT)
            .map(|level| [cx, base + 2 * level, cz])
            .collect();
        for (level, cell) in cells.iter().enumerate() {
            let spec = json!({ "cell": cell, "size": 2, "material": material });
            push(&mut events, t + 0.1 * level as f64, "place", spec);
        }
        push(&mut events, t + 2.0, "break", json!(cells[0]));
        // From the top down, so that what is left of the piece stays one piece.
        for (k, cell) in cells.iter().skip(1).rev().enumerate() {
            for piece in 0..PIECE_IDS {
                let spec = json!({ "piece": piece, "cell": cell });
                push(&mut events, t + 5.0 + 0.2 * k as f64, "break_piece", spec);
            }
        }
        column = (column + 1) % TOWER_COLUMNS;
        t += 4.0;
    }

    // The ground: a sphere dug every 3 s west of the spawn, built back 6 s later.
    let mut t = 1.5;
    while t < end {
        let x = sx - 8.0 - random.float(0.0, 8.0) as f32;
        let z = sz - random.float(-6.0, 6.0) as f32;
        let y = generator.surface_height(x, z);
        let sphere = json!({ "center": [x, y, z], "radius": random.float(0.8, 2.0) });
        push(&mut events, t, "dig", sphere.clone());
        push(&mut events, t + 6.0, "build", sphere);
        t += 3.0;
    }

    // The player: walks, strafes, jumps and turns; the tool's size changes now and then.
    let mut t = 0.5;
    while t < end {
        let key = ["KeyW", "KeyW", "KeyS", "KeyA", "KeyD", "Space"][random.below(6)];
        let held = random.float(0.2, 1.5);
        push(&mut events, t, "press", json!(key));
        push(&mut events, t + held, "release", json!(key));
        let turn = [random.float(-200.0, 200.0), random.float(-20.0, 20.0)];
        push(&mut events, t + 0.1, "turn", json!(turn));
        if random.below(5) == 0 {
            let notches = if random.below(2) == 0 { 1.0 } else { -1.0 };
            push(&mut events, t + 0.2, "wheel", json!(notches));
        }
        t += held + random.float(0.2, 1.0);
    }

    // A save and a load every cycle, at the same instant (the save first: the file's order).
    let mut cycle = 1;
    while soak.cycle > 0.0 && cycle as f64 * soak.cycle <= end {
        let t = cycle as f64 * soak.cycle;
        push(&mut events, t, "save", json!(save));
        push(&mut events, t, "load", json!(save));
        push(&mut events, t, "state", json!(true));
        cycle += 1;
    }

    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    json!({
        "duration": end,
        "frame_dt": soak.frame_dt,
        "report_every": soak.cycle.max(soak.frame_dt),
        "events": events.into_iter().map(|(_, event)| event).collect::<Vec<_>>(),
    })
}

/// How a soak is played.
#[derive(Debug, Clone)]
pub struct SoakRun {
    pub script: SoakScript,
    /// The offscreen image's size: small, the world is what is soaked, not the rasterizer.
    pub width: u32,
    pub height: u32,
    /// Chunks loaded around the player.
    pub view_radius: u32,
    /// Seconds of game time between samples.
    pub sample_every: f64,
    /// Resident memory's growth is measured from the first sample at or after this time
    /// (the first cycle for the 30-minute soak; see the module's docs).
    pub baseline_after: f64,
    /// `--gpu N`.
    pub gpu: Option<usize>,
}

/// One sample of a soak.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// Seconds of game time.
    pub t: f64,
    /// Resident memory of the process.
    pub rss: Resident,
    /// The GPU allocator's report.
    pub gpu: MemoryReport,
}

/// What a soak measured.
#[derive(Debug, Clone)]
pub struct SoakReport {
    /// Before the world was set up (the GPU, its upload path and bindless table only).
    pub before: Sample,
    /// Every `sample_every` seconds of game time, and at the end.
    pub samples: Vec<Sample>,
    /// After the world's renderer was dropped and the device was idle.
    pub after_unload: Sample,
    /// The sample the resident memory's growth is measured from (see the module's docs).
    pub baseline_t: f64,
    pub frames: u64,
    pub validation_errors: u64,
    pub last_validation_error: Option<String>,
    /// Wall-clock seconds of the whole run.
    pub wall_seconds: f64,
}

impl SoakReport {
    /// The sample resident memory is measured from: the first at or after `baseline_t`.
    pub fn baseline(&self) -> Option<&Sample> {
        self.samples.iter().find(|s| s.t + 1e-6 >= self.baseline_t)
    }

    /// The largest private resident memory ([`Resident::private`]) at or after the baseline.
    pub fn peak_rss(&self) -> u64 {
        self.samples
            .iter()
            .filter(|s| s.t + 1e-6 >= self.baseline_t)
            .map(|s| s.rss.private())
            .max()
            .unwrap_or(0)
    }

    /// The growth of private resident memory from the baseline to its peak after it, as a
    /// fraction. The device memory (lavapipe's shared-memory blocks) is left out: a block is
    /// allocated once and its pages become resident as sub-allocations first reach them, so it
    /// grows in steps up to the block's size without anything leaking; what the GPU allocator
    /// holds is checked by its own report.
    pub fn rss_growth(&self) -> f64 {
        match self.baseline() {
            Some(baseline) if baseline.rss.private() > 0 => {
                self.peak_rss() as f64 / baseline.rss.private() as f64 - 1.0
            }
            _ => 0.0,
        }
    }

    /// What broke the soak's rules; empty when it passed.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.baseline().is_none() {
            problems.push(format!("no sample at or after t = {} s", self.baseline_t));
        }
        let growth = self.rss_growth();
        if growth >= RSS_GROWTH_LIMIT {
            problems.push(format!(
                "private resident memory grew by {:.1}% after t = {} s (limit {:.0}%)",
                growth * 100.0,
                self.baseline_t,
                RSS_GROWTH_LIMIT * 100.0
            ));
        }
        if self.after_unload.gpu.allocated_bytes != self.before.gpu.allocated_bytes {
            problems.push(format!(
                "the GPU allocator holds {} bytes after the world was unloaded, {} before it \
                 was set up",
                self.after_unload.gpu.allocated_bytes, self.before.gpu.allocated_bytes
            ));
        }
        if self.validation_errors > 0 {
            problems.push(format!(
                "{} validation errors; the last: {}",
                self.validation_errors,
                self.last_validation_error.as_deref().unwrap_or("?")
            ));
        }
        problems
    }

    /// The report as one JSON object (for BENCHMARKS.md and the tool's output).
    pub fn to_json(&self) -> Value {
        let sample = |s: &Sample| {
            json!({
                "t": s.t,
                "rss_mib": mib(s.rss.total),
                "rss_private_mib": mib(s.rss.private()),
                "rss_shared_mib": mib(s.rss.shared),
                "gpu_allocated_bytes": s.gpu.allocated_bytes,
                "gpu_blocks": s.gpu.blocks,
                "gpu_allocations": s.gpu.allocations,
            })
        };
        json!({
            "frames": self.frames,
            "wall_seconds": self.wall_seconds,
            "before": sample(&self.before),
            "samples": self.samples.iter().map(sample).collect::<Vec<_>>(),
            "after_unload": sample(&self.after_unload),
            "baseline_t": self.baseline_t,
            "peak_rss_private_mib": mib(self.peak_rss()),
            "rss_private_growth_percent": self.rss_growth() * 100.0,
            "validation_errors": self.validation_errors,
            "problems": self.problems(),
        })
    }
}

/// Bytes in MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// The resident memory of this process, from `/proc/self/status`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resident {
    /// All of it, in bytes (`VmRSS`).
    pub total: u64,
    /// The part in shared memory, in bytes (`RssShmem`): on lavapipe the device memory, whose
    /// blocks are shared-memory files (memfd) with their pages made resident as they are first
    /// written.
    pub shared: u64,
}

impl Resident {
    /// The process's own memory: heap, stacks, code, JIT code (`RssAnon` + `RssFile`).
    pub fn private(&self) -> u64 {
        self.total.saturating_sub(self.shared)
    }

    /// Reads this process's figures.
    pub fn now() -> anyhow::Result<Resident> {
        let status = std::fs::read_to_string("/proc/self/status")
            .context("reading /proc/self/status for the resident memory (Linux only)")?;
        Resident::parse(&status)
    }

    /// The figures of a `/proc/<pid>/status` text.
    pub fn parse(status: &str) -> anyhow::Result<Resident> {
        let field = |name: &str| -> anyhow::Result<u64> {
            let line = status
                .lines()
                .find(|line| {
                    line.strip_prefix(name)
                        .is_some_and(|rest| rest.starts_with(':'))
                })
                .with_context(|| format!("/proc/self/status has no {name} line"))?;
            let kib: u64 = line[name.len() + 1..]
                .split_whitespace()
                .next()
                .and_then(|kib| kib.parse().ok())
                .with_context(|| format!("/proc/self/status: {name} is not a number of kB"))?;
            Ok(kib * 1024)
        };
        Ok(Resident {
            total: field("VmRSS")?,
            shared: field("RssShmem")?,
        })
    }
}

/// Plays the soak headless with the validation layer on; the trace's lines go to stdout.
pub fn run(soak: &SoakRun) -> anyhow::Result<SoakReport> {
    soak.script.check().map_err(anyhow::Error::msg)?;
    let started = Instant::now();
    let text = script(&soak.script).to_string();
    let scene = blockfall_game::scene::parse(&text).context("the soak's own script")?;
    if let Some(folder) = soak.script.save.parent() {
        if !folder.as_os_str().is_empty() {
            std::fs::create_dir_all(folder)
                .with_context(|| format!("creating {}", folder.display()))?;
        }
    }
    let mut gpu = Gpu::headless(&GpuDesc {
        app_name: "blockfall soak".into(),
        validation: true,
        preferred_device: soak.gpu,
        vulkan_1_2_path: false,
    })?;
    let sample = |gpu: &Gpu, t: f64| -> anyhow::Result<Sample> {
        Ok(Sample {
            t,
            rss: Resident::now()?,
            gpu: gpu.device.memory_report(),
        })
    };
    let before = sample(&gpu, 0.0)?;
    let options = RunOptions {
        width: soak.width,
        height: soak.height,
        validation: true,
        view_radius: soak.view_radius,
        hud: false,
        script: Some(scene.clone()),
        ..RunOptions::default()
    };
    let mut renderer = HeadlessRenderer::for_run(&mut gpu, &options)?;
    renderer.load_world()?;
    let script = Script::new(scene, &renderer.start);
    renderer.play = Play::new(Some(script));
    let mut samples = Vec::new();
    let mut frames = 0u64;
    let mut next_sample = soak.sample_every;
    while !renderer.play.script_finished() {
        renderer.render(&mut gpu, 0.0, 0.0, false)?;
        frames += 1;
        let t = frames as f64 * soak.script.frame_dt;
        if soak.sample_every > 0.0 && t + 1e-9 >= next_sample {
            renderer.frames.wait_all()?;
            let taken = sample(&gpu, t)?;
            log::info!(
                "soak: t = {t:.0} s, resident {:.1} MiB ({:.1} private), GPU {} bytes in {} \
                 blocks, {:.0} s wall",
                mib(taken.rss.total),
                mib(taken.rss.private()),
                taken.gpu.allocated_bytes,
                taken.gpu.blocks,
                started.elapsed().as_secs_f64()
            );
            samples.push(taken);
            next_sample += soak.sample_every;
        }
    }
    renderer.frames.wait_all()?;
    samples.push(sample(&gpu, soak.script.seconds)?);
    drop(renderer);
    // What the dropped renderer retired is destroyed once the device has nothing running.
    gpu.device.wait_idle()?;
    let after_unload = sample(&gpu, soak.script.seconds)?;
    Ok(SoakReport {
        before,
        samples,
        after_unload,
        baseline_t: soak.baseline_after,
        frames,
        validation_errors: gpu.validation_errors(),
        last_validation_error: gpu.instance.canary().last_error(),
        wall_seconds: started.elapsed().as_secs_f64(),
    })
}

/// The save a soak in `folder` writes and loads every cycle.
pub fn save_in(folder: &Path) -> PathBuf {
    folder.join(format!("soak.{}", blockfall_game::save::EXTENSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_memory_is_read_as_its_total_and_shared_part() {
        let status = "Name:\tblockfall\nVmRSS:\t  155428 kB\nRssAnon:\t  130000 kB\n\
                      RssFile:\t    6000 kB\nRssShmem:\t   19428 kB\n";
        let resident = Resident::parse(status).expect("a status text");
        assert_eq!(resident.total, 155_428 * 1024);
        assert_eq!(resident.shared, 19_428 * 1024);
        assert_eq!(resident.private(), 136_000 * 1024);
        let error = Resident::parse("VmRSS:\t12 kB\n").unwrap_err();
        assert!(format!("{error:#}").contains("RssShmem"), "{error:#}");
        assert!(Resident::parse("VmRSS:\tmany kB\nRssShmem:\t0 kB\n").is_err());
    }

    fn sample(t: f64, private_mib: u64, shared_mib: u64) -> Sample {
        Sample {
            t,
            rss: Resident {
                total: (private_mib + shared_mib) << 20,
                shared: shared_mib << 20,
            },
            gpu: MemoryReport::default(),
        }
    }

    fn report(samples: Vec<Sample>) -> SoakReport {
        SoakReport {
            before: sample(0.0, 100, 0),
            samples,
            after_unload: sample(60.0, 100, 0),
            baseline_t: 10.0,
            frames: 601,
            validation_errors: 0,
            last_validation_error: None,
            wall_seconds: 1.0,
        }
    }

    #[test]
    fn device_memory_first_touched_is_not_a_leak_but_private_growth_is() {
        // The device memory's block filling up (shared) while the process's own memory is flat.
        let flat = report(vec![
            sample(10.0, 130, 15),
            sample(20.0, 131, 15),
            sample(30.0, 131, 19),
        ]);
        assert!(flat.rss_growth() < 0.01);
        assert_eq!(flat.problems(), Vec::<String>::new());
        // A leak: private memory up by 10% after the baseline (samples before it do not count).
        let leak = report(vec![
            sample(5.0, 90, 0),
            sample(10.0, 130, 15),
            sample(30.0, 143, 15),
        ]);
        assert!((leak.rss_growth() - 0.1).abs() < 1e-9);
        assert_eq!(leak.problems().len(), 1, "{:?}", leak.problems());
        assert!(leak.problems()[0].contains("private resident memory grew by 10.0%"));
    }
}
