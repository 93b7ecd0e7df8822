#version 460
// Marching cubes, pass 1: one invocation per sample. Flags the edges starting here that get a
// vertex and, if the sample is a cell's min corner, writes the cell's triangle count.
//
// An edge gets a vertex when some owned cell's triangles use it. The case table uses exactly
// the sign-changing edges of every configuration (the CPU's test
// `the_table_uses_exactly_the_crossing_edges_of_every_configuration`), so that is: the edge
// changes sign and one of the four cells around it is owned. The flag is gathered here, by the
// edge's own invocation, rather than scattered by the cells: one writer per flag, no clearing.

#include "marching_cubes.glsl"

layout(local_size_x = 64) in;

void main() {
    int index = int(gl_GlobalInvocationID.x);
    if (index >= sample_count()) {
        return;
    }
    ivec3 d = grid_dims();
    ivec3 p = position_of(index, d);
    bool start_inside = inside(p);
    for (int axis = 0; axis < 3; axis++) {
        ivec3 end = p + unit(axis);
        bool used = false;
        if (all(lessThan(end, d)) && start_inside != inside(end)) {
            // The edge lies on the cells p, p - e_b, p - e_c and p - e_b - e_c (b, c the other
            // two axes).
            ivec3 b = unit((axis + 1) % 3);
            ivec3 c = unit((axis + 2) % 3);
            for (int around = 0; around < 4; around++) {
                used = used || owned_cell(p - b * (around & 1) - c * (around >> 1));
            }
        }
        flags[edge_slot(p, axis)] = used ? 1u : 0u;
    }
    if (all(lessThan(p, d - 1))) {
        uint triangles = 0u;
        if (owned_cell(p)) {
            uint config = cell_config(p);
            triangles = case_table[TABLE_STARTS + config + 1u] - case_table[TABLE_STARTS + config];
        }
        flags[cell_index(p)] = triangles;
    }
}
