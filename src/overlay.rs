//! The HUD of a run: what it says (the player's mode and place, the tool, the blocks, the
//! preview, what is falling, the chunks, the frame's times; F3 adds every pass's GPU time, the
//! shadows' quality, passes and time, and the draw counts; a help line for the tool in hand),
//! the crosshair at the centre of the world's view (the `crosshair` setting), and the renderer
//! that draws it over the frame in its own pass ("hud"). A scripted run shows its own clock
//! instead of the machine's times, so that the same script gives the same pictures.

use std::sync::Arc;

use crate::playing::Playing;
use blockfall_engine::gpu::{vk, Device, FrameRing, PassTiming};
use blockfall_game::blocks::materials::MATERIALS;
use blockfall_game::input::{Action, Bindings};
use blockfall_game::player::Mode;
use blockfall_game::world::{Tool, ToolKind};
use blockfall_game_render::hud::{Hotbar, HotbarSlot, Hud, HudError, HudRenderer, MenuClick};
use blockfall_game_render::shadows::Shadows;
use blockfall_game_render::target::RenderTarget;

use crate::play::Play;
use crate::shown::Shown;

/// The CPU side of a frame, in milliseconds: playing the world's frame, and recording.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTimes {
    /// Wall-clock time between frames.
    pub frame: f64,
    /// The world's frame, streaming and mesh uploads.
    pub play: f64,
    /// Recording the frame's passes.
    pub record: f64,
}

/// "Frame time", one meaning for the window and headless runs: from the start of one frame to
/// the start of the next (everything a run spends on a frame: playing, recording, waiting for
/// its slot, presenting or reading back, writing screenshots). The run's means, of the frame
/// time and of the CPU times, leave out the first frame when there are more: it pays for the
/// pipelines' warm-up and builds the HUD's font atlas (10 ms to record, against 0.4 ms for the
/// frames after it); the first frame's CPU times are kept on their own.
#[derive(Debug, Default)]
pub struct FrameClock {
    /// When the last frame started.
    last_start: Option<std::time::Instant>,
    /// The time between the last two starts, milliseconds.
    last_frame: f64,
    /// Frames between starts (and the run's end), their sum past the first, and how many.
    intervals: u64,
    after_first: f64,
    first: f64,
    /// The CPU times (play, record) summed past the first frame, how many frames there were
    /// in all, and the first frame's.
    cpu: (f64, f64),
    cpu_frames: u64,
    first_cpu: (f64, f64),
}

impl FrameClock {
    /// A frame starts now; returns the instant (the CPU times are measured from it).
    pub fn start(&mut self) -> std::time::Instant {
        let now = std::time::Instant::now();
        self.mark(now);
        now
    }

    /// Seconds since the last frame started, if one did.
    pub fn since_last_start(&self) -> Option<f32> {
        self.last_start.map(|last| last.elapsed().as_secs_f32())
    }

    /// The run ends now: the last frame's time is counted too.
    pub fn end(&mut self) {
        self.mark(std::time::Instant::now());
        self.last_start = None;
    }

    fn mark(&mut self, now: std::time::Instant) {
        if let Some(last) = self.last_start.replace(now) {
            self.last_frame = (now - last).as_secs_f64() * 1000.0;
            if self.intervals == 0 {
                self.first = self.last_frame;
            } else {
                self.after_first += self.last_frame;
            }
            self.intervals += 1;
        }
    }

    /// A frame's CPU times, from its start: played, recording begun, recorded.
    pub fn times(
        &mut self,
        started: std::time::Instant,
        played: std::time::Instant,
        (begun, recorded): (std::time::Instant, std::time::Instant),
    ) -> CpuTimes {
        let times = CpuTimes {
            frame: self.last_frame,
            play: (played - started).as_secs_f64() * 1000.0,
            record: (recorded - begun).as_secs_f64() * 1000.0,
        };
        if self.cpu_frames == 0 {
            self.first_cpu = (times.play, times.record);
        } else {
            self.cpu.0 += times.play;
            self.cpu.1 += times.record;
        }
        self.cpu_frames += 1;
        times
    }

    /// The mean frame time, milliseconds: past the first frame when there were more.
    pub fn mean_frame_ms(&self) -> f64 {
        match self.intervals {
            0 => 0.0,
            1 => self.first,
            more => self.after_first / (more - 1) as f64,
        }
    }

