//! `marshal-build xdr [-I dir]... [-D NAME[=VALUE]]... file.x [-o out.rs]`: the `.x` front end
//! from the command line, for code that is checked in (without `-o`, to standard output).

use std::process::ExitCode;

const USAGE: &str = "usage: marshal-build xdr [-I dir]... [-D NAME[=VALUE]]... file.x [-o out.rs]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("xdr") => {}
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return Ok(());
        }
        _ => return Err(USAGE.to_string()),
    }
    let mut cfg = marshal_build::xdr::Config::new();
    let mut input = None;
    let mut output = None;
    while let Some(a) = it.next() {
        let mut value = |flag: &str, inline: &str| -> Result<String, String> {
            if inline.is_empty() {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("`{flag}` needs a value\n{USAGE}"))
            } else {
                Ok(inline.to_string())
            }
        };
        if let Some(rest) = a.strip_prefix("-I") {
            cfg.include_dir(value("-I", rest)?);
        } else if let Some(rest) = a.strip_prefix("-D") {
            cfg.define(&value("-D", rest)?);
        } else if a == "-o" {
            output = Some(value("-o", "")?);
        } else if a.starts_with('-') {
            return Err(format!("unknown option `{a}`\n{USAGE}"));
        } else if input.replace(a.clone()).is_some() {
            return Err(format!("one input file only\n{USAGE}"));
        }
    }
    let input = input.ok_or_else(|| USAGE.to_string())?;
    let code = cfg.generate(&input).map_err(|e| e.to_string())?;
    match output {
        Some(o) => std::fs::write(&o, code).map_err(|e| format!("{o}: cannot write: {e}")),
        None => {
            print!("{code}");
            Ok(())
        }
    }
}
