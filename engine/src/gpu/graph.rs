//! The frame graph: a frame's draw passes declare the images they draw into (and whether they
//! keep what is there) and how they read buffers, and the barriers before each pass are
//! derived from those declarations and from what the frame did before it, with the narrowest
//! stages and accesses the declarations allow. The frame ends with its target handed on the
//! same way (presented, or copied out for a readback).
//!
//! ```text
//!   FrameRing::begin          images: nothing known; buffers: what earlier submissions wrote
//!   │                         (copies, compute) not yet seen by this frame
//!   ├ cull     compute: reads storage, writes storage (the terrain's visible draws)
//!   │          → one memory barrier copies + compute → storage reads and writes; its writes
//!   │            are now the frame's newest, seen by no read
//!   ├ terrain  colour, depth cleared; reads vertices, indices, indirect commands
//!   │          → image barriers Undefined → attachment; one memory barrier copies + compute
//!   │            (the cull's writes among them) → those reads
//!   ├ blocks   colour, depth kept; reads vertices, indices
//!   │          → attachment → attachment (the earlier pass's writes first); no memory barrier:
//!   │            the writes were made visible to these reads already
//!   ├ …
//!   └ end      colour attachment → Present (or → transfer source for a readback)
//! ```
//!
//! A compute pass recorded inside the frame declares its reads and writes
//! ([`FrameGraph::derive_compute`]); a draw pass declares images and reads only.
//!
//! Passes are recorded in the order they are declared (the game orders them); the graph does
//! not reorder or cull, it only derives what must stand between them. The derivation
//! ([`FrameGraph::derive`]) is a pure function of the declarations, tested on its own; the
//! frame ring records what it derives ([`super::FrameRing::declare_pass`]).

use ash::vk;

use super::barrier::{memory_barrier, BufferAccess};
use super::device::Device;
use super::error::{GpuError, GpuResult};
use super::image::{image_barrier, ImageAccess};

/// How a pass uses an image.
#[derive(Debug, Clone, Copy)]
pub struct ImageUse {
    pub image: vk::Image,
    pub range: vk::ImageSubresourceRange,
    /// What the pass does with it: draws into it (`ColorAttachment`, `DepthAttachment`),
    /// samples it, copies from it.
    pub access: ImageAccess,
    /// Whether the pass needs what earlier passes left in it (an attachment loaded, not
    /// cleared). An image the frame has not used yet can only be kept when its state was
    /// declared ([`FrameGraph::import`]).
    pub keep: bool,
}

impl Kept {
    fn new(image: vk::Image, id: u64) -> Self {
        Kept {
            image,
            id,
            left: None,
            kept_now: true,
            used_in: 0,
        }
    }
}

/// A barrier the graph derived.
#[derive(Debug, Clone)]
pub enum Derived {
    /// An image from one use to the next (a layout transition where the layouts differ).
    Image {
        image: vk::Image,
        range: vk::ImageSubresourceRange,
        from: ImageAccess,
        to: ImageAccess,
    },
    /// Buffer writes made visible to the reads that follow.
    Memory {
        from: Vec<BufferAccess>,
        to: Vec<BufferAccess>,
    },
}

impl PartialEq for Derived {
    fn eq(&self, other: &Self) -> bool {
        let same_range = |a: &vk::ImageSubresourceRange, b: &vk::ImageSubresourceRange| {
            (
                a.aspect_mask,
                a.base_mip_level,
                a.level_count,
                a.base_array_layer,
                a.layer_count,
            ) == (
                b.aspect_mask,
                b.base_mip_level,
                b.level_count,
                b.base_array_layer,
                b.layer_count,
            )
        };
        match (self, other) {
            (
                Derived::Image {
                    image,
                    range,
                    from,
                    to,
                },
                Derived::Image {
                    image: other_image,
                    range: other_range,
                    from: other_from,
                    to: other_to,
                },
            ) => {
                image == other_image
                    && same_range(range, other_range)
                    && from == other_from
                    && to == other_to
            }
            (
                Derived::Memory { from, to },
                Derived::Memory {
                    from: other_from,
                    to: other_to,
                },
            ) => from == other_from && to == other_to,
            _ => false,
        }
    }
}

