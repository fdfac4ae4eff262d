//! Lines split into whitespace-separated fields: 64 bytes classified at a time into bit masks,
//! or (long lines, a text's last bytes) eight bytes at a time. The masks also tell whether a
//! line is plain ASCII without NUL bytes, so that most lines are known to be text without a
//! pass of their own.

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
    let split: Split<'_, N> = split_line(line, 0, usize::MAX);
    (split.fields, split.count)
}

/// One line split by [`split_line`].
pub(super) struct Split<'a, const N: usize> {
    /// Its first `N` fields (empty past `count`).
    pub(super) fields: [&'a [u8]; N],
    /// How many fields it has (the count stops at the limit asked for).
    pub(super) count: usize,
    /// Where it ends: its newline, or the end of the text.
    pub(super) end: usize,
    /// Whether it is known to be plain ASCII without a NUL byte, hence text. `false` says
    /// nothing: the line is to be checked (lines split eight bytes at a time are not looked at
    /// here).
    pub(super) plain: bool,
}

/// Up to `N` fields of the line that starts at `start` in `text`, how many fields it has (the
/// count stops at `limit`, and the rest of the line is then not split), where the line ends
/// (its newline, or the end of the text), and whether it is plain ASCII text (see [`Split`]).
///
/// A line that ends within the 64 bytes from its start (most lines of runs and qrels) is split
/// from the bit masks of its bytes, those that end a field and those that are not plain ASCII
/// text (see [`classify_line`], which stops at the 16 bytes holding the newline): each field
/// is a run of clear bits, from a bit of the mask of field starts to one of the mask of field
/// ends. Longer lines, and the last 64 bytes of a text, are split eight bytes at a time.
///
/// Always inlined, with [`classify_line`]: called as a function, the fields it returns are
/// written out and copied back for every line, which costs a fifth of reading a run
/// (`read_files` under callgrind, benchmarks/RESULTS-reader.md).
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn split_line<const N: usize>(text: &[u8], start: usize, limit: usize) -> Split<'_, N> {
    if let Some(block) = text.get(start..start.saturating_add(64)) {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        if let Some(LineMasks {
            ends,
            not_plain,
            newline,
        }) = classify_line(block)
        {
            let in_line = (1u64 << newline) - 1;
            let in_fields = !ends & in_line;
            let mut starts = in_fields & !(in_fields << 1);
            // The last byte of each field: the newline is not in `in_fields`, so a field
            // right before it ends there.
            let mut lasts = in_fields & !(in_fields >> 1);
            // Counted field by field rather than by `count_ones`, which the x86_64 baseline
            // (without POPCNT) computes in a dozen instructions.
            let mut count = 0;
            let mut fields: [&[u8]; N] = [&[]; N];
            while starts != 0 && count < limit {
                if count < N {
                    let first = starts.trailing_zeros() as usize;
                    let last = lasts.trailing_zeros() as usize;
                    // SAFETY: `first` and `last` are bits of masks of `newline` bits, and
                    // `newline < 64`; a field's first byte comes no later than its last (the
                    // masks' lowest bits pair up, field by field), so `first..last + 1` lies
                    // within the 64 bytes of `block`.
                    #[allow(unsafe_code)]
                    let field = unsafe { block.get_unchecked(first..last + 1) };
                    fields[count] = field;
                }
                starts &= starts - 1;
                lasts &= lasts.wrapping_sub(1);
                count += 1;
            }
            return Split {
                fields,
                count,
                end: start + newline as usize,
                plain: not_plain & in_line == 0,
            };
        }
    }
    let (fields, count, end) = split_line_by_words(text, start, limit);
    Split {
        fields,
        count,
        end,
        plain: false,
    }
}

