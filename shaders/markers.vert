#version 460
// The block tool's markers: unlit, see-through colours per vertex (the ghost of the block to
// place, the outline of the aimed block, the tint of the blocks that would fall), each vertex
// moved push.eye.w meters toward the eye.

#include "markers.glsl"

layout(location = 0) in vec3 position;
layout(location = 1) in vec4 colour;

layout(location = 0) out vec4 marker_colour;

void main() {
    vec3 toward_eye = push.eye.xyz - position;
    float distance_to_eye = length(toward_eye);
    vec3 moved = position;
    if (distance_to_eye > push.eye.w) {
        moved += toward_eye / distance_to_eye * push.eye.w;
    }
    marker_colour = colour;
    gl_Position = push.view_projection * vec4(moved, 1.0);
}
