//! Runnable examples of marshal; the programs are in `src/bin/`:
//!
//! - `rpc_server` / `rpc_client`: an ONC RPC key/value store over TCP and UDP.
//! - `giop_server`: omniORB's `Flick::Bench` interface, served to any CORBA client.
//! - `ndr_receiver` / `ndr_sender`: NDR records over TCP, converted to the receiver's layout.
//!
//! This library holds what the RPC client and server share: the protocol, [`kv`].

/// The key/value store's ONC RPC protocol, as it would be written in an rpcgen `.x` file:
///
/// ```text
/// struct entry { string key<64>; string value<>; };
/// struct stored { bool replaced; unsigned int count; };
/// union lookup switch (int found) { case 1: string value<>; case 0: void; };
/// typedef entry entries<>;
/// program KV_PROG {
///     version KV_VERS {
///         void    KV_NULL(void)   = 0;
///         stored  KV_PUT(entry)   = 1;
///         lookup  KV_GET(string)  = 2;
///         entries KV_LIST(void)   = 3;
///     } = 1;
/// } = 0x20004b56;
/// ```
pub mod kv {
    use marshal::Marshal;

    /// The program number (in the range 0x20000000–0x3fffffff that RFC 5531 leaves to users).
    pub const PROG: u32 = 0x2000_4b56;
    /// The program version.
    pub const VERS: u32 = 1;

    /// `KV_NULL`: no arguments, no results; answers "I am here".
    pub const NULL: u32 = 0;
    /// `KV_PUT(entry) -> stored`.
    pub const PUT: u32 = 1;
    /// `KV_GET(string) -> lookup`.
    pub const GET: u32 = 2;
    /// `KV_LIST(void) -> entry<>`, sorted by key.
    pub const LIST: u32 = 3;

    /// `struct entry`: one key and its value.
    #[derive(Marshal, Debug, Clone, PartialEq, Eq)]
    pub struct Entry {
        /// At most 64 bytes: a longer key fails to encode, and to decode.
        #[marshal(max_len = 64)]
        pub key: String,
        /// The value.
        pub value: String,
    }

    /// `struct stored`: the result of `KV_PUT`.
    #[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Stored {
        /// Whether the key already had a value.
        pub replaced: bool,
        /// How many keys the store holds now.
        pub count: u32,
    }

    /// `union lookup`: the result of `KV_GET`.
    #[derive(Marshal, Debug, Clone, PartialEq, Eq)]
    pub enum Lookup {
        /// The key's value.
        #[marshal(tag = 1)]
        Found(String),
        /// The key has no value.
        #[marshal(tag = 0)]
        Missing,
    }
}