/// What the graph knows of the frame being recorded.
#[derive(Debug, Clone)]
pub struct FrameGraph {
    /// Each image's last use this frame.
    images: Vec<(vk::Image, ImageAccess)>,
    /// Buffer writes this frame's passes may read that no barrier has covered for every read
    /// yet: at the start, what earlier submissions wrote (uploads' copies, compute meshing).
    written: Vec<BufferAccess>,
    /// The reads a barrier already made those writes visible to.
    seen_by: Vec<BufferAccess>,
    /// Images kept from frame to frame ([`FrameGraph::keep`]).
    kept: Vec<Kept>,
}

/// An image kept from frame to frame, and what the frames did with it.
#[derive(Debug, Clone, Copy)]
struct Kept {
    image: vk::Image,
    /// The image's [`super::Image::id`]: a later image with the same handle is another.
    id: u64,
    /// The state the last submitted frame that used it left it in.
    left: Option<ImageAccess>,
    /// Whether the frame being recorded said it keeps the image.
    kept_now: bool,
    /// The last submitted frame that used it.
    used_in: u64,
}

impl Default for FrameGraph {
    fn default() -> Self {
        let mut graph = FrameGraph {
            images: Vec::new(),
            written: Vec::new(),
            seen_by: Vec::new(),
            kept: Vec::new(),
        };
        graph.begin_frame();
        graph
    }
}

/// What earlier submissions on the queue may have written to buffers a frame draws from: the
/// uploads' copies and the compute meshing.
const EARLIER_WRITES: [BufferAccess; 2] = [BufferAccess::TransferWrite, BufferAccess::ComputeWrite];

impl FrameGraph {
    /// A new frame: of its images, only the kept ones known (in the state the last submitted
    /// frame left them in), and what earlier submissions wrote not yet seen by any of its
    /// reads.
    pub fn begin_frame(&mut self) {
        self.images.clear();
        self.written.clear();
        self.written.extend_from_slice(&EARLIER_WRITES);
        self.seen_by.clear();
        for kept in &mut self.kept {
            kept.kept_now = false;
        }
        for index in 0..self.kept.len() {
            let kept = self.kept[index];
            if let Some(left) = kept.left {
                self.set(kept.image, left);
            }
        }
    }

    /// Says that `image` (with its unique `id`) is kept from frame to frame: a depth target
    /// drawn into every frame, the shadow atlas. Once a frame that used it was submitted, each
    /// frame starts it in the state that frame left it in, so that its first barrier waits for
    /// the frames still in flight (from nothing, it would wait for nothing). A new image with
    /// the handle of one destroyed starts from nothing. Call it each frame that uses the image,
    /// before its first pass.
    pub fn keep(&mut self, image: vk::Image, id: u64) {
        match self.kept.iter_mut().find(|kept| kept.image == image) {
            Some(kept) if kept.id == id => kept.kept_now = true,
            Some(kept) => {
                *kept = Kept::new(image, id);
                self.images.retain(|(known, _)| *known != image);
            }
            None => self.kept.push(Kept::new(image, id)),
        }
    }

    /// The frame `number` was submitted: the kept images it used remember the state it left
    /// them in; those no frame used for [`super::FRAMES_IN_FLIGHT`] frames are forgotten (no
    /// frame in flight uses them, so the next use may start from nothing).
    pub fn end_frame(&mut self, number: u64) {
        for index in 0..self.kept.len() {
            let kept = self.kept[index];
            if kept.kept_now {
                if let Some(left) = self.last_use(kept.image) {
                    self.kept[index].left = Some(left);
                    self.kept[index].used_in = number;
                }
            }
        }
        self.kept
            .retain(|kept| kept.used_in + super::FRAMES_IN_FLIGHT as u64 > number);
    }

    /// Declares the state an image starts the frame in (one whose contents a pass keeps
    /// without an earlier pass of the frame having drawn them).
    pub fn import(&mut self, image: vk::Image, access: ImageAccess) {
        self.set(image, access);
    }

    /// The image's last use this frame, if it had one.
    pub fn last_use(&self, image: vk::Image) -> Option<ImageAccess> {
        self.images
            .iter()
            .find(|(known, _)| *known == image)
            .map(|&(_, access)| access)
    }

