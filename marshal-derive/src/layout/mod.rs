//! Layout-annotated records (USC): `#[marshal(layout(size = N, align = N))]` on a struct and
//! `#[marshal(at = N, big|little, unit = uN, bits = a..b)]` on its fields.
//!
//! The annotations are parsed into a typed model here and checked (every field placed, widths
//! suit the Rust types, fields fit the size and do not overlap unless they are bit-fields of one
//! unit, `in_place` records tile their bytes), with every error at the annotation's span.
//! [`words`] groups the fields into the widest aligned words (up to 8 bytes; within the
//! guaranteed alignment on targets where unaligned access is slow);
//! [`convert`] generates whole-record conversion from those words and [`view`] the in-place
//! views. The derive knows no rule of any wire format here: the layout is the user's.

mod convert;
mod view;
mod words;

use proc_macro2::{Span, TokenStream};
use quote::format_ident;
use syn::spanned::Spanned;

use crate::ast::{Container, Data, Style};
pub use crate::attr::Order;
use crate::ctxt::Ctxt;

/// A checked layout record.
pub struct Record<'a> {
    pub ident: &'a syn::Ident,
    pub vis: &'a syn::Visibility,
    pub size: usize,
    pub align: usize,
    pub in_place: bool,
    pub fields: Vec<LField<'a>>,
    /// Byte ranges each read or written as one piece, sorted by offset, disjoint.
    pub units: Vec<Unit>,
}

/// What a field holds, from its Rust type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// `u8`…`u64` (width in bytes).
    Uint(usize),
    /// `i8`…`i64`.
    Int(usize),
    /// `f32`, `f64`.
    Float(usize),
    /// `bool`: a one-bit bit-field.
    Bool,
    /// `[u8; N]`: bytes copied as they are.
    Bytes(usize),
}

impl Ty {
    fn of(ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let id = p.path.get_ident()?.to_string();
                Some(match id.as_str() {
                    "u8" => Ty::Uint(1),
                    "u16" => Ty::Uint(2),
                    "u32" => Ty::Uint(4),
                    "u64" => Ty::Uint(8),
                    "i8" => Ty::Int(1),
                    "i16" => Ty::Int(2),
                    "i32" => Ty::Int(4),
                    "i64" => Ty::Int(8),
                    "f32" => Ty::Float(4),
                    "f64" => Ty::Float(8),
                    "bool" => Ty::Bool,
                    _ => return None,
                })
            }
            syn::Type::Array(a) => {
                let syn::Type::Path(e) = &*a.elem else {
                    return None;
                };
                if !e.path.is_ident("u8") {
                    return None;
                }
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) = &a.len
                else {
                    return None;
                };
                n.base10_parse::<usize>().ok().map(Ty::Bytes)
            }
            syn::Type::Group(g) => Ty::of(&g.elem),
            _ => None,
        }
    }

    /// Bytes the field occupies when it is not a bit-field.
    fn width(self) -> usize {
        match self {
            Ty::Uint(w) | Ty::Int(w) | Ty::Float(w) | Ty::Bytes(w) => w,
            Ty::Bool => 1,
        }
    }
}

pub struct LField<'a> {
    pub ident: &'a syn::Ident,
    pub name: String,
    pub ty: &'a syn::Type,
    pub kind: Ty,
    pub at: usize,
    /// The bit range within the unit, for a bit-field.
    pub bits: Option<(u32, u32)>,
    /// Index into [`Record::units`].
    pub unit: usize,
}

/// One integer, byte array, or bit-field unit of the layout.
pub struct Unit {
    pub at: usize,
    pub width: usize,
    pub order: Order,
    /// The fields stored in it: one, or several bit-fields.
    pub fields: Vec<usize>,
    /// A byte array: copied, never part of a word.
    pub bytes: bool,
}

impl Unit {
    fn end(&self) -> usize {
        self.at + self.width
    }
}

