//! Pipelines from SPIR-V: graphics (dynamic rendering, no render passes) and compute.

use std::ffi::CStr;
use std::sync::Arc;

use ash::vk;

use super::deferred::Retired;
use super::device::Device;
use super::error::{GpuError, GpuResult, VkResultExt};

const ENTRY_POINT: &CStr = c"main";

/// Which SPIR-V a device takes: 1.6 for Vulkan 1.3 devices, 1.5 for Vulkan 1.2 ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderTarget {
    Vulkan1_3,
    Vulkan1_2,
}

impl ShaderTarget {
    /// The suffix of the library's entries for this target (`build.rs` names them).
    fn suffix(self) -> &'static str {
        match self {
            ShaderTarget::Vulkan1_3 => "",
            ShaderTarget::Vulkan1_2 => "@vulkan1.2",
        }
    }
}

/// The SPIR-V the build script compiled, by file name (`scene.vert`, `fill.comp`, …), for each
/// [`ShaderTarget`].
#[derive(Debug, Clone, Copy)]
pub struct ShaderLibrary {
    entries: &'static [(&'static str, &'static [u8])],
}

impl ShaderLibrary {
    pub const fn new(entries: &'static [(&'static str, &'static [u8])]) -> Self {
        Self { entries }
    }

    /// The words of a shader for a target (`device.shader_target()`), checked to be SPIR-V.
    pub fn get(&self, name: &str, target: ShaderTarget) -> GpuResult<Vec<u32>> {
        let full_name = format!("{name}{}", target.suffix());
        let bytes = self
            .entries
            .iter()
            .find(|(n, _)| *n == full_name)
            .map(|(_, bytes)| *bytes)
            .ok_or_else(|| GpuError::Shader {
                name: name.to_owned(),
                reason: format!(
                    "not among the compiled shaders ({})",
                    self.names().collect::<Vec<_>>().join(", ")
                ),
            })?;
        spirv_words(name, bytes)
    }

    /// The shaders' file names (each is there for every target).
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !n.contains('@'))
    }
}

/// SPIR-V bytes to words, checking the size and the magic number.
pub fn spirv_words(name: &str, bytes: &[u8]) -> GpuResult<Vec<u32>> {
    let words =
        ash::util::read_spv(&mut std::io::Cursor::new(bytes)).map_err(|e| GpuError::Shader {
            name: name.to_owned(),
            reason: e.to_string(),
        })?;
    if words.first() != Some(&0x0723_0203) {
        return Err(GpuError::Shader {
            name: name.to_owned(),
            reason: "not SPIR-V (wrong magic number)".into(),
        });
    }
    Ok(words)
}

/// A pipeline layout: descriptor set layouts and one push-constant range.
pub struct PipelineLayout {
    pub raw: vk::PipelineLayout,
    pub push_constant_stages: vk::ShaderStageFlags,
    device: Arc<Device>,
}

