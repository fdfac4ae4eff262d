//! The tokenizers of the reference packages, rule for rule: sacrebleu's `13a`, `zh`, `char` and
//! `none`, and rouge-score's default tokenizer (without stemming). Each is one scan over the
//! text (its characters, Unicode scalar values as Python's `str` holds them; `13a`'s rules over
//! its UTF-8 bytes, where they match as they do over characters), and each splits on
//! whitespace as Python's `str.split()` does.

use std::borrow::Cow;

/// Whitespace as Python's `str.isspace` (and so `str.split()`, `str.strip()`) knows it: Rust's
/// `char::is_whitespace` and the four information separators U+001C..U+001F.
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `text.split()` in Python: the runs of non-whitespace characters.
pub fn split_python(text: &str) -> impl Iterator<Item = &str> {
    text.split(is_python_space)
        .filter(|token| !token.is_empty())
}

/// A tokenizer of the reference packages, by the name they give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tokenizer {
    /// sacrebleu's `13a` (mteval-v13a's): entities unescaped, punctuation split off, a period
    /// or comma kept between digits.
    ThirteenA,
    /// sacrebleu's `zh`: every character in its table of Chinese ranges a token of its own,
    /// the rest as `13a`'s regular expressions split it (without its entity step).
    Zh,
    /// sacrebleu's `char`: every character that is not whitespace.
    Char,
    /// sacrebleu's `none`: whitespace-separated words as they are; also how the bindings hand
    /// over words tokenized elsewhere.
    Whitespace,
    /// rouge-score's default tokenizer: the text lower-cased (Unicode's full mapping), the
    /// runs of ASCII letters and digits.
    Rouge,
}

impl Tokenizer {
    /// The tokenizer called `name` (`13a`, `zh`, `char`, `none`, `rouge`), if there is one.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "13a" => Self::ThirteenA,
            "zh" => Self::Zh,
            "char" => Self::Char,
            "none" => Self::Whitespace,
            "rouge" => Self::Rouge,
            _ => return None,
        })
    }

    /// The tokens of `text`, as the reference package makes them (sacrebleu's BLEU first strips
    /// trailing whitespace, as its `_preprocess_segment` does).
    pub fn tokens(self, text: &str) -> Vec<String> {
        split_python(&self.spaced(text))
            .map(str::to_owned)
            .collect()
    }

    /// `text` with its tokens separated by whitespace ([`split_python`] splits them out).
    pub fn spaced(self, text: &str) -> Cow<'_, str> {
        match self {
            Self::ThirteenA => Cow::Owned(thirteen_a(text.trim_end_matches(is_python_space))),
            Self::Zh => Cow::Owned(zh(text.trim_end_matches(is_python_space))),
            Self::Char => Cow::Owned(char_spaced(text)),
            Self::Whitespace => Cow::Borrowed(text),
            Self::Rouge => Cow::Owned(rouge(text)),
        }
    }
}

/// sacrebleu's `TokenizerChar.__call__`: every character followed by a space.
fn char_spaced(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        out.push(c);
        out.push(' ');
    }
    out
}

/// sacrebleu's `Tokenizer13a.__call__` before its final split, in one pass over the bytes of
/// `line`: its language-independent steps ([`Unescape`]) feed its regular expressions
/// ([`Regexp`]) over the line padded with a space on each side.
fn thirteen_a(line: &str) -> String {
    let mut regexp = Regexp::with_capacity(line.len());
    let mut unescape = Unescape::default();
    regexp.push(b' ');
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'<' && bytes[i..].starts_with(SKIPPED) {
            i += SKIPPED.len();
            continue;
        }
        unescape.push(b, &mut regexp);
        i += 1;
    }
    unescape.finish(&mut regexp);
    regexp.push(b' ');
    regexp.finish()
}

/// What `13a` removes first (`line.replace('<skipped>', '')`).
const SKIPPED: &[u8] = b"<skipped>";

