#version 460
// The blocks into a cascade of the sun's shadow map: depth only; their vertices are in the
// world already.

#include "shadow.glsl"

layout(location = 0) in vec3 position;

void main() {
    gl_Position = push.cascade * vec4(position, 1.0);
}
