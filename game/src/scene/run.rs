//! Running a scene: its frames of `frame_dt` in order, each event applied at the first frame
//! at or after its time, and the trace written as it goes. [`Runner`] is the loop's parts, so
//! that a scripted run (`blockfall --script`) draws each frame between them; [`run()`] is the
//! headless loop of the `sim` tool.

use std::io::Write;
use std::iter::Peekable;
use std::vec::IntoIter;

use blockfall_physics::workers::WorkerPool;

use crate::input::{Button, Command, Input};
use crate::terrain::streaming::VIEW_RADIUS;
use crate::world::World;

use super::error::{invalid, SceneError};
use super::events::{apply, Outcome};
use super::file::{ActionSpec, SceneFile};
use super::setup::{world_of, Start};
use super::trace::{trace_time, DoneLine, EventLine, SaveState, ScriptStateLine, StateLine};

/// A scene being run, frame by frame: its events in order and the input they give. The world
/// is the caller's ([`world_of`] sets it up), so a renderer may own it.
pub struct Runner {
    scene: SceneFile,
    /// The input the events give, as if the mouse were captured from the start.
    pub input: Input,
    /// Commands of this frame's presses, for [`World::frame`].
    commands: Vec<Command>,
    pending: Peekable<IntoIter<usize>>,
    /// The clock at the first frame (0, or a save's).
    start: f64,
    frames: u64,
    /// The next state line is due at `reports · report_every`.
    reports: u64,
    /// Bytes of the trace's lines made so far (with their line ends).
    written: u64,
    /// The world's save, for the state lines of a scripted run that has one.
    save: Option<SaveState>,
    /// The buttons the events pressed since [`Runner::take_presses`], in order (a scripted
    /// run's menu takes them).
    presses: Vec<Button>,
    /// The menu's screen shown, for a scripted run's `state` lines ([`Runner::report_menu`]).
    menu: Option<&'static str>,
    /// The particles alive, for a scripted run's `state` lines ([`Runner::report_particles`]).
    particles: Option<u32>,
}

/// The most bytes an event's result line is expected to take, for the estimate of a trace.
const EVENT_LINE_BYTES: u64 = 256;

impl Runner {
    /// The events of the checked `scene`, none applied yet, its clock starting at `start`
    /// (see [`world_of`]) with what was held then held.
    pub fn new(scene: SceneFile, start: &Start) -> Self {
        let mut order: Vec<usize> = (0..scene.events.len()).collect();
        // By time; events at the same time in the order the file gives them.
        order.sort_by(|&a, &b| {
            scene.events[a]
                .t
                .total_cmp(&scene.events[b].t)
                .then(a.cmp(&b))
        });
        let frames = ((scene.duration - start.clock) / scene.frame_dt - 1e-9)
            .ceil()
            .max(0.0) as u64;
        let mut input = Input {
            captured: true,
            ..Input::default()
        };
        start.held.hold(&mut input);
        let epsilon = scene.frame_dt * 1e-6;
        // The first report after the start (every frame when `report_every` is 0).
        let reports = if scene.report_every > 0.0 {
            first_report_after(start.clock + epsilon, scene.report_every)
        } else {
            0
        };
        Self {
            scene,
            input,
            commands: Vec::new(),
            pending: order.into_iter().peekable(),
            start: start.clock,
            frames,
            reports,
            written: 0,
            save: None,
            presses: Vec::new(),
            menu: None,
            particles: None,
        }
    }

    /// The world's save as the state lines from now on report it (`"save"`).
    pub fn report_save(&mut self, save: SaveState) {
        self.save = Some(save.traced());
    }

    /// The menu's screen shown (`pause`, `settings`, `worlds`; `None`: closed) as a scripted
    /// run's `state` lines from now on report it (`"menu"`).
    pub fn report_menu(&mut self, menu: Option<&'static str>) {
        self.menu = menu;
    }

    /// The dust and debris particles alive, as a scripted run's `state` lines report them
    /// from now on (`"particles"`).
    pub fn report_particles(&mut self, particles: u32) {
        self.particles = Some(particles);
    }

    /// The buttons the events pressed since the last call, in order.
    pub fn take_presses(&mut self) -> Vec<Button> {
        std::mem::take(&mut self.presses)
    }

