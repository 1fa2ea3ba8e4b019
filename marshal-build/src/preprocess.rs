//! The subset of the C preprocessor that rpcgen's input uses: `#include "file"` (looked up
//! in the including file's directory, then the include directories; `<file>` only in the
//! include directories), object-like `#define NAME [value]` (a value is substituted where
//! the name appears, so a define can serve as a constant), `#undef`, and the conditionals
//! `#ifdef`, `#ifndef`, `#if`/`#elif` (with `defined(X)`, `defined X`, `!`, `&&`, `||`,
//! parentheses, numbers and names, an undefined name being 0), `#else`, `#endif`.
//! rpcgen's own symbols (`RPC_HDR`, `RPC_XDR`, `RPC_SVC`, `RPC_CLNT`, …) are not defined.
//! `#pragma` and `#ident` are ignored.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Pos};
use crate::lexer::{Diag, Lexer, Tok, Token};

/// How deep `#include`s may nest (a file including itself fails at this depth).
const MAX_INCLUDE_DEPTH: usize = 64;

/// The files read, for error messages: their paths and lines.
#[derive(Debug, Default)]
pub struct Sources {
    files: Vec<(PathBuf, Vec<String>)>,
}

impl Sources {
    /// The error of `d`, located in its file with the source line.
    pub fn error(&self, d: &Diag) -> Error {
        match self.files.get(d.pos.file) {
            Some((path, lines)) => {
                let line = lines
                    .get(d.pos.line.saturating_sub(1) as usize)
                    .map_or("", String::as_str);
                Error::at(path, d.pos.line, d.pos.col, line, d.message.clone())
            }
            None => Error::file(None, d.message.clone()),
        }
    }

    /// Every file read, in the order they were opened.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|(p, _)| p.as_path())
    }

    /// Adds a file from its text; returns its index.
    fn add(&mut self, path: &Path, text: &str) -> usize {
        let lines = text
            .split('\n')
            .map(|l| l.trim_end_matches('\r').to_string())
            .collect();
        self.files.push((path.to_path_buf(), lines));
        self.files.len() - 1
    }
}

/// The preprocessor's settings.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Where `#include` looks after the including file's directory.
    pub include_dirs: Vec<PathBuf>,
    /// Names defined before the first line, with their value tokens (maybe none).
    pub defines: Vec<(String, String)>,
    /// Lex CORBA IDL (see [`Lexer::with_idl`]) and pass `#pragma` lines on as tokens.
    pub idl: bool,
}

/// One open conditional.
#[derive(Debug)]
struct Cond {
    /// Where it opened (for "unterminated").
    pos: Pos,
    /// Lines of the enclosing region are kept.
    parent_active: bool,
    /// Lines of the current branch are kept.
    active: bool,
    /// An earlier branch was taken (so `#else`/`#elif` are not).
    taken: bool,
    /// `#else` seen.
    in_else: bool,
}

struct Pp<'o> {
    opts: &'o Options,
    sources: Sources,
    defines: HashMap<String, Vec<Tok>>,
    out: Vec<Token>,
}

/// Reads `path` and what it includes; returns the files read and the tokens of the active
/// lines, macros substituted.
pub fn preprocess(path: &Path, opts: &Options) -> Result<(Sources, Vec<Token>), Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::file(Some(path), format!("cannot read: {e}")))?;
    preprocess_str(path, &text, opts)
}

/// Preprocesses `text` as if read from `path` (includes are read from disk).
pub fn preprocess_str(
    path: &Path,
    text: &str,
    opts: &Options,
) -> Result<(Sources, Vec<Token>), Error> {
    let mut pp = Pp {
        opts,
        sources: Sources::default(),
        defines: HashMap::new(),
        out: Vec::new(),
    };
    for (name, value) in &opts.defines {
        let toks = crate::lexer::lex(value)
            .map_err(|d| Error::file(None, format!("define `{name}={value}`: {}", d.message)))?;
        pp.defines
            .insert(name.clone(), toks.into_iter().map(|t| t.tok).collect());
    }
    match pp.file(path, text, 0) {
        Ok(()) => Ok((pp.sources, pp.out)),
        Err(d) => Err(pp.sources.error(&d)),
    }
}

