#version 460
// Proves compute works: every invocation writes a hash of its index, and counts with an
// atomic the hashes that are multiples of `divisor`. The CPU computes the same.

layout(local_size_x = 64) in;

layout(push_constant) uniform FillPush {
    uint count;
    uint divisor;
} push;

layout(set = 0, binding = 0, std430) writeonly buffer Values {
    uint values[];
};

layout(set = 0, binding = 1, std430) buffer Counter {
    uint multiples;
};

// A 32-bit integer hash (lowbias32): the same bits on every GPU and on the CPU.
uint hash(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= push.count) {
        return;
    }
    uint value = hash(index);
    values[index] = value;
    if (value % push.divisor == 0U) {
        atomicAdd(multiples, 1U);
    }
}
