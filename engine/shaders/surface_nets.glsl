// What the surface-nets compute passes share: the push constants, the buffers and the edge
// ownership rule of the CPU mesher (engine/src/meshing/surface_nets.rs), which these passes
// must reproduce exactly.
//
//   count     per sample: owned sign-changing edges (3 flags) and, per cell, "some owned
//             edge joins this cell" (1 flag)                  -> flags
//   scan      exclusive prefix sums of both flag runs          -> prefix, counts
//   vertices  per used cell: vertex at prefix[cell]            -> vertices, vertex_offsets
//   quads     per owned edge: 6 indices at 6 * prefix[slot]    -> indices (+ the draw)
//
// With a skirt (push.skirt.x > 0; the rule is in engine/src/meshing/mod.rs) a flag is a count:
// a boundary cell's is 2 (its vertex, then its skirt vertex at prefix[cell] + 1), an owned
// edge's is 1 + 2 per skirt segment (its quad, then each segment's two quads, one per
// winding). Without one every flag is 0 or 1, as the plain mesh needs.
//
// Outputs start at push.output_base: vertex v of the mesh lands at output_base.x + v and quad q
// at output_base.y + 6 q. Indices stay relative to the mesh's first vertex; the draw's vertex
// offset adds output_base.x.
//
// Every output slot is a prefix sum of flags, so each vertex and index is written once, by one
// invocation, at a place that depends only on the grid: the same bytes on every run and, since
// the flags are laid out in the CPU's sweep order, the CPU's order too.

layout(push_constant) uniform SurfaceNetsPush {
    // Samples per axis (w unused).
    ivec4 dims;
    // Owned edge starts: [start_min, start_max) per axis, start_max already clamped to dims - 1.
    ivec4 start_min;
    ivec4 start_max;
    // Where the outputs go (engine/src/meshing/terrain_meshes.rs): x the first vertex and y the
    // first index in the vertex and index buffers (arenas), z the draw slot, w 1 to have the
    // quads pass write the indexed indirect draw into draws[5 * z] (0: no draw written). All
    // zero for a mesher's own buffers.
    uvec4 output_base;
    // The owned region's max, not clamped (w unused): the skirt's high border. Its low border
    // is start_min.
    ivec4 region_max;
    // x: the skirt's depth in grid units, 0 for none (yzw unused).
    vec4 skirt;
} push;

// The density grid, x fastest.
layout(set = 0, binding = 0, std430) buffer Samples {
    float samples[];
};

// 0 or 1: cells at [0, cells), then edge slots at cells + edge_slot(...).
layout(set = 0, binding = 1, std430) buffer Flags {
    uint flags[];
};

// Exclusive prefix sums of `flags`, each run starting at 0: a used cell's vertex index, an
// owned edge's quad index.
layout(set = 0, binding = 2, std430) buffer Prefix {
    uint prefix[];
};

// Per cell (by cell index), its vertex's offset from its min corner (3 floats): quads choose
// their diagonal from these, as the CPU does, not from rounded positions.
layout(set = 0, binding = 3, std430) buffer VertexOffsets {
    float vertex_offsets[];
};

// Per vertex: position xyz, normal xyz.
layout(set = 0, binding = 4, std430) buffer Vertices {
    float vertices[];
};

layout(set = 0, binding = 5, std430) buffer Indices {
    uint indices[];
};

// A VkDrawIndexedIndirectCommand (index count, instance count, first index, vertex offset,
// first instance), then the vertex count and the quad count.
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
const uint COUNT_QUADS = 6u;

#include "grid.glsl"

// Whether an edge starting at `start` along `axis` may get a quad: its start is owned and the
// four cells around it exist (the other two coordinates are at least 1; start_max <= dims - 1
// keeps them below dims - 1). The sides of its ends decide the rest.
bool owned_start(ivec3 start, int axis) {
    if (any(lessThan(start, push.start_min.xyz)) || any(greaterThanEqual(start, push.start_max.xyz))) {
        return false;
    }
    return start[(axis + 1) % 3] >= 1 && start[(axis + 2) % 3] >= 1;
}

// Whether the edge start -> start + e_axis gets a quad: owned, and its ends lie on opposite
// sides of the surface.
bool owned_edge(ivec3 start, int axis) {
    return owned_start(start, axis) && inside(start) != inside(start + unit(axis));
}

bool skirted() {
    return push.skirt.x > 0.0;
}

// Whether a used cell lies on the owned region's border: its index on some axis is
// region min - 1 or region max - 1. Such a cell gets a skirt vertex.
bool boundary_cell(ivec3 cell) {
    return any(equal(cell + 1, push.start_min.xyz)) || any(equal(cell + 1, push.region_max.xyz));
}

// The skirt segments of an owned edge starting at `start` along `axis`: per other axis a, one
// where start[a] is the region's min (its two cells at a-index start[a] - 1) and one where it
// is the region's max - 1 (its two cells at a-index start[a]).
uint skirt_segments(ivec3 start, int axis) {
    uint segments = 0u;
    for (int k = 1; k <= 2; k++) {
        int a = (axis + k) % 3;
        segments += start[a] == push.start_min[a] ? 1u : 0u;
        segments += start[a] + 1 == push.region_max[a] ? 1u : 0u;
    }
    return segments;
}
