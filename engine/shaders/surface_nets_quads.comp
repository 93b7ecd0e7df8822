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
// Then, with a skirt, as `write_skirt_quads`: per other axis b then c, the low then the high
// border's segment c0 c1 (c0 the lower on the third axis), each as c0 c1 s1 c0 s1 s0 and the
// same reversed (s = the cell's vertex + 1, its skirt vertex).

#include "surface_nets.glsl"

layout(local_size_x = 64) in;

vec3 offset_of(int cell) {
    uint at = 3u * uint(cell);
    return vec3(vertex_offsets[at], vertex_offsets[at + 1u], vertex_offsets[at + 2u]);
}

// The two quads of a skirt segment of cells with vertices c0, c1, at `at`; returns the index
// after them.
uint write_segment(uint at, uint c0, uint c1) {
    uint s0 = c0 + 1u;
    uint s1 = c1 + 1u;
    indices[at + 0u] = c0;
    indices[at + 1u] = c1;
    indices[at + 2u] = s1;
    indices[at + 3u] = c0;
    indices[at + 4u] = s1;
    indices[at + 5u] = s0;
    indices[at + 6u] = c0;
    indices[at + 7u] = s1;
    indices[at + 8u] = c1;
    indices[at + 9u] = c0;
    indices[at + 10u] = s0;
    indices[at + 11u] = s1;
    return at + 12u;
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
        int cells[4] = int[4](
            cell_index(p - b - c),
            cell_index(p - c),
            cell_index(p),
            cell_index(p - b));
        uint v[4] = uint[4](prefix[cells[0]], prefix[cells[1]], prefix[cells[2]], prefix[cells[3]]);
        float diagonal_02 = distance_squared(axis, offset_of(cells[2]), offset_of(cells[0]), 1.0);
        float diagonal_13 = distance_squared(axis, offset_of(cells[3]), offset_of(cells[1]), -1.0);
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
        if (skirted()) {
            uint next = first + 6u;
            for (int k = 1; k <= 2; k++) {
                int a = (axis + k) % 3;
                // Along b: low cells v0 v3, high v1 v2; along c: low v0 v1, high v3 v2.
                uvec2 low = k == 1 ? uvec2(v[0], v[3]) : uvec2(v[0], v[1]);
                uvec2 high = k == 1 ? uvec2(v[1], v[2]) : uvec2(v[3], v[2]);
                if (p[a] == push.start_min[a]) {
                    next = write_segment(next, low.x, low.y);
                }
                if (p[a] + 1 == push.region_max[a]) {
                    next = write_segment(next, high.x, high.y);
                }
            }
        }
    }
}