    /// Refuses, before the first line is written, a run whose trace would outgrow the scene's
    /// limit: its state lines (one per report, at most one per frame, and the `state` events)
    /// each the size of the first, `first_line`, and a line per other event.
    fn check_trace(&self, first_line: &str) -> Result<(), SceneError> {
        let every = self.scene.report_every;
        let reports = if every > 0.0 {
            let end = self.time_of(self.frames) + self.epsilon();
            let due = first_report_after(end, every).saturating_sub(self.reports);
            due.min(self.frames)
        } else {
            self.frames
        };
        let states = self
            .scene
            .events
            .iter()
            .filter(|event| matches!(event.action, ActionSpec::State(true)))
            .count() as u64;
        let others = self.scene.events.len() as u64 - states;
        let line = first_line.len() as u64 + 1;
        let estimate = line
            .saturating_mul(reports.saturating_add(states).saturating_add(2))
            .saturating_add(others.saturating_mul(EVENT_LINE_BYTES));
        self.scene.limits.check_trace(
            estimate,
            &format!(
                "the scene's {} state lines of {line} bytes (as its first) and {others} event \
                 lines come to about that",
                reports + states + 1
            ),
        )
    }

    /// Counts `line` (at scene time `t`) into the trace, refusing to go past the limit.
    fn count(&mut self, line: String, t: f64) -> Result<String, SceneError> {
        self.written = self.written.saturating_add(line.len() as u64 + 1);
        self.scene.limits.check_trace(
            self.written,
            &format!("the trace outgrew its limit at t = {} s", trace_time(t)),
        )?;
        Ok(line)
    }

    /// The scene's clock at the start of `frame` (counted from this run's first).
    pub fn time_of(&self, frame: u64) -> f64 {
        self.start + frame as f64 * self.scene.frame_dt
    }

    /// How many frames the scene has.
    pub fn frame_count(&self) -> u64 {
        self.frames
    }

    /// The scene's fixed frame time, in seconds.
    pub fn frame_dt(&self) -> f64 {
        self.scene.frame_dt
    }

    /// The state line at the start, once the trace the run will write was found within the
    /// scene's limits (see `check_trace`).
    pub fn first_line(&mut self, world: &World) -> Result<String, SceneError> {
        let mut state = StateLine::of(world, self.start);
        state.save = self.save.clone();
        let line = serde_json::to_string(&state)?;
        self.check_trace(&line)?;
        self.count(line, self.start)
    }

    fn epsilon(&self) -> f64 {
        self.scene.frame_dt * 1e-6
    }

    /// Applies the events due at the start of `frame` (all that are left at the end, when
    /// `frame` is the frame count); their outcomes, in order.
    pub fn events(&mut self, world: &mut World, frame: u64) -> Result<Vec<Outcome>, SceneError> {
        let t = self.time_of(frame);
        let last = frame >= self.frames;
        let epsilon = self.epsilon();
        let mut outcomes = Vec::new();
        while let Some(&index) = self.pending.peek() {
            let event = &self.scene.events[index];
            if !last && event.t > t + epsilon {
                break;
            }
            self.pending.next();
            if let ActionSpec::Press(button) = event.action {
                self.presses.push(button);
            }
            let outcome = match &event.action {
                // A scripted run's state line, with the world's save and the menu.
                ActionSpec::State(true) => {
                    let mut state = ScriptStateLine::of(world, trace_time(t));
                    state.save = self.save.clone();
                    state.menu = self.menu;
                    state.particles = self.particles;
                    Outcome::Line(serde_json::to_string(&state)?)
                }
                _ => apply(
                    world,
                    &mut self.input,
                    &mut self.commands,
                    t,
                    &event.action,
                    &format!("events[{index}]"),
                )?,
            };
            match outcome {
                Outcome::Nothing => {}
                Outcome::Line(line) => outcomes.push(Outcome::Line(self.count(line, t)?)),
                Outcome::Loaded(line) => outcomes.push(Outcome::Loaded(self.count(line, t)?)),
                Outcome::Screenshot(_) | Outcome::Menu(_) => outcomes.push(outcome),
            }
        }
        if last && !self.commands.is_empty() {
            // Presses at the very end still act (a fly toggle shows in the last state).
            let commands = std::mem::take(&mut self.commands);
            for command in commands {
                world.command(command);
            }
        }
        Ok(outcomes)
    }

