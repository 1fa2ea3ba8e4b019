//! Debian's `omniorb-idl` package through marshal-build: every `.idl` file of
//! `/usr/share/idl/omniORB` and its `COS/` either generates (the files `build.rs` compiles and
//! `src/lib.rs` type-checks, `OMNIORB_IDL`) or fails with a located error, and types of the
//! generated files round-trip through CDR with the IDL's layout.

use std::path::{Path, PathBuf};

use marshal::cdr::{from_slice, to_vec, ByteOrder};
use marshal_build_tests::omniorb::{
    cos_naming_idl::cos_naming, lname_library_idl::l_name_component, rdi_test_types_idl,
    time_base_idl::time_base, OMNIORB_IDL,
};

const OMNI: &str = "/usr/share/idl/omniORB";

/// Every `.idl` file of the package, as `COS/…` for the services.
fn package_files() -> Vec<String> {
    let mut files = Vec::new();
    for (dir, prefix) in [
        (PathBuf::from(OMNI), ""),
        (Path::new(OMNI).join("COS"), "COS/"),
    ] {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: install Debian's omniorb-idl (scripts/test.sh does)",
                dir.display()
            )
        });
        for entry in entries {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".idl") {
                files.push(format!("{prefix}{name}"));
            }
        }
    }
    files.sort();
    files
}

fn generate(file: &str) -> Result<String, marshal_build::Error> {
    marshal_build::idl::Config::new()
        .include_dir(OMNI)
        .include_dir(Path::new(OMNI).join("COS"))
        .generate(Path::new(OMNI).join(file))
}

/// Checks that `e` reads `path:line:col: message`, then the source line and a caret under
/// the column, and that the source line is the one in the file; returns the message.
fn check_located(file: &str, e: &marshal_build::Error) -> String {
    let shown = e.to_string();
    let path = e
        .path()
        .unwrap_or_else(|| panic!("{file}: the error has no location: {shown}"));
    let (line, col) = e.line_col().expect("a located error has a line and column");
    let head = format!("{}:{line}:{col}: ", path.display());
    assert!(shown.starts_with(&head), "{file}: {shown}");
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{file}: the error's file {}: {e}", path.display()));
    let source = text
        .lines()
        .nth(line as usize - 1)
        .unwrap_or_else(|| panic!("{file}: {} has no line {line}", path.display()));
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 4, "{file}: {shown}");
    assert_eq!(lines[2], format!("{line} | {source}"), "{file}: {shown}");
    let gutter = " ".repeat(line.to_string().len());
    let caret = lines[3]
        .strip_prefix(&format!("{gutter} | "))
        .unwrap_or_else(|| panic!("{file}: no caret line: {shown}"));
    assert_eq!(caret.chars().count(), col as usize, "{file}: {shown}");
    assert!(caret.ends_with('^'), "{file}: {shown}");
    // The caret is on what the message names: `any`, `TypeCode`, `<IOP.idl>`, …
    let named = e
        .message()
        .split('`')
        .nth(1)
        .expect("the message names a token");
    let at: String = source.chars().skip(col as usize - 1).collect();
    assert!(
        at.trim_start_matches(['<', '"']).starts_with(named),
        "{file}: the caret is not on `{named}`: {shown}"
    );
    e.message().to_string()
}

