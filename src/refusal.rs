//! Bad input refused before any frame, with exit status 2 ([`EXIT_CODE`]) and nothing on
//! stdout: a [`Refusal`] anywhere in an error's chain (or a script's own [`ScriptError`] or
//! [`SceneError`]) is bad input, not a failure of the run.
//!
//! Before a run starts, [`RunFiles`] holds every file it reads (`--world`, the settings file,
//! `--script`, the script's `world_file` and `load` paths) and every file it writes (the
//! screenshots, the script's `save` paths, the world's autosave and its lock file, the settings
//! file and the names a broken one is kept under) and refuses a run that would write over what
//! it reads, compared by [`blockfall_game::files::identity`] (a hard link or another path to the
//! same file is the same file) and by path. The world opened with `--world` is its own save
//! target (autosave, F5), and a script may load what it saved; nothing else writes over an
//! input.
//! [`world_file`] says whether `--world` names a save or a place for a new one, and refuses a
//! path that is neither.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use blockfall_engine::gpu::GpuError;
use blockfall_game::files::{identity, FileId};
use blockfall_game::scene::{ActionSpec, SceneError, SceneFile};

use crate::script::ScriptError;

/// The exit status of a run refused for bad input (README, "Exit status").
pub const EXIT_CODE: u8 = 2;

/// Bad input: the run is refused before any frame ([`EXIT_CODE`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

impl Refusal {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// `error` and its causes as one refusal (`anyhow`'s `{:#}`).
    pub fn of(error: &anyhow::Error) -> Self {
        Self(format!("{error:#}"))
    }
}

/// Whether `error` is a refusal of bad input: a [`Refusal`], a [`ScriptError`] or a
/// [`SceneError`] anywhere in its chain, or a `--gpu N` naming no usable device.
pub fn is_refusal(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.is::<Refusal>()
            || cause.is::<ScriptError>()
            || cause.is::<SceneError>()
            || matches!(
                cause.downcast_ref::<GpuError>(),
                Some(GpuError::PreferredDeviceUnfit(_))
            )
    })
}

/// What `--world PATH` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorldFile {
    /// A file: the save to open.
    Existing,
    /// Nothing at all: a new world is made, to be saved there.
    Missing,
}

/// What `--world PATH` names: a save, or nothing (the path itself not found, and no trailing
/// slash). Anything else — a folder, a trailing slash, a link that leads nowhere or in a loop,
/// a folder that cannot be entered, a device — is refused with the reason, so that a new
/// world is never made (and later saved) where an old one could not be read.
pub fn world_file(path: &Path) -> Result<WorldFile, Refusal> {
    let refuse = |why: String| Refusal(format!("--world {}: {why}", path.display()));
    if ends_with_separator(path) {
        return Err(refuse(
            "a trailing slash (or `..`) names a folder, not a save file".into(),
        ));
    }
    let link = match fs::symlink_metadata(path) {
        Ok(link) => link,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(WorldFile::Missing),
        Err(error) => return Err(refuse(format!("cannot be read: {error}"))),
    };
    match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => Err(refuse("a folder, not a save file".into())),
        Ok(metadata) if !metadata.is_file() => {
            Err(refuse("not a regular file (a device or a pipe?)".into()))
        }
        Ok(_) => Ok(WorldFile::Existing),
        Err(error) if link.file_type().is_symlink() => Err(refuse(format!(
            "a link that leads to no readable file: {error}"
        ))),
        Err(error) => Err(refuse(format!("cannot be read: {error}"))),
    }
}

fn ends_with_separator(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    bytes
        .last()
        .is_some_and(|&last| last == b'/' || (cfg!(windows) && last == b'\\'))
        || path.file_name().is_none()
}

