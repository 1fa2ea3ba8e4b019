//! A recursive-descent parser of CORBA IDL (CORBA 3.0 chapter 3's grammar, the subset of
//! [`super::Config`]) over the preprocessor's tokens, hand-written for the same reasons as the
//! `.x` parser: a small grammar, errors that name what was expected where parsing stopped, and
//! no dependency. Constructs it does not support are located errors.
//!
//! Repository ids are computed here, since `#pragma prefix` applies from where it appears to
//! the end of its file: `IDL:<prefix>/<Scope>/<Name>:<version>`; `#pragma ID` and
//! `#pragma version` (which may follow the definition) are applied when the file is parsed.

use std::collections::HashMap;

use super::ast::*;
use crate::cursor::{on_cursor, Cursor};
use crate::lexer::{Diag, Tok, Token};

/// IDL's keywords: they cannot name anything (escape one with `_`).
const KEYWORDS: &[&str] = &[
    "abstract",
    "any",
    "attribute",
    "boolean",
    "case",
    "char",
    "component",
    "const",
    "consumes",
    "context",
    "custom",
    "default",
    "double",
    "emits",
    "enum",
    "eventtype",
    "exception",
    "factory",
    "FALSE",
    "finder",
    "fixed",
    "float",
    "getraises",
    "home",
    "import",
    "in",
    "inout",
    "interface",
    "local",
    "long",
    "module",
    "native",
    "Object",
    "octet",
    "oneway",
    "out",
    "primarykey",
    "private",
    "provides",
    "public",
    "publishes",
    "raises",
    "readonly",
    "sequence",
    "setraises",
    "short",
    "string",
    "struct",
    "supports",
    "switch",
    "TRUE",
    "truncatable",
    "typedef",
    "typeid",
    "typeprefix",
    "union",
    "unsigned",
    "uses",
    "ValueBase",
    "valuetype",
    "void",
    "wchar",
    "wstring",
];

/// Parses a whole (preprocessed) file.
pub fn parse(tokens: &[Token]) -> Result<Vec<Def>, Diag> {
    let mut p = Parser {
        c: Cursor::new(tokens),
        scope: Vec::new(),
        prefix: HashMap::new(),
        ids: HashMap::new(),
        versions: HashMap::new(),
    };
    let mut defs = Vec::new();
    while p.i < p.t.len() {
        if p.pragma()? {
            continue;
        }
        defs.push(p.definition()?);
    }
    let (ids, versions) = (std::mem::take(&mut p.ids), std::mem::take(&mut p.versions));
    apply_pragmas(&mut defs, &mut Vec::new(), &ids, &versions);
    Ok(defs)
}

struct Parser<'t> {
    c: Cursor<'t>,
    /// The enclosing modules and interfaces.
    scope: Vec<String>,
    /// The current `#pragma prefix` of each file.
    prefix: HashMap<usize, String>,
    /// `#pragma ID`, by scoped name (`A::B`).
    ids: HashMap<String, String>,
    /// `#pragma version`, by scoped name.
    versions: HashMap<String, String>,
}
on_cursor!(Parser);

