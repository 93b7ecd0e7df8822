#version 460
// Surface nets, pass 3: one invocation per cell. A used cell writes its vertex at prefix[cell]:
// the mean of its edge crossings and the outward normal from the trilinear gradient, computed
// operation for operation as `cell_vertex` in engine/src/meshing/surface_nets.rs; a cell on the
// region's border with a skirt (flag 2) its skirt vertex right after, vertex - (n.x, 1, n.z) *
// depth (vertex - n * depth where n.y < 0; on the high x and z sides out to the cell's far
// face, down the ground's tangent plane where it falls towards the face; never up) with the
// same normal: the rule in engine/src/meshing/mod.rs. `precise`
// keeps the compiler from fusing or reordering, so on an IEEE device (lavapipe) the result is
// the CPU's to the bit, and quads pick the same diagonals.

#include "surface_nets.glsl"
#include "crossing.glsl"

layout(local_size_x = 64) in;

const float MIN_POSITIVE = 1.17549435e-38;

precise float lanes(vec4 values) {
    precise float low = values.x + values.y;
    precise float high = values.z + values.w;
    precise float sum = low + high;
    return sum;
}

precise float lerp(float from, float to, float t) {
    precise float result = from + (to - from) * t;
    return result;
}

// The sum of the crossing edges' directions from solid to air, or straight up if those cancel
// too: the normal where the gradient vanishes.
vec3 crossing_direction_normal(float d[8]) {
    vec3 sum = vec3(0.0);
    for (int axis = 0; axis < 3; axis++) {
        int bit = 1 << axis;
        for (int corner = 0; corner < 8; corner++) {
            if ((corner & bit) != 0) {
                continue;
            }
            bool first = d[corner] > 0.0;
            bool second = d[corner | bit] > 0.0;
            if (first != second) {
                sum[axis] += first ? 1.0 : -1.0;
            }
        }
    }
    precise float length_squared = sum.x * sum.x + sum.y * sum.y + sum.z * sum.z;
    precise float len = sqrt(length_squared);
    if (len > 0.0) {
        precise vec3 normal = vec3(sum.x / len, sum.y / len, sum.z / len);
        return normal;
    }
    return vec3(0.0, 1.0, 0.0);
}

// How far, in grid units, a curtain reaching out to a high side's face drops below its depth
// where the ground falls towards that face (MAX_REACH_DROP in surface_nets.rs).
const float MAX_REACH_DROP = 2.0;

// A skirt vertex's coordinate `s` along a high side's axis and its height `sy`, for a vertex at
// `p` on that axis with normal component `n` (and `ny` up): `Skirt::vertex` in
// engine/src/meshing/surface_nets.rs, operation for operation.
void reach_face(float face, float p, float n, float ny, float depth, inout float s,
                inout float sy) {
    if (ny < 0.0) {
        // Under an overhang the curtain stays in the rock.
        return;
    }
    if (n <= 0.0) {
        // The ground rises or lies level towards the face: out to it is into the ground.
        s = face;
    } else if (ny > 0.0) {
        // The ground falls towards the face: out along its tangent plane, as far as a drop of
        // MAX_REACH_DROP takes the curtain.
        precise float gap = face - p;
        precise float reach = MAX_REACH_DROP * ny / n;
        if (gap <= reach) {
            s = face;
            precise float drop = gap * n / ny;
            precise float lowered = sy - drop;
            sy = lowered;
        } else {
            precise float lean = n * depth;
            precise float out_to = p + reach;
            precise float leaned = out_to - lean;
            s = leaned;
            precise float lowered = sy - MAX_REACH_DROP;
            sy = lowered;
        }
    }
}

