#version 460
// A material layer from the bindless table, lit by the sun and the sky. The texture array is
// picked per instance, so within one draw the index is not uniform: nonuniformEXT.

#extension GL_EXT_nonuniform_qualifier : require

#include "scene.glsl"

layout(set = 0, binding = 0) uniform sampler material_sampler;
layout(set = 0, binding = 1) uniform texture2DArray textures[];

layout(location = 0) in vec3 world_normal;
layout(location = 1) in vec2 texture_coordinate;
layout(location = 2) flat in uvec2 material;

layout(location = 0) out vec4 colour;

void main() {
    vec3 albedo = texture(
        sampler2DArray(textures[nonuniformEXT(material.x)], material_sampler),
        vec3(texture_coordinate, float(material.y))
    ).rgb;
    vec3 n = normalize(world_normal);
    float facing = max(dot(n, push.sun_direction.xyz), 0.0);
    vec3 light = push.sun_colour.rgb * facing + push.ambient_colour.rgb;
    colour = vec4(albedo * light, 1.0);
}