impl<'a> Record<'a> {
    /// Checks the layout annotations of `cont`; `None` when it has none (or errors were
    /// recorded in `cx`).
    pub fn from_container(
        cx: &Ctxt,
        cont: &Container<'a>,
        input: &'a syn::DeriveInput,
    ) -> Option<Record<'a>> {
        let Some(layout) = cont.attrs.layout else {
            reject_stray_annotations(cx, cont);
            return None;
        };
        let layout_span = layout.span;
        let layout = layout.value;
        let Data::Struct(fields) = &cont.data else {
            cx.syn_error(syn::Error::new(
                layout_span,
                "`layout(...)` applies to a struct with named fields",
            ));
            return None;
        };
        if fields.style != Style::Named {
            cx.syn_error(syn::Error::new(
                layout_span,
                "`layout(...)` applies to a struct with named fields (views name their getters after them)",
            ));
            return None;
        }
        if !cont.generics.params.is_empty() {
            cx.error_spanned_by(
                cont.generics,
                "a `layout` record cannot be generic: its bytes are fixed",
            );
        }
        let syn::Data::Struct(data) = &input.data else {
            return None;
        };
        let mut out = Vec::new();
        for (f, sf) in fields.fields.iter().zip(data.fields.iter()) {
            let ident = sf.ident.as_ref()?;
            let a = &f.attrs.layout;
            if let Some(m) = f.attrs.max_len {
                cx.syn_error(syn::Error::new(
                    m.span,
                    "`max_len` has no meaning in a fixed layout",
                ));
            }
            let Some(at) = a.at else {
                cx.error_spanned_by(
                    ident,
                    format!("field `{}` of a `layout` struct needs `#[marshal(at = N)]`, its byte offset", f.name),
                );
                continue;
            };
            let Some(kind) = Ty::of(f.ty) else {
                cx.error_spanned_by(
                    f.ty,
                    "a layout field is an integer (u8…u64, i8…i64), f32, f64, `[u8; N]`, or a bit-field (unsigned integer or bool)",
                );
                continue;
            };
            let order = a.order.map_or(Order::Big, |o| o.value);
            let (width, bits) = match (a.unit, a.bits) {
                (None, None) => {
                    if kind == Ty::Bool {
                        cx.error_spanned_by(
                            f.ty,
                            "a `bool` is a one-bit bit-field: add `unit = u8, bits = N..N+1`",
                        );
                        continue;
                    }
                    (kind.width(), None)
                }
                (Some(u), None) => {
                    cx.syn_error(syn::Error::new(u.span, "`unit` needs `bits = a..b`"));
                    continue;
                }
                (None, Some(b)) => {
                    cx.syn_error(syn::Error::new(
                        b.span,
                        "`bits` needs the integer it lives in: `unit = u8` (or u16, u32, u64)",
                    ));
                    continue;
                }
                (Some(u), Some(b)) => {
                    let (lo, hi) = b.value;
                    let unit_bits = 8 * u.value as u32;
                    if lo >= hi || hi > unit_bits {
                        cx.syn_error(syn::Error::new(
                            b.span,
                            format!("`bits = {lo}..{hi}` is not a non-empty range within the unit's {unit_bits} bits"),
                        ));
                        continue;
                    }
                    let holds = match kind {
                        Ty::Uint(w) => 8 * w as u32,
                        Ty::Bool => 1,
                        _ => {
                            cx.error_spanned_by(
                                f.ty,
                                "a bit-field is an unsigned integer (u8…u64) or a bool",
                            );
                            continue;
                        }
                    };
                    if hi - lo > holds {
                        cx.syn_error(syn::Error::new(
                            b.span,
                            if kind == Ty::Bool {
                                format!(
                                    "a `bool` bit-field is one bit wide; `bits = {lo}..{hi}` is {}",
                                    hi - lo
                                )
                            } else {
                                format!(
                                    "{} bits do not fit the field's type, which holds {holds}",
                                    hi - lo
                                )
                            },
                        ));
                        continue;
                    }
                    (u.value, Some((lo, hi)))
                }
            };
            if at.value + width > layout.size {
                cx.syn_error(syn::Error::new(
                    at.span,
                    format!(
                        "field `{}` (bytes {}..{}) does not fit the layout's {} bytes",
                        f.name,
                        at.value,
                        at.value + width,
                        layout.size
                    ),
                ));
                continue;
            }
            out.push((
                LField {
                    ident,
                    name: f.name.clone(),
                    ty: f.ty,
                    kind,
                    at: at.value,
                    bits,
                    unit: usize::MAX,
                },
                width,
                order,
                at.span,
            ));
        }
        check_names(cx, &out);
        let units = place_units(cx, &mut out);
        let fields: Vec<LField<'a>> = out.into_iter().map(|(f, ..)| f).collect();
        let record = Record {
            ident: cont.ident,
            vis: &input.vis,
            size: layout.size,
            align: layout.align,
            in_place: layout.in_place.is_some(),
            fields,
            units,
        };
        if let Some(span) = layout.in_place {
            record.check_in_place(cx, span, input);
        }
        Some(record)
    }

    /// `in_place` needs a `#[repr(C)]` struct whose fields tile the layout in declaration
    /// order, with no bit-fields (offsets themselves are checked by `offset_of!` assertions in
    /// the generated code, where rustc knows them).
    fn check_in_place(&self, cx: &Ctxt, span: Span, input: &syn::DeriveInput) {
        let repr_c = input.attrs.iter().any(|a| {
            a.path().is_ident("repr")
                && a.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|metas| metas.iter().any(|m| m.path().is_ident("C")))
        });
        if !repr_c {
            cx.syn_error(syn::Error::new(
                span,
                "`in_place` needs `#[repr(C)]`: the struct's own memory must be the layout",
            ));
        }
        for f in &self.fields {
            if f.bits.is_some() {
                cx.error_spanned_by(
                    f.ident,
                    format!(
                        "`in_place` records have no bit-fields: `{}` has no native place of its own",
                        f.name
                    ),
                );
            }
        }
        let mut end = 0;
        for f in &self.fields {
            if f.at != end {
                cx.error_spanned_by(
                    f.ident,
                    format!(
                        "`in_place` needs the fields to tile the record in declaration order: `{}` is at {}, the previous field ends at {end}",
                        f.name, f.at
                    ),
                );
                return;
            }
            end = f.at + f.kind.width();
        }
        if end != self.size {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "`in_place` needs every byte covered by a field: bytes {end}..{} are not",
                    self.size
                ),
            ));
        }
    }

    /// The runtime's private path.
    fn x() -> TokenStream {
        crate::root::private("layout")
    }

    /// Items that must be nameable (the view types), emitted beside the struct.
    pub fn expand_outside(&self) -> TokenStream {
        view::types(self)
    }

    /// Impls, emitted inside the derive's `const _: () = { ... };`.
    pub fn expand_inside(&self) -> TokenStream {
        let mut out = convert::expand(self);
        out.extend(view::impls(self));
        out
    }

    fn view_idents(&self) -> (syn::Ident, syn::Ident) {
        (
            format_ident!("{}View", self.ident),
            format_ident!("{}ViewMut", self.ident),
        )
    }
}

