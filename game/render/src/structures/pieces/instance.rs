//! What each frame writes for a piece in view: its [`PieceInstance`] (the body's transform and
//! the piece's light) and the size of its draw command, and the turn `pieces.vert` gives it.

use ash::vk;
use blockfall_physics::BodyView;
use ultraviolet::Vec3;

/// Bytes of a `VkDrawIndexedIndirectCommand`.
pub(super) const DRAW_COMMAND_BYTES: u64 =
    std::mem::size_of::<vk::DrawIndexedIndirectCommand>() as u64;

/// One piece's body for `pieces.vert` (instance locations 5 to 7): 48 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PieceInstance {
    /// The body's orientation, a unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
    /// xyz: the body's middle in the world; w: the piece's sky light.
    pub position_light: [f32; 4],
    /// xyz: the body's middle in its own frame; w unused.
    pub centre: [f32; 4],
}

impl PieceInstance {
    pub(super) fn of(body: &BodyView, light: f32) -> Self {
        let [x, y, z, w] = body.orientation.map(|c| c as f32);
        let [px, py, pz] = body.position.map(|c| c as f32);
        let [cx, cy, cz] = body.center_of_mass.map(|c| c as f32);
        Self {
            rotation: [x, y, z, w],
            position_light: [px, py, pz, light],
            centre: [cx, cy, cz, 0.0],
        }
    }
}

/// `v` turned by the unit quaternion `q` (`[x, y, z, w]`), as `pieces.vert` turns it.
pub(super) fn turn(q: [f32; 4], v: Vec3) -> Vec3 {
    let axis = Vec3::new(q[0], q[1], q[2]);
    let t = 2.0 * axis.cross(v);
    v + q[3] * t + axis.cross(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_and_commands_have_the_shaders_layout() {
        assert_eq!(std::mem::size_of::<PieceInstance>(), 48);
        assert_eq!(DRAW_COMMAND_BYTES, 20);
    }

    #[test]
    fn a_quarter_turn_about_y_takes_x_to_minus_z() {
        let half = std::f32::consts::FRAC_PI_4;
        let q = [0.0, half.sin(), 0.0, half.cos()];
        let turned = turn(q, Vec3::unit_x());
        assert!(
            (turned - Vec3::new(0.0, 0.0, -1.0)).mag() < 1e-6,
            "{turned:?}"
        );
    }
}
