//! The [`Receiver`]: incoming formats by id, conversion plans by (incoming format, local
//! type), and the scratch buffer conversions write into.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::message::{parse_message, HEADER_LEN};
use crate::native::{as_bytes_mut, body_into, from_body, view, NativeRecord};
use crate::plan::Plan;
use crate::resolver::Resolver;
use crate::{interp, DynRecord, Error, ErrorKind, Format, FormatId, Record};

/// Receives NDR records into local types ("receiver makes right").
///
/// It keeps the formats it has been given ([`register`](Receiver::register)) or has resolved,
/// and for each (incoming format, local type) pair a [`Plan`] built on first use. A record in
/// the local format is copied (or viewed in place); any other is converted by the plan.
#[derive(Default)]
pub struct Receiver {
    formats: HashMap<FormatId, Arc<Format>, IdHash>,
    plans: HashMap<(FormatId, usize), Arc<Plan>, IdHash>,
    /// The plan used last, checked before the map: a stream of one kind of record skips the
    /// hashing.
    last: Option<((FormatId, usize), Arc<Plan>)>,
    scratch: Vec<u8>,
    resolver: Option<Box<dyn Resolver + Send>>,
}

impl core::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Receiver")
            .field("formats", &self.formats.len())
            .field("plans", &self.plans.len())
            .field("resolver", &self.resolver.is_some())
            .finish()
    }
}

impl Receiver {
    /// A receiver that knows no incoming format yet.
    pub fn new() -> Receiver {
        Receiver::default()
    }

    /// A receiver that asks `resolver` for formats it does not know.
    pub fn with_resolver(resolver: impl Resolver + Send + 'static) -> Receiver {
        Receiver {
            resolver: Some(Box::new(resolver)),
            ..Receiver::default()
        }
    }

    /// Makes `format` known, so messages naming its id can be decoded.
    pub fn register(&mut self, format: Format) -> FormatId {
        let id = format.id();
        self.formats.entry(id).or_insert_with(|| Arc::new(format));
        id
    }

    /// The registered (or resolved) format with this id.
    pub fn format(&self, id: FormatId) -> Option<&Format> {
        self.formats.get(&id).map(|f| &**f)
    }

    /// The format with this id, asking the resolver when it is not known.
    pub fn lookup(&mut self, id: FormatId) -> Result<Arc<Format>, Error> {
        if let Some(f) = self.formats.get(&id) {
            return Ok(f.clone());
        }
        let resolved = match &mut self.resolver {
            Some(r) => r.resolve(id)?,
            None => None,
        };
        match resolved {
            Some(f) if f.id() == id => {
                let f = Arc::new(f);
                self.formats.insert(id, f.clone());
                Ok(f)
            }
            Some(f) => Err(Error::without_offset(ErrorKind::InvalidFormat(format!(
                "the resolver answered id {id} with a format whose id is {}",
                f.id()
            )))),
            None => Err(Error::without_offset(ErrorKind::UnknownFormat(format!(
                "{id}: register the sender's format, or give the receiver a resolver"
            )))),
        }
    }

    /// Converts one record body of `format` into a `T`.
    pub fn convert<T: Record>(&mut self, format: &Format, record: &[u8]) -> Result<T, Error> {
        let plan = self.plan_for(format, T::RECORD)?;
        convert_with(&plan, record, &mut self.scratch)
    }

    /// Decodes a message (header and body) into a `T`, converting it from the sender's format,
    /// which must be registered or resolvable. Error offsets count from the message's start.
    pub fn decode<T: Record>(&mut self, message: &[u8]) -> Result<T, Error> {
        let m = parse_message(message)?;
        self.ensure_last(m.id, T::RECORD)?;
        let Some((_, plan)) = &self.last else {
            return Err(no_plan());
        };
        convert_with(plan, m.body, &mut self.scratch).map_err(|e| e.shifted(HEADER_LEN))
    }

    /// Decodes a message (header and body) with no Rust type: a [`DynRecord`] whose fields are
    /// read by name. The sender's format must be registered or resolvable. Error offsets count
    /// from the message's start.
    ///
    /// ```
    /// use wire_ndr::{message_from_body, ByteOrder, Format, IOField, Receiver, Value};
    /// let f = Format::from_fields("tick", ByteOrder::Little, 8,
    ///     &[IOField::new("seq", "unsigned integer", 8, 0)], &[]).unwrap();
    /// let msg = message_from_body(f.id(), &7u64.to_le_bytes()).unwrap();
    /// let mut rx = Receiver::new();
    /// rx.register(f);
    /// let r = rx.decode_dynamic(&msg).unwrap();
    /// assert_eq!(r.get("seq"), Some(&Value::UInt(7)));
    /// assert_eq!(r.to_string(), r#"{"seq":7}"#);
    /// ```
    pub fn decode_dynamic(&mut self, message: &[u8]) -> Result<DynRecord, Error> {
        let m = parse_message(message)?;
        let format = self.lookup(m.id)?;
        DynRecord::decode(&format, m.body).map_err(|e| e.shifted(HEADER_LEN))
    }