    /// The mean CPU times to play and to record a frame, milliseconds: past the first frame
    /// when there were more.
    pub fn mean_cpu_ms(&self) -> (f64, f64) {
        match self.cpu_frames {
            0 => (0.0, 0.0),
            1 => self.first_cpu,
            more => {
                let frames = (more - 1) as f64;
                (self.cpu.0 / frames, self.cpu.1 / frames)
            }
        }
    }

    /// The first frame's CPU times to play and to record, milliseconds (0 before any frame).
    pub fn first_cpu_ms(&self) -> (f64, f64) {
        self.first_cpu
    }
}

/// The HUD and what it says.
pub struct Overlay {
    renderer: HudRenderer,
}

impl Overlay {
    /// The HUD drawn into targets of `colour_format` (the crosshair where the HUD asks for
    /// one: the `crosshair` setting, [`hud_text`]).
    pub fn new(device: &Arc<Device>, colour_format: vk::Format) -> Result<Self, HudError> {
        Ok(Self {
            renderer: HudRenderer::new(device, colour_format)?,
        })
    }

    /// The egui context, for the window's egui-winit state.
    pub fn context(&self) -> &egui::Context {
        self.renderer.context()
    }

    /// Records the HUD pass over what the frame drew so far; `raw_input` from egui-winit in the
    /// window, [`HudRenderer::raw_input`] headless. Returns what was clicked on the menu.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        raw_input: egui::RawInput,
        hud: Hud,
    ) -> Result<Option<MenuClick>, HudError> {
        self.renderer.record(frames, target, raw_input, &hud)
    }
}

/// What the HUD says this frame: F1 hides all of it but the menu; the scale is the caller's
/// ([`blockfall_game_render::hud::hud_scale`], from the target's size).
pub fn hud_text(play: &Play, shown: &Shown, frames: &FrameRing, times: CpuTimes) -> Hud {
    let menu = play.menu.view(&play.settings);
    if play.hud_hidden {
        return Hud {
            menu,
            ..Hud::default()
        };
    }
    let mut hud = Hud {
        show_detail: play.show_detail,
        message: play.message.as_ref().map(|(text, _)| text.clone()),
        warning: play.warning.clone(),
        menu,
        ..Hud::default()
    };
    let timings = frames.last_timings();
    match &play.script {
        // A scripted run's pictures are the same every time: its clock, not the machine's.
        Some(script) => {
            let (t, duration) = script.clock();
            hud.lines.push(format!("script: {t:.2} of {duration:.2} s"));
        }
        None => {
            let gpu_total: f64 = timings.iter().map(|t| t.milliseconds).sum();
            hud.detail.push(format!(
                "{:.1} ms a frame · CPU {:.2} ms (play {:.2}, record {:.2}) · GPU {:.2} ms",
                times.frame,
                times.play + times.record,
                times.play,
                times.record,
                gpu_total
            ));
            for timing in timings {
                hud.detail.push(format!(
                    "{:<10} {:7.3} ms GPU",
                    timing.name, timing.milliseconds
                ));
            }
        }
    }
    if let Shown::World(world) = shown {
        world_lines(&mut hud, world, &play.input.bindings);
        hud.detail.push(shadows_line(
            world.renderer.shadows,
            timings,
            play.script.is_some(),
        ));
        // Where the world is seen, its centre marked (the `crosshair` setting).
        hud.crosshair = play.settings.crosshair && play.menu.state().is_none();
    }
    hud.help = help_line(play, shown);
    hud
}

/// The name of every shadow pass starts with this (`shadow cascade 0`, …).
const SHADOW_PASSES: &str = "shadow";

/// F3's line on the shadows: their quality, and the passes that drew them in the last timed
/// frame and their GPU time (`shadows: High, 4 passes, 1.23 ms`); off, or in a scripted run,
/// the quality alone (`shadows: Off`): a script's pictures are the same every time, and the
/// passes come from the GPU's timings, which some devices do not have.
fn shadows_line(shadows: Shadows, timings: &[PassTiming], scripted: bool) -> String {
    if shadows == Shadows::Off || scripted {
        return format!("shadows: {}", shadows.name());
    }
    let passes: Vec<&PassTiming> = timings
        .iter()
        .filter(|timing| timing.name.starts_with(SHADOW_PASSES))
        .collect();
    let count = match passes.len() {
        1 => "1 pass".to_owned(),
        n => format!("{n} passes"),
    };
    // From +0 (an empty `sum` of floats is -0, printed "-0.00").
    let milliseconds = passes
        .iter()
        .fold(0.0, |sum, timing| sum + timing.milliseconds);
    format!("shadows: {}, {count}, {milliseconds:.2} ms", shadows.name())
}

