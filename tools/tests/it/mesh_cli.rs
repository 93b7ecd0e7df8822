//! The `mesh` tool end to end: a sphere grid in, a valid mesh out; every bad input a clear
//! message and a failing exit code, never a panic; hostile sizes (a 320³ checkerboard, a sparse
//! 1024³ grid, dims of thousands of digits) refused or meshed with the tool's peak resident
//! memory under 1 GB. And the `soak` tool's number options, which are checked before it does
//! anything (it needs a GPU only after them).

use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh folder for one test's files.
fn scratch_folder(test: &str) -> PathBuf {
    let folder =
        std::env::temp_dir().join(format!("blockfall-mesh-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("creating a temp folder");
    folder
}

fn write_grid(path: &PathBuf, samples: &[f32]) {
    let bytes: Vec<u8> = samples
        .iter()
        .flat_map(|sample| sample.to_le_bytes())
        .collect();
    std::fs::write(path, bytes).expect("writing a test grid");
}

fn run_mesh(input: &PathBuf, dims: &str, output: &PathBuf) -> Output {
    run_mesh_with(input, dims, output, &[])
}

fn run_mesh_with(input: &PathBuf, dims: &str, output: &PathBuf, more: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mesh"))
        .arg("--input")
        .arg(input)
        .arg("--dims")
        .arg(dims)
        .arg("--output")
        .arg(output)
        .args(more)
        .output()
        .expect("running the mesh tool")
}

const CENTRE: [f32; 3] = [11.5, 11.7, 11.3];
const RADIUS: f32 = 8.2;

fn sphere_grid(n: usize) -> Vec<f32> {
    let mut samples = Vec::with_capacity(n * n * n);
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let offset = [
                    x as f32 - CENTRE[0],
                    y as f32 - CENTRE[1],
                    z as f32 - CENTRE[2],
                ];
                let distance = offset.iter().map(|o| o * o).sum::<f32>().sqrt();
                samples.push(RADIUS - distance);
            }
        }
    }
    samples
}

#[test]
fn mesh_tool_meshes_a_sphere_grid_to_json() {
    meshes_a_sphere("sphere", &[]);
}

#[test]
fn mesh_tool_meshes_a_sphere_grid_with_marching_cubes() {
    meshes_a_sphere("sphere-cubes", &["--mesher", "marching-cubes"]);
}

