// Shared by the terrain's and the blocks' fragment shaders (terrain.frag, blocks.frag): the sun,
// the sky's ambient light scaled by the sky light, and the fog into the sky colour, so that a
// block lit and fogged at a point looks like the ground there.

const vec3 SUN_COLOUR = vec3(0.9, 0.85, 0.75);
// Toward the sun: up, to the right of the first view (which looks north, -z) and a little
// behind it, so that the slope ahead is lit.
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
