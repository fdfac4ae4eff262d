//! Files read in windows (mapped, or read where they cannot be) give what their whole text
//! gives, at every window size; the field split eight bytes at a time gives what a byte at a
//! time gives.

use std::path::{Path, PathBuf};

use super::*;
use super::{fields::*, parse::*, source::*};
use crate::error::Result;
use crate::parallel::PARALLEL_MIN_BYTES;
use crate::table::{Qrels, Run};

#[path = "../../tests/common/mod.rs"]
mod common;
use common::Random;

/// A folder of its own for one test's files, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("rankscope-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Everything a read gives, as text: the rows, ids in code order, the name, the warning; or
/// the error's class and message.
fn describe_run(read: Result<Parsed<Run>>) -> String {
    match read {
        Ok(parsed) => {
            let run = parsed.table;
            let rows: Vec<String> = (0..run.len())
                .map(|i| format!("{} {} {:?}", run.query[i], run.docs.get(i), run.score[i]))
                .collect();
            let queries: Vec<&str> = run.queries.names().collect();
            format!(
                "run {:?} queries {queries:?} rows {rows:?} skipped {:?}",
                run.name,
                parsed.skipped.warning("f")
            )
        }
        Err(error) => format!("{}: {error}", error.kind()),
    }
}

fn describe_qrels(read: Result<Parsed<Qrels>>) -> String {
    match read {
        Ok(parsed) => {
            let qrels = parsed.table;
            let rows: Vec<String> = (0..qrels.len())
                .map(|i| {
                    let subtopic = qrels.subtopic.get(i).map(|&s| qrels.subtopics.name(s));
                    let doc = qrels.docs.get(i);
                    format!("{} {subtopic:?} {doc} {}", qrels.query[i], qrels.grade[i])
                })
                .collect();
            let queries: Vec<&str> = qrels.queries.names().collect();
            let subtopics: Vec<&str> = qrels.subtopics.names().collect();
            format!(
                "qrels queries {queries:?} subtopics {subtopics:?} rows {rows:?} skipped {:?} \
                 non-integer grade {:?}",
                parsed.skipped.warning("f"),
                parsed.non_integer_grade,
            )
        }
        Err(error) => format!("{}: {error}", error.kind()),
    }
}

fn windowed_run(path: &Path, options: &ReadOptions, windows: &Windows) -> String {
    let read = read_windows::<RunLine>(path, "f", options, windows);
    describe_run(read.and_then(|(parsed, head)| finish_run(parsed, &head, "f")))
}

fn windowed_qrels(path: &Path, options: &ReadOptions, windows: &Windows) -> String {
    let read = read_windows::<QrelsLine>(path, "f", options, windows);
    describe_qrels(read.and_then(|(parsed, head)| finish_qrels(parsed, &head, "f")))
}

const STRICT: ReadOptions = ReadOptions {
    lenient: false,
    first_line: 1,
};
const LENIENT: ReadOptions = ReadOptions {
    lenient: true,
    first_line: 1,
};

/// Runs whose lines fall across window boundaries in every way some window size makes.
fn run_texts() -> Vec<Vec<u8>> {
    let long_id = "d".repeat(300);
    let mut texts: Vec<Vec<u8>> = vec![
        b"q1 Q0 d1 1 2.5 a\nq1 Q0 d2 2 1.5 b\r\nq2\tQ0 d3 1 0.5 c".to_vec(),
        b"\xef\xbb\xbf# comment\n\n  \nq2 Q0 d1 1 3 x\r\n\r\nq1 Q0 d2 1 2 y extra fields\r\n"
            .to_vec(),
        format!("q1 Q0 a 1 1 t\nq1 Q0 {long_id} 2 0.5 t\nq2 Q0 b 1 1 last\n").into_bytes(),
        b"".to_vec(),
        b"\xef\xbb\xbf".to_vec(),
        b"\xef\xbb\xbf\n \t\n".to_vec(),
        b"# only\n#comments\n\n".to_vec(),
        b"q1 Q0 d1 1 1 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1e999 t\nq1 Q0 d4 4 4 t\n".to_vec(),
        b"q1 Q0 d1 1 1 t\nq1 Q0 d2 2\nq1 Q0 d3 3 3 t\n".to_vec(),
        b"q1 Q0 d1 1 1 t\nq1 Q0 d2 2 2 t\nq1 Q0 d\xe93 3 3 t\n".to_vec(),
        b"q1 Q0 d1 1 1 t\r\nq1 0 d2 1\r\nq1 Q0 d\x003 3 3 t\r\nq2 Q0 d4 1 nan t\r\nq3 Q0 d5 1 5 u"
            .to_vec(),
        b"q1 Q0 d1 1 nan t\nq1 Q0 d2\n".to_vec(),
    ];
    let mut many = String::new();
    for i in 0..60 {
        many.push_str(&format!(
            "q{} Q0 doc{i} {i} {}.25 run{}\n",
            i % 7,
            60 - i,
            i % 3
        ));
    }
    texts.push(many.into_bytes());
    texts
}

