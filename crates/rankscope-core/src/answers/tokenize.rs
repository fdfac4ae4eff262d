//! The tokenizers of the reference packages, rule for rule: sacrebleu's `13a`, `zh`, `char` and
//! `none`, and rouge-score's default tokenizer (without stemming). Each is a scan over the
//! text's characters (Unicode scalar values, as Python's `str` holds them), and each splits on
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

/// sacrebleu's `Tokenizer13a.__call__` before its final split: language-independent steps,
/// then [`regexp`] over the line padded with a space on each side.
fn thirteen_a(line: &str) -> String {
    let mut line = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if line.contains('&') {
        line = line
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    regexp(&format!(" {line} "))
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

/// sacrebleu's `TokenizerZh.__call__` before its final split.
fn zh(line: &str) -> String {
    let mut spaced = String::with_capacity(line.len() * 2);
    for c in line.trim_matches(is_python_space).chars() {
        if is_zh_char(c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
    }
    regexp(&spaced)
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}

/// `[\{-\~\[-\` -\&\(-\+\:-\@\/]`, the characters `13a` surrounds with spaces.
fn is_isolated(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// One `re.sub` of a two-character pattern `(a)(b)`: left to right, matches not overlapping,
/// each match replaced by `emit(a, b, out)`.
fn substitute_pairs(
    line: &str,
    matches: impl Fn(char, char) -> bool,
    emit: impl Fn(char, char, &mut String),
) -> String {
    let mut out = String::with_capacity(line.len() + line.len() / 2);
    let mut chars = line.chars().peekable();
    while let Some(a) = chars.next() {
        match chars.peek() {
            Some(&b) if matches(a, b) => {
                emit(a, b, &mut out);
                chars.next();
            }
            _ => out.push(a),
        }
    }
    out
}

fn push_all(out: &mut String, chars: [char; 4]) {
    out.extend(chars);
}

/// sacrebleu's `TokenizerRegexp.__call__` before its final split: its four substitutions in
/// order.
fn regexp(line: &str) -> String {
    let mut spaced = String::with_capacity(line.len() + 16);
    for c in line.chars() {
        if is_isolated(c) {
            spaced.extend([' ', c, ' ']);
        } else {
            spaced.push(c);
        }
    }
    if spaced.contains(['.', ',']) {
        // ([^0-9])([\.,]) -> \1 \2 : a period or comma not after a digit.
        spaced = substitute_pairs(
            &spaced,
            |a, b| !is_digit(a) && matches!(b, '.' | ','),
            |a, b, out| push_all(out, [a, ' ', b, ' ']),
        );
        // ([\.,])([^0-9]) -> " \1 \2": a period or comma not before a digit.
        spaced = substitute_pairs(
            &spaced,
            |a, b| matches!(a, '.' | ',') && !is_digit(b),
            |a, b, out| push_all(out, [' ', a, ' ', b]),
        );
    }
    if spaced.contains('-') {
        // ([0-9])(-) -> \1 \2 : a dash after a digit.
        spaced = substitute_pairs(
            &spaced,
            |a, b| is_digit(a) && b == '-',
            |a, b, out| push_all(out, [a, ' ', b, ' ']),
        );
    }
    spaced
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
