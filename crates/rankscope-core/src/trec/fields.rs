//! Lines split into whitespace-separated fields, eight bytes at a time.

/// Whitespace between fields: C's isspace() without the newline.
#[inline]
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Where a field ends: a separator, or the newline that ends its line.
#[inline]
fn ends_field(b: u8) -> bool {
    is_space(b) || b == b'\n'
}

/// Up to `N` fields of a line, and how many fields it has in all.
#[inline]
pub(crate) fn split_fields<const N: usize>(line: &[u8]) -> ([&[u8]; N], usize) {
    let (fields, count, _) = split_line(line, 0, usize::MAX);
    (fields, count)
}

/// Up to `N` fields of the line that starts at `start` in `text`, how many fields it has (the
/// count stops at `limit`, and the rest of the line is then not split), and where the line
/// ends (its newline, or the end of the text).
#[inline]
pub(super) fn split_line<const N: usize>(
    text: &[u8],
    start: usize,
    limit: usize,
) -> ([&[u8]; N], usize, usize) {
    let mut fields: [&[u8]; N] = [&[]; N];
    let mut count = 0;
    let mut i = start;
    let n = text.len();
    loop {
        while i < n && is_space(text[i]) {
            i += 1;
        }
        if i == n || text[i] == b'\n' {
            return (fields, count, i);
        }
        if count == limit {
            let end = memchr::memchr(b'\n', &text[i..]).map_or(n, |j| i + j);
            return (fields, count, end);
        }
        let field_start = i;
        i = field_end(text, i);
        if count < N {
            fields[count] = &text[field_start..i];
        }
        count += 1;
    }
}

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);

const HIGH_BITS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Where the field starting at `start` ends: the first separator or newline after it, or the
/// end of the text.
///
/// Eight bytes at a time: separators and the newline are all below 0x21, and
/// `(word - 0x21 * ONES) & !word` sets the high bit of every byte below 0x21 (other control
/// bytes too, and the borrow may also flag a `!` right after one), so each flagged byte is then
/// checked exactly; a byte that does not end the field stays part of it.
#[inline]
fn field_end(text: &[u8], start: usize) -> usize {
    let n = text.len();
    let mut at = start;
    while at + 8 <= n {
        let word = u64::from_le_bytes(text[at..at + 8].try_into().expect("eight bytes"));
        if let Some(end) = first_field_end(text, at, word) {
            return end;
        }
        at += 8;
    }
    if at < n && n >= 8 {
        // The last eight bytes, shifted so that byte `at` comes first: the zeros shifted in lie
        // past the end, where the field ends anyway.
        let last = u64::from_le_bytes(text[n - 8..].try_into().expect("eight bytes"));
        let word = last >> (8 * (at + 8 - n));
        return first_field_end(text, at, word).map_or(n, |end| end.min(n));
    }
    while at < n && !ends_field(text[at]) {
        at += 1;
    }
    at
}

/// The first byte of `word` (little-endian; its first byte is `text[at]`) that ends a field;
/// a flagged byte past the end of the text is returned as it is.
#[inline]
fn first_field_end(text: &[u8], at: usize, word: u64) -> Option<usize> {
    let mut flagged = word.wrapping_sub(ONES * 0x21) & !word & HIGH_BITS;
    while flagged != 0 {
        let i = at + (flagged.trailing_zeros() / 8) as usize;
        if i >= text.len() || ends_field(text[i]) {
            return Some(i);
        }
        flagged &= flagged - 1;
    }
    None
}
