//! The tools' build script: nothing unless the `jolt` feature is on. With it, compiles the few
//! lines of C++ the physics benchmark needs of Jolt Physics that JoltC (joltc-sys) does not bind
//! (`src/bench/physics/jolt_shim.cpp`), against the Jolt headers joltc-sys ships and builds,
//! with the defines and instruction sets of joltc-sys's CMake build of Jolt (Release: `NDEBUG`,
//! the debug renderer and the profiler on, 16-bit object layers, AVX2 and FMA): Jolt's classes
//! change layout with them, so they must match.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "jolt")]
    jolt::build();
}

#[cfg(feature = "jolt")]
mod jolt {
    use std::path::PathBuf;
    use std::process::Command;

    /// The C++ file compiled.
    const SHIM: &str = "src/bench/physics/jolt_shim.cpp";

    /// The defines joltc-sys's CMake build gives Jolt in its Release configuration
    /// (`JoltPhysics/Jolt/Jolt.cmake` with the options' defaults on x86-64).
    const DEFINES: &[(&str, Option<&str>)] = &[
        ("NDEBUG", None),
        ("JPH_DEBUG_RENDERER", None),
        ("JPH_PROFILE_ENABLED", None),
        ("JPH_OBJECT_LAYER_BITS", Some("16")),
        ("JPH_USE_AVX2", None),
        ("JPH_USE_AVX", None),
        ("JPH_USE_SSE4_1", None),
        ("JPH_USE_SSE4_2", None),
        ("JPH_USE_LZCNT", None),
        ("JPH_USE_TZCNT", None),
        ("JPH_USE_F16C", None),
        ("JPH_USE_FMADD", None),
    ];

    /// The compiler flags the same build gives Jolt with GCC (instruction sets, no fused
    /// multiply-add contraction, SSE arithmetic).
    const FLAGS: &[&str] = &[
        "-mavx2",
        "-mbmi",
        "-mpopcnt",
        "-mlzcnt",
        "-mf16c",
        "-mfma",
        "-mfpmath=sse",
        "-ffp-contract=off",
    ];

    pub fn build() {
        println!("cargo:rerun-if-changed={SHIM}");
        let jolt = joltc_sys_dir().join("JoltC").join("JoltPhysics");
        assert!(
            jolt.join("Jolt").join("Jolt.h").is_file(),
            "no Jolt headers under {}",
            jolt.display()
        );
        let mut build = cc::Build::new();
        build
            .cpp(true)
            .std("c++17")
            .file(SHIM)
            .include(&jolt)
            // Jolt's own inline functions are compiled here too: as optimised as in its
            // library, whatever the profile, so that the copy the linker keeps is never slower.
            .opt_level(3)
            .warnings(false);
        for (name, value) in DEFINES {
            build.define(name, *value);
        }
        for flag in FLAGS {
            build.flag(flag);
        }
        build.compile("blockfall_jolt_shim");
    }

    /// Where cargo keeps joltc-sys's sources (the registry, a vendor folder or a path): asked
    /// of `cargo metadata`, since joltc-sys declares no `links` key that would pass it on.
    fn joltc_sys_dir() -> PathBuf {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"))
            .join("Cargo.toml");
        let output = Command::new(cargo)
            .args([
                "metadata",
                "--format-version",
                "1",
                "--offline",
                "--features",
                "jolt",
            ])
            .arg("--manifest-path")
            .arg(&manifest)
            .output()
            .expect("running cargo metadata");
        assert!(
            output.status.success(),
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let metadata: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
        let packages = metadata["packages"].as_array().expect("a package list");
        let joltc = packages
            .iter()
            .find(|package| package["name"] == "joltc-sys")
            .expect("joltc-sys among the packages");
        let path = PathBuf::from(joltc["manifest_path"].as_str().expect("a manifest path"));
        path.parent().expect("the manifest's folder").to_path_buf()
    }
}