impl Pp<'_> {
    fn file(&mut self, path: &Path, text: &str, depth: usize) -> Result<(), Diag> {
        let file = self.sources.add(path, text);
        let lines = self.sources.files[file].1.clone();
        let mut lx = Lexer::with_idl(self.opts.idl);
        let mut conds: Vec<Cond> = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            let lineno = n as u32 + 1;
            let active = conds.last().is_none_or(|c| c.active);
            let trimmed = line.trim_start();
            if !lx.in_comment() && trimmed.starts_with('#') {
                let hash_col = (line.chars().count() - trimmed.chars().count()) as u32 + 1;
                self.directive(
                    path,
                    file,
                    lineno,
                    hash_col,
                    &trimmed[1..],
                    &mut lx,
                    &mut conds,
                    active,
                    depth,
                )?;
                continue;
            }
            if !active {
                lx.skip_line(line, file, lineno);
                continue;
            }
            let mut toks = Vec::new();
            lx.line(line, file, lineno, &mut toks)?;
            for t in toks {
                self.push_expanded(t, 0)?;
            }
        }
        lx.finish()?;
        if let Some(c) = conds.last() {
            return Err(Diag::new(c.pos, "this conditional has no `#endif`"));
        }
        Ok(())
    }

    /// Appends `t`, replacing a defined name by its value.
    fn push_expanded(&mut self, t: Token, depth: usize) -> Result<(), Diag> {
        if let Tok::Ident(name) = &t.tok {
            if let Some(value) = self.defines.get(name) {
                if !value.is_empty() {
                    if depth > 32 {
                        return Err(Diag::new(t.pos, format!("`{name}` expands without end")));
                    }
                    for v in value.clone() {
                        self.push_expanded(Token { tok: v, pos: t.pos }, depth + 1)?;
                    }
                    return Ok(());
                }
            }
        }
        self.out.push(t);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn directive(
        &mut self,
        path: &Path,
        file: usize,
        line: u32,
        hash_col: u32,
        rest: &str,
        lx: &mut Lexer,
        conds: &mut Vec<Cond>,
        active: bool,
        depth: usize,
    ) -> Result<(), Diag> {
        let at = |col: u32| Pos { file, line, col };
        // The directive's name and where its arguments begin (columns from 1).
        let body = rest.trim_start();
        let name_col = hash_col + 1 + (rest.chars().count() - body.chars().count()) as u32;
        let name: String = body
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let args = &body[name.len()..];
        let args_col = name_col + name.chars().count() as u32;
        // The arguments' tokens (comments removed; a comment may open here and go on).
        let padded = format!("{}{}", " ".repeat(args_col as usize - 1), args);
        let lex_args = |lx: &mut Lexer| -> Result<Vec<Token>, Diag> {
            let mut toks = Vec::new();
            lx.line(&padded, file, line, &mut toks)?;
            Ok(toks)
        };
        match name.as_str() {
            "ifdef" | "ifndef" | "if" => {
                let value = if active {
                    let toks = lex_args(lx)?;
                    match name.as_str() {
                        "if" => self.eval(&toks, at(args_col), at(name_col))?,
                        _ => {
                            let id = one_ident(&toks, at(args_col), &name)?;
                            self.defines.contains_key(&id) == (name == "ifdef")
                        }
                    }
                } else {
                    lx.skip_line(&padded, file, line);
                    false
                };
                conds.push(Cond {
                    pos: at(hash_col),
                    parent_active: active,
                    active: active && value,
                    taken: value,
                    in_else: false,
                });
            }
            "elif" | "else" => {
                let Some(c) = conds.last_mut() else {
                    return Err(Diag::new(at(hash_col), format!("`#{name}` without `#if`")));
                };
                if c.in_else {
                    return Err(Diag::new(at(hash_col), format!("`#{name}` after `#else`")));
                }
                let (parent_active, taken) = (c.parent_active, c.taken);
                let value = if name == "else" {
                    lx.skip_line(&padded, file, line);
                    !taken
                } else if parent_active && !taken {
                    let toks = lex_args(lx)?;
                    self.eval(&toks, at(args_col), at(name_col))?
                } else {
                    lx.skip_line(&padded, file, line);
                    false
                };
                let c = conds.last_mut().expect("checked above");
                c.in_else = name == "else";
                c.active = parent_active && value;
                c.taken |= value;
            }
            "endif" => {
                lx.skip_line(&padded, file, line);
                if conds.pop().is_none() {
                    return Err(Diag::new(at(hash_col), "`#endif` without `#if`"));
                }
            }
            _ if !active => lx.skip_line(&padded, file, line),
            "define" => {
                let toks = lex_args(lx)?;
                let Some((Tok::Ident(id), rest)) = toks.split_first().map(|(t, r)| (&t.tok, r))
                else {
                    return Err(Diag::new(at(args_col), "expected a name after `#define`"));
                };
                if let Some(p) = rest.first() {
                    if p.tok == Tok::Punct('(') && p.pos.col == toks[0].pos.col + id.len() as u32 {
                        return Err(Diag::new(
                            toks[0].pos,
                            "function-like macros are not supported",
                        ));
                    }
                }
                self.defines
                    .insert(id.clone(), rest.iter().map(|t| t.tok.clone()).collect());
            }
            "undef" => {
                let toks = lex_args(lx)?;
                let id = one_ident(&toks, at(args_col), "undef")?;
                self.defines.remove(&id);
            }
            "include" => {
                let a = args.trim();
                let arg_col =
                    args_col + (args.chars().count() - args.trim_start().chars().count()) as u32;
                let (quoted, close) = match a.chars().next() {
                    Some('"') => (true, '"'),
                    Some('<') => (false, '>'),
                    _ => {
                        return Err(Diag::new(
                            at(arg_col),
                            "expected `\"file\"` or `<file>` after `#include`",
                        ))
                    }
                };
                let Some(end) = a[1..].find(close) else {
                    return Err(Diag::new(at(arg_col), "unterminated file name"));
                };
                let target = &a[1..1 + end];
                let mut dirs = Vec::new();
                if quoted {
                    dirs.push(path.parent().unwrap_or(Path::new("")).to_path_buf());
                }
                dirs.extend(self.opts.include_dirs.iter().cloned());
                let found = dirs.iter().map(|d| d.join(target)).find(|p| p.is_file());
                let Some(found) = found else {
                    return Err(Diag::new(
                        at(arg_col),
                        format!("cannot find `{target}` (looked in {})", show_dirs(&dirs)),
                    ));
                };
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(Diag::new(at(hash_col), "`#include`s nest too deeply"));
                }
                let text = std::fs::read_to_string(&found).map_err(|e| {
                    Diag::new(
                        at(arg_col),
                        format!("cannot read `{}`: {e}", found.display()),
                    )
                })?;
                self.file(&found, &text, depth + 1)?;
            }
            "pragma" if self.opts.idl => {
                lx.skip_line(&padded, file, line);
                self.out.push(Token {
                    tok: Tok::Pragma(args.trim().to_string()),
                    pos: at(hash_col),
                });
            }
            "pragma" | "ident" | "" => lx.skip_line(&padded, file, line),
            "error" => {
                return Err(Diag::new(at(hash_col), format!("#error{args}")));
            }
            _ => {
                return Err(Diag::new(
                    at(name_col),
                    format!("unsupported preprocessor directive `#{name}`"),
                ))
            }
        }
        Ok(())
    }

    /// The value of an `#if` expression.
    fn eval(&self, toks: &[Token], end: Pos, directive: Pos) -> Result<bool, Diag> {
        if toks.is_empty() {
            return Err(Diag::new(directive, "`#if` needs an expression"));
        }
        let mut i = 0;
        let v = self.or(toks, &mut i, end)?;
        if let Some(t) = toks.get(i) {
            return Err(Diag::new(t.pos, format!("unexpected {} in `#if`", t.tok)));
        }
        Ok(v != 0)
    }

    fn or(&self, t: &[Token], i: &mut usize, end: Pos) -> Result<i128, Diag> {
        let mut v = self.and(t, i, end)?;
        while pair(t, *i, '|') {
            *i += 2;
            let r = self.and(t, i, end)?;
            v = i128::from(v != 0 || r != 0);
        }
        Ok(v)
    }

    fn and(&self, t: &[Token], i: &mut usize, end: Pos) -> Result<i128, Diag> {
        let mut v = self.unary(t, i, end)?;
        while pair(t, *i, '&') {
            *i += 2;
            let r = self.unary(t, i, end)?;
            v = i128::from(v != 0 && r != 0);
        }
        Ok(v)
    }

    fn unary(&self, t: &[Token], i: &mut usize, end: Pos) -> Result<i128, Diag> {
        let Some(tok) = t.get(*i) else {
            return Err(Diag::new(end, "`#if` expression ends early"));
        };
        *i += 1;
        match &tok.tok {
            Tok::Punct('!') => Ok(i128::from(self.unary(t, i, end)? == 0)),
            Tok::Punct('(') => {
                let v = self.or(t, i, end)?;
                expect_punct(t, i, ')', end)?;
                Ok(v)
            }
            Tok::Number(n) => Ok(*n),
            Tok::Ident(id) if id == "defined" => {
                let paren = t.get(*i).is_some_and(|x| x.tok == Tok::Punct('('));
                if paren {
                    *i += 1;
                }
                let name = match t.get(*i) {
                    Some(Token {
                        tok: Tok::Ident(n), ..
                    }) => n.clone(),
                    Some(x) => return Err(Diag::new(x.pos, "expected a name after `defined`")),
                    None => return Err(Diag::new(end, "expected a name after `defined`")),
                };
                *i += 1;
                if paren {
                    expect_punct(t, i, ')', end)?;
                }
                Ok(i128::from(self.defines.contains_key(&name)))
            }
            Tok::Ident(id) => Ok(match self.defines.get(id).map(Vec::as_slice) {
                Some([Tok::Number(n)]) => *n,
                Some([]) => 1,
                _ => 0,
            }),
            other => Err(Diag::new(tok.pos, format!("unexpected {other} in `#if`"))),
        }
    }
}

