//! Whole-record conversion between the annotated layout and the Rust struct. `write_to` puts
//! each word together from its fields with shifts and masks and stores it once (one
//! little-endian store, big-endian units reversed in their lanes); byte arrays are copied and
//! bytes no field covers are written as zeros. `read_into` loads unit by unit and stores each
//! field as soon as it has it (see [`read_body`] for why reads do not use words), and
//! `read_from` is `read_into` on a zeroed value. `in_place` records convert by copy, swap a
//! word at a time, reinterpret, and the same swap in the buffer itself turns the layout into
//! the struct's own memory and back.
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

use super::words::{self, Word};
use super::{hex, lit, ty_span, uint, LField, Order, Record, Ty};

/// A mask of `n` low bits, as an unsuffixed literal (its type is inferred from its use).
fn mask(n: u32) -> TokenStream {
    let lit = hex(if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    });
    quote!(#lit)
}

/// Targets where an unaligned load or store costs what an aligned one does: there, words are
/// up to 8 bytes whatever alignment the record guarantees; elsewhere at most that alignment.
fn fast_unaligned() -> TokenStream {
    quote!(::core::cfg!(any(
        target_arch = "x86",
        target_arch = "x86_64",
        target_arch = "aarch64"
    )))
}

/// `v` (the word at `w` as a little-endian integer of its width) with the bytes of every unit
/// of byte order `which` reversed in place, or `None` if it has none. Reversal is its own
/// inverse, so the same expression turns loaded bytes into values and values into bytes to
/// store. Lanes of one width use one operation for all (`swap_bytes`, a rotate, or USC's
/// masked shifts for 16-bit lanes); other mixes reverse each unit on its own.
fn lane_swap(r: &Record<'_>, w: &Word, v: &TokenStream, which: Order) -> Option<TokenStream> {
    let rev: Vec<&super::Unit> = w
        .units
        .iter()
        .map(|&u| &r.units[u])
        .filter(|u| u.width > 1 && u.order == which)
        .collect();
    if rev.is_empty() {
        return None;
    }
    let t = uint(w.width);
    let full: u128 = if w.width == 16 {
        u128::MAX
    } else {
        (1u128 << (8 * w.width)) - 1
    };
    let mut moved: u128 = 0;
    for u in &rev {
        moved |= ((1u128 << (8 * u.width)) - 1) << w.shift(u.at);
    }
    let keep = !moved & full;
    let lane = rev[0].width;
    let uniform = rev
        .iter()
        .all(|u| u.width == lane && (u.at - w.at).is_multiple_of(lane));
    let swapped = if uniform && lane == w.width {
        quote!(#v.swap_bytes())
    } else if uniform && lane == 4 && w.width == 8 {
        quote!(#v.swap_bytes().rotate_left(32))
    } else if uniform && lane == 2 {
        let lo = hex(0x00ff_00ff_00ff_00ffu128 & full & moved);
        let hi = hex(0xff00_ff00_ff00_ff00u128 & full & moved);
        return Some(if keep == 0 {
            quote!((((#v >> 8) & #lo) | ((#v << 8) & #hi)))
        } else {
            let keep = hex(keep);
            quote!((((#v >> 8) & #lo) | ((#v << 8) & #hi) | (#v & #keep)))
        });
    } else {
        let terms = rev.iter().map(|u| {
            let ut = uint(u.width);
            let sh = lit(w.shift(u.at) as usize);
            quote!(((((#v >> #sh) as #ut).swap_bytes() as #t) << #sh))
        });
        let keep = hex(keep);
        return Some(quote!(((#v & #keep) #(| #terms)*)));
    };
    Some(if keep == 0 {
        swapped
    } else {
        let m = hex(moved);
        let keep = hex(keep);
        quote!(((#swapped & #m) | (#v & #keep)))
    })
}

/// The value of field `f` from `v`, the integer holding its unit at `shift` (its bytes already
/// in the order of a value).
pub fn extract(f: &LField<'_>, v: &TokenStream, shift: u32) -> TokenStream {
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

/// Reads every field into `__v: &mut Self`: each unit loaded on its own (one little-endian
/// load, its bytes reversed if big-endian), its fields shifted and masked out and stored at
/// once; byte arrays copied; all in offset order.
///
/// Reads do not group units into words. The destination is a Rust struct whose field order
/// rustc chooses, so each field is its own store whatever the loads are; taking fields out of
/// a wide word costs shifts and masks, while loads are cheap (two a cycle on current x86 and
/// AArch64 cores) and LLVM merges adjacent loads and stores itself where the struct's order
/// allows (it vectorises the big header's runs of 16-bit fields). Measured on the big
/// header: 5.65 ns per record with 8-byte words, 4.30 ns unit by unit. Storing each field
/// right after its load matters too: a value built at the end keeps every load live until
/// then, and they spill.
fn read_body(r: &Record<'_>) -> TokenStream {
    let x = Record::x();
    let n = lit(r.size);
    // (offset, statements) for each unit and each array.
    let mut steps: Vec<(usize, TokenStream)> = Vec::new();
    for (k, unit) in r.units.iter().enumerate().filter(|(_, u)| !u.bytes) {
        let var = quote::format_ident!("__u{}", k);
        let load = load_unit(r, unit);
        let assigns = unit.fields.iter().map(|&fi| {
            let f = &r.fields[fi];
            let m = f.ident;
            let e = extract(f, &quote!(#var), 0);
            quote!(__v.#m = #e;)
        });
        steps.push((unit.at, quote!(let #var = #load; #(#assigns)*)));
    }
    for f in &r.fields {
        if let Ty::Bytes(len) = f.kind {
            let m = f.ident;
            let at = lit(f.at);
            let l = lit(len);
            steps.push((f.at, quote!(__v.#m = *#x::word::<#at, #l, #n>(__b);)));
        }
    }
    steps.sort_by_key(|(at, _)| *at);
    let steps = steps.into_iter().map(|(_, s)| s);
    quote!(#(#steps)*)
}

/// The value of integer unit `unit` (not a byte array), loaded from `__b` in its byte order:
/// what reads and view getters take fields out of.
pub fn load_unit(r: &Record<'_>, unit: &super::Unit) -> TokenStream {
    let x = Record::x();
    let n = lit(r.size);
    let t = uint(unit.width);
    let at = lit(unit.at);
    let w = lit(unit.width);
    let from = match unit.order {
        Order::Big => quote!(from_be_bytes),
        Order::Little => quote!(from_le_bytes),
    };
    quote!(#t::#from(*#x::word::<#at, #w, #n>(__b)))
}

/// A value of the struct with every field zero: `read_from` reads into it (the compiler drops
/// these stores, which the read overwrites).
fn zeros(r: &Record<'_>) -> TokenStream {
    let ident = r.ident;
    let fields = r.fields.iter().map(|f| {
        let m = f.ident;
        let z = match f.kind {
            Ty::Bool => quote!(false),
            Ty::Float(_) => quote!(0.0),
            Ty::Bytes(len) => {
                let l = lit(len);
                quote!([0u8; #l])
            }
            Ty::Uint(_) | Ty::Int(_) => quote!(0),
        };
        quote!(#m: #z)
    });
    quote!(#ident { #(#fields),* })
}

/// Writes every field: each word put together from its fields, big-endian units reversed in
/// their lanes, stored once; then arrays, and zeros in bytes nothing covers.
fn write_body(r: &Record<'_>, words: &[Word]) -> TokenStream {
    let x = Record::x();
    let n = lit(r.size);
    let mut stores = Vec::new();
    let mut covered = vec![false; r.size];
    for w in words {
        let t = uint(w.width);
        let at = lit(w.at);
        let wl = lit(w.width);
        let mut terms = Vec::new();
        for &u in &w.units {
            let unit = &r.units[u];
            for &fi in &unit.fields {
                let f = &r.fields[fi];
                let m = f.ident;
                terms.push(deposit(f, &quote!(__v.#m), &t, w.shift(unit.at)));
            }
        }
        covered[w.at..w.at + w.width].fill(true);
        let value = quote!(((0 as #t) #(| #terms)*));
        let value = lane_swap(r, w, &quote!(__r), Order::Big)
            .map_or(value.clone(), |e| quote!({ let __r: #t = #value; #e }));
        stores.push(quote! {
            *#x::word_mut::<#at, #wl, #n>(__b) = #value.to_le_bytes();
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
    quote!(#(#stores)*)
}

/// The in-place swap: for each word holding a unit whose byte order is not the host's, one
/// load, the lanes reversed, one store.
fn swap_body(r: &Record<'_>, words: &[Word]) -> TokenStream {
    let x = Record::x();
    let n = lit(r.size);
    let host = |which: Order| {
        let out = words.iter().filter_map(|w| {
            let e = lane_swap(r, w, &quote!(__r), which)?;
            let t = uint(w.width);
            let at = lit(w.at);
            let wl = lit(w.width);
            Some(quote! {{
                let __p = #x::word_mut::<#at, #wl, #n>(__b);
                let __r = #t::from_le_bytes(*__p);
                *__p = #e.to_le_bytes();
            }})
        });
        quote!(#(#out)*)
    };
    let on_little = host(Order::Big);
    let on_big = host(Order::Little);
    quote! {
        if ::core::cfg!(target_endian = "little") {
            #on_little
        } else {
            #on_big
        }
    }
}

/// `fn #name(#args) -> #ret` with the body for 8-byte words where unaligned access is cheap
/// and for words within the guaranteed alignment elsewhere; both are compiled everywhere, and
/// `#name_aligned` is kept for the tests that compare the two. One body if they are the same.
fn variants(
    name: &syn::Ident,
    args: TokenStream,
    call: TokenStream,
    ret: TokenStream,
    fast: TokenStream,
    aligned: Option<TokenStream>,
) -> TokenStream {
    let Some(aligned) = aligned else {
        return quote! {
            #[inline]
            fn #name(#args) #ret { #fast }
        };
    };
    let fast_name = quote::format_ident!("{}_fast", name);
    let aligned_name = quote::format_ident!("{}_aligned", name);
    let cond = fast_unaligned();
    quote! {
        #[inline(always)]
        fn #fast_name(#args) #ret { #fast }
        #[inline(always)]
        fn #aligned_name(#args) #ret { #aligned }
        #[inline]
        fn #name(#args) #ret {
            if #cond { #fast_name(#call) } else { #aligned_name(#call) }
        }
    }
}

pub fn expand(r: &Record<'_>) -> TokenStream {
    let marshal_error = crate::root::error();
    let x = Record::x();
    let ident = r.ident;
    let name = ident.to_string();
    let n = lit(r.size);
    let align = lit(r.align);
    let (view, view_mut) = r.view_idents();

    let fast = words::group(&r.units, r.size, 8);
    let aligned = words::group(&r.units, r.size, r.align.min(8));
    let differ = fast.len() != aligned.len()
        || fast
            .iter()
            .zip(&aligned)
            .any(|(a, b)| (a.at, a.width) != (b.at, b.width));
    let alt = |f: &dyn Fn(&[Word]) -> TokenStream| differ.then(|| f(&aligned));

    let (read, read_into, write, swap) = if r.in_place {
        // The struct's memory is the layout with some units reversed: copy, swap, reinterpret.
        let swap = variants(
            &quote::format_ident!("__swap"),
            quote!(__b: &mut [u8; #n]),
            quote!(__b),
            TokenStream::new(),
            swap_body(r, &fast),
            alt(&|w| swap_body(r, w)),
        );
        let read = |sw: TokenStream| {
            quote! {
                let mut __t = *__b;
                #sw(&mut __t);
                #x::from_plain_bytes::<#ident, #n>(__t)
            }
        };
        let write = |sw: TokenStream| {
            quote! {
                let mut __t = #x::to_plain_bytes::<#ident, #n>(__v);
                #sw(&mut __t);
                *__b = __t;
            }
        };
        // The fast body calls the dispatching `__swap` (the fast swap where it is used); the
        // aligned body, kept for the tests, the aligned swap.
        (
            variants(
                &quote::format_ident!("__read"),
                quote!(__b: &[u8; #n]),
                quote!(__b),
                quote!(-> #ident),
                read(quote!(__swap)),
                differ.then(|| read(quote!(__swap_aligned))),
            ),
            // The struct is a copy of the swapped bytes: assigning it is a plain copy.
            quote! {
                #[inline]
                fn __read_into(__v: &mut #ident, __b: &[u8; #n]) {
                    *__v = __read(__b);
                }
            },
            variants(
                &quote::format_ident!("__write"),
                quote!(__v: &#ident, __b: &mut [u8; #n]),
                quote!(__v, __b),
                TokenStream::new(),
                write(quote!(__swap)),
                differ.then(|| write(quote!(__swap_aligned))),
            ),
            swap,
        )
    } else {
        let body = read_body(r);
        let zeros = zeros(r);
        (
            quote! {
                #[inline]
                fn __read(__b: &[u8; #n]) -> #ident {
                    let mut __t = #zeros;
                    __read_into(&mut __t, __b);
                    __t
                }
            },
            quote! {
                #[inline]
                fn __read_into(__v: &mut #ident, __b: &[u8; #n]) { #body }
            },
            variants(
                &quote::format_ident!("__write"),
                quote!(__v: &#ident, __b: &mut [u8; #n]),
                quote!(__v, __b),
                TokenStream::new(),
                write_body(r, &fast),
                alt(&|w| write_body(r, w)),
            ),
            TokenStream::new(),
        )
    };

    // Bit-field values wider than their bits are refused before anything is written: one
    // branch for all of them, the error built out of line.
    let wide: Vec<(&LField<'_>, TokenStream)> = r
        .fields
        .iter()
        .filter_map(|f| {
            let (lo, hi) = f.bits?;
            let Ty::Uint(w) = f.kind else { return None };
            (hi - lo < 8 * w as u32).then(|| (f, mask(hi - lo)))
        })
        .collect();
    let check = if wide.is_empty() {
        quote!(::core::result::Result::Ok(()))
    } else {
        let tests = wide.iter().map(|(f, max)| {
            let m = f.ident;
            quote!((__v.#m > #max))
        });
        let errors = wide.iter().map(|(f, max)| {
            let m = f.ident;
            let fname = &f.name;
            let (lo, hi) = f.bits.unwrap_or_default();
            let target = format!("{} bits", hi - lo);
            let at = lit(f.at);
            quote! {
                if __v.#m > #max {
                    return #x::too_wide(__v.#m as u64, #target, #at).in_field(#fname);
                }
            }
        });
        quote! {
            #[cold]
            #[inline(never)]
            fn __too_wide(__v: &#ident) -> #marshal_error {
                #(#errors)*
                #x::too_wide(0, "its bits", 0)
            }
            if #(#tests)|* {
                return ::core::result::Result::Err(__too_wide(__v));
            }
            ::core::result::Result::Ok(())
        }
    };

    // Reads differ between the groupings only through the in-place swap.
    let read_aligned = (differ && r.in_place).then(|| {
        quote! {
            fn __read_aligned(bytes: &[u8]) -> ::core::result::Result<Self, #marshal_error> {
                ::core::result::Result::Ok(__read_aligned(#x::prefix::<#n>(bytes, #name)?))
            }
        }
    });
    let aligned_methods = if differ {
        quote! {
            #read_aligned

            fn __write_aligned(&self, bytes: &mut [u8]) -> ::core::result::Result<(), #marshal_error> {
                __check(self)?;
                __write_aligned(self, #x::prefix_mut::<#n>(bytes, #name)?);
                ::core::result::Result::Ok(())
            }
        }
    } else {
        TokenStream::new()
    };

    let in_place = if r.in_place {
        in_place(r)
    } else {
        TokenStream::new()
    };

    quote! {
        #read
        #read_into
        #write
        #swap

        #[inline]
        fn __check(__v: &#ident) -> ::core::result::Result<(), #marshal_error> {
            #check
        }

        impl #x::Layout for #ident {
            const SIZE: usize = #n;
            const ALIGN: usize = #align;
            type View<'__a> = #view<'__a>;
            type ViewMut<'__a> = #view_mut<'__a>;

            #[inline]
            fn read_from(bytes: &[u8]) -> ::core::result::Result<Self, #marshal_error> {
                ::core::result::Result::Ok(__read(#x::prefix::<#n>(bytes, #name)?))
            }

            #[inline]
            fn read_into(&mut self, bytes: &[u8]) -> ::core::result::Result<(), #marshal_error> {
                __read_into(self, #x::prefix::<#n>(bytes, #name)?);
                ::core::result::Result::Ok(())
            }

            #[inline]
            fn write_to(&self, bytes: &mut [u8]) -> ::core::result::Result<(), #marshal_error> {
                __check(self)?;
                __write(self, #x::prefix_mut::<#n>(bytes, #name)?);
                ::core::result::Result::Ok(())
            }

            #[inline]
            fn view(bytes: &[u8]) -> ::core::result::Result<#view<'_>, #marshal_error> {
                ::core::result::Result::Ok(#view { bytes: #x::prefix::<#n>(bytes, #name)? })
            }

            #[inline]
            fn view_mut(bytes: &mut [u8]) -> ::core::result::Result<#view_mut<'_>, #marshal_error> {
                ::core::result::Result::Ok(#view_mut { bytes: #x::prefix_mut::<#n>(bytes, #name)? })
            }

            #aligned_methods
        }

        impl #ident {
            /// Reads the record from the first bytes of `bytes` (its annotated layout).
            /// Fails if `bytes` is shorter than the layout.
            #[inline]
            pub fn read_from(bytes: &[u8]) -> ::core::result::Result<Self, #marshal_error> {
                <Self as #x::Layout>::read_from(bytes)
            }

            /// Reads the record from the first bytes of `bytes` into `self`, assigning each
            /// field as soon as its unit is loaded: the fastest way to convert into memory
            /// that already holds a record (an element of a buffer, a reused struct). Fails,
            /// changing nothing, if `bytes` is shorter than the layout.
            #[inline]
            pub fn read_into(&mut self, bytes: &[u8]) -> ::core::result::Result<(), #marshal_error> {
                <Self as #x::Layout>::read_into(self, bytes)
            }

            /// Writes the record into the first bytes of `bytes` in its annotated layout, with
            /// zeros in bytes no field covers. Fails, writing nothing, if `bytes` is shorter
            /// than the layout or a bit-field's value does not fit its bits.
            #[inline]
            pub fn write_to(&self, bytes: &mut [u8]) -> ::core::result::Result<(), #marshal_error> {
                <Self as #x::Layout>::write_to(self, bytes)
            }

            /// A view of the record in `bytes`, reading each field in place. Fails if
            /// `bytes` is shorter than the layout.
            #[inline]
            pub fn view(bytes: &[u8]) -> ::core::result::Result<#view<'_>, #marshal_error> {
                <Self as #x::Layout>::view(bytes)
            }

            /// A view of the record in `bytes`, reading and writing each field in place.
            /// Fails if `bytes` is shorter than the layout.
            #[inline]
            pub fn view_mut(bytes: &mut [u8]) -> ::core::result::Result<#view_mut<'_>, #marshal_error> {
                <Self as #x::Layout>::view_mut(bytes)
            }
        }

        #in_place
    }
}

/// For `in_place` records: layout assertions, `PlainBytes`, and the swap both ways.
fn in_place(r: &Record<'_>) -> TokenStream {
    let marshal_error = crate::root::error();
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
    quote! {
        #(#offsets)*
        const _: () = ::core::assert!(::core::mem::size_of::<#ident>() == #n, #size_msg);

        const _: fn() = || {
            fn __assert_plain<T: #x::PlainBytes>() {}
            #(#plain)*
        };

        unsafe impl #x::PlainBytes for #ident {}

        impl #x::InPlace for #ident {
            #[inline]
            fn from_wire_in_place(bytes: &mut [u8]) -> ::core::result::Result<&mut Self, #marshal_error> {
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
            pub fn from_wire_in_place(bytes: &mut [u8]) -> ::core::result::Result<&mut Self, #marshal_error> {
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
