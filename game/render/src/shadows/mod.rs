//! The sun's shadows: cascaded shadow maps drawn from the terrain, the blocks and the pieces
//! before the frame's other passes, and sampled by the terrain's and the blocks' materials.
//!
//! ```text
//!   pass "shadow cascade 0"   the atlas's tile 0 cleared; the casters that may shade the first
//!   …                         slice of the view drawn, depth only (terrain chunks, block
//!   pass "shadow cascade N-1" regions, every piece near enough: one indirect draw)
//!   (graph)                   the atlas: depth attachment → sampled, for the passes after
//!   pass "terrain", "blocks", "pieces"   the `*_shadows.frag` materials: set 1 = the atlas
//!                             (sampler2DShadow) and this frame's [`ShadowBlock`]
//! ```
//!
//! * **One atlas**: the cascades side by side in one depth image (cascade k in the k-th tile of
//!   its width), so the materials sample one texture and the frame graph tracks one image:
//!   each cascade's pass keeps the tiles before it (its clear is limited to its own tile).
//! * **Where the cascades lie** ([`cascades`]): slices of the view up to where the shadows end,
//!   each enclosed in a sphere and seen from the sun on whole texels — stable as the view turns
//!   and moves.
//! * **No acne, no peter-panning**: the lookup moves the point off its surface along the normal
//!   by a texel and a half of its cascade (more where the sun grazes), and the casters are drawn
//!   with a small slope-scaled depth bias; no large constant bias lifts a shadow off the foot of
//!   what casts it.
//! * **Filtered**: each lookup compares a bilinear 2×2 (`sampler2DShadow`); `High` takes 3×3 of
//!   them a texel apart.
//! * **Culled**: a cascade draws the casters whose box, swept away from the sun down to the
//!   lowest receiver of its slice of the view, meets that slice ([`cascades::CasterCull`]), not
//!   everything in its window; dark terrain chunks (no sky light: closed caves, deep ground) are
//!   left out, as the ground above them shades whatever they would.
//! * **Off** ([`Shadows::Off`]) records no shadow pass and draws the materials without
//!   `SHADOWS`: the picture as it was before shadows existed, pixel for pixel.
//!
//! The sun's direction is one value, [`SUN_TOWARD`]: the shadows' and (through the uniform
//! block) the shadowed materials' lighting; `lighting.glsl`'s constant for the unshadowed
//! materials is held equal to it by a test.

pub mod cascades;
mod casters;

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, BufferAccess, DepthSampling, DepthSamplingLayout, FrameRing, Gpu, GpuResult, Image,
    ImageDesc, Load, Sampled,
};
use blockfall_engine::meshing::TerrainMeshes;
use ultraviolet::Vec3;

use self::cascades::{cascades, splits, Cascade, CasterCull};
use super::structures::blocks::BlocksRenderer;
use super::structures::pieces::PiecesRenderer;
use super::target::DEPTH_FORMAT;
use blockfall_game::camera::Camera;
use blockfall_game::pieces::Pieces;
use blockfall_game::terrain::chunks::ChunkCoord;

pub use blockfall_game::settings::Shadows;
use casters::{receiver_floor, Gathered, TerrainCasters};
pub use casters::{CasterPipelines, ShadowPush};

/// Toward the sun (before normalising): up, to the right of the first view (which looks north,
/// −z) and a little behind it, so that the slope ahead is lit. `lighting.glsl`'s `SUN_TOWARD`.
pub const SUN_TOWARD: [f32; 3] = [0.55, 0.75, 0.35];

/// The unit vector toward the sun.
pub fn sun_toward() -> Vec3 {
    Vec3::from(SUN_TOWARD).normalized()
}

/// The most cascades a quality uses (the uniform block's arrays).
pub const MAX_CASCADES: usize = 4;

/// The name of cascade `k`'s pass (label and timing): `shadow cascade k`.
pub fn pass_name(k: usize) -> String {
    format!("shadow cascade {k}")
}

/// What a quality draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub cascades: usize,
    /// Texels along a tile's side.
    pub texels: u32,
    /// Filter taps along a side: 1 or 3.
    pub taps: u32,
    /// Where the shadows end, meters from the eye (at most the fog's distance).
    pub end: f32,
}

