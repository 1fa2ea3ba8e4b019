//! The lexer of the `.x` language (and of `#if` expressions): identifiers, numbers (decimal,
//! hex `0x…`, octal `0…`, negative `-…`), one-character punctuation, `/* */` and `//`
//! comments, and rpcgen's `%` pass-through lines (skipped). Positions are line and column,
//! both from 1.

use crate::error::Pos;

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer literal, with its sign.
    Number(i128),
    /// A string literal (its text between the quotes, escapes kept): only a `const`'s value.
    Str(String),
    /// One punctuation character: `{ } ( ) [ ] < > ; : , = * ! & | +`, and in IDL mode also
    /// `- / % ^ ~` (`::`, `<<` and `>>` are two tokens each).
    Punct(char),
    /// A character literal (IDL mode): `'a'`, `'\n'`, `'\x41'`, `'\101'`.
    Char(char),
    /// A `#pragma` line (IDL mode): the text after `pragma`, trimmed.
    Pragma(String),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Number(n) => write!(f, "`{n}`"),
            Tok::Str(s) => write!(f, "`\"{s}\"`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Char(c) => write!(f, "`{c:?}`"),
            Tok::Pragma(p) => write!(f, "`#pragma {p}`"),
        }
    }
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where its first character is.
    pub pos: Pos,
}

/// A lexing error: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diag {
    /// Where.
    pub pos: Pos,
    /// What.
    pub message: String,
}

impl Diag {
    /// An error at `pos`.
    pub fn new(pos: Pos, message: impl Into<String>) -> Diag {
        Diag {
            pos,
            message: message.into(),
        }
    }
}

/// A lexer over lines: a `/* */` comment may span lines, so the lexer keeps that state
/// from one line to the next.
#[derive(Debug, Default)]
pub struct Lexer {
    /// Inside a `/* */` comment that began on an earlier line (where it began).
    in_comment: Option<Pos>,
    /// CORBA IDL's tokens: `-` is always an operator, character literals, no `%` lines.
    idl: bool,
}

const PUNCT: &str = "{}()[]<>;:,=*!&|+";
/// IDL's further operators.
const IDL_PUNCT: &str = "-/%^~";

impl Lexer {
    /// A lexer outside any comment.
    pub fn new() -> Lexer {
        Lexer::default()
    }

    /// A lexer of CORBA IDL (`idl`) or of the `.x` language.
    pub fn with_idl(idl: bool) -> Lexer {
        Lexer {
            in_comment: None,
            idl,
        }
    }

    /// Lexes one line (`line` of file `file`), appending its tokens to `out`.
    pub fn line(
        &mut self,
        text: &str,
        file: usize,
        line: u32,
        out: &mut Vec<Token>,
    ) -> Result<(), Diag> {
        let chars: Vec<char> = text.chars().collect();
        let pos = |i: usize| Pos {
            file,
            line,
            col: i as u32 + 1,
        };
        let mut i = 0;
        let mut at_start = true;
        while i < chars.len() {
            if self.in_comment.is_some() {
                if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    self.in_comment = None;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            let c = chars[i];
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            if at_start && c == '%' && !self.idl {
                // rpcgen copies `%` lines to its C output; they mean nothing to Rust.
                return Ok(());
            }
            at_start = false;
            if c == '/' && chars.get(i + 1) == Some(&'*') {
                self.in_comment = Some(pos(i));
                i += 2;
                continue;
            }
            if c == '/' && chars.get(i + 1) == Some(&'/') {
                return Ok(());
            }
            let start = i;
            if c.is_ascii_alphabetic() || c == '_' {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(chars[start..i].iter().collect()),
                    pos: pos(start),
                });
                continue;
            }
            let negative =
                !self.idl && c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit());
            if c.is_ascii_digit() || negative {
                if negative {
                    i += 1;
                }
                let digits_at = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let text: String = chars[digits_at..i].iter().collect();
                let value = parse_number(&text)
                    .ok_or_else(|| Diag::new(pos(start), format!("invalid number `{text}`")))?;
                out.push(Token {
                    tok: Tok::Number(if negative { -value } else { value }),
                    pos: pos(start),
                });
                continue;
            }
            if c == '"' {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                if i >= chars.len() {
                    return Err(Diag::new(pos(start), "unterminated string"));
                }
                out.push(Token {
                    tok: Tok::Str(chars[start + 1..i].iter().collect()),
                    pos: pos(start),
                });
                i += 1;
                continue;
            }
            if c == '\'' && self.idl {
                let (value, len) = char_literal(&chars[i + 1..])
                    .ok_or_else(|| Diag::new(pos(start), "invalid character literal"))?;
                out.push(Token {
                    tok: Tok::Char(value),
                    pos: pos(start),
                });
                i += 1 + len;
                continue;
            }
            if PUNCT.contains(c) || (self.idl && IDL_PUNCT.contains(c)) {
                out.push(Token {
                    tok: Tok::Punct(c),
                    pos: pos(start),
                });
                i += 1;
                continue;
            }
            return Err(Diag::new(pos(start), format!("unexpected character `{c}`")));
        }
        Ok(())
    }

    /// Skips one line that an inactive `#if` branch holds: only comments matter (a comment
    /// may open there and close later).
    pub fn skip_line(&mut self, text: &str, file: usize, line: u32) {
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        let first = chars.iter().position(|c| !c.is_whitespace());
        if self.in_comment.is_none() && first.is_some_and(|f| chars[f] == '%') {
            return;
        }
        while i < chars.len() {
            let two = (chars[i], chars.get(i + 1).copied());
            match (self.in_comment.is_some(), two) {
                (true, ('*', Some('/'))) => {
                    self.in_comment = None;
                    i += 2;
                }
                (false, ('/', Some('*'))) => {
                    self.in_comment = Some(Pos {
                        file,
                        line,
                        col: i as u32 + 1,
                    });
                    i += 2;
                }
                (false, ('/', Some('/'))) => return,
                _ => i += 1,
            }
        }
    }

    /// Inside a `/* */` comment.
    pub fn in_comment(&self) -> bool {
        self.in_comment.is_some()
    }

    /// At the end of the input: an unclosed comment is an error where it began.
    pub fn finish(&self) -> Result<(), Diag> {
        match self.in_comment {
            Some(p) => Err(Diag::new(p, "unterminated comment")),
            None => Ok(()),
        }
    }
}

