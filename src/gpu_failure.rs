//! When the GPU fails for good — a lost device (`VK_ERROR_DEVICE_LOST`, or a wait that timed
//! out: a hang), or memory gone (`VK_ERROR_OUT_OF_DEVICE_MEMORY`, `VK_ERROR_OUT_OF_HOST_MEMORY`,
//! gpu-allocator out of memory) — from a submit, a present, an acquire, a wait or an
//! allocation: the window and the headless run stop with a message that names what failed,
//! after saving the world (which lives on the CPU and is whole) to a recovery file next to its
//! usual save ([`recovery_path`]), and exit with [`EXIT_CODE`]. Never a hang or a panic.
//!
//! # The test hook
//!
//! `BLOCKFALL_FAULT=KIND@frame:N` makes the Nth frame drawn (counting from 0) fail at its
//! submit as if the driver had returned the error: `device-lost`
//! (`VK_ERROR_DEVICE_LOST`), `out-of-device-memory` or `out-of-host-memory`. It exists for the
//! tests (`tests/it/gpu_device_lost.rs`); the message says the error was injected. A value that is
//! not of that form stops the start with exit status 2.

use std::fmt;
use std::path::{Path, PathBuf};

use blockfall_engine::gpu::{vk, GpuError, GpuResult};
use blockfall_engine::meshing::gpu::GpuMeshError;
use blockfall_engine::meshing::TerrainMeshError;
use blockfall_game::input::Input;
use blockfall_game::save::EXTENSION;
use blockfall_game::world::World;
use blockfall_game_render::hud::HudError;
use blockfall_game_render::world::WorldRenderError;

/// The exit status of a run the GPU failed.
pub const EXIT_CODE: u8 = 3;

/// The environment variable of the test hook.
pub const FAULT_VARIABLE: &str = "BLOCKFALL_FAULT";

/// How the GPU failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// `VK_ERROR_DEVICE_LOST`: the driver reset the GPU or the GPU stopped.
    DeviceLost,
    /// A wait for the GPU that did not end: a hang.
    Hung,
    /// `VK_ERROR_OUT_OF_DEVICE_MEMORY`, or gpu-allocator out of memory.
    OutOfDeviceMemory,
    /// `VK_ERROR_OUT_OF_HOST_MEMORY`.
    OutOfHostMemory,
}

impl FailureKind {
    /// What the player reads.
    pub fn describe(self) -> &'static str {
        match self {
            Self::DeviceLost => "the GPU device was lost (VK_ERROR_DEVICE_LOST)",
            Self::Hung => "the GPU stopped answering",
            Self::OutOfDeviceMemory => "the GPU ran out of memory (VK_ERROR_OUT_OF_DEVICE_MEMORY)",
            Self::OutOfHostMemory => {
                "the Vulkan driver ran out of memory (VK_ERROR_OUT_OF_HOST_MEMORY)"
            }
        }
    }

    /// The failure a backend error is, if it is one the run cannot go on after.
    pub fn of(error: &GpuError) -> Option<Self> {
        match error {
            GpuError::Vulkan { result, .. } => match *result {
                vk::Result::ERROR_DEVICE_LOST => Some(Self::DeviceLost),
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => Some(Self::OutOfDeviceMemory),
                vk::Result::ERROR_OUT_OF_HOST_MEMORY => Some(Self::OutOfHostMemory),
                _ => None,
            },
            GpuError::Allocation {
                source: gpu_allocator::AllocationError::OutOfMemory,
                ..
            } => Some(Self::OutOfDeviceMemory),
            GpuError::Timeout(_) => Some(Self::Hung),
            _ => None,
        }
    }

    /// The failure anywhere in `error`'s chain (the backend's errors, bare or inside the
    /// world's, the meshing's and the HUD's), and the backend error's own text (which names the
    /// Vulkan call).
    pub fn find(error: &anyhow::Error) -> Option<(Self, String)> {
        error.chain().find_map(|cause| {
            let gpu = cause
                .downcast_ref::<GpuError>()
                .or_else(|| match cause.downcast_ref::<WorldRenderError>()? {
                    WorldRenderError::Gpu(gpu) => Some(gpu),
                    WorldRenderError::Meshing(meshing) => of_meshing(meshing),
                    WorldRenderError::Workers(_) => None,
                })
                .or_else(|| of_meshing(cause.downcast_ref::<TerrainMeshError>()?))
                .or_else(|| match cause.downcast_ref::<GpuMeshError>()? {
                    GpuMeshError::Gpu(gpu) => Some(gpu),
                    _ => None,
                })
                .or_else(|| match cause.downcast_ref::<HudError>()? {
                    HudError::Gpu(gpu) => Some(gpu),
                    HudError::Renderer(_) => None,
                })?;
            Self::of(gpu).map(|kind| (kind, gpu.to_string()))
        })
    }

    /// The Vulkan result the test hook returns for this kind.
    fn result(self) -> vk::Result {
        match self {
            Self::DeviceLost | Self::Hung => vk::Result::ERROR_DEVICE_LOST,
            Self::OutOfDeviceMemory => vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            Self::OutOfHostMemory => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        }
    }
}

fn of_meshing(error: &TerrainMeshError) -> Option<&GpuError> {
    match error {
        TerrainMeshError::Mesh(GpuMeshError::Gpu(gpu)) => Some(gpu),
        _ => None,
    }
}

/// The test hook's fault: this kind at this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub kind: FailureKind,
    /// The frame drawn (counting from 0) whose submit fails.
    pub frame: u64,
}

