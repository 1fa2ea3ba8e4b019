//! The syntax tree of a `.x` file.

use crate::error::Pos;

/// A name and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The name as written.
    pub name: String,
    /// Where.
    pub pos: Pos,
}

/// A constant or a name of one (a `const`, an enumerator, or `TRUE`/`FALSE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A literal.
    Number(i128, Pos),
    /// A named constant.
    Name(Name),
    /// A string literal (only as a `const`'s value), as written between the quotes.
    Str(String, Pos),
}

/// A type specifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    /// `int`, `long`, `int32_t`.
    Int,
    /// `unsigned [int|long]`, `u_int`, `u_long`, `uint32_t`.
    UInt,
    /// `hyper`, `int64_t`.
    Hyper,
    /// `unsigned hyper`, `uint64_t`.
    UHyper,
    /// `short`.
    Short,
    /// `unsigned short`, `u_short`.
    UShort,
    /// `char`.
    Char,
    /// `unsigned char`, `u_char`.
    UChar,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `bool`.
    Bool,
    /// `string` (only in a declaration with `<…>`, or as a procedure's type).
    String,
    /// `opaque` (only in a declaration with `[…]` or `<…>`).
    Opaque,
    /// A defined (or undefined, external) type by name; `struct X` is `X`.
    Named(Name),
}

/// How a declaration shapes its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// `T x`.
    Plain,
    /// `T *x`.
    Optional,
    /// `T x[N]`.
    Fixed(Value),
    /// `T x<N>` or `T x<>`.
    Var(Option<Value>),
}

/// A declaration: a field, a union arm, a typedef's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl {
    /// The declared name.
    pub name: Name,
    /// The type.
    pub ty: Type,
    /// Its shape.
    pub shape: Shape,
}

/// One enumerator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enumerator {
    /// Its name.
    pub name: Name,
    /// Its value.
    pub value: Value,
}

/// One arm of a union: its labels and its declaration (`None`: `void`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arm {
    /// The `case` labels.
    pub labels: Vec<Value>,
    /// The arm's declaration, or `void`.
    pub decl: Option<Decl>,
}

/// A union's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Union {
    /// The discriminant's declaration.
    pub discriminant: Decl,
    /// The `case` arms, in order.
    pub arms: Vec<Arm>,
    /// The `default` arm: `Some(None)` for `default: void;`.
    pub default: Option<Option<Decl>>,
}

/// A procedure of a program version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Procedure {
    /// Its name.
    pub name: Name,
    /// Its result (`None`: `void`).
    pub result: Option<Type>,
    /// Its arguments (empty: `void`).
    pub args: Vec<Type>,
    /// Its number.
    pub number: Value,
}

/// A version of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// Its name.
    pub name: Name,
    /// Its procedures.
    pub procedures: Vec<Procedure>,
    /// Its number.
    pub number: Value,
}

/// An RPC program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Its name.
    pub name: Name,
    /// Its versions.
    pub versions: Vec<Version>,
    /// Its number.
    pub number: Value,
}

/// A definition at the top level of a file (a few per file: their sizes do not matter).
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)]
pub enum Definition {
    /// `const NAME = value;`.
    Const(Name, Value),
    /// `typedef decl;`.
    Typedef(Decl),
    /// `enum name { … };`.
    Enum(Name, Vec<Enumerator>),
    /// `struct name { … };`.
    Struct(Name, Vec<Decl>),
    /// `union name switch (…) { … };`.
    Union(Name, Union),
    /// `program NAME { … } = N;`.
    Program(Program),
}
