//! `--renderdoc-capture-frame N`: when the process runs under RenderDoc (`renderdoccmd capture`),
//! frame N is captured through the in-app API. Without RenderDoc the flag says so and the run
//! goes on.

use std::ptr;

use renderdoc::{RenderDoc, V141};

/// Captures one frame when RenderDoc is injected.
pub struct FrameCapture {
    renderdoc: Option<RenderDoc<V141>>,
    frame: Option<u64>,
    capturing: bool,
    captured: bool,
}

impl FrameCapture {
    /// Looks for an injected RenderDoc if a frame is asked for.
    pub fn new(frame: Option<u64>) -> Self {
        let renderdoc = frame.and_then(|n| match RenderDoc::<V141>::new() {
            Ok(renderdoc) => {
                log::info!("RenderDoc found: frame {n} will be captured");
                Some(renderdoc)
            }
            Err(error) => {
                eprintln!(
                    "--renderdoc-capture-frame {n}: RenderDoc is not injected ({error}); going on \
                     without a capture. Run under RenderDoc, e.g. `renderdoccmd capture -w -c \
                     PREFIX target/release/blockfall --headless --frames 5 \
                     --renderdoc-capture-frame 3`"
                );
                None
            }
        });
        Self {
            renderdoc,
            frame,
            capturing: false,
            captured: false,
        }
    }

    /// Call before recording frame `number`.
    pub fn frame_starts(&mut self, number: u64) {
        if self.frame == Some(number) {
            if let Some(renderdoc) = &mut self.renderdoc {
                // Null device and window: RenderDoc's wildcard for "the one device".
                renderdoc.start_frame_capture(ptr::null(), ptr::null());
                self.capturing = true;
            }
        }
    }

    /// Call after submitting (and presenting) the frame.
    pub fn frame_ends(&mut self) {
        if self.capturing {
            if let Some(renderdoc) = &mut self.renderdoc {
                renderdoc.end_frame_capture(ptr::null(), ptr::null());
                let path = renderdoc
                    .get_capture(renderdoc.get_num_captures().saturating_sub(1))
                    .map(|(path, _)| path.display().to_string())
                    .unwrap_or_else(|| "RenderDoc's capture folder".into());
                println!("RenderDoc capture written: {path}");
                self.captured = true;
            }
            self.capturing = false;
        }
    }

    /// Whether a capture was made.
    pub fn captured(&self) -> bool {
        self.captured
    }
}
