#version 460
// The particles' colour, lit without shadows (particles_material.glsl).

#include "particles_material.glsl"
