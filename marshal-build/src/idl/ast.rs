//! The syntax tree of a CORBA IDL file, as the parser builds it: names keep where they were
//! written, for errors; repository ids are computed by the parser (it sees `#pragma`s in
//! place).

use crate::error::Pos;

/// A declared name (an escaped identifier `_foo` is stored as `foo`) and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub pos: Pos,
}

/// A name as written where it is used: `A::B`, `::A::B` (`absolute`), or `B`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoped {
    /// `::` first.
    pub absolute: bool,
    /// The identifiers.
    pub parts: Vec<String>,
    /// Where it starts.
    pub pos: Pos,
}

impl std::fmt::Display for Scoped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.absolute {
            f.write_str("::")?;
        }
        f.write_str(&self.parts.join("::"))
    }
}

/// A base type of IDL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    /// `short`.
    Short,
    /// `unsigned short`.
    UShort,
    /// `long`.
    Long,
    /// `unsigned long`.
    ULong,
    /// `long long`.
    LongLong,
    /// `unsigned long long`.
    ULongLong,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `char`.
    Char,
    /// `octet`.
    Octet,
    /// `boolean`.
    Boolean,
}

/// A type as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    /// A base type.
    Prim(Prim),
    /// `string` or `string<N>`.
    String(Option<Expr>),
    /// `sequence<T>` or `sequence<T, N>`.
    Sequence(Box<Type>, Option<Expr>),
    /// `Object`: any object reference.
    Object,
    /// A declared type (or interface: an object reference).
    Named(Scoped),
}

/// A constant expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// An integer literal.
    Int(i128, Pos),
    /// A string literal (escapes as written).
    Str(String, Pos),
    /// A character literal.
    Char(char, Pos),
    /// `TRUE` or `FALSE`.
    Bool(bool, Pos),
    /// A constant or enumerator.
    Name(Scoped),
    /// `-x`, `+x`, `~x`.
    Unary(char, Box<Expr>, Pos),
    /// `a op b`: `|`, `^`, `&`, `<<`, `>>`, `+`, `-`, `*`, `/`, `%`.
    Binary(&'static str, Box<Expr>, Box<Expr>, Pos),
}

impl Expr {
    /// Where the expression starts.
    pub fn pos(&self) -> Pos {
        match self {
            Expr::Int(_, p)
            | Expr::Str(_, p)
            | Expr::Char(_, p)
            | Expr::Bool(_, p)
            | Expr::Unary(_, _, p)
            | Expr::Binary(_, _, _, p) => *p,
            Expr::Name(s) => s.pos,
        }
    }
}

/// A declarator: a name with array dimensions (`ints[30]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Declarator {
    /// The name.
    pub name: Name,
    /// The array dimensions, outermost first.
    pub dims: Vec<Expr>,
}

/// `T a, b[3];` in a struct or exception.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The type.
    pub ty: Type,
    /// The names declared with it.
    pub decls: Vec<Declarator>,
}

/// One arm of a union.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The labels (`None` for `default`).
    pub labels: Vec<Option<Expr>>,
    /// The arm's type.
    pub ty: Type,
    /// The arm's member.
    pub decl: Declarator,
}

/// A parameter's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// `in`.
    In,
    /// `out`.
    Out,
    /// `inout`.
    InOut,
}

/// An operation's parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Its direction.
    pub dir: Dir,
    /// Its type.
    pub ty: Type,
    /// Its name.
    pub name: Name,
}

/// An operation of an interface.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// Its name.
    pub name: Name,
    /// `oneway`.
    pub oneway: bool,
    /// The result type (`None` for `void`).
    pub ret: Option<Type>,
    /// The parameters.
    pub params: Vec<Param>,
    /// The exceptions of `raises (…)`.
    pub raises: Vec<Scoped>,
}

/// `attribute T a, b;` or `readonly attribute …`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// `readonly`.
    pub readonly: bool,
    /// The type.
    pub ty: Type,
    /// The attributes declared.
    pub names: Vec<Name>,
}

/// A definition, with the repository id of what it declares (if it declares a type).
#[derive(Debug, Clone, PartialEq)]
pub enum Def {
    /// `module M { … };`
    Module(Name, Vec<Def>),
    /// `typedef T a, b[2];`
    Typedef(Type, Vec<Declarator>),
    /// `struct S { … };` (and its repository id).
    Struct(Name, Vec<Member>, String),
    /// `exception E { … };`
    Exception(Name, Vec<Member>, String),
    /// `union U switch (D) { … };`
    Union(Name, Type, Vec<Case>, String),
    /// `enum E { a, b };`
    Enum(Name, Vec<Name>, String),
    /// `const T N = v;`
    Const(Name, Type, Expr),
    /// `interface I : A, B { … };`
    Interface(Interface),
    /// `interface I;`
    Forward(Name),
}

/// An interface.
#[derive(Debug, Clone, PartialEq)]
pub struct Interface {
    /// Its name.
    pub name: Name,
    /// Its repository id.
    pub id: String,
    /// The interfaces it inherits from.
    pub bases: Vec<Scoped>,
    /// Types, constants and exceptions declared in it.
    pub defs: Vec<Def>,
    /// Its operations.
    pub ops: Vec<Operation>,
    /// Its attributes.
    pub attrs: Vec<Attribute>,
}
