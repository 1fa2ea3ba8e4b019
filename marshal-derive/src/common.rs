//! Generation helpers that know no wire rule, shared by every format.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Field, Fields, Style, Variant};

/// `map_err` adding the field's name to the error path.
pub fn in_field(name: &str) -> TokenStream {
    quote!(.map_err(|__e| __e.in_field(#name)))
}

/// `Self { a: __f0, .. }`, `Self(__f0, ..)` or `Self` (`path` is `Self` or `Self::Variant`).
pub fn construct(path: TokenStream, fields: &Fields<'_>, last: Option<TokenStream>) -> TokenStream {
    let n = fields.fields.len() - usize::from(last.is_some());
    let vals: Vec<TokenStream> = fields.fields[..n]
        .iter()
        .map(|f| {
            let b = &f.binding;
            quote!(#b)
        })
        .chain(last)
        .collect();
    match fields.style {
        Style::Named => {
            let names = fields.fields.iter().map(|f| &f.member);
            quote!(#path { #(#names: #vals),* })
        }
        Style::Tuple => quote!(#path(#(#vals),*)),
        Style::Unit => path,
    }
}

/// A pattern binding every field by reference (matched against `&Self`).
pub fn pattern(path: TokenStream, fields: &Fields<'_>) -> TokenStream {
    let bs = fields.fields.iter().map(|f| &f.binding);
    match fields.style {
        Style::Named => {
            let names = fields.fields.iter().map(|f| &f.member);
            quote!(#path { #(#names: #bs),* })
        }
        Style::Tuple => quote!(#path(#(#bs),*)),
        Style::Unit => path,
    }
}

/// The fields of an arm that follow the discriminant (all of them, except for an arm that
/// holds it).
pub fn arm_fields<'v>(v: &'v Variant<'v>) -> &'v [Field<'v>] {
    if v.holds_discriminant() {
        &v.fields.fields[1..]
    } else {
        &v.fields.fields
    }
}

/// `const FLAT` for a struct, from its fields' layout facts: `x` is the wire crate's private
/// path and `tr` the trait whose `FLAT` each field contributes.
pub fn struct_flat(x: &TokenStream, tr: &TokenStream, fields: &Fields<'_>) -> TokenStream {
    if fields.fields.is_empty() {
        return TokenStream::new();
    }
    let facts = fields.fields.iter().map(|f| {
        let ty = f.ty;
        let m = &f.member;
        quote! {
            #x::FieldLayout {
                width: #x::width_of(<#ty as #tr>::FLAT),
                size: ::core::mem::size_of::<#ty>(),
                offset: ::core::mem::offset_of!(Self, #m),
            }
        }
    });
    quote! {
        const FLAT: ::core::option::Option<#x::Flat<Self>> = {
            // SAFETY: the list names every field of this struct in declaration order with its
            // type's own `FLAT` width, `size_of` and `offset_of!`, and the size is
            // `size_of::<Self>()`: exactly the preconditions of `flat_struct`.
            unsafe { #x::flat_struct::<Self>(::core::mem::size_of::<Self>(), &[#(#facts),*]) }
        };
    }
}

/// One `const` assertion per `max_len` field that its bound fits the wire's length (the wire
/// crate's `max_len_fits`), each at its attribute. `a_format` names the format in the message
/// ("an XDR").
pub fn max_len_checks(
    cont: &crate::ast::Container<'_>,
    x: &TokenStream,
    a_format: &str,
) -> TokenStream {
    let fields: Vec<&Field<'_>> = match &cont.data {
        crate::ast::Data::Struct(f) => f.fields.iter().collect(),
        crate::ast::Data::Union(vs) => vs.iter().flat_map(|v| &v.fields.fields).collect(),
        crate::ast::Data::CEnum(_) => Vec::new(),
    };
    let checks = fields.into_iter().filter_map(|f| {
        let m = f.attrs.max_len.as_ref()?;
        let n = m.value;
        let msg = format!("`max_len = {n}` does not fit {a_format} length");
        Some(quote_spanned!(m.span=> const _: () = ::core::assert!(#x::max_len_fits(#n), #msg);))
    });
    quote!(#(#checks)*)
}

/// The `Encode` and `Decode<'__de>` impls of a wire crate (`x` is its private path) around the
/// generated items: bounds only for the type parameters fields use, and `'__de` outliving every
/// lifetime of the type.
pub fn impls(
    cont: &crate::ast::Container<'_>,
    x: &TokenStream,
    enc_items: TokenStream,
    dec_items: TokenStream,
) -> TokenStream {
    let ident = cont.ident;
    let used = crate::bound::used_type_params(cont);

    let enc_generics = crate::bound::with_bound(cont, &used, &syn::parse_quote!(#x::Encode));
    let (impl_g, ty_g, where_g) = enc_generics.split_for_impl();

    let mut dec_generics =
        crate::bound::with_bound(cont, &used, &syn::parse_quote!(#x::Decode<'__de>));
    let mut de: syn::LifetimeParam = syn::parse_quote!('__de);
    de.bounds
        .extend(cont.generics.lifetimes().map(|l| l.lifetime.clone()));
    dec_generics
        .params
        .insert(0, syn::GenericParam::Lifetime(de));
    let (dimpl_g, _, dwhere_g) = dec_generics.split_for_impl();

    // `encode_only`: a type that borrows what it sends (`&'a T`) has no decoding.
    let dec = cont.attrs.encode_only.is_none().then(|| {
        quote! {
            #[automatically_derived]
            impl #dimpl_g #x::Decode<'__de> for #ident #ty_g #dwhere_g {
                #dec_items
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_g #x::Encode for #ident #ty_g #where_g {
            #enc_items
        }
        #dec
    }
}

/// What a format adds to a struct's `decode_into` (see [`decode_into`]).
pub struct InPlace {
    /// The function's name and generics: `decode_into<'__a>`, or another method of the same
    /// signature (CDR's `decode_phase<'__a, const __K: usize>`).
    pub sig: TokenStream,
    /// Extra parameters after `__out` (`__o: ByteOrder`).
    pub params: TokenStream,
    /// Code before the fields (a fixed segment or a depth level), which may rebind `__r`.
    pub pro: TokenStream,
    /// Code after the fields.
    pub epi: TokenStream,
    /// Applied to each field's error after its name (`.map_err(..)`), or nothing.
    pub err: TokenStream,
}

/// A struct's `decode_into`, for any format: each field decoded where it lives inside `__out`,
/// guarded so that a failure drops the fields already decoded, then the whole value assumed
/// initialised. `x` is the wire crate's private path; `field` gives the block that decodes a
/// field at `__place` (a `*mut` to it) into a guard: the format's `unsafe` `decode_field`,
/// after any `max_len` check.
///
/// The `// SAFETY:` argument for that call (comments do not survive `quote!`, so it is made
/// here): `__p` is `__out`, exclusively borrowed for `'__a`; `__place` is this field's place
/// inside it (aligned: packed types are rejected), distinct from the other fields'; `__out` is
/// assumed initialised only after every guard is kept.
pub fn decode_into(
    x: &TokenStream,
    fields: &Fields<'_>,
    fmt: InPlace,
    field: impl Fn(&Field<'_>) -> TokenStream,
) -> TokenStream {
    let InPlace {
        sig,
        params,
        pro,
        epi,
        err,
    } = fmt;
    let guards: Vec<syn::Ident> = (0..fields.fields.len())
        .map(|i| quote::format_ident!("__g{}", i))
        .collect();
    let decs = fields.fields.iter().zip(&guards).map(|(f, g)| {
        let ty = f.ty;
        let m = &f.member;
        let name = in_field(&f.name);
        let call = field(f);
        quote_spanned! {ty.span()=>
            let #g = {
                let __place = __p
                    .wrapping_add(::core::mem::offset_of!(Self, #m))
                    .cast::<#ty>();
                #call
            } #name #err ?;
        }
    });
    quote! {
        #[inline]
        fn #sig(
            __r: &mut #x::Reader<'__de>,
            __out: &'__a mut ::core::mem::MaybeUninit<Self>, #params
        ) -> ::core::result::Result<&'__a mut Self, #x::Error> {
            #pro
            let __p = __out.as_mut_ptr().cast::<u8>();
            #(#decs)*
            #epi
            #(#guards.keep();)*
            // SAFETY: every field was decoded in place (its guard checked the place) and kept.
            ::core::result::Result::Ok(unsafe { __out.assume_init_mut() })
        }
    }
}

/// The type a union switches on: its `#[marshal(discriminant = T)]`, else the wire crate's
/// `DefaultDiscriminant` (`x` is its private path).
pub fn discriminant(cont: &crate::ast::Container<'_>, x: &TokenStream) -> TokenStream {
    match &cont.attrs.discriminant {
        Some(d) => {
            let t = &d.value;
            quote!(#t)
        }
        None => quote!(#x::DefaultDiscriminant),
    }
}

/// One `const` assertion per integer label that it fits the union's discriminant type `disc`
/// (the wire crate's `tag_fits`), each at its label: rustc does not report an overflowing
/// literal in derive output, it would wrap.
pub fn tag_checks(
    ident: &syn::Ident,
    variants: &[Variant<'_>],
    x: &TokenStream,
    disc: &TokenStream,
) -> TokenStream {
    let checks = variants.iter().flat_map(|v| {
        v.tags.iter().filter_map(move |t| {
            let n = proc_macro2::Literal::i128_unsuffixed(i128::from(t.int?));
            let msg = format!(
                "the label {} of `{ident}::{}` does not fit the union's discriminant type",
                t.key, v.ident
            );
            Some(quote_spanned!(t.span=> const _: () = ::core::assert!(#x::tag_fits::<#disc>(#n), #msg);))
        })
    });
    quote!(#(#checks)*)
}