    /// The barriers before a pass that uses `images` and reads buffers as `reads`, and the
    /// frame's state after it:
    /// - an image from its last use (or, not kept, from nothing) to this one, unless both are
    ///   the same read (sampling after sampling needs nothing); an attachment drawn into again
    ///   gets a barrier too, so that the earlier pass's writes come first;
    /// - the buffer writes not yet made visible to one of `reads`, made visible to all of
    ///   them, in one memory barrier.
    pub fn derive(
        &mut self,
        images: &[ImageUse],
        reads: &[BufferAccess],
    ) -> GpuResult<Vec<Derived>> {
        self.derive_pass(images, reads, &[])
    }

    /// The barriers before a compute pass that reads buffers as `reads` and writes them as
    /// `writes` (`ComputeWrite`), and the frame's state after it: the buffer writes not yet
    /// made visible to one of its reads made visible to its reads and writes (so that its
    /// writes also come after earlier writes); its own writes are then the frame's newest, not
    /// yet visible to any read, so the next pass that reads buffers (a draw pass reading the
    /// commands the compute pass wrote as indirect commands, say) gets a barrier from them.
    ///
    /// What the graph does not track is a write after a read of the same buffer in the same
    /// frame: a compute pass writes buffers that no earlier pass of its frame read (its frame
    /// slot's own buffers, whose earlier frame the CPU waited for in `FrameRing::begin`).
    pub fn derive_compute(
        &mut self,
        reads: &[BufferAccess],
        writes: &[BufferAccess],
    ) -> GpuResult<Vec<Derived>> {
        self.derive_pass(&[], reads, writes)
    }

    fn derive_pass(
        &mut self,
        images: &[ImageUse],
        reads: &[BufferAccess],
        writes: &[BufferAccess],
    ) -> GpuResult<Vec<Derived>> {
        let mut derived = Vec::new();
        for used in images {
            let from = match (self.last_use(used.image), used.keep) {
                (Some(last), true) => last,
                // Its contents are not needed: nothing to wait for but earlier uses of this
                // frame, whose writes a layout change from "nothing" would still race.
                (Some(last), false) => last,
                (None, false) => ImageAccess::Undefined,
                (None, true) => {
                    return Err(GpuError::Invalid(format!(
                        "a pass keeps image {:?} as {:?}, but the frame has not drawn it and \
                         its state was not declared",
                        used.image, used.access
                    )))
                }
            };
            let read_again = from == used.access && used.access == ImageAccess::ShaderRead;
            if !read_again {
                derived.push(Derived::Image {
                    image: used.image,
                    range: used.range,
                    from,
                    to: used.access,
                });
            }
            self.set(used.image, used.access);
        }
        let unseen = reads.iter().any(|read| !self.seen_by.contains(read))
            || writes.iter().any(|write| !self.seen_by.contains(write));
        if !self.written.is_empty() && unseen {
            let mut to = reads.to_vec();
            to.extend(writes.iter().filter(|write| !reads.contains(write)));
            derived.push(Derived::Memory {
                from: self.written.clone(),
                to: to.clone(),
            });
            for access in to {
                if !self.seen_by.contains(&access) {
                    self.seen_by.push(access);
                }
            }
        }
        if !writes.is_empty() {
            // The pass's writes are seen by no read yet.
            for write in writes {
                if !self.written.contains(write) {
                    self.written.push(*write);
                }
            }
            self.seen_by.clear();
        }
        Ok(derived)
    }

    /// The barrier that hands `image` on at the end of the frame (to the presentation engine,
    /// or to a copy for a readback) from its last use.
    pub fn hand_on(
        &mut self,
        image: vk::Image,
        range: vk::ImageSubresourceRange,
        to: ImageAccess,
    ) -> GpuResult<Derived> {
        let from = self.last_use(image).ok_or_else(|| {
            GpuError::Invalid(format!(
                "image {image:?} handed on as {to:?}, but no pass of the frame used it"
            ))
        })?;
        self.set(image, to);
        Ok(Derived::Image {
            image,
            range,
            from,
            to,
        })
    }

    fn set(&mut self, image: vk::Image, access: ImageAccess) {
        match self.images.iter_mut().find(|(known, _)| *known == image) {
            Some((_, last)) => *last = access,
            None => self.images.push((image, access)),
        }
    }
}

