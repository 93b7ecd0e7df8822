#version 460
// The tint's colour as given: linear rgb and alpha (how much of the picture it covers),
// blended over what the frame drew.

layout(push_constant) uniform Tint {
    vec4 colour;
} tint;

layout(location = 0) out vec4 colour;

void main() {
    colour = tint.colour;
}
