//! Dust and debris on the GPU: where a block breaks, a piece strikes or splits, or the ground is
//! dug, a burst of particles in the material's colour (soil for the ground): small chips that
//! fly, fall and bounce on the ground where they were thrown, and soft dust that drifts, grows
//! and fades. Their number and speed grow with the blow's impulse.
//!
//! ```text
//!   blows (CPU) ─ emit ─▶ spawns (the frame slot's host-visible buffer, at most MOST_SPAWNS)
//!   pass "particles update" (compute): spawns written into the ring's next slots (the oldest
//!        give way), every live particle moved on by dt           ComputeRead → ComputeWrite
//!   pass "particles" (draw): one camera-facing quad per slot, depth tested, not written,
//!        blended after the markers; lit by the sky and the sun    VertexShaderRead
//! ```
//!
//! The ring holds the budget (the `particles` setting): at most that many live at once, the
//! oldest first out. The CPU knows when each burst dies, so it counts the live particles
//! without reading the GPU back ([`ParticlesRenderer::live`]).

use std::collections::VecDeque;
use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::descriptors::BufferSetLayout;
use blockfall_engine::gpu::{
    self, Buffer, BufferAccess, BufferDesc, FrameRing, GpuResult, GraphicsPipelineDesc, Image,
    Load, MemoryLocation, Pipeline, PipelineLayout, Sampled, ShaderLibrary, FRAMES_IN_FLIGHT,
};
use blockfall_game::blocks::materials::MATERIALS;
use blockfall_game::camera::Camera;
use blockfall_game::world::{Blow, BlowKind};
use blockfall_physics::random::Rng;

use crate::target::{RenderTarget, DEPTH_FORMAT};

/// The name of the compute pass.
pub const UPDATE_PASS_NAME: &str = "particles update";
/// The name of the draw pass.
pub const PASS_NAME: &str = "particles";
/// The particles a frame may start (more are left out, the least blows' first).
pub const MOST_SPAWNS: usize = 2048;
/// The default budget: live particles at once.
pub const DEFAULT_BUDGET: u32 = 8192;
/// The largest budget a setting may ask for.
pub const MOST_BUDGET: u32 = 65_536;
/// Soil's colour (sRGB), for the ground's dust.
pub const SOIL: [u8; 3] = [0x6b, 0x55, 0x3d];
/// Gravity, m/s² (as the physics').
const GRAVITY: f32 = 9.81;
/// Invocations per workgroup of `particles.comp`.
const WORKGROUP: u32 = 64;

/// One particle as the shaders read it (`shaders/particles.glsl`): 64 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuParticle {
    /// xyz: position (meters); w: seconds left.
    pub position_life: [f32; 4],
    /// xyz: velocity (m/s); w: size (meters across).
    pub velocity_size: [f32; 4],
    /// rgb: linear colour; a: 0 dust, 1 a chip.
    pub colour_kind: [f32; 4],
    /// x: the floor's height; y: the seconds it had at first; z: its drag (1/s).
    pub floor_life: [f32; 4],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct UpdatePush {
    step: [f32; 4],
    counts: [u32; 4],
}

/// `shaders/particles_push.glsl`: 112 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct DrawPush {
    view_projection: [f32; 16],
    right: [f32; 4],
    up: [f32; 4],
    eye: [f32; 4],
}

/// A draw pipeline and its layout.
struct DrawPipeline {
    layout: PipelineLayout,
    pipeline: Pipeline,
}

