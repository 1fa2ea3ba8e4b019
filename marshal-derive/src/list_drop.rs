//! An iterative `Drop` for optional-data lists.
//!
//! A struct whose last field is `Option<Box<Self>>` is a linked list. Rust's drop glue drops it
//! recursively, one stack frame per node, so a list of some tens of thousands of nodes (less than
//! a megabyte of XDR) overflows a thread's stack and aborts the process, whether the caller
//! drops it or a decode fails half-way. The derive therefore gives such a struct a `Drop` that
//! unlinks the nodes in a loop; a type that needs a `Drop` of its own says
//! `#[marshal(manual_drop)]` and writes the same loop in it.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Container, Data};

/// The `Drop` impl of a list struct, or nothing for any other type and for `manual_drop`.
pub fn expand(cont: &Container<'_>) -> TokenStream {
    let Data::Struct(fields) = &cont.data else {
        return TokenStream::new();
    };
    if !fields.tail_link || cont.attrs.manual_drop.is_some() {
        return TokenStream::new();
    }
    let link = &fields.fields[fields.fields.len() - 1].member;
    let ident = cont.ident;
    let (impl_generics, ty_generics, where_clause) = cont.generics.split_for_impl();
    quote! {
        impl #impl_generics ::core::ops::Drop for #ident #ty_generics #where_clause {
            fn drop(&mut self) {
                // Each node is unlinked before it is dropped, so dropping it drops no more
                // than its own fields.
                let mut __next = self.#link.take();
                while let ::core::option::Option::Some(mut __node) = __next {
                    __next = __node.#link.take();
                }
            }
        }
    }
}
