//! The path generated code reaches the `marshal` crate by: `::marshal`, or the container's
//! `#[marshal(crate = "path")]` for a crate that renames the dependency.
//!
//! The generators are free functions that each name the runtime (`x()` in `xdr.rs`, …), so the
//! path is set once per derive invocation, here, rather than threaded through every call: a
//! proc macro expands one item at a time on one thread, and [`Scope`] restores the previous
//! value when the expansion ends.

use std::cell::RefCell;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

thread_local! {
    static ROOT: RefCell<Option<TokenStream>> = const { RefCell::new(None) };
}

/// Sets the path for the duration of one expansion.
pub struct Scope {
    previous: Option<TokenStream>,
}

impl Scope {
    /// Generated code names `path` (or `::marshal`) until the scope ends.
    pub fn enter(path: Option<&syn::Path>) -> Self {
        let root = match path {
            Some(p) => p.to_token_stream(),
            None => quote!(::marshal),
        };
        Scope {
            previous: ROOT.with(|r| r.borrow_mut().replace(root)),
        }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        ROOT.with(|r| *r.borrow_mut() = previous);
    }
}

/// The `marshal` crate's path: `::marshal` unless the container says otherwise.
pub fn root() -> TokenStream {
    ROOT.with(|r| r.borrow().clone())
        .unwrap_or_else(|| quote!(::marshal))
}

/// `<root>::__private::<module>`: a wire crate's items for generated code.
pub fn private(module: &str) -> TokenStream {
    let root = root();
    let m = format_ident!("{}", module);
    quote!(#root::__private::#m)
}

/// `<root>::Error`.
pub fn error() -> TokenStream {
    let root = root();
    quote!(#root::Error)
}
