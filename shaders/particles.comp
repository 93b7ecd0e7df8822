#version 460
// The particles' update, pass "particles update": this frame's new particles written into the
// ring from its spawn buffer (the oldest give way: the ring's next slots), every other live
// particle moved on by dt: gravity (a little for dust, which drifts), drag, a bounce on its
// floor; its time left counts down.

#include "particles.glsl"

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Particles { Particle particles[]; };
layout(std430, set = 0, binding = 1) readonly buffer Spawns { Particle spawns[]; };

layout(push_constant) uniform Push {
    // x: dt (seconds), y: gravity (m/s², downward)
    vec4 step;
    // x: particles in the ring, y: the first slot of this frame's spawns, z: how many spawns,
    // w: 1 to clear the whole ring (the first frame)
    uvec4 counts;
} push;

void main() {
    uint slot = gl_GlobalInvocationID.x;
    uint count = push.counts.x;
    if (slot >= count) {
        return;
    }
    if (push.counts.w != 0u) {
        particles[slot] = Particle(vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    }
    uint spawn = (slot + count - push.counts.y) % count;
    if (spawn < push.counts.z) {
        particles[slot] = spawns[spawn];
        return;
    }
    Particle p = particles[slot];
    float left = p.position_life.w;
    if (left <= 0.0) {
        return;
    }
    float dt = push.step.x;
    bool dust = p.colour_kind.a < 0.5;
    vec3 velocity = p.velocity_size.xyz;
    velocity.y -= push.step.y * (dust ? 0.08 : 1.0) * dt;
    velocity *= exp(-p.floor_life.z * dt);
    vec3 position = p.position_life.xyz + velocity * dt;
    if (position.y < p.floor_life.x) {
        // On its floor: chips bounce low and slide to a stop; dust settles.
        position.y = p.floor_life.x;
        velocity.y = dust ? 0.0 : -velocity.y * 0.3;
        velocity.xz *= dust ? 0.5 : 0.6;
    }
    p.position_life = vec4(position, max(left - dt, 0.0));
    p.velocity_size.xyz = velocity;
    particles[slot] = p;
}
