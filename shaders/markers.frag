#version 460
// The markers' colour as given: linear rgb and alpha, blended over the picture.

#include "markers.glsl"

layout(location = 0) in vec4 marker_colour;

layout(location = 0) out vec4 colour;

void main() {
    colour = marker_colour;
}
