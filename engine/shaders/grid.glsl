// A density grid's indexing, shared by both meshers' passes: `push.dims` samples a side, the
// samples in `samples`, x fastest (the CPU meshers' order: engine/meshing/src/lib.rs). Include it
// after the push constants and the samples' buffer.

ivec3 grid_dims() {
    return push.dims.xyz;
}

int sample_count() {
    ivec3 d = grid_dims();
    return d.x * d.y * d.z;
}

int cell_count() {
    ivec3 d = grid_dims() - 1;
    return d.x * d.y * d.z;
}

ivec3 position_of(int index, ivec3 extent) {
    return ivec3(index % extent.x, (index / extent.x) % extent.y, index / (extent.x * extent.y));
}

int sample_index(ivec3 p) {
    ivec3 d = grid_dims();
    return p.x + d.x * (p.y + d.y * p.z);
}

int cell_index(ivec3 c) {
    ivec3 d = grid_dims() - 1;
    return c.x + d.x * (c.y + d.y * c.z);
}

// An edge's slot in the edge flags (and prefix sums), in the CPU's vertex order: sample rows
// (y, z), then axis, then x.
int edge_slot(ivec3 start, int axis) {
    ivec3 d = grid_dims();
    return cell_count() + ((start.z * d.y + start.y) * 3 + axis) * d.x + start.x;
}

ivec3 unit(int axis) {
    return ivec3(axis == 0 ? 1 : 0, axis == 1 ? 1 : 0, axis == 2 ? 1 : 0);
}

bool inside(ivec3 p) {
    return samples[sample_index(p)] > 0.0;
}
