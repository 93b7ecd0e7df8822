#version 460
// The terrain's culling on the GPU (`game::render::terrain::cull`): every draw slot's chunk
// tested against the view's six planes and the complete fog, and the visible chunks' draw
// commands written, nearest first, into one compacted list with its count for
// vkCmdDrawIndexedIndirectCount.
//
// One workgroup: each invocation takes slots i, i + 256, i + 512, … In the first loop a visible
// chunk is put in a ring of distance (256 rings, finer near the eye: ring = 256·sqrt(d / fog))
// and takes the next place in its ring with a shared atomic; one invocation then sums the rings
// into their starts (and writes the count); in the second loop each invocation writes its own
// visible slots' commands at their ring's start plus their place. The rings keep the order
// nearest first (within a ring the order is whatever the atomics gave: near the eye a ring is
// under 2 m wide, less than a chunk). One workgroup needs no counters cleared beforehand and no
// barrier between dispatches; 3,000 to 8,000 slots are 12 to 32 per invocation.

layout(local_size_x = 256) in;

struct Chunk {
    vec4 origin; // xyz: padded origin; w: spacing
    vec4 low;    // xyz: the vertex box's low corner; w: 1 where the slot holds a chunk
    vec4 high;   // xyz: its high corner
};

struct Draw {
    uint index_count;
    uint instance_count;
    uint first_index;
    int vertex_offset;
    uint first_instance;
};

layout(set = 0, binding = 0, std430) readonly buffer Table {
    Chunk chunks[];
};

layout(set = 0, binding = 1, std430) readonly buffer Slots {
    Draw slots[];
};

layout(set = 0, binding = 2, std430) writeonly buffer Commands {
    Draw commands[];
};

layout(set = 0, binding = 3, std430) buffer Ranks {
    uint ranks[];
};

layout(set = 0, binding = 4, std430) buffer Counts {
    uint draw_count;
    uint index_total;
    uint slots_tested;
    uint unused;
};

layout(push_constant) uniform CullPush {
    // The view's planes, normalised (`a·p + d >= 0` inside).
    vec4 planes[6];
    // xyz: the eye; w: the distance at which the fog is complete.
    vec4 eye;
    // x: the slots to test (one past the highest in use).
    uvec4 sizes;
} push;

const uint GROUP = 256u;
const uint RINGS = 256u;
const uint HIDDEN = 0xffffffffu;
// Half a millimetre: the test errs toward drawing (a box touching a plane is drawn).
const float MARGIN = 0.0005;

shared uint ring_size[RINGS];
shared uint ring_start[RINGS];
shared uint indices;

bool may_see(vec3 low, vec3 high) {
    for (int i = 0; i < 6; i++) {
        vec4 plane = push.planes[i];
        // The corner furthest along the plane's normal.
        vec3 corner = mix(low, high, greaterThanEqual(plane.xyz, vec3(0.0)));
        if (dot(plane.xyz, corner) + plane.w < -MARGIN) {
            return false;
        }
    }
    vec3 nearest = clamp(push.eye.xyz, low, high);
    return length(nearest - push.eye.xyz) <= push.eye.w + MARGIN;
}

void main() {
    uint local = gl_LocalInvocationIndex;
    for (uint ring = local; ring < RINGS; ring += GROUP) {
        ring_size[ring] = 0u;
    }
    if (local == 0u) {
        indices = 0u;
    }
    memoryBarrierShared();
    barrier();

    uint count = push.sizes.x;
    for (uint slot = local; slot < count; slot += GROUP) {
        uint rank = HIDDEN;
        uint index_count = slots[slot].index_count;
        Chunk chunk = chunks[slot];
        if (index_count != 0u && chunk.low.w != 0.0 && may_see(chunk.low.xyz, chunk.high.xyz)) {
            vec3 middle = 0.5 * (chunk.low.xyz + chunk.high.xyz);
            float distance = length(middle - push.eye.xyz);
            float scaled = float(RINGS) * sqrt(distance / max(push.eye.w, 1.0));
            uint ring = min(RINGS - 1u, uint(scaled));
            uint place = atomicAdd(ring_size[ring], 1u);
            rank = (ring << 24) | place;
            atomicAdd(indices, index_count);
        }
        ranks[slot] = rank;
    }
    memoryBarrierShared();
    barrier();

    if (local == 0u) {
        uint total = 0u;
        for (uint ring = 0u; ring < RINGS; ring++) {
            ring_start[ring] = total;
            total += ring_size[ring];
        }
        draw_count = total;
        index_total = indices;
        slots_tested = count;
        unused = 0u;
    }
    memoryBarrierShared();
    barrier();

    // Each invocation reads back the ranks it wrote itself.
    for (uint slot = local; slot < count; slot += GROUP) {
        uint rank = ranks[slot];
        if (rank != HIDDEN) {
            Draw draw = slots[slot];
            draw.instance_count = 1u;
            draw.first_instance = slot;
            commands[ring_start[rank >> 24] + (rank & 0xffffffu)] = draw;
        }
    }
}