impl PipelineLayout {
    pub fn new(
        device: &Arc<Device>,
        name: &str,
        set_layouts: &[vk::DescriptorSetLayout],
        push_constant_size: u32,
        push_constant_stages: vk::ShaderStageFlags,
    ) -> GpuResult<Self> {
        let limit = device.adapter.limits.max_push_constants_size;
        if push_constant_size > limit {
            return Err(GpuError::Invalid(format!(
                "{name}: {push_constant_size} bytes of push constants, the device allows {limit}"
            )));
        }
        let ranges = [vk::PushConstantRange {
            stage_flags: push_constant_stages,
            offset: 0,
            size: push_constant_size,
        }];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(set_layouts);
        if push_constant_size > 0 {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: valid create info.
        let raw = unsafe { device.raw.create_pipeline_layout(&info, None) }
            .vk("vkCreatePipelineLayout")?;
        device.set_name(raw, &format!("{name}: layout"));
        Ok(Self {
            raw,
            push_constant_stages,
            device: device.clone(),
        })
    }

    /// Records push constants for the layout's stages.
    pub fn push<T: bytemuck::Pod>(&self, command_buffer: vk::CommandBuffer, constants: &T) {
        // SAFETY: the command buffer is recording with a pipeline of this layout; the size was
        // checked against the range when the layout was made (callers push their own struct).
        unsafe {
            self.device.raw.cmd_push_constants(
                command_buffer,
                self.raw,
                self.push_constant_stages,
                0,
                bytemuck::bytes_of(constants),
            )
        };
    }
}

impl Drop for PipelineLayout {
    fn drop(&mut self) {
        self.device.retire(Retired::PipelineLayout(self.raw));
    }
}

/// A vertex buffer binding: `stride` bytes per vertex (or per instance).
pub fn vertex_binding(
    binding: u32,
    stride: usize,
    input_rate: vk::VertexInputRate,
) -> vk::VertexInputBindingDescription {
    vk::VertexInputBindingDescription {
        binding,
        stride: stride as u32,
        input_rate,
    }
}

/// A vertex attribute: shader `location` reads `format` at byte `offset` of `binding`'s element.
pub fn vertex_attribute(
    location: u32,
    binding: u32,
    format: vk::Format,
    offset: u32,
) -> vk::VertexInputAttributeDescription {
    vk::VertexInputAttributeDescription {
        location,
        binding,
        format,
        offset,
    }
}

/// What a graphics pipeline is made of.
#[derive(Debug, Clone)]
pub struct GraphicsPipelineDesc<'a> {
    pub name: &'a str,
    pub vertex: &'a [u32],
    /// Empty: no fragment stage (a depth-only pass, such as a shadow map's).
    pub fragment: &'a [u32],
    pub vertex_bindings: &'a [vk::VertexInputBindingDescription],
    pub vertex_attributes: &'a [vk::VertexInputAttributeDescription],
    pub topology: vk::PrimitiveTopology,
    pub cull_mode: vk::CullModeFlags,
    /// Counter-clockwise is the front in every mesh of the project.
    pub front_face: vk::FrontFace,
    pub polygon_mode: vk::PolygonMode,
    pub color_formats: &'a [vk::Format],
    pub depth_format: Option<vk::Format>,
    pub depth_write: bool,
    /// Alpha blending on every colour target.
    pub blend: bool,
    /// Depth bias added to every fragment's depth (a shadow map's, against acne).
    pub depth_bias: Option<DepthBias>,
}

/// A rasteriser's depth bias: `constant` in units of the depth format's smallest step, plus
/// `slope` times the triangle's depth slope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthBias {
    pub constant: f32,
    pub slope: f32,
}

/// A graphics or compute pipeline.
pub struct Pipeline {
    pub raw: vk::Pipeline,
    pub bind_point: vk::PipelineBindPoint,
    device: Arc<Device>,
}

struct Module<'a> {
    raw: vk::ShaderModule,
    device: &'a Device,
}

impl<'a> Module<'a> {
    fn new(device: &'a Device, name: &str, words: &[u32]) -> GpuResult<Self> {
        let info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: the words were checked to be SPIR-V (ShaderLibrary / spirv_words).
        let raw =
            unsafe { device.raw.create_shader_module(&info, None) }.vk("vkCreateShaderModule")?;
        device.set_name(raw, name);
        Ok(Self { raw, device })
    }
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // SAFETY: modules are only needed while pipelines are created.
        unsafe { self.device.raw.destroy_shader_module(self.raw, None) };
    }
}