    /// The commands of the presses since the last frame, for [`World::frame`].
    pub fn take_commands(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.commands)
    }

    /// The state line after `frame`, when one is due.
    pub fn state_due(&mut self, world: &World, frame: u64) -> Result<Option<String>, SceneError> {
        let after = self.time_of(frame + 1);
        let epsilon = self.epsilon();
        let every = self.scene.report_every;
        let due = |reports: u64| reports as f64 * every <= after + epsilon;
        if !(every == 0.0 || due(self.reports)) {
            return Ok(None);
        }
        if every > 0.0 {
            // The first report not yet due, found by division (a tiny `report_every` would take
            // forever counting up), then set right where rounding put it off by one.
            let mut next = first_report_after(after + epsilon, every).max(self.reports);
            while next > self.reports && !due(next - 1) {
                next -= 1;
            }
            while next < u64::MAX && due(next) {
                next += 1;
            }
            self.reports = next;
        }
        let mut state = StateLine::of(world, after);
        state.save = self.save.clone();
        let line = serde_json::to_string(&state)?;
        self.count(line, after).map(Some)
    }

    /// Steps `frame` (after its events) headless: the world's frame with this frame's input;
    /// returns the lines after it ([`Runner::after_frame`]).
    pub fn step(&mut self, world: &mut World, frame: u64) -> Result<Vec<String>, SceneError> {
        let commands = self.take_commands();
        world.frame(self.scene.frame_dt as f32, &mut self.input, &commands);
        self.after_frame(world, frame)
    }

    /// The lines after `frame` was stepped: a `split` line for each piece that broke where it
    /// was struck, a `lost` line for blocks that left the world without falling as a piece
    /// ([`World::lost`]), then the state line when one is due.
    pub fn after_frame(&mut self, world: &World, frame: u64) -> Result<Vec<String>, SceneError> {
        let after = self.time_of(frame + 1);
        let mut lines = Vec::new();
        for split in world.splits() {
            let line = serde_json::to_string(&EventLine {
                t: trace_time(after),
                event: "split",
                piece: Some(split.piece.index()),
                into: Some(split.into.iter().map(|piece| piece.index()).collect()),
                ..EventLine::default()
            })?;
            lines.push(self.count(line, after)?);
        }
        for lost in world.lost() {
            let line = serde_json::to_string(&EventLine {
                t: trace_time(after),
                event: "lost",
                piece: lost.piece.map(|piece| piece.index()),
                blocks: Some(lost.blocks),
                error: Some(lost.why.clone()),
                ..EventLine::default()
            })?;
            lines.push(self.count(line, after)?);
        }
        lines.extend(self.state_due(world, frame)?);
        Ok(lines)
    }

    /// The last line of the trace.
    pub fn done_line(&mut self) -> Result<String, SceneError> {
        let end = self.time_of(self.frames);
        let line = serde_json::to_string(&DoneLine {
            done: true,
            t: trace_time(end),
        })?;
        self.count(line, end)
    }
}

/// The index of the first report after `time`, with a report at every multiple of `every`
/// (> 0): saturating at `u64::MAX` (an `f64` cast to `u64` saturates, and so does the `+ 1`).
fn first_report_after(time: f64, every: f64) -> u64 {
    ((time / every).floor() as u64).saturating_add(1)
}

/// Runs a checked scene and writes its trace.
pub fn run(scene: &SceneFile, out: &mut dyn Write) -> Result<(), SceneError> {
    run_with_pool(
        scene,
        out,
        WorkerPool::new(1).map_err(|e| invalid("threads", e.to_string()))?,
    )
}

/// [`run()`] with the physics on `pool`: the trace is the same, byte for byte, for any pool.
/// A screenshot event needs a renderer: `sim` refuses the scene before it runs.
pub fn run_with_pool(
    scene: &SceneFile,
    out: &mut dyn Write,
    pool: WorkerPool,
) -> Result<(), SceneError> {
    if let Some((index, _)) = scene
        .events
        .iter()
        .enumerate()
        .find(|(_, event)| matches!(event.action, super::ActionSpec::Screenshot(_)))
    {
        return Err(invalid(
            format!("events[{index}].screenshot"),
            "a screenshot needs a rendered run: `blockfall --script` (with or without --headless)",
        ));
    }
    let (mut world, start) = world_of(scene, pool, VIEW_RADIUS)?;
    let mut runner = Runner::new(scene.clone(), &start);
    writeln!(out, "{}", runner.first_line(&world)?)?;
    for frame in 0..runner.frame_count() {
        write_lines(out, runner.events(&mut world, frame)?)?;
        for line in runner.step(&mut world, frame)? {
            writeln!(out, "{line}")?;
        }
    }
    // Events at the very end happen after the last frame (later ones are refused by `parse`).
    let end = runner.frame_count();
    write_lines(out, runner.events(&mut world, end)?)?;
    writeln!(out, "{}", runner.done_line()?)?;
    out.flush()?;
    Ok(())
}

fn write_lines(out: &mut dyn Write, outcomes: Vec<Outcome>) -> Result<(), SceneError> {
    for outcome in outcomes {
        if let Outcome::Line(line) | Outcome::Loaded(line) = outcome {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}
