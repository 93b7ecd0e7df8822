// Shared by blocks.vert, pieces.vert and blocks.frag: the push constants of the blocks' and the
// pieces' draws. Mirrors `blockfall_game::render::structures::StructurePush` (112 bytes, within
// the guaranteed 128 of maxPushConstantsSize).

layout(push_constant) uniform StructurePush {
    mat4 view_projection;
    // xyz: the eye, in meters; w: the distance at which the fog hides everything.
    vec4 camera;
    // rgb: the sky colour (linear), also the fog's; w unused.
    vec4 sky;
    // x: the bindless slot of the materials' texture array (layer = material number).
    uvec4 material;
} push;
