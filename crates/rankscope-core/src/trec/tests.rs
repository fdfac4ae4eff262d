use super::numbers::plain_decimal;
use super::parse::pieces;
use super::*;

/// A xorshift generator of 64-bit words from `seed` (not zero): the tests' inputs, the same
/// on every run.
pub(super) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// A score as the general parser reads it, finite or nothing: what `parse_score` must give.
fn general_score(text: &[u8]) -> Option<f64> {
    fast_float2::parse::<f64, _>(text)
        .ok()
        .filter(|v| v.is_finite())
}

fn run_error(data: &[u8]) -> String {
    parse_run(data, "run.txt", &ReadOptions::default())
        .unwrap_err()
        .to_string()
}

fn qrels_error(data: &[u8]) -> String {
    parse_qrels(data, "qrels.txt", &ReadOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn qrels_keep_the_second_field_as_the_subtopic() {
    let data = b"51 1 d1 1\n51 2 d1 0\n52 1 d2 1\n";
    let qrels = parse_qrels(data, "qrels.txt", &ReadOptions::default())
        .unwrap()
        .table;
    assert_eq!(qrels.subtopic, [0, 1, 0]);
    assert_eq!(qrels.subtopics.name(1), "2");
    // Pieces parsed apart intern their subtopics apart: joined, codes still match names.
    let many: String = (0..20_000)
        .map(|i| format!("q{} s{} d{i} 1\n", i % 7, i % 3))
        .collect();
    let options = ReadOptions::default();
    let qrels = parse_qrels(many.as_bytes(), "qrels.txt", &options)
        .unwrap()
        .table;
    let names: Vec<&str> = (0..qrels.len())
        .map(|i| qrels.subtopics.name(qrels.subtopic[i]))
        .collect();
    assert!(names
        .iter()
        .enumerate()
        .all(|(i, n)| *n == format!("s{}", i % 3)));
}

#[test]
fn reads_a_run_in_file_order() {
    let data =
        b"# a comment\nq2 Q0 d1 1 2.5 bm25\n\n  q1\tQ0 d2 1 -1e3 bm25 extra\r\nq2 Q0 d3 2 1 x\n";
    let run = parse_run(data, "run.txt", &ReadOptions::default())
        .unwrap()
        .table;
    assert_eq!(run.name, "x", "the tag of the last line, as trec_eval");
    assert_eq!(run.query, [0, 1, 0]);
    assert_eq!(run.queries.names().collect::<Vec<_>>(), ["q2", "q1"]);
    assert_eq!(
        (run.docs.get(0), run.docs.get(1), run.docs.get(2)),
        ("d1", "d2", "d3")
    );
    assert_eq!(run.score, [2.5, -1000.0, 1.0]);
}

#[test]
fn reads_qrels() {
    let data = "\u{feff}q1 0 d1 1\nq1 0 d2 -1\nq2 0 d1 2.0\n# q9 0 d9 1\n".as_bytes();
    let qrels = parse_qrels(data, "qrels.txt", &ReadOptions::default())
        .unwrap()
        .table;
    assert_eq!(qrels.grade, [1, -1, 2]);
    assert_eq!(qrels.query_id(2), "q2");
    assert_eq!(qrels.queries.len(), 2);
}

#[test]
fn every_error_has_its_message() {
    let run_fields = "(query_id Q0 doc_id rank score run_tag)";
    let qrels_fields = "(query_id iteration doc_id relevance)";
    assert_eq!(
        run_error(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5\n"),
        format!(
            "run.txt:2: expected at least 6 whitespace-separated fields {run_fields}; found \
             5\n    q1 Q0 d2 2 1.5"
        )
    );
    assert_eq!(
        qrels_error(b"q1 0 d1 1\nq1 0 d2 1 x\n"),
        format!(
            "qrels.txt:2: expected 4 whitespace-separated fields {qrels_fields}; found 5\n    \
             q1 0 d2 1 x"
        )
    );
    assert_eq!(
        qrels_error(b"q1\t0\td1\n"),
        format!(
            "qrels.txt:1: expected 4 whitespace-separated fields {qrels_fields}; found 3\n    \
             q1\t0\td1"
        )
    );
    assert_eq!(
        qrels_error(b"q1 Q0 d1 1 2.5 bm25\n"),
        format!(
            "qrels.txt:1: expected 4 whitespace-separated fields {qrels_fields}; found 6; \
             this is a run line (query_id Q0 doc_id rank score tag): were the qrels and the \
             run given in the wrong order? The qrels come first\n    q1 Q0 d1 1 2.5 bm25"
        )
    );
    assert_eq!(
        run_error(b"q1 0 d1 1\n"),
        format!(
            "run.txt:1: expected at least 6 whitespace-separated fields {run_fields}; found \
             4; this is a qrels line (query_id iteration doc_id relevance): were the qrels \
             and the run given in the wrong order? The qrels come first\n    q1 0 d1 1"
        )
    );
    assert_eq!(
        run_error(b"q1 Q0 d1 1 high bm25\n"),
        "run.txt:1: score must be a finite number; found 'high'\n    q1 Q0 d1 1 high bm25"
    );
    assert_eq!(
        run_error(b"q1\tQ0\td1\t1\t2.0\tbm25\nq1\tQ0\td2\t2\tNaN\tbm25\n"),
        "run.txt:2: score must be a finite number; found 'NaN'\n    q1\tQ0\td2\t2\tNaN\tbm25"
    );
    assert_eq!(
        run_error(b"q1 Q0 d1 1 -inf bm25\n"),
        "run.txt:1: score must be a finite number; found '-inf'\n    q1 Q0 d1 1 -inf bm25"
    );
    assert_eq!(
        run_error(b"q1 Q0 d1 1 1e400 bm25\n"),
        "run.txt:1: score must be a finite number; found '1e400'\n    q1 Q0 d1 1 1e400 bm25"
    );
    assert_eq!(
        qrels_error(b"q1 0 d1 1.5\n"),
        "qrels.txt:1: relevance must be an integer grade; found '1.5'\n    q1 0 d1 1.5"
    );
    assert_eq!(
        qrels_error(b"# header\n\nq1 0 d1 relevant\n"),
        "qrels.txt:3: relevance must be an integer grade; found 'relevant'\n    q1 0 d1 \
         relevant"
    );
    assert_eq!(
        run_error(b""),
        format!("run.txt: file is empty; expected TREC run lines {run_fields}")
    );
    assert_eq!(
        qrels_error(b"# only a comment\n\n   \n"),
        format!(
            "qrels.txt: file holds only comments and blank lines; expected TREC qrels lines \
             {qrels_fields}"
        )
    );
    assert_eq!(
        run_error(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d\xe9 2 1.5 bm25\n"),
        "run.txt:2: line is not valid UTF-8 (byte 8 of the line)\n    q1 Q0 d\u{fffd} 2 1.5 \
         bm25"
    );
    assert_eq!(
        run_error(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d\x002 2 1.5 bm25\n"),
        "run.txt:2: line holds a NUL byte; expected text (is this a binary file?)\n    q1 Q0 \
         d\\x002 2 1.5 bm25"
    );
}

#[test]
fn errors_are_parse_or_empty_input_errors() {
    let bad = parse_run(b"q1 Q0 d1 1 x t\n", "r", &ReadOptions::default()).unwrap_err();
    assert_eq!(bad.kind(), "Parse");
    let empty = parse_qrels(b"\n", "q", &ReadOptions::default()).unwrap_err();
    assert_eq!(empty.kind(), "EmptyInput");
}

#[test]
fn a_line_that_is_not_text_is_reported_before_earlier_field_problems() {
    assert_eq!(
        run_error(b"q1 Q0 d1\nq1 Q0 d\xff 4 1.0 bm25\n"),
        "run.txt:2: line is not valid UTF-8 (byte 8 of the line)\n    q1 Q0 d\u{fffd} 4 1.0 \
         bm25"
    );
}

#[test]
fn lenient_skips_and_counts() {
    let data = b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 nan bm25\nq1 Q0 d3 3\nq1 Q0 d\xff 4 1.0 bm25\n\
                 q2 Q0 d5 1 0.5 bm25\n";
    let lenient = ReadOptions {
        lenient: true,
        first_line: 1,
    };
    let parsed = parse_run(data, "run.txt", &lenient).unwrap();
    assert_eq!(parsed.table.score, [2.5, 0.5]);
    assert_eq!(
        parsed.skipped.warning("run.txt").unwrap(),
        "skipped 3 malformed lines in run.txt; first at line 2: score must be a finite \
         number; found 'nan'"
    );
    let nothing = parse_run(b"q1 Q0 d1\nq1 Q0 d2 2 inf bm25\n", "r.gz", &lenient).unwrap_err();
    assert_eq!(
        nothing.to_string(),
        "r.gz: no valid data: 2 malformed lines skipped and nothing else found; first at \
         line 1: expected at least 6 whitespace-separated fields (query_id Q0 doc_id rank \
         score run_tag); found 3"
    );
}

#[test]
fn line_numbers_count_from_the_first_line_given() {
    let options = ReadOptions {
        lenient: false,
        first_line: 41,
    };
    let error = parse_qrels(b"q1 0 d1 1\n\nq1 0 d2\n", "q", &options).unwrap_err();
    assert_eq!(error.input_problem().unwrap().line, Some(43));
}

#[test]
fn pieces_join_in_file_order_with_the_right_line_numbers() {
    // Several pieces: query codes follow first appearance across them, lines keep counting.
    let mut data = Vec::new();
    for i in 0..200_000 {
        data.extend_from_slice(format!("q{} Q0 d{i} 1 {i} tag\n", i % 7).as_bytes());
    }
    data.extend_from_slice(b"q1 Q0 dx 1 bad tag\n");
    assert!(pieces(&data, 4).len() > 1);
    let error = parse_run(&data, "r", &ReadOptions::default()).unwrap_err();
    assert_eq!(error.input_problem().unwrap().line, Some(200_001));
    data.truncate(data.len() - 19);
    let run = parse_run(&data, "r", &ReadOptions::default())
        .unwrap()
        .table;
    assert_eq!(run.len(), 200_000);
    assert_eq!(
        run.queries.names().take(3).collect::<Vec<_>>(),
        ["q0", "q1", "q2"]
    );
    assert_eq!(
        (run.query_id(199_999), run.docs.get(199_999)),
        ("q2", "d199999")
    );
    assert_eq!(run.score[123_456], 123_456.0);
}

#[test]
fn the_fast_path_of_scores_gives_the_general_parser_s_values() {
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let mut checked = 0;
    for _ in 0..200_000 {
        let r = next();
        let text = match r % 4 {
            0 => format!("{}", (r >> 8) as f64 / (1u64 << (r % 53)) as f64),
            1 => format!("{:.6}", f64::from_bits(r >> 2) % 1e6),
            2 => format!("-{}.{}", (r >> 40) % 100_000, (r >> 3) % 10_000_000),
            _ => format!("{}.{:0>9}", (r >> 20) % 1000, r % 1_000_000_000),
        };
        let general: Option<f64> = fast_float2::parse(text.as_bytes()).ok();
        if let Some(fast) = plain_decimal(text.as_bytes()) {
            assert_eq!(Some(fast.to_bits()), general.map(f64::to_bits), "{text}");
            checked += 1;
        }
    }
    assert!(checked > 100_000);
    for text in [
        "1.",
        ".5",
        "-.5",
        "+1",
        "-0",
        "0.000",
        "12345678901234567",
        "9007199254740993",
    ] {
        let general: Option<f64> = fast_float2::parse(text.as_bytes()).ok();
        assert_eq!(
            parse_score(text.as_bytes()).map(f64::to_bits),
            general.map(f64::to_bits),
            "{text}"
        );
    }
    assert_eq!(plain_decimal(b"."), None);
    assert_eq!(plain_decimal(b"1e5"), None);
    assert_eq!(plain_decimal(b"1.2.3"), None);
}

#[test]
fn scores_of_any_short_text_are_the_general_parser_s() {
    // Texts of digits, points, signs and an exponent up to 20 bytes: the fast path takes or
    // leaves each as the general parser reads it, to the bit.
    let alphabet: &[u8] = b"0123456789012345678901234567890123456789..-+e x";
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let mut fast = 0;
    for _ in 0..300_000 {
        let r = next();
        let length = (r % 21) as usize;
        let mut text: Vec<u8> = (0..length)
            .map(|i| alphabet[((r >> (8 + 2 * i)) ^ next()) as usize % alphabet.len()])
            .collect();
        if r & (1 << 7) != 0 && length > 2 {
            // Mostly digits with one point where it may fall.
            for b in &mut text {
                *b = b'0' + (next() % 10) as u8;
            }
            text[(r >> 3) as usize % length] = b'.';
            if r & (1 << 6) != 0 {
                text[0] = b'-';
            }
        }
        let general = general_score(&text);
        let shown = String::from_utf8_lossy(&text);
        assert_eq!(
            parse_score(&text).map(f64::to_bits),
            general.map(f64::to_bits),
            "{shown}"
        );
        if let Some(value) = plain_decimal(&text) {
            assert_eq!(Some(value.to_bits()), general.map(f64::to_bits), "{shown}");
            fast += 1;
        }
    }
    assert!(fast > 50_000, "{fast}");
    for text in [
        "-",
        "+",
        "",
        "-.",
        "+.",
        "..",
        "0000000000000000.",
        ".000000000000001",
    ] {
        let general: Option<f64> = fast_float2::parse(text.as_bytes()).ok();
        assert_eq!(
            parse_score(text.as_bytes()).map(f64::to_bits),
            general.map(f64::to_bits),
            "{text}"
        );
    }
    assert_eq!(plain_decimal(b"-"), None);
    assert_eq!(
        plain_decimal(b"-0").map(f64::to_bits),
        Some((-0.0f64).to_bits())
    );
    assert_eq!(plain_decimal(b"9007199254740992"), None); // 2^53: not exact for the path
    assert_eq!(
        plain_decimal(b"123456789.1234567"),
        Some(123_456_789.123_456_7)
    );
}

#[test]
fn grades_and_scores_parse_as_the_other_readers_do() {
    // What polars' cast (the readers of the other formats) gives for each text.
    let scores: [(&str, Option<f64>); 27] = [
        ("1.5", Some(1.5)),
        ("1.", Some(1.0)),
        (".5", Some(0.5)),
        ("+1", Some(1.0)),
        ("+.5", Some(0.5)),
        ("-.5", Some(-0.5)),
        ("1e5", Some(1e5)),
        ("1E5", Some(1e5)),
        ("1e", None),
        ("1e+5", Some(1e5)),
        ("0x10", None),
        ("1_0", None),
        ("inf", None),
        ("-INF", None),
        ("Infinity", None),
        (" 1", None),
        ("1d", None),
        ("NaN", None),
        ("00.1", Some(0.1)),
        ("1e400", None),
        ("-0", Some(-0.0)),
        ("1e-400", Some(0.0)),
        ("\u{663}", None),
        (".", None),
        ("-", None),
        ("1,5", None),
        ("1.5.5", None),
    ];
    for (text, expected) in scores {
        assert_eq!(parse_score(text.as_bytes()), expected, "{text}");
    }
    let grades: [(&str, Option<i64>); 25] = [
        ("1", Some(1)),
        ("-1", Some(-1)),
        ("2.0", Some(2)),
        ("1.5", None),
        ("x", None),
        ("+3", Some(3)),
        (" 3", None),
        ("03", Some(3)),
        ("1_0", None),
        ("1e3", Some(1000)),
        ("-0", Some(0)),
        ("9223372036854775807", Some(i64::MAX)),
        ("-9223372036854775808", Some(i64::MIN)),
        ("9223372036854775808", None),
        ("4611686018427387903.0", None),
        ("1e18", Some(1_000_000_000_000_000_000)),
        ("-2.0e0", Some(-2)),
        ("0x1", None),
        ("", None),
        ("2.", Some(2)),
        (".0", Some(0)),
        ("+-1", None),
        ("1e19", None),
        ("inf", None),
        ("nan", None),
    ];
    for (text, expected) in grades {
        assert_eq!(parse_grade(text.as_bytes()), expected, "{text}");
    }
}

#[test]
fn pieces_without_rows_are_empty_tables() {
    let options = ReadOptions {
        lenient: false,
        first_line: 7,
    };
    let qrels = parse_qrels_rows(b"# c\n\n", "q", &options).unwrap().table;
    assert!(qrels.is_empty());
    let error = parse_qrels_rows(b"q1 0 d1 1\nq1 0 d2\n", "q", &options).unwrap_err();
    assert_eq!(error.input_problem().unwrap().line, Some(8));
    let run = parse_run_rows(b"\n", "r", &options).unwrap().table;
    assert!(run.is_empty() && run.name.is_empty());
}

#[test]
fn the_last_run_tag_is_read_from_the_end_of_the_file() {
    let folder = std::env::temp_dir().join(format!("rankscope-tag-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let tag_of = |name: &str, content: &[u8]| {
        let path = folder.join(name);
        std::fs::write(&path, content).unwrap();
        last_run_tag(&path, name).unwrap()
    };
    let mut long = b"q1 Q0 d1 1 1 first\nq1 Q0 d2 2 1 last\n".to_vec();
    long.extend(b"q1 Q0 d3 3 nan bad\n# ".iter().chain(&vec![b'#'; 200_000]));
    assert_eq!(tag_of("long", &long).as_deref(), Some("last"));
    let mut wide = b"q1 Q0 d1 1 1 a\nq1 Q0 d2 2 1 ".to_vec();
    wide.extend(vec![b'x'; 100_000]);
    assert_eq!(tag_of("wide", &wide).map(|t| t.len()), Some(100_000));
    assert_eq!(
        tag_of("bom", b"\xef\xbb\xbfq1 Q0 d 1 1 t\n").as_deref(),
        Some("t")
    );
    assert_eq!(tag_of("none", b"# nothing\nq1 Q0 d\n"), None);
    let missing = last_run_tag(&folder.join("missing"), "missing").unwrap_err();
    assert_eq!(missing.to_string(), "missing: no such file");
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn the_reader_notes_the_first_grade_trec_eval_reads_otherwise_as_the_check_finds_it() {
    // Lines of every layout of white space and grade: of each text read without error, the
    // reader notes what the check over its bytes finds.
    let leads = ["", " ", "\t", "\r", "\x0b"];
    let gaps = [" ", "\t", " \t", "\r", "\x0c", " \x0b"];
    let grades = ["1", "-1", "+2", "1e1", "2.0", "+", "x", "07"];
    let ends = ["", " ", "\t", "\r", "\x0b", "\x0c", " \x0c"];
    let (mut read, mut found_some) = (0, 0);
    for lead in leads {
        for gap in gaps {
            for grade in grades {
                for end in ends {
                    let line = format!("{lead}q1{gap}0{gap}d1 {grade}{end}");
                    for text in [
                        format!("{line}\n"),
                        format!("q0 0 d 1\n# c 0 d 1.5\n{line}"),
                    ] {
                        let options = ReadOptions::default();
                        let Ok(parsed) = parse_qrels(text.as_bytes(), "q", &options) else {
                            continue;
                        };
                        read += 1;
                        let found = non_integer_grade(text.as_bytes());
                        found_some += usize::from(found.is_some());
                        assert_eq!(parsed.non_integer_grade, found, "{text:?}");
                    }
                }
            }
        }
    }
    assert!(
        read > 1000 && found_some > 100 && found_some < read / 2,
        "{read} {found_some}"
    );
    // The first one, in a text parsed in pieces in parallel, numbered in the file.
    let mut text: String = (0..400_000)
        .map(|i| format!("q{} 0 d{i} 1\n", i % 9))
        .collect();
    text.push_str("q1 0 late 1.0\nq2 0 later 1e1\n");
    assert!(text.len() > crate::parallel::PARALLEL_MIN_BYTES);
    let parsed = parse_qrels(text.as_bytes(), "q", &ReadOptions::default()).unwrap();
    let found = parsed.non_integer_grade.unwrap();
    assert_eq!((found.line, found.grade.as_str()), (400_001, "1.0"));
    assert_eq!(Some(found), non_integer_grade(text.as_bytes()));
    // Runs have no grades.
    let run = parse_run(b"q1 Q0 d1 1 1.5 r\n", "r", &ReadOptions::default()).unwrap();
    assert_eq!(run.non_integer_grade, None);
}

#[test]
fn scores_read_a_word_at_a_time_are_the_general_parser_s() {
    // Every length the words of the fast path take (1 to 16 characters after the sign, and
    // 17, past them), every place of the point or none, random digits, and each character in
    // turn replaced by one a word's checks must refuse (bytes next to the digits, a second
    // point, a sign, bytes outside ASCII): to the bit what the general parser reads.
    let refused: &[u8] = b"/:.-+e \x00\x7f\x80\xf0\xfa\xff";
    let mut next = xorshift(0x0123_4567_89ab_cdef);
    let mut fast = 0;
    let mut check = |text: &[u8]| {
        let general = general_score(text);
        let shown = String::from_utf8_lossy(text);
        assert_eq!(
            parse_score(text).map(f64::to_bits),
            general.map(f64::to_bits),
            "{shown}"
        );
        if let Some(value) = plain_decimal(text) {
            assert_eq!(Some(value.to_bits()), general.map(f64::to_bits), "{shown}");
            fast += 1;
        }
    };
    for length in 1..=17 {
        for point in 0..=length {
            for sign in ["", "-", "+"] {
                for _ in 0..40 {
                    let mut text: Vec<u8> = sign.bytes().collect();
                    let digits = text.len();
                    text.extend((0..length).map(|_| b'0' + (next() % 10) as u8));
                    if point < length {
                        text[digits + point] = b'.';
                    }
                    check(&text);
                    let at = digits + (next() as usize % length);
                    text[at] = refused[next() as usize % refused.len()];
                    check(&text);
                }
            }
        }
    }
    assert!(fast > 20_000, "{fast}");
}
