//! Generates `Encode` and `Decode` for CDR (CORBA GIOP). The derive knows no wire rule:
//! alignment and its phases, byte order, discriminant types (which ones a union may switch on,
//! and the default), how a C-like enum travels and list links all come from `wire-iiop`
//! through `marshal::__private::iiop`; this file only arranges the calls.
//!
//! Shape of the output: `end` computes where a value ends from where it starts (alignment
//! makes sizes depend on position), `encode` writes the fields in order, and decoding is
//! `decode_into`, each field decoded where it lives in the caller's `MaybeUninit<Self>`. The
//! `SHAPE` of a struct (one for each direction) is a constant expression over its fields'
//! shapes: a struct of constant layout (`Stat`: 30 `long`s and 16 octets) is read from one
//! segment with one length check and written into one with one capacity check; a struct whose
//! layout depends on its start's alignment phase (`{ octet o; double d; }`) gets
//! `decode_phase::<K>` / `encode_phase::<K>`, one constant layout per phase, selected at run
//! time by `phase(pos)`; and only a struct that may contain itself takes a depth level.
//! Structs of same-width words laid out in order (a `Rect` of four `long`s) are `FLAT`: they,
//! and sequences and arrays of them, are one copy or one byte-swap pass. C-like enums are
//! written by `put_ordinal` from their position; unions switch on `DefaultDiscriminant` unless
//! the enum says `#[marshal(discriminant = T)]`, and a `T` the wire cannot switch on fails its
//! `Discriminant` bound, at `T`.

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Data, Field, Fields, Variant};
use crate::common::{arm_fields, construct, in_field, pattern, struct_flat};

fn x() -> TokenStream {
    crate::root::private("iiop")
}