impl Parser<'_> {
    fn unsupported<T>(&self, what: &str) -> Result<T, Diag> {
        Err(Diag::new(
            self.pos(),
            format!("{what} is not supported by marshal-build"),
        ))
    }

    /// `::` (two `:` tokens).
    fn is_scope_op(&self) -> bool {
        self.is_punct(':') && self.peek_at(1) == Some(&Tok::Punct(':'))
    }

    /// A declared name: an identifier that is not a keyword; `_foo` declares `foo`.
    fn ident(&mut self, what: &str) -> Result<Name, Diag> {
        match self.peek() {
            Some(Tok::Ident(s)) if !KEYWORDS.contains(&s.as_str()) => {
                let name = s.strip_prefix('_').unwrap_or(s).to_string();
                let n = Name {
                    name,
                    pos: self.pos(),
                };
                self.i += 1;
                Ok(n)
            }
            _ => self.err(what),
        }
    }

    /// `A`, `A::B`, `::A::B`.
    fn scoped(&mut self, what: &str) -> Result<Scoped, Diag> {
        let pos = self.pos();
        let absolute = self.is_scope_op();
        if absolute {
            self.i += 2;
        }
        let mut parts = vec![self.ident(what)?.name];
        while self.is_scope_op() {
            self.i += 2;
            parts.push(self.ident("an identifier after `::`")?.name);
        }
        Ok(Scoped {
            absolute,
            parts,
            pos,
        })
    }

    /// The repository id of `name` declared in the current scope.
    fn repo_id(&self, name: &Name) -> String {
        let mut path = self.scope.clone();
        path.push(name.name.clone());
        let prefix = self.prefix.get(&name.pos.file).map_or("", String::as_str);
        let slash = if prefix.is_empty() { "" } else { "/" };
        format!("IDL:{prefix}{slash}{}:1.0", path.join("/"))
    }

    /// A `#pragma` token, if next: handled (prefix, ID, version; others ignored).
    fn pragma(&mut self) -> Result<bool, Diag> {
        let Some(Token {
            tok: Tok::Pragma(text),
            pos,
        }) = self.t.get(self.i)
        else {
            return Ok(false);
        };
        self.i += 1;
        let mut words = text.splitn(2, char::is_whitespace);
        let kind = words.next().unwrap_or("");
        let rest = words.next().unwrap_or("").trim();
        let quoted = |s: &str| -> Result<String, Diag> {
            s.strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .map(str::to_string)
                .ok_or_else(|| Diag::new(*pos, format!("`#pragma {kind}` needs a quoted string")))
        };
        match kind {
            "prefix" => {
                let p = quoted(rest)?;
                self.prefix.insert(pos.file, p);
            }
            "ID" | "version" => {
                let (name, value) = rest.split_once(char::is_whitespace).ok_or_else(|| {
                    Diag::new(*pos, format!("`#pragma {kind}` needs a name and a value"))
                })?;
                let name = name.trim_start_matches("::");
                let mut full = self.scope.clone();
                full.push(name.to_string());
                let key = full.join("::");
                if kind == "ID" {
                    self.ids.insert(key, quoted(value.trim())?);
                } else {
                    self.versions.insert(key, value.trim().to_string());
                }
            }
            _ => {}
        }
        Ok(true)
    }

    fn definition(&mut self) -> Result<Def, Diag> {
        let def = self.definition_body()?;
        self.punct(';')?;
        Ok(def)
    }

    fn definition_body(&mut self) -> Result<Def, Diag> {
        let Some(Tok::Ident(w)) = self.peek() else {
            return self.err("a definition");
        };
        match w.as_str() {
            "module" => {
                self.i += 1;
                let name = self.ident("a module name")?;
                self.punct('{')?;
                self.scope.push(name.name.clone());
                let mut defs = Vec::new();
                loop {
                    if self.pragma()? {
                        continue;
                    }
                    if self.eat_punct('}') {
                        break;
                    }
                    defs.push(self.definition()?);
                }
                self.scope.pop();
                Ok(Def::Module(name, defs))
            }
            "typedef" => {
                self.i += 1;
                let ty = self.type_spec()?;
                Ok(Def::Typedef(ty, self.declarators()?))
            }
            "struct" => {
                self.i += 1;
                let name = self.ident("a struct name")?;
                if self.is_punct(';') {
                    return self.unsupported("a forward-declared struct");
                }
                let id = self.repo_id(&name);
                let members = self.members(false)?;
                Ok(Def::Struct(name, members, id))
            }
            "exception" => {
                self.i += 1;
                let name = self.ident("an exception name")?;
                let id = self.repo_id(&name);
                let members = self.members(true)?;
                Ok(Def::Exception(name, members, id))
            }
            "union" => self.union(),
            "enum" => {
                self.i += 1;
                let name = self.ident("an enum name")?;
                let id = self.repo_id(&name);
                self.punct('{')?;
                let mut items = vec![self.ident("an enumerator")?];
                while self.eat_punct(',') {
                    items.push(self.ident("an enumerator")?);
                }
                self.punct('}')?;
                Ok(Def::Enum(name, items, id))
            }
            "const" => {
                self.i += 1;
                let ty = self.const_type()?;
                let name = self.ident("a constant's name")?;
                self.punct('=')?;
                Ok(Def::Const(name, ty, self.expr()?))
            }
            "interface" => self.interface(),
            "abstract" | "local" => self.unsupported(&format!("`{w}` interface")),
            "valuetype" | "custom" | "eventtype" => self.unsupported("`valuetype`"),
            "native" => self.unsupported("`native`"),
            "component" | "home" | "import" | "typeid" | "typeprefix" => {
                self.unsupported(&format!("`{w}`"))
            }
            _ => self.err("a definition"),
        }
    }

    /// `{ T a; U b, c[2]; }` (a struct needs a member; an exception may have none).
    fn members(&mut self, may_be_empty: bool) -> Result<Vec<Member>, Diag> {
        self.punct('{')?;
        let mut members = Vec::new();
        while !self.eat_punct('}') {
            let ty = self.type_spec()?;
            let decls = self.declarators()?;
            self.punct(';')?;
            members.push(Member { ty, decls });
        }
        if members.is_empty() && !may_be_empty {
            return Err(Diag::new(
                self.t[self.i - 1].pos,
                "a struct needs at least one member",
            ));
        }
        Ok(members)
    }

    fn declarators(&mut self) -> Result<Vec<Declarator>, Diag> {
        let mut v = vec![self.declarator()?];
        while self.eat_punct(',') {
            v.push(self.declarator()?);
        }
        Ok(v)
    }

    fn declarator(&mut self) -> Result<Declarator, Diag> {
        let name = self.ident("a name")?;
        let mut dims = Vec::new();
        while self.eat_punct('[') {
            dims.push(self.expr()?);
            self.punct(']')?;
        }
        Ok(Declarator { name, dims })
    }

    fn union(&mut self) -> Result<Def, Diag> {
        self.i += 1;
        let name = self.ident("a union name")?;
        if self.is_punct(';') {
            return self.unsupported("a forward-declared union");
        }
        let id = self.repo_id(&name);
        if !self.eat_word("switch") {
            return self.err("`switch`");
        }
        self.punct('(')?;
        let disc = match self.prim()? {
            Some(p @ (Prim::Float | Prim::Double | Prim::Octet)) => {
                return Err(Diag::new(
                    self.t[self.i - 1].pos,
                    format!("a union cannot switch on {p:?}"),
                ))
            }
            Some(p) => Type::Prim(p),
            None if self.is_word("enum") => {
                return self.unsupported("an enum declared in `switch`")
            }
            None => Type::Named(self.scoped("a discriminant type")?),
        };
        self.punct(')')?;
        self.punct('{')?;
        let mut cases = Vec::new();
        while !self.eat_punct('}') {
            let mut labels = Vec::new();
            loop {
                if self.eat_word("case") {
                    labels.push(Some(self.expr()?));
                } else if self.eat_word("default") {
                    labels.push(None);
                } else if labels.is_empty() {
                    return self.err("`case`, `default` or `}`");
                } else {
                    break;
                }
                self.punct(':')?;
            }
            let ty = self.type_spec()?;
            let decl = self.declarator()?;
            self.punct(';')?;
            cases.push(Case { labels, ty, decl });
        }
        if cases.is_empty() {
            return Err(Diag::new(self.t[self.i - 1].pos, "a union needs a case"));
        }
        Ok(Def::Union(name, disc, cases, id))
    }

    fn interface(&mut self) -> Result<Def, Diag> {
        self.i += 1;
        let name = self.ident("an interface name")?;
        if self.is_punct(';') {
            return Ok(Def::Forward(name));
        }
        let id = self.repo_id(&name);
        let mut bases = Vec::new();
        if self.eat_punct(':') {
            bases.push(self.scoped("a base interface")?);
            while self.eat_punct(',') {
                bases.push(self.scoped("a base interface")?);
            }
        }
        self.punct('{')?;
        self.scope.push(name.name.clone());
        let mut it = Interface {
            name,
            id,
            bases,
            defs: Vec::new(),
            ops: Vec::new(),
            attrs: Vec::new(),
        };
        loop {
            if self.pragma()? {
                continue;
            }
            if self.eat_punct('}') {
                break;
            }
            match self.peek() {
                Some(Tok::Ident(w))
                    if matches!(
                        w.as_str(),
                        "typedef" | "struct" | "union" | "enum" | "const" | "exception"
                    ) =>
                {
                    it.defs.push(self.definition()?);
                }
                Some(Tok::Ident(w)) if w == "readonly" || w == "attribute" => {
                    let readonly = self.eat_word("readonly");
                    if !self.eat_word("attribute") {
                        return self.err("`attribute`");
                    }
                    let ty = self.param_type()?;
                    let mut names = vec![self.ident("an attribute name")?];
                    while self.eat_punct(',') {
                        names.push(self.ident("an attribute name")?);
                    }
                    if self.is_word("raises") || self.is_word("getraises") {
                        return self.unsupported("`raises` on an attribute");
                    }
                    self.punct(';')?;
                    it.attrs.push(Attribute {
                        readonly,
                        ty,
                        names,
                    });
                }
                _ => {
                    it.ops.push(self.operation()?);
                    self.punct(';')?;
                }
            }
        }
        self.scope.pop();
        Ok(Def::Interface(it))
    }

    fn operation(&mut self) -> Result<Operation, Diag> {
        let oneway = self.eat_word("oneway");
        let ret = if self.eat_word("void") {
            None
        } else {
            Some(self.param_type()?)
        };
        let name = self.ident("an operation name")?;
        self.punct('(')?;
        let mut params = Vec::new();
        if !self.eat_punct(')') {
            loop {
                let dir = if self.eat_word("in") {
                    Dir::In
                } else if self.eat_word("out") {
                    Dir::Out
                } else if self.eat_word("inout") {
                    Dir::InOut
                } else {
                    return self.err("`in`, `out` or `inout`");
                };
                let ty = self.param_type()?;
                let name = self.ident("a parameter name")?;
                params.push(Param { dir, ty, name });
                if self.eat_punct(')') {
                    break;
                }
                self.punct(',')?;
            }
        }
        let mut raises = Vec::new();
        if self.eat_word("raises") {
            self.punct('(')?;
            raises.push(self.scoped("an exception")?);
            while self.eat_punct(',') {
                raises.push(self.scoped("an exception")?);
            }
            self.punct(')')?;
        }
        if self.is_word("context") {
            return self.unsupported("`context`");
        }
        Ok(Operation {
            name,
            oneway,
            ret,
            params,
            raises,
        })
    }

    /// A base type, if next: `short`, `unsigned long long`, `boolean`, …; unsupported base
    /// types are errors.
    fn prim(&mut self) -> Result<Option<Prim>, Diag> {
        let Some(Tok::Ident(w)) = self.peek() else {
            return Ok(None);
        };
        let p = match w.as_str() {
            "short" => Prim::Short,
            "long" => {
                if self.peek_at(1) == Some(&Tok::Ident("double".into())) {
                    return self.unsupported("`long double`");
                }
                if self.peek_at(1) == Some(&Tok::Ident("long".into())) {
                    self.i += 1;
                    Prim::LongLong
                } else {
                    Prim::Long
                }
            }
            "unsigned" => {
                self.i += 1;
                match self.peek() {
                    Some(Tok::Ident(w)) if w == "short" => Prim::UShort,
                    Some(Tok::Ident(w)) if w == "long" => {
                        if self.peek_at(1) == Some(&Tok::Ident("long".into())) {
                            self.i += 1;
                            Prim::ULongLong
                        } else {
                            Prim::ULong
                        }
                    }
                    _ => return self.err("`short` or `long` after `unsigned`"),
                }
            }
            "float" => Prim::Float,
            "double" => Prim::Double,
            "char" => Prim::Char,
            "octet" => Prim::Octet,
            "boolean" => Prim::Boolean,
            "any" | "wchar" | "wstring" | "fixed" | "ValueBase" => {
                return self.unsupported(&format!("`{w}`"))
            }
            "TypeCode" => return self.unsupported("`TypeCode`"),
            _ => return Ok(None),
        };
        self.i += 1;
        Ok(Some(p))
    }

    /// A type of a member, typedef or sequence element.
    fn type_spec(&mut self) -> Result<Type, Diag> {
        if let Some(p) = self.prim()? {
            return Ok(Type::Prim(p));
        }
        match self.peek() {
            Some(Tok::Ident(w)) if w == "string" => {
                self.i += 1;
                let bound = if self.eat_punct('<') {
                    let b = self.expr()?;
                    self.punct('>')?;
                    Some(b)
                } else {
                    None
                };
                Ok(Type::String(bound))
            }
            Some(Tok::Ident(w)) if w == "sequence" => {
                self.i += 1;
                self.punct('<')?;
                let elem = self.type_spec()?;
                let bound = if self.eat_punct(',') {
                    // `>` ends the bound: parse it without the shift operator.
                    Some(self.expr_no_shift()?)
                } else {
                    None
                };
                self.punct('>')?;
                Ok(Type::Sequence(Box::new(elem), bound))
            }
            Some(Tok::Ident(w)) if w == "Object" => {
                self.i += 1;
                Ok(Type::Object)
            }
            Some(Tok::Ident(w)) if matches!(w.as_str(), "struct" | "union" | "enum") => {
                self.unsupported(&format!("a `{w}` declared inside another declaration"))
            }
            Some(Tok::Ident(w)) if matches!(w.as_str(), "void" | "interface") => self.err("a type"),
            Some(Tok::Ident(_)) | Some(Tok::Punct(':')) => Ok(Type::Named(self.scoped("a type")?)),
            _ => self.err("a type"),
        }
    }

    /// The type of a parameter, attribute or result: no anonymous bounded types there in
    /// CORBA 3, but omniidl accepts them, and so does this.
    fn param_type(&mut self) -> Result<Type, Diag> {
        self.type_spec()
    }

    /// The type of a `const`.
    fn const_type(&mut self) -> Result<Type, Diag> {
        let pos = self.pos();
        let ty = self.type_spec()?;
        match &ty {
            Type::Prim(Prim::Float | Prim::Double) => Err(Diag::new(
                pos,
                "floating-point constants are not supported by marshal-build",
            )),
            Type::Sequence(..) | Type::Object => Err(Diag::new(pos, "not a constant's type")),
            _ => Ok(ty),
        }
    }

    fn expr(&mut self) -> Result<Expr, Diag> {
        self.binary(0, true)
    }

    fn expr_no_shift(&mut self) -> Result<Expr, Diag> {
        self.binary(0, false)
    }

    /// Operators by precedence (lowest first): `|`, `^`, `&`, shifts, `+ -`, `* / %`.
    fn binary(&mut self, level: usize, shifts: bool) -> Result<Expr, Diag> {
        if level == 6 {
            return self.unary();
        }
        let pos = self.pos();
        let mut lhs = self.binary(level + 1, shifts)?;
        loop {
            let op: &'static str = match (level, self.peek(), self.peek_at(1)) {
                (0, Some(Tok::Punct('|')), _) => "|",
                (1, Some(Tok::Punct('^')), _) => "^",
                (2, Some(Tok::Punct('&')), _) => "&",
                (3, Some(Tok::Punct('<')), Some(Tok::Punct('<'))) if shifts => "<<",
                (3, Some(Tok::Punct('>')), Some(Tok::Punct('>'))) if shifts => ">>",
                (4, Some(Tok::Punct('+')), _) => "+",
                (4, Some(Tok::Punct('-')), _) => "-",
                (5, Some(Tok::Punct('*')), _) => "*",
                (5, Some(Tok::Punct('/')), _) => "/",
                (5, Some(Tok::Punct('%')), _) => "%",
                _ => return Ok(lhs),
            };
            self.i += op.len();
            let rhs = self.binary(level + 1, shifts)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), pos);
        }
    }

    fn unary(&mut self) -> Result<Expr, Diag> {
        let pos = self.pos();
        for op in ['-', '+', '~'] {
            if self.eat_punct(op) {
                return Ok(Expr::Unary(op, Box::new(self.unary()?), pos));
            }
        }
        let e = match self.peek() {
            Some(Tok::Number(n)) => Expr::Int(*n, pos),
            Some(Tok::Str(s)) => Expr::Str(s.clone(), pos),
            Some(Tok::Char(c)) => Expr::Char(*c, pos),
            Some(Tok::Ident(w)) if w == "TRUE" => Expr::Bool(true, pos),
            Some(Tok::Ident(w)) if w == "FALSE" => Expr::Bool(false, pos),
            Some(Tok::Punct('(')) => {
                self.i += 1;
                let e = self.expr()?;
                self.punct(')')?;
                return Ok(e);
            }
            Some(Tok::Ident(_)) | Some(Tok::Punct(':')) => {
                return Ok(Expr::Name(self.scoped("a constant")?))
            }
            _ => return self.err("a constant expression"),
        };
        self.i += 1;
        Ok(e)
    }
}

