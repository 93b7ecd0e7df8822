// Shared by markers.vert and markers.frag: the push constants of the block tool's markers.
// Mirrors `blockfall_game::render::structures::markers::MarkerPush` (80 bytes).

layout(push_constant) uniform MarkerPush {
    mat4 view_projection;
    // xyz: the eye, in meters; w: how far each vertex is moved toward the eye, in meters (the
    // would-fall tint sits on the blocks' own surfaces and must win their depth test).
    vec4 eye;
} push;
