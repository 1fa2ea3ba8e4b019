//! The command line: a few flags, parsed by hand.

use std::ffi::OsString;
use std::path::PathBuf;

pub const USAGE: &str = "\
ndr-dump: prints the records of an NDR stream as JSON, one line each

Usage: ndr-dump [--formats] [--format-file FILE]... < STREAM

Reads format frames (NDRf) and record messages (NDRr) from standard input, in any order, and
prints each record as
  {\"format\":\"<name>\",\"id\":\"<hex id>\",\"record\":{...}}
A record's format must come before it in the stream, or from --format-file (so a single bare
message can be decoded).

Options:
  --formats            also print a line for each format: name, id, byte order, size, fields
  --format-file FILE   read format frames from FILE first (repeatable)
  -h, --help           print this help

Exit status: 0 when the whole stream was read; 1 on a bad or truncated frame or a record of an
unknown format, after printing the records before it (stderr names the frame, counted from 0,
and its byte offset in the stream); 2 on a bad command line.
";

/// What the command line asks for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Print a line for each format.
    pub formats: bool,
    /// Files of format frames to read before the stream.
    pub format_files: Vec<PathBuf>,
}

/// What to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Dump(Options),
    Help,
}

/// Parses the arguments (without the program's name). Errors say what is wrong, in words.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut opts = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(s) = arg.to_str() else {
            return Err(format!("unexpected argument {arg:?}"));
        };
        match s {
            "-h" | "--help" => return Ok(Command::Help),
            "--formats" => opts.formats = true,
            "--format-file" => match args.next() {
                Some(path) => opts.format_files.push(path.into()),
                None => return Err("--format-file needs a file name".into()),
            },
            _ => match s.strip_prefix("--format-file=") {
                Some(path) if !path.is_empty() => opts.format_files.push(path.into()),
                _ => return Err(format!("unexpected argument `{s}`")),
            },
        }
    }
    Ok(Command::Dump(opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Result<Command, String> {
        parse(a.iter().map(OsString::from))
    }

    #[test]
    fn flags() {
        assert_eq!(args(&[]), Ok(Command::Dump(Options::default())));
        assert_eq!(
            args(&["--formats", "--format-file", "a", "--format-file=b"]),
            Ok(Command::Dump(Options {
                formats: true,
                format_files: vec!["a".into(), "b".into()],
            }))
        );
        assert_eq!(args(&["--formats", "-h"]), Ok(Command::Help));
        assert_eq!(args(&["--help", "junk"]), Ok(Command::Help));
        assert_eq!(
            args(&["--format-file"]),
            Err("--format-file needs a file name".into())
        );
        assert_eq!(args(&["-x"]), Err("unexpected argument `-x`".into()));
        assert_eq!(
            args(&["--format-file="]),
            Err("unexpected argument `--format-file=`".into())
        );
    }
}
