#version 460
// One triangle that covers the whole target (the tint pass: a colour laid over the picture).

void main() {
    // (-1, -1), (3, -1), (-1, 3): the target's square lies inside.
    vec2 corner = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