/// [`split_line`] eight bytes at a time.
fn split_line_by_words<const N: usize>(
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

/// The bit masks of a line's first bytes (bit `j` for byte `j` of the line), as far as the
/// 16 bytes that hold its newline.
struct LineMasks {
    /// The bytes that end a field (whitespace: `\t`, `\n`, `\v`, `\f`, `\r`, space).
    ends: u64,
    /// NUL bytes and bytes outside ASCII (a line without any is text; one with some is checked
    /// as UTF-8 on its own).
    not_plain: u64,
    /// Where the first newline is (below 64).
    newline: u32,
}

/// The [`LineMasks`] of the line at the start of `block`, 16 bytes at a time up to the 16 that
/// hold its first newline; `None` if the 64 bytes hold none. Bits past those 16 bytes are
/// clear.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::inline_always)]
#[inline(always)]
fn classify_line(block: &[u8; 64]) -> Option<LineMasks> {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_setzero_si128, _mm_sub_epi8,
    };
    // A movemask of 16 bytes is 16 bits, never negative.
    let bits = |mask: i32| u64::from(mask as u16);
    let mut ends = 0;
    let mut not_plain = 0;
    for (k, part) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86_64 baseline, so every processor this is compiled for
        // has these instructions; the unaligned load reads the 16 bytes of `part`, which it
        // borrows, and needs no alignment.
        #[allow(unsafe_code)]
        let (end_mask, newline_mask, not_plain_mask) = unsafe {
            let bytes = _mm_loadu_si128(part.as_ptr().cast());
            let space = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b' ' as i8));
            // \t..=\r (9..=13): b - 9 is at most 4 as an unsigned byte.
            let shifted = _mm_sub_epi8(bytes, _mm_set1_epi8(9));
            let control = _mm_cmpeq_epi8(_mm_min_epu8(shifted, _mm_set1_epi8(4)), shifted);
            let newline = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\n' as i8));
            // The high bit of a byte is set outside ASCII: the movemask takes high bits.
            let nul = _mm_cmpeq_epi8(bytes, _mm_setzero_si128());
            (
                _mm_movemask_epi8(_mm_or_si128(space, control)),
                _mm_movemask_epi8(newline),
                _mm_movemask_epi8(_mm_or_si128(bytes, nul)),
            )
        };
        ends |= bits(end_mask) << (16 * k);
        not_plain |= bits(not_plain_mask) << (16 * k);
        if newline_mask != 0 {
            return Some(LineMasks {
                ends,
                not_plain,
                newline: 16 * k as u32 + newline_mask.trailing_zeros(),
            });
        }
    }
    None
}

/// [`classify_line`] byte by byte, where SSE2 is not there (compiled everywhere, so that the
/// tests compare the two on x86_64). Its masks hold the bits below the newline only, the bits
/// [`split_line`] reads.
#[cfg(not(target_arch = "x86_64"))]
use classify_line_by_bytes as classify_line;

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn classify_line_by_bytes(block: &[u8; 64]) -> Option<LineMasks> {
    let mut ends = 0;
    let mut not_plain = 0;
    for (j, &b) in block.iter().enumerate() {
        if b == b'\n' {
            return Some(LineMasks {
                ends,
                not_plain,
                newline: j as u32,
            });
        }
        ends |= u64::from(ends_field(b)) << j;
        not_plain |= u64::from(b == 0 || !b.is_ascii()) << j;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{classify_line, classify_line_by_bytes};

    /// Both classifications agree on every bit [`super::split_line`] reads: the newline's place
    /// and the masks below it, on blocks of separators, newlines, NULs, bytes outside ASCII and
    /// letters, a newline anywhere or nowhere.
    #[test]
    fn the_portable_classification_is_the_vectorised_one() {
        const BYTES: &[u8] = b"ab \t\r\x0b\x0c\n\0\x80\xff~!";
        let mut next = crate::trec::tests::xorshift(0x9E37_79B9_7F4A_7C15);
        for round in 0..20_000 {
            let mut block = [b'x'; 64];
            for byte in &mut block {
                // Newlines rare enough that a block of 64 often has none or only a late one.
                let pick = (next() % 64) as usize;
                *byte = if pick < BYTES.len() {
                    BYTES[pick]
                } else {
                    b'a' + (pick % 26) as u8
                };
            }
            if round % 3 == 0 {
                block[round % 64] = b'\n';
            }
            let (fast, slow) = (classify_line(&block), classify_line_by_bytes(&block));
            match (fast, slow) {
                (None, None) => {}
                (Some(fast), Some(slow)) => {
                    assert_eq!(fast.newline, slow.newline, "{block:?}");
                    let below = (1u64 << fast.newline) - 1;
                    assert_eq!(fast.ends & below, slow.ends & below, "{block:?}");
                    assert_eq!(fast.not_plain & below, slow.not_plain & below, "{block:?}");
                }
                (fast, slow) => panic!(
                    "{block:?}: {:?} against {:?}",
                    fast.map(|m| m.newline),
                    slow.map(|m| m.newline)
                ),
            }
        }
    }
}
