//! Runs the `ndr-dump` binary on streams built with `wire-ndr` and checks what it prints and
//! how it exits.

use std::io::Write;
use std::process::{Command, Stdio};

use wire_ndr::{format_frame, message_from_body, ByteOrder, Format, IOField};

/// Runs `ndr-dump args` with `stdin`: the exit code, stdout and stderr.
fn dump(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndr-dump"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ndr-dump runs");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    // Written from a thread so that a full stdout pipe cannot deadlock the test.
    let writer = std::thread::spawn(move || {
        // The tool may stop reading early (an error), closing the pipe.
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code().expect("exited, not killed"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `struct sample { unsigned id; char *name; float xs[2]; }` from a little-endian sender.
fn sample() -> Format {
    Format::from_fields(
        "sample",
        ByteOrder::Little,
        24,
        &[
            IOField::new("id", "unsigned integer", 4, 0),
            IOField::new("name", "string", 8, 8),
            IOField::new("xs", "float[2]", 4, 16),
        ],
        &[],
    )
    .unwrap()
}

fn sample_body(id: u32, name: &str, xs: [f32; 2]) -> Vec<u8> {
    let mut b = vec![0u8; 24];
    b[..4].copy_from_slice(&id.to_le_bytes());
    b[8..12].copy_from_slice(&24u32.to_le_bytes());
    b[12..16].copy_from_slice(&(name.len() as u32).to_le_bytes());
    b[16..20].copy_from_slice(&xs[0].to_le_bytes());
    b[20..24].copy_from_slice(&xs[1].to_le_bytes());
    b.extend_from_slice(name.as_bytes());
    b
}

/// `struct tick { uint64_t seq; bool ok; char tag[3]; }` from a big-endian sender.
fn tick() -> Format {
    Format::from_fields(
        "tick",
        ByteOrder::Big,
        16,
        &[
            IOField::new("seq", "unsigned integer", 8, 0),
            IOField::new("ok", "boolean", 1, 8),
            IOField::new("tag", "char[3]", 1, 9),
        ],
        &[],
    )
    .unwrap()
}

fn tick_body(seq: u64, ok: bool, tag: &[u8; 3]) -> Vec<u8> {
    let mut b = vec![0u8; 16];
    b[..8].copy_from_slice(&seq.to_be_bytes());
    b[8] = u8::from(ok);
    b[9..12].copy_from_slice(tag);
    b
}

/// Two formats and three records, interleaved.
fn stream() -> Vec<u8> {
    let (s, t) = (sample(), tick());
    let mut out = format_frame(&s);
    out.extend(message_from_body(s.id(), &sample_body(1, "first", [0.5, -2.0])).unwrap());
    out.extend(format_frame(&t));
    out.extend(message_from_body(t.id(), &tick_body(u64::MAX, true, b"ab\0")).unwrap());
    out.extend(message_from_body(s.id(), &sample_body(2, "\"quoted\"\n", [1.25, 3.0])).unwrap());
    out
}

#[test]
fn prints_one_json_line_per_record() {
    let (s, t) = (sample().id(), tick().id());
    let (code, out, err) = dump(&[], &stream());
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!(
            concat!(
                r#"{{"format":"sample","id":"{s}","record":{{"id":1,"name":"first","xs":[0.5,-2.0]}}}}"#,
                "\n",
                r#"{{"format":"tick","id":"{t}","record":{{"seq":18446744073709551615,"ok":true,"tag":"ab"}}}}"#,
                "\n",
                r#"{{"format":"sample","id":"{s}","record":{{"id":2,"name":"\"quoted\"\u000a","xs":[1.25,3.0]}}}}"#,
                "\n",
            ),
            s = s,
            t = t
        )
    );
}

#[test]
fn describes_formats_on_request() {
    let t = tick();
    let mut input = format_frame(&t);
    input.extend(message_from_body(t.id(), &tick_body(7, false, b"xyz")).unwrap());
    let (code, out, err) = dump(&["--formats"], &input);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!(
            concat!(
                r#"{{"format":"tick","id":"{t}","byte_order":"big","size":16,"fields":["#,
                r#"{{"name":"seq","type":"unsigned integer","size":8,"offset":0}},"#,
                r#"{{"name":"ok","type":"boolean","size":1,"offset":8}},"#,
                r#"{{"name":"tag","type":"char[3]","size":1,"offset":9}}],"nested":[]}}"#,
                "\n",
                r#"{{"format":"tick","id":"{t}","record":{{"seq":7,"ok":false,"tag":"xyz"}}}}"#,
                "\n",
            ),
            t = t.id()
        )
    );
}

#[test]
fn an_unknown_format_id_is_an_error_naming_it() {
    let s = sample();
    let msg = message_from_body(s.id(), &sample_body(1, "x", [0.0, 0.0])).unwrap();
    let (code, out, err) = dump(&[], &msg);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        format!(
            "ndr-dump: stdin: frame 0 at byte 0: unknown format id {}: no format frame with \
             this id came before the record\n",
            s.id()
        )
    );
}

