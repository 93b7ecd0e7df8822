#version 460
// The blocks' and pieces' material (blocks_material.glsl), without shadows or occlusion (the `shadows: Off` setting).

#extension GL_EXT_nonuniform_qualifier : require

#include "blocks_material.glsl"
