//! The `mesh` tool end to end: a sphere grid in, a valid mesh out; every bad input a clear
//! message and a failing exit code, never a panic.

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
        ("1,8,8", "at least 2"),
        ("99999999999,99999999999,99999999999", "overflow"),
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
