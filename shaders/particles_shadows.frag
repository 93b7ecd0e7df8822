#version 460
// The particles' colour with the sun's shadows (particles_material.glsl, `SHADOWS`).

#define SHADOWS
#include "particles_material.glsl"
