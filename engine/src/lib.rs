//! blockfall's engine: reusable parts that know nothing of the game.
//!
//! - [`gpu`]: the Vulkan backend (instance, device, memory, bindless textures, pipelines,
//!   frames in flight, swapchain, offscreen targets, debug names and the validation canary).

pub mod gpu;
