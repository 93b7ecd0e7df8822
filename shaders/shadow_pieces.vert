#version 460
// The pieces into a cascade of the sun's shadow map: depth only, each mesh under its body's
// transform from the instance stream (world = R(q) (local - centre) + position, as
// pieces.vert does).

#include "shadow.glsl"
#include "turn.glsl"

layout(location = 0) in vec3 position;
// The body's orientation, a unit quaternion (x, y, z, w).
layout(location = 1) in vec4 rotation;
// xyz: where the body's middle is in the world; w: the piece's sky light (unused here).
layout(location = 2) in vec4 position_light;
// xyz: the body's middle in its own frame.
layout(location = 3) in vec4 centre;

void main() {
    vec3 world = turn(rotation, position - centre.xyz) + position_light.xyz;
    gl_Position = push.cascade * vec4(world, 1.0);
}
