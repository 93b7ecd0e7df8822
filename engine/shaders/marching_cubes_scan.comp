#version 460
// Marching cubes, pass 2: exclusive prefix sums of the flags. Workgroup 0 scans the cells'
// triangle counts (each cell's first triangle), workgroup 1 the edge flags (vertex indices);
// each writes its total into the counts, which also form an indexed indirect draw.
//
// As the surface nets' scan: each of the SCAN_THREADS invocations sums a contiguous segment,
// the segment sums are scanned in shared memory (Hillis-Steele), and each invocation then
// writes its segment's prefixes. The sums are integers: the result does not depend on
// scheduling.

#include "marching_cubes.glsl"

#define SCAN_THREADS 256
layout(local_size_x = SCAN_THREADS) in;

shared uint segment_sums[SCAN_THREADS];

void main() {
    bool cells = gl_WorkGroupID.x == 0u;
    int base = cells ? 0 : cell_count();
    int length = cells ? cell_count() : 3 * sample_count();
    int thread = int(gl_LocalInvocationID.x);
    int per_thread = (length + SCAN_THREADS - 1) / SCAN_THREADS;
    int begin = min(thread * per_thread, length);
    int end = min(begin + per_thread, length);

    uint sum = 0u;
    for (int i = begin; i < end; i++) {
        sum += flags[base + i];
    }
    segment_sums[thread] = sum;
    barrier();
    for (int stride = 1; stride < SCAN_THREADS; stride *= 2) {
        uint add = thread >= stride ? segment_sums[thread - stride] : 0u;
        barrier();
        segment_sums[thread] += add;
        barrier();
    }

    uint running = segment_sums[thread] - sum;
    for (int i = begin; i < end; i++) {
        prefix[base + i] = running;
        running += flags[base + i];
    }

    if (thread == SCAN_THREADS - 1) {
        uint total = segment_sums[thread];
        if (cells) {
            counts[COUNT_INDICES] = total * 3u;
            counts[1] = 1u; // instance count
            counts[2] = 0u; // first index
            counts[3] = 0u; // vertex offset
            counts[4] = 0u; // first instance
            counts[COUNT_TRIANGLES] = total;
        } else {
            counts[COUNT_VERTICES] = total;
        }
    }
}
