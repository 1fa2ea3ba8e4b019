//! The derive knows no wire rule: the code generators for XDR and CDR only arrange calls into
//! their wire crate (`::marshal::__private::{xdr, iiop}`), which owns every size, flag,
//! discriminant, alignment phase and enum range. A number other than 0 or 1 in a generator's
//! code (outside comments and strings) would be such a rule written into the macro.

use std::path::Path;

/// Integer literals of 2 or more in `src`, outside comments and string literals, with their
/// line numbers.
fn wire_numbers(src: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in src.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        // Drop string literals (the generators' messages may quote numbers).
        let code: String = code
            .split('"')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut chars = code.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let starts_token = !code[..i]
                .chars()
                .next_back()
                .is_some_and(|p| p.is_alphanumeric() || p == '_');
            if !(c.is_ascii_digit() && starts_token) {
                continue;
            }
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if d.is_ascii_alphanumeric() || d == '_' {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let token = &code[i..end];
            let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
            if digits.parse::<u64>().is_ok_and(|v| v >= 2) {
                found.push((n + 1, token.to_string()));
            }
        }
    }
    found
}

#[test]
fn the_generators_hold_no_wire_numbers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for file in ["xdr.rs", "cdr.rs"] {
        let src = std::fs::read_to_string(dir.join(file)).expect("generator source");
        let found = wire_numbers(&src);
        assert!(found.is_empty(), "{file} hard-codes {found:?}");
    }
}

#[test]
fn the_scan_finds_what_the_old_generators_held() {
    // Lines of the generators before the wire rules moved out.
    let old = "            __len += 4;\n\
               return Ok(__pos + __sizes[__pos % 8]);\n\
               const SHAPE: #x::Shape = #x::Shape::fixed(4, 4); // a comment: 8\n\
               let msg = \"does not fit XDR's 32-bit enum\";\n\
               let tag = Literal::i32_unsuffixed(t.tag);";
    let found: Vec<String> = wire_numbers(old).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["4", "8", "4", "4"]);
}