#[test]
fn mesh_tool_refuses_a_mesher_it_does_not_have_and_names_those_it_has() {
    let folder = scratch_folder("no-such-mesher");
    let input = folder.join("sphere.f32");
    let output = folder.join("sphere.json");
    write_grid(&input, &sphere_grid(8));
    let result = run_mesh_with(&input, "8,8,8", &output, &["--mesher", "cubes"]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(!result.status.success());
    assert!(
        stderr.contains("surface-nets, marching-cubes"),
        "the message names the meshers: {stderr}"
    );
    assert!(!output.exists(), "nothing written");
    std::fs::remove_dir_all(folder).ok();
}

fn meshes_a_sphere(test: &str, more: &[&str]) {
    let folder = scratch_folder(test);
    let input = folder.join("sphere.f32");
    let output = folder.join("sphere.json");
    write_grid(&input, &sphere_grid(24));
    let result = run_mesh_with(&input, "24,24,24", &output, more);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "mesh failed: {stderr}");

    let text = std::fs::read_to_string(&output).expect("reading the mesh");
    let mesh: serde_json::Value = serde_json::from_str(&text).expect("the mesh is JSON");
    let as_points = |key: &str| -> Vec<[f64; 3]> {
        mesh[key]
            .as_array()
            .unwrap_or_else(|| panic!("`{key}` is not an array"))
            .iter()
            .map(|point| {
                let point = point.as_array().expect("a point is an array");
                assert_eq!(point.len(), 3);
                [0, 1, 2].map(|axis| point[axis].as_f64().expect("a coordinate is a number"))
            })
            .collect()
    };
    let positions = as_points("positions");
    let normals = as_points("normals");
    let indices: Vec<u64> = mesh["indices"]
        .as_array()
        .expect("`indices` is an array")
        .iter()
        .map(|index| index.as_u64().expect("an index is a whole number"))
        .collect();
    assert!(positions.len() > 100);
    assert_eq!(positions.len(), normals.len());
    assert_eq!(indices.len() % 3, 0);
    assert!(indices.iter().all(|&index| index < positions.len() as u64));
    for position in &positions {
        let distance = (0..3)
            .map(|axis| (position[axis] - f64::from(CENTRE[axis])).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(
            (distance - f64::from(RADIUS)).abs() < 0.6,
            "vertex {position:?} is {distance} from the centre"
        );
    }
    std::fs::remove_dir_all(folder).ok();
}

/// Runs the tool expecting failure, and returns its message.
fn expect_failure(input: &PathBuf, dims: &str, output: &PathBuf) -> String {
    let result = run_mesh(input, dims, output);
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert_eq!(
        result.status.code(),
        Some(2),
        "bad input is refused with exit status 2: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "mesh panicked: {stderr}");
    stderr
}

#[test]
fn mesh_tool_rejects_bad_input_with_clear_messages() {
    let folder = scratch_folder("errors");
    let output = folder.join("out.json");
    let good = folder.join("good.f32");
    write_grid(&good, &sphere_grid(8));

    let missing = folder.join("missing.f32");
    let message = expect_failure(&missing, "8,8,8", &output);
    assert!(
        message.contains("missing.f32") && message.contains("cannot read"),
        "{message}"
    );

    let message = expect_failure(&good, "8,8,9", &output);
    assert!(
        message.contains("good.f32") && message.contains("2048") && message.contains("2304"),
        "{message}"
    );

    for (dims, problem) in [
        ("8,8", "three"),
        ("8,x,8", "not a whole number"),
        ("1,8,8", "not 2 to 4096"),
        ("99999999999,99999999999,99999999999", "not 2 to 4096"),
        ("4096,4096,2", "more than 1048576"),
        ("1024,1024,2048", "more than 1073741824"),
    ] {
        let message = expect_failure(&good, dims, &output);
        assert!(message.contains(problem), "dims {dims}: {message}");
    }

    for bad in [f32::NAN, f32::INFINITY] {
        let mut samples = sphere_grid(8);
        samples[3 + 8 * (5 + 8 * 6)] = bad;
        let input = folder.join("bad.f32");
        write_grid(&input, &samples);
        let message = expect_failure(&input, "8,8,8", &output);
        assert!(
            message.contains("bad.f32")
                && message.contains(&(3 + 8 * (5 + 8 * 6)).to_string())
                && message.contains("(3, 5, 6)"),
            "{message}"
        );
    }

    // A folder cannot be made under a file.
    let unwritable = good.join("out.json");
    let message = expect_failure(&good, "8,8,8", &unwritable);
    assert!(
        message.contains("out.json") && message.contains("cannot write"),
        "{message}"
    );
    std::fs::remove_dir_all(folder).ok();
}

#[test]
fn mesh_output_equal_to_input_is_refused_and_the_input_kept() {
    let folder = scratch_folder("same");
    let input = folder.join("grid.f32");
    write_grid(&input, &sphere_grid(8));
    let before = std::fs::read(&input).expect("the grid");
    // The same file, named the same way and another way.
    for output in [input.clone(), folder.join(".").join("grid.f32")] {
        let message = expect_failure(&input, "8,8,8", &output);
        assert!(message.contains("is the input"), "{message}");
        assert_eq!(std::fs::read(&input).expect("the grid"), before);
    }
    std::fs::remove_dir_all(folder).ok();
}

#[test]
fn mesh_output_cut_short_by_a_failed_write_keeps_the_old_output() {
    let folder = scratch_folder("cut");
    let input = folder.join("grid.f32");
    write_grid(&input, &sphere_grid(24));
    let output = folder.join("mesh.json");
    std::fs::write(&output, b"the old mesh").expect("an old output");
    // Files may grow to 8 blocks of 512 bytes: the mesh's JSON (well over that) fails halfway
    // and the tool is stopped by SIGXFSZ, as a write to a full disk fails.
    let result = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 8 && exec \"$0\" --input \"$1\" --dims 24,24,24 --output \"$2\"")
        .arg(env!("CARGO_BIN_EXE_mesh"))
        .arg(&input)
        .arg(&output)
        .output()
        .expect("running the mesh tool");
    assert!(!result.status.success(), "the write should have failed");
    assert_eq!(
        std::fs::read(&output).expect("the old output"),
        b"the old mesh",
        "a failed write must leave the old output whole"
    );
    std::fs::remove_dir_all(folder).ok();
}

#[test]
fn mesh_input_huge_is_refused_after_the_bytes_the_dims_ask_for() {
    let folder = scratch_folder("endless");
    let output = folder.join("out.json");
    // A sparse file of 1 GiB: only 2049 bytes of it are read.
    let input = folder.join("huge.f32");
    std::fs::File::create(&input)
        .and_then(|file| file.set_len(1 << 30))
        .expect("a sparse file");
    let message = expect_failure(&input, "8,8,8", &output);
    assert!(
        message.contains("is 1073741824 bytes") && message.contains("need 2048"),
        "{message}"
    );
    // An endless device is not a file: refused before a byte is read.
    let message = expect_failure(&PathBuf::from("/dev/zero"), "8,8,8", &output);
    assert!(
        message.contains("/dev/zero") && message.contains("is a character device"),
        "{message}"
    );
    assert!(!output.exists());
    std::fs::remove_dir_all(folder).ok();
}

#[cfg(unix)]
#[test]
fn mesh_input_fifo_is_refused_not_waited_on() {
    let folder = scratch_folder("fifo");
    let input = folder.join("grid.f32");
    let output = folder.join("out.json");
    let made = Command::new("mkfifo")
        .arg(&input)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_mesh"))
        .arg("--input")
        .arg(&input)
        .args(["--dims", "8,8,8", "--output"])
        .arg(&output)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("running the mesh tool");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting") {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(10) {
            child.kill().ok();
            child.wait().ok();
            panic!("mesh --input FIFO still reading after 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("stderr read");
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("is a FIFO (named pipe)"), "{stderr}");
    assert!(!output.exists());
    std::fs::remove_dir_all(folder).ok();
}

/// The peak resident memory the tool reported at its end (`RUST_LOG=info`), in bytes.
fn peak_resident(stderr: &str) -> u64 {
    let kib: u64 = stderr
        .lines()
        .find_map(|line| line.split("peak resident memory: ").nth(1))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak resident memory reported: {stderr}"));
    kib * 1024
}

/// Runs the tool with its log on; its result, stderr, and peak resident memory.
fn run_measured(
    input: &PathBuf,
    dims: &str,
    output: &PathBuf,
    mesher: &str,
) -> (Output, String, u64) {
    let result = Command::new(env!("CARGO_BIN_EXE_mesh"))
        .env("RUST_LOG", "info")
        .arg("--input")
        .arg(input)
        .args(["--dims", dims, "--mesher", mesher, "--output"])
        .arg(output)
        .output()
        .expect("running the mesh tool");
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "mesh panicked: {stderr}");
    let peak = peak_resident(&stderr);
    (result, stderr, peak)
}