void main() {
    int cell = int(gl_GlobalInvocationID.x);
    if (cell >= cell_count() || flags[cell] == 0u) {
        return;
    }
    ivec3 c = position_of(cell, grid_dims() - 1);
    float d[8];
    for (int corner = 0; corner < 8; corner++) {
        d[corner] = samples[sample_index(c + ivec3(corner & 1, (corner >> 1) & 1, corner >> 2))];
    }

    // Lane l of an axis is the edge whose first corner sits at bit 0 of l on the next axis and
    // bit 1 of l on the one after (x: y, z; y: x, z; z: x, y).
    vec4 firsts[3] = vec4[3](
        vec4(d[0], d[2], d[4], d[6]),
        vec4(d[0], d[1], d[4], d[5]),
        vec4(d[0], d[1], d[2], d[3]));
    vec4 seconds[3] = vec4[3](
        vec4(d[1], d[3], d[5], d[7]),
        vec4(d[2], d[3], d[6], d[7]),
        vec4(d[4], d[5], d[6], d[7]));
    vec4 changes[3];
    vec4 crossings[3];
    for (int axis = 0; axis < 3; axis++) {
        for (int lane = 0; lane < 4; lane++) {
            float first = firsts[axis][lane];
            float second = seconds[axis][lane];
            precise float at = crossing(first, second);
            bool changed = (first > 0.0) != (second > 0.0);
            changes[axis][lane] = changed ? 1.0 : 0.0;
            crossings[axis][lane] = changed ? at : 0.0;
        }
    }
    precise float count = lanes(changes[0]) + lanes(changes[1]) + lanes(changes[2]);
    precise float sum_x = lanes(crossings[0]) + (changes[1][1] + changes[1][3])
        + (changes[2][1] + changes[2][3]);
    precise float sum_y = lanes(crossings[1]) + (changes[0][1] + changes[0][3])
        + (changes[2][2] + changes[2][3]);
    precise float sum_z = lanes(crossings[2]) + (changes[0][2] + changes[0][3])
        + (changes[1][2] + changes[1][3]);
    precise float inverse = 1.0 / count;
    precise float fx = sum_x * inverse;
    precise float fy = sum_y * inverse;
    precise float fz = sum_z * inverse;

    precise float gx = lerp(lerp(d[1] - d[0], d[3] - d[2], fy), lerp(d[5] - d[4], d[7] - d[6], fy), fz);
    precise float gy = lerp(lerp(d[2] - d[0], d[3] - d[1], fx), lerp(d[6] - d[4], d[7] - d[5], fx), fz);
    precise float gz = lerp(lerp(d[4] - d[0], d[5] - d[1], fx), lerp(d[6] - d[2], d[7] - d[3], fx), fy);
    precise float length_squared = gx * gx + gy * gy + gz * gz;
    vec3 normal;
    if (length_squared > MIN_POSITIVE && !isinf(length_squared)) {
        precise float scale = -1.0 / sqrt(length_squared);
        precise vec3 scaled = vec3(gx * scale, gy * scale, gz * scale);
        normal = scaled;
    } else {
        normal = crossing_direction_normal(d);
    }

    vertex_offsets[3u * uint(cell) + 0u] = fx;
    vertex_offsets[3u * uint(cell) + 1u] = fy;
    vertex_offsets[3u * uint(cell) + 2u] = fz;
    // The vertex buffer may be an arena: this mesh's vertices start at output_base.x.
    uint vertex = prefix[cell] + push.output_base.x;
    precise float px = float(c.x) + fx;
    precise float py = float(c.y) + fy;
    precise float pz = float(c.z) + fz;
    vertices[6u * vertex + 0u] = px;
    vertices[6u * vertex + 1u] = py;
    vertices[6u * vertex + 2u] = pz;
    vertices[6u * vertex + 3u] = normal.x;
    vertices[6u * vertex + 4u] = normal.y;
    vertices[6u * vertex + 5u] = normal.z;
    if (flags[cell] == 2u) {
        float depth = push.skirt.x;
        precise float sx = px - normal.x * depth;
        // Down a grid unit per unit of depth, and into the ground as far as the normal leans;
        // under an overhang (the normal pointing down), straight into the rock.
        precise float sy = py - (normal.y >= 0.0 ? 1.0 : normal.y) * depth;
        precise float sz = pz - normal.z * depth;
        // On the region's high sides along x and z (x first) the curtain reaches out to the
        // cell's far face, where a neighbour's mesh begins, dropping down the ground's tangent
        // plane where the ground falls towards the face. It never rises (the top border's hangs
        // down too).
        if (c.x + 1 == push.region_max.x) {
            reach_face(float(c.x + 1), px, normal.x, normal.y, depth, sx, sy);
        }
        if (c.z + 1 == push.region_max.z) {
            reach_face(float(c.z + 1), pz, normal.z, normal.y, depth, sz, sy);
        }
        uint skirt = vertex + 1u;
        vertices[6u * skirt + 0u] = sx;
        vertices[6u * skirt + 1u] = sy;
        vertices[6u * skirt + 2u] = sz;
        vertices[6u * skirt + 3u] = normal.x;
        vertices[6u * skirt + 4u] = normal.y;
        vertices[6u * skirt + 5u] = normal.z;
    }
}
