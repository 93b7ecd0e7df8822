#version 460
// Terrain from the mesh arenas: per-vertex position and normal in the chunk's padded-grid
// units, moved to the world by the chunk's padded origin and spacing, which come per draw from
// the chunk table (binding 2, one entry per instance: the draw's firstInstance is the chunk's
// draw slot); the sky light of the vertex from the light arena (blended from the chunk's light
// grid when it was meshed or lit again).

#include "terrain.glsl"

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in float light;
// The chunk table's entry of the draw's slot: xyz the padded origin (meters, the world sample
// at grid index 0), w the spacing (2^level meters per grid unit).
layout(location = 3) in vec4 chunk;

layout(location = 0) out vec3 world_position;
layout(location = 1) out vec3 world_normal;
layout(location = 2) out float sky_light;

void main() {
    world_position = position * chunk.w + chunk.xyz;
    world_normal = normal;
    sky_light = light;
    gl_Position = push.view_projection * vec4(world_position, 1.0);
}