/// What a run does with a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `--world`: read, and saved back to (autosave, F5).
    World,
    /// The settings file: read, and written when missing or broken.
    Settings,
    /// `--script`: read.
    Script,
    /// The script's `world_file`: read.
    SceneWorld,
    /// A script's `load` event: read.
    Load,
    /// A PNG: `--screenshot` or a script's `screenshot` event.
    Screenshot,
    /// A script's `save` event: written.
    Save,
    /// The world's lock file ([`crate::world_lock`]): written by the run that holds it, and by
    /// nothing else.
    Lock,
    /// `--audio-wav`: the sound written.
    Audio,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::World => "the world (--world)",
            Role::Settings => "the settings file",
            Role::Script => "the script (--script)",
            Role::SceneWorld => "the script's world_file",
            Role::Load => "a script's load event",
            Role::Screenshot => "the screenshot",
            Role::Save => "a script's save event",
            Role::Lock => "the world's lock file",
            Role::Audio => "the sound (--audio-wav)",
        }
    }

    fn writes(self) -> bool {
        matches!(
            self,
            Role::World | Role::Settings | Role::Screenshot | Role::Save | Role::Lock | Role::Audio
        )
    }

    /// Whether, writing as `self`, the run may write the file that `other` names: the same
    /// role (the world saved to itself; screenshots or saves repeated), or a script's save that
    /// its load reads back.
    fn may_write_over(self, other: Role) -> bool {
        self == other || (self == Role::Save && other == Role::Load)
    }
}

/// A file of the run.
#[derive(Debug, Clone)]
struct Entry {
    role: Role,
    path: PathBuf,
    id: Option<FileId>,
    place: PathBuf,
}

impl Entry {
    fn same_file(&self, other: &Entry) -> bool {
        matches!((self.id, other.id), (Some(a), Some(b)) if a == b) || self.place == other.place
    }
}

/// Every file a run reads and writes, checked before it starts ([`RunFiles::check`]).
#[derive(Debug, Clone, Default)]
pub struct RunFiles {
    entries: Vec<Entry>,
}

impl RunFiles {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `path`, which the run uses as `role`.
    pub fn add(&mut self, role: Role, path: &Path) {
        self.entries.push(Entry {
            role,
            path: path.to_path_buf(),
            id: identity(path).ok().flatten(),
            place: place(path),
        });
    }

    /// Adds the script at `path` and the files its scene reads and writes.
    pub fn add_script(&mut self, path: &Path, scene: &SceneFile) {
        self.add(Role::Script, path);
        if let Some(world) = &scene.world_file {
            self.add(Role::SceneWorld, world);
        }
        for event in &scene.events {
            match &event.action {
                ActionSpec::Screenshot(shot) => self.add(Role::Screenshot, Path::new(shot)),
                ActionSpec::Save(save) => self.add(Role::Save, save),
                ActionSpec::Load(load) => self.add(Role::Load, load),
                _ => {}
            }
        }
    }

    /// The screenshot paths, each once, in order.
    pub fn screenshots(&self) -> Vec<&Path> {
        self.paths_of(Role::Screenshot)
    }

    /// The paths of a script's `save` events, each once, in order.
    pub fn saves(&self) -> Vec<&Path> {
        self.paths_of(Role::Save)
    }

    fn paths_of(&self, role: Role) -> Vec<&Path> {
        let mut paths: Vec<&Path> = Vec::new();
        for entry in &self.entries {
            if entry.role == role && !paths.contains(&entry.path.as_path()) {
                paths.push(&entry.path);
            }
        }
        paths
    }

