#version 460
// Surface nets, pass 1: one invocation per sample. Flags the owned sign-changing edges that
// start here (one quad each, and two per skirt segment) and, if the sample is a cell's min
// corner, whether any of the cell's 12 edges is one (the cell then gets a vertex, exactly as
// the CPU's used cells, and a skirt vertex too on the region's border).

#include "surface_nets.glsl"

layout(local_size_x = 64) in;

void main() {
    int index = int(gl_GlobalInvocationID.x);
    if (index >= sample_count()) {
        return;
    }
    ivec3 d = grid_dims();
    ivec3 p = position_of(index, d);
    // The sides of the 8 samples of the cell at p, read once (bit x + 2y + 4z). Past the grid's
    // far faces the reads are clamped; only edges that ownership rejects join those corners.
    uint corners = 0u;
    for (int corner = 0; corner < 8; corner++) {
        ivec3 offset = ivec3(corner & 1, (corner >> 1) & 1, corner >> 2);
        corners |= inside(min(p + offset, d - 1)) ? 1u << corner : 0u;
    }
    for (int axis = 0; axis < 3; axis++) {
        bool crosses = (corners & 1u) != ((corners >> (1 << axis)) & 1u);
        uint quads = 0u;
        if (crosses && owned_start(p, axis)) {
            quads = 1u + (skirted() ? 2u * skirt_segments(p, axis) : 0u);
        }
        flags[edge_slot(p, axis)] = quads;
    }
    if (all(lessThan(p, d - 1))) {
        // The cell's 12 edges join its corners.
        bool used = false;
        for (int axis = 0; axis < 3; axis++) {
            int b = (axis + 1) % 3;
            int c = (axis + 2) % 3;
            // The cell is one of the four around the edges at p, p + e_b, p + e_c, p + e_b + e_c.
            for (int around = 0; around < 4; around++) {
                ivec3 offset = unit(b) * (around & 1) + unit(c) * (around >> 1);
                int from = offset.x + 2 * offset.y + 4 * offset.z;
                int to = from + (1 << axis);
                bool crosses = ((corners >> from) & 1u) != ((corners >> to) & 1u);
                used = used || (crosses && owned_start(p + offset, axis));
            }
        }
        uint vertices = 0u;
        if (used) {
            vertices = skirted() && boundary_cell(p) ? 2u : 1u;
        }
        flags[cell_index(p)] = vertices;
    }
}
