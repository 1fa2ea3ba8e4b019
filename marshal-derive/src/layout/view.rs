//! Views: `FooView<'a>` over `&'a [u8; SIZE]` and `FooViewMut<'a>` over `&'a mut [u8; SIZE]`,
//! the length checked once when the view is made. A getter per field (named as the field) loads
//! only that field's unit; a setter (`set_<field>`) stores only that unit, a bit-field's by
//! read-modify-write of its unit. The types are emitted beside the struct, so they can be named.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::convert::{deposit, extract, load_unit};
use super::{hex, lit, uint, LField, Record, Ty};

pub fn types(r: &Record<'_>) -> TokenStream {
    let vis = r.vis;
    let ident = r.ident;
    let n = lit(r.size);
    let (view, view_mut) = r.view_idents();
    let doc = format!(
        "A view of a [`{ident}`] in its annotated layout, over the first {} bytes of a slice: \
         each getter reads only its field. Made by [`{ident}::view`].",
        r.size
    );
    let doc_mut = format!(
        "A mutable view of a [`{ident}`] in its annotated layout, over the first {} bytes of a \
         slice: each getter reads and each `set_` method writes only its field. Made by \
         [`{ident}::view_mut`].",
        r.size
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy)]
        #vis struct #view<'a> {
            bytes: &'a [u8; #n],
        }

        #[doc = #doc_mut]
        #vis struct #view_mut<'a> {
            bytes: &'a mut [u8; #n],
        }
    }
}

/// The getter's body: the field from `__b`, loading only its unit.
fn get(r: &Record<'_>, f: &LField<'_>) -> TokenStream {
    let x = Record::x();
    let n = lit(r.size);
    let unit = &r.units[f.unit];
    let at = lit(unit.at);
    let w = lit(unit.width);
    if let Ty::Bytes(_) = f.kind {
        return quote!(*#x::word::<#at, #w, #n>(__b));
    }
    let load = load_unit(r, unit);
    let v = extract(f, &quote!(__u), 0);
    quote! {
        let __u = #load;
        #v
    }
}

/// The setter's body: stores `value` into `__b`, touching only the field's unit.
fn set(r: &Record<'_>, f: &LField<'_>) -> TokenStream {
    let x = Record::x();
    let n = lit(r.size);
    let unit = &r.units[f.unit];
    let at = lit(unit.at);
    let w = lit(unit.width);
    if let Ty::Bytes(_) = f.kind {
        return quote!(*#x::word_mut::<#at, #w, #n>(__b) = value;);
    }
    let t = uint(unit.width);
    let (from, to) = match unit.order {
        super::Order::Big => (quote!(from_be_bytes), quote!(to_be_bytes)),
        super::Order::Little => (quote!(from_le_bytes), quote!(to_le_bytes)),
    };
    let new = deposit(f, &quote!(value), &t, 0);
    match f.bits {
        None => quote!(*#x::word_mut::<#at, #w, #n>(__b) = #new.#to();),
        Some((lo, hi)) => {
            let m: u128 = ((1u128 << (hi - lo)) - 1) << lo;
            let clear = hex(!m & ((1u128 << (8 * unit.width)) - 1));
            quote! {
                let __p = #x::word_mut::<#at, #w, #n>(__b);
                *__p = ((#t::#from(*__p) & #clear) | #new).#to();
            }
        }
    }
}

fn getters(r: &Record<'_>) -> Vec<TokenStream> {
    let n = lit(r.size);
    r.fields
        .iter()
        .map(|f| {
            let m = f.ident;
            let ty = f.ty;
            let body = get(r, f);
            let doc = field_doc(f, "Reads");
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #m(&self) -> #ty {
                    let __b: &[u8; #n] = &*self.bytes;
                    #body
                }
            }
        })
        .collect()
}

fn field_doc(f: &LField<'_>, verb: &str) -> String {
    match f.bits {
        Some((lo, hi)) => format!(
            "{verb} `{}`: bits {lo}..{hi} of the unit at byte {}.",
            f.name, f.at
        ),
        None => format!(
            "{verb} `{}`: bytes {}..{}.",
            f.name,
            f.at,
            f.at + f.kind.width()
        ),
    }
}

pub fn impls(r: &Record<'_>) -> TokenStream {
    let marshal_error = crate::root::error();
    let ident = r.ident;
    let n = lit(r.size);
    let (view, view_mut) = r.view_idents();
    let getters = getters(r);
    let setters = r.fields.iter().map(|f| {
        let m = f.ident;
        let setter = format_ident!("set_{}", m);
        let ty = f.ty;
        let body = set(r, f);
        let mut doc = field_doc(f, "Writes");
        if f.bits.is_some() && f.kind != Ty::Bool {
            doc.push_str(
                " As with a C bit-field, bits of `value` beyond the field's width are dropped \
                 (`write_to` refuses them instead).",
            );
        }
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #setter(&mut self, value: #ty) {
                let __b: &mut [u8; #n] = &mut *self.bytes;
                #body
            }
        }
    });
    let names: Vec<&String> = r.fields.iter().map(|f| &f.name).collect();
    let members: Vec<&syn::Ident> = r.fields.iter().map(|f| f.ident).collect();
    let vname = view.to_string();
    let vmname = view_mut.to_string();
    quote! {
        impl<'a> #view<'a> {
            #(#getters)*

            /// The bytes of the record.
            #[inline]
            pub fn as_bytes(&self) -> &'a [u8; #n] {
                self.bytes
            }

            /// The whole record, converted.
            #[inline]
            pub fn read(&self) -> #ident {
                __read(self.bytes)
            }
        }

        impl<'a> #view_mut<'a> {
            #(#getters)*
            #(#setters)*

            /// The bytes of the record.
            #[inline]
            pub fn as_bytes(&self) -> &[u8; #n] {
                &*self.bytes
            }

            /// The bytes of the record, to change.
            #[inline]
            pub fn as_bytes_mut(&mut self) -> &mut [u8; #n] {
                &mut *self.bytes
            }

            /// The whole record, converted.
            #[inline]
            pub fn read(&self) -> #ident {
                __read(&*self.bytes)
            }

            /// Writes the whole record (as `write_to`). Fails, writing nothing, if a
            /// bit-field's value does not fit its bits.
            #[inline]
            pub fn write(&mut self, value: &#ident) -> ::core::result::Result<(), #marshal_error> {
                __check(value)?;
                __write(value, &mut *self.bytes);
                ::core::result::Result::Ok(())
            }
        }

        impl ::core::fmt::Debug for #view<'_> {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.debug_struct(#vname)
                    #(.field(#names, &self.#members()))*
                    .finish()
            }
        }

        impl ::core::fmt::Debug for #view_mut<'_> {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.debug_struct(#vmname)
                    #(.field(#names, &self.#members()))*
                    .finish()
            }
        }
    }
}
