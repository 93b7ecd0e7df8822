#version 460
// Marching cubes, pass 3: one invocation per edge slot. A used edge writes its vertex at
// prefix[slot]: the linear crossing of its two samples and the outward normal from the
// gradient, computed operation for operation as `edge_vertex` in
// engine/src/meshing/marching_cubes.rs. `precise` keeps the compiler from fusing or reordering,
// so on an IEEE device (lavapipe) the result is the CPU's to the bit.

#include "marching_cubes.glsl"
#include "crossing.glsl"

layout(local_size_x = 64) in;

const float MIN_POSITIVE = 1.17549435e-38;

// The gradient across the edge on an axis other than its own: at both ends the difference with
// the sample below on that axis (above on the grid's first sample), blended by t.
precise float across(int start, int end, int coordinate, int stride, float t) {
    precise float from;
    precise float to;
    if (coordinate > 0) {
        from = samples[start] - samples[start - stride];
        to = samples[end] - samples[end - stride];
    } else {
        from = samples[start + stride] - samples[start];
        to = samples[end + stride] - samples[end];
    }
    precise float blended = from + (to - from) * t;
    return blended;
}

void main() {
    int invocation = int(gl_GlobalInvocationID.x);
    if (invocation >= 3 * sample_count()) {
        return;
    }
    int slot = cell_count() + invocation;
    if (flags[slot] == 0u) {
        return;
    }
    // The slot's edge: x fastest, then axis, then the sample row (y, z), as `edge_slot` lays
    // them out.
    ivec3 d = grid_dims();
    int row = invocation / d.x / 3;
    int axis = invocation / d.x % 3;
    ivec3 place = ivec3(invocation % d.x, row % d.y, row / d.y);
    ivec3 strides = ivec3(1, d.x, d.x * d.y);
    int start = sample_index(place);
    int end = start + strides[axis];
    float first = samples[start];
    float second = samples[end];
    precise float t = crossing(first, second);

    precise float along_position = float(place[axis]) + t;
    vec3 position = vec3(place);
    position[axis] = along_position;

    precise float along_gradient = second - first;
    float gradient[3];
    gradient[axis] = along_gradient;
    for (int other = 1; other <= 2; other++) {
        int a = (axis + other) % 3;
        gradient[a] = across(start, end, place[a], strides[a], t);
    }
    float gx = gradient[0];
    float gy = gradient[1];
    float gz = gradient[2];
    precise float length_squared = gx * gx + gy * gy + gz * gz;
    vec3 normal;
    if (length_squared > MIN_POSITIVE && !isinf(length_squared)) {
        precise float scale = -1.0 / sqrt(length_squared);
        precise vec3 scaled = vec3(gx * scale, gy * scale, gz * scale);
        normal = scaled;
    } else {
        // No gradient: along the edge, from solid to air.
        normal = vec3(0.0);
        normal[axis] = first > 0.0 ? 1.0 : -1.0;
    }

    // The vertex buffer may be an arena: this mesh's vertices start at output_base.x.
    uint vertex = push.output_base.x + prefix[slot];
    vertices[6u * vertex + 0u] = position.x;
    vertices[6u * vertex + 1u] = position.y;
    vertices[6u * vertex + 2u] = position.z;
    vertices[6u * vertex + 3u] = normal.x;
    vertices[6u * vertex + 4u] = normal.y;
    vertices[6u * vertex + 5u] = normal.z;
}
