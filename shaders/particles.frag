#version 460
// A particle's colour: dust a soft round sprite, a chip a small solid square; blended over the
// picture, depth tested.

layout(location = 0) in vec4 particle_colour;
layout(location = 1) in vec2 corner;
layout(location = 2) flat in float kind;

layout(location = 0) out vec4 colour;

void main() {
    float alpha = particle_colour.a;
    if (kind < 0.5) {
        float r = dot(corner, corner);
        if (r > 1.0) {
            discard;
        }
        alpha *= (1.0 - r) * (1.0 - r);
    }
    if (alpha <= 0.002) {
        discard;
    }
    colour = vec4(particle_colour.rgb, alpha);
}
