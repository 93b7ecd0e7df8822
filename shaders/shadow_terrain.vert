#version 460
// The terrain into a cascade of the sun's shadow map: depth only, the chunk's vertices moved to
// the world by its padded origin and level (as terrain.vert does).

#include "shadow.glsl"

layout(location = 0) in vec3 position;

void main() {
    gl_Position = push.cascade * vec4(position * float(1 << push.origin.w) + vec3(push.origin.xyz), 1.0);
}
