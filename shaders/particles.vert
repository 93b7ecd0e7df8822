#version 460
// The particles drawn: one quad (two triangles, six vertices) per particle of the ring, facing
// the eye; a particle with no time left is moved out of the picture. Dust grows as it fades.
// Lit in particles_material.glsl.

#include "particles.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Particles { Particle particles[]; };

#include "particles_push.glsl"

layout(location = 0) out vec4 particle_colour;
layout(location = 1) out vec2 corner;
layout(location = 2) flat out float kind;
// Where the particle is (its middle), for the sun's shadow there.
layout(location = 3) flat out vec3 centre;

const vec2 CORNERS[6] = vec2[](
    vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
    vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0)
);

void main() {
    Particle p = particles[gl_InstanceIndex];
    float left = p.position_life.w;
    if (left <= 0.0) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        particle_colour = vec4(0.0);
        corner = vec2(0.0);
        kind = 0.0;
        centre = vec3(0.0);
        return;
    }
    float age = 1.0 - left / max(p.floor_life.y, 1e-3);
    bool dust = p.colour_kind.a < 0.5;
    float size = p.velocity_size.w * (dust ? 1.0 + 1.5 * age : 1.0);
    vec2 c = CORNERS[gl_VertexIndex % 6];
    vec3 position = p.position_life.xyz + (push.right.xyz * c.x + push.up.xyz * c.y) * size * 0.5;
    gl_Position = push.view_projection * vec4(position, 1.0);
    float fade = dust ? (1.0 - age) * 0.55 : min(1.0, left * 2.0);
    // Unlit: the fragment shader lights it (the sun, shadowed where the shadows are drawn).
    particle_colour = vec4(p.colour_kind.rgb, fade);
    corner = c;
    kind = p.colour_kind.a;
    centre = p.position_life.xyz;
}
