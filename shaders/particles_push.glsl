// The particles' draw push constants (vertex and fragment), mirroring
// `game::render::particles::DrawPush` (112 bytes).

layout(push_constant) uniform Push {
    mat4 view_projection;
    // xyz: the view's right (unit); w unused
    vec4 right;
    // xyz: the view's up (unit); w unused
    vec4 up;
    // xyz: the eye; w: the fog's complete distance
    vec4 eye;
} push;
