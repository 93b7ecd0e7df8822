//! The sun's shadows and the blocks' ambient occlusion, in pixels (issue "Light and shadow"):
//! scripted headless runs (`blockfall --script`, validated) of blocks on flat or sloped ground
//! with `--shadows high` (or `off`), their screenshots read where world points land.
//!
//! * **Where a shadow falls**: the sun is [`sun_toward`]; a point Q casts its shadow on the flat
//!   ground y = 0 at Q − sun · Q.y / sun.y, so a box's shadow is the convex hull of its eight
//!   corners' shadows ([`Cuboid::shadow`]).
//! * **Brightness** is the luminance of the linearised sRGB pixels (0.2126 R + 0.7152 G +
//!   0.0722 B of the linear values): the light a surface receives scales it, whatever its
//!   albedo. Ground is compared with ground at the same distance from the eye (the same
//!   texture scale, the same fog), turned about the eye ([`Shot::twin`]), mostly as means over
//!   many points: the grass's texture is noisy per pixel.
//! * **What is seen**: a ground point counts only where it lands on the picture and no block
//!   stands between it and the eye ([`Shot::sees`]). Every view looks over the blocks and meets
//!   the ground beyond the tools' reach, so neither the placing ghost nor the aimed block's
//!   outline is drawn over what is measured: each state line aims at no block and no picture
//!   has an orange pixel ([`Script::run`], [`Trace::shot`]).
//!
//! Each test prints what it measured (`--nocapture`); a failing one leaves its script and
//! pictures in its scratch folder, named in the message.

use std::path::{Path, PathBuf};

use blockfall_game::blocks::CELL;
use blockfall_game::camera::{Camera, FIELD_OF_VIEW_DEGREES};
use blockfall_game::player::EYES;
use blockfall_game_render::shadows::sun_toward;
use serde_json::{json, Value};
use ultraviolet::{Vec2, Vec3};

use crate::common::{run_script, scratch, skip_gpu, text, Png};

/// The pictures' size: small, for lavapipe, and enough pixels per centimetre at a few meters.
const WIDTH: u32 = 640;
const HEIGHT: u32 = 360;
/// Frames of 50 ms: half a second streams the two chunks around the player and meshes them.
const FRAME_DT: f64 = 0.05;
/// When the first picture is taken.
const SETTLED: f64 = 0.5;

// ---------------------------------------------------------------------------------------------
// Geometry: boxes, their shadows on the ground, convex polygons.

/// An axis-aligned box, meters.
#[derive(Debug, Clone, Copy)]
struct Cuboid {
    low: Vec3,
    high: Vec3,
}

impl Cuboid {
    /// The box of a block: its lowest cell and its size in cells.
    fn block(cell: [i32; 3], size: u8) -> Cuboid {
        let low = Vec3::from(cell.map(|c| c as f32 * CELL));
        Cuboid {
            low,
            high: low + Vec3::broadcast(f32::from(size) * CELL),
        }
    }

    /// A cube of `side` meters around `middle`.
    fn around(middle: Vec3, side: f32) -> Cuboid {
        Cuboid {
            low: middle - Vec3::broadcast(side / 2.0),
            high: middle + Vec3::broadcast(side / 2.0),
        }
    }

    fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 == 0 { self.low.x } else { self.high.x },
                if i & 2 == 0 { self.low.y } else { self.high.y },
                if i & 4 == 0 { self.low.z } else { self.high.z },
            )
        })
    }

    /// Its shadow on the flat ground y = 0.
    fn shadow(&self) -> Polygon {
        Polygon::hull(self.corners().iter().map(|&q| shadow_point(q)).collect())
    }

    /// Its outline seen from above (x, z).
    fn base(&self) -> Polygon {
        Polygon::hull(self.corners().iter().map(|q| Vec2::new(q.x, q.z)).collect())
    }

    /// Whether the segment from `a` to `b` meets the box grown by `grow` on every side.
    fn meets(&self, a: Vec3, b: Vec3, grow: f32) -> bool {
        let (a, d): ([f32; 3], [f32; 3]) = (a.into(), (b - a).into());
        let (low, high): ([f32; 3], [f32; 3]) = (self.low.into(), self.high.into());
        let (mut enter, mut leave) = (0.0f32, 1.0f32);
        for axis in 0..3 {
            let (lo, hi) = (low[axis] - grow, high[axis] + grow);
            if d[axis].abs() < 1e-9 {
                if a[axis] < lo || a[axis] > hi {
                    return false;
                }
                continue;
            }
            let (mut t0, mut t1) = ((lo - a[axis]) / d[axis], (hi - a[axis]) / d[axis]);
            if t0 > t1 {
                std::mem::swap(&mut t0, &mut t1);
            }
            enter = enter.max(t0);
            leave = leave.min(t1);
            if enter > leave {
                return false;
            }
        }
        true
    }
}

/// Where the sun casts the shadow of `q` on the flat ground y = 0, as (x, z).
fn shadow_point(q: Vec3) -> Vec2 {
    let sun = sun_toward();
    let p = q - sun * (q.y / sun.y);
    Vec2::new(p.x, p.z)
}

/// The ground point (y = 0) at (x, z).
fn ground(p: Vec2) -> Vec3 {
    Vec3::new(p.x, 0.0, p.y)
}

/// A convex polygon in the ground's (x, z), its corners counter-clockwise (x right, z up).
#[derive(Debug, Clone)]
struct Polygon(Vec<Vec2>);

