#version 460
// The terrain meshes' light pass (engine/src/meshing/vertex_light.rs): one invocation per
// vertex of one chunk. Vertex i of the chunk lies at first_vertex + i in the vertex arena; its
// light, a trilinear blend of the chunk's light grid at the vertex's position, goes to the same
// element of the light arena, so a draw's vertex offset applies to both vertex bindings.
//
// The blend is the CPU reference `blockfall_engine::meshing::vertex_light::blend`, which the GPU
// tests hold this pass to:
//   local = clamp(p, 0, dims - 1); low = min(floor(local), dims - 2); f = local - low;
//   lerp in x, then y, then z, each as a + (b - a) * t.
// `precise` keeps the compiler from fusing or reordering, so the result is the CPU's to
// rounding.
//
// With from_grid 0 the grid is not read: every vertex gets `constant` (a chunk meshed without
// light gets 1).

layout(local_size_x = 64) in;

layout(push_constant) uniform LightPush {
    // Light grid samples per axis, x fastest, as the density grid the chunk was meshed from
    // (w unused).
    ivec4 dims;
    // The chunk's first vertex in the vertex and light arenas.
    uint first_vertex;
    uint vertex_count;
    // 1: blend the light grid; 0: write `constant`.
    uint from_grid;
    float constant_light;
} push;

// The vertex arena: position xyz (grid units from the grid's sample (0, 0, 0)), normal xyz.
layout(set = 0, binding = 0, std430) readonly buffer Vertices {
    float vertices[];
};

// The light grid of the chunk, x fastest.
layout(set = 0, binding = 1, std430) readonly buffer LightSamples {
    float light_samples[];
};

// The light arena: one float per vertex, at the vertex's element in the vertex arena.
layout(set = 0, binding = 2, std430) writeonly buffer Light {
    float light[];
};

float light_sample(ivec3 p) {
    ivec3 d = push.dims.xyz;
    return light_samples[p.x + d.x * (p.y + d.y * p.z)];
}

precise float lerp(float from, float to, float t) {
    precise float result = from + (to - from) * t;
    return result;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.vertex_count) {
        return;
    }
    uint vertex = push.first_vertex + i;
    if (push.from_grid == 0u) {
        light[vertex] = push.constant_light;
        return;
    }
    vec3 p = vec3(vertices[6u * vertex + 0u], vertices[6u * vertex + 1u],
        vertices[6u * vertex + 2u]);
    ivec3 d = push.dims.xyz;
    vec3 local = clamp(p, vec3(0.0), vec3(d - 1));
    ivec3 low = min(ivec3(floor(local)), d - 2);
    precise vec3 f = local - vec3(low);
    float c000 = light_sample(low + ivec3(0, 0, 0));
    float c100 = light_sample(low + ivec3(1, 0, 0));
    float c010 = light_sample(low + ivec3(0, 1, 0));
    float c110 = light_sample(low + ivec3(1, 1, 0));
    float c001 = light_sample(low + ivec3(0, 0, 1));
    float c101 = light_sample(low + ivec3(1, 0, 1));
    float c011 = light_sample(low + ivec3(0, 1, 1));
    float c111 = light_sample(low + ivec3(1, 1, 1));
    precise float value = lerp(
        lerp(lerp(c000, c100, f.x), lerp(c010, c110, f.x), f.y),
        lerp(lerp(c001, c101, f.x), lerp(c011, c111, f.x), f.y),
        f.z);
    light[vertex] = value;
}
