//! Resolving format ids a receiver has not seen (non-connected use): the [`Resolver`] trait and
//! an in-process [`FormatCache`] that several receivers (and a format server) can share.
//!
//! A resolver only ever answers for an id; nothing in a message names where to fetch from, so
//! a peer can never make a receiver connect to an address it chooses. The receiver checks that
//! the answer's id is the id it asked for.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::{Error, Format, FormatId};

/// Finds the format with a given id.
pub trait Resolver {
    /// The format with this id, `None` when there is none, an error when asking failed.
    fn resolve(&mut self, id: FormatId) -> Result<Option<Format>, Error>;
}

/// A shared, in-process cache of formats by id. Clones share the same cache.
///
/// ```
/// use wire_ndr::{ByteOrder, Format, FormatCache, IOField, Resolver};
/// let f = Format::from_fields("p", ByteOrder::Big, 4, &[IOField::new("x", "integer", 4, 0)], &[])?;
/// let mut cache = FormatCache::new();
/// let id = cache.insert(f.clone());
/// assert_eq!(cache.clone().resolve(id)?, Some(f));
/// # Ok::<(), wire_ndr::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct FormatCache {
    inner: Arc<RwLock<HashMap<FormatId, Format>>>,
}

impl FormatCache {
    /// An empty cache.
    pub fn new() -> FormatCache {
        FormatCache::default()
    }
    /// Adds a format (validated, since every `Format` is); returns its id.
    pub fn insert(&self, f: Format) -> FormatId {
        let id = f.id();
        self.inner
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry(id)
            .or_insert(f);
        id
    }
    /// The format with this id.
    pub fn get(&self, id: FormatId) -> Option<Format> {
        self.inner
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .cloned()
    }
    /// How many formats it holds.
    pub fn len(&self) -> usize {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).len()
    }
    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Resolver for FormatCache {
    fn resolve(&mut self, id: FormatId) -> Result<Option<Format>, Error> {
        Ok(self.get(id))
    }
}