/// `13a`'s entities, each replaced in this order over the whole line (`line.replace(...)`, one
/// after the other: `&amp;lt;` becomes `<`, `&amp;quot;` stays `&quot;`).
const ENTITIES: [(&[u8], u8); 4] = [
    (b"&quot;", b'"'),
    (b"&amp;", b'&'),
    (b"&lt;", b'<'),
    (b"&gt;", b'>'),
];

/// `13a`'s steps after `<skipped>` goes, as a chain of streams, each the exact equivalent of
/// one `str.replace` of the line (left to right, occurrences not overlapping, what it writes
/// never read again by itself): `-\n` removed, `\n` made a space, then each of [`ENTITIES`].
/// Every pattern is ASCII, so bytes of other characters pass through untouched.
#[derive(Default)]
struct Unescape {
    /// A `-` held back: the start of `-\n` or not.
    dash: bool,
    /// How many bytes of each entity the stream before it has matched so far (every entity
    /// starts with its only `&`, so a mismatch can only start again at the byte that broke it).
    matched: [usize; ENTITIES.len()],
}

impl Unescape {
    fn push(&mut self, b: u8, out: &mut Regexp) {
        if !self.dash && self.matched == [0; ENTITIES.len()] && !matches!(b, b'-' | b'\n' | b'&') {
            // Nothing held back and nothing starts: the byte passes every step unchanged.
            out.push(b);
            return;
        }
        if self.dash {
            self.dash = false;
            if b == b'\n' {
                return;
            }
            self.entities(0, b'-', out);
        }
        match b {
            b'-' => self.dash = true,
            b'\n' => self.entities(0, b' ', out),
            _ => self.entities(0, b, out),
        }
    }

    /// `b` into the replacement of entity `k` (and so of those after it).
    fn entities(&mut self, k: usize, b: u8, out: &mut Regexp) {
        let Some(&(pattern, replacement)) = ENTITIES.get(k) else {
            out.push(b);
            return;
        };
        let matched = self.matched[k];
        if matched > 0 && pattern[matched] == b {
            if matched + 1 == pattern.len() {
                self.matched[k] = 0;
                self.entities(k + 1, replacement, out);
            } else {
                self.matched[k] = matched + 1;
            }
            return;
        }
        self.matched[k] = 0;
        for &held in &pattern[..matched] {
            self.entities(k + 1, held, out);
        }
        if b == pattern[0] {
            self.matched[k] = 1;
        } else {
            self.entities(k + 1, b, out);
        }
    }

    /// The end of the line: what is held back passes on.
    fn finish(&mut self, out: &mut Regexp) {
        if std::mem::take(&mut self.dash) {
            self.entities(0, b'-', out);
        }
        for (k, &(pattern, _)) in ENTITIES.iter().enumerate() {
            let matched = std::mem::take(&mut self.matched[k]);
            for &held in &pattern[..matched] {
                self.entities(k + 1, held, out);
            }
        }
    }
}

/// The characters sacrebleu's `zh` tokenizer isolates. Its table compares one-character
/// strings with its bounds, and four of those bounds are two characters long (`'\u20000'` is
/// U+2000 followed by `0`), which makes two of its ranges U+2001..=U+2A6D and U+2F81..=U+2FA1.
const ZH_RANGES: &[(u32, u32)] = &[
    (0x3400, 0x4db5),
    (0x4e00, 0x9fa5),
    (0x9fa6, 0x9fbb),
    (0xf900, 0xfa2d),
    (0xfa30, 0xfa6a),
    (0xfa70, 0xfad9),
    (0x2001, 0x2a6d),
    (0x2f81, 0x2fa1),
    (0xff00, 0xffef),
    (0x2e80, 0x2eff),
    (0x3000, 0x303f),
    (0x31c0, 0x31ef),
    (0x2f00, 0x2fdf),
    (0x2ff0, 0x2fff),
    (0x3100, 0x312f),
    (0x31a0, 0x31bf),
    (0xfe10, 0xfe1f),
    (0xfe30, 0xfe4f),
    (0x2600, 0x26ff),
    (0x2700, 0x27bf),
    (0x3200, 0x32ff),
    (0x3300, 0x33ff),
];

