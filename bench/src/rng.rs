//! The project's one pseudo-random generator, for generated levels, benchmarks and the
//! tests that draw a whole case from one seed (a failing case reproduces from its seed).

/// A small deterministic pseudo-random generator (xorshift64*): the same seed gives the
/// same sequence on every machine. Not for anything that must be unpredictable.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// An index in `0..n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// True `percent` times in 100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items`, which must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// A float in `[-1000, 1000)` with up to 6 decimals, as Stingray writes positions.
    pub fn coord(&mut self) -> f64 {
        (self.below(2_000_000_000) as f64 - 1e9) / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_sequence_is_fixed_by_the_seed() {
        // Generated levels, benchmark inputs and recorded test seeds depend on these exact
        // values (xorshift64* as levelgen has always drawn them).
        let mut r = Rng::new(42);
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            first,
            [
                8_952_379_422_571_887_915,
                13_575_666_566_127_367_164,
                13_965_042_861_690_359_151
            ]
        );
    }

    #[test]
    fn helpers_stay_in_range() {
        let mut r = Rng::new(0);
        for n in 1..50usize {
            assert!(r.index(n) < n);
            assert!(*r.pick(&[1, 2, 3]) <= 3);
        }
        assert_eq!(r.index(0), 0);
        assert!((0..100).all(|_| !r.percent(0) && r.percent(100) && r.one_in(1)));
    }
}
