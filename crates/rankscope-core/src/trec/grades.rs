//! Grades trec_eval reads otherwise than rankscope: trec_eval reads a qrels grade with atol,
//! which stops at the first character that is not a digit (`1e1` is 1, `2.7` is 2); rankscope
//! reads `1e1` as 10 and refuses `2.7`. `rankscope trec-eval` refuses such a grade rather
//! than print other values than trec_eval's; the qrels reader notes the first one it reads
//! ([`Parsed::non_integer_grade`](super::Parsed::non_integer_grade)), so that the file is not
//! read a second time to find it.

/// Where a qrels line's grade is not an integer, and what trec_eval reads it as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonIntegerGrade {
    /// The line's number (from 1).
    pub line: usize,
    /// The grade as written.
    pub grade: String,
    /// The line, without its end.
    pub text: String,
    /// What trec_eval reads it as.
    pub as_trec_eval: i64,
}

/// The first qrels line of `data` (four fields or more, not a `#` comment) whose fourth field
/// is not an optional sign and digits, if any.
///
/// ```
/// use rankscope_core::trec::non_integer_grade;
///
/// assert_eq!(non_integer_grade(b"q 0 a 1\nq 0 b 2\n"), None);
/// let found = non_integer_grade(b"q 0 a 1\nq 0 b 2.7\n").unwrap();
/// assert_eq!((found.line, found.grade.as_str(), found.as_trec_eval), (2, "2.7", 2));
/// ```
pub fn non_integer_grade(data: &[u8]) -> Option<NonIntegerGrade> {
    data.split(|&b| b == b'\n')
        .enumerate()
        .find_map(|(index, line)| NonIntegerGrade::on_line(index + 1, line))
}

impl NonIntegerGrade {
    /// The grade of `line` (numbered `number`, without its newline) if it is one
    /// [`non_integer_grade`] reports.
    pub(super) fn on_line(number: usize, line: &[u8]) -> Option<Self> {
        // Python's white space of bytes, as the check has always read it.
        let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
        let blank = |b: u8| b == b' ' || b == b'\t';
        let mut at = line.iter().take_while(|&&b| blank(b)).count();
        if line.get(at).map_or(true, |&b| b == b'#' || space(b)) {
            return None;
        }
        // Three fields, each followed by spaces or tabs, then the grade.
        for _ in 0..3 {
            let end = at + line[at..].iter().take_while(|&&b| !space(b)).count();
            let gap = line[end..].iter().take_while(|&&b| blank(b)).count();
            if end == at || gap == 0 {
                return None;
            }
            at = end + gap;
        }
        let end = at + line[at..].iter().take_while(|&&b| !space(b)).count();
        if end == at {
            return None;
        }
        let grade = &line[at..end];
        let ends_well = line
            .get(end)
            .map_or(true, |&b| b == b' ' || b == b'\t' || b == b'\r');
        if signed_digits(grade) && ends_well {
            return None;
        }
        let grade = String::from_utf8_lossy(grade).into_owned();
        let text = String::from_utf8_lossy(line);
        let leading: String = grade
            .char_indices()
            .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && (c == '+' || c == '-')))
            .map(|(_, c)| c)
            .collect();
        Some(Self {
            line: number,
            as_trec_eval: leading.parse().unwrap_or(0),
            grade,
            text: text.trim_end_matches('\r').to_string(),
        })
    }
}

/// Whether a grade the qrels reader read, as the field `grade` followed on its line by the
/// byte `next` (`None`, or the newline, at the line's end), may be one
/// [`NonIntegerGrade::on_line`] reports: cheap enough for every row, and true of every row it
/// reports.
///
/// The reader splits fields at any white space but the newline; `on_line` only at spaces and
/// tabs, and a line with other white space before its grade is none it reports. Where both
/// split alike, its grade is the reader's, and it reports it when that is not a sign and
/// digits, or is followed by a vertical tab or a form feed; where they do not, it reports
/// nothing.
#[inline]
pub(super) fn may_not_be_an_integer(grade: &[u8], next: Option<u8>) -> bool {
    !signed_digits(grade) || matches!(next, Some(0x0b | 0x0c))
}

/// An optional sign, then one digit or more.
#[inline]
fn signed_digits(field: &[u8]) -> bool {
    let digits = field
        .strip_prefix(b"+")
        .or_else(|| field.strip_prefix(b"-"))
        .unwrap_or(field);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_that_are_not_integers_are_found() {
        assert_eq!(
            non_integer_grade(b"# q 0 a 1.5\nq 0 a -1\r\nq 0 a 3 x\n"),
            None
        );
        let found = non_integer_grade(b"q 0 a 1\n  q 0 b 1e1\r\n").unwrap();
        assert_eq!(found.line, 2);
        assert_eq!(found.grade, "1e1");
        assert_eq!(found.text, "  q 0 b 1e1");
        assert_eq!(found.as_trec_eval, 1);
        assert_eq!(non_integer_grade(b"q 0 a x\n").unwrap().as_trec_eval, 0);
        assert_eq!(non_integer_grade(b"q 0 a\n"), None);
        // Only spaces and tabs split the fields before the grade.
        assert_eq!(non_integer_grade(b"q 0 a\r1e1\n\x0bq 0 b 2.0\n"), None);
        assert_eq!(non_integer_grade(b"q 0 a 1\x0b\n").unwrap().grade, "1");
    }

    #[test]
    fn the_reader_s_filter_lets_through_every_grade_reported() {
        for (grade, next, may) in [
            (&b"1"[..], None, false),
            (b"-12", Some(b' '), false),
            (b"+3", Some(b'\r'), false),
            (b"1", Some(0x0b), true),
            (b"1", Some(0x0c), true),
            (b"1e1", None, true),
            (b"2.0", Some(b'\t'), true),
            (b"+", None, true),
        ] {
            assert_eq!(
                may_not_be_an_integer(grade, next),
                may,
                "{grade:?} {next:?}"
            );
        }
    }
}
