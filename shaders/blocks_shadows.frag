#version 460
// The blocks' and pieces' material (blocks_material.glsl), with the sun's shadows and the occlusion (lighting.glsl, `SHADOWS`).

#extension GL_EXT_nonuniform_qualifier : require

#define SHADOWS
#include "blocks_material.glsl"