impl Plan {
    /// The plan of `quality`; `None` for [`Shadows::Off`].
    pub fn of(quality: Shadows) -> Option<Self> {
        match quality {
            Shadows::Off => None,
            Shadows::Low => Some(Self {
                cascades: 3,
                texels: 1024,
                taps: 1,
                end: 100.0,
            }),
            Shadows::High => Some(Self {
                cascades: 4,
                texels: 1536,
                taps: 3,
                end: 128.0,
            }),
        }
    }
}

/// How far before their end the shadows fade out, as a share of the distance.
const FADE_SHARE: f32 = 0.1;

/// The uniform block of the shadowed materials (`lighting.glsl`'s `ShadowBlock`, std140):
/// 352 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ShadowBlock {
    /// World → each cascade's clip space.
    pub cascades: [[f32; 16]; MAX_CASCADES],
    /// x: meters per texel of each cascade.
    pub texel: [[f32; 4]; MAX_CASCADES],
    /// xyz: toward the sun (unit); w: the number of cascades.
    pub sun: [f32; 4],
    /// x: texels along a tile's side; y: where the shadows end; z: the fade's length; w: taps.
    pub params: [f32; 4],
}

impl ShadowBlock {
    fn new(plan: &Plan, all: &[Cascade], end: f32) -> Self {
        let mut block: Self = bytemuck::Zeroable::zeroed();
        for (k, cascade) in all.iter().enumerate().take(MAX_CASCADES) {
            block.cascades[k].copy_from_slice(cascade.matrix.as_slice());
            block.texel[k] = [cascade.meters_per_texel, 0.0, 0.0, 0.0];
        }
        let sun = sun_toward();
        block.sun = [sun.x, sun.y, sun.z, all.len().min(MAX_CASCADES) as f32];
        block.params = [plan.texels as f32, end, end * FADE_SHARE, plan.taps as f32];
        block
    }
}

/// The atlas and its sets for one quality.
struct Atlas {
    plan: Plan,
    image: Image,
    sampling: DepthSampling,
}

/// The sun's shadow maps and the passes that draw them.
pub struct ShadowMaps {
    device: Arc<gpu::Device>,
    layout: Arc<DepthSamplingLayout>,
    casters: CasterPipelines,
    atlas: Option<Atlas>,
    /// Triangles the last frame's cascades drew, all together.
    triangles_last_frame: u64,
}

impl ShadowMaps {
    /// The casters' pipelines and the set layout the shadowed materials are made with; no
    /// atlas until a frame asks for shadows.
    pub fn new(gpu: &Gpu, shaders: &gpu::ShaderLibrary) -> GpuResult<Self> {
        let layout =
            DepthSamplingLayout::new(&gpu.device, "shadow maps", vk::ShaderStageFlags::FRAGMENT)?;
        Ok(Self {
            device: gpu.device.clone(),
            layout,
            casters: CasterPipelines::new(gpu, shaders)?,
            atlas: None,
            triangles_last_frame: 0,
        })
    }

    /// The layout of set 1 of the shadowed materials.
    pub fn set_layout(&self) -> vk::DescriptorSetLayout {
        self.layout.raw
    }

    /// Triangles the last frame's cascades drew, all together.
    pub fn triangles_last_frame(&self) -> u64 {
        self.triangles_last_frame
    }

    /// Bytes of the atlas now held (0 with shadows off).
    pub fn atlas_bytes(&self) -> u64 {
        self.atlas.as_ref().map_or(0, |atlas| {
            u64::from(atlas.image.width) * u64::from(atlas.image.height) * 4
        })
    }