    /// Like [`decode`](Receiver::decode), into an existing value: a record that accepts any
    /// bits is copied once, straight into `out`, and a padding-free one is converted straight
    /// into it. On error, `out` holds some valid but unspecified value.
    pub fn decode_into<T: Record>(&mut self, message: &[u8], out: &mut T) -> Result<(), Error> {
        let m = parse_message(message)?;
        self.ensure_last(m.id, T::RECORD)?;
        let Some((_, plan)) = &self.last else {
            return Err(no_plan());
        };
        let r = if plan.is_identical() {
            body_into(m.body, out)
        } else if let (false, Some(bytes)) = (plan.has_variable_parts(), as_bytes_mut(out)) {
            interp::run_fixed(plan, m.body, bytes)
        } else {
            interp::run(plan, m.body, &mut self.scratch)
                .and_then(|()| body_into(&self.scratch, out))
        };
        r.map_err(|e| e.shifted(HEADER_LEN))
    }

    /// A view of the record inside `message`, with no copy: when the sender's format is the
    /// local format of `T`, `T` is made of integers, floats and arrays or records of them, and
    /// the body is aligned for `T` in memory.
    pub fn view<'m, T: Record>(&mut self, message: &'m [u8]) -> Result<&'m T, Error> {
        let m = parse_message(message)?;
        if m.id != T::format().id() {
            return Err(Error::without_offset(ErrorKind::Incompatible(format!(
                "a view needs the local format of `{}`; the message is in {}",
                T::RECORD.name,
                m.id
            ))));
        }
        view::<T>(m.body).ok_or_else(|| {
            Error::without_offset(ErrorKind::Incompatible(format!(
                "`{}` cannot be viewed in place here (it holds pointers or booleans, or the \
                 body is not aligned to {} bytes or too short)",
                T::RECORD.name,
                core::mem::align_of::<T>()
            )))
        })
    }

    /// Makes `self.last` the plan for (`id`, `local`): a stream of one kind of record skips
    /// the map. Callers then borrow `self.last` beside `self.scratch`.
    fn ensure_last(&mut self, id: FormatId, local: &'static NativeRecord) -> Result<(), Error> {
        let key = (id, local as *const NativeRecord as usize);
        if !matches!(&self.last, Some((k, _)) if *k == key) {
            let plan = self.plan_by_id(id, local)?;
            self.last = Some((key, plan));
        }
        Ok(())
    }

    /// The plan from the format with this id to the local record `local`.
    pub fn plan_by_id(
        &mut self,
        id: FormatId,
        local: &'static NativeRecord,
    ) -> Result<Arc<Plan>, Error> {
        let key = (id, local as *const NativeRecord as usize);
        if let Some(p) = self.plans.get(&key) {
            return Ok(p.clone());
        }
        let format = self.lookup(id)?;
        self.plan_for(&format, local)
    }

    /// The plan from `format` to the local record `local`, built on first use.
    pub fn plan_for(
        &mut self,
        format: &Format,
        local: &'static NativeRecord,
    ) -> Result<Arc<Plan>, Error> {
        let key = (format.id(), local as *const NativeRecord as usize);
        if let Some(p) = self.plans.get(&key) {
            return Ok(p.clone());
        }
        let plan = Arc::new(Plan::build(format, local)?);
        self.plans.insert(key, plan.clone());
        Ok(plan)
    }
}

#[cold]
fn no_plan() -> Error {
    Error::without_offset(ErrorKind::Custom("no plan after building one".into()))
}

fn convert_with<T: Record>(plan: &Plan, body: &[u8], scratch: &mut Vec<u8>) -> Result<T, Error> {
    if plan.is_identical() {
        return from_body(body);
    }
    interp::run(plan, body, scratch)?;
    from_body(scratch)
}

/// Format ids are already uniform hashes: the hasher folds the bytes it is given.
type IdHash = BuildHasherDefault<FoldHasher>;

#[derive(Default)]
struct FoldHasher(u64);

impl Hasher for FoldHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.write(&n.to_le_bytes());
    }
}