/// The tool's memory may not pass this for any input.
const MOST_RESIDENT: u64 = 1_000_000_000;

#[test]
fn mesh_of_a_checkerboard_of_320_cubed_is_refused_in_bounded_memory() {
    // Every sample's sign differs from its neighbours': a vertex for every cell and two
    // triangles for every edge, 32 million vertices and 195 million triangles in all.
    let folder = scratch_folder("checkerboard");
    let input = folder.join("checkerboard.f32");
    let output = folder.join("out.json");
    let n = 320;
    let mut file = std::io::BufWriter::new(std::fs::File::create(&input).expect("a grid"));
    for z in 0..n {
        let plane: Vec<u8> = (0..n * n)
            .flat_map(|i| {
                let sample: f32 = if (i % n + i / n + z) % 2 == 0 {
                    1.0
                } else {
                    -1.0
                };
                sample.to_le_bytes()
            })
            .collect();
        std::io::Write::write_all(&mut file, &plane).expect("writing the grid");
    }
    std::io::Write::flush(&mut file).expect("writing the grid");
    drop(file);
    for (mesher, limit) in [
        ("surface-nets", "4194304 triangles"),
        ("marching-cubes", "2097152 vertices"),
    ] {
        let (result, stderr, peak) = run_measured(&input, "320,320,320", &output, mesher);
        assert_eq!(result.status.code(), Some(2), "{mesher}: {stderr}");
        assert!(
            stderr.contains(&format!("has more than {limit}")) && stderr.contains("at most"),
            "{mesher}: the limit is named: {stderr}"
        );
        assert!(
            peak < MOST_RESIDENT,
            "{mesher}: {peak} bytes resident at the peak"
        );
        println!(
            "{mesher}: 320³ checkerboard refused, peak resident {} MiB",
            peak >> 20
        );
        assert!(!output.exists());
    }
    std::fs::remove_dir_all(folder).ok();
}

