//! Student's t distribution for whole degrees of freedom: the two-sided p-value of the paired
//! t-test, to about the last bit of a double.
//!
//! With `ν` degrees of freedom and `θ = atan(|t| / √ν)`, Abramowitz and Stegun (26.7.3-4) give
//! `A = P(|T| < |t|)` as a finite series in `r = cos²θ = ν / (ν + t²)`:
//!
//! - `ν` even: `A = sin θ · Σ_{k < ν/2} c_k r^k`, `c_0 = 1`, `c_{k+1} = c_k (2k + 1) / (2k + 2)`;
//! - `ν` odd: `A = (2/π) (θ + sin θ cos θ · Σ_{k < (ν-1)/2} d_k r^k)`, `d_0 = 1`,
//!   `d_{k+1} = d_k (2k + 2) / (2k + 3)`.
//!
//! The same series run to infinity sum to exactly 1 (the binomial series of `(1 - r)^(-1/2)`,
//! and that of `arcsin`), so the p-value `1 - A` is also the series' tail from `ν/2` (or
//! `(ν-1)/2`) on, a sum of positive terms. Large p-values are `1 - A`, small ones the tail, so
//! no digits cancel. The terms are carried in double-double arithmetic (a value and its rounding
//! error, through fused multiply-adds), so the long recurrences of many degrees of freedom lose
//! nothing either.

/// A double-double: `high + low`, `|low|` at most half an ulp of `high`.
#[derive(Clone, Copy, Debug)]
struct Wide {
    high: f64,
    low: f64,
}

impl Wide {
    const fn new(value: f64) -> Self {
        Self {
            high: value,
            low: 0.0,
        }
    }

    /// `a + b` exactly, as a double-double (Knuth's two-sum).
    fn sum(a: f64, b: f64) -> Self {
        let high = a + b;
        let virtual_b = high - a;
        let low = (a - (high - virtual_b)) + (b - virtual_b);
        Self { high, low }
    }

    fn add(self, other: Self) -> Self {
        let Wide { high, low } = Self::sum(self.high, other.high);
        let low = low + self.low + other.low;
        let high_sum = high + low;
        Self {
            high: high_sum,
            low: low - (high_sum - high),
        }
    }

    fn mul(self, other: Self) -> Self {
        let high = self.high * other.high;
        let error = self.high.mul_add(other.high, -high);
        let low = error + self.high * other.low + self.low * other.high;
        let sum = high + low;
        Self {
            high: sum,
            low: low - (sum - high),
        }
    }

    fn div(self, other: Self) -> Self {
        let quotient = self.high / other.high;
        // The remainder self - quotient * other, to refine the quotient once.
        let remainder = self.add(Self::new(quotient).mul(other).neg());
        let correction = remainder.high / other.high;
        Self::sum(quotient, correction)
    }

    fn neg(self) -> Self {
        Self {
            high: -self.high,
            low: -self.low,
        }
    }

    fn sqrt(self) -> Self {
        if self.high <= 0.0 {
            return Self::new(0.0);
        }
        let root = self.high.sqrt();
        // One Newton step: root + (self - root²) / (2 root).
        let square = Self::new(root).mul(Self::new(root));
        let correction = self.add(square.neg()).high / (2.0 * root);
        Self::sum(root, correction)
    }

    fn value(self) -> f64 {
        self.high + self.low
    }
}

/// `(2k + 1) / (2k + 2)` (even `ν`) or `(2k + 2) / (2k + 3)` (odd), as a double-double.
#[allow(clippy::cast_precision_loss)] // k is far below 2^52
fn ratio(k: u64, even: bool) -> Wide {
    let (numerator, denominator) = if even {
        (2 * k + 1, 2 * k + 2)
    } else {
        (2 * k + 2, 2 * k + 3)
    };
    Wide::new(numerator as f64).div(Wide::new(denominator as f64))
}

/// Where the tail's terms stop: below this fraction of the first.
const TAIL_EPSILON: f64 = 1e-20;