/// The world's lines: a short one at the top left (how the player moves, what the aimed
/// block holds, what is falling), the hotbar of the block tool, and F3's detail (the place,
/// the chunks, the view, the draws).
fn world_lines(hud: &mut Hud, playing: &Playing, bindings: &Bindings) {
    let (world, renderer) = (&playing.world, &playing.renderer);
    let mode = match world.player().mode {
        Mode::Fly => "flying",
        Mode::Walk if world.player().grounded => "walking",
        Mode::Walk => "in the air",
    };
    let mut status = vec![mode.to_owned()];
    let tool = world.tool();
    match tool.kind {
        ToolKind::Blocks => {
            hud.hotbar = Some(hotbar(tool, bindings));
            if let Some(aim) = world.aim() {
                if !aim.would_fall.is_empty() {
                    status.push(format!("{} more would fall", aim.would_fall.len()));
                }
            }
        }
        ToolKind::Terrain => status.push(format!("terrain tool: sphere of {:.1} m", tool.radius)),
    }
    let falling = world.pieces().falling();
    let resting = world.pieces().len() - falling;
    if falling > 0 || resting > 0 {
        status.push(format!("{falling} falling, {resting} at rest"));
    }
    // One line: after a script's clock, when there is one.
    match hud.lines.last_mut() {
        Some(line) => {
            line.push_str(" · ");
            line.push_str(&status.join(" · "));
        }
        None => hud.lines.push(status.join(" · ")),
    }
    let feet = world.player().position;
    hud.detail.push(format!(
        "at ({:.1}, {:.1}, {:.1}) · facing {:.0}° · {} blocks placed",
        feet.x,
        feet.y,
        feet.z,
        world.yaw().to_degrees(),
        world.blocks().count()
    ));
    let viewer = playing.viewer();
    // Waiting: chunks still to load, and loaded ones still to mesh with a new mesher.
    hud.detail.push(format!(
        "{}: {} chunks, {} waiting",
        renderer.mesher().label(),
        renderer.meshes().resident_chunks(),
        world.chunks().missing(viewer) + world.chunks().remeshing()
    ));
    let chunks = world.chunks();
    hud.detail.push(match chunks.top_level() {
        0 => format!("view: {} m, all at full detail", chunks.radius() * 32),
        top => format!(
            "view: {} m, full detail to 128 m, levels of detail 1-{top} beyond",
            chunks.radius() * 32
        ),
    });
    hud.detail.push(format!(
        "particles: {} alive of {}",
        renderer.particles_live(),
        renderer.particles_budget()
    ));
    hud.detail.push(format!(
        "draws: terrain {} ({} chunks), blocks {} ({} regions), pieces {} ({} pieces)",
        renderer.terrain_draws(),
        renderer.terrain_chunks_drawn(),
        renderer.blocks().draws_last_frame(),
        renderer.blocks().resident_regions(),
        renderer.pieces().draws_last_frame(),
        renderer.pieces().pieces_last_frame(),
    ));
}

/// The block tool's hotbar: the six materials in their colours, each with its key, the chosen
/// one framed, and its name and the block size beside them.
fn hotbar(tool: &Tool, bindings: &Bindings) -> Hotbar {
    const KEYS: [Action; 6] = [
        Action::Material1,
        Action::Material2,
        Action::Material3,
        Action::Material4,
        Action::Material5,
        Action::Material6,
    ];
    Hotbar {
        slots: MATERIALS
            .iter()
            .zip(KEYS)
            .map(|(material, action)| HotbarSlot {
                key: bindings
                    .buttons(action)
                    .first()
                    .map(|button| button.label())
                    .unwrap_or_default(),
                colour: material.colour,
            })
            .collect(),
        selected: tool.material,
        label: format!("{} · {} m", tool.material_name(), tool.size_meters()),
    }
}

