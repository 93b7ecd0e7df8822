//! The pieces' meshes and lights kept up to date with the bodies: a mesh uploaded (with the
//! piece's light and bounds) when its body is first seen, freed when the body is gone, every
//! one put again into a bigger arena when the arena is full. A piece's vertices are occluded by
//! its own blocks only ([`blockfall_game::blocks::occlusion`]): it moves, so the world's blocks and
//! ground around it change, and its mesh is uploaded once.

use std::collections::BTreeSet;

use blockfall_engine::gpu::{self, Gpu, GpuResult};
use blockfall_physics::BodyHandle;
use ultraviolet::Vec3;

use super::{Known, PiecesRenderer, FIRST_INDICES, FIRST_VERTICES};
use crate::structures::mesh_arena::MeshArena;
use crate::structures::{vertices_of, BlockVertex};
use blockfall_game::blocks::occlusion::{block_cells, openness};
use blockfall_game::pieces::{Piece, Pieces};

impl PiecesRenderer {
    /// Brings the meshes up to date with `pieces`: the mesh of every body not seen before is
    /// uploaded (and its light taken: `light` at its position), those of bodies gone are freed.
    /// Call it between frames (before `FrameRing::begin`); a piece not yet uploaded is not
    /// drawn.
    pub fn update(
        &mut self,
        gpu: &mut Gpu,
        pieces: &Pieces,
        light: &dyn Fn([f32; 3]) -> f32,
    ) -> GpuResult<()> {
        let alive: BTreeSet<BodyHandle> = pieces.iter().map(|(handle, _, _)| handle).collect();
        let gone: Vec<BodyHandle> = self
            .known
            .keys()
            .filter(|handle| !alive.contains(handle))
            .copied()
            .collect();
        for handle in gone {
            self.known.remove(&handle);
            self.arena.remove(&handle);
        }
        let mut batch = gpu.uploader.begin("pieces: meshes");
        let mut fitted = true;
        for (handle, piece, body) in pieces.iter() {
            if self.known.contains_key(&handle) {
                continue;
            }
            let vertices = piece_vertices(piece);
            if !self
                .arena
                .put(&mut batch, handle, &vertices, &piece.mesh.indices)?
            {
                fitted = false;
                break;
            }
            let (middle, radius) = bounds(&piece.mesh.positions);
            self.known.insert(
                handle,
                Known {
                    light: light(body.position.map(|c| c as f32)),
                    middle,
                    radius,
                },
            );
        }
        batch.submit()?;
        if fitted {
            return Ok(());
        }
        // No room: every piece into an arena twice the size of what they need.
        let (vertices, indices) = pieces.iter().fold((0, 0), |(v, i), (_, piece, _)| {
            (
                v + piece.mesh.vertex_count() as u64,
                i + piece.mesh.indices.len() as u64,
            )
        });
        let vertex_capacity = (vertices * 2).max(FIRST_VERTICES);
        let index_capacity = (indices * 2).max(FIRST_INDICES);
        log::info!(
            "pieces: a new arena of {vertex_capacity} vertices and {index_capacity} indices for \
             {} pieces",
            pieces.len()
        );
        self.arena = MeshArena::new(&self.device, "pieces", vertex_capacity, index_capacity)?;
        let mut batch = gpu.uploader.begin("pieces: every mesh");
        for (handle, piece, body) in pieces.iter() {
            let vertices = piece_vertices(piece);
            if !self
                .arena
                .put(&mut batch, handle, &vertices, &piece.mesh.indices)?
            {
                return Err(gpu::GpuError::Invalid(
                    "pieces: a mesh does not fit an arena made for every piece".into(),
                ));
            }
            self.known.entry(handle).or_insert_with(|| {
                let (middle, radius) = bounds(&piece.mesh.positions);
                Known {
                    light: light(body.position.map(|c| c as f32)),
                    middle,
                    radius,
                }
            });
        }
        batch.submit()?;
        Ok(())
    }

    /// Forgets every piece's mesh and light (a new world is drawn next: its bodies' handles
    /// name other pieces); the pipeline, the arena and the frames' buffers stay.
    pub fn forget_all(&mut self) {
        self.known.clear();
        self.arena.clear();
    }

    /// Pieces with a mesh on the GPU.
    pub fn resident_pieces(&self) -> usize {
        self.arena.len()
    }

    /// The light a piece is drawn with, once seen by [`PiecesRenderer::update`].
    pub fn light_of(&self, handle: BodyHandle) -> Option<f32> {
        self.known.get(&handle).map(|known| known.light)
    }
}

/// A piece's vertices in its own frame: light 1 (the piece's light scales it on the GPU), each
/// occluded by the piece's own blocks.
fn piece_vertices(piece: &Piece) -> Vec<BlockVertex> {
    let solid = block_cells(&piece.own);
    let mut vertices = vertices_of(&piece.mesh, |_| 1.0);
    for vertex in &mut vertices {
        vertex.occlusion = openness(vertex.position, vertex.normal, &solid);
    }
    vertices
}

/// The middle of the box around `positions` and its half diagonal.
fn bounds(positions: &[[f32; 3]]) -> (Vec3, f32) {
    let mut low = Vec3::broadcast(f32::MAX);
    let mut high = Vec3::broadcast(f32::MIN);
    for &[x, y, z] in positions {
        let p = Vec3::new(x, y, z);
        low = low.min_by_component(p);
        high = high.max_by_component(p);
    }
    if positions.is_empty() {
        return (Vec3::zero(), 0.0);
    }
    ((low + high) * 0.5, (high - low).mag() * 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_the_box_middle_and_half_diagonal() {
        let (middle, radius) = bounds(&[[0.0, 0.0, 0.0], [2.0, 2.0, 1.0]]);
        assert_eq!(middle, Vec3::new(1.0, 1.0, 0.5));
        assert!((radius - 1.5).abs() < 1e-6);
    }

    #[test]
    fn a_piece_is_occluded_by_its_own_blocks() {
        use blockfall_game::blocks::store::Block;
        // A floor of two 1 m blocks and a wall on the first, in their grid places.
        let blocks = [(0, 0, 0), (2, 0, 0), (0, 2, 0)]
            .map(|(x, y, z)| Block::new(x, y, z, 2, 0, 0, false).unwrap())
            .to_vec();
        let mut pieces = Pieces::new(blockfall_physics::workers::WorkerPool::new(1).unwrap());
        pieces.add(blocks).unwrap();
        let (_, piece, _) = pieces.iter().next().unwrap();
        let vertices = piece_vertices(piece);
        assert_eq!(vertices.len(), piece.mesh.vertex_count());
        assert!(vertices.iter().all(|v| v.light == 1.0));
        assert!(vertices
            .iter()
            .all(|v| (0.4 - 1e-6..=1.0).contains(&v.occlusion)));
        // Where the floor meets the wall it is darker; the far end of the floor is open.
        let corner = |v: &&BlockVertex| v.normal[1] > 0.5 && v.position[..2] == [1.0, 1.0];
        assert!(vertices.iter().filter(corner).all(|v| v.occlusion < 1.0));
        let far = |v: &&BlockVertex| v.normal[1] > 0.5 && v.position[..2] == [2.0, 1.0];
        assert!(vertices.iter().filter(far).all(|v| v.occlusion == 1.0));
        assert!(vertices.iter().filter(corner).count() > 0);
    }
}
