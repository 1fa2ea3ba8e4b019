//! `marshal-build xdr|idl [-I dir]... [-D NAME[=VALUE]]... [options] file [-o out.rs]`: the `.x` and
//! CORBA IDL front ends from the command line, for code that is checked in (without `-o`, to
//! standard output).

use std::process::ExitCode;

const USAGE: &str =
    "usage: marshal-build xdr [-I dir]... [-D NAME[=VALUE]]... [--borrowed] [--marshal-path PATH] [--async-client] [--async-server] file.x [-o out.rs]
       marshal-build idl [-I dir]... [-D NAME[=VALUE]]... [--borrowed] [--async-client] [--async-server] file.idl [-o out.rs]";

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

/// One front end's settings, whichever the subcommand chose.
enum Front {
    Xdr(marshal_build::xdr::Config),
    Idl(marshal_build::idl::Config),
}

impl Front {
    fn include_dir(&mut self, dir: String) {
        match self {
            Front::Xdr(c) => drop(c.include_dir(dir)),
            Front::Idl(c) => drop(c.include_dir(dir)),
        }
    }

    fn define(&mut self, name: &str) {
        match self {
            Front::Xdr(c) => drop(c.define(name)),
            Front::Idl(c) => drop(c.define(name)),
        }
    }

    fn borrowed(&mut self) -> Result<(), String> {
        match self {
            Front::Xdr(c) => drop(c.borrowed(true)),
            Front::Idl(c) => drop(c.borrowed(true)),
        }
        Ok(())
    }

    fn marshal_path(&mut self, path: &str) -> Result<(), String> {
        match self {
            Front::Xdr(c) => drop(c.marshal_path(path)),
            Front::Idl(_) => return Err(format!("`--marshal-path` is for `xdr`\n{USAGE}")),
        }
        Ok(())
    }

    fn async_client(&mut self) {
        match self {
            Front::Xdr(c) => drop(c.async_client(true)),
            Front::Idl(c) => drop(c.async_client(true)),
        }
    }

    fn async_server(&mut self) {
        match self {
            Front::Xdr(c) => drop(c.async_server(true)),
            Front::Idl(c) => drop(c.async_server(true)),
        }
    }

    fn generate(&self, file: &str) -> Result<String, marshal_build::Error> {
        match self {
            Front::Xdr(c) => c.generate(file),
            Front::Idl(c) => c.generate(file),
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let mut it = args.iter();
    let mut front = match it.next().map(String::as_str) {
        Some("xdr") => Front::Xdr(marshal_build::xdr::Config::new()),
        Some("idl") => Front::Idl(marshal_build::idl::Config::new()),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return Ok(());
        }
        _ => return Err(USAGE.to_string()),
    };
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
            front.include_dir(value("-I", rest)?);
        } else if let Some(rest) = a.strip_prefix("-D") {
            front.define(&value("-D", rest)?);
        } else if a == "--borrowed" {
            front.borrowed()?;
        } else if a == "--marshal-path" {
            let p = value("--marshal-path", "")?;
            front.marshal_path(&p)?;
        } else if a == "--async-client" {
            front.async_client();
        } else if a == "--async-server" {
            front.async_server();
        } else if a == "-o" {
            output = Some(value("-o", "")?);
        } else if a.starts_with('-') {
            return Err(format!("unknown option `{a}`\n{USAGE}"));
        } else if input.replace(a.clone()).is_some() {
            return Err(format!("one input file only\n{USAGE}"));
        }
    }
    let input = input.ok_or_else(|| USAGE.to_string())?;
    let code = front.generate(&input).map_err(|e| e.to_string())?;
    match output {
        Some(o) => std::fs::write(&o, code).map_err(|e| format!("{o}: cannot write: {e}")),
        None => {
            print!("{code}");
            Ok(())
        }
    }
}
