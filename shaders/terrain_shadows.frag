#version 460
// The terrain's material (terrain_material.glsl), with the sun's shadows and the occlusion (lighting.glsl, `SHADOWS`).

#extension GL_EXT_nonuniform_qualifier : require

#define SHADOWS
#include "terrain_material.glsl"