    /// Records the cascades' passes of `view` at `quality` into the frame being recorded, and
    /// returns the set the shadowed materials bind as set 1; `None` (and nothing recorded) for
    /// [`Shadows::Off`] or a view without cascades. The atlas is made, or made again, when the
    /// quality changes.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        quality: Shadows,
        view: &Camera,
        scene: Casters<'_>,
    ) -> GpuResult<Option<Sampled>> {
        self.triangles_last_frame = 0;
        let Some(plan) = Plan::of(quality) else {
            // Its memory goes once the frames that may sample it have run.
            self.atlas = None;
            return Ok(None);
        };
        if self.atlas.as_ref().map(|atlas| atlas.plan) != Some(plan) {
            self.atlas = Some(self.make_atlas(plan)?);
        }
        let end = plan.end.min(view.fog_distance);
        let sun = sun_toward();
        let Some(all) = cascades(view, sun, &splits(plan.cascades, end), plan.texels) else {
            return Ok(None);
        };
        let device = self.device.clone();
        let Some(atlas) = self.atlas.as_mut() else {
            return Ok(None);
        };
        // Every piece whose shadow may fall within the shadows' reach, once for all cascades.
        let pieces = scene.pieces.casters(
            frames,
            scene.world_pieces,
            view.eye,
            end + cascades::CASTER_REACH,
        )?;
        let gathered = Gathered {
            terrain: TerrainCasters::of(&scene),
            pieces,
        };
        // Kept from frame to frame: an earlier frame in flight may still sample it, and the
        // graph starts each frame's first cascade from that.
        frames.keep(&atlas.image);
        for (k, cascade) in all.iter().enumerate() {
            let tile = vk::Rect2D {
                offset: vk::Offset2D {
                    x: (k as u32 * plan.texels) as i32,
                    y: 0,
                },
                extent: vk::Extent2D {
                    width: plan.texels,
                    height: plan.texels,
                },
            };
            // Each cascade clears its own tile and keeps the tiles drawn before it; the first
            // starts the rest of the atlas from nothing.
            let name = pass_name(k);
            let mut pass = frames
                .pass(&name)
                .depth(&atlas.image, Load::Clear(1.0))
                .tile(tile, k > 0)
                .reads(&[
                    BufferAccess::IndirectRead,
                    BufferAccess::IndexRead,
                    BufferAccess::VertexAttributeRead,
                ])
                .draw(&device)?;
            let cull = CasterCull::of(cascade, view, sun);
            let cull = match receiver_floor(&cull, &gathered.terrain, &scene) {
                Some(floor) => cull.with_floor(floor),
                None => cull,
            };
            self.triangles_last_frame += self
                .casters
                .draw(&mut pass, frames, cascade, &cull, &scene, &gathered)?;
            drop(pass);
        }
        // Handed to the passes that sample it: each declares it (`PassBuilder::samples`).
        let block = ShadowBlock::new(&plan, &all, end);
        let set = atlas.sampling.write(frames.slot(), &block)?;
        Ok(Some(Sampled::of(&atlas.image, set)))
    }

    fn make_atlas(&self, plan: Plan) -> GpuResult<Atlas> {
        let image = Image::new(
            &self.device,
            &ImageDesc {
                name: &format!(
                    "shadow atlas: {} cascades of {}²",
                    plan.cascades, plan.texels
                ),
                format: DEPTH_FORMAT,
                width: plan.texels * plan.cascades as u32,
                height: plan.texels,
                layers: 1,
                mips: 1,
                usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
                view_type: vk::ImageViewType::TYPE_2D,
            },
        )?;
        let sampling = DepthSampling::new(
            &self.layout,
            "shadow atlas",
            image.view,
            std::mem::size_of::<ShadowBlock>() as u64,
        )?;
        Ok(Atlas {
            plan,
            image,
            sampling,
        })
    }
}

/// What casts shadows in a frame.
pub struct Casters<'a> {
    pub terrain: &'a TerrainMeshes,
    /// Whether a terrain chunk is dark (no sky light reaches it): it neither casts nor receives
    /// the sun's shadows (`ChunkStream::is_dark`).
    pub dark: &'a dyn Fn(ChunkCoord) -> bool,
    pub blocks: &'a BlocksRenderer,
    pub pieces: &'a PiecesRenderer,
    pub world_pieces: &'a Pieces,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uniform_block_has_the_shaders_layout() {
        assert_eq!(std::mem::size_of::<ShadowBlock>(), 352);
        assert_eq!(std::mem::size_of::<ShadowPush>(), 80);
    }

    #[test]
    fn the_sun_is_one_direction_for_the_shadows_and_the_unshadowed_lighting() {
        let lighting = include_str!("../../../../shaders/lighting.glsl");
        let [x, y, z] = SUN_TOWARD;
        let constant = format!("const vec3 SUN_TOWARD = normalize(vec3({x}, {y}, {z}));");
        assert!(
            lighting.contains(&constant),
            "lighting.glsl's SUN_TOWARD is not {SUN_TOWARD:?}: expected `{constant}`"
        );
    }

    #[test]
    fn plans_grow_with_the_quality_and_fit_the_uniform_block() {
        assert_eq!(Plan::of(Shadows::Off), None);
        let low = Plan::of(Shadows::Low).unwrap();
        let high = Plan::of(Shadows::High).unwrap();
        assert!(low.texels < high.texels && low.cascades <= high.cascades);
        for plan in [low, high] {
            assert!(plan.cascades <= MAX_CASCADES);
            assert!(plan.taps % 2 == 1);
        }
    }
}
