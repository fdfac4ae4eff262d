//! Streaming: blocks of whole queries, the same values as in memory, errors on the right line.

use super::*;
use crate::evaluate::evaluate;
use crate::measures::parse_measures;
use crate::profile::Conventions;
use crate::trec::parse_qrels;

/// Each block and the line it starts at (the lines of the blocks before it, plus one).
fn numbered<B: Blocks>(mut blocks: B) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut line = 1;
    while let Some(block) = blocks.next_block("run").unwrap() {
        out.push((String::from_utf8(block.to_vec()).unwrap(), line));
        line += memchr::memchr_iter(b'\n', block).count() as u64;
    }
    out
}

fn blocks(data: &[u8], chunk_bytes: usize) -> Vec<(String, u64)> {
    numbered(QueryBlocks::new(data, chunk_bytes))
}

#[test]
fn blocks_hold_whole_queries() {
    let data = b"q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\n# note\nq2 Q0 c 1 1 t\nq3 Q0 d 1 1 t\n";
    assert_eq!(
        blocks(data, 20),
        [
            ("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\n".to_string(), 1),
            ("# note\nq2 Q0 c 1 1 t\n".to_string(), 3),
            ("q3 Q0 d 1 1 t\n".to_string(), 5),
        ]
    );
    // A block of one query is read on until the query ends; the last line may lack its newline.
    assert_eq!(
        blocks(b"q1 x\nq1 y\nq2 z\nq3 w", 4),
        [
            ("q1 x\nq1 y\n".to_string(), 1),
            ("q2 z\nq3 w".to_string(), 3)
        ]
    );
    assert_eq!(
        blocks("\u{feff}q1 x\n".as_bytes(), 1 << 20),
        [("q1 x\n".to_string(), 1)]
    );
}

#[test]
fn run_chunks_are_runs_of_whole_queries_named_by_their_last_line() {
    let data = b"# c\nq1 Q0 a 1 3 t\nq1 Q0 b 2 2 u\n\nq2 Q0 c 1 x v\nq3 Q0 d 1 1 w\n";
    let mut chunks = RunChunks::new(&data[..], 20, "run", true);
    let mut seen = Vec::new();
    while let Some(chunk) = chunks.next_chunk().unwrap() {
        let queries: Vec<&str> = chunk.queries.names().collect();
        seen.push(format!("{} {queries:?} {}", chunk.name, chunk.len()));
    }
    assert_eq!(seen, ["u [\"q1\"] 2", "w [\"q3\"] 1"]);
    assert_eq!(
        chunks.skipped.warning("run").unwrap(),
        "skipped 1 malformed line in run; first at line 5: score must be a finite number; \
         found 'x'"
    );
    let mut strict = RunChunks::new(&data[..], 20, "run", false);
    strict.next_chunk().unwrap();
    let error = strict.next_chunk().unwrap_err();
    assert_eq!(error.input_problem().unwrap().line, Some(5));
    let mut empty = RunChunks::new(&b"# only a comment\n"[..], 20, "run", false);
    assert_eq!(
        empty.next_chunk().unwrap_err().to_string(),
        "run: file holds no TREC run lines; expected query_id Q0 doc_id rank score run_tag"
    );
}

fn qrels() -> Qrels {
    let data = b"q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq3 0 d 1\nq4 0 e 1\n";
    parse_qrels(data, "qrels", &ReadOptions::default())
        .unwrap()
        .table
}

fn options(profile: &str) -> EvalOptions {
    EvalOptions::new(Conventions::profile(profile).unwrap())
}

fn streamed(data: &[u8], profile: &str, stream: &StreamOptions) -> Result<Streamed> {
    let measures = parse_measures(&["nDCG@10", "P", "RR", "AP"]).unwrap();
    evaluate_stream(
        &qrels(),
        || Ok(data),
        "run.txt",
        &measures,
        &options(profile),
        stream,
    )
}

fn small(grouping: Grouping) -> StreamOptions {
    StreamOptions {
        chunk_bytes: 16,
        grouping,
        partitions: 2,
        ..StreamOptions::default()
    }
}

