//! Whole-record conversion between the annotated layout and the Rust struct: `read_from` and
//! `write_to` move each word once (one load or store, in the word's byte order) and take the
//! fields apart or put them together with shifts and masks there; byte arrays are copied and
//! bytes no field covers are written as zeros. For `in_place` records, a swap in the buffer
//! itself turns the layout into the struct's own memory and back.
//!
//! The `unsafe impl PlainBytes` promise (argued here: comments do not survive `quote!`): the
//! struct is `#[repr(C)]` (checked by the derive), every field's type is `PlainBytes` (asserted
//! by a trait bound in the output), each field sits at its annotated offset and the size is the
//! layout's (asserted with `offset_of!` and `size_of` in a `const`), and the fields tile the
//! layout with no gap (checked by the derive). So the struct has no padding byte, and every
//! bit pattern of its bytes is a valid value: each byte belongs to exactly one field, whose
//! type is valid for any bits.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::words::Word;
use super::{lit, ty_span, uint, LField, Order, Record, Ty};

/// A mask of `n` low bits, as an unsuffixed literal (its type is inferred from its use).
fn mask(n: u32) -> TokenStream {
    let m: u128 = if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    };
    let lit = syn::LitInt::new(&format!("{m:#x}"), proc_macro2::Span::call_site());
    quote!(#lit)
}

fn from_bytes(order: Order) -> TokenStream {
    match order {
        Order::Big => quote!(from_be_bytes),
        Order::Little => quote!(from_le_bytes),
    }
}

fn to_bytes(order: Order) -> TokenStream {
    match order {
        Order::Big => quote!(to_be_bytes),
        Order::Little => quote!(to_le_bytes),
    }
}

