#version 460
// Surface nets, pass 1: one invocation per sample. Flags the owned sign-changing edges that
// start here (one quad each) and, if the sample is a cell's min corner, whether any of the
// cell's 12 edges is one (the cell then gets a vertex, exactly as the CPU's used cells).

#include "surface_nets.glsl"

layout(local_size_x = 64) in;

void main() {
    int index = int(gl_GlobalInvocationID.x);
    if (index >= sample_count()) {
        return;
    }
    ivec3 d = grid_dims();
    ivec3 p = position_of(index, d);
    for (int axis = 0; axis < 3; axis++) {
        flags[edge_slot(p, axis)] = owned_edge(p, axis) ? 1u : 0u;
    }
    if (all(lessThan(p, d - 1))) {
        bool used = false;
        for (int axis = 0; axis < 3; axis++) {
            ivec3 b = unit((axis + 1) % 3);
            ivec3 c = unit((axis + 2) % 3);
            // The cell is one of the four around the edges at p, p + e_b, p + e_c, p + e_b + e_c.
            used = used || owned_edge(p, axis) || owned_edge(p + b, axis)
                || owned_edge(p + c, axis) || owned_edge(p + b + c, axis);
        }
        flags[cell_index(p)] = used ? 1u : 0u;
    }
}
