// A particle's colour (particles.frag, particles_shadows.frag): dust a soft round sprite, a chip
// a small solid square; lit as an upward face in the open is (lighting.glsl), the sun shadowed
// at the particle's middle where the shadows are drawn (`SHADOWS`); blended over the picture,
// depth tested.

#include "particles_push.glsl"
#include "lighting.glsl"

layout(location = 0) in vec4 particle_colour;
layout(location = 1) in vec2 corner;
layout(location = 2) flat in float kind;
layout(location = 3) flat in vec3 centre;

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
    // A particle faces every way: lit as an upward face, the sun a little less.
    vec3 n = vec3(0.0, 1.0, 0.0);
#ifdef SHADOWS
    float sun = sun_visibility(centre, n, push.eye.xyz);
    vec3 light = sun_and_sky_shadowed(n, 1.0, sun, 1.0);
#else
    vec3 light = sun_and_sky(n, 1.0);
#endif
    colour = vec4(particle_colour.rgb * light, alpha);
}
