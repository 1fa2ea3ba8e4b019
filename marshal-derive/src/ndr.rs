//! Generates the NDR items of a struct: its native layout as `'static` data (`RECORD`, from
//! `size_of`, `align_of` and `offset_of!`, with each field's type description from its own
//! `Native::TYPE`), and `put`/`get`, which write and read each field at its offset. The derive
//! knows no NDR rule: slots, padding and conversion live in `wire-ndr`.
//!
//! The impls are bounded by `for<'__ndr> FieldType: Native` for every field, so a struct with a
//! field NDR cannot carry (an `Option`, a union) still derives everything else; only using it
//! with NDR is an error, at the use.
//!
//! The `unsafe impl Native` promises (its safety argument, made here since comments do not
//! survive `quote!`): `ANY_BITS` is the conjunction of the fields' `ANY_BITS` (padding bytes
//! may hold anything, and a struct holds a pointer only if a field does); `AS_BYTES` is the
//! conjunction of the fields' `AS_BYTES` and the fields' sizes adding up to `size_of::<Self>()`
//! (fields never overlap, so then no byte is padding), and `put` writes each field's own bytes
//! at its own offset, which is then the value's memory image; `TYPE` and `RECORD` give
//! `size_of`, `align_of` and `offset_of!` as the compiler computed them. Packed structs are
//! rejected by the derive, so every field is aligned.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::visit::Visit;

use crate::ast::{Container, Data};
use crate::common::{construct, in_field};

fn x() -> TokenStream {
    crate::root::private("ndr")
}

pub fn expand(cont: &Container<'_>) -> TokenStream {
    let Data::Struct(fields) = &cont.data else {
        return TokenStream::new();
    };
    // A record that contains itself (through a `Vec`, a `Box`, …) has no NDR format, and its
    // bounds would be a cycle the trait solver reports as an error: emit nothing.
    if fields.fields.iter().any(|f| mentions(f.ty, cont.ident)) {
        return TokenStream::new();
    }
    let x = x();
    let ident = cont.ident;
    let name = ident.to_string();

    let mut generics = cont.generics.clone();
    {
        let w = generics.make_where_clause();
        for f in &fields.fields {
            let ty = f.ty;
            w.predicates
                .push(syn::parse_quote!(for<'__ndr> #ty: #x::Native));
        }
    }
    let (impl_g, ty_g, where_g) = generics.split_for_impl();

    let descs = fields.fields.iter().map(|f| {
        let ty = f.ty;
        let m = &f.member;
        let n = &f.name;
        quote! {
            #x::NativeField {
                name: #n,
                offset: ::core::mem::offset_of!(Self, #m),
                ty: <#ty as #x::Native>::TYPE,
            }
        }
    });
    let tys: Vec<&syn::Type> = fields.fields.iter().map(|f| f.ty).collect();
    let puts = fields.fields.iter().map(|f| {
        let ty = f.ty;
        let m = &f.member;
        let err = in_field(&f.name);
        quote! {
            <#ty as #x::Native>::put(
                &self.#m, __buf, __base, __at + ::core::mem::offset_of!(Self, #m),
            ) #err ?;
        }
    });
    let gets = fields.fields.iter().map(|f| {
        let ty = f.ty;
        let m = &f.member;
        let b = &f.binding;
        let err = in_field(&f.name);
        quote! {
            let #b = #x::read_at::<#ty>(__body, __at + ::core::mem::offset_of!(Self, #m)) #err ?;
        }
    });
    let build = construct(quote!(Self), fields, None);
    let defaults = match cont.attrs.default_missing {
        Some(span) => quote_spanned! {span=>
            ::core::option::Option::Some(|| {
                #x::to_body(&<Self as ::core::default::Default>::default())
            })
        },
        None => quote!(::core::option::Option::None),
    };
    // A non-generic type keeps its format in its own static; a generic one (whose statics
    // would be shared by every instance) in the registry.
    let format_fn = if cont.generics.params.is_empty() {
        quote! {
            fn format() -> &'static #x::Format {
                static __F: #x::OnceLock<&'static #x::Format> = #x::OnceLock::new();
                __F.get_or_init(|| #x::local_format(<Self as #x::Record>::RECORD))
            }
        }
    } else {
        TokenStream::new()
    };

    quote! {
        #[automatically_derived]
        unsafe impl #impl_g #x::Native for #ident #ty_g #where_g {
            const TYPE: #x::NativeType = #x::NativeType::Record(<Self as #x::Record>::RECORD);
            const ANY_BITS: bool = true #(&& <#tys as #x::Native>::ANY_BITS)*;
            const AS_BYTES: bool = (0usize #(+ ::core::mem::size_of::<#tys>())*)
                == ::core::mem::size_of::<Self>()
                #(&& <#tys as #x::Native>::AS_BYTES)*;
            fn put(
                &self,
                __buf: &mut ::std::vec::Vec<u8>,
                __base: usize,
                __at: usize,
            ) -> ::core::result::Result<(), #x::Error> {
                #(#puts)*
                ::core::result::Result::Ok(())
            }
            fn get(__body: &[u8], __at: usize) -> ::core::result::Result<Self, #x::Error> {
                #(#gets)*
                ::core::result::Result::Ok(#build)
            }
        }
        #[automatically_derived]
        impl #impl_g #x::Record for #ident #ty_g #where_g {
            const RECORD: &'static #x::NativeRecord = &#x::NativeRecord {
                name: #name,
                size: ::core::mem::size_of::<Self>(),
                align: ::core::mem::align_of::<Self>(),
                fields: &[#(#descs),*],
                defaults: #defaults,
                zero_copy: <Self as #x::Native>::AS_BYTES,
            };
            #format_fn
        }
        #[automatically_derived]
        impl #impl_g #x::VarElement for #ident #ty_g #where_g {}
        #[automatically_derived]
        impl #impl_g #x::ArrayElement for #ident #ty_g #where_g {}
    }
}

/// Whether `ty` names this very type anywhere: `Self`, `Self::..`, `self::Ident`, or `Ident`
/// alone (the struct is in scope under its name, so a single-segment `Ident` is it). A longer
/// path that merely ends in the same name (`other::Ident`) is another type: its NDR impls
/// are decided by its own bounds. (If such a path does lead back here through a `Vec` or an
/// array, the bounds form a cycle that rustc reports at the derive, E0275: loud, not silent.)
fn mentions(ty: &syn::Type, ident: &syn::Ident) -> bool {
    struct Find<'i> {
        ident: &'i syn::Ident,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            let segs: Vec<&syn::Ident> = path.segments.iter().map(|s| &s.ident).collect();
            let this = match (path.leading_colon, segs.as_slice()) {
                (None, [first, ..]) if *first == "Self" => true,
                (None, [only]) => *only == self.ident,
                (None, [first, second]) => *first == "self" && *second == self.ident,
                _ => false,
            };
            self.found |= this;
            // Generic arguments (`Vec<Ident>`, `other::Wrap<Self>`) are paths of their own.
            syn::visit::visit_path(self, path);
        }
    }
    let mut f = Find {
        ident,
        found: false,
    };
    f.visit_type(ty);
    f.found
}