#[test]
fn mesh_of_a_sparse_grid_of_1024_cubed_is_made_slab_by_slab_in_bounded_memory() {
    // 4 GiB, all holes but a ball's worth of rows: zeros (outside) elsewhere.
    let folder = scratch_folder("sparse");
    let input = folder.join("sparse.f32");
    let output = folder.join("sparse.json");
    let n: u64 = 1024;
    let file = std::fs::File::create(&input).expect("a grid");
    file.set_len(4 * n * n * n).expect("a sparse file");
    let (centre, radius) = ([512.3f32, 500.6, 700.2], 6.0f32);
    for z in 692..709u64 {
        for y in 492..509u64 {
            let row: Vec<u8> = (504..521u64)
                .flat_map(|x| {
                    let p = [x as f32, y as f32, z as f32];
                    let distance = (0..3)
                        .map(|a| (p[a] - centre[a]).powi(2))
                        .sum::<f32>()
                        .sqrt();
                    (radius - distance).to_le_bytes()
                })
                .collect();
            std::os::unix::fs::FileExt::write_all_at(&file, &row, 4 * (504 + n * (y + n * z)))
                .expect("writing a row");
        }
    }
    drop(file);
    for mesher in ["surface-nets", "marching-cubes"] {
        let (result, stderr, peak) = run_measured(&input, "1024,1024,1024", &output, mesher);
        assert!(result.status.success(), "{mesher}: {stderr}");
        assert!(
            peak < MOST_RESIDENT,
            "{mesher}: {peak} bytes resident at the peak"
        );
        println!(
            "{mesher}: sparse 1024³ meshed, peak resident {} MiB",
            peak >> 20
        );
        let text = std::fs::read_to_string(&output).expect("the mesh");
        let mesh: serde_json::Value = serde_json::from_str(&text).expect("the mesh is JSON");
        let positions = mesh["positions"].as_array().expect("positions");
        assert!(
            positions.len() > 100,
            "{mesher}: {} vertices",
            positions.len()
        );
        assert!(!mesh["indices"].as_array().expect("indices").is_empty());
        for position in positions {
            let p: Vec<f64> = (0..3)
                .map(|a| position[a].as_f64().expect("a coordinate"))
                .collect();
            let distance = (0..3)
                .map(|a| (p[a] - f64::from(centre[a])).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                (distance - f64::from(radius)).abs() < 0.6,
                "{mesher}: vertex {p:?} is {distance} from the centre"
            );
        }
        std::fs::remove_file(&output).ok();
    }
    std::fs::remove_dir_all(folder).ok();
}