/// The character literal after its opening quote, and how many characters it takes with its
/// closing quote.
fn char_literal(rest: &[char]) -> Option<(char, usize)> {
    let (value, len) = match rest.first()? {
        '\\' => {
            let e = *rest.get(1)?;
            let simple = match e {
                'n' => Some('\n'),
                't' => Some('\t'),
                'v' => Some('\u{b}'),
                'b' => Some('\u{8}'),
                'r' => Some('\r'),
                'f' => Some('\u{c}'),
                'a' => Some('\u{7}'),
                '\\' | '?' | '\'' | '"' => Some(e),
                _ => None,
            };
            match simple {
                Some(c) => (c, 2),
                None => {
                    let (radix, from, max) = if e == 'x' { (16, 2, 2) } else { (8, 1, 3) };
                    let digits: String = rest[from..]
                        .iter()
                        .take(max)
                        .take_while(|d| d.is_digit(radix))
                        .collect();
                    let v = u32::from_str_radix(&digits, radix).ok()?;
                    (char::from_u32(v)?, from + digits.len())
                }
            }
        }
        '\'' => return None,
        &c => (c, 1),
    };
    (rest.get(len) == Some(&'\'')).then_some((value, len + 1))
}

/// A number without sign: `0x1F`, `017` (octal), `42`; C suffixes `u`, `l` are accepted.
fn parse_number(text: &str) -> Option<i128> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() {
        return None;
    }
    let v = i128::from_str_radix(digits, radix).ok()?;
    (v <= i128::from(u64::MAX)).then_some(v)
}

/// Lexes a whole text (lines split at `\n`) of file 0: for tests and `#if` expressions.
pub fn lex(text: &str) -> Result<Vec<Token>, Diag> {
    let mut lx = Lexer::new();
    let mut out = Vec::new();
    for (n, l) in text.split('\n').enumerate() {
        lx.line(l, 0, n as u32 + 1, &mut out)?;
    }
    lx.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idl_operators_and_char_literals() {
        let mut lx = Lexer::with_idl(true);
        let mut out = Vec::new();
        lx.line("a-1 << 'x' '\\n' '\\x41' ~b % c ^ d / e", 0, 1, &mut out)
            .unwrap();
        let toks: Vec<Tok> = out.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            toks,
            vec![
                Tok::Ident("a".into()),
                Tok::Punct('-'),
                Tok::Number(1),
                Tok::Punct('<'),
                Tok::Punct('<'),
                Tok::Char('x'),
                Tok::Char('\n'),
                Tok::Char('A'),
                Tok::Punct('~'),
                Tok::Ident("b".into()),
                Tok::Punct('%'),
                Tok::Ident("c".into()),
                Tok::Punct('^'),
                Tok::Ident("d".into()),
                Tok::Punct('/'),
                Tok::Ident("e".into()),
            ]
        );
        let e = Lexer::with_idl(true)
            .line("  'ab'", 0, 1, &mut Vec::new())
            .unwrap_err();
        assert_eq!(
            (e.pos.col, e.message.as_str()),
            (3, "invalid character literal")
        );
    }

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn identifiers_numbers_punctuation() {
        assert_eq!(
            toks("const X = 0x20464C4B; y<> -5 017 0 12"),
            vec![
                Tok::Ident("const".into()),
                Tok::Ident("X".into()),
                Tok::Punct('='),
                Tok::Number(0x2046_4C4B),
                Tok::Punct(';'),
                Tok::Ident("y".into()),
                Tok::Punct('<'),
                Tok::Punct('>'),
                Tok::Number(-5),
                Tok::Number(0o17),
                Tok::Number(0),
                Tok::Number(12),
            ]
        );
    }

    #[test]
    fn comments_and_percent_lines_are_skipped() {
        assert_eq!(
            toks("a /* b\n c */ d // e\n  %#include <rpc/rpc.h>\nf"),
            vec![
                Tok::Ident("a".into()),
                Tok::Ident("d".into()),
                Tok::Ident("f".into())
            ]
        );
    }

    #[test]
    fn positions_count_from_one() {
        let t = lex("int\n  x;").unwrap();
        assert_eq!((t[0].pos.line, t[0].pos.col), (1, 1));
        assert_eq!((t[1].pos.line, t[1].pos.col), (2, 3));
        assert_eq!((t[2].pos.line, t[2].pos.col), (2, 4));
    }

    #[test]
    fn errors_have_locations() {
        let e = lex("int x;\n  y @").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (2, 5));
        assert_eq!(e.message, "unexpected character `@`");
        let e = lex("a\n /* open").unwrap_err();
        assert_eq!(
            (e.pos.line, e.pos.col, e.message.as_str()),
            (2, 2, "unterminated comment")
        );
        let e = lex("x = 0xZ;").unwrap_err();
        assert_eq!((e.pos.col, e.message.as_str()), (5, "invalid number `0xZ`"));
    }
}
