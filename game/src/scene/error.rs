//! Why a scene cannot run: a parse error, a value out of range (named by its place in the
//! scene), or a failed write of the trace.

/// Why a scene cannot run. The text names the place in the scene.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// Not JSON, or not a scene: serde's message has the line and column.
    #[error("{0}")]
    Parse(#[from] serde_json::Error),
    /// A value out of its range, or something the world refuses.
    #[error("{place}: {problem}")]
    Invalid { place: String, problem: String },
    /// Writing the trace failed (a closed pipe, a full disk).
    #[error("writing the trace: {0}")]
    Output(#[from] std::io::Error),
}

/// A scene's value out of its range, or refused by the world, at `place`.
pub(super) fn invalid(place: impl Into<String>, problem: impl Into<String>) -> SceneError {
    SceneError::Invalid {
        place: place.into(),
        problem: problem.into(),
    }
}