fn cross(o: Vec2, a: Vec2, b: Vec2) -> f32 {
    (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
}

impl Polygon {
    /// The convex hull of `points` (Andrew's monotone chain).
    fn hull(mut points: Vec<Vec2>) -> Polygon {
        points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
        points.dedup_by(|a, b| (*a - *b).mag() < 1e-6);
        let mut hull: Vec<Vec2> = Vec::new();
        for pass in 0..2 {
            let start = hull.len();
            let ordered: Box<dyn Iterator<Item = &Vec2>> = if pass == 0 {
                Box::new(points.iter())
            } else {
                Box::new(points.iter().rev())
            };
            for &p in ordered {
                while hull.len() >= start + 2
                    && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 1e-9
                {
                    hull.pop();
                }
                hull.push(p);
            }
            hull.pop();
        }
        Polygon(hull)
    }

    fn edges(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        let n = self.0.len();
        (0..n).map(move |i| (self.0[i], self.0[(i + 1) % n]))
    }

    /// How far inside (positive) or outside (negative) `p` lies, meters.
    fn signed_distance(&self, p: Vec2) -> f32 {
        let inside = self.edges().all(|(a, b)| cross(a, b, p) >= 0.0);
        if inside {
            self.edges()
                .map(|(a, b)| cross(a, b, p) / (b - a).mag())
                .fold(f32::INFINITY, f32::min)
        } else {
            -self
                .edges()
                .map(|(a, b)| {
                    let ab = b - a;
                    let t = ((p - a).dot(ab) / ab.mag_sq()).clamp(0.0, 1.0);
                    (p - (a + ab * t)).mag()
                })
                .fold(f32::INFINITY, f32::min)
        }
    }

    /// The corners' bounds: low and high.
    fn bounds(&self) -> (Vec2, Vec2) {
        let low = self.0.iter().fold(Vec2::broadcast(f32::INFINITY), |l, p| {
            l.min_by_component(*p)
        });
        let high = self
            .0
            .iter()
            .fold(Vec2::broadcast(f32::NEG_INFINITY), |h, p| {
                h.max_by_component(*p)
            });
        (low, high)
    }
}

/// The points of a square grid of `step` meters over the box from `low` to `high`.
fn grid(low: Vec2, high: Vec2, step: f32) -> Vec<Vec2> {
    let (nx, nz) = (
        ((high.x - low.x) / step).floor() as usize,
        ((high.y - low.y) / step).floor() as usize,
    );
    (0..=nx)
        .flat_map(|i| (0..=nz).map(move |j| low + Vec2::new(i as f32, j as f32) * step))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Pixels.

/// An sRGB value made linear.
fn linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The luminance of a pixel, from its linear values.
fn luminance(p: [u8; 3]) -> f32 {
    0.2126 * linear(p[0]) + 0.7152 * linear(p[1]) + 0.0722 * linear(p[2])
}

fn mean(values: &[f32]) -> f32 {
    values.iter().sum::<f32>() / values.len().max(1) as f32
}

/// The mean absolute deviation from the mean.
fn mean_deviation(values: &[f32]) -> f32 {
    let m = mean(values);
    mean(&values.iter().map(|v| (v - m).abs()).collect::<Vec<_>>())
}

fn median(values: &[f32]) -> f32 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f32::total_cmp);
    sorted[sorted.len() / 2]
}

// ---------------------------------------------------------------------------------------------
// Scripts, their runs and their pictures.

/// A scene to play headless: the ground, the player, the events; its files in a scratch
/// folder.
struct Script {
    dir: PathBuf,
    width: u32,
    height: u32,
    terrain: Value,
    player: Value,
    events: Vec<Value>,
    duration: f64,
    /// Seconds between the world's state lines (with every piece's motion).
    report_every: f64,
}

impl Script {
    /// Flat ground at y = 0, the player's feet at `feet` (walking), looking along `yaw`
    /// (degrees from +z toward +x) and `pitch` (degrees up).
    fn flat(name: &str, feet: [f32; 3], yaw: f32, pitch: f32) -> Script {
        Script {
            dir: scratch(&format!("shadows-{name}")),
            width: WIDTH,
            height: HEIGHT,
            terrain: json!({"flat": {"height": 0.0}}),
            player: json!({"feet": feet, "yaw_degrees": yaw, "pitch_degrees": pitch}),
            events: Vec::new(),
            duration: 0.0,
            report_every: 100.0,
        }
    }

    /// A block of `material` at `cell`, `size` cells on a side, placed at `t`.
    fn place(&mut self, t: f64, cell: [i32; 3], size: u8, material: &str) -> &mut Self {
        self.events.push(json!({"t": t, "place": {
            "cell": cell, "size": size, "material": material}}));
        self
    }

    /// Any other event (`{"t": …, "break": …}`).
    fn event(&mut self, event: Value) -> &mut Self {
        self.events.push(event);
        self
    }

    /// A state line and a screenshot at `t`; the picture's path.
    fn shoot(&mut self, t: f64, name: &str) -> PathBuf {
        let path = self.dir.join(format!("{name}.png"));
        self.events.push(json!({"t": t, "state": true}));
        self.events
            .push(json!({"t": t, "screenshot": path.to_str().unwrap()}));
        self.duration = self.duration.max(t);
        path
    }

    /// Plays the script with `--shadows shadows`; its trace. Fails on any error (validation
    /// included), on a block not placed and on a state line that aims at a block or a piece.
    fn run(&self, shadows: &str) -> Trace {
        let script = self.dir.join(format!("script-{shadows}.json"));
        let scene = json!({
            "terrain": self.terrain,
            "player": self.player,
            "duration": self.duration,
            "frame_dt": FRAME_DT,
            "report_every": self.report_every,
            "events": self.events,
        });
        std::fs::write(&script, serde_json::to_string_pretty(&scene).unwrap()).unwrap();
        let started = std::time::Instant::now();
        let output = run_script(
            &script,
            self.width,
            self.height,
            &["--no-hud", "--shadows", shadows],
        );
        let stderr = text(&output.stderr);
        assert!(
            output.status.success(),
            "{} failed: {stderr}",
            script.display()
        );
        eprintln!(
            "{}: played in {:.1} s",
            script.display(),
            started.elapsed().as_secs_f64()
        );
        let lines: Vec<Value> = text(&output.stdout)
            .lines()
            .map(|line| serde_json::from_str(line).expect("every line is JSON"))
            .collect();
        for line in &lines {
            if line["event"] == "place" {
                assert_eq!(line["placed"], true, "{line}");
            }
            if line.get("yaw_degrees").is_some() {
                assert!(
                    line["aim"].is_null(),
                    "the view aims at a block (its ghost and outline would be drawn): {line}"
                );
            }
        }
        Trace {
            lines,
            width: self.width,
            height: self.height,
        }
    }

