//! The local record types of the Hoschka benchmark (`benches/benches/hoschka.rs`) beside
//! PBIO's and the Scalar300 record: integers of every width, floats, booleans, nested records
//! and arrays of them, a market tick and a 2-D array. The frequency-estimate test
//! (`tests/tests/ndr_frequency.rs`) counts visits on the same types.

use marshal::Marshal;

/// Integers of every width and both signs (Rust's layout: reordered, no padding).
#[derive(Marshal, Debug, Clone, PartialEq)]
pub struct Widths {
    pub a: i8,
    pub b: i16,
    pub c: i32,
    pub d: i64,
    pub e: u8,
    pub f: u16,
    pub g: u32,
    pub h: u64,
}

/// Floats of both widths, scalars and arrays.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Floats {
    pub x: f32,
    pub y: f32,
    pub z: f64,
    pub v: [f32; 6],
    pub w: [f64; 3],
}

/// Booleans among integers (Rust's layout).
#[derive(Marshal, Debug, Clone, PartialEq)]
pub struct Flags {
    pub on: bool,
    pub count: u16,
    pub ready: bool,
    pub level: i32,
    pub mask: [bool; 12],
}

/// A nested record.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Point3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// A nested record and an array of them.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Mesh {
    pub id: u32,
    pub n: u32,
    pub origin: Point3,
    pub pts: [Point3; 16],
}

/// A market tick: 64-bit, 32-bit and byte fields.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Tick {
    pub seq: u64,
    pub price: f64,
    pub qty: i32,
    pub side: u8,
    pub venue: [u8; 3],
}

/// A 2-D array of `i16`.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Grid {
    pub w: u16,
    pub h: u16,
    pub cells: [[i16; 16]; 16],
}
