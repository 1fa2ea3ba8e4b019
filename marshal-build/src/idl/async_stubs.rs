//! The async stubs of an interface, when asked for
//! ([`Config::async_client`](super::Config::async_client),
//! [`Config::async_server`](super::Config::async_server)): an `AsyncClient` over
//! `marshal::giop::AsyncClient`, and an `AsyncServant` trait whose implementations `service`
//! turns into a `tower` service for `marshal::giop::AsyncServer::add_service`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The user exceptions an operation raises: its error enum and, per exception, the variant
/// and the repository id.
pub(super) struct Raises {
    pub error: Ident,
    pub exceptions: Vec<(Ident, String)>,
}

/// One operation or attribute accessor as the stubs declare it, its types written as the
/// sync stubs write them.
pub(super) struct Op {
    /// Its name on the wire (`mix`, `_get_counter`).
    pub wire: String,
    /// Its method (`mix`, `counter`, `set_counter`).
    pub method: Ident,
    /// The sync stubs' doc comment of the method.
    pub doc: String,
    /// The `in` and `inout` parameters' names.
    pub params: Vec<Ident>,
    /// What the client takes a reference to, per parameter (`str` and `[u8]` for a `Cow`),
    /// lifetimes `'_`.
    pub client_params: Vec<TokenStream>,
    /// The parameters' decoded types, lifetimes `'_`.
    pub decoded_params: Vec<TokenStream>,
    /// The parameters' types in the trait, lifetimes `'a`.
    pub servant_params: Vec<TokenStream>,
    /// The results' type for the client (the return value, then the `inout` and `out`
    /// parameters), lifetimes `'_`.
    pub result: TokenStream,
    /// Whether the results borrow from the reply (borrowed mode).
    pub result_borrows: bool,
    /// What the trait's method's future gives, lifetimes `'a`: the results, or a `Result` of
    /// them and the error enum.
    pub servant_result: TokenStream,
    /// Whether the trait's method takes the lifetime `'a` (a type of it borrows).
    pub borrows: bool,
    /// The user exceptions it raises, if any.
    pub raises: Option<Raises>,
}

