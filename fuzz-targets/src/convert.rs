//! The body of `ndr_convert_interp`, `ndr_convert_jit` and `ndr_convert_tiered`: a format
//! description and a record body, converted into every local NDR type by one engine.
//!
//! Input: `[flags][len: u16 big-endian][description (len bytes, without the id)][body]`.
//! Flags are unused (kept for later selectors). The format is validated from the description
//! (its id computed here) and the body converted with `Receiver::convert::<T>` into each of
//! `NPoint`, `NSample`, `NMixed`, `NNest`, `NBig` and `NBigs`.
//!
//! Checks: fields the incoming format lacks come from the local type's `Default` (for the
//! `default_missing` types `NMixed` and `NBig`); a converted value's local body converts back
//! to the same body; the compiled and tiered engines give the interpreter's values (the same
//! local bytes) and the same errors.
//!
//! Receivers are kept between inputs (one per engine and thread), so plans are reused and the
//! JIT is not set up again for every input; the formats of the last 32 inputs are kept and
//! older ones forgotten (with their plans and code), so every new format is planned and
//! compiled afresh and memory stays bounded.

use std::cell::RefCell;
use std::collections::VecDeque;

use marshal::ndr::{to_body, Engine, Format, FormatId, Receiver, Record};
use marshal::Error;

use crate::types::{NBig, NBigs, NMixed, NNest, NPoint, NSample};
use crate::util::{format_of_description, split_u16};
use crate::xdr_derived::same_bytes;

/// Which engine a target runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    Interp,
    Jit,
    Tiered,
}

/// Formats kept between inputs.
const KEEP: usize = 32;

#[derive(Default)]
struct Receivers {
    interp: Option<Receiver>,
    jit: Option<Receiver>,
    tiered: Option<Receiver>,
    /// Format ids of recent inputs, oldest first.
    recent: VecDeque<FormatId>,
}

impl Receivers {
    fn remember(&mut self, id: FormatId) {
        if self.recent.contains(&id) {
            return;
        }
        self.recent.push_back(id);
        if self.recent.len() > KEEP {
            let old = self.recent.pop_front().expect("more than KEEP");
            for rx in [&mut self.interp, &mut self.jit, &mut self.tiered]
                .into_iter()
                .flatten()
            {
                rx.forget(old);
            }
        }
    }
}

thread_local! {
    static RECEIVERS: RefCell<Receivers> = RefCell::new(Receivers::default());
}

/// Runs one input through `which`.
pub(crate) fn run(which: Which, data: &[u8]) {
    let Some((_flags, rest)) = data.split_first() else {
        return;
    };
    let Some((description, body)) = split_u16(rest) else {
        return;
    };
    let Ok(format) = format_of_description(description) else {
        return;
    };
    RECEIVERS.with(|cell| {
        let mut rs = cell.borrow_mut();
        rs.remember(format.id());
        let rs = &mut *rs;
        let interp = rs
            .interp
            .get_or_insert_with(|| Receiver::with_engine(Engine::Interpreter));
        let other = match which {
            Which::Interp => None,
            Which::Jit => Some(
                rs.jit
                    .get_or_insert_with(|| Receiver::with_engine(Engine::Jit)),
            ),
            Which::Tiered => Some(rs.tiered.get_or_insert_with(|| {
                Receiver::with_engine(Engine::Tiered {
                    budget_bytes: Engine::DEFAULT_BUDGET,
                })
            })),
        };
        let mut engines = Engines { interp, other };
        engines.convert::<NPoint>(&format, body);
        engines.convert::<NSample>(&format, body);
        engines.convert::<NMixed>(&format, body);
        engines.convert::<NNest>(&format, body);
        engines.convert::<NBig>(&format, body);
        engines.convert::<NBigs>(&format, body);
    });
}

struct Engines<'r> {
    interp: &'r mut Receiver,
    other: Option<&'r mut Receiver>,
}

impl Engines<'_> {
    fn convert<T: Missing>(&mut self, format: &Format, body: &[u8]) {
        let reference = self.interp.convert::<T>(format, body);
        if let Ok(v) = &reference {
            v.check_missing(format);
            round_trip(self.interp, v);
        }
        if let Some(other) = &mut self.other {
            // Twice: a tiered engine compiles between messages, so the second conversion may
            // run compiled code where the first ran the interpreter.
            for _ in 0..2 {
                let got = other.convert::<T>(format, body);
                same_result(&got, &reference);
            }
        }
    }
}

/// A local type whose fields an incoming format may lack.
pub(crate) trait Missing: Record {
    /// Checks that the fields `format` lacks hold their `Default` values (for a type that
    /// says `default_missing`; others cannot convert from a format that lacks a field).
    fn check_missing(&self, _format: &Format) {}
}

impl Missing for NPoint {}
impl Missing for NSample {}
impl Missing for NNest {}
impl Missing for NBigs {}

/// `assert_eq!` of each named field of `v` and `d` that `format` lacks.
macro_rules! missing_are_default {
    ($v:expr, $d:expr, $format:expr, $($f:ident),*) => {
        $(
            if $format.field(stringify!($f)).is_none() {
                assert!(
                    $v.$f == $d.$f,
                    "`{}` is missing from the incoming format and not the default: {:?}, not {:?}",
                    stringify!($f),
                    $v.$f,
                    $d.$f
                );
            }
        )*
    };
}

impl Missing for NMixed {
    fn check_missing(&self, format: &Format) {
        let d = NMixed::default();
        missing_are_default!(self, d, format, id, name, pts, grid, scores, ok, inner, tags, wide);
    }
}

impl Missing for NBig {
    fn check_missing(&self, format: &Format) {
        let d = NBig::default();
        missing_are_default!(self, d, format, tag, blob);
    }
}

/// A converted value's local body converts (identically) back to the same body.
fn round_trip<T: Record>(rx: &mut Receiver, v: &T) {
    let body = to_body(v).expect("a converted value has a body");
    let back: T = rx
        .convert(T::format(), &body)
        .expect("a local body converts into its own type");
    let again = to_body(&back).expect("a converted value has a body");
    same_bytes("a local body converted into its own type", &again, &body);
}

/// Compiled (or tiered) and interpreted conversions agree: the same local bytes, or the same
/// error.
pub(crate) fn same_result<T: Record>(got: &Result<T, Error>, want: &Result<T, Error>) {
    match (got, want) {
        (Ok(a), Ok(b)) => same_bytes(
            "compiled and interpreted conversions",
            &to_body(a).expect("a body"),
            &to_body(b).expect("a body"),
        ),
        (Err(a), Err(b)) => assert_eq!(
            a.to_string(),
            b.to_string(),
            "compiled and interpreted conversions fail differently"
        ),
        (Ok(_), Err(e)) => panic!("the interpreter fails ({e}) where compiled code succeeds"),
        (Err(e), Ok(_)) => panic!("compiled code fails ({e}) where the interpreter succeeds"),
    }
}
