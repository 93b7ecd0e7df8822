// Shared by the terrain's and the blocks' materials (terrain_material.glsl,
// blocks_material.glsl): the sun, the sky's ambient light scaled by the sky light, and the fog
// into the sky colour, so that a block lit and fogged at a point looks like the ground there.
// With SHADOWS defined (the `*_shadows.frag` variants), the sun is shadowed through the
// cascaded shadow maps of set 1 (`game::render::shadows`) and the sky's light occluded.

const vec3 SUN_COLOUR = vec3(0.9, 0.85, 0.75);
// Toward the sun: up, to the right of the first view (which looks north, -z) and a little
// behind it, so that the slope ahead is lit. The same direction as
// `game::render::shadows::SUN_TOWARD` (a unit test holds them equal), which the shadow
// variants receive in their uniform block.
const vec3 SUN_TOWARD = normalize(vec3(0.55, 0.75, 0.35));
const vec3 SKY_AMBIENT = vec3(0.28, 0.32, 0.4);
// Deep in a cave a little light remains, so that its walls can still be made out.
const float DARKEST = 0.04;
// The fog starts at this fraction of the distance where it is complete (0.5 and 0.95 of the
// view radius, docs/terrain.md).
const float FOG_START = 0.5 / 0.95;

// The light falling on a surface of unit normal `n` where the sky light is `sky_light` (0 deep
// in a cave, 1 under the open sky): the sun on faces toward it and the sky's ambient light,
// more on upward faces than downward ones, both scaled by the open sky (at least DARKEST).
vec3 sun_and_sky(vec3 n, float sky_light) {
    float open_sky = max(sky_light, DARKEST);
    float facing = max(dot(n, SUN_TOWARD), 0.0);
    // The sky lights upward faces more than downward ones.
    float sky_facing = 0.75 + 0.25 * n.y;
    return (SUN_COLOUR * facing + SKY_AMBIENT * sky_facing) * open_sky;
}

// `lit` at `world_position` fogged toward `sky`: none from FOG_START of `camera.w` (the
// distance where the fog is complete) from the eye `camera.xyz`, complete at `camera.w`.
vec3 fogged(vec3 lit, vec3 world_position, vec4 camera, vec3 sky) {
    float distance_to_eye = length(world_position - camera.xyz);
    float fog = smoothstep(FOG_START * camera.w, camera.w, distance_to_eye);
    return mix(lit, sky, fog);
}

#ifdef SHADOWS
// The cascades of the sun's shadow map, side by side in one depth image (cascade k in the k-th
// tile of its width), and how to look them up. Mirrors `game::render::shadows::ShadowBlock`.
layout(set = 1, binding = 0) uniform sampler2DShadow shadow_map;
layout(set = 1, binding = 1) uniform ShadowBlock {
    // World → cascade clip space (x, y in -1..1 across the tile, z in 0..1 from the sun).
    mat4 cascades[4];
    // x: meters per texel of the cascade; yzw unused.
    vec4 texel[4];
    // xyz: toward the sun (unit); w: the number of cascades.
    vec4 sun;
    // x: texels along a tile's side; y: where the shadows end (meters from the eye); z: how
    // far before that they fade out; w: filter taps along a side (1 or 3).
    vec4 params;
} shadow;

// How much of the sun reaches `world_position` on a surface of unit normal `n`, 0 (in shadow)
// to 1 (lit), `eye` being where it is seen from: the finest cascade that holds the point, the
// point moved off the surface along its normal by a texel and a half of that cascade (so that
// a surface does not shadow itself: no acne), compared with a bilinear 2×2 per tap and
// params.w² taps a texel apart; faded to lit where the shadows end.
float sun_visibility(vec3 world_position, vec3 n, vec3 eye) {
    float distance_to_eye = length(world_position - eye);
    if (distance_to_eye >= shadow.params.y) {
        return 1.0;
    }
    int count = int(shadow.sun.w);
    float texels = shadow.params.x;
    int taps = int(shadow.params.w);
    // The filter's reach, and a texel more, must stay inside the tile.
    float margin = (float(taps / 2) + 2.0) / texels;
    for (int k = 0; k < count; k++) {
        // Off the surface along the normal, more where the sun grazes it.
        float grazing = 1.0 - max(dot(n, shadow.sun.xyz), 0.0);
        vec3 offset = n * shadow.texel[k].x * (1.0 + 2.0 * grazing);
        vec4 clip = shadow.cascades[k] * vec4(world_position + offset, 1.0);
        vec2 tile = clip.xy * 0.5 + 0.5;
        if (any(lessThan(tile, vec2(margin))) || any(greaterThan(tile, vec2(1.0 - margin)))
            || clip.z < 0.0 || clip.z > 1.0) {
            continue;
        }
        float lit = 0.0;
        int half_taps = taps / 2;
        for (int i = -half_taps; i <= half_taps; i++) {
            for (int j = -half_taps; j <= half_taps; j++) {
                vec2 at = tile + vec2(float(i), float(j)) / texels;
                lit += texture(shadow_map, vec3((float(k) + at.x) / float(count), at.y, clip.z));
            }
        }
        lit /= float(taps * taps);
        float fade = smoothstep(shadow.params.y - shadow.params.z, shadow.params.y,
                                distance_to_eye);
        return mix(lit, 1.0, fade);
    }
    return 1.0;
}

// sun_and_sky with the sun shadowed (`sun`: 0 in shadow to 1 lit) and the sky's light occluded
// (`open`: 0 closed in to 1 open).
vec3 sun_and_sky_shadowed(vec3 n, float sky_light, float sun, float open) {
    float open_sky = max(sky_light, DARKEST);
    float facing = max(dot(n, shadow.sun.xyz), 0.0);
    float sky_facing = 0.75 + 0.25 * n.y;
    return (SUN_COLOUR * facing * sun + SKY_AMBIENT * sky_facing * open) * open_sky;
}
#endif
