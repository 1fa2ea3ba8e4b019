//! `#[derive(Marshal)]`: use it through the `marshal` crate, which documents it.
//!
//! The derive parses the type and its `#[marshal(...)]` attributes once into a typed model
//! (`ast`), collecting every error with its span (`ctxt`), then generates code for each wire
//! format whose cargo feature is on. Output is wrapped in `const _: () = { ... };` and reaches the
//! runtime only through `::marshal::__private` (or `path::__private` under
//! `#[marshal(crate = "path")]`).

#![cfg_attr(docsrs, feature(doc_cfg))]

mod ast;
mod attr;
mod bound;
#[cfg(feature = "iiop")]
mod cdr;
#[allow(dead_code)] // used by whichever formats are enabled
mod common;
mod ctxt;
mod layout;
mod list_drop;
#[cfg(feature = "ndr")]
mod ndr;
mod root;
#[cfg(feature = "xdr")]
mod xdr;

use proc_macro::TokenStream;
use quote::quote;

/// Derives the encoders and decoders of every enabled wire format. See the `marshal` crate.
#[proc_macro_derive(Marshal, attributes(marshal))]
pub fn derive_marshal(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand(&input).unwrap_or_else(|e| e).into()
}

fn expand(input: &syn::DeriveInput) -> Result<proc_macro2::TokenStream, proc_macro2::TokenStream> {
    let cx = ctxt::Ctxt::new();
    let cont = ast::Container::from_ast(&cx, input);
    let layout = cont
        .as_ref()
        .and_then(|c| layout::Record::from_container(&cx, c, input));
    cx.check()?;
    let cont = cont.expect("no errors means a model");
    let _root = root::Scope::enter(cont.attrs.crate_path.as_ref().map(|p| &p.value));
    let mut out = proc_macro2::TokenStream::new();
    let mut outside = proc_macro2::TokenStream::new();
    if let Some(l) = &layout {
        outside.extend(l.expand_outside());
        out.extend(l.expand_inside());
    }
    // `#[marshal(formats(...))]` narrows the formats to some of those enabled.
    #[cfg(feature = "xdr")]
    if cont.attrs.wants("xdr") {
        out.extend(xdr::expand(&cont));
    }
    #[cfg(feature = "iiop")]
    if cont.attrs.wants("cdr") {
        out.extend(cdr::expand(&cont));
    }
    #[cfg(feature = "ndr")]
    if cont.attrs.wants("ndr") {
        out.extend(ndr::expand(&cont));
    }
    out.extend(list_drop::expand(&cont));
    Ok(quote! {
        #outside

        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #out
        };
    })
}
