// The terrain material: triplanar texturing from the terrain texture array of the bindless
// table (grass, dirt, rock, sand), layers chosen by slope and height with smooth blends; lit by
// the sun and the sky; fogged into the sky colour with distance.

#include "terrain.glsl"
#include "lighting.glsl"

layout(set = 0, binding = 0) uniform sampler material_sampler;
layout(set = 0, binding = 1) uniform texture2DArray textures[];

layout(location = 0) in vec3 world_position;
layout(location = 1) in vec3 world_normal;
// How much of the open sky reaches this point, 0 (deep in a cave) to 1 (under the open sky):
// the CPU workers' light grid of the chunk, blended at the vertices by the compute pass that
// fills the light arena, and between them by the rasteriser.
layout(location = 2) in float sky_light;

layout(location = 0) out vec4 colour;

// Layers of the terrain array (`textures::GRASS` ...).
const float GRASS = 0.0;
const float DIRT = 1.0;
const float ROCK = 2.0;
const float SAND = 3.0;
// One texture repeat per this many meters.
const float METERS_PER_REPEAT = 4.0;
// Flat ground this far below the spawn's ground (give or take SAND_BLEND) is sand; from
// GRASS_BELOW below it (give or take GRASS_BLEND) up, grass.
const float SAND_BELOW = 14.0;
const float SAND_BLEND = 2.0;
const float GRASS_BELOW = 4.0;
const float GRASS_BLEND = 4.0;
// The terrain tool's marker: the ground within its sphere is tinted, its rim drawn brighter.
const vec3 MARKER_COLOUR = vec3(1.0, 0.55, 0.15);
const float MARKER_RIM = 0.12;

// The terrain array; its slot is the same for the whole draw (uniform).
#define TERRAIN_ARRAY sampler2DArray(textures[push.material.x], material_sampler)

vec3 layer(float index, vec3 position, vec3 weights) {
    vec3 p = position / METERS_PER_REPEAT;
    vec3 x = texture(TERRAIN_ARRAY, vec3(p.zy, index)).rgb;
    vec3 y = texture(TERRAIN_ARRAY, vec3(p.xz, index)).rgb;
    vec3 z = texture(TERRAIN_ARRAY, vec3(p.xy, index)).rgb;
    return x * weights.x + y * weights.y + z * weights.z;
}

void main() {
    vec3 n = normalize(world_normal);
    vec3 weights = pow(abs(n), vec3(4.0));
    weights /= weights.x + weights.y + weights.z;

    float height = world_position.y;
    float flatness = n.y;
    // Steep faces are rock; flat high ground grass, flat low ground sand; dirt in between.
    float rock = 1.0 - smoothstep(0.55, 0.75, flatness);
    float grass_above = push.sky.w - GRASS_BELOW;
    float sand_below = push.sky.w - SAND_BELOW;
    float grass = smoothstep(grass_above - GRASS_BLEND, grass_above + GRASS_BLEND, height)
        * smoothstep(0.75, 0.9, flatness);
    float sand = (1.0 - smoothstep(sand_below - SAND_BLEND, sand_below + SAND_BLEND, height))
        * smoothstep(0.6, 0.8, flatness);

    vec3 albedo = layer(DIRT, world_position, weights);
    if (grass > 0.0) {
        albedo = mix(albedo, layer(GRASS, world_position, weights), grass);
    }
    if (sand > 0.0) {
        albedo = mix(albedo, layer(SAND, world_position, weights), sand);
    }
    if (rock > 0.0) {
        albedo = mix(albedo, layer(ROCK, world_position, weights), rock);
    }

#ifdef SHADOWS
    // The sky light is the ground's occlusion already.
    vec3 light = sun_and_sky_shadowed(
        n, sky_light, sun_visibility(world_position, n, push.camera.xyz), 1.0);
#else
    vec3 light = sun_and_sky(n, sky_light);
#endif
    vec3 lit = albedo * light;
    if (push.marker.w > 0.0) {
        // What the tool would dig or build: the ground inside its sphere.
        float inside = push.marker.w - distance(world_position, push.marker.xyz);
        if (inside > 0.0) {
            float rim = 1.0 - smoothstep(0.0, MARKER_RIM * push.marker.w, inside);
            lit = mix(lit, MARKER_COLOUR * max(light, vec3(0.35)), 0.3 + 0.5 * rim);
        }
    }

    colour = vec4(fogged(lit, world_position, push.camera, push.sky.rgb), 1.0);
}
