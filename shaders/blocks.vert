#version 460
// Blocks from the region arenas: positions already in the world (meters, the grid's frame),
// texture coordinates projected from the grid by the block mesher, the material's layer, the
// sky light baked per vertex on the CPU (the world's light at the vertex) and the ambient
// occlusion worked out on the CPU (game::blocks::occlusion: 1 open, 0.4 darkest).

#include "blocks.glsl"

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 3) in uint layer;
layout(location = 4) in float light;
layout(location = 5) in float occlusion;

layout(location = 0) out vec3 world_position;
layout(location = 1) out vec3 world_normal;
layout(location = 2) out vec2 texture_coordinate;
layout(location = 3) flat out uint material_layer;
layout(location = 4) out float sky_light;
layout(location = 5) out float vertex_occlusion;

void main() {
    world_position = position;
    world_normal = normal;
    texture_coordinate = uv;
    material_layer = layer;
    sky_light = light;
    vertex_occlusion = occlusion;
    gl_Position = push.view_projection * vec4(position, 1.0);
}