fn qrels_texts() -> Vec<Vec<u8>> {
    vec![
        b"q1 0 d1 1\nq1 0 d2 0\r\nq2 0 d1 2".to_vec(),
        b"\xef\xbb\xbfq1 a d1 1\nq1 b d1 0\n# c\nq2 a d2 1\nq3 c d3 1\n".to_vec(),
        b"q1 0 d1 1\nq1 0 d2 1 x\n".to_vec(),
        b"q1 0 d1 1\nq1 Q0 d2 1 2.5 run\n".to_vec(),
        b"q1 0 d1 1\nq1 0 d2 x\nq1 0 d3\xff 1\nq2 0 d4 1\n".to_vec(),
        b"\n\n".to_vec(),
        b"q1 0 d1 1\nq1 0 d2 1e1\r\nq2 0 d1 2.0\n".to_vec(),
        b"q1 0 d1 +1\nq1 0 d2 x\nq2 0 d1 1\x0b\nq3 0 d4 1.0\n".to_vec(),
    ]
}

/// Strict and lenient reading; lenient only for a text with a field problem before its first
/// line that is not text: strict reading reports the first problem of the first window holding
/// one (a line that is not text first within a window), so there the window size decides which
/// is reported. `whole` describes a text read at once.
fn both_modes(text: &[u8], whole: &impl Fn(&[u8], &ReadOptions) -> String) -> Vec<ReadOptions> {
    let mut start = 0;
    for line in text.split(|&b| b == b'\n') {
        if byte_problem(line).is_some() {
            if whole(&text[..start], &STRICT).starts_with("Parse") {
                return vec![LENIENT];
            }
            break;
        }
        start += line.len() + 1;
    }
    vec![STRICT, LENIENT]
}

/// Every window size from one byte to past the end, mapped and read, gives what the whole text
/// gives (`whole`: the text described; `windowed`: the file at `path` read in windows).
fn assert_windows_agree(
    path: &Path,
    text: &[u8],
    whole: impl Fn(&[u8], &ReadOptions) -> String,
    windowed: impl Fn(&Path, &ReadOptions, &Windows) -> String,
) {
    std::fs::write(path, text).unwrap();
    for options in both_modes(text, &whole) {
        let expected = whole(text, &options);
        for bytes in 1..=text.len() + 1 {
            for map in [true, false] {
                let windows = Windows { bytes, map };
                let got = windowed(path, &options, &windows);
                assert_eq!(got, expected, "{path:?}, {windows:?}, {options:?}");
            }
        }
    }
}

#[test]
fn every_window_size_mapped_or_read_gives_what_the_whole_text_gives() {
    let folder = Folder::new("windows");
    for (t, text) in run_texts().iter().enumerate() {
        let path = folder.0.join(format!("run{t}"));
        let whole =
            |text: &[u8], options: &ReadOptions| describe_run(parse_run(text, "f", options));
        assert_windows_agree(&path, text, whole, windowed_run);
        let by_default = describe_run(read_run_file(&path, "f", &STRICT));
        assert_eq!(by_default, whole(text, &STRICT), "text {t}");
    }
    for (t, text) in qrels_texts().iter().enumerate() {
        let path = folder.0.join(format!("qrels{t}"));
        let whole =
            |text: &[u8], options: &ReadOptions| describe_qrels(parse_qrels(text, "f", options));
        assert_windows_agree(&path, text, whole, windowed_qrels);
    }
    let missing = read_qrels_file(&folder.0.join("nothing"), "nothing", &STRICT);
    assert_eq!(missing.unwrap_err().to_string(), "nothing: no such file");
}

