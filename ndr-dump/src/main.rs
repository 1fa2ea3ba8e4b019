//! `ndr-dump`: reads an NDR stream (format frames and record messages) from standard input and
//! prints each record as one line of JSON, decoded with the format that came before it in the
//! stream (see `ndr-dump --help`).

mod args;
mod describe;
mod frames;

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::process::ExitCode;

use wire_ndr::{parse_frame, DynRecord, Frame, Receiver, Value, HEADER_LEN};

use args::{Command, Options};
use frames::{Frames, StreamError};

fn main() -> ExitCode {
    let opts = match args::parse(std::env::args_os().skip(1)) {
        Ok(Command::Dump(opts)) => opts,
        Ok(Command::Help) => {
            print!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("ndr-dump: {why} (see ndr-dump --help)");
            return ExitCode::from(2);
        }
    };
    let mut out = io::stdout().lock();
    match run(&opts, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(why)) => {
            // The records before the error are out already: each line is written whole.
            let _ = out.flush();
            eprintln!("ndr-dump: {why}");
            ExitCode::FAILURE
        }
        // The reader went away (`ndr-dump | head`): nothing more to do.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            eprintln!("ndr-dump: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why the dump stopped early.
enum Failure {
    /// Bad input: a message naming the source, the frame and its offset.
    Input(String),
    /// The output could not be written.
    Output(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Output(e)
    }
}

fn run(opts: &Options, out: &mut impl Write) -> Result<(), Failure> {
    let mut d = Dumper {
        rx: Receiver::new(),
        formats: opts.formats,
        out,
    };
    for path in &opts.format_files {
        let file = File::open(path)
            .map_err(|e| Failure::Input(format!("cannot open {}: {e}", path.display())))?;
        d.stream(&path.display().to_string(), BufReader::new(file), false)?;
    }
    d.stream("stdin", io::stdin().lock(), true)
}

struct Dumper<'o, W> {
    /// The formats seen so far.
    rx: Receiver,
    /// Print a line for each format.
    formats: bool,
    out: &'o mut W,
}

impl<W: Write> Dumper<'_, W> {
    /// Dumps every frame of `input` (named `source` in errors); record messages are an error
    /// unless `records`.
    fn stream(&mut self, source: &str, input: impl Read, records: bool) -> Result<(), Failure> {
        let mut frames = Frames::new(input);
        let input_error = |e: StreamError| Failure::Input(format!("{source}: {e}"));
        while let Some((at, bytes)) = frames.next_frame().map_err(input_error)? {
            self.frame(at, &bytes, records).map_err(|e| match e {
                Stop::Input(e) => input_error(e),
                Stop::Output(e) => Failure::Output(e),
            })?;
        }
        Ok(())
    }

    /// One whole frame at `at`.
    fn frame(&mut self, at: frames::Position, bytes: &[u8], records: bool) -> Result<(), Stop> {
        match parse_frame(bytes).map_err(|e| StreamError::wire(at, &e))? {
            Frame::Format(f) => {
                if self.formats {
                    let line = describe::format_json(&f) + "\n";
                    self.out.write_all(line.as_bytes())?;
                }
                self.rx.register(f);
            }
            Frame::Record(_) if !records => {
                return Err(StreamError::new(
                    at,
                    "a record message, where only format frames may be",
                )
                .into())
            }
            Frame::Record(m) => {
                let Some(format) = self.rx.format(m.id) else {
                    return Err(StreamError::new(
                        at,
                        format!(
                            "unknown format id {}: no format frame with this id came before \
                             the record",
                            m.id
                        ),
                    )
                    .into());
                };
                let record = DynRecord::decode(format, m.body)
                    .map_err(|e| StreamError::wire(at, &e.shifted(HEADER_LEN)))?;
                let line = format!(
                    "{{\"format\":{},\"id\":\"{}\",\"record\":{record}}}\n",
                    Value::String(format.name().to_owned()),
                    m.id
                );
                // One write per line, so a failure later leaves only whole lines behind.
                self.out.write_all(line.as_bytes())?;
            }
        }
        Ok(())
    }
}

/// Why a frame stopped the dump.
enum Stop {
    Input(StreamError),
    Output(io::Error),
}

impl From<StreamError> for Stop {
    fn from(e: StreamError) -> Stop {
        Stop::Input(e)
    }
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Output(e)
    }
}
