// Shared by scene.vert and scene.frag: the push constants of the test scene.
// Mirrors `blockfall::scene::ScenePush` (std430-compatible: vec4s and a mat4, 112 bytes).

layout(push_constant) uniform ScenePush {
    mat4 view_projection;
    // xyz: unit vector toward the sun; w unused.
    vec4 sun_direction;
    // rgb: sunlight on a surface facing the sun; a unused.
    vec4 sun_colour;
    // rgb: light from the sky on every surface; a unused.
    vec4 ambient_colour;
} push;
