#version 460
// The terrain's material (terrain_material.glsl), without shadows or occlusion (the `shadows: Off` setting).

#extension GL_EXT_nonuniform_qualifier : require

#include "terrain_material.glsl"
