//! Scores and grades from the text of a field.

/// A score: a number as polars casts text to Float64, and finite.
pub fn parse_score(field: &[u8]) -> Option<f64> {
    if let Some(value) = plain_decimal(field) {
        return Some(value);
    }
    let value: f64 = fast_float2::parse(field).ok()?;
    value.is_finite().then_some(value)
}

/// Powers of ten exact in a double.
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The common case of a score, `[+-]digits[.digits]` of at most 19 characters, computed as
/// the general parser computes it: an integer below 2^53 divided by an exact power of ten is
/// correctly rounded by the division itself (Clinger's fast path). Anything else (exponents,
/// long digit strings, words) is `None`, for the general parser.
#[inline]
pub(super) fn plain_decimal(field: &[u8]) -> Option<f64> {
    let (negative, digits) = split_sign(field)?;
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let (whole, fraction) = match digits.iter().position(|&b| b == b'.') {
        Some(point) => (&digits[..point], &digits[point + 1..]),
        None => (digits, &digits[digits.len()..]),
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // Two tight loops (a second point is not a digit); at most 19 digits cannot overflow.
    let mut mantissa: u64 = 0;
    for part in [whole, fraction] {
        for &b in part {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            mantissa = mantissa * 10 + u64::from(digit);
        }
    }
    let fraction_digits = fraction.len();
    // The mantissa must be exact in a double.
    if mantissa >= 1 << 53 || fraction_digits >= EXACT_POWERS_OF_TEN.len() {
        return None;
    }
    let value = mantissa as f64 / EXACT_POWERS_OF_TEN[fraction_digits];
    Some(if negative { -value } else { value })
}

/// A grade: an integer (optional sign, ASCII digits, fitting 64 bits), or a number written as a
/// float whose value is whole and below 2^62 in magnitude (`2.0`, `1e3`), as the readers of
/// the other formats accept.
pub fn parse_grade(field: &[u8]) -> Option<i64> {
    if let Some(value) = parse_integer(field) {
        return Some(value);
    }
    let value: f64 = fast_float2::parse(field).ok()?;
    let whole = value.is_finite() && value == value.round() && value.abs() < 2f64.powi(62);
    whole.then_some(value as i64)
}

/// Whether a number is negative, and its text after the sign; `None` for an empty field.
fn split_sign(field: &[u8]) -> Option<(bool, &[u8])> {
    Some(match field.first()? {
        b'-' => (true, &field[1..]),
        b'+' => (false, &field[1..]),
        _ => (false, field),
    })
}

pub(crate) fn parse_integer(field: &[u8]) -> Option<i64> {
    let (negative, digits) = split_sign(field)?;
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut value: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        // Accumulated negatively so that i64::MIN fits.
        value = value.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
    }
    if negative {
        Some(value)
    } else {
        value.checked_neg()
    }
}
