#version 460
// Instanced cubes: per-vertex position/normal/uv, per-instance model matrix and material
// (bindless slot of a texture array, layer in it).

#include "scene.glsl"

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 3) in vec4 model_0;
layout(location = 4) in vec4 model_1;
layout(location = 5) in vec4 model_2;
layout(location = 6) in vec4 model_3;
layout(location = 7) in uvec2 material;

layout(location = 0) out vec3 world_normal;
layout(location = 1) out vec2 texture_coordinate;
layout(location = 2) flat out uvec2 material_out;

void main() {
    mat4 model = mat4(model_0, model_1, model_2, model_3);
    gl_Position = push.view_projection * model * vec4(position, 1.0);
    // Models are rotations with a uniform scale: the upper 3x3 turns normals correctly.
    world_normal = mat3(model) * normal;
    // Texture coordinates repeat every meter: the face's 0..1 coordinates times its size along
    // the two directions across it (u runs along axis + 1, v along axis + 2 of the face's axis).
    vec3 scale = vec3(length(model_0.xyz), length(model_1.xyz), length(model_2.xyz));
    int axis = abs(normal.x) > 0.5 ? 0 : (abs(normal.y) > 0.5 ? 1 : 2);
    texture_coordinate = uv * vec2(scale[(axis + 1) % 3], scale[(axis + 2) % 3]);
    material_out = material;
}
