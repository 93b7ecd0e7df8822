// What the marching-cubes compute passes share: the push constants, the buffers, the case
// table's layout and the cell ownership rule of the CPU mesher
// (engine/src/meshing/marching_cubes.rs), which these passes must reproduce exactly.
//
//   count      per sample: its 3 edge slots' "used" flags (sign-changing, and an edge of some
//              owned cell) and, per cell, its triangle count from the case table  -> flags
//   scan       exclusive prefix sums of both runs                          -> prefix, counts
//   vertices   per used edge: position and normal at prefix[slot]          -> vertices
//   triangles  per owned cell: its table triangles at 3 * prefix[cell], each corner the
//              vertex number of its edge                                   -> indices (+ the draw)
//
// Outputs start at push.output_base: vertex v of the mesh lands at output_base.x + v and
// triangle t at output_base.y + 3 t. Indices stay relative to the mesh's first vertex; the
// draw's vertex offset adds output_base.x.
//
// Every output slot is a prefix sum of integer flags, so each vertex and index is written once,
// by one invocation, at a place that depends only on the grid: the same bytes on every run and,
// since the flags are laid out in the CPU's sweep order, the CPU's order too.

// The same block as the surface nets' (`SurfaceNetsPush` in engine/src/meshing/gpu.rs): the
// grid, the owned box and the outputs, so the terrain hands either mesher the same constants.
layout(push_constant) uniform MarchingCubesPush {
    // Samples per axis (w unused).
    ivec4 dims;
    // Owned cells, by min corner: [cell_min, cell_max) per axis, cell_max already clamped to
    // dims - 1 so that every owned cell's max corner lies in the grid.
    ivec4 cell_min;
    ivec4 cell_max;
    // Where the outputs go: x the first vertex and y the first index in the vertex and index
    // buffers (arenas), z the draw slot, w 1 to have the triangles pass write the indexed
    // indirect draw into draws[5 * z] (0: no draw written). All zero for a mesher's own buffers.
    uvec4 output_base;
} push;

// The density grid, x fastest.
layout(set = 0, binding = 0, std430) readonly buffer Samples {
    float samples[];
};

// Cells at [0, cells): each owned cell's triangle count (0 for the others); then edge slots at
// cells + edge_slot(...): 1 for an edge that gets a vertex, 0 otherwise.
layout(set = 0, binding = 1, std430) buffer Flags {
    uint flags[];
};

// Exclusive prefix sums of `flags`, each run starting at 0: a cell's first triangle, a used
// edge's vertex.
layout(set = 0, binding = 2, std430) buffer Prefix {
    uint prefix[];
};

// The case table as engine/src/meshing/gpu_marching_cubes.rs lays it out from `case_table()`:
// the 12 edges' geometry, the 257 starts of the configurations' triangle runs, the triangles.
layout(set = 0, binding = 3, std430) readonly buffer CaseTable {
    uint case_table[];
};

// Per vertex: position xyz, normal xyz.
layout(set = 0, binding = 4, std430) buffer Vertices {
    float vertices[];
};

layout(set = 0, binding = 5, std430) buffer Indices {
    uint indices[];
};

// A VkDrawIndexedIndirectCommand (index count, instance count, first index, vertex offset,
// first instance), then the vertex count and the triangle count.
layout(set = 0, binding = 6, std430) buffer Counts {
    uint counts[];
};

// VkDrawIndexedIndirectCommand slots, 5 words each: what an indirect draw over every resident
// chunk reads.
layout(set = 0, binding = 7, std430) buffer Draws {
    uint draws[];
};

const uint COUNT_INDICES = 0u;
const uint COUNT_VERTICES = 5u;
const uint COUNT_TRIANGLES = 6u;

// Where the case table's parts start (words; `CASE_TABLE_*` in gpu_marching_cubes.rs). Edge e:
// its start corner in bits 0-2 (bit a: the coordinate on axis a), its axis in bits 3-4. A
// configuration's triangles: [starts[c], starts[c + 1]). A triangle: its three edges, 8 bits
// each from bit 0.
const uint TABLE_EDGES = 0u;
const uint TABLE_STARTS = 12u;
const uint TABLE_TRIANGLES = TABLE_STARTS + 257u;

#include "grid.glsl"

// Whether the cell with min corner `c` is owned: in the box. cell_max <= dims - 1 makes it a
// cell of the grid.
bool owned_cell(ivec3 c) {
    return all(greaterThanEqual(c, push.cell_min.xyz)) && all(lessThan(c, push.cell_max.xyz));
}

// The cell's corner configuration: bit i set where corner i, at (i & 1, i >> 1 & 1, i >> 2),
// is inside.
uint cell_config(ivec3 c) {
    uint config = 0u;
    for (int corner = 0; corner < 8; corner++) {
        ivec3 offset = ivec3(corner & 1, (corner >> 1) & 1, corner >> 2);
        config |= inside(c + offset) ? 1u << corner : 0u;
    }
    return config;
}
