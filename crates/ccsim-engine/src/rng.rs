//! Independent random streams per (seed, replication, component, purpose).
//!
//! The four parts are mixed with SplitMix64 into the seed of a xoshiro256++ generator, so
//! adding a source does not shift the draws of any other (ns-3's `AssignStreams` idea with
//! the bookkeeping done by hashing instead of by counting).

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a stream is for, so one component can own several independent streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamKey {
    pub seed: u64,
    pub replication: u64,
    pub component: u64,
    pub purpose: u64,
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl StreamKey {
    fn mixed(&self) -> u64 {
        let mut h = splitmix64(self.seed);
        for part in [self.replication, self.component, self.purpose] {
            h = splitmix64(h ^ part);
        }
        h
    }
}

#[derive(Clone, Debug)]
pub struct RngStream {
    rng: Xoshiro256PlusPlus,
}

impl RngStream {
    pub fn new(key: StreamKey) -> Self {
        RngStream { rng: Xoshiro256PlusPlus::seed_from_u64(key.mixed()) }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform on [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponential with the given mean (inverse transform on (0, 1]).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Standard normal (Box-Muller from two uniforms; the second variate is not kept, so each
    /// draw costs two uniforms and depends on nothing but the stream).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(component: u64) -> StreamKey {
        StreamKey { seed: 42, replication: 0, component, purpose: 0 }
    }

    #[test]
    fn same_key_same_draws_and_other_keys_differ() {
        let mut a = RngStream::new(key(1));
        let mut b = RngStream::new(key(1));
        let mut c = RngStream::new(key(2));
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    /// Chi-square test of uniformity over 20 bins with 100 000 draws: 19 degrees of freedom,
    /// the 99.9 % quantile is 43.82, so a correct generator fails this about once in a
    /// thousand seeds; the seed is fixed, so the test is deterministic.
    #[test]
    fn uniform_passes_chi_square() {
        let mut r = RngStream::new(key(7));
        let n = 100_000usize;
        let mut bins = [0usize; 20];
        for _ in 0..n {
            bins[(r.uniform() * 20.0) as usize] += 1;
        }
        let expected = n as f64 / 20.0;
        let chi2: f64 = bins.iter().map(|&o| (o as f64 - expected).powi(2) / expected).sum();
        assert!(chi2 < 43.82, "chi2 = {chi2}");
    }

    #[test]
    fn exponential_mean_is_right() {
        let mut r = RngStream::new(key(9));
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(0.1)).sum::<f64>() / n as f64;
        // Standard error is 0.1/sqrt(n) = 2.2e-4; allow five of them.
        assert!((mean - 0.1).abs() < 1.2e-3, "mean = {mean}");
    }

    /// Mean 0 and variance 1 within five standard errors, and P(Z < 1.96) = 0.975 within five.
    #[test]
    fn normal_has_mean_zero_variance_one_and_its_quantiles() {
        let mut r = RngStream::new(key(11));
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        assert!(mean.abs() < 5.0 / (n as f64).sqrt(), "mean = {mean}");
        // The variance's standard error is sqrt(2/n).
        assert!((var - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt(), "var = {var}");
        let below = xs.iter().filter(|&&x| x < 1.96).count() as f64 / n as f64;
        assert!((below - 0.975).abs() < 5.0 * (0.975 * 0.025 / n as f64).sqrt(), "{below}");
    }
}
