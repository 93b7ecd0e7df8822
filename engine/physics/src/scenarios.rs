//! Whole-step tests: bodies dropped on analytic solids and on each other.

use super::testing::{
    block_box, block_box_extent, cube, uniform, Boxes, Ground, Ledge, Nothing, Slab, Slope,
};
use super::*;
use crate::collision::Solid;
use crate::workers::WorkerPool;

fn physics(threads: usize) -> PhysicsWorld {
    PhysicsWorld::new(WorkerPool::new(threads).expect("a valid thread count"))
}

/// Steps until `done` or `steps` steps; the steps taken.
fn run(
    physics: &mut PhysicsWorld,
    steps: usize,
    world: &dyn Solid,
    shapes: &dyn BodyShape,
    mut done: impl FnMut(&PhysicsWorld) -> bool,
) -> usize {
    for step in 0..steps {
        if done(physics) {
            return step;
        }
        physics.step(world, shapes);
    }
    steps
}

fn view(physics: &PhysicsWorld, handle: BodyHandle) -> BodyView {
    physics.body(handle).expect("a live body")
}

/// How far a unit quaternion is from no turn, in radians.
fn turn_angle(orientation: [f64; 4]) -> f64 {
    2.0 * orientation[3].abs().min(1.0).acos()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[test]
fn free_fall_matches_the_closed_form_of_the_integrator() {
    // Velocity first, then position: v_n = −g n dt, y_n = y_0 − g dt² n (n + 1) / 2.
    for steps in [1u32, 2, 60, 600] {
        let mut physics = physics(1);
        let handle = physics.add(&cube([0.0, 10.0, 0.0])).expect("a cube");
        physics
            .set_velocity(handle, [1.5, 0.0, -0.25])
            .expect("finite");
        for _ in 0..steps {
            physics.step(&Nothing, &Boxes::default());
        }
        let body = view(&physics, handle);
        let n = f64::from(steps);
        let velocity = -GRAVITY * STEP * n;
        let fall = -GRAVITY * STEP * STEP * n * (n + 1.0) / 2.0;
        let relative = |got: f64, want: f64| (got - want).abs() / want.abs();
        assert!(
            relative(body.velocity[1], velocity) < 1e-9,
            "{steps}: {body:?}"
        );
        assert!(
            relative(body.position[1] - 10.5, fall) < 1e-9,
            "{steps}: {body:?}"
        );
        assert!(relative(body.position[0] - 0.5, 1.5 * STEP * n) < 1e-9);
        assert!(relative(body.position[2] - 0.5, -0.25 * STEP * n) < 1e-9);
        assert_eq!(body.orientation, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(body.touching, 0);
        assert!(!body.sleeping);
    }
}

#[test]
fn advance_steps_as_often_as_the_time_holds_and_drops_a_stall() {
    let mut physics = physics(1);
    physics.add(&cube([0.0, 10.0, 0.0])).expect("a cube");
    let shapes = Boxes::default();
    assert_eq!(physics.advance(STEP * 2.5, &Nothing, &shapes).steps, 2);
    assert_eq!(physics.advance(STEP * 0.6, &Nothing, &shapes).steps, 1);
    assert_eq!(physics.advance(f64::NAN, &Nothing, &shapes).steps, 0);
    assert_eq!(physics.advance(-1.0, &Nothing, &shapes).steps, 0);
    assert_eq!(physics.advance(f64::INFINITY, &Nothing, &shapes).steps, 0);
    // A one second stall: 16 steps, the rest dropped.
    assert_eq!(physics.advance(1.0, &Nothing, &shapes).steps, MOST_STEPS);
    assert_eq!(physics.advance(0.0, &Nothing, &shapes).steps, 0);
    assert_eq!(physics.advance(1.0 / 60.0, &Nothing, &shapes).steps, 2);
}

#[test]
fn a_cube_dropped_on_the_ground_comes_to_rest_upright() {
    let mut physics = physics(1);
    let handle = physics.add(&cube([-0.5, 2.0, -0.5])).expect("a cube");
    let ground = Ground { height: 0.0 };
    let mut rested = false;
    let steps = run(&mut physics, 360, &ground, &Boxes::default(), |physics| {
        rested = view(physics, handle).sleeping;
        rested
    });
    assert!(
        rested,
        "still moving after {steps} steps: {:?}",
        view(&physics, handle)
    );
    let body = view(&physics, handle);
    assert!((body.position[1] - 0.5).abs() < 0.02, "{body:?}");
    assert!(turn_angle(body.orientation) < 0.01, "{body:?}");
    assert!(body.touching >= 4, "{body:?}");
    assert_eq!(body.velocity, [0.0; 3]);
    assert_eq!(physics.awake_count(), 0);
}

/// A cube placed on a slope of `degrees`; how far it went in 2 s.
fn slide_on_slope(degrees: f32) -> f64 {
    let slope = Slope {
        angle: degrees.to_radians(),
    };
    let mut physics = physics(1);
    let handle = physics.add(&cube([-0.5, -0.5, -0.5])).expect("a cube");
    let normal = slope.normal().map(f64::from);
    let start = [normal[0] * 0.501, normal[1] * 0.501, 0.0];
    let half = f64::from(slope.angle) * 0.5;
    physics
        .set_pose(handle, start, [0.0, 0.0, half.sin(), half.cos()])
        .expect("a valid pose");
    run(&mut physics, 240, &slope, &Boxes::default(), |_| false);
    distance(view(&physics, handle).position, start)
}

#[test]
fn friction_holds_a_cube_on_25_degrees_and_lets_it_slide_on_40() {
    let held = slide_on_slope(25.0);
    assert!(held < 0.05, "moved {held} m on 25°");
    let slid = slide_on_slope(40.0);
    assert!(slid > 1.0, "moved only {slid} m on 40°");
}

/// A beam of 8 half-meter stone blocks (4 m long) on a ledge whose edge is at x = 0, its
/// middle at `middle_x`; where its middle is after 3 s.
fn beam_on_ledge(middle_x: f64) -> (BodyView, BodyView) {
    let ledge = Ledge { edge: 0.0 };
    let mut physics = physics(1);
    let low = [middle_x - 2.0, 0.001, -0.25];
    let handle = physics
        .add(&block_box(low, [8, 1, 1], 0.5))
        .expect("a beam");
    let start = view(&physics, handle);
    run(&mut physics, 360, &ledge, &Boxes::default(), |_| false);
    (start, view(&physics, handle))
}

#[test]
fn a_beam_on_a_ledge_stays_with_its_middle_behind_the_edge_and_tips_past_it() {
    // Points every quarter meter: with the middle 0.3 m behind the edge, one lies 0.05 m
    // behind the edge, beyond the middle, and holds it.
    let (start, end) = beam_on_ledge(-0.3);
    assert!(distance(start.position, end.position) < 0.05, "{end:?}");
    assert!(turn_angle(end.orientation) < 0.02, "{end:?}");
    assert!(end.sleeping, "{end:?}");
    let (_, end) = beam_on_ledge(0.3);
    assert!(end.position[1] < -1.0, "did not tip off: {end:?}");
}

#[test]
fn a_cube_dropped_from_100_m_stops_on_a_thin_slab() {
    // 44 m/s at the slab: 0.37 m per step, more than half the slab's 0.5 m.
    let slab = Slab {
        low: [-10.0, -0.5, -10.0],
        high: [10.0, 0.0, 10.0],
    };
    let mut physics = physics(2);
    let handle = physics.add(&cube([-0.5, 100.0, -0.5])).expect("a cube");
    let mut lowest = f64::INFINITY;
    run(&mut physics, 900, &slab, &Boxes::default(), |physics| {
        let body = physics.body(handle).expect("still in the world");
        lowest = lowest.min(body.position[1]);
        body.sleeping
    });
    let body = view(&physics, handle);
    assert!(body.sleeping, "{body:?}");
    assert!((body.position[1] - 0.5).abs() < 0.03, "{body:?}");
    assert!(lowest > 0.45, "sank to {lowest}");
}

/// Two cubes, the upper offset a little, falling onto each other and onto the ground.
fn stack(
    threads: usize,
    lower_height: f64,
    upper_height: f64,
) -> (PhysicsWorld, BodyHandle, BodyHandle, StepReport) {
    let mut physics = physics(threads);
    let lower_low = [-0.5, lower_height, -0.5];
    let upper_low = [-0.3, upper_height, -0.4];
    let lower = physics.add(&cube(lower_low)).expect("a cube");
    let upper = physics.add(&cube(upper_low)).expect("a cube");
    let mut shapes = Boxes::default();
    shapes
        .boxes
        .insert(lower, block_box_extent(lower_low, [1, 1, 1], 1.0));
    shapes
        .boxes
        .insert(upper, block_box_extent(upper_low, [1, 1, 1], 1.0));
    let ground = Ground { height: 0.0 };
    let mut all = StepReport::default();
    let mut closest = f64::INFINITY;
    for _ in 0..600 {
        let report = physics.step(&ground, &shapes);
        all.came_to_rest.extend(report.came_to_rest);
        all.woke.extend(report.woke);
        let (a, b) = (view(&physics, lower), view(&physics, upper));
        closest = closest.min(b.position[1] - a.position[1]);
    }
    // The upper cube's middle never came nearer the lower's than a cube less a few cm.
    assert!(
        closest > 0.95,
        "sank {} m into the lower cube",
        1.0 - closest
    );
    (physics, lower, upper, all)
}

#[test]
fn two_falling_cubes_land_on_each_other_without_passing_through() {
    // The lower cube lands first and is still moving when the upper one lands on it.
    let (physics, lower, upper, report) = stack(2, 1.0, 2.5);
    let (a, b) = (view(&physics, lower), view(&physics, upper));
    assert!(a.sleeping && b.sleeping, "{a:?} {b:?}");
    assert!((a.position[1] - 0.5).abs() < 0.03, "{a:?}");
    assert!((b.position[1] - 1.5).abs() < 0.05, "{b:?}");
    assert!(turn_angle(b.orientation) < 0.05, "{b:?}");
    assert_eq!(report.came_to_rest.len(), 2);
}

#[test]
fn a_body_landing_on_a_sleeping_one_wakes_it_before_the_solve() {
    // The lower cube starts on the ground and sleeps before the upper one arrives.
    let (physics, lower, upper, report) = stack(1, 0.001, 3.0);
    let (a, b) = (view(&physics, lower), view(&physics, upper));
    assert!(a.sleeping && b.sleeping);
    assert!((b.position[1] - 1.5).abs() < 0.05, "{b:?}");
    assert_eq!(report.came_to_rest.first(), Some(&lower));
    // Woken where it lay, by the upper cube's contacts, and asleep again with it: the two
    // are one island.
    assert_eq!(
        report
            .woke
            .iter()
            .map(|&(body, _)| body)
            .collect::<Vec<_>>(),
        vec![lower]
    );
    assert!((report.woke[0].1[1] - 0.5).abs() < 0.011, "{report:?}");
    assert_eq!(
        report.came_to_rest.iter().filter(|&&h| h == lower).count(),
        2
    );
    assert!(
        report.came_to_rest.ends_with(&[lower, upper])
            || report.came_to_rest.ends_with(&[upper, lower])
    );
    assert!((a.position[1] - 0.5).abs() < 0.011, "{a:?}");
}

/// 50 cubes in 25 columns of two, dropped from different heights with different offsets and
/// spins onto the ground and onto each other; the hash after 600 steps, and how many ended up
/// on another cube.
fn fifty_cubes(threads: usize) -> (u64, usize) {
    let mut physics = physics(threads);
    let mut shapes = Boxes::default();
    let mut next = uniform(0x5eed_u64);
    for column in 0..25 {
        let x = f64::from(column % 5) * 1.3 - 3.0;
        let z = f64::from(column / 5) * 1.3 - 3.0;
        let mut height = 0.2 + next() * 1.5;
        for _ in 0..2 {
            let low = [x + next() * 0.4 - 0.2, height, z + next() * 0.4 - 0.2];
            let handle = physics.add(&cube(low)).expect("a cube");
            shapes
                .boxes
                .insert(handle, block_box_extent(low, [1, 1, 1], 1.0));
            physics
                .set_angular_velocity(handle, [next() - 0.5, next() - 0.5, next() - 0.5])
                .expect("finite");
            height += 1.1 + next();
        }
    }
    let ground = Ground { height: 0.0 };
    // How much of the machinery the scene exercised: rows between two moving bodies, bundles
    // with more than one group. (Regions take more groups than fifty cubes make: the heap's
    // determinism test, `bench physics`, steps eight of them.)
    let (mut between_two, mut shared_bundles) = (0, 0);
    for _ in 0..600 {
        physics.step(&ground, &shapes);
        let solver = &physics.scratch.solver;
        between_two += solver
            .bundles()
            .flat_map(|bundle| &bundle.lanes)
            .filter(|group| group.second != contacts::NONE)
            .count();
        let counts = physics.last_step_counts();
        if counts.bundles < counts.groups {
            shared_bundles += 1;
        }
    }
    assert!(
        between_two > 100,
        "{between_two} groups between moving bodies"
    );
    assert!(
        shared_bundles > 100,
        "{shared_bundles} steps with shared bundles"
    );
    let mut stacked = 0;
    for handle in physics.handles() {
        let body = view(&physics, handle);
        assert!(body.position[1] > 0.45, "{body:?}");
        if body.position[1] > 1.2 {
            stacked += 1;
        }
    }
    (physics.state_hash(), stacked)
}

#[test]
fn fifty_cubes_give_the_same_bits_on_1_2_and_8_threads() {
    let (one, stacked) = fifty_cubes(1);
    assert!(stacked >= 10, "only {stacked} cubes ended on others");
    assert_eq!(fifty_cubes(2).0, one);
    assert_eq!(fifty_cubes(8).0, one);
}

#[test]
fn a_body_that_falls_out_of_the_world_is_removed_and_reported() {
    let mut physics = physics(1);
    let stays = physics.add(&cube([5.0, 0.001, 0.0])).expect("a cube");
    let falls = physics.add(&cube([0.0, 0.0, 0.0])).expect("a cube");
    // Ground only under the first.
    let ground = Slab {
        low: [4.0, -1.0, -1.0],
        high: [7.0, 0.0, 2.0],
    };
    let mut fell = Vec::new();
    for _ in 0..1300 {
        fell.extend(physics.step(&ground, &Boxes::default()).fell_out);
    }
    assert_eq!(fell, vec![falls]);
    assert!(physics.body(falls).is_none());
    assert_eq!(physics.len(), 1);
    assert!(view(&physics, stays).sleeping);
    assert_eq!(physics.handles().collect::<Vec<_>>(), vec![stays]);
}

#[test]
fn bad_input_is_a_clear_error_and_disturbs_nothing() {
    let mut physics = physics(1);
    let first = physics.add(&cube([0.0, 5.0, 0.0])).expect("a cube");
    let second = physics.add(&cube([3.0, 5.0, 0.0])).expect("a cube");
    physics.step(&Nothing, &Boxes::default());
    let before = physics.state_hash();

    let nan = physics.set_pose(first, [f64::NAN, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    let error = nan.expect_err("NaN position");
    assert!(matches!(
        error,
        PhysicsError::NotFinite {
            field: "position",
            ..
        }
    ));
    assert!(error.to_string().contains("position"), "{error}");
    assert!(physics
        .set_velocity(first, [0.0, f64::INFINITY, 0.0])
        .is_err());
    assert!(physics.set_angular_velocity(first, [f64::NAN; 3]).is_err());
    assert_eq!(
        physics.set_pose(first, [0.0; 3], [0.0; 4]),
        Err(PhysicsError::ZeroOrientation([0.0; 4]))
    );
    assert!(physics
        .set_pose(first, [0.0; 3], [0.0, f64::NAN, 0.0, 1.0])
        .is_err());

    let mut zero_mass = cube([0.0; 3]);
    zero_mass.parts[0].mass = 0.0;
    let error = physics.add(&zero_mass).expect_err("zero mass");
    assert!(error.to_string().contains("mass 0"), "{error}");
    let mut no_parts = cube([0.0; 3]);
    no_parts.parts.clear();
    assert_eq!(physics.add(&no_parts), Err(PhysicsError::NoParts));
    let mut no_points = cube([0.0; 3]);
    no_points.points.clear();
    assert_eq!(physics.add(&no_points), Err(PhysicsError::NoPoints));
    let mut nan_point = cube([0.0; 3]);
    nan_point.points[3][1] = f64::NAN;
    assert!(physics.add(&nan_point).is_err());

    physics.remove(second).expect("a live body");
    let stale = PhysicsError::StaleHandle(second);
    assert_eq!(physics.remove(second), Err(stale.clone()));
    assert_eq!(physics.wake(second), Err(stale.clone()));
    assert_eq!(physics.set_velocity(second, [0.0; 3]), Err(stale.clone()));
    assert!(stale.to_string().contains("no body"), "{stale}");
    assert!(physics.body(second).is_none());
    assert!(physics.to_world(second, [0.0; 3]).is_none());

    // The first body is as it was; removing the second changed the hash only by itself.
    let mut alone = self::physics(1);
    let again = alone.add(&cube([0.0, 5.0, 0.0])).expect("a cube");
    alone.step(&Nothing, &Boxes::default());
    assert_eq!(view(&physics, first), view(&alone, again));
    assert_eq!(physics.state_hash(), alone.state_hash());
    assert_ne!(before, physics.state_hash());
    assert_eq!(physics.len(), 1);
}

#[test]
fn frames_convert_both_ways_and_wake_restarts_a_body() {
    let mut physics = physics(1);
    let handle = physics.add(&cube([0.0, 0.0, 0.0])).expect("a cube");
    // At first the body's frame is the world's.
    assert_eq!(
        physics.to_world(handle, [1.0, 0.0, 0.0]),
        Some([1.0, 0.0, 0.0])
    );
    let half = std::f64::consts::FRAC_PI_4;
    physics
        .set_pose(
            handle,
            [10.0, 0.0, 0.0],
            [0.0, 0.0, half.sin() * 3.0, half.cos() * 3.0],
        )
        .expect("a valid pose");
    let body = view(&physics, handle);
    assert!(
        (body.orientation[3] - half.cos()).abs() < 1e-12,
        "normalised: {body:?}"
    );
    // A quarter turn about z: the corner (1, 0.5, 0.5), half a meter along x from the middle,
    // ends up half a meter along y.
    let world = physics
        .to_world(handle, [1.0, 0.5, 0.5])
        .expect("a live body");
    assert!(distance(world, [10.0, 0.5, 0.0]) < 1e-12, "{world:?}");
    let back = physics.to_local(handle, world).expect("a live body");
    assert!(distance(back, [1.0, 0.5, 0.5]) < 1e-12, "{back:?}");

    let ground = Ground { height: -0.5 };
    physics
        .set_pose(handle, [0.0, 0.001, 0.0], [0.0, 0.0, 0.0, 1.0])
        .expect("a valid pose");
    run(&mut physics, 120, &ground, &Boxes::default(), |_| false);
    assert!(view(&physics, handle).sleeping);
    let hash = physics.state_hash();
    physics.step(&ground, &Boxes::default());
    assert_eq!(physics.state_hash(), hash, "a resting body is not stepped");
    physics.wake(handle).expect("a live body");
    physics
        .set_velocity(handle, [0.0, 3.0, 0.0])
        .expect("finite");
    physics.step(&ground, &Boxes::default());
    let body = view(&physics, handle);
    assert!(
        !body.sleeping && body.position[1] > 0.01 && body.age <= STEP,
        "{body:?}"
    );
}

#[test]
fn with_sleeping_off_a_still_cube_stays_awake_and_on_the_ground() {
    let mut physics = physics(1);
    physics.set_sleeping(false);
    let handle = physics.add(&cube([-0.5, 1.0, -0.5])).expect("a cube");
    let ground = Ground { height: 0.0 };
    // Past both the still time and the longest fall.
    let steps = ((LONGEST_FALL + 1.0) / STEP) as usize;
    run(&mut physics, steps, &ground, &Boxes::default(), |_| false);
    let body = view(&physics, handle);
    assert!(!body.sleeping, "{body:?}");
    assert_eq!(physics.awake_count(), 1);
    assert!(body.touching > 0, "{body:?}");
    assert!((body.position[1] - 0.5).abs() < 0.02, "{body:?}");
    // Resting on again: it comes to rest within the still time.
    physics.set_sleeping(true);
    let steps = run(&mut physics, 120, &ground, &Boxes::default(), |physics| {
        view(physics, handle).sleeping
    });
    assert!(steps < 120, "{:?}", view(&physics, handle));
}

/// Ten 1 m cubes dropped one onto another, 0.2 m above the one below once it is still, with
/// resting off so that nothing hides a creep; returns the top cube's drift over `seconds`
/// after the whole stack first came still, and the largest sideways offset of any cube from
/// the column's axis.
fn stack_of_ten(seconds: f64) -> (f64, f64) {
    let mut physics = physics(1);
    physics.set_sleeping(false);
    let ground = Ground { height: 0.0 };
    let mut shapes = Boxes::default();
    let mut handles = Vec::new();
    let still = |physics: &PhysicsWorld, handles: &[BodyHandle]| {
        handles.iter().all(|&handle| {
            let body = view(physics, handle);
            math::length(body.velocity) < STILL_SPEED
                && math::length(body.angular_velocity) < STILL_ANGULAR_SPEED
        })
    };
    for level in 0..10 {
        let low = [-0.5, f64::from(level) * 1.0 + 0.2, -0.5];
        let handle = physics.add(&cube(low)).expect("a cube");
        shapes
            .boxes
            .insert(handle, block_box_extent(low, [1, 1, 1], 1.0));
        handles.push(handle);
        let mut steps = 0;
        loop {
            physics.step(&ground, &shapes);
            steps += 1;
            if steps > 120 && still(&physics, &handles) {
                break;
            }
            assert!(steps < 1200, "level {level} never came still");
        }
    }
    let top = *handles.last().expect("ten cubes");
    let start = view(&physics, top).position;
    for _ in 0..(seconds / STEP) as usize {
        physics.step(&ground, &shapes);
    }
    let drift = distance(view(&physics, top).position, start);
    let sideways = handles
        .iter()
        .map(|&handle| {
            let p = view(&physics, handle).position;
            (p[0] * p[0] + p[2] * p[2]).sqrt()
        })
        .fold(0.0, f64::max);
    (drift, sideways)
}

#[test]
fn a_stack_of_ten_cubes_stands_ten_seconds_with_its_top_still() {
    let (drift, sideways) = stack_of_ten(10.0);
    eprintln!("drift {drift} sideways {sideways}");
    assert!(drift < 0.02, "the top moved {drift} m");
    assert!(sideways < 0.1, "a cube is {sideways} m off the column");
}

/// A 1 m cube dropped with its bottom `height` above flat ground: the fastest it fell before
/// it first rose again, and the fastest it rose then.
fn drop_and_rebound(height: f64) -> (f64, f64) {
    let mut physics = physics(1);
    let handle = physics.add(&cube([-0.5, height, -0.5])).expect("a cube");
    let ground = Ground { height: 0.0 };
    let mut impact = 0.0f64;
    let mut rebound = 0.0f64;
    for _ in 0..600 {
        physics.step(&ground, &Boxes::default());
        let rising = view(&physics, handle).velocity[1];
        if rising < 0.0 && rebound == 0.0 {
            impact = impact.max(-rising);
        } else if rising > 0.0 {
            rebound = rebound.max(rising);
        } else if rebound > 0.0 {
            break;
        }
    }
    (impact, rebound)
}

#[test]
fn a_dropped_cube_rebounds_at_its_share_of_the_impact_speed_from_any_height() {
    // Ten heights between 4 and 6 m, none a whole number of steps' fall from another: where
    // the last step before the ground ends differs from drop to drop.
    for i in 0..10 {
        let height = 4.0 + f64::from(i) * 0.2 + f64::from(i * 7 % 10) * 0.0131;
        let (impact, rebound) = drop_and_rebound(height);
        let fall = (2.0 * GRAVITY * height).sqrt();
        assert!(
            (impact - fall).abs() < 0.25,
            "from {height} m: struck at {impact} m/s, a free fall gives {fall}"
        );
        let share = rebound / impact;
        assert!(
            (share - BOUNCE).abs() <= 0.1 * BOUNCE,
            "from {height} m: struck at {impact} m/s, rebounded at {rebound} m/s ({share})"
        );
    }
}

#[test]
fn a_body_in_free_fall_is_never_put_to_rest_in_the_air() {
    // From 4 km, with the ground at 0: 25 s of falling (beyond the longest fall) and still
    // far above it.
    let mut physics = physics(1);
    let handle = physics.add(&cube([-0.5, 4000.0, -0.5])).expect("a cube");
    let ground = Ground { height: 0.0 };
    let steps = (25.0 / STEP) as usize;
    run(&mut physics, steps, &ground, &Boxes::default(), |_| false);
    let body = view(&physics, handle);
    assert!(!body.sleeping, "{body:?}");
    assert_eq!(body.age, 0.0, "it never touched anything: {body:?}");
    assert!(body.velocity[1] < -0.99 * GRAVITY * 25.0, "{body:?}");
    assert!(body.position[1] > 500.0, "{body:?}");
}

#[test]
fn a_body_over_its_impact_limit_reports_each_push_in_its_own_frame() {
    let mut physics = physics(1);
    let limited = physics.add(&cube([-0.5, 2.0, -0.5])).expect("a cube");
    let unlimited = physics.add(&cube([3.0, 2.0, -0.5])).expect("a cube");
    for bad in [-1.0, f64::NAN] {
        assert!(matches!(
            physics.set_impact_limit(limited, bad),
            Err(PhysicsError::BadLimit(_))
        ));
    }
    // A 2600 kg cube: its weight takes 212 N s a step, its landing from 2 m some 18,000.
    physics.set_impact_limit(limited, 1000.0).expect("a limit");
    let ground = Ground { height: 0.0 };
    let mut reported = Vec::new();
    for step in 0..240 {
        let before = view(&physics, limited).velocity;
        let report = physics.step(&ground, &Boxes::default());
        let after = view(&physics, limited).velocity;
        assert!(report.impacts.iter().all(|impact| impact.body == limited));
        if report.impacts.is_empty() {
            continue;
        }
        reported.push(step);
        // The pushes (normal and friction) are all the change of momentum gravity did not
        // make (the body's frame is the world's while it hardly turns), at its bottom face
        // (y = 2 in its frame), each pushing up.
        let mass = view(&physics, limited).mass;
        let change = [0, 1, 2].map(|axis| {
            let gravity = if axis == 1 { GRAVITY * STEP } else { 0.0 };
            mass * (after[axis] - (before[axis] - gravity))
        });
        for axis in 0..3 {
            let total: f64 = report
                .impacts
                .iter()
                .map(|impact| impact.impulse[axis])
                .sum();
            let scale = change[1].abs();
            assert!(
                (total - change[axis]).abs() < 1e-3 * scale,
                "{total} against {change:?}"
            );
        }
        assert!(change[1] >= 1000.0);
        for impact in &report.impacts {
            assert_eq!(impact.step, 0);
            assert!((impact.point[1] - 2.0).abs() < 1e-6, "{impact:?}");
            assert!(impact.impulse[1] > 0.0, "{impact:?}");
        }
    }
    // It struck (and again, softer, after its bounce); lying on the ground takes only its
    // weight's push, under the limit.
    assert!(!reported.is_empty() && reported.len() <= 3, "{reported:?}");
    assert!(reported.iter().all(|&step| step < 120), "{reported:?}");
    assert!(view(&physics, unlimited).touching > 0 || view(&physics, unlimited).sleeping);
}

/// A 2 m × 2 m slab of 1 m blocks lying on the ground touches it at the 25 corners of its
/// bottom: the solver works the patch at the few points that carry it (`patches`), and the
/// slab still rests flat; pushed over its impact limit, it is pushed at all 25 points, with
/// the net push the solver gave.
#[test]
fn a_slab_lying_flat_is_solved_at_its_corners_and_pushed_at_every_point() {
    let mut physics = physics(1);
    // Kept awake, so that it is stepped lying still.
    physics.set_sleeping(false);
    let handle = physics
        .add(&block_box([-1.0, 0.001, -1.0], [2, 1, 2], 1.0))
        .expect("a slab");
    physics.set_impact_limit(handle, 1.0).expect("a limit");
    let ground = Ground { height: 0.0 };
    let shapes = Boxes::default();
    for _ in 0..60 {
        physics.step(&ground, &shapes);
    }
    let before = view(&physics, handle).velocity;
    let report = physics.step(&ground, &shapes);
    let after = view(&physics, handle).velocity;
    let counts = physics.last_step_counts();
    // 25 points on the ground, solved as one patch of at most five.
    assert!(counts.contacts <= 5, "{counts:?}");
    let slab = view(&physics, handle);
    assert!((slab.position[1] - 0.5).abs() < 0.006, "{slab:?}");
    assert!(turn_angle(slab.orientation) < 1e-3, "{slab:?}");
    // Every bottom point is pushed, up, and the pushes add up to what the step did.
    let impacts = &report.impacts;
    assert_eq!(impacts.len(), 25, "{impacts:?}");
    assert!(
        impacts.iter().all(|impact| impact.impulse[1] > 0.0),
        "{impacts:?}"
    );
    let mass = slab.mass;
    let total: f64 = impacts.iter().map(|impact| impact.impulse[1]).sum();
    let change = mass * (after[1] - (before[1] - GRAVITY * STEP));
    assert!(
        (total - change).abs() < 1e-6 * change.abs(),
        "{total} against {change}"
    );
}

/// A solid that answers as another does but promises nothing: no stamp, no clearances.
struct Forgetful<'a>(&'a dyn Solid);

impl Solid for Forgetful<'_> {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<crate::collision::Surface> {
        self.0.nearest(point, reach)
    }
}

/// Flat ground that can rise between steps, with a fresh stamp each time.
struct RisingGround {
    ground: Ground,
    stamp: u64,
}

impl Solid for RisingGround {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<crate::collision::Surface> {
        self.ground.nearest(point, reach)
    }

    fn nearest_many_clear(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<crate::collision::Surface>],
        clear: &mut [f32],
    ) {
        self.ground.nearest_many_clear(queries, out, clear);
    }

    fn stamp(&self) -> Option<u128> {
        Some(u128::from(self.stamp))
    }
}

