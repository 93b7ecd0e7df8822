//! Which mesher makes the terrain's surface: the two methods of the design's terrain chapter,
//! for the player to compare live (the M key), both on the same density grids.

/// One of the two meshers. Settings files spell it as its variant (`SurfaceNets`,
/// `MarchingCubes`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Mesher {
    /// One vertex per cell the surface cuts, one quad per sign-changing edge
    /// ([`super::SurfaceNets`]).
    #[default]
    SurfaceNets,
    /// Triangles per cell from a case table, vertices on the edges
    /// ([`super::MarchingCubes`]). It ignores the skirt (`ChunkToMesh::skirt`,
    /// [`super::GpuMesher::upload_with_skirt`]): its meshes have none, whatever the depth.
    MarchingCubes,
}

impl Mesher {
    /// Both, in the order the M key goes through them.
    pub const ALL: [Mesher; 2] = [Mesher::SurfaceNets, Mesher::MarchingCubes];

    /// As the HUD names it ("Surface nets: 534 chunks, 0 waiting").
    pub fn label(self) -> &'static str {
        match self {
            Mesher::SurfaceNets => "Surface nets",
            Mesher::MarchingCubes => "Marching cubes",
        }
    }

    /// As settings and command lines spell it.
    pub fn name(self) -> &'static str {
        match self {
            Mesher::SurfaceNets => "surface-nets",
            Mesher::MarchingCubes => "marching-cubes",
        }
    }

    /// The mesher a name ([`Mesher::name`]) spells, or a message that lists the names.
    pub fn from_name(name: &str) -> Result<Mesher, String> {
        Mesher::ALL
            .into_iter()
            .find(|mesher| mesher.name() == name)
            .ok_or_else(|| {
                let shown: String = name.chars().take(60).collect();
                let more = if shown.len() < name.len() { "…" } else { "" };
                format!(
                    "no mesher `{shown}{more}`: one of {}",
                    Mesher::ALL.map(Mesher::name).join(", ")
                )
            })
    }

    /// Its place in [`Mesher::ALL`]: for what is kept per mesher in an array.
    pub fn index(self) -> usize {
        match self {
            Mesher::SurfaceNets => 0,
            Mesher::MarchingCubes => 1,
        }
    }

    /// The other one (what the M key switches to).
    pub fn other(self) -> Mesher {
        match self {
            Mesher::SurfaceNets => Mesher::MarchingCubes,
            Mesher::MarchingCubes => Mesher::SurfaceNets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_the_other_of_the_other_is_itself() {
        for mesher in Mesher::ALL {
            assert_eq!(Mesher::from_name(mesher.name()), Ok(mesher));
            assert_eq!(mesher.other().other(), mesher);
            assert_ne!(mesher.other(), mesher);
            assert_eq!(Mesher::ALL[mesher.index()], mesher);
        }
        let error = Mesher::from_name(&"x".repeat(10_000)).unwrap_err();
        assert!(
            error.len() < 200 && error.contains("surface-nets, marching-cubes"),
            "{error}"
        );
    }
}