/// The views' own methods, which no getter may shadow.
const VIEW_METHODS: [&str; 4] = ["read", "write", "as_bytes", "as_bytes_mut"];

/// Getters are named as the fields and setters `set_<field>`: a field named like a view
/// method, or like another field's setter, would give the view two methods of one name.
fn check_names(cx: &Ctxt, fields: &[(LField<'_>, usize, Order, Span)]) {
    for (f, ..) in fields {
        if VIEW_METHODS.contains(&f.name.as_str()) {
            cx.error_spanned_by(
                f.ident,
                format!(
                    "a layout field cannot be named `{}`: the views have a method of that name; rename the field",
                    f.name
                ),
            );
        }
        if let Some(other) = f.name.strip_prefix("set_") {
            if fields.iter().any(|(g, ..)| g.name == other) {
                cx.error_spanned_by(
                    f.ident,
                    format!("field `{}` would have the same name as the setter of field `{other}`; rename one of them", f.name),
                );
            }
        }
    }
}

/// Groups bit-fields of one unit, and reports overlaps between units and between bit ranges.
fn place_units(cx: &Ctxt, fields: &mut [(LField<'_>, usize, Order, Span)]) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    for i in 0..fields.len() {
        let (f, width, order, span) = &fields[i];
        let (width, order, span) = (*width, *order, *span);
        let mut placed = None;
        for (u, unit) in units.iter().enumerate() {
            if f.at >= unit.end() || f.at + width <= unit.at {
                continue;
            }
            let first = &fields[unit.fields[0]].0;
            let same_unit = f.bits.is_some()
                && first.bits.is_some()
                && unit.at == f.at
                && unit.width == width
                && (width == 1 || unit.order == order);
            if !same_unit {
                cx.syn_error(syn::Error::new(
                    span,
                    format!(
                        "field `{}` (bytes {}..{}) overlaps field `{}` (bytes {}..{}){}",
                        f.name,
                        f.at,
                        f.at + width,
                        first.name,
                        unit.at,
                        unit.end(),
                        if f.bits.is_some() && first.bits.is_some() {
                            "; bit-fields share a unit only with the same `at`, `unit` and byte order"
                        } else {
                            ""
                        }
                    ),
                ));
                placed = Some(usize::MAX);
                break;
            }
            let (lo, hi) = f.bits.unwrap_or_default();
            for &g in &unit.fields {
                let other = &fields[g].0;
                let (olo, ohi) = other.bits.unwrap_or_default();
                if lo < ohi && olo < hi {
                    cx.syn_error(syn::Error::new(
                        span,
                        format!(
                            "bits {lo}..{hi} of field `{}` overlap bits {olo}..{ohi} of field `{}`",
                            f.name, other.name
                        ),
                    ));
                }
            }
            placed = Some(u);
            break;
        }
        match placed {
            Some(usize::MAX) => {}
            Some(u) => {
                units[u].fields.push(i);
                fields[i].0.unit = u;
            }
            None => {
                units.push(Unit {
                    at: f.at,
                    width,
                    order,
                    fields: vec![i],
                    bytes: matches!(f.kind, Ty::Bytes(_)),
                });
                fields[i].0.unit = units.len() - 1;
            }
        }
    }
    // Sort by offset, renumbering the fields' unit indices.
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by_key(|&u| units[u].at);
    let mut new_index = vec![0; units.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    for (f, ..) in fields.iter_mut() {
        if f.unit != usize::MAX {
            f.unit = new_index[f.unit];
        }
    }
    let mut slots: Vec<Option<Unit>> = units.into_iter().map(Some).collect();
    order.iter().filter_map(|&u| slots[u].take()).collect()
}

/// Layout annotations on a type without `layout(...)` are errors.
fn reject_stray_annotations(cx: &Ctxt, cont: &Container<'_>) {
    let msg = "`at`, `big`, `little`, `unit` and `bits` need `#[marshal(layout(size = N))]` on the struct";
    let check = |fields: &crate::ast::Fields<'_>| {
        for f in &fields.fields {
            if let Some(span) = f.attrs.layout.first_span() {
                cx.syn_error(syn::Error::new(span, msg));
            }
        }
    };
    match &cont.data {
        Data::Struct(fields) => check(fields),
        Data::Union(variants) => variants.iter().for_each(|v| check(&v.fields)),
        Data::CEnum(_) => {}
    }
}

/// `uN` for a width in bytes.
fn uint(width: usize) -> syn::Ident {
    format_ident!("u{}", 8 * width)
}

/// An unsuffixed hexadecimal literal (its type is inferred from its use).
fn hex(v: u128) -> syn::LitInt {
    syn::LitInt::new(&format!("{v:#x}"), Span::call_site())
}

/// A literal `usize`.
fn lit(n: usize) -> syn::LitInt {
    syn::LitInt::new(&n.to_string(), Span::call_site())
}

/// The span of a field's type (for errors the generated code raises).
fn ty_span(f: &LField<'_>) -> Span {
    f.ty.span()
}