/// The keys of the tool in hand, every one it uses (walking, running and jumping too), as the
/// player bound them; while the mouse is free, how to play and the window's keys.
fn help_line(play: &Play, shown: &Shown) -> String {
    // The keys as the player bound them (a script's input has the defaults).
    let bindings = &play.input.bindings;
    let key = |action| bindings.label(action);
    let window = format!(
        "{} screenshot · {} detail · {} fullscreen · {} hide HUD",
        key(Action::Screenshot),
        key(Action::Detail),
        key(Action::Fullscreen),
        key(Action::HideHud)
    );
    let Shown::World(world) = shown else {
        return format!("{window} · {} quit", key(Action::Escape));
    };
    if play.menu.is_open() {
        return String::new();
    }
    if play.script.is_none() && !play.input.captured {
        let mut help = format!(
            "Click to play · {} menu · {} save · {} load · {window}",
            key(Action::Escape),
            key(Action::Save),
            key(Action::Load),
        );
        if let Some(path) = &play.settings_file {
            help.push_str(&format!(" · keys and settings: {}", path.display()));
        }
        return help;
    }
    tool_help(bindings, world.world.tool().kind)
}

/// The keys of the tool `kind` in hand, every one it uses (walking, running and jumping too),
/// as `bindings` bind them.
pub fn tool_help(bindings: &Bindings, kind: ToolKind) -> String {
    let key = |action| bindings.label(action);
    // Two spaces between the keys: one line at 1280 × 720, so that the HUD covers little.
    let moving = format!(
        "{}{}{}{} walk  {} run  {} jump  {} fly {}/{}",
        key(Action::Forward),
        key(Action::Left),
        key(Action::Back),
        key(Action::Right),
        key(Action::Run),
        key(Action::Jump),
        key(Action::Fly),
        key(Action::Down),
        key(Action::Up),
    );
    let undo = format!("Ctrl+{}/{} undo/redo", key(Action::Undo), key(Action::Redo));
    let last = format!("{} menu", key(Action::Escape));
    match kind {
        ToolKind::Blocks => format!(
            "{} break  {} place  {} pick  {}–{}/wheel material  {}{} size  {} chisel ({}+{} \
             slope)  {undo}  {} terrain  {moving}  {last}",
            key(Action::BreakOrDig),
            key(Action::PlaceOrBuild),
            key(Action::PickBlock),
            key(Action::Material1),
            key(Action::Material6),
            key(Action::Smaller),
            key(Action::Larger),
            key(Action::Chisel),
            key(Action::Run),
            key(Action::Chisel),
            key(Action::SwitchTool),
        ),
        ToolKind::Terrain => format!(
            "{} dig  {} build  wheel size  {undo}  {} blocks  {} wireframe  {} mesher  \
             {moving}  {last}",
            key(Action::BreakOrDig),
            key(Action::PlaceOrBuild),
            key(Action::SwitchTool),
            key(Action::Wireframe),
            key(Action::Mesher),
        ),
    }
}

#[cfg(test)]
mod shadows_tests {
    use super::*;

    fn timing(name: &str, milliseconds: f64) -> PassTiming {
        PassTiming {
            name: name.into(),
            milliseconds,
        }
    }

    #[test]
    fn the_shadows_line_sums_the_shadow_passes_alone() {
        let timings = [
            timing("shadow cascade 0", 0.25),
            timing("shadow cascade 1", 0.5),
            timing("terrain", 3.0),
            timing("shadow cascade 2", 0.125),
            timing("shadow cascade 3", 0.0625),
            timing("blocks", 1.0),
            timing("hud", 0.1),
        ];
        assert_eq!(
            shadows_line(Shadows::High, &timings, false),
            "shadows: High, 4 passes, 0.94 ms"
        );
        assert_eq!(
            shadows_line(Shadows::Low, &timings[..3], false),
            "shadows: Low, 2 passes, 0.75 ms"
        );
        assert_eq!(
            shadows_line(Shadows::Low, &timings[..1], false),
            "shadows: Low, 1 pass, 0.25 ms"
        );
        // No pass yet (the first frame, before any timings were read).
        assert_eq!(
            shadows_line(Shadows::High, &[], false),
            "shadows: High, 0 passes, 0.00 ms"
        );
        // A script's pictures stay the same: the quality alone.
        assert_eq!(shadows_line(Shadows::High, &timings, true), "shadows: High");
        assert_eq!(shadows_line(Shadows::Off, &timings, false), "shadows: Off");
        assert_eq!(shadows_line(Shadows::Off, &[], true), "shadows: Off");
    }
}