pub fn expand(cont: &Container<'_>) -> TokenStream {
    let x = x();
    let ident = cont.ident;
    let (enc_items, dec_items) = match &cont.data {
        Data::Struct(f) if f.tail_link => struct_list(f),
        Data::Struct(f) => structure(f),
        Data::CEnum(vs) => c_enum(ident, vs),
        Data::Union(vs) => union(ident, vs, &crate::common::discriminant(cont, &x)),
    };
    let tags = match &cont.data {
        Data::Union(vs) => {
            crate::common::tag_checks(ident, vs, &x, &crate::common::discriminant(cont, &x))
        }
        _ => TokenStream::new(),
    };
    let checks = crate::common::max_len_checks(cont, &x, "a CDR");
    let impls = crate::common::impls(cont, &x, enc_items, dec_items);
    let disc = match &cont.data {
        Data::CEnum(vs) => c_enum_discriminant(ident, vs),
        _ => TokenStream::new(),
    };
    quote!(#checks #tags #impls #disc)
}

/// Statement: advance `__pos` past the field at `place`.
fn field_end(f: &Field<'_>, place: &TokenStream) -> TokenStream {
    let x = x();
    let name = in_field(&f.name);
    let ty = f.ty;
    quote_spanned!(ty.span()=> let __pos = #x::Encode::end(#place, __pos, __depth) #name ?;)
}

/// Statement: encode the field at `place`.
fn field_encode(f: &Field<'_>, place: &TokenStream) -> TokenStream {
    let x = x();
    let name = in_field(&f.name);
    let ty = f.ty;
    match &f.attrs.max_len {
        Some(m) => {
            let n = m.value;
            quote_spanned!(m.span=> #x::encode_max(#place, #n, __w, __o) #name ?;)
        }
        None => quote_spanned!(ty.span()=> #x::Encode::encode(#place, __w, __o) #name ?;),
    }
}

/// Statement: `let <binding> = <decoded field>;`.
fn field_decode(f: &Field<'_>) -> TokenStream {
    let x = x();
    let ty = f.ty;
    let b = &f.binding;
    let name = in_field(&f.name);
    match &f.attrs.max_len {
        Some(m) => {
            let n = m.value;
            quote_spanned!(m.span=> let #b = #x::decode_max::<#ty>(__r, #n, __o) #name ?;)
        }
        None => {
            quote_spanned!(ty.span()=> let #b = <#ty as #x::Decode<'__de>>::decode(__r, __o) #name ?;)
        }
    }
}

/// `0 + <T as Decode>::MIN + ...` over some fields.
fn fields_min<'a>(fields: impl IntoIterator<Item = &'a Field<'a>>) -> TokenStream {
    let x = x();
    let mins = fields.into_iter().map(|f| {
        let ty = f.ty;
        quote!(<#ty as #x::Decode<'__de>>::MIN)
    });
    quote!(0usize #(+ #mins)*)
}

/// `Shape::EMPTY.then(<T as Trait>::SHAPE)...` over some fields (`tr`: `Encode` or
/// `Decode<'__de>`).
fn fields_shape<'a>(
    tr: &TokenStream,
    fields: impl IntoIterator<Item = &'a Field<'a>>,
) -> TokenStream {
    let x = x();
    let shapes = fields.into_iter().map(|f| {
        let ty = f.ty;
        quote!(<#ty as #tr>::SHAPE)
    });
    quote!(#x::Shape::EMPTY #(.then(#shapes))*)
}

fn structure(fields: &Fields<'_>) -> (TokenStream, TokenStream) {
    let x = x();
    let places: Vec<TokenStream> = fields
        .fields
        .iter()
        .map(|f| {
            let m = &f.member;
            quote!(&self.#m)
        })
        .collect();
    let ends = fields
        .fields
        .iter()
        .zip(&places)
        .map(|(f, p)| field_end(f, p));
    let encs = fields
        .fields
        .iter()
        .zip(&places)
        .map(|(f, p)| field_encode(f, p))
        .collect::<Vec<_>>();
    let min = fields_min(&fields.fields);
    let shape = fields_shape(&quote!(#x::Decode<'__de>), &fields.fields);
    let shape_enc = fields_shape(&quote!(#x::Encode), &fields.fields);
    let flat_enc = struct_flat(&x, &quote!(#x::Encode), fields);
    let flat_dec = struct_flat(&x, &quote!(#x::Decode<'__de>), fields);
    let dec_into = decode_into(fields);
    (
        quote! {
            #flat_enc
            #[inline]
            fn end(&self, __pos: usize, __depth: u32) -> ::core::result::Result<usize, #x::Error> {
                // A layout fixed for each phase: its size is a constant per phase.
                if let ::core::option::Option::Some(__end) =
                    #x::layout_end(<Self as #x::Encode>::SHAPE, __pos)
                {
                    return ::core::result::Result::Ok(__end);
                }
                let __depth = #x::descend(__depth)?;
                #(#ends)*
                ::core::result::Result::Ok(__pos)
            }
            const SHAPE: #x::Shape = #shape_enc;
            #[inline]
            fn encode(&self, __w: &mut #x::Writer<'_>, __o: #x::ByteOrder) -> ::core::result::Result<(), #x::Error> {
                let __shape = <Self as #x::Encode>::SHAPE;
                if let #x::Shape::Fixed { .. } | #x::Shape::Phased { .. } = __shape {
                    return #x::encode_phased(self, __w, __o);
                }
                // A type that may hold itself takes a depth level, as in decoding: encoding
                // does not rely on having been measured first.
                if let #x::Shape::Deep = __shape {
                    __w.enter()?;
                }
                #(#encs)*
                if let #x::Shape::Deep = __shape {
                    __w.leave();
                }
                ::core::result::Result::Ok(())
            }
            #[inline(always)]
            fn encode_phase<const __K: usize>(&self, __w: &mut #x::Writer<'_>, __o: #x::ByteOrder) -> ::core::result::Result<(), #x::Error> {
                #x::phased_chunk::<__K>(__w, <Self as #x::Encode>::SHAPE, |__w| {
                    #(#encs)*
                    ::core::result::Result::Ok(())
                })
            }
        },
        quote! {
            #flat_dec
            const MIN: usize = #min;
            const SHAPE: #x::Shape = #shape;
            #[inline]
            fn decode(__r: &mut #x::Reader<'__de>, __o: #x::ByteOrder) -> ::core::result::Result<Self, #x::Error> {
                #x::decode_by_place(__r, __o)
            }
            #dec_into
        },
    )
}

/// A struct whose last field is `Option<Box<Self>>`: an optional-data list, each link the
/// length (0 or 1) of a `sequence<Self, 1>`, walked with a loop so a list of any length needs
/// constant stack and one depth level.
fn struct_list(fields: &Fields<'_>) -> (TokenStream, TokenStream) {
    let x = x();
    let (body, link) = fields.fields.split_at(fields.fields.len() - 1);
    let link = &link[0].member;
    let places: Vec<TokenStream> = body
        .iter()
        .map(|f| {
            let m = &f.member;
            quote!(&__cur.#m)
        })
        .collect();
    let ends = body.iter().zip(&places).map(|(f, p)| field_end(f, p));
    let encs = body.iter().zip(&places).map(|(f, p)| field_encode(f, p));
    let decs = body.iter().map(field_decode);
    let node = construct(
        quote!(Self),
        fields,
        Some(quote!(::core::option::Option::None)),
    );
    let min = fields_min(&fields.fields);
    let shape = fields_shape(&quote!(#x::Decode<'__de>), &fields.fields);
    let shape_enc = fields_shape(&quote!(#x::Encode), &fields.fields);
    (
        quote! {
            #[inline]
            fn end(&self, __pos: usize, __depth: u32) -> ::core::result::Result<usize, #x::Error> {
                let __depth = #x::descend(__depth)?;
                let mut __pos = __pos;
                let mut __cur = self;
                let mut __k = 0usize;
                loop {
                    __pos = (|| -> ::core::result::Result<usize, #x::Error> {
                        #(#ends)*
                        #x::flag_end(__pos, __depth)
                    })()
                    .map_err(|__e| #x::in_node(__e, __k))?;
                    match &__cur.#link {
                        ::core::option::Option::Some(__next) => {
                            __cur = &**__next;
                            __k += 1;
                        }
                        ::core::option::Option::None => break,
                    }
                }
                ::core::result::Result::Ok(__pos)
            }
            const SHAPE: #x::Shape = #shape_enc;
            #[inline]
            fn encode(&self, __w: &mut #x::Writer<'_>, __o: #x::ByteOrder) -> ::core::result::Result<(), #x::Error> {
                __w.enter()?;
                let mut __cur = self;
                let mut __k = 0usize;
                loop {
                    (|| -> ::core::result::Result<(), #x::Error> {
                        #(#encs)*
                        ::core::result::Result::Ok(())
                    })()
                    .map_err(|__e| #x::in_node(__e, __k))?;
                    match &__cur.#link {
                        ::core::option::Option::Some(__next) => {
                            #x::put_flag(__w, true, __o)?;
                            __cur = &**__next;
                            __k += 1;
                        }
                        ::core::option::Option::None => {
                            #x::put_flag(__w, false, __o)?;
                            break;
                        }
                    }
                }
                __w.leave();
                ::core::result::Result::Ok(())
            }
        },
        quote! {
            const MIN: usize = #min;
            const SHAPE: #x::Shape = #shape;
            #[inline]
            fn decode(__r: &mut #x::Reader<'__de>, __o: #x::ByteOrder) -> ::core::result::Result<Self, #x::Error> {
                let __node = |__r: &mut #x::Reader<'__de>| -> ::core::result::Result<Self, #x::Error> {
                    #(#decs)*
                    ::core::result::Result::Ok(#node)
                };
                __r.enter()?;
                let mut __head = __node(__r)?;
                let mut __more = #x::take_flag(__r, __o)?;
                let mut __tail = &mut __head.#link;
                let mut __k = 0usize;
                while __more {
                    __k += 1;
                    let __next = __node(__r).map_err(|__e| #x::in_node(__e, __k))?;
                    __more = #x::take_flag(__r, __o)?;
                    __tail = &mut __tail.insert(::std::boxed::Box::new(__next)).#link;
                }
                __r.leave();
                ::core::result::Result::Ok(__head)
            }
        },
    )
}

/// `decode_into` for a struct (see [`crate::common::decode_into`]): a flat struct is one copy
/// or swap pass; a `Deep` one takes one depth level. One of `Fixed` or `Phased` shape goes to
/// `decode_phase::<K>` for its start phase (`decode_phased`; always 0 when `Fixed`), which reads
/// one segment: one length check, constant padding and offsets inside, errors shifted back to
/// the message's offsets. `encode_phase` is its twin.
fn decode_into(fields: &Fields<'_>) -> TokenStream {
    let x = x();
    let field = |f: &Field<'_>| {
        let ty = f.ty;
        // SAFETY: see `common::decode_into`.
        match &f.attrs.max_len {
            Some(ml) => {
                let n = ml.value;
                quote_spanned!(ml.span=> unsafe { #x::decode_field_max::<#ty>(__r, __place, #n, __o) })
            }
            None => {
                quote_spanned!(ty.span()=> unsafe { #x::decode_field::<#ty>(__r, __place, __o) })
            }
        }
    };
    let pro = quote! {
        if let ::core::option::Option::Some(__proof) = <Self as #x::Decode<'__de>>::FLAT {
            return #x::decode_flat_into(__r, __out, __proof, __o);
        }
        let __shape = <Self as #x::Decode<'__de>>::SHAPE;
        match __shape {
            #x::Shape::Fixed { .. } | #x::Shape::Phased { .. } => {
                return #x::decode_phased(__r, __out, __o);
            }
            #x::Shape::Shallow => {}
            #x::Shape::Deep => __r.enter()?,
        }
    };
    let epi = quote! {
        if let #x::Shape::Deep = __shape {
            __r.leave();
        }
    };
    let whole = crate::common::decode_into(
        &x,
        fields,
        crate::common::InPlace {
            sig: quote!(decode_into<'__a>),
            params: quote!(__o: #x::ByteOrder),
            pro,
            epi,
            err: TokenStream::new(),
        },
        field,
    );
    let phase_pro = quote! {
        let (mut __seg, __base) =
            #x::phased_segment::<__K>(__r, <Self as #x::Decode<'__de>>::SHAPE)?;
        let __r = &mut __seg;
    };
    let phase = crate::common::decode_into(
        &x,
        fields,
        crate::common::InPlace {
            sig: quote!(decode_phase<'__a, const __K: usize>),
            params: quote!(__o: #x::ByteOrder),
            pro: phase_pro,
            epi: TokenStream::new(),
            err: quote!(.map_err(|__e| __e.shifted(__base))),
        },
        field,
    );
    quote!(#whole #phase)
}

fn c_enum(ident: &syn::Ident, variants: &[&syn::Ident]) -> (TokenStream, TokenStream) {
    let x = x();
    let type_name = ident.to_string();
    let ords: Vec<Literal> = (0..variants.len()).map(Literal::usize_unsuffixed).collect();
    (
        quote! {
            const SHAPE: #x::Shape = #x::ENUM_SHAPE;
            #[inline]
            fn end(&self, __pos: usize, __depth: u32) -> ::core::result::Result<usize, #x::Error> {
                #x::enum_end(__pos, __depth)
            }
            #[inline]
            fn encode(&self, __w: &mut #x::Writer<'_>, __o: #x::ByteOrder) -> ::core::result::Result<(), #x::Error> {
                #x::put_ordinal(__w, match self { #(Self::#variants => #ords,)* }, __o)
            }
        },
        quote! {
            const MIN: usize = #x::ENUM_MIN;
            const SHAPE: #x::Shape = #x::ENUM_SHAPE;
            #[inline]
            fn decode(__r: &mut #x::Reader<'__de>, __o: #x::ByteOrder) -> ::core::result::Result<Self, #x::Error> {
                match #x::take_ordinal(__r, __o)? {
                    #(#ords => ::core::result::Result::Ok(Self::#variants),)*
                    __d => ::core::result::Result::Err(#x::unknown_ordinal(__r, __d, #type_name)),
                }
            }
        },
    )
}

/// The labels of an arm as one pattern: `A | B`.
fn labels(v: &Variant<'_>) -> TokenStream {
    let tags = v.tags.iter().map(|t| &t.tokens);
    quote!(#(#tags)|*)
}

/// A union. CORBA's implicit default (a discriminant no arm lists, in a union without
/// `default`) is the `no_member` arm: decoded and encoded as a `default` arm without a body.
fn union(
    ident: &syn::Ident,
    variants: &[Variant<'_>],
    disc: &TokenStream,
) -> (TokenStream, TokenStream) {
    let x = x();
    let type_name = ident.to_string();
    let d = quote!(<#disc as #x::Discriminant>);
    let tagged: Vec<&Variant<'_>> = variants.iter().filter(|v| v.is_tagged()).collect();

    let mut end_arms = Vec::new();
    let mut enc_arms = Vec::new();
    let mut dec_arms = Vec::new();
    let mut dec_rest = None;
    for v in variants {
        let vid = v.ident;
        let vname = vid.to_string();
        let pat = pattern(quote!(Self::#vid), &v.fields);
        let body = arm_fields(v);
        let places: Vec<TokenStream> = body
            .iter()
            .map(|f| {
                let b = &f.binding;
                quote!(#b)
            })
            .collect();
        let ends = body.iter().zip(&places).map(|(f, p)| field_end(f, p));
        end_arms.push(quote! { #pat => { #(#ends)* ::core::result::Result::Ok(__pos) } });
        let encs: Vec<TokenStream> = body
            .iter()
            .zip(&places)
            .map(|(f, p)| field_encode(f, p))
            .collect();
        let decs: Vec<TokenStream> = body.iter().map(field_decode).collect();
        let value = construct(quote!(Self::#vid), &v.fields, None);
        if v.holds_discriminant() {
            let first = &v.fields.fields[0];
            let (b, ty) = (&first.binding, first.ty);
            let arm = quote_spanned!(ty.span()=> <#ty as #x::ArmDiscriminant<#disc>>);
            let check = if v.is_tagged() {
                let l = labels(v);
                quote!(match *__dv { #l => {} _ => return ::core::result::Result::Err(#d::not_a_label(__dv, __w, #vname)) })
            } else {
                let taken = tagged.iter().map(|t| {
                    let l = labels(t);
                    let tname = t.ident.to_string();
                    quote!(#l => return ::core::result::Result::Err(#d::taken(__dv, __w, #tname)),)
                });
                quote!(match *__dv { #(#taken)* _ => {} })
            };
            enc_arms.push(quote! {
                #pat => {
                    let __dv = #arm::get(#b);
                    #check
                    #d::put(__dv, __w, __o)?;
                    #(#encs)*
                }
            });
            let arm_body = quote! {
                let #b = #arm::from_discriminant(__d);
                #(#decs)*
                #value
            };
            if v.is_tagged() {
                let l = labels(v);
                dec_arms.push(quote! { #l => { #arm_body } });
            } else {
                dec_rest = Some(quote! { __d => { #arm_body } });
            }
        } else {
            let tag = &v.tags[0].tokens;
            let put = quote_spanned!(v.tags[0].span=> #d::put(&(#tag), __w, __o)?;);
            enc_arms.push(quote! {
                #pat => {
                    #put
                    #(#encs)*
                }
            });
            dec_arms.push(quote! { #tag => { #(#decs)* #value } });
        }
    }
    dec_arms.push(dec_rest.unwrap_or_else(|| {
        quote! {
            __d => return ::core::result::Result::Err(#d::unknown(&__d, __r, #type_name)),
        }
    }));
    (
        quote! {
            #[inline]
            fn end(&self, __pos: usize, __depth: u32) -> ::core::result::Result<usize, #x::Error> {
                let __depth = #x::descend(__depth)?;
                let __pos = #d::end(__pos);
                match self { #(#end_arms)* }
            }
            #[inline]
            fn encode(&self, __w: &mut #x::Writer<'_>, __o: #x::ByteOrder) -> ::core::result::Result<(), #x::Error> {
                __w.enter()?;
                match self { #(#enc_arms)* }
                __w.leave();
                ::core::result::Result::Ok(())
            }
        },
        quote! {
            const MIN: usize = #d::WIDTH;
            #[inline]
            fn decode(__r: &mut #x::Reader<'__de>, __o: #x::ByteOrder) -> ::core::result::Result<Self, #x::Error> {
                __r.enter()?;
                let __d = #d::take(__r, __o)?;
                let __v = match __d { #(#dec_arms)* };
                __r.leave();
                ::core::result::Result::Ok(__v)
            }
        },
    )
}

/// A C-like enum is a discriminant a union may switch on (`switch (Status s)`); errors show
/// its ordinal, as the wire carries it.
fn c_enum_discriminant(ident: &syn::Ident, variants: &[&syn::Ident]) -> TokenStream {
    let x = x();
    let ords: Vec<Literal> = (0..variants.len()).map(Literal::usize_unsuffixed).collect();
    quote! {
        #[automatically_derived]
        impl #x::Discriminant for #ident {
            const WIDTH: usize = #x::ENUM_MIN;
            #[inline]
            fn to_i64(&self) -> i64 {
                match self { #(Self::#variants => #ords,)* }
            }
        }
    }
}