/// The value of field `f` from `v`, the integer holding its unit at `shift` (already loaded in
/// the right byte order). `vt` is `v`'s type.
pub fn extract(f: &LField<'_>, v: &TokenStream, vt: &syn::Ident, shift: u32) -> TokenStream {
    let (sh, bits) = match f.bits {
        Some((lo, hi)) => (shift + lo, Some(hi - lo)),
        None => (shift, None),
    };
    let shifted = if sh == 0 {
        quote!(#v)
    } else {
        let sh = lit(sh as usize);
        quote!((#v >> #sh))
    };
    let _ = vt;
    match (f.kind, bits) {
        (Ty::Bool, _) => quote!((#shifted & 1) != 0),
        (Ty::Uint(w), Some(n)) => {
            let t = uint(w);
            let m = mask(n);
            quote!((#shifted & #m) as #t)
        }
        (Ty::Uint(w), None) => {
            let t = uint(w);
            quote!(#shifted as #t)
        }
        (Ty::Int(w), _) => {
            let t = uint(w);
            let it = quote::format_ident!("i{}", 8 * w);
            quote!(#shifted as #t as #it)
        }
        (Ty::Float(w), _) => {
            let t = uint(w);
            let ft = quote::format_ident!("f{}", 8 * w);
            quote!(#ft::from_bits(#shifted as #t))
        }
        (Ty::Bytes(_), _) => unreachable!("byte arrays are not in words"),
    }
}

/// Field `f` of `value`, placed at `shift` in an integer of type `vt` (bit-fields masked).
pub fn deposit(f: &LField<'_>, value: &TokenStream, vt: &syn::Ident, shift: u32) -> TokenStream {
    let (sh, bits) = match f.bits {
        Some((lo, hi)) => (shift + lo, Some(hi - lo)),
        None => (shift, None),
    };
    let raw = match f.kind {
        Ty::Bool | Ty::Uint(_) => quote!((#value as #vt)),
        Ty::Int(w) => {
            let t = uint(w);
            quote!((#value as #t as #vt))
        }
        Ty::Float(_) => quote!((#value.to_bits() as #vt)),
        Ty::Bytes(_) => unreachable!("byte arrays are not in words"),
    };
    let masked = match bits {
        Some(n) if f.kind != Ty::Bool => {
            let m = mask(n);
            quote!((#raw & #m))
        }
        _ => raw,
    };
    if sh == 0 {
        masked
    } else {
        let sh = lit(sh as usize);
        quote!((#masked << #sh))
    }
}

pub fn expand(r: &Record<'_>, words: &[Word]) -> TokenStream {
    let x = Record::x();
    let ident = r.ident;
    let name = ident.to_string();
    let n = lit(r.size);
    let align = lit(r.align);
    let (view, view_mut) = r.view_idents();

    // read: one load per word, then each field from its word; arrays copied.
    let mut loads = Vec::new();
    let mut values: Vec<Option<TokenStream>> = vec![None; r.fields.len()];
    for (k, w) in words.iter().enumerate() {
        let var = quote::format_ident!("__w{}", k);
        let t = uint(w.width);
        let at = lit(w.at);
        let wl = lit(w.width);
        let from = from_bytes(w.order);
        loads.push(quote!(let #var = #t::#from(*#x::word::<#at, #wl, #n>(__b));));
        for &u in &w.units {
            let unit = &r.units[u];
            let shift = w.shift(unit.at, unit.width);
            for &fi in &unit.fields {
                values[fi] = Some(extract(&r.fields[fi], &quote!(#var), &t, shift));
            }
        }
    }
    let inits = r.fields.iter().zip(values).map(|(f, v)| {
        let m = f.ident;
        let v = v.unwrap_or_else(|| {
            let at = lit(f.at);
            let w = lit(f.kind.width());
            quote!(*#x::word::<#at, #w, #n>(__b))
        });
        quote!(#m: #v)
    });

    // write: each word built from its fields and stored once; arrays and gaps after.
    let mut stores = Vec::new();
    let mut covered = vec![false; r.size];
    for w in words {
        let t = uint(w.width);
        let at = lit(w.at);
        let wl = lit(w.width);
        let to = to_bytes(w.order);
        let mut terms = Vec::new();
        for &u in &w.units {
            let unit = &r.units[u];
            let shift = w.shift(unit.at, unit.width);
            for &fi in &unit.fields {
                let f = &r.fields[fi];
                let m = f.ident;
                terms.push(deposit(f, &quote!(__v.#m), &t, shift));
            }
        }
        covered[w.at..w.at + w.width].fill(true);
        stores.push(quote! {
            *#x::word_mut::<#at, #wl, #n>(__b) = ((0 as #t) #(| #terms)*).#to();
        });
    }
    for f in &r.fields {
        if let Ty::Bytes(len) = f.kind {
            let m = f.ident;
            let at = lit(f.at);
            let l = lit(len);
            covered[f.at..f.at + len].fill(true);
            stores.push(quote!(*#x::word_mut::<#at, #l, #n>(__b) = __v.#m;));
        }
    }
    let mut i = 0;
    while i < r.size {
        if covered[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < r.size && !covered[i] {
            i += 1;
        }
        let at = lit(start);
        let l = lit(i - start);
        stores.push(quote!(*#x::word_mut::<#at, #l, #n>(__b) = [0u8; #l];));
    }

    // Bit-field values wider than their bits are refused before anything is written.
    let checks = r.fields.iter().filter_map(|f| {
        let (lo, hi) = f.bits?;
        let Ty::Uint(w) = f.kind else { return None };
        if hi - lo >= 8 * w as u32 {
            return None;
        }
        let m = f.ident;
        let fname = &f.name;
        let max = mask(hi - lo);
        let target = format!("{} bits", hi - lo);
        let at = lit(f.at);
        Some(quote! {
            if __v.#m > #max {
                return ::core::result::Result::Err(
                    #x::too_wide(__v.#m as u64, #target, #at).in_field(#fname),
                );
            }
        })
    });

    let in_place = if r.in_place {
        in_place(r, words)
    } else {
        TokenStream::new()
    };

    quote! {
        #[inline]
        fn __read(__b: &[u8; #n]) -> #ident {
            #(#loads)*
            #ident { #(#inits),* }
        }

        #[inline]
        fn __check(__v: &#ident) -> ::core::result::Result<(), ::marshal::Error> {
            #(#checks)*
            ::core::result::Result::Ok(())
        }

        /// Bit-field values must have been checked.
        #[inline]
        fn __write(__v: &#ident, __b: &mut [u8; #n]) {
            #(#stores)*
        }

        impl #x::Layout for #ident {
            const SIZE: usize = #n;
            const ALIGN: usize = #align;
            type View<'__a> = #view<'__a>;
            type ViewMut<'__a> = #view_mut<'__a>;

            #[inline]
            fn read_from(bytes: &[u8]) -> ::core::result::Result<Self, ::marshal::Error> {
                ::core::result::Result::Ok(__read(#x::prefix::<#n>(bytes, #name)?))
            }

            #[inline]
            fn write_to(&self, bytes: &mut [u8]) -> ::core::result::Result<(), ::marshal::Error> {
                __check(self)?;
                __write(self, #x::prefix_mut::<#n>(bytes, #name)?);
                ::core::result::Result::Ok(())
            }

            #[inline]
            fn view(bytes: &[u8]) -> ::core::result::Result<#view<'_>, ::marshal::Error> {
                ::core::result::Result::Ok(#view { bytes: #x::prefix::<#n>(bytes, #name)? })
            }

            #[inline]
            fn view_mut(bytes: &mut [u8]) -> ::core::result::Result<#view_mut<'_>, ::marshal::Error> {
                ::core::result::Result::Ok(#view_mut { bytes: #x::prefix_mut::<#n>(bytes, #name)? })
            }
        }

        impl #ident {
            /// Reads the record from the first bytes of `bytes` (its annotated layout).
            /// Fails if `bytes` is shorter than the layout.
            #[inline]
            pub fn read_from(bytes: &[u8]) -> ::core::result::Result<Self, ::marshal::Error> {
                <Self as #x::Layout>::read_from(bytes)
            }

            /// Writes the record into the first bytes of `bytes` in its annotated layout, with
            /// zeros in bytes no field covers. Fails, writing nothing, if `bytes` is shorter
            /// than the layout or a bit-field's value does not fit its bits.
            #[inline]
            pub fn write_to(&self, bytes: &mut [u8]) -> ::core::result::Result<(), ::marshal::Error> {
                <Self as #x::Layout>::write_to(self, bytes)
            }

            /// A view of the record in `bytes`, reading each field in place. Fails if
            /// `bytes` is shorter than the layout.
            #[inline]
            pub fn view(bytes: &[u8]) -> ::core::result::Result<#view<'_>, ::marshal::Error> {
                <Self as #x::Layout>::view(bytes)
            }

            /// A view of the record in `bytes`, reading and writing each field in place.
            /// Fails if `bytes` is shorter than the layout.
            #[inline]
            pub fn view_mut(bytes: &mut [u8]) -> ::core::result::Result<#view_mut<'_>, ::marshal::Error> {
                <Self as #x::Layout>::view_mut(bytes)
            }
        }

        #in_place
    }
}

/// For `in_place` records: layout assertions, `PlainBytes`, and the swap both ways.
fn in_place(r: &Record<'_>, words: &[Word]) -> TokenStream {
    let x = Record::x();
    let ident = r.ident;
    let name = ident.to_string();
    let n = lit(r.size);
    let size_msg = format!(
        "`in_place`: size_of::<{name}>() is not the layout's {} bytes",
        r.size
    );
    let offsets = r.fields.iter().map(|f| {
        let m = f.ident;
        let at = lit(f.at);
        let msg = format!(
            "`in_place`: in the #[repr(C)] struct, field `{}` is not at its annotated offset {}",
            f.name, f.at
        );
        quote_spanned! {m.span()=>
            const _: () = ::core::assert!(::core::mem::offset_of!(#ident, #m) == #at, #msg);
        }
    });
    let plain = r.fields.iter().map(|f| {
        let ty = f.ty;
        quote_spanned!(ty_span(f)=> __assert_plain::<#ty>();)
    });
    let little = swap_body(r, words, Order::Little);
    let big = swap_body(r, words, Order::Big);
    quote! {
        #(#offsets)*
        const _: () = ::core::assert!(::core::mem::size_of::<#ident>() == #n, #size_msg);

        const _: fn() = || {
            fn __assert_plain<T: #x::PlainBytes>() {}
            #(#plain)*
        };

        unsafe impl #x::PlainBytes for #ident {}

        /// Reverses the bytes of every field whose order is not the host's: from the layout
        /// to the native struct's memory, or back.
        #[inline]
        fn __swap(__b: &mut [u8; #n]) {
            if ::core::cfg!(target_endian = "little") {
                #little
            } else {
                #big
            }
        }

        impl #x::InPlace for #ident {
            #[inline]
            fn from_wire_in_place(bytes: &mut [u8]) -> ::core::result::Result<&mut Self, ::marshal::Error> {
                let __b = #x::prefix_mut::<#n>(bytes, #name)?;
                #x::check_aligned::<Self>(__b, #name)?;
                __swap(__b);
                #x::cast_mut::<Self, #n>(__b, #name)
            }

            #[inline]
            fn to_wire_in_place(&mut self) -> &mut [u8] {
                #ident::to_wire_in_place(self)
            }
        }

        impl #ident {
            /// Converts the layout in the first bytes of `bytes` to this struct's own memory,
            /// in place, and returns it as the struct. Fails, changing nothing, if `bytes` is
            /// shorter than the layout or not aligned for the struct.
            #[inline]
            pub fn from_wire_in_place(bytes: &mut [u8]) -> ::core::result::Result<&mut Self, ::marshal::Error> {
                <Self as #x::InPlace>::from_wire_in_place(bytes)
            }

            /// Converts the struct's memory to its annotated layout, in place, and returns
            /// those bytes. Afterwards the struct holds the layout's bytes.
            #[inline]
            pub fn to_wire_in_place(&mut self) -> &mut [u8; #n] {
                let __b = #x::bytes_of_mut::<Self, #n>(self);
                __swap(__b);
                __b
            }
        }
    }
}

/// The in-place swap on a host of byte order `host`: for each word holding a field of the other
/// order, one load and one store of the word, each such field's bytes reversed in the register
/// and the other bytes kept.
fn swap_body(r: &Record<'_>, words: &[Word], host: Order) -> TokenStream {
    let x = Record::x();
    let n = lit(r.size);
    let mut out = Vec::new();
    for w in words {
        let t = uint(w.width);
        let reversed: Vec<usize> = w
            .units
            .iter()
            .copied()
            .filter(|&u| r.units[u].width > 1 && r.units[u].order != host)
            .collect();
        if reversed.is_empty() {
            continue;
        }
        let mut moved: u128 = 0;
        let mut terms = Vec::new();
        for &u in &reversed {
            let unit = &r.units[u];
            let off = unit.at - w.at;
            let sh = 8 * match host {
                Order::Little => off,
                Order::Big => w.width - off - unit.width,
            } as u32;
            moved |= ((1u128 << (8 * unit.width)) - 1) << sh;
            let ut = uint(unit.width);
            let shl = lit(sh as usize);
            terms.push(quote!(((((__r >> #shl) as #ut).swap_bytes() as #t) << #shl)));
        }
        let keep_bits = !moved & ((1u128 << (8 * w.width)) - 1);
        let keep = syn::LitInt::new(&format!("{keep_bits:#x}"), proc_macro2::Span::call_site());
        let at = lit(w.at);
        let wl = lit(w.width);
        out.push(quote! {{
            let __p = #x::word_mut::<#at, #wl, #n>(__b);
            let __r = #t::from_ne_bytes(*__p);
            *__p = ((__r & #keep) #(| #terms)*).to_ne_bytes();
        }});
    }
    quote!(#(#out)*)
}
