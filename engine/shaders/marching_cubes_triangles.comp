#version 460
// Marching cubes, pass 4: one invocation per cell. An owned cell with triangles writes them at
// 3 * prefix[cell], in the case table's order, as `MarchingCubes::mesh` in
// engine/src/meshing/marching_cubes.rs: each corner the vertex of its edge, whose number the
// scan gave the edge's slot. The table winds them counter-clockwise seen from the air.

#include "marching_cubes.glsl"

layout(local_size_x = 64) in;

void main() {
    int cell = int(gl_GlobalInvocationID.x);
    if (cell >= cell_count()) {
        return;
    }
    if (cell == 0 && push.output_base.w != 0u) {
        // The mesh's indexed indirect draw, into its slot: indices relative to the first vertex,
        // which the vertex offset supplies. First instance 0: anything else needs the device
        // feature drawIndirectFirstInstance (VUID-VkDrawIndexedIndirectCommand-firstInstance-
        // 00554), and the draws carry per-chunk data in push constants instead.
        uint draw = 5u * push.output_base.z;
        draws[draw + 0u] = 3u * counts[COUNT_TRIANGLES];
        draws[draw + 1u] = counts[COUNT_TRIANGLES] > 0u ? 1u : 0u;
        draws[draw + 2u] = push.output_base.y;
        draws[draw + 3u] = push.output_base.x;
        draws[draw + 4u] = 0u;
    }
    uint triangles = flags[cell];
    if (triangles == 0u) {
        return;
    }
    ivec3 c = position_of(cell, grid_dims() - 1);
    uint config = cell_config(c);
    uint table_first = TABLE_TRIANGLES + case_table[TABLE_STARTS + config];
    // The index buffer may be an arena: this mesh's indices start at output_base.y.
    uint first = push.output_base.y + 3u * prefix[cell];
    for (uint triangle = 0u; triangle < triangles; triangle++) {
        uint edges = case_table[table_first + triangle];
        for (uint k = 0u; k < 3u; k++) {
            uint geometry = case_table[TABLE_EDGES + ((edges >> (8u * k)) & 0xffu)];
            int corner = int(geometry & 7u);
            int axis = int(geometry >> 3);
            ivec3 start = c + ivec3(corner & 1, (corner >> 1) & 1, corner >> 2);
            indices[first + 3u * triangle + k] = prefix[edge_slot(start, axis)];
        }
    }
}
