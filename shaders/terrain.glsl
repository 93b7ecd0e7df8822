// Shared by terrain.vert and terrain.frag: the push constants of the terrain draw.
// Mirrors `blockfall_game::render::terrain::TerrainPush` (128 bytes, the guaranteed minimum of
// maxPushConstantsSize).

layout(push_constant) uniform TerrainPush {
    mat4 view_projection;
    // xyz: the eye, in meters; w: the distance at which the fog hides everything.
    vec4 camera;
    // xyz: unit vector toward the sun; w: below this height flat ground is sand.
    vec4 sun;
    // rgb: the sky colour (linear), also the fog's; w: above this height flat ground is grass.
    vec4 sky;
    // xyz: the padded origin of the chunk being drawn (world sample at grid index 0; vertex
    // positions are in its grid units, one per meter); w: the bindless slot of the terrain array.
    ivec4 chunk;
} push;
