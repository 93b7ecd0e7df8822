#version 460
// Pieces from the piece arenas: each piece's mesh in its own frame (the grid positions its
// blocks had), turned and moved by its body. The body comes from the instance stream, one
// element per piece, chosen by the draw's firstInstance: world = R(q) (local - centre) + position.
// A piece is lit by one sky light, the light where it broke off (instance w); its ambient
// occlusion (per vertex, from its own blocks) was worked out on the CPU.

#include "blocks.glsl"

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 3) in uint layer;
layout(location = 4) in float light;
layout(location = 5) in float occlusion;
// The body's orientation, a unit quaternion (x, y, z, w).
layout(location = 6) in vec4 rotation;
// xyz: where the body's middle is in the world; w: the piece's sky light.
layout(location = 7) in vec4 position_light;
// xyz: the body's middle in its own frame.
layout(location = 8) in vec4 centre;

layout(location = 0) out vec3 world_position;
layout(location = 1) out vec3 world_normal;
layout(location = 2) out vec2 texture_coordinate;
layout(location = 3) flat out uint material_layer;
layout(location = 4) out float sky_light;
layout(location = 5) out float vertex_occlusion;

// v turned by the unit quaternion q.
vec3 turn(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

void main() {
    world_position = turn(rotation, position - centre.xyz) + position_light.xyz;
    world_normal = turn(rotation, normal);
    texture_coordinate = uv;
    material_layer = layer;
    // The vertex stream's light is 1 for pieces; the piece's own light scales it.
    sky_light = light * position_light.w;
    vertex_occlusion = occlusion;
    gl_Position = push.view_projection * vec4(world_position, 1.0);
}