/// `AsyncClient`: one `async fn` per operation and accessor, and `from_reply` for each error
/// enum of the operations that raise.
pub(super) fn client(ops: &[Op]) -> TokenStream {
    let call_error = quote!(::marshal::giop::CallError);
    let mut from_reply = Vec::new();
    let methods = ops.iter().map(|op| {
        let (m, wire, doc, ret) = (&op.method, &op.wire, &op.doc, &op.result);
        let names = &op.params;
        let tys = &op.client_params;
        let args = match names.as_slice() {
            [] => quote!(&()),
            [one] => quote!(#one),
            many => quote!(&(#(#many),*)),
        };
        let err = match &op.raises {
            Some(r) => {
                let e = &r.error;
                quote!(#e)
            }
            None => call_error.clone(),
        };
        // The closure that gets a borrowing result, named apart from the parameters.
        let with = if names.iter().any(|n| n == "with") {
            format_ident!("with_results")
        } else {
            format_ident!("with")
        };
        let (generics, extra, out, take) = if op.result_borrows {
            (
                Some(quote!(<T>)),
                Some(quote!(#with: impl ::core::ops::FnOnce(#ret) -> T)),
                quote!(T),
                quote!(#with(reply.results::<#ret>()?)),
            )
        } else {
            (None, None, ret.clone(), quote!(reply.results::<#ret>()?))
        };
        let borrow_doc = op.result_borrows.then(|| {
            quote! {
                #[doc = ""]
                #[doc = " Its results borrow from the reply, which this call owns and so cannot"]
                #[doc = " return: `with` gets them, and the call returns what `with` makes of"]
                #[doc = " them."]
            }
        });
        let body = match (&op.raises, op.result_borrows) {
            (None, false) => quote!(self.inner.invoke::<_, #ret>(#wire, #args).await),
            (None, true) => quote! {
                let reply = self.inner.invoke_reply(#wire, #args).await?;
                ::core::result::Result::Ok(#take)
            },
            (Some(r), _) => {
                let e = &r.error;
                quote! {
                    let reply = self.inner.invoke_reply(#wire, #args).await?;
                    if let ::core::option::Option::Some(id) = reply.user_exception() {
                        return ::core::result::Result::Err(#e::from_reply(&reply, id));
                    }
                    ::core::result::Result::Ok(#take)
                }
            }
        };
        if let Some(r) = &op.raises {
            let e = &r.error;
            let arms = r.exceptions.iter().map(|(v, rid)| {
                quote!(#rid => reply.exception_members().map(#e::#v),)
            });
            from_reply.push(quote! {
                impl #e {
                    /// The user exception `id` that `reply` carries, decoded.
                    fn from_reply(reply: &::marshal::giop::Reply, id: &str) -> #e {
                        let decoded = match id {
                            #(#arms)*
                            _ => return #e::Call(#call_error::Protocol(
                                ::std::format!("unexpected user exception {id}"))),
                        };
                        decoded.unwrap_or_else(|e| #e::Call(#call_error::Marshal(e)))
                    }
                }
            });
        }
        quote! {
            #[doc = #doc]
            #borrow_doc
            #[allow(clippy::too_many_arguments, clippy::type_complexity)]
            pub async fn #m #generics(&self, #(#names: &#tys,)* #extra) -> ::core::result::Result<#out, #err> {
                #body
            }
        }
    });
    let methods: Vec<TokenStream> = methods.collect();
    quote! {
        #(#from_reply)*

        /// A typed async client of the interface over an async GIOP client: one `async fn`
        /// per operation and attribute accessor. Cheap to clone: clones share the connection,
        /// and calls of one are in flight together.
        #[derive(Debug, Clone)]
        pub struct AsyncClient {
            inner: ::marshal::giop::AsyncClient,
        }

        // Methods are named after the IDL's operations (`from_idl_form`), whatever Rust's
        // conventions for such names.
        #[allow(clippy::wrong_self_convention)]
        impl AsyncClient {
            /// A client calling through `inner` (connected to an object of this interface).
            pub fn new(inner: ::marshal::giop::AsyncClient) -> AsyncClient {
                AsyncClient { inner }
            }
            /// The async GIOP client underneath, for settings (byte order, GIOP version).
            pub fn get_ref(&self) -> &::marshal::giop::AsyncClient {
                &self.inner
            }
            /// The async GIOP client underneath, given back.
            pub fn into_inner(self) -> ::marshal::giop::AsyncClient {
                self.inner
            }
            /// Whether the object is of interface `repository_id` (CORBA's `_is_a`).
            pub async fn is_a(&self, repository_id: &str) -> ::core::result::Result<bool, #call_error> {
                self.inner.invoke::<_, bool>("_is_a", repository_id).await
            }
            #(#methods)*
        }
    }
}

/// The `AsyncServant` trait's methods, one per operation and accessor.
pub(super) fn servant_methods(ops: &[Op]) -> TokenStream {
    let methods = ops.iter().map(|op| {
        let (m, doc, out) = (&op.method, &op.doc, &op.servant_result);
        let names = &op.params;
        let tys = &op.servant_params;
        let future = quote!(impl ::core::future::Future<Output = #out> + ::core::marker::Send);
        let (lt, this) = if op.borrows {
            (Some(quote!(<'a>)), quote!(&'a self))
        } else {
            (None, quote!(&self))
        };
        quote! {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments, clippy::type_complexity)]
            fn #m #lt(#this, #(#names: #tys),*) -> #future;
        }
    });
    quote!(#(#methods)*)
}

/// The arm of the async skeleton's dispatch that serves `op` from `req` through `imp`. The
/// arguments are bound to no name of the IDL's, which could hide `req` or `imp`.
pub(super) fn arm(op: &Op) -> TokenStream {
    let m = &op.method;
    let tys = &op.decoded_params;
    let (decode, args) = match tys.as_slice() {
        [] => (quote!(req.args::<()>()?;), vec![]),
        [one] => (quote!(let args: #one = req.args()?;), vec![quote!(args)]),
        many => {
            let fields = (0..many.len()).map(proc_macro2::Literal::usize_unsuffixed);
            (
                quote!(let args: (#(#many),*) = req.args()?;),
                fields.map(|i| quote!(args.#i)).collect(),
            )
        }
    };
    let call = quote!(imp.#m(#(#args),*).await);
    let answer = match &op.raises {
        None => quote!(::core::result::Result::Ok(req.reply(&#call)?)),
        Some(r) => {
            let e = &r.error;
            let raise = r.exceptions.iter().map(|(v, rid)| {
                quote!(::core::result::Result::Err(#e::#v(e)) => req.user_exception(#rid, &e)?,)
            });
            quote! {
                ::core::result::Result::Ok(match #call {
                    ::core::result::Result::Ok(r) => req.reply(&r)?,
                    #(#raise)*
                    ::core::result::Result::Err(#e::Call(_)) => req.system_exception(
                        &::marshal::giop::SystemException::new(
                            "UNKNOWN", 0, ::marshal::giop::Completion::Maybe))?,
                })
            }
        }
    };
    quote!({ #decode #answer })
}

/// The arms the async skeleton answers itself, as the sync one does: `_is_a`,
/// `_non_existent` (and its old spelling `_not_existent`).
pub(super) fn builtin_arms() -> Vec<(String, TokenStream)> {
    let mut arms = vec![(
        "_is_a".to_string(),
        quote!({
            let id: &str = req.args()?;
            ::core::result::Result::Ok(req.reply(&REPOSITORY_IDS.contains(&id))?)
        }),
    )];
    for ne in ["_non_existent", "_not_existent"] {
        arms.push((
            ne.to_string(),
            quote!({
                req.args::<()>()?;
                ::core::result::Result::Ok(req.reply(&false)?)
            }),
        ));
    }
    arms
}

/// What a bad operation name is answered with in the async skeleton's dispatch.
pub(super) fn bad_operation() -> TokenStream {
    quote!(::core::result::Result::Ok(req.bad_operation()))
}

/// The `AsyncServant` trait, `service` and `AsyncSkeleton`; `dispatch` matches `op` (the
/// operation name) and answers `req`; `name` is the interface's path, for `Debug`.
pub(super) fn server(ops: &[Op], dispatch: TokenStream, name: &str) -> TokenStream {
    let methods = servant_methods(ops);
    let debug = format!("{name} async skeleton");
    // An interface without operations or attributes calls nothing.
    let imp = (!ops.is_empty()).then(|| quote!(let imp = ::std::sync::Arc::clone(&self.0);));
    let rt = quote!(::marshal::giop);
    let boxed = quote! {
        ::core::pin::Pin<::std::boxed::Box<dyn ::core::future::Future<Output = ::core::result::Result<#rt::Response, #rt::BoxError>> + ::core::marker::Send>>
    };
    quote! {
        /// What an async implementation of the interface provides: one method per operation
        /// and attribute accessor (the inherited ones too), which it may write as an
        /// `async fn` (its future must be `Send`).
        #[allow(clippy::wrong_self_convention)]
        pub trait AsyncServant: Send + Sync + 'static {
            #methods
        }

        /// The service for `marshal::giop::AsyncServer::add_service(object_key,
        /// service(imp))`.
        pub fn service<S: AsyncServant>(imp: S) -> AsyncSkeleton<S> {
            AsyncSkeleton(::std::sync::Arc::new(imp))
        }

        /// A `tower` service of GIOP requests that calls an `AsyncServant`'s methods (`Clone`:
        /// an `Arc` of the implementation). It also answers `_is_a` and `_non_existent`;
        /// arguments that do not decode are answered `MARSHAL`, an unknown operation
        /// `BAD_OPERATION`.
        pub struct AsyncSkeleton<S>(::std::sync::Arc<S>);

        impl<S> ::core::clone::Clone for AsyncSkeleton<S> {
            fn clone(&self) -> Self {
                AsyncSkeleton(::std::sync::Arc::clone(&self.0))
            }
        }

        impl<S> ::core::fmt::Debug for AsyncSkeleton<S> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#debug)
            }
        }

        impl<S: AsyncServant> #rt::Service<#rt::Request> for AsyncSkeleton<S> {
            type Response = #rt::Response;
            type Error = #rt::BoxError;
            type Future = #boxed;

            fn poll_ready(
                &mut self,
                _cx: &mut ::core::task::Context<'_>,
            ) -> ::core::task::Poll<::core::result::Result<(), #rt::BoxError>> {
                ::core::task::Poll::Ready(::core::result::Result::Ok(()))
            }

            // The arguments' types, written out where they are decoded.
            #[allow(clippy::type_complexity)]
            fn call(&mut self, req: #rt::Request) -> Self::Future {
                #imp
                // The arguments are decoded inside the future, which owns the request they
                // may borrow from.
                ::std::boxed::Box::pin(async move {
                    let op = req.operation();
                    #dispatch
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::GenOptions;
    use crate::preprocess::{preprocess_str, Options};

    const FILE: &str = "
        exception Oops { long code; string why; };
        interface Calc {
            attribute long x;
            readonly attribute string name;
            long add(in long a, in long b) raises (Oops);
            string echo(in string s, inout sequence<octet> data, out long n);
            oneway void ping();
        };
        interface Empty {};";

    fn generate(opts: &GenOptions) -> String {
        let opts_pp = Options {
            idl: true,
            ..Options::default()
        };
        let tokens = preprocess_str(Path::new("t.idl"), FILE, &opts_pp)
            .unwrap()
            .1;
        let defs = super::super::parse::parse(&tokens).unwrap();
        super::super::generate::generate(&defs, "t.idl", opts).unwrap()
    }

    /// Whether `item` is one of the async stubs' items.
    fn is_async(item: &syn::Item) -> bool {
        let named = |i: &syn::Ident| {
            ["AsyncClient", "AsyncServant", "AsyncSkeleton", "service"].contains(&&*i.to_string())
        };
        match item {
            syn::Item::Struct(s) => named(&s.ident),
            syn::Item::Trait(t) => named(&t.ident),
            syn::Item::Fn(f) => named(&f.sig.ident),
            syn::Item::Impl(i) => {
                let ty = &i.self_ty;
                let ty = quote::quote!(#ty).to_string();
                ty.starts_with("AsyncClient")
                    || ty.starts_with("AsyncSkeleton")
                    || i.items
                        .iter()
                        .any(|it| matches!(it, syn::ImplItem::Fn(f) if f.sig.ident == "from_reply"))
            }
            _ => false,
        }
    }

    /// `rust` without the async stubs' items, in every module.
    fn without_async(rust: &str) -> String {
        fn strip(items: &mut Vec<syn::Item>) {
            items.retain(|i| !is_async(i));
            for i in items {
                if let syn::Item::Mod(m) = i {
                    if let Some((_, inner)) = &mut m.content {
                        strip(inner);
                    }
                }
            }
        }
        let mut file = syn::parse_file(rust).unwrap();
        strip(&mut file.items);
        prettyplease::unparse(&file)
    }

    #[test]
    fn only_what_is_asked_for_is_generated() {
        let plain = generate(&GenOptions::default());
        assert!(
            !plain.contains("Async") && !plain.contains("async"),
            "{plain}"
        );
        let client = generate(&GenOptions {
            async_client: true,
            ..GenOptions::default()
        });
        assert!(client.contains("pub struct AsyncClient"), "{client}");
        assert!(client.contains("fn from_reply("), "{client}");
        assert!(!client.contains("AsyncServant"), "{client}");
        let server = generate(&GenOptions {
            async_server: true,
            ..GenOptions::default()
        });
        assert!(server.contains("pub trait AsyncServant"), "{server}");
        assert!(!server.contains("AsyncClient"), "{server}");
        assert!(!server.contains("from_reply"), "{server}");
        // The sync stubs are the same with the async ones beside them.
        let both = generate(&GenOptions {
            async_client: true,
            async_server: true,
            ..GenOptions::default()
        });
        let plain_again = without_async(&plain);
        for rust in [&client, &server, &both] {
            assert_eq!(without_async(rust), plain_again);
        }
    }

    /// `rust` without whitespace or the trailing commas of broken lines, so that what a
    /// test looks for does not depend on how prettyplease breaks lines.
    fn flat(rust: &str) -> String {
        let mut s: String = rust.split_whitespace().collect();
        for (from, to) in [(",)", ")"), (",>", ">"), (",}", "}"), (",]", "]")] {
            s = s.replace(from, to);
        }
        s
    }

    /// Asserts that `rust` holds `code`, whitespace aside.
    #[track_caller]
    fn assert_has(rust: &str, code: &str) {
        assert!(flat(rust).contains(&flat(code)), "no `{code}` in\n{rust}");
    }

    #[test]
    fn the_client_mirrors_the_sync_clients_signatures() {
        let rust = generate(&GenOptions {
            async_client: true,
            ..GenOptions::default()
        });
        // Raising: the operation's error enum, decoded from the kept reply.
        assert_has(
            &rust,
            "pub async fn add(&self, a: &i32, b: &i32) -> ::core::result::Result<i32, AddError> {
                let reply = self.inner.invoke_reply(\"add\", &(a, b)).await?;
                if let ::core::option::Option::Some(id) = reply.user_exception() {
                    return ::core::result::Result::Err(AddError::from_reply(&reply, id));
                }
                ::core::result::Result::Ok(reply.results::<i32>()?)
            }",
        );
        assert_has(
            &rust,
            "\"IDL:Oops:1.0\" => reply.exception_members().map(AddError::Oops),",
        );
        // inout and out: the result, then them, in order; in and inout by reference.
        assert_has(
            &rust,
            "pub async fn echo(&self, s: &::std::string::String, data: &::std::vec::Vec<u8>)
                -> ::core::result::Result<(::std::string::String, ::std::vec::Vec<u8>, i32),
                    ::marshal::giop::CallError>
            {
                self.inner.invoke::<_, (::std::string::String, ::std::vec::Vec<u8>, i32)>(
                    \"echo\", &(s, data)).await
            }",
        );
        // Attributes; a oneway operation is sent as the sync client sends it.
        assert_has(&rust, "self.inner.invoke::<_, i32>(\"_get_x\", &()).await");
        assert_has(&rust, "self.inner.invoke::<_, ()>(\"_set_x\", value).await");
        assert_has(&rust, "self.inner.invoke::<_, ()>(\"ping\", &()).await");
    }

    #[test]
    fn borrowed_results_go_to_a_closure() {
        let rust = generate(&GenOptions {
            borrowed: true,
            async_client: true,
            async_server: true,
            ..GenOptions::default()
        });
        // `echo`'s results borrow: the closure form, through the kept reply.
        assert_has(
            &rust,
            "pub async fn echo<T>(&self, s: &str, data: &[u8],
                with: impl ::core::ops::FnOnce(
                    (::std::borrow::Cow<'_, str>, ::std::borrow::Cow<'_, [u8]>, i32)) -> T,
            ) -> ::core::result::Result<T, ::marshal::giop::CallError> {
                let reply = self.inner.invoke_reply(\"echo\", &(s, data)).await?;
                ::core::result::Result::Ok(with(reply.results::<
                    (::std::borrow::Cow<'_, str>, ::std::borrow::Cow<'_, [u8]>, i32)>()?))
            }",
        );
        // `add`'s do not: no closure.
        assert_has(
            &rust,
            "pub async fn add(&self, a: &i32, b: &i32) -> ::core::result::Result<i32, AddError>",
        );
        // The trait method that borrows takes `'a` for itself and its types.
        assert_has(
            &rust,
            "fn echo<'a>(&'a self, s: ::std::borrow::Cow<'a, str>,
                data: ::std::borrow::Cow<'a, [u8]>)
            -> impl ::core::future::Future<Output = (::std::borrow::Cow<'a, str>,
                ::std::borrow::Cow<'a, [u8]>, i32)> + ::core::marker::Send;",
        );
        assert_has(
            &rust,
            "fn add(&self, a: i32, b: i32) -> impl ::core::future::Future<
                Output = ::core::result::Result<i32, AddError>> + ::core::marker::Send;",
        );
    }

    #[test]
    fn the_async_skeleton_demultiplexes_as_the_sync_one() {
        let rust = generate(&GenOptions {
            async_server: true,
            ..GenOptions::default()
        });
        let calc = &rust[rust.find("pub mod calc").unwrap()..rust.find("pub mod empty").unwrap()];
        // Every name's words once in each skeleton.
        for name in [
            "add",
            "echo",
            "ping",
            "_get_x",
            "_set_x",
            "_get_name",
            "_is_a",
            "_non_existent",
            "_not_existent",
        ] {
            let c = format!(
                "const {}: [u64; {}] = op_words(b\"{name}\");",
                name.to_uppercase(),
                name.len().div_ceil(8)
            );
            assert_eq!(calc.matches(&c).count(), 2, "{c} in {calc}");
        }
        assert!(
            !calc.contains("_set_name"),
            "a readonly attribute has no setter"
        );
        // Raised exceptions are answered as user exceptions, other errors as UNKNOWN.
        assert_has(
            calc,
            "::core::result::Result::Ok(match imp.add(args.0, args.1).await {
                ::core::result::Result::Ok(r) => req.reply(&r)?,
                ::core::result::Result::Err(AddError::Oops(e)) => {
                    req.user_exception(\"IDL:Oops:1.0\", &e)?
                }
                ::core::result::Result::Err(AddError::Call(_)) => {
                    req.system_exception(&::marshal::giop::SystemException::new(
                        \"UNKNOWN\", 0, ::marshal::giop::Completion::Maybe))?
                }
            })",
        );
        // An interface without operations calls nothing, so clones nothing.
        let empty = &rust[rust.find("pub mod empty").unwrap()..];
        assert!(empty.contains("pub trait AsyncServant"), "{empty}");
        assert!(!empty.contains("let imp"), "{empty}");
    }
}