    /// Refuses a run that would write over a file it reads (or one that another of its outputs
    /// writes): the message names both paths and what the run does with each.
    pub fn check(&self) -> Result<(), Refusal> {
        for (i, a) in self.entries.iter().enumerate() {
            for b in &self.entries[i + 1..] {
                let clash = (a.role.writes() && !a.role.may_write_over(b.role))
                    || (b.role.writes() && !b.role.may_write_over(a.role));
                if clash && a.same_file(b) {
                    let (writer, other) = if b.role.writes() && !b.role.may_write_over(a.role) {
                        (b, a)
                    } else {
                        (a, b)
                    };
                    return Err(Refusal(format!(
                        "{} {} would write over {} {}: they are the same file; nothing was \
                         run or written (give another path)",
                        writer.role.name(),
                        writer.path.display(),
                        other.role.name(),
                        other.path.display()
                    )));
                }
            }
        }
        // The names a broken settings file is kept under are the settings' own.
        for settings in self.entries.iter().filter(|e| e.role == Role::Settings) {
            for other in &self.entries {
                if other.role.writes()
                    && other.role != Role::Settings
                    && other.place.parent() == settings.place.parent()
                    && blockfall_game::settings::is_bad_path_of(&other.place, &settings.place)
                {
                    return Err(Refusal(format!(
                        "{} {} would write where {} {} keeps a broken file; nothing was run or \
                         written (give another path)",
                        other.role.name(),
                        other.path.display(),
                        settings.role.name(),
                        settings.path.display()
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Where `path` is, whatever way it was written: the real path when it exists, else its real
/// folder and its name, else the absolute path with `.` and `..` worked out.
fn place(path: &Path) -> PathBuf {
    let absolute = std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_path_buf());
    if let Ok(real) = fs::canonicalize(&absolute) {
        return real;
    }
    let lexical = lexical(&absolute);
    match (lexical.parent(), lexical.file_name()) {
        (Some(parent), Some(name)) => match fs::canonicalize(parent) {
            Ok(real) => real.join(name),
            Err(_) => lexical.clone(),
        },
        _ => lexical.clone(),
    }
}

/// `path` with `.` left out and `..` taking off the name before it.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("blockfall-refusal-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn outputs_over_inputs_are_refused_and_the_world_saves_to_itself() {
        let dir = scratch("clash");
        let world = dir.join("w.blockfall");
        fs::write(&world, b"save").unwrap();
        let linked = dir.join("linked.png");
        fs::hard_link(&world, &linked).unwrap();

        let mut files = RunFiles::new();
        files.add(Role::World, &world);
        files.add(Role::World, &dir.join(".").join("w.blockfall"));
        assert_eq!(files.check(), Ok(()), "the world is its own save");

        for (role, path) in [
            (Role::Screenshot, world.clone()),
            (Role::Screenshot, linked.clone()),
            (Role::Settings, world.clone()),
            (
                Role::Screenshot,
                dir.join("sub").join("..").join("w.blockfall"),
            ),
        ] {
            let mut files = RunFiles::new();
            files.add(Role::World, &world);
            files.add(role, &path);
            let refusal = files.check().unwrap_err();
            assert!(
                refusal.0.contains(&path.display().to_string())
                    && refusal.0.contains(&world.display().to_string()),
                "{refusal}"
            );
        }

        // A script may load what it saves; not save over its own file.
        let script = dir.join("s.json");
        fs::write(&script, b"{}").unwrap();
        let mut files = RunFiles::new();
        files.add(Role::Script, &script);
        files.add(Role::Save, &dir.join("mid.blockfall"));
        files.add(Role::Load, &dir.join("mid.blockfall"));
        files.add(Role::Screenshot, &dir.join("a.png"));
        files.add(Role::Screenshot, &dir.join("a.png"));
        assert_eq!(files.check(), Ok(()));
        files.add(Role::Settings, &script);
        assert!(files.check().is_err());

        // Nor anything over the world's lock file.
        let lock = crate::world_lock::lock_path(&world);
        let mut files = RunFiles::new();
        files.add(Role::World, &world);
        files.add(Role::Lock, &lock);
        assert_eq!(files.check(), Ok(()));
        files.add(Role::Screenshot, &lock);
        let refusal = files.check().unwrap_err();
        assert!(refusal.0.contains("lock file"), "{refusal}");

        // Nor a screenshot where broken settings are kept.
        let mut files = RunFiles::new();
        files.add(Role::Settings, &dir.join("mine.ron"));
        files.add(Role::Screenshot, &dir.join("mine.ron.bad.2"));
        assert!(files.check().is_err());
        fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn missing_means_missing() {
        let dir = scratch("world");
        assert_eq!(
            world_file(&dir.join("new.blockfall")),
            Ok(WorldFile::Missing)
        );
        assert_eq!(
            world_file(&dir.join("deeper").join("new.blockfall")),
            Ok(WorldFile::Missing)
        );
        let save = dir.join("old.blockfall");
        fs::write(&save, b"x").unwrap();
        assert_eq!(world_file(&save), Ok(WorldFile::Existing));
        let trailing = PathBuf::from(format!("{}/", dir.join("gone.blockfall").display()));
        assert!(world_file(&trailing)
            .unwrap_err()
            .0
            .contains("trailing slash"));
        assert!(world_file(&dir).unwrap_err().0.contains("folder"));
        assert!(world_file(&save.join("under")).is_err(), "under a file");
        #[cfg(unix)]
        {
            let looped = dir.join("loop.blockfall");
            std::os::unix::fs::symlink(&looped, &looped).unwrap();
            assert!(world_file(&looped).is_err());
            let dangling = dir.join("dangling.blockfall");
            std::os::unix::fs::symlink(dir.join("nothing"), &dangling).unwrap();
            assert!(world_file(&dangling).unwrap_err().0.contains("link"));
        }
        fs::remove_dir_all(dir).ok();
    }
}