impl Fault {
    /// `KIND@frame:N` (see the module's docs).
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "{FAULT_VARIABLE}={text:?} is not KIND@frame:N with KIND device-lost, \
                 out-of-device-memory or out-of-host-memory"
            )
        };
        let (kind, frame) = text.split_once("@frame:").ok_or_else(bad)?;
        let kind = match kind {
            "device-lost" => FailureKind::DeviceLost,
            "out-of-device-memory" => FailureKind::OutOfDeviceMemory,
            "out-of-host-memory" => FailureKind::OutOfHostMemory,
            _ => return Err(bad()),
        };
        let frame = frame.parse().map_err(|_| bad())?;
        Ok(Self { kind, frame })
    }

    /// The fault `BLOCKFALL_FAULT` asks for, if it is set.
    pub fn from_env() -> Result<Option<Self>, String> {
        match std::env::var(FAULT_VARIABLE) {
            Ok(text) => Self::parse(&text).map(Some),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(format!("{FAULT_VARIABLE} is not valid UTF-8"))
            }
        }
    }

    /// The injected error, when `frame` is the fault's; call it just before the frame's submit.
    pub fn check(fault: Option<Self>, frame: u64) -> GpuResult<()> {
        match fault {
            Some(fault) if fault.frame == frame => Err(GpuError::Vulkan {
                call: "vkQueueSubmit2 (injected by BLOCKFALL_FAULT)",
                result: fault.kind.result(),
            }),
            _ => Ok(()),
        }
    }
}

/// Where the world is saved when the GPU fails: next to its usual save `save`, named
/// `NAME-recovered.blockfall`, so the last save the player made is never written over by a run
/// that ended badly.
pub fn recovery_path(save: &Path) -> PathBuf {
    let stem = save.file_stem().map_or_else(
        || "world".into(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    save.with_file_name(format!("{stem}-recovered.{EXTENSION}"))
}

/// How a run ended that the GPU failed: what failed, and where the world went.
#[derive(Debug)]
pub struct GpuFailed {
    pub kind: FailureKind,
    /// The backend's error: the Vulkan call and its result.
    pub cause: String,
    /// Where the world was saved, or why it was not.
    pub saved: Result<PathBuf, String>,
}

impl fmt::Display for GpuFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}); ", self.kind.describe(), self.cause)?;
        match &self.saved {
            Ok(path) => write!(
                f,
                "the world was saved to {}: play on with `blockfall --world {}`",
                path.display(),
                path.display()
            ),
            Err(why) => write!(f, "the world was not saved: {why}"),
        }
    }
}

impl std::error::Error for GpuFailed {}

/// `error` as the run ends with it: when it is a failure of the GPU ([`FailureKind::find`]),
/// the world (if the run shows one) saved at `clock` to the recovery path of `save`, and a
/// [`GpuFailed`] that says so; any other error as it was.
pub fn recover(
    error: anyhow::Error,
    world: Option<&World>,
    clock: f64,
    save: Option<&Path>,
) -> anyhow::Error {
    let Some((kind, cause)) = FailureKind::find(&error) else {
        return error;
    };
    let saved = match (world, save) {
        (None, _) => Err("the run shows no world (the test scene)".to_owned()),
        (Some(_), None) => Err("no folder to save in: give --world PATH".to_owned()),
        (Some(world), Some(save)) => {
            let path = recovery_path(save);
            // What the player held is theirs, as for any save of the window.
            match world.save(clock, &Input::default()).write(&path) {
                Ok(_) => Ok(path),
                Err(why) => Err(format!("saving it to {} failed: {why}", path.display())),
            }
        }
    };
    log::error!("{}: {cause}", kind.describe());
    anyhow::Error::new(GpuFailed { kind, cause, saved })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fault_hook_reads_its_three_kinds_and_refuses_anything_else() {
        assert_eq!(
            Fault::parse("device-lost@frame:7"),
            Ok(Fault {
                kind: FailureKind::DeviceLost,
                frame: 7
            })
        );
        assert_eq!(
            Fault::parse("out-of-host-memory@frame:0").map(|f| f.kind),
            Ok(FailureKind::OutOfHostMemory)
        );
        for bad in [
            "",
            "device-lost",
            "device-lost@frame:",
            "lost@frame:1",
            "device-lost@frame:-1",
        ] {
            let error = Fault::parse(bad).unwrap_err();
            assert!(error.contains("BLOCKFALL_FAULT"), "{error}");
        }
    }

    #[test]
    fn a_fault_fails_its_own_frame_only_and_is_found_through_the_world_error() {
        let fault = Some(Fault::parse("out-of-device-memory@frame:3").unwrap());
        assert!(Fault::check(fault, 2).is_ok());
        let error = Fault::check(fault, 3).unwrap_err();
        let wrapped = anyhow::Error::new(WorldRenderError::Gpu(error)).context("drawing");
        let (kind, cause) = FailureKind::find(&wrapped).unwrap();
        assert_eq!(kind, FailureKind::OutOfDeviceMemory);
        assert!(cause.contains("vkQueueSubmit2"), "{cause}");
        let other = anyhow::Error::new(GpuError::Invalid("no".into()));
        assert!(FailureKind::find(&other).is_none());
    }

    #[test]
    fn the_recovery_save_goes_next_to_the_usual_one() {
        assert_eq!(
            recovery_path(Path::new("/saves/home.blockfall")),
            PathBuf::from("/saves/home-recovered.blockfall")
        );
    }

    #[test]
    fn an_error_that_is_not_the_gpus_is_left_alone() {
        let error = recover(anyhow::anyhow!("a script line"), None, 0.0, None);
        assert!(error.downcast_ref::<GpuFailed>().is_none());
    }
}
