//! The error of every front end: where (file, line, column), what, and the source line.

use std::fmt;
use std::path::{Path, PathBuf};

/// A position in a source file: line and column both count from 1 (columns in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Index of the file in the preprocessor's file table.
    pub file: usize,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

impl Pos {
    /// The start of the file given to the front end: where errors that belong to no token
    /// (the generated code itself, an option) point.
    pub const START: Pos = Pos {
        file: 0,
        line: 1,
        col: 1,
    };
}

/// Where an error is: the file, line and column, and the text of that line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Location {
    file: PathBuf,
    line: u32,
    col: u32,
    source_line: String,
}

/// An error of `marshal_build`: a syntax or semantic error in an IDL file (with its location),
/// or a file that could not be read or written.
///
/// Its `Display` reads like rustc's: `file:line:col: message`, then the source line and a
/// caret under the column (columns count from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    location: Option<Location>,
    message: String,
}

impl Error {
    /// An error at `line:col` of `file`, whose text at that line is `source_line`.
    pub(crate) fn at(
        file: &Path,
        line: u32,
        col: u32,
        source_line: &str,
        message: impl Into<String>,
    ) -> Error {
        Error {
            location: Some(Location {
                file: file.to_path_buf(),
                line,
                col,
                source_line: source_line.trim_end_matches(['\r', '\n']).to_string(),
            }),
            message: message.into(),
        }
    }

    /// An error about a whole file (`file: message`), or none (`message`).
    pub(crate) fn file(file: Option<&Path>, message: impl Into<String>) -> Error {
        let message = message.into();
        Error {
            location: None,
            message: match file {
                Some(f) => format!("{}: {message}", f.display()),
                None => message,
            },
        }
    }

    /// What went wrong, without the location.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The file the error is in, when it has a location.
    pub fn path(&self) -> Option<&Path> {
        self.location.as_ref().map(|l| l.file.as_path())
    }

    /// The line and column (both from 1), when the error has a location.
    pub fn line_col(&self) -> Option<(u32, u32)> {
        self.location.as_ref().map(|l| (l.line, l.col))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(l) = &self.location else {
            return f.write_str(&self.message);
        };
        write!(
            f,
            "{}:{}:{}: {}",
            l.file.display(),
            l.line,
            l.col,
            self.message
        )?;
        let gutter = l.line.to_string();
        let pad = " ".repeat(gutter.len());
        // The caret line keeps the source's tabs, so the caret lines up however tabs show.
        let indent: String = l
            .source_line
            .chars()
            .take(l.col.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(
            f,
            "\n{pad} |\n{gutter} | {}\n{pad} | {indent}^",
            l.source_line
        )
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_location_line_and_caret() {
        let e = Error::at(Path::new("a.x"), 3, 5, "int x;\n", "expected `;`");
        assert_eq!(
            e.to_string(),
            "a.x:3:5: expected `;`\n  |\n3 | int x;\n  |     ^"
        );
        assert_eq!(e.line_col(), Some((3, 5)));
        assert_eq!(e.path(), Some(Path::new("a.x")));
    }

    #[test]
    fn caret_follows_tabs() {
        let e = Error::at(Path::new("a.x"), 10, 3, "\tx y", "bad");
        assert!(e.to_string().ends_with("10 | \tx y\n   | \t ^"), "{e}");
    }

    #[test]
    fn file_error_has_no_caret() {
        let e = Error::file(Some(Path::new("b.x")), "cannot read: gone");
        assert_eq!(e.to_string(), "b.x: cannot read: gone");
    }
}