/// Applies `#pragma ID` and `#pragma version` to the definitions they name.
fn apply_pragmas(
    defs: &mut [Def],
    scope: &mut Vec<String>,
    ids: &HashMap<String, String>,
    versions: &HashMap<String, String>,
) {
    let fix = |scope: &[String], name: &str, id: &mut String| {
        let mut path = scope.to_vec();
        path.push(name.to_string());
        let key = path.join("::");
        if let Some(new) = ids.get(&key) {
            *id = new.clone();
        } else if let Some(v) = versions.get(&key) {
            if let Some(i) = id.rfind(':') {
                id.truncate(i + 1);
                id.push_str(v);
            }
        }
    };
    for d in defs {
        match d {
            Def::Module(n, inner) => {
                scope.push(n.name.clone());
                apply_pragmas(inner, scope, ids, versions);
                scope.pop();
            }
            Def::Struct(n, _, id)
            | Def::Exception(n, _, id)
            | Def::Union(n, _, _, id)
            | Def::Enum(n, _, id) => fix(scope, &n.name, id),
            Def::Interface(it) => {
                fix(scope, &it.name.name, &mut it.id);
                scope.push(it.name.name.clone());
                apply_pragmas(&mut it.defs, scope, ids, versions);
                scope.pop();
            }
            Def::Typedef(..) | Def::Const(..) | Def::Forward(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preprocess::{preprocess_str, Options};
    use std::path::Path;

    fn tokens(s: &str) -> Vec<Token> {
        let opts = Options {
            idl: true,
            ..Options::default()
        };
        preprocess_str(Path::new("t.idl"), s, &opts).unwrap().1
    }

    fn ok(s: &str) -> Vec<Def> {
        parse(&tokens(s)).unwrap()
    }

    fn err(s: &str) -> (u32, u32, String) {
        let e = parse(&tokens(s)).unwrap_err();
        (e.pos.line, e.pos.col, e.message)
    }

    #[test]
    fn modules_types_and_repository_ids() {
        let defs = ok("#pragma prefix \"omg.org\"\n\
             module A { struct P { long x, y[2]; }; enum E { a, b };\n\
             typedef sequence<P, 4> Ps; typedef string<8> S;\n\
             union U switch (E) { case a: case b: long v; default: string s; };\n\
             exception X {}; const long N = (1 << 4) | 0x3 - -1;\n\
             struct _module { long _in; }; };\n\
             #pragma version A::P 2.3\n#pragma ID A::E \"LOCAL:e\"");
        let Def::Module(m, inner) = &defs[0] else {
            panic!()
        };
        assert_eq!(m.name, "A");
        assert!(matches!(&inner[0], Def::Struct(n, ms, id)
            if n.name == "P" && ms[0].decls.len() == 2 && id == "IDL:omg.org/A/P:2.3"));
        assert!(matches!(&inner[1], Def::Enum(_, items, id)
            if items.len() == 2 && id == "LOCAL:e"));
        assert!(matches!(
            &inner[2],
            Def::Typedef(Type::Sequence(_, Some(_)), _)
        ));
        let Def::Union(_, disc, cases, id) = &inner[4] else {
            panic!()
        };
        assert_eq!(id, "IDL:omg.org/A/U:1.0");
        assert!(matches!(disc, Type::Named(s) if s.parts == ["E"]));
        assert_eq!(cases[0].labels.len(), 2);
        assert_eq!(cases[1].labels, vec![None]);
        assert!(matches!(&inner[5], Def::Exception(_, ms, _) if ms.is_empty()));
        assert!(matches!(
            &inner[6],
            Def::Const(_, Type::Prim(Prim::Long), Expr::Binary("|", ..))
        ));
        assert!(matches!(&inner[7], Def::Struct(n, ms, _)
            if n.name == "module" && ms[0].decls[0].name.name == "in"));
    }

    #[test]
    fn interfaces() {
        let defs = ok("interface F; interface B { void f(); };\n\
             interface I : B, ::B { typedef long T; exception E { string why; };\n\
             readonly attribute long a, b; attribute T c;\n\
             oneway void ping(in string s);\n\
             T op(in T a, out string b, inout sequence<long> c) raises (E, ::I::E);\n\
             F get(); Object obj(); };");
        assert!(matches!(&defs[0], Def::Forward(n) if n.name == "F"));
        let Def::Interface(it) = &defs[2] else {
            panic!()
        };
        assert_eq!(it.id, "IDL:I:1.0");
        assert_eq!(it.bases.len(), 2);
        assert!(it.bases[1].absolute);
        assert_eq!(it.defs.len(), 2);
        assert_eq!(it.attrs.len(), 2);
        assert!(it.attrs[0].readonly && it.attrs[0].names.len() == 2);
        assert!(it.ops[0].oneway && it.ops[0].ret.is_none());
        let op = &it.ops[1];
        assert_eq!(
            op.params.iter().map(|p| p.dir).collect::<Vec<_>>(),
            [Dir::In, Dir::Out, Dir::InOut]
        );
        assert_eq!(op.raises[1].to_string(), "::I::E");
        assert_eq!(it.ops[3].ret, Some(Type::Object));
    }

    #[test]
    fn errors_point_at_the_token() {
        assert_eq!(
            err("struct S { any a; };"),
            (1, 12, "`any` is not supported by marshal-build".into())
        );
        assert_eq!(
            err("module M {\n  valuetype V { };\n};"),
            (2, 3, "`valuetype` is not supported by marshal-build".into())
        );
        assert_eq!(
            err("local interface L { };"),
            (
                1,
                1,
                "`local` interface is not supported by marshal-build".into()
            )
        );
        assert_eq!(
            err("struct S { wstring w; };").2,
            "`wstring` is not supported by marshal-build"
        );
        assert_eq!(
            err("typedef long double D;").2,
            "`long double` is not supported by marshal-build"
        );
        assert_eq!(
            err("typedef fixed<5,2> F;").2,
            "`fixed` is not supported by marshal-build"
        );
        assert_eq!(
            err("struct S { long a }"),
            (1, 19, "expected `;`, found `}`".into())
        );
        assert_eq!(
            err("interface I { void f(long x); };"),
            (
                1,
                22,
                "expected `in`, `out` or `inout`, found `long`".into()
            )
        );
        assert_eq!(
            err("module M { struct S { long x; };"),
            (
                1,
                33,
                "expected a definition, found the end of the file".into()
            )
        );
        assert_eq!(err("const double PI = 3;").0, 1);
    }
}
