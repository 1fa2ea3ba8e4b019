//! The [`Receiver`]: incoming formats by id, conversion plans by (incoming format, local
//! type), and the scratch buffer conversions write into.

use core::any::TypeId;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::convert::plan::{Key, Plan};
use crate::format::resolver::Resolver;
use crate::message::{parse_message, HEADER_LEN};
use crate::native::{as_bytes_mut, body_into, from_body, view};
use crate::tiering::{Active, Runner};
use crate::{DynRecord, Engine, Error, ErrorKind, Format, FormatId, Record, Stats};

/// Receives NDR records into local types ("receiver makes right").
///
/// It keeps the formats it has been given ([`register`](Receiver::register)) or has resolved,
/// and for each (incoming format, local type) pair a conversion plan built on first use. A
/// record in the local format is copied (or viewed in place); any other is converted by the
/// plan, in the interpreter or, with the `jit` feature, by compiled code, as the [`Engine`]
/// chosen at construction decides.
pub struct Receiver {
    formats: HashMap<FormatId, Arc<Format>, IdHash>,
    plans: HashMap<Key, Arc<Plan>, IdHash>,
    /// The plan used last, checked before the map: a stream of one kind of record skips the
    /// hashing.
    last: Option<Active>,
    scratch: Vec<u8>,
    resolver: Option<Box<dyn Resolver + Send>>,
    /// Runs the plans, as the engine chosen at construction says.
    runner: Runner,
    /// The most one converted record may take (see [`Receiver::set_max_output`]).
    max_output: usize,
}

impl Default for Receiver {
    fn default() -> Receiver {
        Receiver::with_engine(Engine::default())
    }
}

impl core::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Receiver")
            .field("formats", &self.formats.len())
            .field("plans", &self.plans.len())
            .field("resolver", &self.resolver.is_some())
            .field("engine", &self.runner.engine())
            .field("stats", &self.runner.stats())
            .finish()
    }
}

impl Receiver {
    /// A receiver that knows no incoming format yet, with the default [`Engine`].
    pub fn new() -> Receiver {
        Receiver::default()
    }

    /// A receiver whose conversions run on `engine`.
    ///
    /// ```
    /// use wire_ndr::{Engine, Receiver};
    /// let rx = Receiver::with_engine(Engine::Interpreter);
    /// assert_eq!(rx.engine(), Engine::Interpreter);
    /// ```
    pub fn with_engine(engine: Engine) -> Receiver {
        Receiver {
            formats: HashMap::default(),
            plans: HashMap::default(),
            last: None,
            scratch: Vec::new(),
            resolver: None,
            runner: Runner::new(engine),
            max_output: usize::MAX,
        }
    }

    /// Holds every converted record to at most `bytes` of local body (its fixed part and
    /// variable parts together) in memory. Whatever this says, a conversion writes at most
    /// the local fixed part plus 16 times the incoming body plus 4 KiB (the limit dynamic
    /// records obey too); this lowers that for receivers that know their records are small. A
    /// record that would pass the limit fails with [`ErrorKind::TooMuchMemory`] in the field
    /// that would have grown it, before the memory is allocated.
    ///
    /// ```
    /// use wire_ndr::Receiver;
    /// let mut rx = Receiver::new();
    /// assert_eq!(rx.max_output(), usize::MAX);
    /// rx.set_max_output(1 << 20); // no record of this receiver takes more than 1 MiB
    /// assert_eq!(rx.max_output(), 1 << 20);
    /// ```
    pub fn set_max_output(&mut self, bytes: usize) {
        self.max_output = bytes;
    }

    /// The limit [`set_max_output`](Receiver::set_max_output) set (`usize::MAX` by default:
    /// only the multiple of the message applies).
    pub fn max_output(&self) -> usize {
        self.max_output
    }

    /// A receiver (with the default [`Engine`]) that asks `resolver` for formats it does not
    /// know.
    pub fn with_resolver(resolver: impl Resolver + Send + 'static) -> Receiver {
        let mut r = Receiver::default();
        r.set_resolver(resolver);
        r
    }

    /// Asks `resolver` for formats this receiver does not know.
    pub fn set_resolver(&mut self, resolver: impl Resolver + Send + 'static) {
        self.resolver = Some(Box::new(resolver));
    }

    /// The engine chosen at construction.
    pub fn engine(&self) -> Engine {
        self.runner.engine()
    }

    /// What the engine has done: plans compiled, code held, conversions interpreted and
    /// compiled, time spent compiling.
    pub fn stats(&self) -> Stats {
        self.runner.stats()
    }

    /// Whether the plan from the format `id` to `T` is compiled now (always `false` without
    /// the `jit` feature or with [`Engine::Interpreter`]).
    pub fn is_compiled<T: Record>(&self, id: FormatId) -> bool {
        self.runner.is_compiled(&(id, TypeId::of::<T>()))
    }

