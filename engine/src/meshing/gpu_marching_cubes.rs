//! Marching cubes in compute shaders: the same mesh as [`MarchingCubes`](super::MarchingCubes),
//! made on the GPU from a density grid uploaded through the staging path by a
//! [`GpuMesher`](super::GpuMesher) made for [`Mesher::MarchingCubes`](super::Mesher), as it makes
//! the surface nets'. This module holds what is the marching cubes' own: their passes and the
//! layout of the case table. The marching cubes ignore the skirt the push constants carry: their
//! meshes have none.
//!
//! ```text
//!   samples ──count──▶ flags ──scan──▶ prefix, counts ──vertices──▶ vertices
//!   (upload)  per sample:     exclusive sums:         per used edge: its vertex at prefix[slot]
//!             3 edge flags,   vertex index per edge,     │
//!             per cell its    first triangle per cell ──triangles──▶ indices
//!             triangle count  + indirect draw counts     per owned cell: its table triangles
//!                                                        at 3 * prefix[cell]
//! ```
//!
//! The CPU mesher's order was chosen for this: its vertices come by edge slot (sample row, then
//! axis, then x) and its triangles cell by cell (x fastest), each cell's in the case table's
//! order. Both are prefix sums of integer flags laid out in that order, so every vertex and
//! index has exactly one writer and no atomics are needed: the output is the same bytes on
//! every run, and in the CPU's order. An edge's flag is gathered by the edge itself (it changes
//! sign and one of its four cells is owned: the table uses exactly the crossing edges of every
//! configuration), so no pass scatters into another's slots. The vertex pass computes the CPU's
//! arithmetic operation for operation with `precise`; on an IEEE device (lavapipe) the two
//! meshes are equal to the bit.
//!
//! The case table is not typed into the shaders:
//! [`case_table()`](super::marching_cubes::case_table) is copied into a buffer when the
//! pipelines are made (`case_table_words` lays it out, `MeshPipelines` writes it), so the rule
//! that builds it stays in one place and both meshers read the same triangles.
//!
//! The passes take the surface nets' push constants (`check_grid`): the grid, the box of owned
//! cells' min corners (the CPU's `low` and `high`: the region's min, its max clamped to the last
//! sample), and where the outputs go. Their set has the surface nets' shape too (eight storage
//! buffers, the case table where the surface nets keep their vertex offsets) and their counts
//! buffer the same words (an indexed indirect draw, the vertex count, then the triangle count),
//! so the terrain's arenas can drive either mesher with the same bookkeeping.

use super::marching_cubes::{edge_axis, edge_start, CaseTable, EDGES};

/// The surface nets' limits and layouts, which these passes share: the largest grid per axis,
/// where the counts buffer's indexed indirect draw lies (bytes), floats per vertex.
pub use super::gpu::{COUNTS_DRAW_OFFSET, MAX_SAMPLES_PER_AXIS, VERTEX_FLOATS};

/// Where the case table's parts start in its buffer (`u32` words; `TABLE_*` in
/// `shaders/marching_cubes.glsl`): the geometry of the 12 edges, the 257 starts of the
/// configurations' triangle runs, then the triangles.
pub(crate) const CASE_TABLE_EDGES: usize = 0;
pub(crate) const CASE_TABLE_STARTS: usize = CASE_TABLE_EDGES + EDGES;
pub(crate) const CASE_TABLE_TRIANGLES: usize = CASE_TABLE_STARTS + 257;

/// The passes in recording order: (shader, pass name).
pub(crate) const PASSES: [(&str, &str); 4] = [
    ("marching_cubes_count.comp", "marching cubes: count"),
    ("marching_cubes_scan.comp", "marching cubes: scan"),
    ("marching_cubes_vertices.comp", "marching cubes: vertices"),
    ("marching_cubes_triangles.comp", "marching cubes: triangles"),
];

/// The name of the pass that encloses the four passes of one mesh.
pub const PASS_NAME: &str = "marching cubes";

/// The case table as the shaders read it, one `u32` word each: edge `e`'s start corner (bits
/// 0–2, bit `a` its coordinate on axis `a`) and axis (bits 3–4) at [`CASE_TABLE_EDGES`]` + e`;
/// the configurations' starts at [`CASE_TABLE_STARTS`]; each triangle's three edges, 8 bits
/// each from bit 0, at [`CASE_TABLE_TRIANGLES`]` + t`. The edges' geometry goes with the table
/// so that their numbering, like the table, is the CPU's alone.
pub(crate) fn case_table_words(table: &CaseTable) -> Vec<u32> {
    let mut words = Vec::with_capacity(CASE_TABLE_TRIANGLES + table.triangles.len());
    words.extend((0..EDGES).map(|edge| (edge_start(edge) | edge_axis(edge) << 3) as u32));
    words.extend(table.starts.iter().map(|&start| u32::from(start)));
    words.extend(table.triangles.iter().map(|triangle| {
        triangle
            .iter()
            .rev()
            .fold(0u32, |word, &edge| word << 8 | u32::from(edge))
    }));
    words
}

#[cfg(test)]
mod tests {
    use super::super::marching_cubes::case_table;
    use super::*;

    #[test]
    fn the_case_table_words_hold_the_cpu_table_and_edge_numbering() {
        let table = case_table();
        let words = case_table_words(table);
        assert_eq!(
            words.len(),
            CASE_TABLE_TRIANGLES + table.triangles.len(),
            "edges, starts, triangles"
        );
        for edge in 0..EDGES {
            let word = words[CASE_TABLE_EDGES + edge] as usize;
            assert_eq!(word & 7, edge_start(edge), "edge {edge}'s start corner");
            assert_eq!(word >> 3, edge_axis(edge), "edge {edge}'s axis");
        }
        for config in 0..=255u8 {
            let index = CASE_TABLE_STARTS + usize::from(config);
            let (first, last) = (words[index] as usize, words[index + 1] as usize);
            let decoded: Vec<[u8; 3]> = words[CASE_TABLE_TRIANGLES + first..][..last - first]
                .iter()
                .map(|&word| [0, 1, 2].map(|k| (word >> (8 * k)) as u8))
                .collect();
            assert_eq!(
                decoded,
                table.triangles_of(config),
                "configuration {config}"
            );
        }
        assert_eq!(
            words[CASE_TABLE_STARTS + 256] as usize,
            table.triangles.len()
        );
    }
}
