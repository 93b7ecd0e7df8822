#version 460
// Surface nets, pass 4: one invocation per sample. Each owned sign-changing edge starting here
// writes its quad, two triangles, at 6 * prefix[slot]. As `QuadWriter::write` in
// engine/src/meshing/surface_nets.rs: the four cells around the edge p -> p + e_a, seen from +a
// (b = a + 1 right, c = a + 2 up), counter-clockwise from outside when p is the solid end:
//
//   v3 = p - e_b        v2 = p
//   v0 = p - e_b - e_c  v1 = p - e_c
//
// and the quad is split along its shorter diagonal, measured with the vertices' cell offsets.

#include "surface_nets.glsl"

layout(local_size_x = 64) in;

vec3 offset_of(uint vertex) {
    return vec3(vertex_offsets[3u * vertex], vertex_offsets[3u * vertex + 1u],
        vertex_offsets[3u * vertex + 2u]);
}

// |to - from + b_weight e_b + e_c|^2 with b = axis + 1, c = axis + 2 (mod 3), summed x, y, z.
precise float distance_squared(int axis, vec3 to, vec3 from, float b_weight) {
    precise float sum = 0.0;
    for (int i = 0; i < 3; i++) {
        float step = i == (axis + 1) % 3 ? b_weight : (i == (axis + 2) % 3 ? 1.0 : 0.0);
        precise float delta = to[i] - from[i] + step;
        sum += delta * delta;
    }
    return sum;
}

void main() {
    int index = int(gl_GlobalInvocationID.x);
    if (index >= sample_count()) {
        return;
    }
    if (index == 0 && push.output_base.w != 0u) {
        // The mesh's indexed indirect draw, into its slot: indices relative to the first vertex,
        // which the vertex offset supplies. First instance 0: anything else needs the device
        // feature drawIndirectFirstInstance (VUID-VkDrawIndexedIndirectCommand-firstInstance-
        // 00554), and the draws carry per-chunk data in push constants instead.
        uint draw = 5u * push.output_base.z;
        draws[draw + 0u] = 6u * counts[COUNT_QUADS];
        draws[draw + 1u] = counts[COUNT_QUADS] > 0u ? 1u : 0u;
        draws[draw + 2u] = push.output_base.y;
        draws[draw + 3u] = push.output_base.x;
        draws[draw + 4u] = 0u;
    }
    ivec3 p = position_of(index, grid_dims());
    for (int axis = 0; axis < 3; axis++) {
        int slot = edge_slot(p, axis);
        if (flags[slot] == 0u) {
            continue;
        }
        ivec3 b = unit((axis + 1) % 3);
        ivec3 c = unit((axis + 2) % 3);
        uint v[4] = uint[4](
            prefix[cell_index(p - b - c)],
            prefix[cell_index(p - c)],
            prefix[cell_index(p)],
            prefix[cell_index(p - b)]);
        float diagonal_02 = distance_squared(axis, offset_of(v[2]), offset_of(v[0]), 1.0);
        float diagonal_13 = distance_squared(axis, offset_of(v[3]), offset_of(v[1]), -1.0);
        uint v0 = v[0];
        uint v1 = v[1];
        uint v2 = v[2];
        uint v3 = v[3];
        if (!inside(p)) {
            // Air at the start: the other way round. v0 and v2 stay, so the diagonal holds.
            v1 = v[3];
            v3 = v[1];
        }
        uint first = push.output_base.y + 6u * prefix[slot];
        if (diagonal_02 <= diagonal_13) {
            indices[first + 0u] = v0;
            indices[first + 1u] = v1;
            indices[first + 2u] = v2;
            indices[first + 3u] = v0;
            indices[first + 4u] = v2;
            indices[first + 5u] = v3;
        } else {
            indices[first + 0u] = v1;
            indices[first + 1u] = v2;
            indices[first + 2u] = v3;
            indices[first + 3u] = v1;
            indices[first + 4u] = v3;
            indices[first + 5u] = v0;
        }
    }
}
