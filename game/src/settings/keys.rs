//! A settings file read key by key: the top level of `settings.ron` is a struct, `( key: value,
//! … )`, and each key's value is read on its own, so that one bad value sets aside that value
//! alone ([`Settings::from_ron_by_key`]). The split is found by a small scanner that knows
//! RON's brackets, strings and comments; a file whose top level it cannot split (bad syntax
//! around the keys, text after the closing bracket) is read whole, and broken whole.

use super::{Settings, SettingsError};

/// One `key: value` of the top level: the key, where its text starts and its value ends (byte
/// offsets), and the key's line (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    key: String,
    start: usize,
    end: usize,
    line: usize,
}

/// A value set aside: its key and what is wrong with it (the line is the file's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadValue {
    /// The setting's key (`width`).
    pub key: String,
    pub error: SettingsError,
}

/// Reads RON text byte by byte, counting lines.
struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        if byte == b'\n' {
            self.line += 1;
        }
        Some(byte)
    }

    /// Skips white space and comments (`// …` to the line's end, `/* … */`, nested as RON
    /// nests them); `None` for a block comment never closed.
    fn skip_blank(&mut self) -> Option<()> {
        loop {
            match (self.peek(), self.text.get(self.at + 1).copied()) {
                (Some(byte), _) if byte.is_ascii_whitespace() => {
                    self.bump();
                }
                (Some(b'/'), Some(b'/')) => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.bump();
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    self.at += 2;
                    let mut depth = 1;
                    while depth > 0 {
                        match (self.bump()?, self.peek()) {
                            (b'*', Some(b'/')) => {
                                self.at += 1;
                                depth -= 1;
                            }
                            (b'/', Some(b'*')) => {
                                self.at += 1;
                                depth += 1;
                            }
                            _ => {}
                        }
                    }
                }
                _ => return Some(()),
            }
        }
    }

    /// An identifier (`width`, `Settings`), if one starts here.
    fn identifier(&mut self) -> Option<String> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
        {
            self.bump();
        }
        (self.at > start && !self.text[start].is_ascii_digit())
            .then(|| String::from_utf8_lossy(&self.text[start..self.at]).into_owned())
    }

    /// A quoted string or character, its quote `quote` already seen; `None` when never closed.
    fn quoted(&mut self, quote: u8) -> Option<()> {
        loop {
            match self.bump()? {
                b'\\' => {
                    self.bump()?;
                }
                byte if byte == quote => return Some(()),
                _ => {}
            }
        }
    }

    /// A value: up to the `,` or `)` that ends it at the top level (not taken). `None` when
    /// its brackets or strings are never closed.
    fn value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            self.skip_blank()?;
            match self.peek()? {
                b',' | b')' if depth == 0 => return Some(()),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.checked_sub(1)?,
                quote @ (b'"' | b'\'') => {
                    self.bump();
                    self.quoted(quote)?;
                    continue;
                }
                _ => {}
            }
            self.bump();
        }
    }
}

/// The top level's entries, or `None` when the text is not `NAME? ( key: value, … )` with
/// nothing but blanks after it.
fn entries(text: &str) -> Option<Vec<Entry>> {
    let mut scan = Scanner {
        text: text.as_bytes(),
        at: 0,
        line: 1,
    };
    scan.skip_blank()?;
    if scan.peek() != Some(b'(') {
        scan.identifier()?;
        scan.skip_blank()?;
    }
    if scan.bump()? != b'(' {
        return None;
    }
    let mut found = Vec::new();
    loop {
        scan.skip_blank()?;
        if scan.peek()? == b')' {
            scan.bump();
            break;
        }
        let (start, line) = (scan.at, scan.line);
        let key = scan.identifier()?;
        scan.skip_blank()?;
        if scan.bump()? != b':' {
            return None;
        }
        scan.value()?;
        found.push(Entry {
            key,
            start,
            end: scan.at,
            line,
        });
        if scan.peek()? == b',' {
            scan.bump();
        }
    }
    scan.skip_blank()?;
    scan.peek().is_none().then_some(found)
}