/// Thirty cubes and beams thrown spinning onto flat ground that rises 0.3 m under them at step
/// 300, kept awake; whether the world's clearances are kept (or the world promises nothing).
/// The state's hash after 600 steps; the points asked of the world that were no contact, in all
/// the steps after the bodies settled (steps 200 to 300 and 500 to 600); and the lowest middle
/// at the end.
fn thrown_on_rising_ground(keep: bool) -> (u64, usize, f64) {
    let mut physics = physics(2);
    physics.set_sleeping(false);
    let mut shapes = Boxes::default();
    let mut next = uniform(0xc1ea_5eed);
    for index in 0..30 {
        let blocks = if index % 3 == 0 { [3, 1, 1] } else { [1, 1, 1] };
        let low = [
            f64::from(index % 6) * 2.5 - 6.0,
            0.5 + next() * 2.0,
            f64::from(index / 6) * 2.5 - 6.0,
        ];
        let handle = physics.add(&block_box(low, blocks, 1.0)).expect("a body");
        shapes
            .boxes
            .insert(handle, block_box_extent(low, blocks, 1.0));
        physics
            .set_velocity(handle, [next() - 0.5, 0.0, next() - 0.5])
            .expect("finite");
        physics
            .set_angular_velocity(handle, [next() - 0.5, next() - 0.5, next() - 0.5])
            .expect("finite");
    }
    let mut ground = RisingGround {
        ground: Ground { height: 0.0 },
        stamp: crate::collision::fresh_stamp(),
    };
    let mut idle = 0;
    for step in 0..600 {
        if step == 300 {
            ground.ground.height = 0.3;
            ground.stamp = crate::collision::fresh_stamp();
        }
        if keep {
            physics.step(&ground, &shapes);
        } else {
            physics.step(&Forgetful(&ground), &shapes);
        }
        if (200..300).contains(&step) || step >= 500 {
            let counts = physics.last_step_counts();
            idle += counts.asked.saturating_sub(counts.contacts);
        }
    }
    let lowest = physics
        .handles()
        .map(|handle| view(&physics, handle).position[1])
        .fold(f64::INFINITY, f64::min);
    (physics.state_hash(), idle, lowest)
}

