// The blocks' material, for blocks and pieces alike: the materials' texture array of the
// bindless table, sampled at the mesher's grid-projected coordinates (one repeat per meter) in
// the block's layer; lit by the sun and the sky and fogged like the terrain (lighting.glsl).

#include "blocks.glsl"
#include "lighting.glsl"

layout(set = 0, binding = 0) uniform sampler material_sampler;
layout(set = 0, binding = 1) uniform texture2DArray textures[];

layout(location = 0) in vec3 world_position;
layout(location = 1) in vec3 world_normal;
layout(location = 2) in vec2 texture_coordinate;
layout(location = 3) flat in uint material_layer;
layout(location = 4) in float sky_light;
#ifdef SHADOWS
// How open the vertex is to the sky's light, 0 to 1 (the block mesher's occlusion).
layout(location = 5) in float vertex_occlusion;
#endif

layout(location = 0) out vec4 colour;

void main() {
    // The array's slot is the same for the whole draw (uniform).
    vec3 albedo = texture(
        sampler2DArray(textures[push.material.x], material_sampler),
        vec3(texture_coordinate, float(material_layer))
    ).rgb;
    vec3 n = normalize(world_normal);
#ifdef SHADOWS
    vec3 lit = albedo * sun_and_sky_shadowed(n, sky_light,
        sun_visibility(world_position, n, push.camera.xyz), vertex_occlusion);
#else
    vec3 lit = albedo * sun_and_sky(n, sky_light);
#endif
    colour = vec4(fogged(lit, world_position, push.camera, push.sky.rgb), 1.0);
}