#[test]
fn streaming_gives_the_values_of_reading_whole() {
    let data = b"q2 Q0 c 1 1 t\nq2 Q0 x 2 2 t\nq1 Q0 b 1 5 t\nq1 Q0 a 2 5 t\nq9 Q0 z 1 1 t\n";
    let measures = parse_measures(&["nDCG@10", "P", "RR", "AP"]).unwrap();
    for profile in ["trec", "weknora"] {
        let run = crate::trec::parse_run(data, "run.txt", &ReadOptions::default())
            .unwrap()
            .table;
        let whole = evaluate(&qrels(), &run, &measures, &options(profile)).unwrap();
        for grouping in [Grouping::Grouped, Grouping::Partitioned, Grouping::Detect] {
            let out = streamed(data, profile, &small(grouping)).unwrap();
            assert_eq!(out.evaluation, whole, "{profile} {grouping:?}");
            assert!(out.warnings.is_empty());
        }
    }
}

#[test]
fn a_run_not_grouped_is_refused_or_partitioned() {
    let data = b"q1 Q0 b 1 5 t\nq2 Q0 c 1 1 t\nq1 Q0 a 2 4 t\n";
    let error = streamed(data, "trec", &small(Grouping::Grouped)).unwrap_err();
    assert_eq!(error.kind(), "NotGrouped");
    assert_eq!(
        error.to_string(),
        "run.txt: the run is not grouped by query: query 'q1' appears again after other queries"
    );
    let detected = streamed(data, "trec", &small(Grouping::Detect)).unwrap();
    assert_eq!(
        detected.warnings,
        [
            "run.txt: the run is not grouped by query: query 'q1' appears again after other \
          queries; reading it again through 2 partition files on disk"
        ]
    );
    assert_eq!(detected.evaluation.query_ids, ["q1", "q2"]);
    // q1 ranks b (5) then a (4): both relevant.
    assert_eq!(detected.evaluation.values[3], [1.0, 1.0]);
    // weknora keeps the order of the lines across partitions.
    let weknora = streamed(
        b"q1 Q0 x 1 5 t\nq2 Q0 c 1 1 t\nq1 Q0 a 2 9 t\n",
        "weknora",
        &small(Grouping::Partitioned),
    );
    assert_eq!(weknora.unwrap().evaluation.values[2], [0.5, 1.0]);
}

#[test]
fn errors_name_the_line_in_the_whole_file() {
    let data = b"q1 Q0 a 1 5 t\nq1 Q0 b 2 4 t\nq2 Q0 c 1 1 t\nq3 Q0 d 1 x t\n";
    let error = streamed(data, "trec", &small(Grouping::Grouped)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "run.txt:4: score must be a finite number; found 'x'\n    q3 Q0 d 1 x t"
    );
}

#[test]
fn lenient_counts_every_skipped_line_once() {
    let data = b"q1 Q0 a 1 5 t\nq1 Q0 b\nq2 Q0 c 1 nan t\nq2 Q0 c2\nq3 Q0 d 1 1 t\n";
    let stream = StreamOptions {
        lenient: true,
        ..small(Grouping::Grouped)
    };
    let out = streamed(data, "trec", &stream).unwrap();
    assert_eq!(out.evaluation.query_ids, ["q1", "q3"]);
    assert_eq!(
        out.skipped.warning("run.txt").unwrap(),
        "skipped 3 malformed lines in run.txt; first at line 2: expected at least 6 \
         whitespace-separated fields (query_id Q0 doc_id rank score run_tag); found 3"
    );
}

#[test]
fn empty_runs_and_runs_without_judged_queries() {
    let empty = streamed(b"# nothing\n\n", "trec", &small(Grouping::Grouped)).unwrap_err();
    assert_eq!(
        empty.to_string(),
        "run.txt: file holds no TREC run lines; expected query_id Q0 doc_id rank score run_tag"
    );
    let unjudged = streamed(
        b"x Q0 a 1 1 t\ny Q0 a 1 1 t\n",
        "trec",
        &small(Grouping::Grouped),
    )
    .unwrap_err();
    assert_eq!(
        unjudged.to_string(),
        "no query of the run (run.txt) is judged in the qrels (qrels): the run has 2 queries, \
         the qrels 4, none in common; check that the query ids match"
    );
}