#[cfg(test)]
mod clock_tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn frame_time_runs_start_to_start_and_leaves_out_the_first_of_several() {
        let mut clock = FrameClock::default();
        assert_eq!(clock.mean_frame_ms(), 0.0);
        assert!(clock.since_last_start().is_none());
        let started = clock.start();
        std::thread::sleep(Duration::from_millis(30));
        let times = clock.times(started, Instant::now(), (Instant::now(), Instant::now()));
        assert!(times.play >= 30.0, "{times:?}");
        // One frame and the run's end: its whole time is the mean.
        clock.end();
        let one = clock.mean_frame_ms();
        assert!(one >= 30.0, "{one}");
        // Three more frames of ~5 ms: the first (30 ms) is left out of the mean.
        let mut clock = FrameClock::default();
        clock.start();
        std::thread::sleep(Duration::from_millis(30));
        for _ in 0..3 {
            clock.start();
            std::thread::sleep(Duration::from_millis(5));
        }
        clock.end();
        let mean = clock.mean_frame_ms();
        assert!((5.0..25.0).contains(&mean), "{mean}");
        assert_eq!(clock.mean_cpu_ms(), (0.0, 0.0));
    }

    #[test]
    fn cpu_means_leave_out_the_first_frame_of_several_and_keep_it_apart() {
        let at = Instant::now();
        let ms = |n: u64| at + Duration::from_millis(n);
        let mut clock = FrameClock::default();
        // The first frame: 20 ms to play, 10 to record (a font atlas built).
        clock.times(at, ms(20), (ms(20), ms(30)));
        assert_eq!(clock.mean_cpu_ms(), clock.first_cpu_ms());
        // Two more: 2 and 4 ms to play, 1 and 3 to record.
        clock.times(at, ms(2), (ms(2), ms(3)));
        clock.times(at, ms(4), (ms(4), ms(7)));
        let (play, record) = clock.mean_cpu_ms();
        assert!(
            (play - 3.0).abs() < 1e-9 && (record - 2.0).abs() < 1e-9,
            "{play} {record}"
        );
        let (play, record) = clock.first_cpu_ms();
        assert!(
            (play - 20.0).abs() < 1e-9 && (record - 10.0).abs() < 1e-9,
            "{play} {record}"
        );
    }
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use blockfall_game_render::hud::{coverage, hud_scale};

    #[test]
    fn the_hud_fits_and_covers_under_fifteen_percent_with_help_shown() {
        let bindings = Bindings::default();
        for kind in [ToolKind::Blocks, ToolKind::Terrain] {
            let help = tool_help(&bindings, kind);
            for words in ["walk", "run", "jump", "undo", "menu"] {
                assert!(help.contains(words), "{words}: {help}");
            }
            let hud = Hud {
                lines: vec![
                    "script: 12.00 of 30.00 s · walking · 11 more would fall · 3 \
                     falling, 2 at rest"
                        .into(),
                ],
                help,
                hotbar: (kind == ToolKind::Blocks).then(|| Hotbar {
                    slots: MATERIALS
                        .iter()
                        .map(|m| HotbarSlot {
                            key: "1".into(),
                            colour: m.colour,
                        })
                        .collect(),
                    selected: 0,
                    label: "stone · 0.5 m".into(),
                }),
                crosshair: true,
                ..Hud::default()
            };
            for (width, height) in [(320, 180), (640, 360), (1280, 720), (1920, 1080)] {
                let scale = hud_scale(width, height, 1.0, 1.0);
                let (share, inside) = coverage(
                    &Hud {
                        scale,
                        ..hud.clone()
                    },
                    width,
                    height,
                );
                eprintln!("{kind:?} {width}x{height}: {:.1} % covered", share * 100.0);
                assert!(inside, "{kind:?} {width}x{height}: past the window's edge");
                assert!(
                    share < 0.15,
                    "{kind:?} {width}x{height}: {:.1} %",
                    share * 100.0
                );
            }
        }
    }
}
