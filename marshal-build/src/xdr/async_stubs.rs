//! The async stubs of a program version, when asked for
//! ([`Config::async_client`](super::Config::async_client),
//! [`Config::async_server`](super::Config::async_server)): an `AsyncClient` over
//! `marshal::rpc::AsyncClient`, and an `AsyncServer` trait whose implementations `service`
//! turns into a `tower` service for `marshal::rpc::AsyncServer::add_service`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// One procedure as the stubs declare it, its types written as the sync stubs write them.
pub(super) struct Stub {
    /// Its name in the `.x` file (`CALCPROC_ADD`), for doc comments.
    pub name: String,
    /// The constant of its number (the same name).
    pub number: Ident,
    /// Its number.
    pub num: Literal,
    /// Its method (`calcproc_add`).
    pub method: Ident,
    /// What the client takes a reference to, per argument (`str` and `[u8]` for a bare
    /// string or opaque argument), lifetimes `'_`.
    pub client_args: Vec<TokenStream>,
    /// The arguments' decoded types, lifetimes `'_`.
    pub decoded_args: Vec<TokenStream>,
    /// The arguments' types in the trait, lifetimes `'a`.
    pub server_args: Vec<TokenStream>,
    /// The result's type for the client (`()` for `void`), lifetimes `'_`.
    pub result: TokenStream,
    /// The result's type in the trait, lifetimes `'a` (`None` for `void`).
    pub server_result: Option<TokenStream>,
    /// Whether the result borrows from the reply (borrowed mode).
    pub result_borrows: bool,
    /// Whether the trait's method takes the lifetime `'a` (a type of it borrows).
    pub borrows: bool,
}

impl Stub {
    /// `arg0`, `arg1`, … for several arguments; `args` for one.
    fn arg_names(&self) -> Vec<Ident> {
        match self.client_args.len() {
            1 => vec![format_ident!("args")],
            n => (0..n).map(|i| format_ident!("arg{}", i)).collect(),
        }
    }
}