#[test]
fn every_package_file_generates_or_fails_located() {
    let files = package_files();
    // The package (4.2.5) has 14 files and 57 in COS/: a listing that found none fails.
    assert!(files.len() >= 60, "only {} files: {files:?}", files.len());
    for f in OMNIORB_IDL {
        assert!(files.iter().any(|x| x == f), "{f} is not in the package");
    }
    let mut generated = 0;
    let mut failed = Vec::new();
    for file in &files {
        let outcome = std::panic::catch_unwind(|| generate(file))
            .unwrap_or_else(|_| panic!("{file}: marshal-build panicked"));
        match (OMNIORB_IDL.contains(&file.as_str()), outcome) {
            (true, Ok(code)) => {
                assert!(code.contains("pub mod"), "{file}: {code}");
                generated += 1;
            }
            (true, Err(e)) => panic!("{file} should generate:\n{e}"),
            (false, Ok(_)) => panic!("{file} generates: add it to OMNIORB_IDL"),
            (false, Err(e)) => failed.push((file, check_located(file, &e))),
        }
    }
    assert_eq!(generated, OMNIORB_IDL.len());
    assert_eq!(generated + failed.len(), files.len());
    // What the others lack, by message.
    let count = |what: &str| failed.iter().filter(|(_, m)| m.contains(what)).count();
    let reasons = [
        "`any` is not supported",
        "`TypeCode` is not supported",
        "`valuetype` is not supported",
        "`local` interface is not supported",
        "a `struct` declared inside another declaration is not supported",
        "cannot find `IOP.idl`",
    ];
    for r in reasons {
        assert!(count(r) > 0, "no file fails with {r}: {failed:#?}");
    }
    let unexplained: Vec<_> = failed
        .iter()
        .filter(|(_, m)| !reasons.iter().any(|r| m.contains(r)))
        .collect();
    assert!(unexplained.is_empty(), "{unexplained:#?}");
    for (file, why) in [
        ("COS/CosPersistenceDDO.idl", "`any`"),
        ("COS/CosPersistenceDS_CLI.idl", "`any`"),
        ("boxes.idl", "`valuetype`"),
        ("corbaidl.idl", "`TypeCode`"),
    ] {
        let (_, m) = failed.iter().find(|(f, _)| *f == file).expect(file);
        assert!(m.contains(why), "{file}: {m}");
    }
}

fn round_trip<T>(v: &T) -> Vec<u8>
where
    T: marshal::cdr::Encode + for<'de> marshal::cdr::Decode<'de> + PartialEq + std::fmt::Debug,
{
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let bytes = to_vec(v, order).unwrap();
        assert_eq!(&from_slice::<T>(&bytes, order).unwrap(), v);
    }
    to_vec(v, ByteOrder::Big).unwrap()
}

#[test]
fn generated_types_round_trip_with_the_idl_layout() {
    let name: cos_naming::Name = vec![
        cos_naming::NameComponent {
            id: "a".into(),
            kind: String::new(),
        },
        cos_naming::NameComponent {
            id: "ctx".into(),
            kind: "k".into(),
        },
    ];
    // sequence<NameComponent>: count, then each struct's strings (length with the NUL,
    // bytes, padding to 4).
    assert_eq!(
        round_trip(&name),
        [
            0, 0, 0, 2, //
            0, 0, 0, 2, b'a', 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, //
            0, 0, 0, 4, b'c', b't', b'x', 0, 0, 0, 0, 2, b'k', 0,
        ]
    );
    let binding = cos_naming::Binding {
        binding_name: name.clone(),
        binding_type: cos_naming::BindingType::Ncontext,
    };
    // The enum after the name, aligned to 4.
    assert_eq!(round_trip(&binding)[34..], [0, 0, 0, 0, 0, 1]);

    // An exception with an enum, and one with an object reference (CDR only).
    round_trip(&cos_naming::naming_context::NotFound {
        why: cos_naming::naming_context::NotFoundReason::NotObject,
        rest_of_name: name.clone(),
    });
    let ior = marshal::giop::Ior::new(
        cos_naming::naming_context::REPOSITORY_ID,
        "127.0.0.1",
        2809,
        b"NameService",
    );
    round_trip(&cos_naming::naming_context::CannotProceed {
        cxt: ior,
        rest_of_name: name,
    });

    // TimeBase::UtcT: unsigned long long, unsigned long, unsigned short, short.
    let utc = time_base::UtcT {
        time: 0x0102_0304_0506_0708,
        inacclo: 9,
        inacchi: 10,
        tdf: -60,
    };
    assert_eq!(
        round_trip(&utc),
        [1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 9, 0, 10, 0xff, 0xc4]
    );

    // Unions of RDITestTypes: on an enum with an array arm and a default, on boolean with a
    // default, on long without one.
    use rdi_test_types_idl::rdi_test_types as rdi;
    round_trip(&rdi::UnionType::D(
        ["a", "b", "c", "d", "e"].map(String::from),
    ));
    round_trip(&rdi::UnionType::Default(rdi::UnionSwitch::E, true));
    round_trip(&rdi::ExampleUnion1::Default(false, 2.5));
    let none = round_trip(&rdi::ExampleUnion2::None(7));
    assert_eq!(none, [0, 0, 0, 7]);

    // Lname-library's exception, from a file that includes CosNaming.idl.
    round_trip(&l_name_component::NotSet {});
}
