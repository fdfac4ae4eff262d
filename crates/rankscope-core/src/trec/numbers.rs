//! Scores and grades from the text of a field.

/// A score: a number as polars casts text to Float64, and finite.
///
/// A sign and at most eight characters (most scores written) are read here, as one word
/// (`word_decimal`, always inlined); anything else by a function of its own. This function
/// is never inlined: left to the compiler, the reader's loop over lines took it in and called
/// `word_decimal` instead, about 45 instructions a line more (`benchmarks/RESULTS-reader.md`).
#[inline(never)]
pub fn parse_score(field: &[u8]) -> Option<f64> {
    if let Some((negative, digits)) = split_sign(field) {
        if digits.len() <= 8 {
            if let Some(value) = word_decimal(digits) {
                return Some(if negative { -value } else { value });
            }
        }
    }
    longer_score(field)
}

/// [`parse_score`] of the others: the fast path of up to 19 characters, else the general
/// parser.
#[inline(never)]
fn longer_score(field: &[u8]) -> Option<f64> {
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
/// long digit strings, words) is `None`, for the general parser. Up to 16 characters after the
/// sign (nearly every score written) are read eight bytes at a time ([`short_decimal`]).
#[inline]
pub(super) fn plain_decimal(field: &[u8]) -> Option<f64> {
    let (negative, digits) = split_sign(field)?;
    let value = if digits.len() <= 16 {
        short_decimal(digits)?
    } else {
        long_decimal(digits)?
    };
    Some(if negative { -value } else { value })
}

/// `digits[.digits]` of 17 to 19 characters, digit by digit.
fn long_decimal(digits: &[u8]) -> Option<f64> {
    if digits.len() > 19 {
        return None;
    }
    let (whole, fraction) = match digits.iter().position(|&b| b == b'.') {
        Some(point) => (&digits[..point], &digits[point + 1..]),
        None => (digits, &digits[digits.len()..]),
    };
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
    exact_quotient(mantissa, fraction.len())
}

/// The same byte in each of eight.
const fn bytes_of(byte: u8) -> u64 {
    u64::from_ne_bytes([byte; 8])
}

/// Powers of ten up to 10^8, as integers.
const POWERS_OF_TEN: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// `digits[.digits]` of at most 16 characters, eight at a time: each eight bytes as one word
/// (byte `i` for character `i`), a point taken out, every character left checked to be a
/// digit, and the digits turned into their value at once.
#[inline]
fn short_decimal(text: &[u8]) -> Option<f64> {
    if text.len() <= 8 {
        return word_decimal(text);
    }
    let (first, rest) = text.split_at(8);
    let (high, high_point) = without_point(load_eight(first));
    let (low, low_point) = without_point(load_eight(rest));
    let (high_digits, low_digits, fraction) = match (high_point, low_point) {
        (None, None) => (first.len(), rest.len(), 0),
        (Some(point), None) => (
            first.len() - 1,
            rest.len(),
            first.len() - 1 - point + rest.len(),
        ),
        (None, Some(point)) => (first.len(), rest.len() - 1, rest.len() - 1 - point),
        (Some(_), Some(_)) => return None,
    };
    if high_digits + low_digits == 0 {
        return None;
    }
    let mantissa = digits_value(high, high_digits)? * POWERS_OF_TEN[low_digits]
        + digits_value(low, low_digits)?;
    exact_quotient(mantissa, fraction)
}

/// [`short_decimal`] of at most eight characters: one word.
#[allow(clippy::inline_always)]
#[inline(always)]
fn word_decimal(text: &[u8]) -> Option<f64> {
    let (digits, point) = without_point(load_eight(text));
    let count = text.len() - usize::from(point.is_some());
    let fraction = point.map_or(0, |point| count - point);
    if count == 0 {
        return None;
    }
    exact_quotient(digits_value(digits, count)?, fraction)
}

/// The bytes of `text` (at most eight) as one word, byte `i` for `text[i]`, zero past its end;
/// no byte outside `text` is read (loads that overlap where it is not a power of two long).
#[inline]
fn load_eight(text: &[u8]) -> u64 {
    let n = text.len();
    if n == 8 {
        return u64::from_le_bytes(text.try_into().expect("eight bytes"));
    }
    let four = |at: usize| {
        u64::from(u32::from_le_bytes(
            text[at..at + 4].try_into().expect("four bytes"),
        ))
    };
    if n >= 4 {
        four(0) | (four(n - 4) << (8 * (n - 4)))
    } else if n > 0 {
        let byte = |at: usize| u64::from(text[at]) << (8 * at);
        byte(0) | byte(n / 2) | byte(n - 1)
    } else {
        0
    }
}

/// A word of characters (see [`load_eight`]) with its first point taken out, the bytes after
/// it moved down one, and where the point was. The point is the lowest byte that
/// `word ^ points` holds as zero (a borrow may flag bytes above it only); the zero bytes past a
/// text are not points.
#[inline]
fn without_point(word: u64) -> (u64, Option<usize>) {
    let x = word ^ bytes_of(b'.');
    let zeros = x.wrapping_sub(bytes_of(1)) & !x & bytes_of(0x80);
    if zeros == 0 {
        return (word, None);
    }
    let point = zeros.trailing_zeros() / 8;
    let below = (1u64 << (8 * point)) - 1;
    (
        (word & below) | ((word >> 8) & !below),
        Some(point as usize),
    )
}

/// The value of the `count` (at most eight) characters of a word (see [`load_eight`]; the bytes
/// past them zero), if every one is a digit.
#[inline]
fn digits_value(word: u64, count: usize) -> Option<u64> {
    if count == 0 {
        return Some(0);
    }
    // Past the characters, '0's, so that all eight bytes are checked alike.
    let filled = word | (bytes_of(b'0') & !(u64::MAX >> (8 * (8 - count))));
    // A digit is 0x30..=0x39: its high half is 3, and still is with 6 added.
    let high_halves = bytes_of(0xf0);
    if filled & high_halves != bytes_of(b'0')
        || filled.wrapping_add(bytes_of(6)) & high_halves != bytes_of(b'0')
    {
        return None;
    }
    // The digits' values, the last in byte 7 (leading zeros before the first).
    Some(eight_digits((filled - bytes_of(b'0')) << (8 * (8 - count))))
}

/// The value of eight digits, byte `i` of `values` holding the `i`-th (each 0..=9): pairs,
/// then fours, then the eight, by multiplications that add neighbours in place.
#[inline]
fn eight_digits(values: u64) -> u64 {
    const PAIRS: u64 = 0x0000_00ff_0000_00ff;
    const HIGH_FOURS: u64 = 100 + (1_000_000 << 32);
    const LOW_FOURS: u64 = 1 + (10_000 << 32);
    let pairs = values.wrapping_mul(10).wrapping_add(values >> 8);
    (pairs & PAIRS)
        .wrapping_mul(HIGH_FOURS)
        .wrapping_add(((pairs >> 16) & PAIRS).wrapping_mul(LOW_FOURS))
        >> 32
}

/// `mantissa / 10^fraction_digits`, where the division rounds correctly: the mantissa exact in
/// a double, the power of ten too.
#[inline]
fn exact_quotient(mantissa: u64, fraction_digits: usize) -> Option<f64> {
    if mantissa >= 1 << 53 || fraction_digits >= EXACT_POWERS_OF_TEN.len() {
        return None;
    }
    Some(mantissa as f64 / EXACT_POWERS_OF_TEN[fraction_digits])
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
