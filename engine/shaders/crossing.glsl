// Where an edge from a sample `first` to a sample `second` crosses zero, as a fraction of the
// edge: first / (first - second), the quotient the CPU meshers compute (edge_vertex in
// engine/src/meshing/marching_cubes.rs, the crossings of engine/src/meshing/surface_nets.rs).
//
// Vulkan holds a division to 2.5 ULP only for a divisor between 2^-126 and 2^126. Past that a
// device may multiply by the divisor's reciprocal, which is then below the normal range and
// flushed to zero: an NVIDIA H200 gave t = 0 where IEEE gives 1 (samples near f32::MAX,
// `overflowing_gradients_take_the_edge_normal_on_the_gpu_as_on_the_cpu`). For a crossing the
// samples have opposite signs, so |first| <= |first - second|; a quarter of each is the same
// quotient (scaling by a power of two is exact) with a divisor back in range. On an IEEE device
// both ways give the same bits, so the CPU needs no such step. A quarter of a tiny `first` may
// leave the normal range too, but its quotient by a divisor past 2^126 is zero either way.
precise float crossing(float first, float second) {
    precise float difference = first - second;
    if (abs(difference) > 8.50705917e37) {
        precise float quarter_first = first * 0.25;
        precise float quarter_difference = difference * 0.25;
        return quarter_first / quarter_difference;
    }
    return first / difference;
}