#[test]
fn what_bodies_learn_of_the_world_changes_no_contact_and_is_forgotten_when_the_world_changes() {
    let (kept, idle_kept, lowest) = thrown_on_rising_ground(true);
    let (forgot, idle_forgot, _) = thrown_on_rising_ground(false);
    // The same bits: a point skipped would have found nothing.
    assert_eq!(kept, forgot);
    // And far fewer questions: a body lying still asks about little but its touching points.
    // (24,504 in vain against 197,852: 8 times fewer. Before the passes turned their normal
    // rows round in two passes and a landing started pushed alike, bodies lying kept
    // awake moved a hair less each step and the clearances spared 10 times as many.)
    assert!(
        idle_kept * 7 < idle_forgot,
        "{idle_kept} points asked in vain, {idle_forgot} without the clearances"
    );
    // The risen ground was felt: every body stands on it (a 1 m cube's middle 0.5 m up).
    assert!(lowest > 0.3 + 0.45, "a middle at {lowest}");
}

/// Flat ground at `y = 0` whose answers are true distances up to a meter above it and nothing
/// higher: the way the terrain's density over its gradient tells nothing above the middle of a
/// dug bowl. Its clearances are sound (a point's height: no question from a point higher than
/// the reach finds anything), and it names itself, so the bodies learn from them.
struct Mirage;