fn pair(t: &[Token], i: usize, c: char) -> bool {
    matches!((t.get(i), t.get(i + 1)), (Some(a), Some(b)) if a.tok == Tok::Punct(c) && b.tok == Tok::Punct(c))
}

fn expect_punct(t: &[Token], i: &mut usize, c: char, end: Pos) -> Result<(), Diag> {
    match t.get(*i) {
        Some(x) if x.tok == Tok::Punct(c) => {
            *i += 1;
            Ok(())
        }
        Some(x) => Err(Diag::new(x.pos, format!("expected `{c}`, found {}", x.tok))),
        None => Err(Diag::new(end, format!("expected `{c}`"))),
    }
}

fn one_ident(toks: &[Token], end: Pos, directive: &str) -> Result<String, Diag> {
    match toks {
        [Token {
            tok: Tok::Ident(id),
            ..
        }] => Ok(id.clone()),
        [] => Err(Diag::new(
            end,
            format!("expected a name after `#{directive}`"),
        )),
        [t, ..] => Err(Diag::new(
            t.pos,
            format!("expected one name after `#{directive}`"),
        )),
    }
}

fn show_dirs(dirs: &[PathBuf]) -> String {
    let v: Vec<String> = dirs.iter().map(|d| format!("`{}`", d.display())).collect();
    v.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(text: &str, defines: &[&str]) -> Result<Vec<String>, Error> {
        let opts = Options {
            include_dirs: vec![],
            defines: defines
                .iter()
                .map(|d| (d.to_string(), String::new()))
                .collect(),
            idl: false,
        };
        let (_, toks) = preprocess_str(Path::new("t.x"), text, &opts)?;
        Ok(toks
            .into_iter()
            .map(|t| match t.tok {
                Tok::Ident(s) => s,
                Tok::Number(n) => n.to_string(),
                Tok::Str(s) => format!("{s:?}"),
                Tok::Punct(c) => c.to_string(),
                Tok::Char(c) => format!("{c:?}"),
                Tok::Pragma(p) => format!("#pragma {p}"),
            })
            .collect())
    }

    #[test]
    fn conditionals() {
        let text = "a\n#ifdef RPC_HDR\nb\n#else\nc\n#endif /* x */\n#if RPC_HDR\nd\n#endif\n\
                    #if defined(X) || !defined Y\ne\n#elif 1\nf\n#endif\n#ifndef X\ng\n#endif";
        assert_eq!(idents(text, &[]).unwrap(), ["a", "c", "e", "g"]);
        assert_eq!(idents(text, &["X", "Y"]).unwrap(), ["a", "c", "e"]);
        assert_eq!(idents(text, &["Y"]).unwrap(), ["a", "c", "f", "g"]);
    }

    #[test]
    fn defines_substitute() {
        let text = "#define N 10\n#define E\nx<N>;\n#ifdef E\ny\n#endif\n#undef N\nN";
        assert_eq!(
            idents(text, &[]).unwrap(),
            ["x", "<", "10", ">", ";", "y", "N"]
        );
    }

    #[test]
    fn comments_hide_directives() {
        let text = "/*\n#error no\n*/ a\n#if 0\n/* \n#endif\n*/\n#endif\nb";
        assert_eq!(idents(text, &[]).unwrap(), ["a", "b"]);
    }

    #[test]
    fn include_finds_sibling_and_include_dirs() {
        let dir = std::env::temp_dir().join(format!("marshal-build-pp-{}", std::process::id()));
        let inc = dir.join("inc");
        std::fs::create_dir_all(&inc).unwrap();
        std::fs::write(dir.join("a.x"), "x\n").unwrap();
        std::fs::write(inc.join("b.x"), "#include \"a.x\"\ny\n").unwrap();
        let opts = Options {
            include_dirs: vec![inc.clone()],
            defines: vec![],
            idl: false,
        };
        // b.x's own directory (inc) has no a.x: it is not found from there.
        let text = "#include \"inc/b.x\"\nz";
        let err = preprocess_str(&dir.join("main.x"), text, &opts).unwrap_err();
        assert!(err.to_string().contains("cannot find `a.x`"), "{err}");
        std::fs::write(inc.join("a.x"), "w\n").unwrap();
        let (src, toks) = preprocess_str(&dir.join("main.x"), text, &opts).unwrap();
        let names: Vec<_> = toks.iter().map(|t| t.tok.to_string()).collect();
        assert_eq!(names, ["`w`", "`y`", "`z`"]);
        assert_eq!(src.paths().count(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errors_are_located() {
        let e = idents("a\n  #endif", &[]).unwrap_err();
        assert_eq!(e.line_col(), Some((2, 3)));
        assert_eq!(e.message(), "`#endif` without `#if`");
        let e = idents("#ifdef X\na", &[]).unwrap_err();
        assert_eq!(
            (e.line_col(), e.message()),
            (Some((1, 1)), "this conditional has no `#endif`")
        );
        let e = idents("# foo bar", &[]).unwrap_err();
        assert_eq!(
            (e.line_col(), e.message()),
            (Some((1, 3)), "unsupported preprocessor directive `#foo`")
        );
        let e = idents("#include \"nope.x\"", &[]).unwrap_err();
        assert_eq!(e.line_col(), Some((1, 10)));
        let e = idents("#define F(x) x", &[]).unwrap_err();
        assert_eq!(
            (e.line_col(), e.message()),
            (Some((1, 9)), "function-like macros are not supported")
        );
    }
}