#[test]
fn a_bare_message_decodes_with_a_format_file() {
    let s = sample();
    let path = std::env::temp_dir().join(format!("ndr-dump-test-{}.ndr", std::process::id()));
    std::fs::write(&path, format_frame(&s)).unwrap();
    let msg = message_from_body(s.id(), &sample_body(9, "bare", [1.0, 2.0])).unwrap();
    let (code, out, err) = dump(&["--format-file", path.to_str().unwrap()], &msg);
    std::fs::remove_file(&path).unwrap();
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!(
            "{{\"format\":\"sample\",\"id\":\"{}\",\"record\":{{\"id\":9,\"name\":\"bare\",\"xs\":[1.0,2.0]}}}}\n",
            s.id()
        )
    );
}

#[test]
fn a_truncated_stream_prints_the_records_before_it_then_fails() {
    let full = stream();
    let cut = full.len() - 5;
    let (code, out, err) = dump(&[], &full[..cut]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 2, "{out}");
    let last = full.len() - (24 + 24 + 9);
    assert_eq!(
        err,
        format!(
            "ndr-dump: stdin: frame 4 at byte {last}: the stream ends {} bytes into the frame's 57\n",
            57 - 5
        )
    );
}

#[test]
fn bad_frames_and_records_say_where() {
    // Not a frame at all.
    let (code, _, err) = dump(&[], b"hello, world");
    assert_eq!(code, 1);
    assert!(
        err.starts_with("ndr-dump: stdin: frame 0 at byte 0: not an NDR frame"),
        "{err}"
    );

    // A frame claiming 4 GiB is refused before anything is read or allocated.
    let mut huge = b"NDRr".to_vec();
    huge.extend_from_slice(&u32::MAX.to_be_bytes());
    let (code, _, err) = dump(&[], &huge);
    assert_eq!(code, 1);
    assert!(
        err.contains("exceeds the limit of 268435456 bytes"),
        "{err}"
    );

    // A record whose string slot points past its end: the field, and the stream offset of
    // the slot (the format frame, the header, then 8 bytes into the body).
    let s = sample();
    let mut input = format_frame(&s);
    let slot_at = input.len() + 24 + 8;
    let mut body = sample_body(1, "x", [0.0, 0.0]);
    body[12..16].copy_from_slice(&100u32.to_le_bytes());
    input.extend(message_from_body(s.id(), &body).unwrap());
    let (code, out, err) = dump(&[], &input);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("frame 1 at byte "), "{err}");
    assert!(err.contains("field `name`: length 100 exceeds"), "{err}");
    assert!(
        err.ends_with(&format!("(stream byte {slot_at})\n")),
        "{err}"
    );

    // A record in a format file.
    let path = std::env::temp_dir().join(format!("ndr-dump-rec-{}.ndr", std::process::id()));
    std::fs::write(&path, &input).unwrap();
    let (code, _, err) = dump(&["--format-file", path.to_str().unwrap()], b"");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "ndr-dump: {}: frame 1 at byte {}: a record message, where only format frames may be\n",
            path.display(),
            format_frame(&s).len()
        )
    );
}

#[test]
fn help_and_bad_arguments() {
    let (code, out, err) = dump(&["--help"], b"");
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.starts_with("ndr-dump: prints the records"), "{out}");
    assert!(out.contains("--formats"));
    let (code, out, err) = dump(&["--bogus"], b"");
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "ndr-dump: unexpected argument `--bogus` (see ndr-dump --help)\n"
    );
}