/// An sRGB channel as linear light.
fn linear(channel: u8) -> f32 {
    let c = f32::from(channel) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// How many chips and how much dust a blow throws, and how fast (m/s), from its kind and
/// impulse (N·s): the count grows with the logarithm of the impulse.
pub fn burst_of(blow: &Blow) -> (usize, usize, f32) {
    if !blow.impulse.is_finite() || blow.impulse <= 0.0 {
        return (0, 0, 0.0);
    }
    let strength = (blow.impulse.max(1.0).log10() - 1.0).max(0.0);
    let (chips, dust, speed) = match blow.kind {
        BlowKind::Break => (10.0 + 4.0 * strength, 8.0 + 3.0 * strength, 2.5),
        BlowKind::Strike => (3.0 * strength, 5.0 * strength, 0.6 + 0.5 * strength),
        BlowKind::Split => (6.0 + 3.0 * strength, 6.0 + 3.0 * strength, 2.0),
        BlowKind::Dig | BlowKind::Build => (4.0, 10.0 + 3.0 * strength, 1.5),
        BlowKind::Step | BlowKind::Landing => (0.0, 0.0, 0.0),
    };
    (chips as usize, dust as usize, speed)
}

/// The particles of `blow`, their randomness from `rng`.
pub fn particles_of(blow: &Blow, rng: &mut Rng) -> Vec<GpuParticle> {
    let (chips, dust, speed) = burst_of(blow);
    let colour_of = |material: Option<usize>| {
        material
            .and_then(|material| MATERIALS.get(material))
            .map_or(SOIL, |material| material.colour)
            .map(linear)
    };
    // Chips of what broke or struck; dust of that too, and of what it struck (soil from the
    // ground).
    let (chip_colour, dust_colour) = (colour_of(blow.material), colour_of(blow.surface));
    let mut unit = || rng.unit() as f32;
    let mut particles = Vec::with_capacity(chips + dust);
    let floor = blow.at[1] - 0.5;
    for index in 0..chips + dust {
        let chip = index < chips;
        // A direction over the upper half-sphere, a little below the horizon too.
        let yaw = unit() * std::f32::consts::TAU;
        let up = unit() * 1.2 - 0.2;
        let flat = (1.0 - up * up).max(0.0).sqrt();
        let pace = speed * (0.4 + 0.8 * unit()) * if chip { 1.0 } else { 0.4 };
        let velocity = [yaw.cos() * flat * pace, up * pace, yaw.sin() * flat * pace];
        let spread = 0.25;
        let at = [
            blow.at[0] + (unit() - 0.5) * spread,
            blow.at[1] + (unit() - 0.5) * spread,
            blow.at[2] + (unit() - 0.5) * spread,
        ];
        let shade = 0.8 + 0.35 * unit();
        // Half the dust of a strike rises from what it struck.
        let colour = if chip || index % 2 == 0 {
            chip_colour
        } else {
            dust_colour
        };
        let life = if chip {
            1.2 + 0.8 * unit()
        } else {
            1.5 + 1.5 * unit()
        };
        let size = if chip {
            0.05 + 0.06 * unit()
        } else {
            0.25 + 0.25 * unit()
        };
        particles.push(GpuParticle {
            position_life: [at[0], at[1], at[2], life],
            velocity_size: [velocity[0], velocity[1], velocity[2], size],
            colour_kind: [
                colour[0] * shade,
                colour[1] * shade,
                colour[2] * shade,
                if chip { 1.0 } else { 0.0 },
            ],
            floor_life: [floor, life, if chip { 0.3 } else { 1.8 }, 0.0],
        });
    }
    particles
}

/// The ring's buffers and sets for one budget.
struct Ring {
    /// The particles (GPU only), `budget` of them; the sets read it.
    _particles: Buffer,
    /// Each frame slot's spawns (host-visible).
    spawns: Vec<Buffer>,
    _update_sets: BufferSetLayout,
    update_sets: Vec<vk::DescriptorSet>,
    _draw_sets: BufferSetLayout,
    draw_set: vk::DescriptorSet,
    budget: u32,
}

/// The particles: their pipelines, the ring, this frame's spawns and the live count.
pub struct ParticlesRenderer {
    device: Arc<gpu::Device>,
    _update_layout_sets: BufferSetLayout,
    update_layout: PipelineLayout,
    update: Pipeline,
    _draw_layout_sets: BufferSetLayout,
    /// Lit without shadows.
    draw: DrawPipeline,
    /// Lit with the sun's shadows (set 1: the shadow maps'), where they are made.
    shadowed: Option<DrawPipeline>,
    ring: Option<Ring>,
    /// The ring's next slot.
    next: u32,
    /// The particles started this frame, not yet recorded.
    pending: Vec<GpuParticle>,
    /// The ring's slots must be cleared (made anew).
    clear: bool,
    /// When each burst dies (seconds on this renderer's clock) and its size.
    deaths: VecDeque<(f32, u32)>,
    clock: f32,
    rng: Rng,
    /// Particles started since the renderer was made (for tests and the HUD).
    started: u64,
}

impl ParticlesRenderer {
    /// The pipelines and a ring of `budget` particles (0: none are drawn); with
    /// `shadow_layout` (the shadow maps' set layout) also the variant lit with the sun's
    /// shadows.
    pub fn new(
        gpu: &mut gpu::Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        shadow_layout: Option<vk::DescriptorSetLayout>,
        budget: u32,
    ) -> GpuResult<Self> {
        let device = gpu.device.clone();
        let target = device.shader_target();
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let update_layout_sets = BufferSetLayout::new(
            &device,
            "particles update",
            &[storage, storage],
            vk::ShaderStageFlags::COMPUTE,
            1,
        )?;
        let update_layout = PipelineLayout::new(
            &device,
            "particles update",
            &[update_layout_sets.raw],
            std::mem::size_of::<UpdatePush>() as u32,
            vk::ShaderStageFlags::COMPUTE,
        )?;
        let words = shaders.get("particles.comp", target)?;
        let update = Pipeline::compute(&device, &update_layout, "particles update", &words)?;
        let draw_layout_sets = BufferSetLayout::new(
            &device,
            "particles",
            &[storage],
            vk::ShaderStageFlags::VERTEX,
            1,
        )?;
        let vertex = shaders.get("particles.vert", target)?;
        let colour_formats = [colour_format];
        let draw_pipeline = |name: &str, sets: &[vk::DescriptorSetLayout], fragment: &str| {
            let layout = PipelineLayout::new(
                &device,
                name,
                sets,
                std::mem::size_of::<DrawPush>() as u32,
                vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
            )?;
            let fragment = shaders.get(fragment, target)?;
            let pipeline = Pipeline::graphics(
                &device,
                &layout,
                &GraphicsPipelineDesc {
                    name,
                    vertex: &vertex,
                    fragment: &fragment,
                    vertex_bindings: &[],
                    vertex_attributes: &[],
                    topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                    cull_mode: vk::CullModeFlags::NONE,
                    front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                    polygon_mode: vk::PolygonMode::FILL,
                    color_formats: &colour_formats,
                    depth_format: Some(DEPTH_FORMAT),
                    depth_write: false,
                    blend: true,
                    depth_bias: None,
                },
            )?;
            Ok::<_, gpu::GpuError>(DrawPipeline { layout, pipeline })
        };
        let draw = draw_pipeline("particles", &[draw_layout_sets.raw], "particles.frag")?;
        let shadowed = match shadow_layout {
            Some(shadow_layout) => Some(draw_pipeline(
                "particles: shadowed",
                &[draw_layout_sets.raw, shadow_layout],
                "particles_shadows.frag",
            )?),
            None => None,
        };
        let mut renderer = Self {
            device,
            _update_layout_sets: update_layout_sets,
            update_layout,
            update,
            _draw_layout_sets: draw_layout_sets,
            draw,
            shadowed,
            ring: None,
            next: 0,
            pending: Vec::new(),
            clear: true,
            deaths: VecDeque::new(),
            clock: 0.0,
            rng: Rng::new(0x5eed_d057),
            started: 0,
        };
        renderer.set_budget(budget)?;
        Ok(renderer)
    }

    /// The budget: at most this many particles live at once (0: none). A new budget makes the
    /// ring anew (the particles alive go).
    pub fn set_budget(&mut self, budget: u32) -> GpuResult<()> {
        let budget = budget.min(MOST_BUDGET);
        if self.ring.as_ref().map_or(0, |ring| ring.budget) == budget {
            return Ok(());
        }
        // Dropping the old buffers retires them until the frames that read them have run.
        self.ring = None;
        self.next = 0;
        self.deaths.clear();
        self.clear = true;
        if budget == 0 {
            return Ok(());
        }
        let bytes = std::mem::size_of::<GpuParticle>() as u64;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let particles = Buffer::new(
            &self.device,
            &BufferDesc {
                name: "particles: ring",
                size: u64::from(budget) * bytes,
                usage: storage,
                location: MemoryLocation::GpuOnly,
            },
        )?;
        let update_sets = BufferSetLayout::new(
            &self.device,
            "particles update sets",
            &[vk::DescriptorType::STORAGE_BUFFER; 2],
            vk::ShaderStageFlags::COMPUTE,
            FRAMES_IN_FLIGHT as u32,
        )?;
        let draw_sets = BufferSetLayout::new(
            &self.device,
            "particles sets",
            &[vk::DescriptorType::STORAGE_BUFFER],
            vk::ShaderStageFlags::VERTEX,
            1,
        )?;
        let mut spawns = Vec::with_capacity(FRAMES_IN_FLIGHT);
        let mut sets = Vec::with_capacity(FRAMES_IN_FLIGHT);
        for frame in 0..FRAMES_IN_FLIGHT {
            let buffer = Buffer::new(
                &self.device,
                &BufferDesc {
                    name: &format!("particles: spawns, frame {frame}"),
                    size: MOST_SPAWNS as u64 * bytes,
                    usage: storage,
                    location: MemoryLocation::CpuToGpu,
                },
            )?;
            sets.push(update_sets.allocate(
                &format!("particles update: set, frame {frame}"),
                &[&particles, &buffer],
            )?);
            spawns.push(buffer);
        }
        let draw_set = draw_sets.allocate("particles: set", &[&particles])?;
        self.ring = Some(Ring {
            _particles: particles,
            spawns,
            _update_sets: update_sets,
            update_sets: sets,
            _draw_sets: draw_sets,
            draw_set,
            budget,
        });
        Ok(())
    }

    /// The budget (0: particles off).
    pub fn budget(&self) -> u32 {
        self.ring.as_ref().map_or(0, |ring| ring.budget)
    }

    /// Particles alive now (as the CPU counts them: each burst until its longest life ends, at
    /// most the budget).
    pub fn live(&self) -> u32 {
        let alive: u32 = self.deaths.iter().map(|&(_, count)| count).sum();
        alive.min(self.budget())
    }

    /// Particles started since the renderer was made.
    pub fn started(&self) -> u64 {
        self.started
    }

    /// Starts the bursts of `blows` this frame (at most [`MOST_SPAWNS`] particles a frame).
    pub fn emit(&mut self, blows: &[Blow]) {
        if self.budget() == 0 {
            return;
        }
        for blow in blows {
            let room = MOST_SPAWNS.min(self.budget() as usize) - self.pending.len();
            if room == 0 {
                break;
            }
            let mut burst = particles_of(blow, &mut self.rng);
            burst.truncate(room);
            if burst.is_empty() {
                continue;
            }
            let longest = burst
                .iter()
                .map(|particle| particle.floor_life[1])
                .fold(0.0, f32::max);
            self.deaths
                .push_back((self.clock + longest, burst.len() as u32));
            self.started += burst.len() as u64;
            self.pending.extend(burst);
        }
    }

    /// Records the pass "particles update": this frame's bursts written into the ring, every
    /// particle moved on by `dt` seconds. Call it before the frame's draw passes.
    pub fn record_update(&mut self, frames: &mut FrameRing, dt: f32) -> GpuResult<()> {
        let dt = if dt.is_finite() {
            dt.clamp(0.0, 0.1)
        } else {
            0.0
        };
        self.clock += dt;
        let clock = self.clock;
        while self
            .deaths
            .front()
            .is_some_and(|&(death, _)| death <= clock)
        {
            self.deaths.pop_front();
        }
        let slot = frames.slot();
        let Some(ring) = self.ring.as_mut() else {
            self.pending.clear();
            return Ok(());
        };
        let spawns = std::mem::take(&mut self.pending);
        if !spawns.is_empty() {
            // The frame ring waited for this slot's last frame before `begin`: its spawn
            // buffer is out of use.
            ring.spawns[slot].write(0, &spawns)?;
        }
        let push = UpdatePush {
            step: [dt, GRAVITY, 0.0, 0.0],
            counts: [
                ring.budget,
                self.next,
                spawns.len() as u32,
                u32::from(self.clear),
            ],
        };
        self.next = (self.next + spawns.len() as u32) % ring.budget;
        self.clear = false;
        let set = ring.update_sets[slot];
        let device = self.device.clone();
        let mut pass = frames
            .pass(UPDATE_PASS_NAME)
            .reads(&[BufferAccess::ComputeRead])
            .writes(&[BufferAccess::ComputeWrite])
            .compute(&device)?;
        pass.bind_pipeline(&self.update)?;
        pass.bind_set_at(&self.update_layout, 0, set);
        pass.push(&self.update_layout, &push);
        pass.dispatch([ring.budget.div_ceil(WORKGROUP), 1, 1])?;
        Ok(())
    }

    /// Records the pass "particles": every slot of the ring drawn as a quad facing `view`'s
    /// eye, over what `target` and `depth` hold (after the markers), lit as the ground in the
    /// open is; with `shadows` (the shadow maps' set of this frame) the sun shadowed.
    pub fn record_draw(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        depth: &Image,
        view: &Camera,
        shadows: Option<Sampled>,
    ) -> GpuResult<()> {
        let Some(ring) = self.ring.as_ref() else {
            return Ok(());
        };
        if self.deaths.is_empty() {
            // Nothing alive: nothing to draw (the pass is still named for a capture).
            return Ok(());
        }
        let inverse = view.view_projection.inversed();
        let right = (inverse * ultraviolet::Vec4::new(1.0, 0.0, 0.0, 0.0)).xyz();
        let up = (inverse * ultraviolet::Vec4::new(0.0, -1.0, 0.0, 0.0)).xyz();
        let (right, up) = (right.normalized(), up.normalized());
        let mut view_projection = [0.0; 16];
        view_projection.copy_from_slice(view.view_projection.as_slice());
        let push = DrawPush {
            view_projection,
            right: [right.x, right.y, right.z, 0.0],
            up: [up.x, up.y, up.z, 0.0],
            eye: [view.eye.x, view.eye.y, view.eye.z, view.fog_distance],
        };
        let shadowed = self.shadowed.as_ref().zip(shadows);
        let samples: Vec<Sampled> = shadowed.iter().map(|(_, sampled)| *sampled).collect();
        let device = self.device.clone();
        let mut pass = frames
            .pass(PASS_NAME)
            .draws_into(&target, Load::Keep)
            .depth(depth, Load::Keep)
            .samples(&samples)
            .reads(&[BufferAccess::VertexShaderRead])
            .draw(&device)?;
        let draw = match shadowed {
            Some((draw, sampled)) => {
                pass.bind_pipeline(&draw.pipeline);
                pass.bind_set_at(&draw.layout, 1, sampled.set);
                draw
            }
            None => {
                pass.bind_pipeline(&self.draw.pipeline);
                &self.draw
            }
        };
        pass.bind_set_at(&draw.layout, 0, ring.draw_set);
        pass.push(&draw.layout, &push);
        pass.draw(0..6, 0..ring.budget);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blow(kind: BlowKind, impulse: f32) -> Blow {
        Blow {
            kind,
            at: [1.0, 2.0, 3.0],
            material: Some(5),
            surface: Some(5),
            impulse,
        }
    }

    #[test]
    fn a_harder_blow_throws_more_in_its_material() {
        let mut rng = Rng::new(1);
        let light = particles_of(&blow(BlowKind::Strike, 500.0), &mut rng);
        let heavy = particles_of(&blow(BlowKind::Strike, 50_000.0), &mut rng);
        assert!(heavy.len() > light.len(), "{} {}", heavy.len(), light.len());
        let copper = MATERIALS[5].colour.map(linear);
        for particle in &heavy {
            let [r, g, b, _] = particle.colour_kind;
            // The material's colour, shaded a little.
            assert!((r / copper[0] - g / copper[1]).abs() < 1e-3, "{particle:?}");
            assert!((r / copper[0] - b / copper[2]).abs() < 1e-3, "{particle:?}");
            assert!(particle.position_life[3] > 0.0 && particle.floor_life[1] > 0.0);
            let at = particle.position_life;
            assert!((at[0] - 1.0).abs() < 0.2 && (at[2] - 3.0).abs() < 0.2);
        }
        let broken = particles_of(&blow(BlowKind::Break, 100.0), &mut rng);
        assert!(broken.len() >= 18, "a break always shows: {}", broken.len());
        let dug = particles_of(
            &Blow {
                material: None,
                surface: None,
                ..blow(BlowKind::Dig, 5_000.0)
            },
            &mut rng,
        );
        let soil = SOIL.map(linear);
        assert!(dug
            .iter()
            .all(|p| (p.colour_kind[0] / soil[0] - p.colour_kind[2] / soil[2]).abs() < 1e-3));
        assert!(particles_of(&blow(BlowKind::Step, 1e6), &mut rng).is_empty());
        assert!(particles_of(&blow(BlowKind::Strike, f32::NAN), &mut rng).is_empty());
    }

    #[test]
    fn a_particle_is_sixty_four_bytes() {
        assert_eq!(std::mem::size_of::<GpuParticle>(), 64);
    }
}
