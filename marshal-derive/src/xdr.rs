//! Generates `Encode` and `Decode` for XDR. The derive knows no wire rule: sizes, padding,
//! byte order, discriminants, list flags and the range of an enum all come from `wire-xdr`
//! through `marshal::__private::xdr`; this file only arranges the calls.
//!
//! Shape of the output for a struct: the size class is a constant expression over the fields'
//! classes; `encode` runs the field code inside one `chunk` when the class is `Fixed` (one
//! capacity check, then constant offsets) and otherwise field by field with a depth check.
//! Decoding is `decode_into`: each field is decoded where it lives inside the caller's
//! `MaybeUninit<Self>` (a vector's spare capacity, say), inside one fixed-length segment when
//! the class is `Fixed`, so no value is built and then moved. Rustc folds every `match` on a
//! constant class, so only one branch survives.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Data, Field, Fields, Variant};
use crate::common::{arm_fields, construct, in_field, pattern};

fn x() -> TokenStream {
    crate::root::private("xdr")
}

/// Which trait an expression is for.
#[derive(Clone, Copy)]
enum Dir {
    Enc,
    Dec,
}

impl Dir {
    fn trait_path(self) -> TokenStream {
        let x = x();
        match self {
            Dir::Enc => quote!(#x::Encode),
            Dir::Dec => quote!(#x::Decode<'__de>),
        }
    }
}

pub fn expand(cont: &Container<'_>) -> TokenStream {
    let ident = cont.ident;
    let (enc_items, dec_items) = match &cont.data {
        Data::Struct(f) if f.tail_link => struct_list(f),
        Data::Struct(f) => struct_plain(f),
        Data::CEnum(vs) => c_enum(ident, vs),
        Data::Union(vs) => union(ident, vs, &crate::common::discriminant(cont, &x())),
    };
    let tags = match &cont.data {
        Data::Union(vs) => {
            crate::common::tag_checks(ident, vs, &x(), &crate::common::discriminant(cont, &x()))
        }
        _ => TokenStream::new(),
    };
    let checks = crate::common::max_len_checks(cont, &x(), "an XDR");
    let impls = crate::common::impls(cont, &x(), enc_items, dec_items);
    let disc = match &cont.data {
        Data::CEnum(vs) => c_enum_discriminant(ident, vs),
        _ => TokenStream::new(),
    };
    quote!(#checks #tags #impls #disc)
}

/// The size class of one field.
fn field_size(f: &Field<'_>, dir: Dir) -> TokenStream {
    let x = x();
    let ty = f.ty;
    match &f.attrs.max_len {
        Some(m) => {
            let n = m.value;
            quote_spanned!(m.span=> #x::bounded_size::<#ty>(#n))
        }
        None => {
            let tr = dir.trait_path();
            quote_spanned!(ty.span()=> <#ty as #tr>::SIZE)
        }
    }
}

/// The size class of a sequence of fields.
fn fields_size<'a>(fields: impl IntoIterator<Item = &'a Field<'a>>, dir: Dir) -> TokenStream {
    let x = x();
    let sizes = fields.into_iter().map(|f| field_size(f, dir));
    quote!(#x::SizeClass::Fixed(0) #(.then(#sizes))*)
}

/// `Option<Flat<Self>>` for a struct, from its fields' layout facts.
fn struct_flat(fields: &Fields<'_>, dir: Dir) -> TokenStream {
    crate::common::struct_flat(&x(), &dir.trait_path(), fields)
}

/// Expression: encoded length of the field at `place` (a reference expression), with `extra`
/// applied to its error (more path segments).
fn field_len(f: &Field<'_>, place: &TokenStream, extra: &TokenStream) -> TokenStream {
    let x = x();
    let name = in_field(&f.name);
    let ty = f.ty;
    quote_spanned!(ty.span()=> #x::Encode::encoded_len(#place, __depth) #name #extra ?)
}

/// Statement: encode the field at `place` (a reference expression).
fn field_encode(f: &Field<'_>, place: &TokenStream, extra: &TokenStream) -> TokenStream {
    let x = x();
    let name = in_field(&f.name);
    match &f.attrs.max_len {
        Some(m) => {
            let n = m.value;
            quote_spanned!(m.span=> #x::encode_max(#place, #n, __w) #name #extra ?;)
        }
        None => {
            let ty = f.ty;
            quote_spanned!(ty.span()=> #x::Encode::encode(#place, __w) #name #extra ?;)
        }
    }
}

/// Statement: `let <binding> = <decoded field>;`.
fn field_decode(f: &Field<'_>, extra: &TokenStream) -> TokenStream {
    let x = x();
    let ty = f.ty;
    let b = &f.binding;
    let name = in_field(&f.name);
    match &f.attrs.max_len {
        Some(m) => {
            let n = m.value;
            quote_spanned!(m.span=> let #b = #x::decode_max::<#ty>(__r, #n) #name #extra ?;)
        }
        None => {
            quote_spanned!(ty.span()=> let #b = <#ty as #x::Decode<'__de>>::decode(__r) #name #extra ?;)
        }
    }
}

/// The `match` that runs `body` in one chunk for fixed classes, else with a depth check.
fn chunked(dir: Dir, body: TokenStream) -> TokenStream {
    let x = x();
    let tr = dir.trait_path();
    match dir {
        Dir::Enc => quote! {
            let __body = |__w: &mut #x::Writer<'_>| -> ::core::result::Result<(), #x::Error> { #body };
            match <Self as #tr>::SIZE {
                #x::SizeClass::Fixed(__n) => __w.chunk(__n, __body),
                _ => {
                    __w.enter()?;
                    __body(__w)?;
                    __w.leave();
                    ::core::result::Result::Ok(())
                }
            }
        },
        // No closure here: the body is written once, in this function, so that the fixed
        // segment's constant length reaches the field reads without relying on the inliner.
        // The body's error type is written out: a body whose every arm is `Ok` (a union
        // with a default arm) would leave it to inference, which fails as soon as the user's
        // crate sees a second `From<_> for Error`.
        Dir::Dec => {
            let (pro, epi) = dec_segment();
            quote! {
                #pro
                let __v: ::core::result::Result<Self, #x::Error> = { #body };
                let __v = __v?;
                #epi
                ::core::result::Result::Ok(__v)
            }
        }
    }
}

/// Decoding runs in a segment of constant length for fixed classes (one length check; no
/// closure, so the constant reaches the field reads without relying on the inliner), else
/// with one level of depth. Returns the code before and after the fields.
fn dec_segment() -> (TokenStream, TokenStream) {
    let x = x();
    (
        quote! {
            let __fixed = <Self as #x::Decode<'__de>>::SIZE.fixed_len();
            let mut __seg;
            let __r: &mut #x::Reader<'__de> = match __fixed {
                ::core::option::Option::Some(__n) => {
                    __seg = __r.segment(__n)?;
                    &mut __seg
                }
                ::core::option::Option::None => {
                    __r.enter()?;
                    __r
                }
            };
        },
        quote! {
            if __fixed.is_none() {
                __r.leave();
            }
        },
    )
}

/// The `encoded_len` prologue: constant for fixed classes, else one level of depth.
fn len_prologue() -> TokenStream {
    let x = x();
    quote! {
        if let #x::SizeClass::Fixed(__n) = <Self as #x::Encode>::SIZE {
            return ::core::result::Result::Ok(__n);
        }
        let __depth = #x::descend(__depth)?;
    }
}

fn signatures(
    size_enc: TokenStream,
    size_dec: TokenStream,
    flat_enc: TokenStream,
    flat_dec: TokenStream,
    len: TokenStream,
    enc: TokenStream,
    dec: TokenStream,
) -> (TokenStream, TokenStream) {
    let x = x();
    (
        quote! {
            const SIZE: #x::SizeClass = #size_enc;
            #flat_enc
            #[inline]
            fn encoded_len(&self, __depth: u32) -> ::core::result::Result<usize, #x::Error> { #len }
            #[inline]
            fn encode(&self, __w: &mut #x::Writer<'_>) -> ::core::result::Result<(), #x::Error> { #enc }
        },
        quote! {
            const SIZE: #x::SizeClass = #size_dec;
            #flat_dec
            #[inline]
            fn decode(__r: &mut #x::Reader<'__de>) -> ::core::result::Result<Self, #x::Error> { #dec }
        },
    )
}

fn struct_plain(fields: &Fields<'_>) -> (TokenStream, TokenStream) {
    let places: Vec<TokenStream> = fields
        .fields
        .iter()
        .map(|f| {
            let m = &f.member;
            quote!(&self.#m)
        })
        .collect();
    let none = TokenStream::new();
    let lens = fields
        .fields
        .iter()
        .zip(&places)
        .map(|(f, p)| field_len(f, p, &none));
    let prologue = len_prologue();
    let len = quote! {
        #prologue
        let mut __len = 0usize;
        #(__len += #lens;)*
        ::core::result::Result::Ok(__len)
    };
    let encs = fields
        .fields
        .iter()
        .zip(&places)
        .map(|(f, p)| field_encode(f, p, &none));
    let enc = chunked(
        Dir::Enc,
        quote! { #(#encs)* ::core::result::Result::Ok(()) },
    );
    let x = x();
    let dec = quote!(#x::decode_by_place(__r));
    let (enc_items, mut dec_items) = signatures(
        fields_size(&fields.fields, Dir::Enc),
        fields_size(&fields.fields, Dir::Dec),
        struct_flat(fields, Dir::Enc),
        struct_flat(fields, Dir::Dec),
        len,
        enc,
        dec,
    );
    dec_items.extend(decode_into(fields));
    (enc_items, dec_items)
}

/// `decode_into` for a struct (see [`crate::common::decode_into`]), inside one fixed-length
/// segment when the class is `Fixed`; otherwise the leading run of fixed-size fields, when it
/// holds more than one, is read from one segment (one length check for the run) and the rest
/// from the reader itself.
fn decode_into(fields: &Fields<'_>) -> TokenStream {
    let x = x();
    let field = |f: &Field<'_>| {
        let ty = f.ty;
        let i = fields
            .fields
            .iter()
            .position(|g| core::ptr::eq(g, f))
            .expect("a field of this struct");
        let check = f.attrs.max_len.as_ref().map(|ml| {
            let (n, name) = (ml.value, in_field(&f.name));
            quote_spanned!(ml.span=> #x::check_max::<#ty>(__r, #n) #name ?;)
        });
        // SAFETY: see `common::decode_into`.
        quote_spanned! {ty.span()=> {
            let __r: &mut #x::Reader<'__de> = match &mut __lead {
                ::core::option::Option::Some(__l) if #i < __lead_k => __l,
                _ => &mut *__r,
            };
            #check unsafe { #x::decode_field::<#ty>(__r, __place) }
        }}
    };
    let (pro, epi) = dec_segment();
    let sizes = fields.fields.iter().map(|f| field_size(f, Dir::Dec));
    let pro = quote! {
        #pro
        let (__lead_k, __lead_n) = const { #x::SizeClass::fixed_prefix(&[#(#sizes),*]) };
        let mut __lead = if __fixed.is_none() && __lead_k > 1 {
            ::core::option::Option::Some(__r.segment(__lead_n)?)
        } else {
            ::core::option::Option::None
        };
    };
    let fmt = crate::common::InPlace {
        sig: quote!(decode_into<'__a>),
        params: TokenStream::new(),
        pro,
        epi,
        err: TokenStream::new(),
    };
    crate::common::decode_into(&x, fields, fmt, field)
}

/// A struct whose last field is `Option<Box<Self>>`: an optional-data list (`entry *next`),
/// walked with a loop so a list of any length needs constant stack.
fn struct_list(fields: &Fields<'_>) -> (TokenStream, TokenStream) {
    let x = x();
    let (body, link) = fields.fields.split_at(fields.fields.len() - 1);
    let link = &link[0].member;
    let node_err = quote!(.map_err(|__e| #x::in_node(__e, __k)));
    let places: Vec<TokenStream> = body
        .iter()
        .map(|f| {
            let m = &f.member;
            quote!(&__cur.#m)
        })
        .collect();
    let lens = body.iter().zip(&places).map(|(f, p)| {
        let l = field_len(f, p, &node_err);
        quote!(__len += #l;)
    });
    let len = quote! {
        let __depth = #x::descend(__depth)?;
        let mut __len = 0usize;
        let mut __cur = self;
        let mut __k = 0usize;
        loop {
            #(#lens)*
            __len += #x::FLAG_SIZE;
            match &__cur.#link {
                ::core::option::Option::Some(__next) => {
                    __cur = &**__next;
                    __k += 1;
                }
                ::core::option::Option::None => break,
            }
        }
        ::core::result::Result::Ok(__len)
    };
    let encs = body
        .iter()
        .zip(&places)
        .map(|(f, p)| field_encode(f, p, &node_err));
    let enc = quote! {
        __w.enter()?;
        let mut __cur = self;
        let mut __k = 0usize;
        loop {
            #(#encs)*
            match &__cur.#link {
                ::core::option::Option::Some(__next) => {
                    #x::put_flag(__w, true)?;
                    __cur = &**__next;
                    __k += 1;
                }
                ::core::option::Option::None => {
                    #x::put_flag(__w, false)?;
                    break;
                }
            }
        }
        __w.leave();
        ::core::result::Result::Ok(())
    };
    let decs = body.iter().map(|f| field_decode(f, &node_err));
    let node = construct(
        quote!(Self),
        fields,
        Some(quote!(::core::option::Option::None)),
    );
    let dec = quote! {
        let __node = |__r: &mut #x::Reader<'__de>, __k: usize| -> ::core::result::Result<Self, #x::Error> {
            #(#decs)*
            ::core::result::Result::Ok(#node)
        };
        __r.enter()?;
        let mut __head = __node(__r, 0)?;
        let mut __more = #x::take_flag(__r)?;
        let mut __tail = &mut __head.#link;
        let mut __k = 0usize;
        while __more {
            __k += 1;
            let __next = __node(__r, __k)?;
            __more = #x::take_flag(__r)?;
            __tail = &mut __tail.insert(::std::boxed::Box::new(__next)).#link;
        }
        __r.leave();
        ::core::result::Result::Ok(__head)
    };
    signatures(
        fields_size(&fields.fields, Dir::Enc),
        fields_size(&fields.fields, Dir::Dec),
        TokenStream::new(),
        TokenStream::new(),
        len,
        enc,
        dec,
    )
}

fn c_enum(ident: &syn::Ident, variants: &[&syn::Ident]) -> (TokenStream, TokenStream) {
    let x = x();
    let consts: Vec<syn::Ident> = (0..variants.len())
        .map(|i| quote::format_ident!("__D{}", i))
        .collect();
    let type_name = ident.to_string();
    let checks = variants.iter().map(|v| {
        let msg = format!("the value of `{ident}::{v}` does not fit an XDR enum");
        // `i128` holds every `repr`'s values: the check itself is the wire crate's.
        quote_spanned!(v.span()=> const _: () = ::core::assert!(
            #x::enum_value_fits(#ident::#v as i128),
            #msg
        );)
    });
    let enc = quote! {
        #(#checks)*
        #x::put_discriminant(__w, match self { #(Self::#variants => #ident::#variants as #x::EnumValue,)* })
    };
    let dec = quote! {
        #(const #consts: #x::EnumValue = #ident::#variants as #x::EnumValue;)*
        let __d = #x::take_discriminant(__r)?;
        match __d {
            #(#consts => ::core::result::Result::Ok(Self::#variants),)*
            _ => ::core::result::Result::Err(#x::unknown_discriminant(__r, __d, #type_name)),
        }
    };
    let size = quote!(#x::DISCRIMINANT_CLASS);
    signatures(
        size.clone(),
        size,
        TokenStream::new(),
        TokenStream::new(),
        quote!(::core::result::Result::Ok(#x::DISCRIMINANT_SIZE)),
        enc,
        dec,
    )
}

/// The labels of an arm as one pattern: `A | B`.
fn labels(v: &Variant<'_>) -> TokenStream {
    let tags = v.tags.iter().map(|t| &t.tokens);
    quote!(#(#tags)|*)
}

fn union(
    ident: &syn::Ident,
    variants: &[Variant<'_>],
    disc: &TokenStream,
) -> (TokenStream, TokenStream) {
    let x = x();
    let type_name = ident.to_string();
    let d = quote!(<#disc as #x::Discriminant>);
    let arms_size = |dir: Dir| {
        let arms = variants.iter().map(|v| fields_size(arm_fields(v), dir));
        let mut it = arms.into_iter();
        let first = it.next().expect("unions have variants");
        quote!(#d::CLASS.then(#first #(.or(#it))*))
    };
    let tagged: Vec<&Variant<'_>> = variants.iter().filter(|v| v.is_tagged()).collect();

    let mut len_arms = Vec::new();
    let mut enc_arms = Vec::new();
    let mut dec_arms = Vec::new();
    let mut dec_rest = None;
    for v in variants {
        let vid = v.ident;
        let vname = vid.to_string();
        let pat = pattern(quote!(Self::#vid), &v.fields);
        let in_variant = quote!(.map_err(|__e| __e.in_field(#vname)));
        let fields = arm_fields(v);
        let places: Vec<TokenStream> = fields
            .iter()
            .map(|f| {
                let b = &f.binding;
                quote!(#b)
            })
            .collect();
        let lens = fields.iter().zip(&places).map(|(f, p)| {
            let l = field_len(f, p, &in_variant);
            quote!(__len += #l;)
        });
        len_arms.push(quote!(#pat => { #(#lens)* }));
        let encs: Vec<TokenStream> = fields
            .iter()
            .zip(&places)
            .map(|(f, p)| field_encode(f, p, &in_variant))
            .collect();
        let decs: Vec<TokenStream> = fields
            .iter()
            .map(|f| field_decode(f, &in_variant))
            .collect();
        let value = construct(quote!(Self::#vid), &v.fields, None);
        let held = v.holds_discriminant().then(|| {
            let first = &v.fields.fields[0];
            let ty = first.ty;
            let arm = quote_spanned!(ty.span()=> <#ty as #x::ArmDiscriminant<#disc>>);
            (&first.binding, arm)
        });
        match held {
            Some((b, arm)) => {
                let check = if v.is_default {
                    let taken = tagged.iter().map(|t| {
                        let l = labels(t);
                        let tname = t.ident.to_string();
                        quote!(#l => return ::core::result::Result::Err(#d::taken(__dv, __w, #tname)),)
                    });
                    quote!(match *__dv { #(#taken)* _ => {} })
                } else if v.no_member {
                    quote!(return ::core::result::Result::Err(#d::no_member(__dv, __w, #type_name));)
                } else {
                    let l = labels(v);
                    quote!(match *__dv { #l => {} _ => return ::core::result::Result::Err(#d::not_a_label(__dv, __w, #vname)) })
                };
                let put = (!v.no_member).then(|| quote!(#d::put(__dv, __w)?; #(#encs)*));
                enc_arms.push(quote!(#pat => {
                    let __dv = #arm::get(#b);
                    #check
                    #put
                }));
                let from = quote!(let #b = #arm::from_discriminant(__d););
                if v.is_default {
                    dec_rest = Some(quote!(__d => {
                        #from
                        #(#decs)*
                        ::core::result::Result::Ok(#value)
                    }));
                } else if !v.no_member {
                    let l = labels(v);
                    dec_arms.push(quote!(#l => {
                        #from
                        #(#decs)*
                        ::core::result::Result::Ok(#value)
                    }));
                }
            }
            None => {
                let tag = &v.tags[0].tokens;
                let put = quote_spanned!(v.tags[0].span=> #d::put(&(#tag), __w)?;);
                enc_arms.push(quote!(#pat => {
                    #put
                    #(#encs)*
                }));
                dec_arms.push(quote!(#tag => {
                    #(#decs)*
                    ::core::result::Result::Ok(#value)
                }));
            }
        }
    }
    // XDR has no member-less default: a `no_member` arm is never decoded into.
    dec_arms.push(dec_rest.unwrap_or_else(
        || quote!(__d => ::core::result::Result::Err(#d::unknown(&__d, __r, #type_name))),
    ));

    let prologue = len_prologue();
    let len = quote! {
        #prologue
        let mut __len = #d::WIDTH;
        match self { #(#len_arms)* }
        ::core::result::Result::Ok(__len)
    };
    let enc = chunked(
        Dir::Enc,
        quote! {
            match self { #(#enc_arms)* }
            ::core::result::Result::Ok(())
        },
    );
    let dec = chunked(
        Dir::Dec,
        quote! {
            let __d = #d::take(__r)?;
            match __d { #(#dec_arms)* }
        },
    );
    signatures(
        arms_size(Dir::Enc),
        arms_size(Dir::Dec),
        TokenStream::new(),
        TokenStream::new(),
        len,
        enc,
        dec,
    )
}

/// A C-like enum is a discriminant a union may switch on (`switch (nfsstat3 status)`).
fn c_enum_discriminant(ident: &syn::Ident, variants: &[&syn::Ident]) -> TokenStream {
    let x = x();
    quote! {
        #[automatically_derived]
        impl #x::Discriminant for #ident {
            #[inline]
            fn to_i64(&self) -> i64 {
                match self { #(Self::#variants => #ident::#variants as i64,)* }
            }
        }
    }
}
