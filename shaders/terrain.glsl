// Shared by terrain.vert and terrain.frag: the push constants of the terrain draw.
// Mirrors `blockfall_game::render::terrain::TerrainPush` (128 bytes, the guaranteed minimum of
// maxPushConstantsSize).

layout(push_constant) uniform TerrainPush {
    mat4 view_projection;
    // xyz: the eye, in meters; w: the distance at which the fog hides everything.
    vec4 camera;
    // rgb: the sky colour (linear), also the fog's; w: the ground's height at the spawn, which
    // places the layers (sand well below it, grass from a little below it up).
    vec4 sky;
    // xyz: the middle of the terrain tool's sphere; w: its radius (0: no marker).
    vec4 marker;
    // x: the bindless slot of the terrain array; y, z, w: unused. (Each chunk's origin and
    // spacing come per draw from the chunk table: terrain.vert's instance attribute.)
    uvec4 material;
} push;
