#version 460
// Terrain from the mesh arenas: per-vertex position and normal in the chunk's padded-grid
// units, moved to the world by the chunk's padded origin; the sky light of the vertex from the
// light arena (blended from the chunk's light grid when it was meshed or lit again).

#include "terrain.glsl"

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in float light;

layout(location = 0) out vec3 world_position;
layout(location = 1) out vec3 world_normal;
layout(location = 2) out float sky_light;

void main() {
    world_position = position * float(1 << (push.chunk.w >> 16)) + vec3(push.chunk.xyz);
    world_normal = normal;
    sky_light = light;
    gl_Position = push.view_projection * vec4(world_position, 1.0);
}
