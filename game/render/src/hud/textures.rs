//! egui's texture changes applied to egui-ash-renderer's textures with frames in flight: new
//! and changed textures uploaded whole (a partial update patched into a CPU copy first), freed
//! ones kept until the frames that may sample them have run.

use std::sync::Arc;

use blockfall_engine::gpu::GpuError;
use egui::epaint::{ImageData, ImageDelta};
use egui::{ColorImage, TextureId};

use super::renderer::HudRenderer;
use super::HudError;

/// When a recording that used something has finished with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum LastUse {
    Never,
    /// In the recording of this number (`FrameRing::recording`), maybe still open.
    Recording(u64),
    /// Once the timeline reaches this value.
    Submitted(u64),
}

impl HudRenderer {
    /// Uses in recordings before `current` have been submitted or abandoned: the latest
    /// submitted value covers them.
    pub(super) fn settle(&mut self, current: u64) {
        let last_submitted = self.device.last_submitted();
        let settle = |last_use: &mut LastUse| {
            if let LastUse::Recording(recording) = *last_use {
                if recording != current {
                    *last_use = LastUse::Submitted(last_submitted);
                }
            }
        };
        self.mesh_uses.iter_mut().for_each(settle);
        self.pending_frees.settle(Some(current), last_submitted);
    }

    /// Frees the textures egui gave up whose frames have finished.
    pub(super) fn free_finished(&mut self) -> Result<(), HudError> {
        if self.pending_frees.is_empty() {
            return Ok(());
        }
        let completed = self.device.completed()?;
        let renderer = &mut self.renderer;
        self.pending_frees
            .release(completed, |ids| -> Result<(), HudError> {
                for id in ids {
                    renderer.free_texture(id)?;
                }
                Ok(())
            })
    }

    /// Applies egui's new and changed textures, each uploaded whole.
    pub(super) fn set_textures(
        &mut self,
        set: impl IntoIterator<Item = (TextureId, impl IntoIterator<Item = ImageDelta>)>,
    ) -> Result<(), HudError> {
        let set: Vec<_> = set.into_iter().collect();
        if set.is_empty() {
            return Ok(());
        }
        // Every submission so far finished: no frame in flight samples a texture replaced below,
        // and what egui freed in those frames can go too.
        self.device.wait_idle()?;
        self.free_finished()?;
        for (id, deltas) in set {
            for delta in deltas {
                let ImageData::Color(part) = &delta.image;
                let whole = match delta.pos {
                    None => part.clone(),
                    Some(pos) => {
                        log::debug!(
                            "hud: egui texture {id:?}: {:?} at {pos:?}, uploaded whole",
                            part.size
                        );
                        let whole = self.images.get_mut(&id).ok_or_else(|| {
                            GpuError::Invalid(format!(
                                "egui updated texture {id:?} before setting it"
                            ))
                        })?;
                        patch(Arc::make_mut(whole), pos, part)?;
                        whole.clone()
                    }
                };
                self.images.insert(id, whole.clone());
                // The engine locks the queue while egui-ash-renderer submits its upload and
                // waits for the queue to idle.
                self.renderer.set_texture(
                    &self.upload_pool,
                    id,
                    &ImageDelta::full(whole, delta.options),
                )?;
            }
        }
        Ok(())
    }
}

/// Writes `part` into `whole` at `pos`.
fn patch(whole: &mut ColorImage, pos: [usize; 2], part: &ColorImage) -> Result<(), GpuError> {
    let [width, height] = whole.size;
    let [part_width, part_height] = part.size;
    if pos[0] + part_width > width || pos[1] + part_height > height {
        return Err(GpuError::Invalid(format!(
            "egui texture update of {part_width}×{part_height} at {pos:?} outside its \
             {width}×{height} texture"
        )));
    }
    for row in 0..part_height {
        let to = (pos[1] + row) * width + pos[0];
        let from = row * part_width;
        whole.pixels[to..to + part_width].copy_from_slice(&part.pixels[from..from + part_width]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::Color32;

    #[test]
    fn a_partial_update_lands_where_egui_put_it() {
        let mut whole = ColorImage::new([4, 3], vec![Color32::BLACK; 12]);
        let part = ColorImage::new([2, 2], vec![Color32::WHITE; 4]);
        patch(&mut whole, [1, 1], &part).unwrap();
        let white: Vec<usize> = (0..12)
            .filter(|&i| whole.pixels[i] == Color32::WHITE)
            .collect();
        assert_eq!(white, [5, 6, 9, 10]);
        assert!(patch(&mut whole, [3, 0], &part).is_err());
    }
}
