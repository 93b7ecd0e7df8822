//! Why a scene cannot run: a parse error, a value out of range (named by its place in the
//! scene), or a failed write of the trace.

/// Why a scene cannot run. The text names the place in the scene.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// Not JSON, or not a scene: where (the key path, as `blocks[2].cell`, empty for the whole
    /// file), the line and column (from 1), and what is wrong there, its quotes of the file
    /// shortened.
    #[error("{}line {line} column {column}: {message}", place_prefix(place))]
    Json {
        place: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The file could not be read, or is too large to be a scene.
    #[error("{0}")]
    Unreadable(String),
    /// A line of the trace could not be made (serde's message).
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

fn place_prefix(place: &str) -> String {
    if place.is_empty() {
        String::new()
    } else {
        format!("{place}, ")
    }
}

/// The longest message quoted from a reader, in characters: a 100 MB key or name is not echoed.
const LONGEST_MESSAGE: usize = 300;

/// `message` cut to about [`LONGEST_MESSAGE`] characters, its start and end kept.
pub(super) fn shortened(message: &str) -> String {
    let count = message.chars().count();
    if count <= LONGEST_MESSAGE {
        return message.to_owned();
    }
    let head: String = message.chars().take(LONGEST_MESSAGE - 60).collect();
    let tail: String = message.chars().skip(count - 50).collect();
    format!(
        "{head} … ({} characters left out) … {tail}",
        count - LONGEST_MESSAGE + 10
    )
}

impl SceneError {
    /// A reader's error at `place` (a key path; `.` or empty for the whole file).
    pub(super) fn json(place: &str, error: &serde_json::Error) -> SceneError {
        let text = error.to_string();
        let located = format!(" at line {} column {}", error.line(), error.column());
        let message = text.strip_suffix(&located).unwrap_or(&text);
        SceneError::Json {
            // A key path quotes the file's keys, which may be of any length.
            place: if place == "." {
                String::new()
            } else {
                shortened(place)
            },
            line: error.line(),
            column: error.column(),
            message: shortened(message),
        }
    }
}