#[test]
fn the_texts_read_in_windows_hold_what_they_should() {
    // The comparison above is only as good as the whole-text reads: a few of them by hand.
    let texts = run_texts();
    let first = parse_run(&texts[0], "f", &STRICT).unwrap().table;
    assert_eq!((first.len(), first.name.as_str()), (3, "c"));
    assert_eq!(first.docs.get(2), "d3");
    let long = parse_run(&texts[2], "f", &STRICT).unwrap().table;
    assert_eq!(long.docs.get(1).len(), 300);
    assert_eq!(
        parse_run(&texts[7], "f", &STRICT).unwrap_err().to_string(),
        "f:3: score must be a finite number; found '1e999'\n    q1 Q0 d3 3 1e999 t"
    );
    assert!(describe_run(parse_run(&texts[4], "f", &STRICT)).contains("file is empty"));
    assert!(describe_run(parse_run(&texts[6], "f", &STRICT)).contains("only comments"));
    let lenient = parse_run(&texts[10], "f", &LENIENT).unwrap();
    assert_eq!(lenient.table.len(), 2);
    assert_eq!(
        (lenient.skipped.count, lenient.skipped.first_line),
        (3, 2),
        "{:?}",
        lenient.skipped
    );
    assert_eq!(lenient.table.name, "u");
    let subtopics = parse_qrels(&qrels_texts()[1], "f", &STRICT).unwrap().table;
    assert_eq!(
        subtopics.subtopics.names().collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
}

#[test]
fn windows_parsed_in_parallel_append_in_file_order() {
    // Two windows each large enough to be cut into pieces parsed in parallel: the second's
    // pieces are appended to the first window's columns, query and subtopic codes renumbered.
    let mut text = String::new();
    let mut line = 0;
    while text.len() < 2 * PARALLEL_MIN_BYTES + (1 << 20) {
        line += 1;
        text.push_str(&format!(
            "q{} s{} doc{line} {}\n",
            line % 97,
            line % 5,
            line % 3
        ));
    }
    let folder = Folder::new("parallel-windows");
    let path = folder.file("qrels", text.as_bytes());
    let windows = Windows {
        bytes: PARALLEL_MIN_BYTES + (1 << 19),
        map: true,
    };
    let whole = parse_qrels(text.as_bytes(), "f", &STRICT).unwrap().table;
    let windowed = describe_qrels(
        read_windows::<QrelsLine>(&path, "f", &STRICT, &windows)
            .and_then(|(parsed, head)| finish_qrels(parsed, &head, "f")),
    );
    assert_eq!(
        windowed,
        describe_qrels(Ok(Parsed {
            table: whole.clone(),
            skipped: Skipped::default(),
            non_integer_grade: None,
        }))
    );
    assert_eq!(whole.len(), line);
    assert_eq!(whole.query_id(line - 1), format!("q{}", line % 97));
    assert_eq!(whole.docs.get(line - 1), format!("doc{line}"));
    let last_subtopic = whole.subtopics.name(whole.subtopic[line - 1]);
    assert_eq!(last_subtopic, format!("s{}", line % 5));

    // An error far into the second window names its line.
    text.push_str("q1 s1 late x\n");
    let path = folder.file("qrels", text.as_bytes());
    let error = read_windows::<QrelsLine>(&path, "f", &STRICT, &windows)
        .err()
        .unwrap();
    assert_eq!(error.input_problem().unwrap().line, Some(line as u64 + 1));
}

#[cfg(unix)]
#[test]
fn a_pipe_is_read_rather_than_mapped() {
    let folder = Folder::new("pipe");
    let pipe = folder.0.join("run.fifo");
    let made = std::process::Command::new("mkfifo").arg(&pipe).status();
    if !made.is_ok_and(|status| status.success()) {
        return; // no mkfifo here: nothing to test
    }
    let text = run_texts().pop().unwrap();
    let writer = {
        let (pipe, text) = (pipe.clone(), text.clone());
        std::thread::spawn(move || std::fs::write(pipe, text).unwrap())
    };
    let piped = describe_run(read_run_file(&pipe, "f", &STRICT));
    writer.join().unwrap();
    assert_eq!(piped, describe_run(parse_run(&text, "f", &STRICT)));
    assert!(piped.contains("doc59"), "{piped}");
}

/// The field split a byte at a time, as the reader had it: the reference.
fn split_byte_by_byte(line: &[u8]) -> (Vec<&[u8]>, usize) {
    let fields: Vec<&[u8]> = line
        .split(|&b| is_space(b))
        .filter(|field| !field.is_empty())
        .collect();
    let count = fields.len();
    (fields, count)
}

#[test]
fn the_split_eight_bytes_at_a_time_agrees_with_a_byte_at_a_time() {
    // Every separator, control bytes that are not separators (kept in the field), `!` (which
    // the borrow of the eight-byte test can flag after a byte below it), UTF-8 and NUL.
    let alphabet: &[u8] = b"   \t\r\x0b\x0c\x01\x08\x0e\x1f\x00!!#ab9.-\xc3\xa9\x7f\xff";
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut text = Vec::new();
    let mut lines = Vec::new();
    for _ in 0..20_000 {
        let length = random.below(80) as usize;
        let line: Vec<u8> = (0..length)
            .map(|_| alphabet[random.below(alphabet.len() as u64) as usize])
            .collect();
        let (expected, count) = split_byte_by_byte(&line);
        let (fields, got) = split_fields::<6>(&line);
        assert_eq!(got, count, "{line:?}");
        assert_eq!(
            &fields[..count.min(6)],
            &expected[..count.min(6)],
            "{line:?}"
        );
        for limit in [4, 6] {
            let split = split_line::<6>(&line, 0, limit);
            let (fields, got, end) = (split.fields, split.count, split.end);
            assert_eq!((got, end), (count.min(limit), line.len()), "{line:?}");
            assert_eq!(&fields[..got.min(6)], &expected[..got.min(6)], "{line:?}");
            assert!(!split.plain || plain_text(&line), "{line:?}");
        }
        text.extend_from_slice(&line);
        text.push(b'\n');
        lines.push(line);
    }
    // Within a text, a line's split stops at its newline, wherever the eight bytes fall.
    let mut start = 0;
    let mut plain_lines = 0;
    for line in &lines {
        let split = split_line::<6>(&text, start, usize::MAX);
        let (fields, count, end) = (split.fields, split.count, split.end);
        // Plain is what a line split from its 64-byte masks is when it is plain text.
        let masked = start + 64 <= text.len() && line.len() < 64;
        assert_eq!(split.plain, masked && plain_text(line), "{line:?}");
        plain_lines += usize::from(split.plain);
        let (expected, expected_count) = split_byte_by_byte(line);
        assert_eq!(
            (count, end),
            (expected_count, start + line.len()),
            "{line:?}"
        );
        assert_eq!(
            &fields[..count.min(6)],
            &expected[..count.min(6)],
            "{line:?}"
        );
        // Counting stops at the limit, also where the line is split from its 64-byte masks.
        for limit in [4, 6] {
            let Split {
                fields,
                count: got,
                end,
                ..
            } = split_line::<6>(&text, start, limit);
            assert_eq!(
                (got, end),
                (expected_count.min(limit), start + line.len()),
                "{line:?}"
            );
            assert_eq!(&fields[..got], &expected[..got], "{line:?}");
        }
        start = end + 1;
    }
    assert!(plain_lines > 100, "{plain_lines}");
}

/// Plain ASCII without a NUL byte: the reference for [`Split::plain`].
fn plain_text(line: &[u8]) -> bool {
    line.iter().all(|&b| b != 0 && b.is_ascii())
}
