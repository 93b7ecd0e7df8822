// Shared by the shadow maps' depth-only vertex shaders (shadow_*.vert): the push constants of a
// cascade's draws. Mirrors `blockfall_game::render::shadows::ShadowPush` (80 bytes).

layout(push_constant) uniform ShadowPush {
    // World → the cascade's clip space.
    mat4 cascade;
    // xyz: the padded origin of the terrain chunk being drawn (its vertices are in its grid
    // units, 2^w meters each: w is its level of detail); 0 for blocks and pieces, whose
    // vertices are in meters.
    ivec4 origin;
} push;
