//! The test scene's cube mesh: one unit cube, drawn once per instance.

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
}

/// A unit cube around the origin: 24 vertices (flat normals), 36 indices, counter-clockwise
/// seen from outside.
pub(super) fn cube_mesh() -> (Vec<Vertex>, Vec<u16>) {
    let mut vertices = Vec::with_capacity(24);
    let mut indices = Vec::with_capacity(36);
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut normal = [0.0; 3];
            normal[axis] = sign;
            // Two directions across the face, so that u × v = normal (counter-clockwise).
            let u_axis = (axis + 1) % 3;
            let v_axis = (axis + 2) % 3;
            let base = vertices.len() as u16;
            for (a, b) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut position = [0.0; 3];
                position[axis] = sign * 0.5;
                position[u_axis] = a * 0.5;
                position[v_axis] = b * 0.5 * sign;
                vertices.push(Vertex {
                    position,
                    normal,
                    uv: [(a + 1.0) / 2.0, (b + 1.0) / 2.0],
                });
            }
            indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    (vertices, indices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ultraviolet::Vec3;

    #[test]
    fn cube_faces_wind_counter_clockwise_outward() {
        let (vertices, indices) = cube_mesh();
        assert_eq!((vertices.len(), indices.len()), (24, 36));
        for triangle in indices.chunks(3) {
            let p = |i: u16| Vec3::from(vertices[i as usize].position);
            let (a, b, c) = (p(triangle[0]), p(triangle[1]), p(triangle[2]));
            let normal = (b - a).cross(c - a);
            let outward = Vec3::from(vertices[triangle[0] as usize].normal);
            assert!(
                normal.dot(outward) > 0.0,
                "triangle {triangle:?} faces inward"
            );
        }
    }
}
