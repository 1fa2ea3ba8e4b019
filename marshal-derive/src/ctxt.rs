//! Error collection (as serde_derive's `Ctxt`): every problem is recorded with its span and all
//! are reported together, so one compile shows them all.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanning `obj`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.syn_error(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Records a parse error.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(err);
    }

    /// Consumes the context, returning the errors as one compile-error token stream.
    pub fn check(self) -> Result<(), TokenStream> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        let mut iter = errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first.to_compile_error())
            }
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}