/// Records `derived` into `command_buffer`.
pub fn record(device: &Device, command_buffer: vk::CommandBuffer, derived: &[Derived]) {
    for barrier in derived {
        match barrier {
            Derived::Image {
                image,
                range,
                from,
                to,
            } => image_barrier(device, command_buffer, *image, *range, *from, *to),
            Derived::Memory { from, to } => memory_barrier(device, command_buffer, from, to),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::FRAMES_IN_FLIGHT;
    use super::*;
    use ash::vk::Handle;

    fn colour_range() -> vk::ImageSubresourceRange {
        super::super::image::full_range(vk::Format::R8G8B8A8_SRGB, 1, 1)
    }

    fn depth_range() -> vk::ImageSubresourceRange {
        super::super::image::full_range(vk::Format::D32_SFLOAT, 1, 1)
    }

    fn target() -> vk::Image {
        vk::Image::from_raw(1)
    }

    fn depth() -> vk::Image {
        vk::Image::from_raw(2)
    }

    fn attachments(keep: bool) -> [ImageUse; 2] {
        [
            ImageUse {
                image: target(),
                range: colour_range(),
                access: ImageAccess::ColorAttachment,
                keep,
            },
            ImageUse {
                image: depth(),
                range: depth_range(),
                access: ImageAccess::DepthAttachment,
                keep,
            },
        ]
    }

    const MESH_READS: [BufferAccess; 2] =
        [BufferAccess::VertexAttributeRead, BufferAccess::IndexRead];

    #[test]
    fn a_frame_of_passes_gets_the_barriers_the_passes_wrote_by_hand() {
        let mut graph = FrameGraph::default();
        // The terrain: both attachments cleared, its meshes read.
        let terrain_reads = [
            BufferAccess::IndirectRead,
            BufferAccess::IndexRead,
            BufferAccess::VertexAttributeRead,
        ];
        let first = graph.derive(&attachments(false), &terrain_reads).unwrap();
        assert_eq!(
            first,
            vec![
                Derived::Image {
                    image: target(),
                    range: colour_range(),
                    from: ImageAccess::Undefined,
                    to: ImageAccess::ColorAttachment
                },
                Derived::Image {
                    image: depth(),
                    range: depth_range(),
                    from: ImageAccess::Undefined,
                    to: ImageAccess::DepthAttachment
                },
                Derived::Memory {
                    from: EARLIER_WRITES.to_vec(),
                    to: terrain_reads.to_vec()
                },
            ]
        );
        // The blocks: both kept (the terrain's writes first), their reads already seen.
        let second = graph.derive(&attachments(true), &MESH_READS).unwrap();
        assert_eq!(second.len(), 2);
        assert!(second.iter().all(|barrier| matches!(
            barrier,
            Derived::Image { from, to, .. } if from == to
        )));
        // The HUD: colour only, a read the frame has not made visible yet (storage in the
        // vertex shader) gets its own memory barrier.
        let hud = graph
            .derive(&attachments(true)[..1], &[BufferAccess::VertexShaderRead])
            .unwrap();
        assert!(
            matches!(hud.last(), Some(Derived::Memory { to, .. }) if to == &[BufferAccess::VertexShaderRead])
        );
        // The end: presented from the last use.
        let end = graph
            .hand_on(target(), colour_range(), ImageAccess::Present)
            .unwrap();
        assert_eq!(
            end,
            Derived::Image {
                image: target(),
                range: colour_range(),
                from: ImageAccess::ColorAttachment,
                to: ImageAccess::Present
            }
        );
    }

    #[test]
    fn a_new_frame_forgets_its_images_and_sees_earlier_writes_again() {
        let mut graph = FrameGraph::default();
        graph.derive(&attachments(false), &MESH_READS).unwrap();
        assert!(graph.derive(&attachments(true), &MESH_READS).unwrap().len() == 2);
        graph.begin_frame();
        assert_eq!(graph.last_use(target()), None);
        let again = graph.derive(&attachments(false), &MESH_READS).unwrap();
        assert!(matches!(again.last(), Some(Derived::Memory { .. })));
    }

    #[test]
    fn keeping_an_image_the_frame_has_not_drawn_is_an_error_unless_declared() {
        let mut graph = FrameGraph::default();
        assert!(graph.derive(&attachments(true)[..1], &[]).is_err());
        assert!(graph
            .hand_on(target(), colour_range(), ImageAccess::Present)
            .is_err());
        graph.import(target(), ImageAccess::TransferSrc);
        let kept = graph.derive(&attachments(true)[..1], &[]).unwrap();
        assert_eq!(
            kept,
            vec![Derived::Image {
                image: target(),
                range: colour_range(),
                from: ImageAccess::TransferSrc,
                to: ImageAccess::ColorAttachment
            }]
        );
    }

    #[test]
    fn a_compute_pass_writing_draws_orders_them_before_the_draw_pass_reading_them() {
        let mut graph = FrameGraph::default();
        let draw_reads = [
            BufferAccess::IndirectRead,
            BufferAccess::IndexRead,
            BufferAccess::VertexAttributeRead,
        ];
        // A shadow pass first: the earlier submissions' writes made visible to its reads.
        graph.derive(&[], &draw_reads).unwrap();
        // The cull: its storage reads have not seen the earlier writes, and its writes come
        // after them.
        let cull = graph
            .derive_compute(&[BufferAccess::ComputeRead], &[BufferAccess::ComputeWrite])
            .unwrap();
        assert_eq!(
            cull,
            vec![Derived::Memory {
                from: EARLIER_WRITES.to_vec(),
                to: vec![BufferAccess::ComputeRead, BufferAccess::ComputeWrite],
            }]
        );
        // The draw pass reads what the cull wrote, though its reads saw the earlier writes.
        let draw = graph.derive(&attachments(false), &draw_reads).unwrap();
        assert_eq!(
            draw.last(),
            Some(&Derived::Memory {
                from: EARLIER_WRITES.to_vec(),
                to: draw_reads.to_vec(),
            })
        );
        assert!(EARLIER_WRITES.contains(&BufferAccess::ComputeWrite));
        // A pass after it reading the same way needs no second barrier.
        let blocks = graph.derive(&attachments(true), &MESH_READS).unwrap();
        assert!(!blocks
            .iter()
            .any(|barrier| matches!(barrier, Derived::Memory { .. })));
        // A second compute pass reading the first's writes waits for them.
        let mut graph = FrameGraph::default();
        graph
            .derive_compute(&[BufferAccess::ComputeRead], &[BufferAccess::ComputeWrite])
            .unwrap();
        let again = graph
            .derive_compute(&[BufferAccess::ComputeRead], &[])
            .unwrap();
        assert_eq!(again.len(), 1, "{again:?}");
    }

    #[test]
    fn sampling_after_sampling_needs_no_barrier() {
        let mut graph = FrameGraph::default();
        let texture = ImageUse {
            image: vk::Image::from_raw(7),
            range: colour_range(),
            access: ImageAccess::ShaderRead,
            keep: true,
        };
        graph.import(texture.image, ImageAccess::ShaderRead);
        assert!(graph.derive(&[texture], &[]).unwrap().is_empty());
    }

    #[test]
    fn a_kept_image_starts_each_frame_as_the_last_submitted_frame_left_it() {
        let mut graph = FrameGraph::default();
        let depth_use = |keep| ImageUse {
            image: depth(),
            range: depth_range(),
            access: ImageAccess::DepthAttachment,
            keep,
        };
        // Frame 0: the depth image is new; its first pass starts it from nothing.
        graph.begin_frame();
        graph.keep(depth(), 7);
        graph.derive(&[depth_use(false)], &[]).unwrap();
        graph.end_frame(0);
        // Frame 1 starts it as frame 0 left it: its first barrier waits for frame 0's writes.
        graph.begin_frame();
        assert_eq!(graph.last_use(depth()), Some(ImageAccess::DepthAttachment));
        graph.keep(depth(), 7);
        graph.derive(&[depth_use(false)], &[]).unwrap();
        // An abandoned frame (never ended) changes nothing.
        graph.begin_frame();
        assert_eq!(graph.last_use(depth()), Some(ImageAccess::DepthAttachment));
        // A new image with the same handle starts from nothing.
        graph.keep(depth(), 8);
        assert_eq!(graph.last_use(depth()), None);
        graph.derive(&[depth_use(false)], &[]).unwrap();
        graph.end_frame(1);
        // Unused for as many frames as are in flight, it is forgotten.
        for number in 2..2 + FRAMES_IN_FLIGHT as u64 {
            graph.begin_frame();
            assert!(graph.last_use(depth()).is_some(), "frame {number}");
            graph.end_frame(number);
        }
        graph.begin_frame();
        assert_eq!(graph.last_use(depth()), None);
    }
}