    /// Removes the scratch folder (a failing test leaves it, to look at).
    fn done(self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// A run's trace.
struct Trace {
    lines: Vec<Value>,
    width: u32,
    height: u32,
}

impl Trace {
    /// The last report of the world (with every piece) at or before `t`.
    fn report(&self, t: f64) -> &Value {
        self.lines
            .iter()
            .rev()
            .find(|l| l["pieces"].is_array() && l["t"].as_f64().unwrap() <= t + 1e-6)
            .unwrap_or_else(|| panic!("no report by {t}: {:?}", self.lines))
    }

    /// The state line at `t`.
    fn state(&self, t: f64) -> &Value {
        self.lines
            .iter()
            .find(|l| l.get("yaw_degrees").is_some() && (l["t"].as_f64().unwrap() - t).abs() < 1e-6)
            .unwrap_or_else(|| panic!("no state line at {t}: {:?}", self.lines))
    }

    /// The picture taken at `t`, with the view of that frame's state line; it shows no marker
    /// (no orange: the ghost, the outline, the would-fall tint).
    fn shot(&self, t: f64, path: &Path) -> Shot {
        let state = self.state(t);
        let number = |v: &Value| v.as_f64().unwrap() as f32;
        let feet: Vec<f32> = state["player"]["feet"]
            .as_array()
            .unwrap()
            .iter()
            .map(number)
            .collect();
        let eye = Vec3::new(feet[0], feet[1] + EYES, feet[2]);
        let (yaw, pitch) = (
            number(&state["yaw_degrees"]).to_radians(),
            number(&state["pitch_degrees"]).to_radians(),
        );
        let direction = Vec3::new(
            yaw.sin() * pitch.cos(),
            pitch.sin(),
            yaw.cos() * pitch.cos(),
        );
        let image = Png::read(path, (self.width, self.height));
        for y in 0..image.height {
            for x in 0..image.width {
                let [r, g, b] = image.pixel(x, y).map(i32::from);
                assert!(
                    !(r > g + 25 && r > b + 40),
                    "{}: a marker's orange at ({x}, {y}): {:?}",
                    path.display(),
                    [r, g, b]
                );
            }
        }
        Shot {
            image,
            // The default field of view: scripted runs read no settings.
            camera: Camera::looking_within(
                eye,
                direction,
                self.width,
                self.height,
                2,
                FIELD_OF_VIEW_DEGREES,
            ),
            eye,
            path: path.to_owned(),
        }
    }
}

/// A screenshot and the view it was taken from.
struct Shot {
    image: Png,
    camera: Camera,
    eye: Vec3,
    path: PathBuf,
}

impl Shot {
    /// The pixel where `p` lands, if it lands on the picture (two pixels in from its edges).
    fn pixel_of(&self, p: Vec3) -> Option<(u32, u32)> {
        let (x, y) = self
            .camera
            .project(p, self.image.width, self.image.height)?;
        let inside = |v: f32, size: u32| v >= 2.0 && v < size as f32 - 2.0;
        (inside(x, self.image.width) && inside(y, self.image.height))
            .then_some((x as u32, y as u32))
    }

    /// Whether the ground point `p` lands on the picture with none of `blocks` (grown by a
    /// centimetre) in front of it.
    fn sees(&self, p: Vec3, blocks: &[Cuboid]) -> bool {
        self.pixel_of(p).is_some() && !blocks.iter().any(|b| b.meets(self.eye, p, 0.01))
    }

    /// The luminance where `p` lands.
    fn luminance(&self, p: Vec3) -> f32 {
        let (x, y) = self
            .pixel_of(p)
            .unwrap_or_else(|| panic!("{p:?} is not on {}", self.path.display()));
        luminance(self.image.pixel(x, y))
    }

    /// The ground at the same distance from the eye as `p`, turned about the eye by the first
    /// of ±15°, ±25°, … ±75° where `open` holds and it is seen.
    fn twin(&self, p: Vec2, open: impl Fn(Vec2) -> bool, blocks: &[Cuboid]) -> Option<Vec2> {
        let eye = Vec2::new(self.eye.x, self.eye.z);
        let d = p - eye;
        (0..7)
            .flat_map(|k| {
                let degrees = 15.0 + 10.0 * k as f32;
                [degrees, -degrees]
            })
            .map(|degrees: f32| {
                let (s, c) = degrees.to_radians().sin_cos();
                eye + Vec2::new(c * d.x - s * d.y, s * d.x + c * d.y)
            })
            .find(|&q| open(q) && self.sees(ground(q), blocks))
    }

    /// The point of the ground y = 0 that the centre of pixel (x, y) shows (were nothing in
    /// front of it).
    fn ground_at_pixel(&self, x: u32, y: u32) -> Option<Vec3> {
        let inverse = self.camera.view_projection.inversed();
        let ndc = |v: u32, size: u32| (v as f32 + 0.5) / size as f32 * 2.0 - 1.0;
        let (nx, ny) = (ndc(x, self.image.width), ndc(y, self.image.height));
        let at = |z: f32| {
            let p = inverse * ultraviolet::Vec4::new(nx, ny, z, 1.0);
            p.xyz() / p.w
        };
        let (near, far) = (at(0.0), at(0.5));
        let direction = far - near;
        if direction.y >= 0.0 {
            return None;
        }
        Some(near + direction * (-near.y / direction.y))
    }
}

// ---------------------------------------------------------------------------------------------
// A 1 m stone cube on flat ground, seen from its shadow's side (tests 1 and 6).

/// The cube: cells (0, 0, 0) to (2, 2, 2), 0 to 1 m.
fn resting_cube() -> Cuboid {
    Cuboid::block([0, 0, 0], 2)
}

/// The cube on flat ground, the eye 3.9 m from it on the side away from the sun (−z) and off
/// to +x: its shadow toward the eye (−z) and beyond it (−x), the foot of its sunlit +x side in
/// view. Looking 5° down: the aim passes over the cube and meets the ground beyond
/// the reach.
fn cube_scene(name: &str) -> (Script, PathBuf) {
    let mut script = Script::flat(name, [2.5, 0.0, -3.0], -35.0, -5.0);
    script.place(0.0, [0, 0, 0], 2, "Stone");
    let shot = script.shoot(SETTLED, "cube");
    (script, shot)
}

/// Ground well inside the cube's shadow (12 cm or more from its edges and 10 cm or more from
/// the cube), seen, on a 5 cm grid; and the same distance from the eye in the open (40 cm or
/// more from the shadow and the cube), as pairs.
fn shade_and_open(shot: &Shot, cube: Cuboid) -> Vec<(Vec2, Vec2)> {
    let (shadow, base) = (cube.shadow(), cube.base());
    let (low, high) = shadow.bounds();
    let open = |q: Vec2| shadow.signed_distance(q) < -0.4 && base.signed_distance(q) < -0.4;
    grid(low, high, 0.05)
        .into_iter()
        .filter(|&p| {
            shadow.signed_distance(p) >= 0.12
                && base.signed_distance(p) <= -0.1
                && shot.sees(ground(p), &[cube])
        })
        .filter_map(|p| Some((p, shot.twin(p, open, &[cube])?)))
        .collect()
}

/// The mean luminances of the first and the second points of `pairs`.
fn pair_means(shot: &Shot, pairs: &[(Vec2, Vec2)]) -> (f32, f32) {
    let (a, b): (Vec<f32>, Vec<f32>) = pairs
        .iter()
        .map(|&(p, q)| (shot.luminance(ground(p)), shot.luminance(ground(q))))
        .unzip();
    (mean(&a), mean(&b))
}

#[test]
fn a_cube_on_flat_ground_casts_a_shadow_away_from_the_sun() {
    if skip_gpu() {
        return;
    }
    let (script, path) = cube_scene("cube");
    let trace = script.run("high");
    let shot = trace.shot(SETTLED, &path);
    let cube = resting_cube();
    let (shadow, base) = (cube.shadow(), cube.base());
    let where_ = path.display();

    // Inside the shadow against the open ground at the same distances.
    let pairs = shade_and_open(&shot, cube);
    assert!(pairs.len() >= 40, "{} shadow points seen", pairs.len());
    let (shade, open) = pair_means(&shot, &pairs);
    eprintln!(
        "shadow: {} points, mean luminance {shade:.4}; open ground at the same distances \
         {open:.4}: {:.0} % below",
        pairs.len(),
        100.0 * (1.0 - shade / open)
    );
    assert!(
        shade <= 0.7 * open,
        "{where_}: the ground in the cube's shadow ({shade:.4}) is not 30 % darker than the \
         open ground at the same distances ({open:.4})"
    );

    // The sunlit sides' feet (+x, +z): not darkened.
    let sunny: Vec<Vec2> = (1..=9)
        .flat_map(|i| {
            let along = 0.1 * i as f32;
            [0.04, 0.08, 0.12, 0.16]
                .into_iter()
                .flat_map(move |out| [Vec2::new(1.0 + out, along), Vec2::new(along, 1.0 + out)])
        })
        .filter(|&p| shot.sees(ground(p), &[cube]))
        .collect();
    let open_far = |q: Vec2| shadow.signed_distance(q) < -0.4 && base.signed_distance(q) < -0.4;
    let sunny_pairs: Vec<(Vec2, Vec2)> = sunny
        .iter()
        .filter_map(|&p| Some((p, shot.twin(p, open_far, &[cube])?)))
        .collect();
    assert!(
        sunny_pairs.len() >= 12,
        "{} points at the sunlit feet seen",
        sunny_pairs.len()
    );
    let (foot, foot_open) = pair_means(&shot, &sunny_pairs);
    eprintln!(
        "the sunlit foot (+x side, 4-16 cm out): {} points, {foot:.4}; open at the same \
         distances {foot_open:.4} ({:+.1} %)",
        sunny_pairs.len(),
        100.0 * (foot / foot_open - 1.0)
    );
    assert!(
        (foot / foot_open - 1.0).abs() <= 0.05,
        "{where_}: the ground at the foot of the sunlit sides ({foot:.4}) is not within 5 % of \
         the open ground ({foot_open:.4})"
    );

    // The shadow's extent: 10 cm inside its edges dark, 10 cm outside lit, against the
    // threshold halfway between the shadow and the open ground. Each sample is the mean of
    // three points 2 cm apart along the edge. Only the edges the sun's direction makes (not
    // the cube's own outline, where the shadow meets its foot).
    let threshold = (shade + open) / 2.0;
    let mut samples = 0;
    let mut wrong = Vec::new();
    for (a, b) in shadow.edges() {
        let middle = (a + b) * 0.5;
        if base.signed_distance(middle) > -0.01 {
            continue;
        }
        let along = (b - a).normalized();
        let outward = Vec2::new(along.y, -along.x);
        for i in 1..10 {
            let on = a + (b - a) * (0.1 * i as f32);
            let inside = on - outward * 0.1;
            let outside = on + outward * 0.1;
            let trio = |p: Vec2| [p - along * 0.02, p, p + along * 0.02];
            let usable = trio(inside).iter().chain(&trio(outside)).all(|&p| {
                shot.sees(ground(p), &[cube])
                    && base.signed_distance(p) <= -0.05
                    && shadow.signed_distance(p).abs() >= 0.08
            });
            if !usable {
                continue;
            }
            let lum = |p: Vec2| mean(&trio(p).map(|q| shot.luminance(ground(q))));
            let (dark, lit) = (lum(inside), lum(outside));
            samples += 1;
            eprintln!(
                "edge at ({:.2}, {:.2}): 10 cm inside {dark:.4}, outside {lit:.4} (threshold \
                 {threshold:.4})",
                on.x, on.y
            );
            if dark >= threshold || lit <= threshold {
                wrong.push(format!(
                    "at ({:.2}, {:.2}): inside {dark:.4}, outside {lit:.4}",
                    on.x, on.y
                ));
            }
        }
    }
    assert!(samples >= 8, "{samples} edge samples seen");
    assert!(
        wrong.is_empty(),
        "{where_}: the shadow's edge is not where the sun puts it (threshold {threshold:.4}): \
         {wrong:#?}"
    );
    script.done();
}

#[test]
fn shadows_off_draws_no_shadow() {
    if skip_gpu() {
        return;
    }
    let (script, path) = cube_scene("off");
    let trace = script.run("off");
    let shot = trace.shot(SETTLED, &path);
    let pairs = shade_and_open(&shot, resting_cube());
    assert!(pairs.len() >= 40, "{} shadow points seen", pairs.len());
    let (shade, open) = pair_means(&shot, &pairs);
    eprintln!(
        "shadows off: where the shadow would be {shade:.4}, open ground {open:.4} ({:+.1} %)",
        100.0 * (shade / open - 1.0)
    );
    assert!(
        (shade / open - 1.0).abs() <= 0.05,
        "{}: with shadows off the ground where the cube's shadow would fall ({shade:.4}) is not \
         within 5 % of the open ground ({open:.4})",
        path.display()
    );
    script.done();
}

// ---------------------------------------------------------------------------------------------
// A cube held in the air, then released (test 2).

/// A shadow found in a picture against the one predicted, over a grid of ground points.
#[derive(Debug)]
struct Found {
    /// The open ground's luminance: the median of the points 30 cm or more outside the
    /// prediction.
    open: f32,
    /// Points seen; of them dark (below 60 % of the open ground's luminance), predicted dark.
    seen: usize,
    dark: usize,
    predicted: usize,
    /// The dark points' centroid, and the predicted ones'.
    centroid: Vec2,
    predicted_centroid: Vec2,
    /// Points 10 cm or more from the predicted edge whose darkness disagrees with it.
    wrong: Vec<(Vec2, f32)>,
}

/// Looks for the shadow predicted by `inside` (a signed distance: positive inside) on a 10 cm
/// grid of the ground from `low` to `high`, the points under `blocks` and hidden by them left
/// out.
fn find_shadow(
    shot: &Shot,
    inside: impl Fn(Vec2) -> f32,
    (low, high): (Vec2, Vec2),
    blocks: &[Cuboid],
) -> Found {
    let points: Vec<(Vec2, f32, f32)> = grid(low, high, 0.1)
        .into_iter()
        .filter(|&p| {
            blocks.iter().all(|b| b.base().signed_distance(p) < -0.05)
                && shot.sees(ground(p), blocks)
        })
        .map(|p| (p, inside(p), shot.luminance(ground(p))))
        .collect();
    let open_points: Vec<f32> = points
        .iter()
        .filter(|(_, d, _)| *d < -0.3)
        .map(|(_, _, l)| *l)
        .collect();
    assert!(open_points.len() >= 20, "{} open points", open_points.len());
    let open = median(&open_points);
    let is_dark = |l: f32| l < 0.6 * open;
    let centroid = |chosen: Vec<Vec2>| {
        chosen.iter().fold(Vec2::zero(), |s, p| s + *p) / chosen.len().max(1) as f32
    };
    let dark: Vec<Vec2> = points
        .iter()
        .filter(|(_, _, l)| is_dark(*l))
        .map(|(p, _, _)| *p)
        .collect();
    let predicted: Vec<Vec2> = points
        .iter()
        .filter(|(_, d, _)| *d > 0.0)
        .map(|(p, _, _)| *p)
        .collect();
    Found {
        open,
        seen: points.len(),
        dark: dark.len(),
        predicted: predicted.len(),
        centroid: centroid(dark),
        predicted_centroid: centroid(predicted),
        wrong: points
            .iter()
            .filter(|(_, d, l)| d.abs() >= 0.1 && (*d > 0.0) != is_dark(*l))
            .map(|(p, d, _)| (*p, *d))
            .collect(),
    }
}

/// The found shadow is the predicted one: its centroid within 15 cm, its size within 15 %, and
/// no point 10 cm or more from the predicted edge on the wrong side of it.
fn assert_found(found: &Found, what: &str, path: &Path) {
    eprintln!(
        "{what}: {} points seen, {} dark (predicted {}), centroid ({:.3}, {:.3}) against \
         ({:.3}, {:.3}) predicted: {:.3} m off; open ground {:.4}; {} points on the wrong side",
        found.seen,
        found.dark,
        found.predicted,
        found.centroid.x,
        found.centroid.y,
        found.predicted_centroid.x,
        found.predicted_centroid.y,
        (found.centroid - found.predicted_centroid).mag(),
        found.open,
        found.wrong.len()
    );
    assert!(found.predicted >= 20, "{what}: {found:?}");
    let off = (found.centroid - found.predicted_centroid).mag();
    assert!(
        off <= 0.15,
        "{}: {what}: the shadow's centroid is {off:.3} m from where the sun puts it: {found:?}",
        path.display()
    );
    let size = found.dark as f32 / found.predicted as f32;
    assert!(
        (size - 1.0).abs() <= 0.15,
        "{}: {what}: {} dark points where {} are predicted: {found:?}",
        path.display(),
        found.dark,
        found.predicted
    );
    assert!(
        found.wrong.is_empty(),
        "{}: {what}: points 10 cm or more from the predicted edge on its wrong side (point, \
         signed distance): {:?}",
        path.display(),
        found.wrong
    );
}

#[test]
fn a_cube_held_in_the_air_casts_its_shadow_along_the_sun_and_it_follows_the_fall() {
    if skip_gpu() {
        return;
    }
    // A 1 m cube from 3 m to 4 m up, held by a link block on top of it (nothing holds either,
    // but floating blocks stay until something beside them changes), released by breaking the
    // link. The eye 6 m back on the shadow's side (−z).
    let cube = Cuboid::block([0, 6, 0], 2);
    let link = Cuboid::block([0, 8, 0], 1);
    let mut script = Script::flat("air", [0.5, 0.0, -6.5], -12.4, -5.0);
    script.report_every = 0.5;
    script.place(0.0, [0, 6, 0], 2, "Stone");
    script.place(0.0, [0, 8, 0], 1, "Stone");
    let held_path = script.shoot(SETTLED, "held");
    script.event(json!({"t": SETTLED + 0.1, "break": [0, 8, 0]}));
    let fallen_path = script.shoot(3.0, "fallen");
    let trace = script.run("high");

    let held_state = trace.state(SETTLED);
    assert_eq!(held_state["blocks"], 2, "{held_state}");
    assert_eq!(held_state["pieces"], 0, "{held_state}");
    let broke = trace
        .lines
        .iter()
        .find(|l| l["event"] == "break")
        .expect("the break's line");
    assert_eq!(broke["removed"], true, "{broke}");
    assert_eq!(broke["fell"], 1, "the cube falls: {broke}");

    // Held: its shadow (with the link's) where the sun puts it, 2.2 to 2.9 m toward −x and
    // 1.4 to 1.9 m toward −z of its foot.
    let shot = trace.shot(SETTLED, &held_path);
    let (cube_shadow, link_shadow) = (cube.shadow(), link.shadow());
    let held_inside = |p: Vec2| {
        f32::max(
            cube_shadow.signed_distance(p),
            link_shadow.signed_distance(p),
        )
    };
    let middle = (cube.low + cube.high) * 0.5;
    let centre = shadow_point(middle);
    eprintln!(
        "the held cube's shadow: the centre of its own at ({:.3}, {:.3}) (its middle, {:.1} m \
         up, along the sun; its foot's point {:.1} m up lands at ({:.3}, {:.3}))",
        centre.x,
        centre.y,
        middle.y,
        cube.low.y,
        shadow_point(Vec3::new(middle.x, cube.low.y, middle.z)).x,
        shadow_point(Vec3::new(middle.x, cube.low.y, middle.z)).y,
    );
    let (low, high) = cube_shadow.bounds();
    let (link_low, link_high) = link_shadow.bounds();
    let scan = (
        low.min_by_component(link_low) - Vec2::broadcast(0.6),
        high.max_by_component(link_high) + Vec2::broadcast(0.6),
    );
    let held = find_shadow(&shot, held_inside, scan, &[cube, link]);
    assert_found(&held, "held 3 m up", &held_path);

    // Fallen: the cube rests on the ground below where it was, its shadow at its foot, none
    // left where it was.
    let state = trace.report(3.0);
    let pieces = state["pieces"].as_array().expect("pieces");
    assert_eq!(pieces.len(), 1, "{state}");
    let piece = &pieces[0];
    assert_eq!(piece["resting"], true, "{state}");
    let com: Vec<f32> = piece["center_of_mass"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    let w = piece["orientation"][3].as_f64().unwrap().abs().min(1.0);
    let tilt = 2.0 * w.acos().to_degrees();
    assert!(
        (com[1] - 0.5).abs() < 0.02 && tilt < 2.0,
        "the cube lies flat on the ground: {piece}"
    );
    let rested = Cuboid::around(Vec3::new(com[0], com[1], com[2]), 1.0);
    let shot = trace.shot(3.0, &fallen_path);
    let (rested_shadow, rested_base) = (rested.shadow(), rested.base());
    let (low, high) = rested_shadow.bounds();
    let fallen = find_shadow(
        &shot,
        |p| rested_shadow.signed_distance(p),
        (low - Vec2::broadcast(0.6), high + Vec2::broadcast(0.6)),
        &[rested],
    );
    assert_found(&fallen, "rested on the ground", &fallen_path);

    // Where the held shadow was: the open ground's brightness now.
    let gone: Vec<(Vec2, Vec2)> = grid(scan.0, scan.1, 0.1)
        .into_iter()
        .filter(|&p| {
            held_inside(p) >= 0.1
                && rested_shadow.signed_distance(p) < -0.3
                && shot.sees(ground(p), &[rested])
        })
        .filter_map(|p| {
            let open = |q: Vec2| {
                held_inside(q) < -0.4
                    && rested_shadow.signed_distance(q) < -0.4
                    && rested_base.signed_distance(q) < -0.4
            };
            Some((p, shot.twin(p, open, &[rested])?))
        })
        .collect();
    assert!(gone.len() >= 40, "{} points seen", gone.len());
    let (was, open) = pair_means(&shot, &gone);
    eprintln!(
        "where the held shadow was: {} points, {was:.4}; open ground {open:.4} ({:+.1} %)",
        gone.len(),
        100.0 * (was / open - 1.0)
    );
    assert!(
        (was / open - 1.0).abs() <= 0.05,
        "{}: the ground where the held cube's shadow was ({was:.4}) is not as bright as the \
         open ground ({open:.4})",
        fallen_path.display()
    );
    script.done();
}

// ---------------------------------------------------------------------------------------------
// The blocks' ambient occlusion (test 3).

#[test]
fn an_inner_corner_of_three_blocks_is_darker_than_the_open_face() {
    if skip_gpu() {
        return;
    }
    // An L of three 1 m stone blocks on the ground around the corner block at x, z in 1..2:
    // one toward −x (x 0..1) and one toward −z (z 0..1). Its inner corner, the edge at x = 1,
    // z = 1, opens toward −x, −z, away from the sun: the two faces that meet there (the −x
    // block's −z face, the −z block's −x face) take the sky's light alone, which the occlusion
    // scales. A lone block (x 2.5..3.5, z −0.5..0.5) shows an open −z face. The eye 5 m off
    // the corner, looking 4° down over the blocks.
    let mut script = Script::flat("corner", [-2.5, 0.0, -2.5], 45.0, -4.0);
    for cell in [[2, 0, 2], [0, 0, 2], [2, 0, 0], [5, 0, -1]] {
        script.place(0.0, cell, 2, "Stone");
    }
    let path = script.shoot(SETTLED, "corner");
    let heights = [0.3, 0.4, 0.5, 0.6, 0.7];
    // Points on a face, a millimetre in front of it: the −x block's −z face (z = 1, the inner
    // corner at x = 1), the −z block's −x face (x = 1, the corner at z = 1), the lone block's
    // −z face (z = −0.5).
    let on_x_block = |along: f32, y: f32| Vec3::new(along, y, 1.0 - 0.001);
    let on_z_block = |along: f32, y: f32| Vec3::new(1.0 - 0.001, y, along);
    let on_lone = |along: f32, y: f32| Vec3::new(along, y, -0.5 - 0.001);
    let face = |shot: &Shot, on: &dyn Fn(f32, f32) -> Vec3, alongs: &[f32]| {
        let values: Vec<f32> = alongs
            .iter()
            .flat_map(|&a| heights.map(|y| shot.luminance(on(a, y))))
            .collect();
        mean(&values)
    };
    let measure = |shadows: &str| {
        let trace = script.run(shadows);
        let shot = trace.shot(SETTLED, &path);
        [
            face(&shot, &on_x_block, &[0.9, 0.93, 0.96]),
            face(&shot, &on_x_block, &[0.04, 0.07, 0.1]),
            face(&shot, &on_z_block, &[0.9, 0.93, 0.96]),
            face(&shot, &on_z_block, &[0.04, 0.07, 0.1]),
            face(&shot, &on_lone, &[2.95, 3.0, 3.05]),
        ]
    };
    let [x_inner, x_open, z_inner, z_open, lone] = measure("high");
    eprintln!(
        "shadows high: the −z face at the inner corner {x_inner:.4}, at its open end \
         {x_open:.4} ({:+.1} %); the −x face at the corner {z_inner:.4}, at its open end \
         {z_open:.4} ({:+.1} %); a lone block's −z face's middle {lone:.4}",
        100.0 * (x_inner / x_open - 1.0),
        100.0 * (z_inner / z_open - 1.0)
    );
    let where_ = path.display();
    for (what, corner) in [("−z face", x_inner), ("−x face", z_inner)] {
        let open = if what == "−z face" { x_open } else { z_open };
        assert!(
            corner <= 0.9 * open,
            "{where_}: the {what} at the inner corner ({corner:.4}) is not 10 % darker than at \
             its open end at the same heights ({open:.4})"
        );
        assert!(
            corner <= 0.9 * lone,
            "{where_}: the {what} at the inner corner ({corner:.4}) is not 10 % darker than the \
             middle of a lone block's face ({lone:.4})"
        );
    }
    // Without the occlusion (shadows off) the same faces are even: what darkened them is it.
    let [x_inner, x_open, z_inner, z_open, _] = measure("off");
    eprintln!(
        "shadows off: the −z face at the corner {x_inner:.4}, open end {x_open:.4}; the −x face \
         at the corner {z_inner:.4}, open end {z_open:.4}"
    );
    for (corner, open) in [(x_inner, x_open), (z_inner, z_open)] {
        assert!(
            (corner / open - 1.0).abs() <= 0.06,
            "{where_}: with shadows off the corner ({corner:.4}) differs from the open end \
             ({open:.4}): the scene's light is not even along the face"
        );
    }
    script.done();
}

// ---------------------------------------------------------------------------------------------
// No acne (test 4).

/// Which pixels a ground patch takes: columns and rows, in percent of the picture's size.
type Patch = ([u32; 2], [u32; 2]);

/// The luminances of the pixels of `patch`, every one checked not to be the sky.
fn ground_patch(shot: &Shot, (columns, rows): Patch) -> Vec<f32> {
    let (w, h) = (shot.image.width, shot.image.height);
    let mut values = Vec::new();
    for y in (h * rows[0] / 100)..(h * rows[1] / 100) {
        for x in (w * columns[0] / 100)..(w * columns[1] / 100) {
            let p = shot.image.pixel(x, y);
            assert!(
                !(p[2] > 180 && p[2] > p[0] && p[2] > p[1]),
                "{}: the sky at ({x}, {y}): {p:?}",
                shot.path.display()
            );
            values.push(luminance(p));
        }
    }
    values
}

/// The ground of `script` drawn with shadows high and off: the same, but for a margin (no acne:
/// no shadowed speckles or stripes on open ground). Every pixel of the patch is compared with
/// itself: no more than 0.5 % of them more than 10 % darker with shadows; the patch's mean within
/// 2 %, its mean absolute deviation not 10 % more.
fn assert_no_acne(script: Script, path: &Path, patch: Patch, what: &str) {
    let [high, off] = ["high", "off"].map(|shadows| {
        let trace = script.run(shadows);
        ground_patch(&trace.shot(SETTLED, path), patch)
    });
    let darker = high
        .iter()
        .zip(&off)
        .filter(|(h, o)| **h < 0.9 * **o)
        .count();
    let share = darker as f32 / high.len() as f32;
    let (mean_high, mean_off) = (mean(&high), mean(&off));
    let (mad_high, mad_off) = (mean_deviation(&high), mean_deviation(&off));
    eprintln!(
        "{what}: {} pixels; mean {mean_high:.4} with shadows, {mean_off:.4} without; mean \
         absolute deviation {mad_high:.5} against {mad_off:.5} ({:+.1} %); {darker} pixels \
         ({:.2} %) more than 10 % darker with shadows",
        high.len(),
        100.0 * (mad_high / mad_off - 1.0),
        100.0 * share
    );
    let where_ = path.display();
    assert!(
        share <= 0.005,
        "{where_}: {what}: {darker} of {} pixels are more than 10 % darker with shadows",
        high.len()
    );
    assert!(
        (mean_high / mean_off - 1.0).abs() <= 0.02,
        "{where_}: {what}: the ground's mean luminance {mean_high:.4} with shadows, \
         {mean_off:.4} without"
    );
    assert!(
        mad_high <= 1.1 * mad_off,
        "{where_}: {what}: the ground's mean absolute deviation grows from {mad_off:.5} to \
         {mad_high:.5} with shadows"
    );
    script.done();
}

#[test]
fn flat_ground_has_no_shadow_acne() {
    if skip_gpu() {
        return;
    }
    // Open flat ground, nothing to cast a shadow, looking 5° down along +z: the middle half
    // across, from 60 % to 95 % down (3 to 12 m off).
    let mut script = Script::flat("acne-flat", [0.0, 0.0, 0.0], 0.0, -5.0);
    let path = script.shoot(SETTLED, "ground");
    assert_no_acne(script, &path, ([25, 75], [60, 95]), "flat ground");
}

#[test]
fn sloped_ground_has_no_shadow_acne() {
    if skip_gpu() {
        return;
    }
    // Ground rising 36° toward +x (y = tan 36° · x): the sun meets it at 17° (its normal leans
    // toward −x, away from the sun), where acne shows first. Flying just above the ground at
    // x = 0, looking 5° down along +z, across the slope: uphill on the left, the rest falls
    // away out of sight on the right. The patch: the slope on the left, from 5 % to 40 % across
    // and 50 % to 95 % down.
    let mut script = Script::flat("acne-slope", [0.0, 0.3, 0.0], 0.0, -5.0);
    script.terrain = json!({"slope": {"degrees": 36.0, "height": 0.0}});
    script.player = json!({"feet": [0.0, 0.3, 0.0], "yaw_degrees": 0.0,
                           "pitch_degrees": -5.0, "mode": "fly"});
    let path = script.shoot(SETTLED, "slope");
    assert_no_acne(script, &path, ([5, 40], [50, 95]), "ground sloped 36°");
}

// ---------------------------------------------------------------------------------------------
// No light between a cube and its shadow (test 5).

#[test]
fn no_light_leaks_under_a_resting_cube() {
    if skip_gpu() {
        return;
    }
    // The cube of the first test seen from its shadow's side (−x, −z), 3.3 m off and low (the
    // foot 27° below the eye): the ground at the foot of its two shadowed sides (−z, −x) must
    // be as dark as the shadow, however near the foot.
    let mut script = Script::flat("foot", [-1.6, 0.0, -2.4], 35.0, -5.0);
    script.place(0.0, [0, 0, 0], 2, "Stone");
    let path = script.shoot(SETTLED, "foot");
    let trace = script.run("high");
    let shot = trace.shot(SETTLED, &path);
    let cube = resting_cube();
    let (shadow, base) = (cube.shadow(), cube.base());
    let pairs = shade_and_open(&shot, cube);
    assert!(pairs.len() >= 40, "{} shadow points seen", pairs.len());
    let (shade, open) = pair_means(&shot, &pairs);
    let threshold = (shade + open) / 2.0;
    eprintln!("the shadow {shade:.4}, open ground {open:.4}: threshold {threshold:.4}");

    // Down each pixel column from just below the foot's line, toward the eye, while the ground
    // the pixel shows lies 8 cm or more inside the shadow and within 25 cm of the cube.
    let (mut nearest, mut all, mut leaks) = (Vec::new(), Vec::new(), Vec::new());
    let feet = [
        (
            "−z side",
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
        ),
        (
            "−x side",
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ),
    ];
    for (side, a, b) in feet {
        let project = |p: Vec3| {
            shot.camera
                .project(p, shot.image.width, shot.image.height)
                .expect("in front")
        };
        let (pa, pb) = (project(a), project(b));
        let (left, right) = (pa.0.min(pb.0), pa.0.max(pb.0));
        let span = right - left;
        let mut columns = 0;
        for column in ((left + 0.1 * span).ceil() as u32)..((right - 0.1 * span) as u32) {
            let t = (column as f32 + 0.5 - pa.0) / (pb.0 - pa.0);
            let line = pa.1 + t * (pb.1 - pa.1);
            let mut row = line.ceil() as u32;
            let mut first = true;
            while let Some(g) = shot.ground_at_pixel(column, row) {
                let g2 = Vec2::new(g.x, g.z);
                let out = -base.signed_distance(g2);
                if out > 0.25 || shadow.signed_distance(g2) < 0.08 || row + 3 >= shot.image.height {
                    break;
                }
                assert!(
                    out > 0.0,
                    "{side}: pixel ({column}, {row}) shows {g:?}, under the cube"
                );
                let l = luminance(shot.image.pixel(column, row));
                if first {
                    nearest.push(l);
                    first = false;
                }
                all.push(l);
                if l >= threshold {
                    leaks.push(format!(
                        "{side}: pixel ({column}, {row}), ground {:.3} m from the cube: {l:.4}",
                        out
                    ));
                }
                row += 1;
            }
            columns += 1;
        }
        assert!(columns >= 15, "{side}: {columns} columns");
    }
    let (near, rest) = (mean(&nearest), mean(&all));
    eprintln!(
        "at the foot: the pixels nearest it {near:.4} ({} columns, the brightest {:.4}), all {} \
         pixels within 25 cm {rest:.4}; the shadow {shade:.4}",
        nearest.len(),
        nearest.iter().copied().fold(0.0, f32::max),
        all.len()
    );
    assert!(
        leaks.is_empty(),
        "{}: light between the cube and its shadow (threshold {threshold:.4}): {leaks:#?}",
        path.display()
    );
    assert!(
        near <= 1.2 * shade,
        "{}: the ground nearest the cube's foot ({near:.4}) is brighter than its shadow \
         ({shade:.4})",
        path.display()
    );
    script.done();
}

/// The default world's first picture (the showcase at the spawn, 20 frames, 320×180, no HUD)
/// with shadows off. Until the levels of detail it was the picture `77243d4` drew, the last
/// commit before shadows and occlusion existed; the levels of detail changed the far ground
/// (`cdcdf70`), and skirts that no longer rise to their chunk's top face took the shelves off
/// the hills at the left ([`WITH_SHELVES_PICTURE`] is the picture before). The test holds that
/// path to it.
const SHADOWS_OFF_PICTURE: &str = "tests/it/pictures/showcase_shadows_off_320x180.png";

/// The same picture while the surface nets' skirts drew shelves on the hills (`a80e9f8`).
const WITH_SHELVES_PICTURE: &str =
    "tests/it/pictures/showcase_shadows_off_with_shelves_320x180.png";

/// A channel difference past which a pixel counts as changed outright rather than rounded or
/// filtered differently, on a device other than the reference's (lavapipe).
const FAR_OFF: u8 = 48;

/// A channel difference past which a pixel counts as drawn differently rather than rounded
/// differently, on lavapipe.
const ROUNDED: u8 = 8;

/// Whether the picture `differences` (each pixel's largest channel difference from the
/// reference) describe lies within what another CPU explains, on lavapipe: llvmpipe compiles
/// its shaders for the CPU it runs on (its vector width, whether it fuses multiply-adds, the
/// instructions LLVM picks), so another CPU rounds a colour here and there differently by a
/// level or two and moves an edge by a pixel. The reference was drawn on an AVX-512 machine; a
/// 2-core AMD EPYC with AVX2 differed at 1,506 of 57,600 pixels, by 0.03 on average, none by
/// more than 48; forcing 128-bit vectors or SSE 4.1 here changes 23 pixels by up to 3 levels,
/// no SSE at all 838 by 1. Shelves on the hills changed 5,048 pixels, 265 of them by more than
/// 48, by 0.94 on average.
fn within_another_cpus_rounding(differences: &[u8]) -> bool {
    let drawn_differently = differences.iter().filter(|&&d| d > ROUNDED).count();
    let mean = differences.iter().map(|&d| f64::from(d)).sum::<f64>() / differences.len() as f64;
    drawn_differently * 200 <= differences.len() && mean <= 0.25
}

#[test]
fn another_cpus_rounding_is_told_apart_from_shelves_on_the_hills() {
    let read = |path: &str| {
        Png::read(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(path),
            (320, 180),
        )
    };
    let (now, shelves) = (read(SHADOWS_OFF_PICTURE), read(WITH_SHELVES_PICTURE));
    assert!(!within_another_cpus_rounding(
        &now.channel_differences(&shelves)
    ));
    // What an AVX2 CPU did to the picture an AVX-512 one drew: 1,506 pixels a level or two off
    // (0.03 on average), a few edge pixels more.
    let mut rounded = vec![0u8; 320 * 180];
    for (i, difference) in rounded.iter_mut().enumerate().step_by(37).take(1_506) {
        *difference = if i % 5 == 0 { 2 } else { 1 };
    }
    for difference in rounded.iter_mut().skip(1_000).step_by(900).take(40) {
        *difference = 60;
    }
    assert!(within_another_cpus_rounding(&rounded));
}

#[test]
fn shadows_off_draws_its_reference_picture() {
    if skip_gpu() {
        return;
    }
    let dir = scratch("shadows-off-before");
    let picture = dir.join("off.png");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_blockfall"))
        .args(["--headless", "--validation", "--no-hud", "--shadows", "off"])
        .args(["--frames", "20", "--width", "320", "--height", "180"])
        .arg("--screenshot")
        .arg(&picture)
        .output()
        .unwrap();
    assert!(output.status.success(), "stderr: {}", text(&output.stderr));
    let before = Png::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(SHADOWS_OFF_PICTURE),
        (320, 180),
    );
    let off = Png::read(&picture, (320, 180));
    let differences = before.channel_differences(&off);
    let differing = differences.iter().filter(|&&d| d > 0).count();
    let far_off = differences.iter().filter(|&&d| d > FAR_OFF).count();
    let mean = differences.iter().map(|&d| f64::from(d)).sum::<f64>() / differences.len() as f64;
    let ran = format!("{}{}", text(&output.stdout), text(&output.stderr));
    let summary = format!(
        "{differing} of {} pixels differ from the reference picture with shadows off, {far_off} \
         by more than {FAR_OFF} in a channel, {} by more than {ROUNDED}, by {mean:.2} on \
         average ({})",
        320 * 180,
        differences.iter().filter(|&&d| d > ROUNDED).count(),
        picture.display()
    );
    eprintln!("{summary}");
    if ran.contains(" frames on llvmpipe") {
        // The driver that drew the reference, on this machine's CPU.
        assert!(
            within_another_cpus_rounding(&differences),
            "{summary}: more than another CPU's rounding explains"
        );
    } else {
        // Another device rasterises, filters textures and rounds in its own way, as Vulkan lets
        // it: the picture within a few levels, and no more than an edge's worth of pixels
        // changed outright.
        assert!(
            far_off <= differences.len() / 50 && mean <= 3.0,
            "{summary}: more than another device's rasterising and rounding explain"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