fn is_zh_char(c: char) -> bool {
    let c = u32::from(c);
    ZH_RANGES
        .iter()
        .any(|&(start, end)| (start..=end).contains(&c))
}

/// sacrebleu's `TokenizerZh.__call__` before its final split, in one pass: each character of
/// its table between spaces, then [`Regexp`].
fn zh(line: &str) -> String {
    let mut regexp = Regexp::with_capacity(line.len());
    let mut buffer = [0u8; 4];
    for c in line.trim_matches(is_python_space).chars() {
        if is_zh_char(c) {
            regexp.push(b' ');
            regexp.push_all(c.encode_utf8(&mut buffer).as_bytes());
            regexp.push(b' ');
        } else {
            regexp.push_all(c.encode_utf8(&mut buffer).as_bytes());
        }
    }
    regexp.finish()
}

fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// `[\{-\~\[-\` -\&\(-\+\:-\@\/]`, the characters `13a` surrounds with spaces.
fn is_isolated(b: u8) -> bool {
    matches!(b, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/')
}

/// sacrebleu's `TokenizerRegexp.__call__` before its final split, as one stream: its four
/// substitutions in order, each fed what the one before writes as it writes it.
///
/// The first puts spaces around each character [`is_isolated`] accepts. The other three are a
/// two-character pattern `(a)(b)` each, replaced left to right without overlaps; each holds
/// back at most one byte, the `a` of a match that its next byte completes or not:
///
/// 1. `([^0-9])([\.,])` -> `\1 \2 `: a period or comma not after a digit;
/// 2. `([\.,])([^0-9])` -> ` \1 \2`: a period or comma not before a digit;
/// 3. `([0-9])(-)` -> `\1 \2 `: a dash after a digit.
///
/// Every character a rule looks at is ASCII, and the bytes of any other character are neither
/// digits, `.`, `,` nor `-`: over UTF-8 bytes the rules match where they match over characters,
/// and a space never lands inside a character.
struct Regexp {
    out: Vec<u8>,
    held: [Option<u8>; 3],
}

impl Regexp {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            out: Vec::with_capacity(capacity + capacity / 2 + 16),
            held: [None; 3],
        }
    }

    fn push_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    /// The next byte of the line. A space, which the first substitution would put between two
    /// more, goes on alone: to the other rules a run of spaces is as one (none of them matches
    /// a space but as a `[^0-9]`, and a match takes at most one of them).
    fn push(&mut self, b: u8) {
        if b == b' ' {
            self.period_after(b);
        } else if is_isolated(b) {
            self.period_after(b' ');
            self.period_after(b);
            self.period_after(b' ');
        } else {
            self.period_after(b);
        }
    }

    /// Rule 1.
    fn period_after(&mut self, b: u8) {
        match self.held[0].replace(b) {
            Some(a) if !is_digit(a) && matches!(b, b'.' | b',') => {
                self.held[0] = None;
                for x in [a, b' ', b, b' '] {
                    self.period_before(x);
                }
            }
            Some(a) => self.period_before(a),
            None => {}
        }
    }

    /// Rule 2.
    fn period_before(&mut self, b: u8) {
        match self.held[1].replace(b) {
            Some(a) if matches!(a, b'.' | b',') && !is_digit(b) => {
                self.held[1] = None;
                for x in [b' ', a, b' ', b] {
                    self.dash_after(x);
                }
            }
            Some(a) => self.dash_after(a),
            None => {}
        }
    }

    /// Rule 3.
    fn dash_after(&mut self, b: u8) {
        match self.held[2].replace(b) {
            Some(a) if is_digit(a) && b == b'-' => {
                self.held[2] = None;
                self.out.extend([a, b' ', b, b' ']);
            }
            Some(a) => self.out.push(a),
            None => {}
        }
    }

    /// The end of the line: the bytes held back, rule by rule, then the text.
    fn finish(mut self) -> String {
        if let Some(a) = self.held[0].take() {
            self.period_before(a);
        }
        if let Some(a) = self.held[1].take() {
            self.dash_after(a);
        }
        if let Some(a) = self.held[2].take() {
            self.out.push(a);
        }
        // Whole characters in, ASCII spaces added between them: still UTF-8.
        String::from_utf8(self.out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// rouge-score's `tokenize.tokenize(text, None)`: `text.lower()`, every run of characters
/// other than `[a-z0-9]` a boundary. A character outside ASCII counts through its lower-case
/// form: `İ` lower-cases to `i` and a combining dot, the Kelvin sign to `k`.
fn rouge(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    let mut take = |c: char| {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    };
    for c in text.chars() {
        if c.is_ascii() {
            take(c.to_ascii_lowercase());
        } else {
            c.to_lowercase().for_each(&mut take);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(tokenizer: &str, text: &str) -> Vec<String> {
        Tokenizer::parse(tokenizer).unwrap().tokens(text)
    }

    #[test]
    fn thirteen_a_splits_punctuation_but_not_numbers() {
        // As sacrebleu's 13a tokenizes them.
        assert_eq!(
            tokens("13a", "Hello, world! It's 3.14 and 1,000 (ok)."),
            ["Hello", ",", "world", "!", "It's", "3.14", "and", "1,000", "(", "ok", ")", "."]
        );
        assert_eq!(
            tokens("13a", "a&amp;lt;b 5-3 x-y"),
            ["a", "<", "b", "5", "-", "3", "x-y"]
        );
        assert_eq!(tokens("13a", "end.\n"), ["end", "."]);
        assert_eq!(tokens("13a", "  "), Vec::<String>::new());
    }

    #[test]
    fn thirteen_a_applies_its_steps_in_sacrebleus_order() {
        // Each as sacrebleu's Tokenizer13a splits it: every replacement reads what the one
        // before wrote, each regular expression what the one before wrote, without overlaps.
        let cases: [(&str, &[&str]); 7] = [
            ("a..5", &["a", ".", ".5"]),
            (
                "&amp;quot; &amp;amp; &amp;gt;",
                &["&", "quot", ";", "&", "amp", ";", ">"],
            ),
            ("x-<skipped>\ny", &["xy"]),
            ("a--\n\nb", &["a-", "b"]),
            ("&am<skipped>p;lt;", &["<"]),
            (
                "x.,y 1.-2 9,-",
                &["x", ".", ",", "y", "1", ".", "-2", "9", ",", "-"],
            ),
            ("e.g.,5", &["e", ".", "g", ".", ",5"]),
        ];
        for (line, expected) in cases {
            assert_eq!(tokens("13a", line), expected, "{line:?}");
        }
    }

    #[test]
    fn zh_isolates_its_ranges() {
        assert_eq!(tokens("zh", "我爱 NLP。"), ["我", "爱", "NLP", "。"]);
        // U+2014 (an em dash) is inside the range that starts after U+2000.
        assert_eq!(tokens("zh", "a—b"), ["a", "—", "b"]);
        assert_eq!(tokens("zh", "a\u{2000}b"), ["a", "b"]);
    }

    #[test]
    fn rouge_keeps_ascii_letters_and_digits_lower_cased() {
        assert_eq!(
            tokens("rouge", "The CAT's 2nd café!"),
            ["the", "cat", "s", "2nd", "caf"]
        );
        assert_eq!(tokens("rouge", "İx \u{212a}m"), ["i", "x", "km"]);
        assert_eq!(tokens("rouge", "计算机"), Vec::<String>::new());
    }

    #[test]
    fn python_whitespace_includes_the_separators() {
        assert_eq!(tokens("none", "a\u{1f}b\u{a0}c"), ["a", "b", "c"]);
        assert_eq!(tokens("char", "ab c"), ["a", "b", "c"]);
    }
}
