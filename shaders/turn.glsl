// A vector turned by a unit quaternion: shared by the pieces' vertex shaders (pieces.vert,
// shadow_pieces.vert).

// v turned by the unit quaternion q (x, y, z, w).
vec3 turn(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}