    /// Forgets the format with this id, its plans and their compiled code: a receiver that
    /// sees many short-lived formats keeps its memory bounded by calling this. Returns
    /// whether the format was known.
    pub fn forget(&mut self, id: FormatId) -> bool {
        self.plans.retain(|k, _| k.0 != id);
        if matches!(&self.last, Some(l) if l.key.0 == id) {
            self.last = None;
        }
        self.runner.forget(id);
        self.formats.remove(&id).is_some()
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
        self.ensure_last::<T>(format.id(), Some(format))?;
        let r = self.convert_last(record);
        self.between_messages();
        r
    }

    /// Decodes a message (header and body) into a `T`, converting it from the sender's format,
    /// which must be registered or resolvable. Error offsets count from the message's start.
    pub fn decode<T: Record>(&mut self, message: &[u8]) -> Result<T, Error> {
        let m = parse_message(message)?;
        self.ensure_last::<T>(m.id, None)?;
        let r = self.convert_last(m.body).map_err(|e| e.shifted(HEADER_LEN));
        self.between_messages();
        r
    }

    /// Converts `body` by the last plan into a new `T`.
    fn convert_last<T: Record>(&mut self, body: &[u8]) -> Result<T, Error> {
        if self.last.as_ref().is_some_and(|l| l.plan.is_identical()) {
            return from_body(body);
        }
        self.run_last(body, None)?;
        from_body(&self.scratch)
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
        self.ensure_last::<T>(m.id, None)?;
        let Some(last) = &self.last else {
            return Err(no_plan());
        };
        let r = if last.plan.is_identical() {
            body_into(m.body, out)
        } else if let (false, Some(bytes)) = (last.plan.has_variable_parts(), as_bytes_mut(out)) {
            self.run_last(m.body, Some(bytes))
        } else {
            self.run_last(m.body, None)
                .and_then(|()| body_into(&self.scratch, out))
        };
        self.between_messages();
        r.map_err(|e| e.shifted(HEADER_LEN))
    }

    /// Runs the last plan (not the identical one) on `body`: into `fixed` when given (a plan
    /// without variable parts, into a value's own bytes), else into the scratch body.
    fn run_last(&mut self, body: &[u8], fixed: Option<&mut [u8]>) -> Result<(), Error> {
        let Some(last) = &mut self.last else {
            return Err(no_plan());
        };
        self.runner
            .run(last, body, fixed, &mut self.scratch, self.max_output)
    }

    /// Between two messages: lets the engine count, choose and compile.
    fn between_messages(&mut self) {
        let formats = &self.formats;
        self.runner
            .between_messages(self.last.as_mut(), &|| formats.values().cloned().collect());
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

    /// Makes `self.last` the plan from the format `id` to `T` (from `format` when given, else
    /// the format with this id): a stream of one kind of record skips the map.
    fn ensure_last<T: Record>(
        &mut self,
        id: FormatId,
        format: Option<&Format>,
    ) -> Result<(), Error> {
        let key = (id, TypeId::of::<T>());
        if matches!(&self.last, Some(l) if l.key == key) {
            return Ok(());
        }
        let plan = match (self.plans.get(&key), format) {
            (Some(p), _) => p.clone(),
            (None, Some(f)) => self.build_plan::<T>(f)?,
            (None, None) => {
                let f = self.lookup(id)?;
                self.build_plan::<T>(&f)?
            }
        };
        let active = self.runner.activate(key, plan, self.last.as_mut());
        self.last = Some(active);
        Ok(())
    }

    /// Builds and keeps the plan from `format` to `T`.
    fn build_plan<T: Record>(&mut self, format: &Format) -> Result<Arc<Plan>, Error> {
        let plan = Arc::new(Plan::build_with(format, T::RECORD, T::format())?);
        self.plans
            .insert((format.id(), TypeId::of::<T>()), plan.clone());
        Ok(plan)
    }
}

#[cold]
fn no_plan() -> Error {
    Error::without_offset(ErrorKind::Custom("no plan after building one".into()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{message_from_body, ByteOrder, IOField};

    #[test]
    fn decode_dynamic_needs_the_format_and_shifts_offsets() {
        let f = Format::from_fields(
            "tick",
            ByteOrder::Big,
            16,
            &[
                IOField::new("seq", "unsigned integer", 8, 0),
                IOField::new("name", "string", 8, 8),
            ],
            &[],
        )
        .unwrap();
        let mut body = 7u64.to_be_bytes().to_vec();
        body.extend_from_slice(&16u32.to_be_bytes());
        body.extend_from_slice(&2u32.to_be_bytes());
        body.extend_from_slice(b"ok\0\0\0\0\0\0");
        let msg = message_from_body(f.id(), &body).unwrap();
        let mut rx = Receiver::new();
        let e = rx.decode_dynamic(&msg).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::UnknownFormat(_)), "{e}");
        rx.register(f.clone());
        assert_eq!(
            rx.decode_dynamic(&msg).unwrap().to_json(),
            r#"{"seq":7,"name":"ok"}"#
        );
        // Offsets count from the message's start.
        let short = message_from_body(f.id(), &body[..10]).unwrap();
        let e = rx.decode_dynamic(&short).unwrap_err();
        assert_eq!(e.offset(), Some(HEADER_LEN));
    }
}