impl Pipeline {
    /// A graphics pipeline for dynamic rendering; viewport and scissor are dynamic.
    pub fn graphics(
        device: &Arc<Device>,
        layout: &PipelineLayout,
        desc: &GraphicsPipelineDesc<'_>,
    ) -> GpuResult<Self> {
        let vertex = Module::new(device, &format!("{}: vertex", desc.name), desc.vertex)?;
        let fragment = if desc.fragment.is_empty() {
            None
        } else {
            Some(Module::new(
                device,
                &format!("{}: fragment", desc.name),
                desc.fragment,
            )?)
        };
        let mut stages = vec![vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vertex.raw)
            .name(ENTRY_POINT)];
        if let Some(fragment) = &fragment {
            stages.push(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(fragment.raw)
                    .name(ENTRY_POINT),
            );
        }
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(desc.vertex_bindings)
            .vertex_attribute_descriptions(desc.vertex_attributes);
        let input_assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(desc.topology);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let mut rasterization = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(desc.polygon_mode)
            .cull_mode(desc.cull_mode)
            .front_face(desc.front_face)
            .line_width(1.0);
        if let Some(bias) = desc.depth_bias {
            rasterization = rasterization
                .depth_bias_enable(true)
                .depth_bias_constant_factor(bias.constant)
                .depth_bias_slope_factor(bias.slope);
        }
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let depth = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(desc.depth_format.is_some())
            .depth_write_enable(desc.depth_format.is_some() && desc.depth_write)
            .depth_compare_op(vk::CompareOp::LESS_OR_EQUAL);
        let attachment = if desc.blend {
            vk::PipelineColorBlendAttachmentState::default()
                .blend_enable(true)
                .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
                .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .color_blend_op(vk::BlendOp::ADD)
                .src_alpha_blend_factor(vk::BlendFactor::ONE)
                .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .alpha_blend_op(vk::BlendOp::ADD)
                .color_write_mask(vk::ColorComponentFlags::RGBA)
        } else {
            vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA)
        };
        let attachments = vec![attachment; desc.color_formats.len()];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(desc.color_formats)
            .depth_attachment_format(desc.depth_format.unwrap_or(vk::Format::UNDEFINED));
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&input_assembly)
            .viewport_state(&viewport)
            .rasterization_state(&rasterization)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout.raw)
            .push_next(&mut rendering);
        // SAFETY: every state struct points at locals that outlive the call; dynamic rendering
        // was enabled at device creation.
        let raw = unsafe {
            device
                .raw
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, result)| GpuError::Vulkan {
            call: "vkCreateGraphicsPipelines",
            result,
        })?[0];
        device.set_name(raw, desc.name);
        Ok(Self {
            raw,
            bind_point: vk::PipelineBindPoint::GRAPHICS,
            device: device.clone(),
        })
    }

    /// A compute pipeline.
    pub fn compute(
        device: &Arc<Device>,
        layout: &PipelineLayout,
        name: &str,
        words: &[u32],
    ) -> GpuResult<Self> {
        let module = Module::new(device, &format!("{name}: compute"), words)?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module.raw)
            .name(ENTRY_POINT);
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout.raw);
        // SAFETY: as for graphics; maintenance4 is on for LocalSizeId.
        let raw = unsafe {
            device
                .raw
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, result)| GpuError::Vulkan {
            call: "vkCreateComputePipelines",
            result,
        })?[0];
        device.set_name(raw, name);
        Ok(Self {
            raw,
            bind_point: vk::PipelineBindPoint::COMPUTE,
            device: device.clone(),
        })
    }

    /// Records binding the pipeline.
    pub fn bind(&self, command_buffer: vk::CommandBuffer) {
        // SAFETY: the command buffer is recording.
        unsafe {
            self.device
                .raw
                .cmd_bind_pipeline(command_buffer, self.bind_point, self.raw)
        };
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // Destroyed once no submission that may bind it is running (`super::deferred`).
        self.device.retire(Retired::Pipeline(self.raw));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spirv_words_rejects_what_is_not_spirv() {
        assert!(spirv_words("odd", &[1, 2, 3]).is_err());
        assert!(spirv_words("text", b"not spirv").is_err());
        let mut good = 0x0723_0203u32.to_le_bytes().to_vec();
        good.extend_from_slice(&[0; 16]);
        assert_eq!(spirv_words("good", &good).unwrap().len(), 5);
    }

    #[test]
    fn library_names_what_is_missing() {
        let library = ShaderLibrary::new(&[("a.vert", &[]), ("a.vert@vulkan1.2", &[])]);
        let error = library
            .get("b.frag", ShaderTarget::Vulkan1_3)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("b.frag") && error.contains("a.vert"),
            "{error}"
        );
        assert_eq!(library.names().collect::<Vec<_>>(), ["a.vert"]);
        // Found for both targets, then refused: empty bytes are not SPIR-V.
        for target in [ShaderTarget::Vulkan1_3, ShaderTarget::Vulkan1_2] {
            let error = library.get("a.vert", target).unwrap_err().to_string();
            assert!(error.contains("magic"), "{error}");
        }
    }
}