/// `AsyncClient`: one `async fn` per procedure.
pub(super) fn client(stubs: &[Stub], rt: &TokenStream) -> TokenStream {
    let methods = stubs.iter().map(|s| {
        let (m, cid, ret) = (&s.method, &s.number, &s.result);
        let names = s.arg_names();
        let params: Vec<TokenStream> = names
            .iter()
            .zip(&s.client_args)
            .map(|(n, t)| quote!(#n: &#t))
            .collect();
        let (args_ty, args) = match (names.as_slice(), s.client_args.as_slice()) {
            ([], _) => (quote!(()), quote!(&())),
            ([n], [t]) => (quote!(#t), quote!(#n)),
            (many, tys) => (quote!((#(&#tys,)*)), quote!(&(#(#many,)*))),
        };
        if s.result_borrows {
            let doc = format!(" Calls `{}` (procedure {}).", s.name, s.num);
            quote! {
                #[doc = #doc]
                #[doc = ""]
                #[doc = " Its result borrows from the reply, which this call owns and so cannot"]
                #[doc = " return: `with` gets the result, and the call returns what `with` makes"]
                #[doc = " of it."]
                pub async fn #m<T>(&self, #(#params,)* with: impl ::core::ops::FnOnce(#ret) -> T) -> ::core::result::Result<T, #rt::rpc::RpcError> {
                    let reply = self.inner.call_reply::<#args_ty>(#cid, #args).await?;
                    // A local, not the tail expression: a result with a `Drop` (an
                    // optional-data list) is dropped before the reply it borrows.
                    let made = with(reply.results::<#ret>()?);
                    ::core::result::Result::Ok(made)
                }
            }
        } else {
            let doc = format!(" Calls `{}` (procedure {}).", s.name, s.num);
            quote! {
                #[doc = #doc]
                pub async fn #m(&self, #(#params),*) -> ::core::result::Result<#ret, #rt::rpc::RpcError> {
                    self.inner.call::<#args_ty, #ret>(#cid, #args).await
                }
            }
        }
    });
    quote! {
        /// A typed async client: one `async fn` per procedure. Cheap to clone: clones share
        /// the connection, and calls of one are in flight together.
        #[derive(Debug, Clone)]
        pub struct AsyncClient {
            inner: #rt::rpc::AsyncClient,
        }

        impl AsyncClient {
            /// A client over `inner` (connected to this program and version).
            pub fn new(inner: #rt::rpc::AsyncClient) -> AsyncClient {
                AsyncClient { inner }
            }
            /// The RPC client underneath.
            pub fn get_ref(&self) -> &#rt::rpc::AsyncClient {
                &self.inner
            }
            /// The RPC client underneath, given back.
            pub fn into_inner(self) -> #rt::rpc::AsyncClient {
                self.inner
            }
            #(#methods)*
        }
    }
}

/// The `AsyncServer` trait, `service` and `AsyncDispatch`; `name` is `service`'s path in
/// the file (`prog::vers::service`), for `Debug`.
pub(super) fn server(stubs: &[Stub], rt: &TokenStream, name: &str) -> TokenStream {
    let future = |out: TokenStream| quote!(impl ::core::future::Future<Output = #out> + ::core::marker::Send);
    let methods = stubs.iter().map(|s| {
        let m = &s.method;
        let doc = format!(" Serves `{}` (procedure {}).", s.name, s.num);
        let names = s.arg_names();
        let tys = &s.server_args;
        let out = future(s.server_result.clone().unwrap_or_else(|| quote!(())));
        if s.borrows {
            quote!(#[doc = #doc] fn #m<'a>(&'a self, #(#names: #tys),*) -> #out;)
        } else {
            quote!(#[doc = #doc] fn #m(&self, #(#names: #tys),*) -> #out;)
        }
    });
    let arms = stubs.iter().map(|s| {
        let (m, cid) = (&s.method, &s.number);
        let names = s.arg_names();
        let decode = match (names.as_slice(), s.decoded_args.as_slice()) {
            ([], _) => quote!(req.args::<()>()?;),
            ([n], [t]) => quote!(let #n: #t = req.args()?;),
            (many, tys) => quote!(let (#(#many,)*): (#(#tys,)*) = req.args()?;),
        };
        let answer = if s.server_result.is_some() {
            quote!(::core::result::Result::Ok(#rt::rpc::Response::success(&imp.#m(#(#names),*).await)?))
        } else {
            quote! {
                imp.#m(#(#names),*).await;
                ::core::result::Result::Ok(#rt::rpc::Response::success(&())?)
            }
        };
        quote!(#cid => {
            #decode
            #answer
        })
    });
    let boxed = quote! {
        ::core::pin::Pin<::std::boxed::Box<dyn ::core::future::Future<Output = ::core::result::Result<#rt::rpc::Response, #rt::rpc::BoxError>> + ::core::marker::Send>>
    };
    quote! {
        /// What an async server implements: one method per procedure, which an
        /// implementation may write as an `async fn` (its future must be `Send`).
        pub trait AsyncServer: Send + Sync + 'static {
            #(#methods)*
        }

        /// The service for `marshal::rpc::AsyncServer::add_service(PROGRAM, VERSION,
        /// service(imp))`.
        pub fn service<S: AsyncServer>(imp: S) -> AsyncDispatch<S> {
            AsyncDispatch(::std::sync::Arc::new(imp))
        }

        /// A `tower` service of requests that calls an `AsyncServer`'s methods (`Clone`: an
        /// `Arc` of the implementation). Arguments that do not decode are answered
        /// `GARBAGE_ARGS`, an unknown procedure `PROC_UNAVAIL`.
        pub struct AsyncDispatch<S>(::std::sync::Arc<S>);

        impl<S> ::core::clone::Clone for AsyncDispatch<S> {
            fn clone(&self) -> Self {
                AsyncDispatch(::std::sync::Arc::clone(&self.0))
            }
        }

        impl<S> ::core::fmt::Debug for AsyncDispatch<S> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#name)
            }
        }

        impl<S: AsyncServer> #rt::rpc::Service<#rt::rpc::Request> for AsyncDispatch<S> {
            type Response = #rt::rpc::Response;
            type Error = #rt::rpc::BoxError;
            type Future = #boxed;

            fn poll_ready(
                &mut self,
                _cx: &mut ::core::task::Context<'_>,
            ) -> ::core::task::Poll<::core::result::Result<(), #rt::rpc::BoxError>> {
                ::core::task::Poll::Ready(::core::result::Result::Ok(()))
            }

            fn call(&mut self, req: #rt::rpc::Request) -> Self::Future {
                let imp = ::std::sync::Arc::clone(&self.0);
                // The arguments are decoded inside the future, which owns the request they
                // may borrow from.
                ::std::boxed::Box::pin(async move {
                    match req.procedure() {
                        #(#arms)*
                        _ => ::core::result::Result::Ok(#rt::rpc::Response::proc_unavail()),
                    }
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::GenOptions;

    const FILE: &str = "
        struct pair { int a; int b; };
        program P {
            version V {
                void PING(void) = 0;
                int ADD(pair) = 1;
                string NAME(string, int) = 2;
            } = 1;
        } = 0x20000001;";

    fn generate(opts: &GenOptions) -> String {
        let defs = super::super::parse::parse(&crate::lexer::lex(FILE).unwrap()).unwrap();
        super::super::generate::generate(&defs, "t.x", opts).unwrap()
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
        assert!(!client.contains("AsyncServer"), "{client}");
        let server = generate(&GenOptions {
            async_server: true,
            ..GenOptions::default()
        });
        assert!(server.contains("pub trait AsyncServer"), "{server}");
        assert!(!server.contains("AsyncClient"), "{server}");
        // The sync stubs are the same with the async ones beside them.
        let sync_part = |s: &str| s[..s.find("impl<S: Server>").unwrap()].to_string();
        assert_eq!(sync_part(&client), sync_part(&plain));
        assert_eq!(sync_part(&server), sync_part(&plain));
    }

    #[test]
    fn borrowed_results_go_to_a_closure() {
        let rust = generate(&GenOptions {
            borrowed: true,
            async_client: true,
            async_server: true,
            ..GenOptions::default()
        });
        // NAME's result borrows: the closure form, through the whole reply.
        assert!(
            rust.contains("with: impl ::core::ops::FnOnce(::std::borrow::Cow<'_, str>) -> T"),
            "{rust}"
        );
        assert!(rust.contains(".call_reply::<(&str, &i32)>(NAME, &(arg0, arg1))"));
        // ADD's does not: a plain async fn.
        assert!(
            rust.contains(".call::<super::super::Pair, i32>(ADD, args)"),
            "{rust}"
        );
        // The trait method that borrows takes `'a` for itself and its types.
        assert!(
            rust.contains("fn name<'a>(\n                &'a self,\n                arg0: ::std::borrow::Cow<'a, str>,"),
            "{rust}"
        );
    }

    #[test]
    fn everything_is_reached_through_the_marshal_path() {
        let rust = generate(&GenOptions {
            async_client: true,
            async_server: true,
            marshal_path: Some("crate::m".into()),
            ..GenOptions::default()
        });
        assert!(!rust.contains("::marshal"), "{rust}");
        assert!(
            !rust.contains("tokio") && !rust.contains("tower::"),
            "{rust}"
        );
        for item in [
            "crate::m::rpc::AsyncClient",
            "crate::m::rpc::Service<crate::m::rpc::Request>",
            "crate::m::rpc::Response::proc_unavail()",
            "crate::m::rpc::BoxError",
        ] {
            assert!(rust.contains(item), "no {item} in {rust}");
        }
    }
}