#[test]
fn mesh_dims_of_40_and_5000_digits_are_refused_in_a_short_line() {
    let folder = scratch_folder("digits");
    let input = folder.join("grid.f32");
    let output = folder.join("out.json");
    write_grid(&input, &sphere_grid(8));
    for digits in [40, 5000] {
        let number = "7".repeat(digits);
        for dims in [
            format!("{number},8,8"),
            format!("8,8,{number}"),
            number.clone(),
        ] {
            let message = expect_failure(&input, &dims, &output);
            for line in message.lines() {
                assert!(
                    line.chars().count() < 300,
                    "a line of {}: {line}",
                    line.len()
                );
            }
            assert!(
                message.contains("--dims") && message.contains(&format!("({digits} characters)")),
                "{message}"
            );
        }
    }
    // The mesher's name is quoted as briefly.
    let result = run_mesh_with(&input, "8,8,8", &output, &["--mesher", &"x".repeat(5000)]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.lines().all(|line| line.chars().count() < 300),
        "{stderr}"
    );
    assert!(!output.exists());
    std::fs::remove_dir_all(folder).ok();
}

#[test]
fn mesh_help_gives_the_limits_and_why() {
    let result = Command::new(env!("CARGO_BIN_EXE_mesh"))
        .arg("--help")
        .output()
        .expect("running the mesh tool");
    let help = String::from_utf8_lossy(&result.stdout);
    assert!(result.status.success(), "{help}");
    for limit in [
        "4096",
        "1048576",
        "1073741824",
        "2097152",
        "4194304",
        "323 MB",
    ] {
        assert!(help.contains(limit), "{limit} is not in the help: {help}");
    }
}

#[test]
fn soak_refuses_absurd_numbers_at_once_naming_the_option_and_range() {
    let folder = scratch_folder("soak");
    let script = folder.join("soak.json");
    let huge = "9".repeat(5000);
    for (args, option) in [
        (
            vec!["--minutes-of-game-time", "1e300"],
            "--minutes-of-game-time",
        ),
        (
            vec!["--minutes-of-game-time", &huge],
            "--minutes-of-game-time",
        ),
        (
            vec!["--minutes-of-game-time", "NaN"],
            "--minutes-of-game-time",
        ),
        (
            vec!["--minutes-of-game-time", "0"],
            "--minutes-of-game-time",
        ),
        (vec!["--cycle-seconds", "1e-300"], "--cycle-seconds"),
        (vec!["--cycle-seconds", &huge], "--cycle-seconds"),
        (vec!["--cycle-seconds", "inf"], "--cycle-seconds"),
        (vec!["--frame-dt", "0"], "--frame-dt"),
        (vec!["--frame-dt", "NaN"], "--frame-dt"),
        (vec!["--frame-dt", "1"], "--frame-dt"),
        (
            vec!["--frame-dt", "0.0001", "--minutes-of-game-time", "200"],
            "--frame-dt",
        ),
        (
            vec!["--cycle-seconds", "120", "--minutes-of-game-time", "1"],
            "--cycle-seconds",
        ),
        (vec!["--width", &huge], "--width"),
        (vec!["--view-radius", "33"], "--view-radius"),
        (vec!["--seed", "18446744073709551616"], "--seed"),
    ] {
        let result = Command::new(env!("CARGO_BIN_EXE_soak"))
            .args(&args)
            .arg("--write-script")
            .arg(&script)
            .output()
            .expect("running the soak tool");
        let stderr = String::from_utf8_lossy(&result.stderr);
        let shown: Vec<String> = args.iter().map(|a| a.chars().take(40).collect()).collect();
        assert_eq!(result.status.code(), Some(2), "{shown:?}: {stderr}");
        assert!(stderr.contains(option), "{shown:?}: {stderr}");
        assert!(
            stderr.lines().all(|line| line.chars().count() < 300),
            "{shown:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{shown:?}: {stderr}");
        assert!(
            !script.exists(),
            "{shown:?}: nothing is made of refused numbers"
        );
    }
    // Numbers in range make a script the game reads.
    let result = Command::new(env!("CARGO_BIN_EXE_soak"))
        .args([
            "--minutes-of-game-time",
            "1",
            "--cycle-seconds",
            "10",
            "--frame-dt",
            "0.1",
        ])
        .arg("--write-script")
        .arg(&script)
        .output()
        .expect("running the soak tool");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let text = std::fs::read_to_string(&script).expect("the script");
    blockfall_game::scene::parse(&text).expect("the game reads the soak's script");
    std::fs::remove_dir_all(folder).ok();
}
