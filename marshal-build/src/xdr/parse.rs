//! A recursive-descent parser of the `.x` language over the preprocessor's tokens. A
//! hand-written parser, because the grammar is small (RFC 4506 §6.3 and RFC 5531 §12.2 fit
//! on two pages), its errors should name what was expected at the token where parsing
//! stopped, and it adds no dependency to every build script that uses it.

use super::ast::*;
use crate::cursor::{on_cursor, Cursor};
use crate::lexer::{Diag, Tok, Token};

/// Words that cannot name anything.
const KEYWORDS: &[&str] = &[
    "bool",
    "case",
    "const",
    "default",
    "double",
    "quadruple",
    "enum",
    "float",
    "hyper",
    "int",
    "opaque",
    "string",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "program",
    "version",
];

/// Parses a whole file.
pub fn parse(tokens: &[Token]) -> Result<Vec<Definition>, Diag> {
    let mut p = Parser {
        c: Cursor::new(tokens),
    };
    let mut defs = Vec::new();
    while p.i < p.t.len() {
        defs.push(p.definition()?);
    }
    Ok(defs)
}

struct Parser<'t> {
    c: Cursor<'t>,
}
on_cursor!(Parser);

impl Parser<'_> {
    fn ident(&mut self, what: &str) -> Result<Name, Diag> {
        match self.peek() {
            Some(Tok::Ident(s)) if !KEYWORDS.contains(&s.as_str()) => {
                let n = Name {
                    name: s.clone(),
                    pos: self.pos(),
                };
                self.i += 1;
                Ok(n)
            }
            _ => self.err(what),
        }
    }

    fn value(&mut self) -> Result<Value, Diag> {
        let pos = self.pos();
        match self.peek() {
            Some(Tok::Number(n)) => {
                let n = *n;
                self.i += 1;
                Ok(Value::Number(n, pos))
            }
            Some(Tok::Ident(_)) => Ok(Value::Name(self.ident("a constant")?)),
            _ => self.err("a number or a constant's name"),
        }
    }

    fn definition(&mut self) -> Result<Definition, Diag> {
        let d = if self.eat_word("const") {
            let name = self.ident("a constant's name")?;
            self.punct('=')?;
            let v = match self.peek() {
                Some(Tok::Str(s)) => {
                    let v = Value::Str(s.clone(), self.pos());
                    self.i += 1;
                    v
                }
                _ => self.value()?,
            };
            Definition::Const(name, v)
        } else if self.eat_word("typedef") {
            match self.declaration()? {
                Some(d) => Definition::Typedef(d),
                None => {
                    return Err(Diag::new(
                        self.t[self.i - 1].pos,
                        "a typedef cannot be `void`",
                    ))
                }
            }
        } else if self.eat_word("enum") {
            let name = self.ident("the enum's name")?;
            Definition::Enum(name, self.enum_body()?)
        } else if self.eat_word("struct") {
            let name = self.ident("the struct's name")?;
            Definition::Struct(name, self.struct_body()?)
        } else if self.eat_word("union") {
            let name = self.ident("the union's name")?;
            Definition::Union(name, self.union_body()?)
        } else if self.eat_word("program") {
            Definition::Program(self.program()?)
        } else {
            return self
                .err("a definition (`const`, `typedef`, `enum`, `struct`, `union` or `program`)");
        };
        self.punct(';')?;
        Ok(d)
    }

    fn enum_body(&mut self) -> Result<Vec<Enumerator>, Diag> {
        self.punct('{')?;
        let mut out: Vec<Enumerator> = Vec::new();
        loop {
            let name = self.ident("an enumerator")?;
            let value = if self.eat_punct('=') {
                self.value()?
            } else {
                // rpcgen, like C, counts on from the previous enumerator.
                match out.last() {
                    None => Value::Number(0, name.pos),
                    Some(Enumerator {
                        value: Value::Number(n, _),
                        ..
                    }) => Value::Number(n + 1, name.pos),
                    Some(_) => {
                        return Err(Diag::new(
                            name.pos,
                            "give this enumerator a value: the previous one is a name",
                        ))
                    }
                }
            };
            out.push(Enumerator { name, value });
            if !self.eat_punct(',') {
                break;
            }
            if self.is_punct('}') {
                break;
            }
        }
        self.punct('}')?;
        Ok(out)
    }

    fn struct_body(&mut self) -> Result<Vec<Decl>, Diag> {
        self.punct('{')?;
        let mut out = Vec::new();
        loop {
            let pos = self.pos();
            match self.declaration()? {
                Some(d) => out.push(d),
                None => return Err(Diag::new(pos, "a struct's field cannot be `void`")),
            }
            self.punct(';')?;
            if self.eat_punct('}') {
                return Ok(out);
            }
        }
    }

    fn union_body(&mut self) -> Result<Union, Diag> {
        self.word("switch")?;
        self.punct('(')?;
        let pos = self.pos();
        let Some(discriminant) = self.declaration()? else {
            return Err(Diag::new(pos, "a union's discriminant cannot be `void`"));
        };
        self.punct(')')?;
        self.punct('{')?;
        let mut arms = Vec::new();
        let mut default = None;
        loop {
            if self.eat_word("case") {
                let mut labels = vec![self.value()?];
                self.punct(':')?;
                while self.eat_word("case") {
                    labels.push(self.value()?);
                    self.punct(':')?;
                }
                let decl = self.declaration()?;
                self.punct(';')?;
                arms.push(Arm { labels, decl });
            } else if self.is_word("default") {
                if default.is_some() {
                    return Err(Diag::new(self.pos(), "a second `default` arm"));
                }
                self.i += 1;
                self.punct(':')?;
                default = Some(self.declaration()?);
                self.punct(';')?;
            } else if self.eat_punct('}') {
                break;
            } else {
                return self.err("`case`, `default` or `}`");
            }
        }
        if arms.is_empty() {
            return Err(Diag::new(
                self.t[self.i - 1].pos,
                "a union needs a `case` arm",
            ));
        }
        Ok(Union {
            discriminant,
            arms,
            default,
        })
    }

    /// A type specifier (`None`: `void`, when allowed).
    fn type_spec(&mut self, void_ok: bool) -> Result<Option<Type>, Diag> {
        let pos = self.pos();
        let Some(Tok::Ident(w)) = self.peek() else {
            return self.err("a type");
        };
        let w = w.clone();
        self.i += 1;
        let ty = match w.as_str() {
            "void" if void_ok => return Ok(None),
            "unsigned" => {
                if self.eat_word("int") || self.eat_word("long") {
                    Type::UInt
                } else if self.eat_word("hyper") {
                    Type::UHyper
                } else if self.eat_word("char") {
                    Type::UChar
                } else if self.eat_word("short") {
                    Type::UShort
                } else {
                    Type::UInt
                }
            }
            "int" | "long" | "int32_t" => Type::Int,
            "u_int" | "u_long" | "uint32_t" | "u_int32_t" => Type::UInt,
            "hyper" | "int64_t" => Type::Hyper,
            "uint64_t" | "u_int64_t" => Type::UHyper,
            "short" => Type::Short,
            "u_short" => Type::UShort,
            "char" => Type::Char,
            "u_char" => Type::UChar,
            "float" => Type::Float,
            "double" => Type::Double,
            "bool" | "bool_t" => Type::Bool,
            "string" => Type::String,
            "opaque" => Type::Opaque,
            "quadruple" => {
                return Err(Diag::new(
                    pos,
                    "`quadruple` (a 128-bit float) has no Rust type",
                ))
            }
            "struct" | "enum" | "union" => {
                if self.is_punct('{') || self.is_word("switch") {
                    return Err(Diag::new(
                        self.pos(),
                        format!("an inline `{w}` definition is not supported: define it on its own and use its name"),
                    ));
                }
                Type::Named(self.ident(&format!("the {w}'s name"))?)
            }
            _ if KEYWORDS.contains(&w.as_str()) => {
                self.i -= 1;
                return self.err("a type");
            }
            _ => Type::Named(Name { name: w, pos }),
        };
        Ok(Some(ty))
    }

    /// A declaration (`None`: `void`).
    fn declaration(&mut self) -> Result<Option<Decl>, Diag> {
        let Some(ty) = self.type_spec(true)? else {
            return Ok(None);
        };
        if self.eat_punct('*') {
            if matches!(ty, Type::String | Type::Opaque) {
                return Err(Diag::new(
                    self.t[self.i - 1].pos,
                    "`string` and `opaque` cannot be optional",
                ));
            }
            let name = self.ident("a name")?;
            return Ok(Some(Decl {
                name,
                ty,
                shape: Shape::Optional,
            }));
        }
        let name = self.ident("a name")?;
        let shape = if self.eat_punct('[') {
            let v = self.value()?;
            self.punct(']')?;
            Shape::Fixed(v)
        } else if self.eat_punct('<') {
            let v = if self.is_punct('>') {
                None
            } else {
                Some(self.value()?)
            };
            self.punct('>')?;
            Shape::Var(v)
        } else {
            Shape::Plain
        };
        match (&ty, &shape) {
            (Type::String, Shape::Var(_)) | (Type::Opaque, Shape::Var(_) | Shape::Fixed(_)) => {}
            (Type::String, _) => {
                return Err(Diag::new(
                    self.pos(),
                    "`string` needs a bound: `<N>` or `<>`",
                ))
            }
            (Type::Opaque, _) => {
                return Err(Diag::new(
                    self.pos(),
                    "`opaque` needs a size: `[N]`, `<N>` or `<>`",
                ))
            }
            _ => {}
        }
        Ok(Some(Decl { name, ty, shape }))
    }

    fn program(&mut self) -> Result<Program, Diag> {
        let name = self.ident("the program's name")?;
        self.punct('{')?;
        let mut versions = Vec::new();
        loop {
            self.word("version")?;
            let vname = self.ident("the version's name")?;
            self.punct('{')?;
            let mut procedures = Vec::new();
            loop {
                let result = self.type_spec(true)?;
                let pname = self.ident("the procedure's name")?;
                self.punct('(')?;
                let mut args = Vec::new();
                match self.type_spec(true)? {
                    None => {}
                    Some(t) => {
                        args.push(t);
                        while self.eat_punct(',') {
                            let pos = self.pos();
                            match self.type_spec(false)? {
                                Some(t) => args.push(t),
                                None => return Err(Diag::new(pos, "expected a type")),
                            }
                        }
                    }
                }
                self.punct(')')?;
                self.punct('=')?;
                let number = self.value()?;
                self.punct(';')?;
                procedures.push(Procedure {
                    name: pname,
                    result,
                    args,
                    number,
                });
                if self.eat_punct('}') {
                    break;
                }
            }
            self.punct('=')?;
            let number = self.value()?;
            self.punct(';')?;
            versions.push(Version {
                name: vname,
                procedures,
                number,
            });
            if self.eat_punct('}') {
                break;
            }
        }
        self.punct('=')?;
        let number = self.value()?;
        Ok(Program {
            name,
            versions,
            number,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Vec<Definition>, Diag> {
        parse(&crate::lexer::lex(s).unwrap())
    }

    fn err(s: &str) -> (u32, u32, String) {
        let d = parse_str(s).unwrap_err();
        (d.pos.line, d.pos.col, d.message)
    }

    #[test]
    fn parses_flick_x() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../peers/rpcgen/xdr/flick.x"
        ))
        .unwrap();
        let defs = parse_str(&text).unwrap();
        assert_eq!(defs.len(), 13);
        let Definition::Union(_, u) = &defs[7] else {
            panic!()
        };
        assert_eq!(u.arms.len(), 3);
        assert_eq!(u.arms[2].decl, None);
        assert!(matches!(u.default, Some(Some(_))));
        let Definition::Program(p) = &defs[12] else {
            panic!()
        };
        assert_eq!(p.number, Value::Number(0x2046_4C4B, p.number_pos()));
        assert_eq!(p.versions[0].procedures.len(), 7);
        assert!(p.versions[0].procedures[0].args.is_empty());
        assert_eq!(p.versions[0].procedures[0].result, None);
    }

    impl Program {
        fn number_pos(&self) -> crate::error::Pos {
            match &self.number {
                Value::Number(_, p) => *p,
                Value::Name(n) => n.pos,
                Value::Str(_, p) => *p,
            }
        }
    }

    #[test]
    fn parses_the_forms_rpcgen_accepts() {
        let defs = parse_str(
            "const A = -1; const B = 0x10; enum e { X = 1, Y = A, Z = 1 };\n\
             typedef struct node *list; struct node { unsigned a; u_int b; u_long c; \
             unsigned hyper d; char e; u_char f; long g; uint64_t h; int32_t i; \
             opaque o[4]; opaque p<B>; string s<>; node *next; list l<>; };\n\
             union u switch (e d) { case X: case Y: int a; case Z: void; };\n\
             union v switch (bool b) { case TRUE: struct node n; case FALSE: void; default: void; };\n\
             program P { version V1 { void N(void) = 0; } = 1; version V2 { int M(int, string) = 1; } = 2; } = 7;\n\
             program Q { version W { list L(node) = 1; } = 1; } = 8;",
        )
        .unwrap();
        assert_eq!(defs.len(), 9);
        let Definition::Struct(_, fields) = &defs[4] else {
            panic!()
        };
        assert_eq!(fields.len(), 14);
        assert_eq!(fields[0].ty, Type::UInt);
        assert_eq!(fields[3].ty, Type::UHyper);
        assert_eq!(fields[12].shape, Shape::Optional);
        let Definition::Union(_, u) = &defs[5] else {
            panic!()
        };
        assert_eq!(u.arms[0].labels.len(), 2);
        let Definition::Program(p) = &defs[7] else {
            panic!()
        };
        assert_eq!(p.versions.len(), 2);
        assert_eq!(
            p.versions[1].procedures[0].args,
            vec![Type::Int, Type::String]
        );
    }

    #[test]
    fn errors_point_at_the_token() {
        assert_eq!(
            err("struct s { int a }"),
            (1, 18, "expected `;`, found `}`".into())
        );
        assert_eq!(
            err("struct s {\n  int a;\n  string b;\n};"),
            (3, 11, "`string` needs a bound: `<N>` or `<>`".into())
        );
        assert_eq!(
            err("const X = ;"),
            (
                1,
                11,
                "expected a number or a constant's name, found `;`".into()
            )
        );
        assert_eq!(
            err("typedef int x<>"),
            (1, 16, "expected `;`, found the end of the file".into())
        );
        assert_eq!(
            err("foo bar;"),
            (1, 1, "expected a definition (`const`, `typedef`, `enum`, `struct`, `union` or `program`), found `foo`".into())
        );
        assert_eq!(
            err("struct s { quadruple q; };"),
            (
                1,
                12,
                "`quadruple` (a 128-bit float) has no Rust type".into()
            )
        );
        assert_eq!(
            err("union u switch (int d) { default: void; };"),
            (1, 41, "a union needs a `case` arm".into())
        );
        assert_eq!(
            err("struct s { int case; };"),
            (1, 16, "expected a name, found `case`".into())
        );
    }
}