/// `P(|T| >= |t|)` for Student's t with `degrees` degrees of freedom (at least 1): the
/// two-sided p-value of a t statistic. NaN for a NaN `t`.
#[must_use]
#[allow(clippy::cast_precision_loss)] // degrees of freedom are far below 2^52
pub fn t_two_sided(t: f64, degrees: u64) -> f64 {
    assert!(
        degrees >= 1,
        "Student's t needs at least 1 degree of freedom"
    );
    if t.is_nan() {
        return f64::NAN;
    }
    let t = t.abs();
    if t.is_infinite() {
        return 0.0;
    }
    let nu = Wide::new(degrees as f64);
    let square = Wide {
        high: t * t,
        low: t.mul_add(t, -(t * t)),
    };
    let total = nu.add(square);
    let cos_squared = nu.div(total); // r
    let sin_squared = square.div(total);
    let sin = sin_squared.sqrt();
    let cos = cos_squared.sqrt();
    let even = degrees % 2 == 0;
    let terms = if even { degrees / 2 } else { (degrees - 1) / 2 };
    // The head: the finite series, and the term after it, where the tail starts.
    let mut head = Wide::new(0.0);
    let mut term = Wide::new(1.0);
    for k in 0..terms {
        head = head.add(term);
        term = term.mul(ratio(k, even)).mul(cos_squared);
    }
    let two_over_pi = Wide {
        high: std::f64::consts::FRAC_2_PI,
        low: -3.935_735_335_036_497e-17, // 2/π - FRAC_2_PI
    };
    let lead = if even {
        sin
    } else {
        two_over_pi.mul(sin).mul(cos)
    };
    let complement = if even {
        Wide::new(1.0).add(lead.mul(head).neg())
    } else {
        let theta = sin.high.atan2(cos.high);
        let inner = Wide::new(theta).add(sin.mul(cos).mul(head));
        Wide::new(1.0).add(two_over_pi.mul(inner).neg())
    };
    if complement.value() >= 0.25 {
        return complement.value();
    }
    // The tail from the term the head stopped at.
    let mut tail = Wide::new(0.0);
    let mut k = terms;
    let first = term.high;
    // The terms decrease from the first on; one below the smallest normal double adds nothing a
    // p-value can hold (and a subnormal times a ratio near 1 can round back to itself).
    while term.high > TAIL_EPSILON * first && term.high >= f64::MIN_POSITIVE {
        tail = tail.add(term);
        term = term.mul(ratio(k, even)).mul(cos_squared);
        k += 1;
    }
    lead.mul(tail).value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_degree_of_freedom_is_the_cauchy_distribution() {
        for t in [0.1_f64, 1.0, 3.0, 40.0] {
            let cauchy = 2.0 / std::f64::consts::PI * (1.0 / t).atan();
            assert!(
                (t_two_sided(t, 1) - cauchy).abs() <= 1e-15 * cauchy,
                "t = {t}"
            );
        }
    }

    #[test]
    fn two_degrees_of_freedom_have_a_closed_form() {
        // P(|T| >= t) = 1 - t / sqrt(2 + t^2)
        for t in [0.05_f64, 0.7, 2.0, 9.0] {
            let exact = 1.0 - t / (2.0 + t * t).sqrt();
            let got = t_two_sided(t, 2);
            assert!(
                (got - exact).abs() <= 1e-14 * exact,
                "t = {t}: {got} vs {exact}"
            );
        }
    }

    #[test]
    fn known_values() {
        // scipy.special.stdtr(df, -t) * 2
        let cases = [
            (2.611_164_839_335_468_5, 3, 0.079_604_980_817_906_22),
            (1.96, 1000, 0.050_273_184_955_748_736),
            (0.0, 7, 1.0),
        ];
        for (t, degrees, p) in cases {
            let got = t_two_sided(t, degrees);
            assert!(
                (got - p).abs() <= 1e-13 * p,
                "t = {t}, df = {degrees}: {got} vs {p}"
            );
        }
        assert_eq!(t_two_sided(f64::INFINITY, 5), 0.0);
        assert!(t_two_sided(f64::NAN, 5).is_nan());
        assert_eq!(t_two_sided(-2.0, 9), t_two_sided(2.0, 9));
    }
}