#[test]
fn complete_scores_the_missing_queries() {
    let mut eval = options("trec");
    eval.complete = true;
    let measures = parse_measures(&["P@1", "NumQ"]).unwrap();
    let data: &[u8] = b"q2 Q0 c 1 1 t\nq9 Q0 z 1 1 t\n";
    let out = evaluate_stream(
        &qrels(),
        || Ok(data),
        "run.txt",
        &measures,
        &eval,
        &small(Grouping::Grouped),
    )
    .unwrap();
    assert_eq!(out.evaluation.query_ids, ["q1", "q2", "q3", "q4"]);
    assert_eq!(out.evaluation.values[0], [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(out.evaluation.aggregate(1), 4.0);
    assert_eq!(out.evaluation.missing_queries, ["q1", "q3", "q4"]);
    assert_eq!(out.evaluation.unjudged_queries, ["q9"]);
    assert_eq!(out.evaluation.run_name, "t");
}

/// A file in the temporary folder holding `data`, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, data: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!("rankscope-{}-{name}", std::process::id()));
        std::fs::write(&path, data).unwrap();
        Self(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_mapped_file_gives_the_blocks_a_reader_gives() {
    let texts: [&[u8]; 6] = [
        b"q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\n# note\nq2 Q0 c 1 1 t\nq3 Q0 d 1 1 t\n",
        b"q1 x\nq1 y\nq2 z\nq3 w",
        "\u{feff}q1 x\nq1 y\nq2 z\n".as_bytes(),
        b"\xef\xbb\xbf",
        b"q1 a-very-long-line-longer-than-any-block 1 1 t\n\nq2 Q0 c 1 1 t\n\n",
        b"q1 a\nq1 b\nq1 c\nq1 d\nq1 e\nq2 f\n# last",
    ];
    for (t, text) in texts.iter().enumerate() {
        let file = TempFile::new(&format!("blocks-{t}"), text);
        for chunk_bytes in [1, 3, 4, 7, 16, 20, 1 << 20] {
            let expected = blocks(text, chunk_bytes);
            let mapped = MappedBlocks::open(&file.0, "run", chunk_bytes)
                .unwrap()
                .expect("a regular file is mapped");
            assert_eq!(
                numbered(mapped),
                expected,
                "text {t}, chunk_bytes {chunk_bytes}"
            );
        }
    }
    let empty = TempFile::new("blocks-empty", b"");
    assert!(MappedBlocks::open(&empty.0, "run", 16).unwrap().is_none());
    let missing = std::env::temp_dir().join("rankscope-no-such-file.run");
    let Err(error) = MappedBlocks::open(&missing, "run.txt", 16) else {
        panic!("a missing file is an error");
    };
    assert_eq!(error.to_string(), "run.txt: no such file");
}

#[test]
fn a_run_file_streamed_mapped_gives_what_it_gives_read() {
    let measures = parse_measures(&["nDCG@10", "P", "RR", "AP"]).unwrap();
    let grouped: &[u8] =
        b"q2 Q0 c 1 1 t\nq2 Q0 x 2 2 t\nq1 Q0 b 1 5 t\nq1 Q0 a 2 5 t\nq9 Q0 z 1 1 u\n";
    let not_grouped: &[u8] = b"q1 Q0 b 1 5 t\nq2 Q0 c 1 1 t\nq1 Q0 a 2 4 t\n";
    let bad: &[u8] = b"q1 Q0 b 1 5 t\nq2 Q0 c 1 1 t\nq3 Q0 d 1 x t\n";
    for (t, data) in [grouped, not_grouped, bad].into_iter().enumerate() {
        let file = TempFile::new(&format!("stream-{t}"), data);
        for grouping in [Grouping::Grouped, Grouping::Partitioned, Grouping::Detect] {
            for lenient in [false, true] {
                let stream = StreamOptions {
                    lenient,
                    ..small(grouping)
                };
                let options = options("trec");
                let read = evaluate_stream(
                    &qrels(),
                    || Ok(data),
                    "run.txt",
                    &measures,
                    &options,
                    &stream,
                );
                let mapped =
                    evaluate_run_file(&qrels(), &file.0, "run.txt", &measures, &options, &stream);
                match (read, mapped) {
                    (Ok(read), Ok(mapped)) => assert_eq!(read, mapped, "{t} {grouping:?}"),
                    (Err(read), Err(mapped)) => {
                        assert_eq!(read.to_string(), mapped.to_string(), "{t} {grouping:?}");
                        let line = read.input_problem().and_then(|p| p.line);
                        assert_eq!(line, (t == 2).then_some(3), "{t} {grouping:?}");
                    }
                    (read, mapped) => panic!("{t} {grouping:?}: {read:?} against {mapped:?}"),
                }
            }
        }
    }
}

/// A run of `queries` queries of `docs` documents each (a comment line now and then, and with
/// `bad_line`, a score that is not a number on that line), and qrels judging every query.
fn generated(queries: usize, docs: usize, bad_line: Option<usize>) -> (Vec<u8>, Qrels) {
    let mut run = String::new();
    let mut judged = String::new();
    let mut line = 1;
    for q in 0..queries {
        for d in 0..docs {
            if line == 1 || (q * docs + d) % 997 == 0 {
                run.push_str("# a comment\n");
                line += 1;
            }
            let score = if bad_line == Some(line) {
                "x".to_string()
            } else {
                format!("{}.{:03}", (q * 7 + d * 13) % 50, d % 1000)
            };
            run.push_str(&format!(
                "q{q} Q0 doc-{:05} {} {score} tag\n",
                d * 31 % 9973,
                d + 1
            ));
            line += 1;
        }
        for d in 0..10 {
            judged.push_str(&format!(
                "q{q} 0 doc-{:05} {}\n",
                d * 31 % 9973,
                (q + d) % 3
            ));
        }
    }
    let qrels = parse_qrels(judged.as_bytes(), "qrels", &ReadOptions::default())
        .unwrap()
        .table;
    (run.into_bytes(), qrels)
}

#[test]
fn chunks_read_into_recycled_memory_are_the_chunks_read_fresh() {
    // Past 4 MiB a window is parsed in pieces in parallel, which recycle their own memory.
    let (data, _) = generated(2_000, 120, Some(150_000));
    for chunk_bytes in [1 << 12, 5 << 20] {
        let mut fresh = RunChunks::new(&data[..], chunk_bytes, "run", true);
        let mut reused = RunChunks::new(&data[..], chunk_bytes, "run", true);
        let mut chunks = 0;
        loop {
            match (fresh.next_chunk().unwrap(), reused.next_chunk().unwrap()) {
                (None, None) => break,
                (Some(a), Some(b)) => {
                    assert_eq!(a.name, b.name);
                    assert_eq!(
                        a.queries.names().collect::<Vec<_>>(),
                        b.queries.names().collect::<Vec<_>>()
                    );
                    assert_eq!(a.query, b.query);
                    assert_eq!(a.score, b.score);
                    assert_eq!(a.docs.into_parts(), b.docs.clone().into_parts());
                    reused.recycle(b);
                    chunks += 1;
                }
                (a, b) => panic!(
                    "{chunk_bytes}: {:?} against {:?}",
                    a.map(|r| r.len()),
                    b.map(|r| r.len())
                ),
            }
        }
        assert!(chunks > 1, "{chunk_bytes}: {chunks} chunks");
        assert_eq!(fresh.skipped, reused.skipped);
        assert_eq!(reused.skipped.count, 1);
    }
}

#[test]
fn a_large_run_file_read_ahead_gives_the_values_of_reading_whole() {
    let measures = parse_measures(&["nDCG@10", "P@10", "RR", "AP", "R@100"]).unwrap();
    let options = options("trec");
    let (data, qrels) = generated(2_000, 120, None);
    let file = TempFile::new("ahead", &data);
    let run = crate::trec::parse_run(&data, "run.txt", &ReadOptions::default())
        .unwrap()
        .table;
    let whole = evaluate(&qrels, &run, &measures, &options).unwrap();
    for chunk_bytes in [1 << 16, 3 << 20, 5 << 20] {
        let stream = StreamOptions {
            chunk_bytes,
            ..StreamOptions::default()
        };
        let out =
            evaluate_run_file(&qrels, &file.0, "run.txt", &measures, &options, &stream).unwrap();
        assert_eq!(out.evaluation, whole, "{chunk_bytes}");
        assert!(out.warnings.is_empty());
    }
    // A bad line late in the file stops the reading there, named as reading whole names it.
    let (data, qrels) = generated(2_000, 120, Some(230_000));
    let file = TempFile::new("ahead-bad", &data);
    let whole = crate::trec::parse_run(&data, "run.txt", &ReadOptions::default()).unwrap_err();
    for chunk_bytes in [1 << 16, 5 << 20] {
        let stream = StreamOptions {
            chunk_bytes,
            ..StreamOptions::default()
        };
        let error = evaluate_run_file(&qrels, &file.0, "run.txt", &measures, &options, &stream)
            .unwrap_err();
        assert_eq!(error.to_string(), whole.to_string(), "{chunk_bytes}");
        assert_eq!(error.input_problem().unwrap().line, Some(230_000));
    }
}

#[test]
fn lines_beyond_ascii_in_later_chunks_read_as_reading_whole_reads_them() {
    let measures = parse_measures(&["nDCG@10", "AP"]).unwrap();
    let options = options("trec");
    let (data, qrels) = generated(2_000, 120, None);
    // Documents with ids beyond ASCII (text, checked line by line) throughout the file.
    let text = String::from_utf8(data).unwrap();
    let wide: String = text
        .lines()
        .enumerate()
        .map(|(i, line)| match i % 1_009 {
            7 => format!("{}\n", line.replacen("doc-", "doc-é", 1)),
            11 => format!("{}\r\n", line.replacen("doc-", "dóc-", 1)),
            _ => format!("{line}\n"),
        })
        .collect();
    let run = crate::trec::parse_run(wide.as_bytes(), "run.txt", &ReadOptions::default())
        .unwrap()
        .table;
    let beyond = (0..run.len())
        .filter(|&r| !run.docs.get(r).is_ascii())
        .count();
    assert!(beyond > 400, "{beyond}");
    let whole = evaluate(&qrels, &run, &measures, &options).unwrap();
    let file = TempFile::new("wide", wide.as_bytes());
    let stream = StreamOptions {
        chunk_bytes: 1 << 16,
        ..StreamOptions::default()
    };
    let out = evaluate_run_file(&qrels, &file.0, "run.txt", &measures, &options, &stream).unwrap();
    assert_eq!(out.evaluation, whole);
    // A line that is not text, far into the file: named with its line, as reading whole names
    // it.
    let mut bad = wide.into_bytes();
    let at = bad.len() * 3 / 4;
    let start = memchr::memchr(b'\n', &bad[at..]).unwrap() + at + 1;
    bad[start + 1] = 0xff;
    let line = 1 + memchr::memchr_iter(b'\n', &bad[..start]).count() as u64;
    let file = TempFile::new("wide-bad", &bad);
    let expected = crate::trec::parse_run(&bad, "run.txt", &ReadOptions::default()).unwrap_err();
    let error =
        evaluate_run_file(&qrels, &file.0, "run.txt", &measures, &options, &stream).unwrap_err();
    assert_eq!(error.to_string(), expected.to_string());
    assert_eq!(error.input_problem().unwrap().line, Some(line));
    assert!(error.to_string().contains("not valid UTF-8"), "{error}");
}
