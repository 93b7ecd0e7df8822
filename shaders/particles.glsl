// The particles' shared layout (particles.comp, particles.vert): one particle is four vec4s,
// 64 bytes (game/render/src/particles/mod.rs, `GpuParticle`).
//   position_life: xyz the position (meters), w the seconds it has left (0: none)
//   velocity_size: xyz the velocity (m/s), w its size (meters across)
//   colour_kind:   rgb linear colour, a: 0 dust (a soft, slow, drifting sprite), 1 a chip
//   floor_life:    x the height it rests on, y the seconds it had at first, z its drag (1/s)

struct Particle {
    vec4 position_life;
    vec4 velocity_size;
    vec4 colour_kind;
    vec4 floor_life;
};
