// What marshal-build's Rust fillers share (test support).

/// splitmix64: the same draws as the C fillers' `marshal_rng_next`.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// The generator of a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next draw.
    pub fn draw(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Optional data this many pointers deep is absent, so lists stay finite.
pub const MAX_DEPTH: u32 = 3;