impl Settings {
    /// The settings in `text` read key by key: each value that cannot be read (out of its
    /// range, of the wrong kind, an unknown key, a key set twice) is set aside with what is
    /// wrong with it, and its key keeps its default; every other value is kept. `Err` only
    /// when the file's top level cannot be split into its keys (then [`Settings::from_ron`]'s
    /// error for the whole file).
    pub fn from_ron_by_key(
        text: &str,
        file: &str,
    ) -> Result<(Settings, Vec<BadValue>), SettingsError> {
        let Some(found) = entries(text) else {
            return Settings::from_ron(text, file).map(|settings| (settings, Vec::new()));
        };
        let mut good = String::from("(\n");
        let mut bad = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for entry in &found {
            let own = &text[entry.start..entry.end];
            let error = if seen.contains(&entry.key.as_str()) {
                Some(SettingsError {
                    file: file.to_owned(),
                    line: Some(entry.line),
                    message: format!(
                        "`{}` is set twice (the first is kept)",
                        super::quoted(&entry.key)
                    ),
                })
            } else {
                // Read alone, its lines counted from the key's.
                Settings::from_ron(&format!("({own})"), file)
                    .err()
                    .map(|mut error| {
                        error.line = error.line.map(|line| line + entry.line - 1);
                        error
                    })
            };
            match error {
                Some(error) => bad.push(BadValue {
                    key: entry.key.clone(),
                    error,
                }),
                None => {
                    seen.push(&entry.key);
                    good.push_str(own);
                    good.push_str(",\n");
                }
            }
        }
        good.push(')');
        // Each value was read alone; read together they are the same values.
        let settings = Settings::from_ron(&good, file)?;
        Ok((settings, bad))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_level_splits_into_its_keys_past_strings_comments_and_brackets() {
        let text = "// a note\nSettings( /* (a comment) */\n    width: 640, // ,)\n    \
                    bindings: {\n        fly: [KeyF],\n    },\n    name: \"a, b)\",\n)\n";
        let found = entries(text).expect("split");
        let keys: Vec<(&str, usize)> = found.iter().map(|e| (e.key.as_str(), e.line)).collect();
        assert_eq!(keys, [("width", 3), ("bindings", 4), ("name", 7)]);
        assert_eq!(&text[found[0].start..found[0].end], "width: 640");
        assert!(text[found[1].start..found[1].end].ends_with('}'));
        for broken in [
            "",
            "(width: 1",
            "(width: 1) trailing",
            "(width 1)",
            "(: 1)",
            "(a: [1)",
            "(a: \"open)",
            "/* open",
        ] {
            assert_eq!(entries(broken), None, "{broken:?}");
        }
        assert_eq!(entries("()"), Some(Vec::new()));
    }

    #[test]
    fn one_bad_value_keeps_the_others_and_names_its_key_and_line() {
        let text = "(\n    fov_degrees: 100,\n    width: 90000,\n    invert_mouse_y: true,\n)";
        let (settings, bad) = Settings::from_ron_by_key(text, "settings.ron").unwrap();
        assert_eq!(settings.fov_degrees, 100.0);
        assert!(settings.invert_mouse_y);
        assert_eq!(settings.width, Settings::default().width);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].key, "width");
        assert_eq!(bad[0].error.line, Some(3));
        assert!(bad[0].error.message.contains("90000"), "{:?}", bad[0]);
        // A value over several lines: the line inside it.
        let text =
            "(\n  width: 700,\n  bindings: {\n    jump: [Space],\n    fly: [KeyFF],\n  },\n)";
        let (settings, bad) = Settings::from_ron_by_key(text, "settings.ron").unwrap();
        assert_eq!(settings.width, 700);
        assert_eq!(bad[0].key, "bindings");
        assert_eq!(bad[0].error.line, Some(5));
        // Set twice: the first is kept.
        let (settings, bad) =
            Settings::from_ron_by_key("(width: 800, width: 900)", "s.ron").unwrap();
        assert_eq!(settings.width, 800);
        assert!(bad[0].error.message.contains("set twice"), "{bad:?}");
        // A top level that does not split is read whole.
        assert!(Settings::from_ron_by_key("(width: 800", "s.ron").is_err());
    }
}