impl Solid for Mirage {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<crate::collision::Surface> {
        if point[1] > 1.0 {
            return None;
        }
        Ground { height: 0.0 }.nearest(point, reach)
    }

    fn nearest_many_clear(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<crate::collision::Surface>],
        clear: &mut [f32],
    ) {
        for ((answer, clear), &(point, reach)) in out.iter_mut().zip(clear).zip(queries) {
            *answer = self.nearest(point, reach);
            *clear = point[1];
        }
    }

    fn stamp(&self) -> Option<u128> {
        Some(0x4d49_5241_4745)
    }
}

/// Regression: the question about a body's middle (and each cluster's) was believed when it
/// found nothing, whatever the world. A column 3 m tall has its middle 1.5 m up, where the
/// [`Mirage`] says nothing is near; its lowest points are not asked, and it fell through the
/// ground. It lands and stands, asked and learning as it falls from 20 m.
#[test]
fn a_body_whose_middle_is_told_nothing_is_near_still_lands_on_what_its_points_touch() {
    for threads in [1, 2] {
        let mut physics = physics(threads);
        let handle = physics
            .add(&block_box([-0.5, 20.0, -0.5], [1, 3, 1], 1.0))
            .expect("a column");
        let shapes = Boxes::default();
        let mut asked_falling = usize::MAX;
        let steps = run(&mut physics, 1200, &Mirage, &shapes, |physics| {
            let body = view(physics, handle);
            if body.position[1] > 10.0 {
                asked_falling = asked_falling.min(physics.last_step_counts().asked);
            }
            body.sleeping
        });
        let body = view(&physics, handle);
        assert!(body.sleeping, "still moving after {steps} steps: {body:?}");
        // On the ground, standing (its middle 1.5 m up) or fallen over (0.5 m): struck on its
        // end at 20 m/s, it bounces and may topple, as it does in rapier3d 0.36.
        let [x, _, z, _] = body.orientation;
        let upright = x.abs() < 0.01 && z.abs() < 0.01;
        let height = if upright { 1.5 } else { 0.5 };
        assert!((body.position[1] - height).abs() < 0.03, "{body:?}");
        // High in the air the middle's clearance spared its points the questions.
        assert_eq!(asked_falling, 0);
    }
}
