//! Evaluate a TREC run against TREC qrels with the core alone, timing each stage, for
//! measuring the core without the bindings:
//!
//! ```text
//! cargo run --release -p rankscope-core --example evaluate_files -- QRELS RUN [--stream]
//!     [--profile NAME] [--per-query] [--chunk-mb MB]
//! ```
//!
//! Prints the aggregate of the benchmark's six measures (with `--per-query`, every query's
//! values first), the time of each stage and the peak resident memory of the process.

use std::path::Path;
use std::time::Instant;

use rankscope_core::stream::{evaluate_run_file, StreamOptions};
use rankscope_core::trec::{read_qrels_file, read_run_file, ReadOptions};
use rankscope_core::{compute, parse_measures, prepare, Conventions, EvalOptions};

fn peak_memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?")
        .to_string()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (qrels_path, run_path) = match args.as_slice() {
        [q, r, ..] => (q.as_str(), r.as_str()),
        _ => return Err("usage: evaluate_files QRELS RUN [--stream]".into()),
    };
    let streaming = args.iter().any(|a| a == "--stream");
    let per_query = args.iter().any(|a| a == "--per-query");
    let profile = args
        .iter()
        .position(|a| a == "--profile")
        .map_or("trec", |i| &args[i + 1]);
    // WeKnora's profile defines P and R over the whole ranking only.
    let measures = if profile == "weknora" {
        parse_measures(&["nDCG@10", "nDCG@3", "AP", "RR", "P", "R"])?
    } else {
        parse_measures(&["nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10"])?
    };
    let options = EvalOptions::new(Conventions::profile(profile)?);
    let start = Instant::now();
    let qrels = read_qrels_file(Path::new(qrels_path), qrels_path, &ReadOptions::default())?.table;
    let read_qrels = start.elapsed();
    let (values, queries, stages) = if streaming {
        let mut stream = StreamOptions::default();
        if let Some(i) = args.iter().position(|a| a == "--chunk-mb") {
            stream.chunk_bytes = args[i + 1].parse::<usize>()? << 20;
        }
        let out = evaluate_run_file(
            &qrels,
            Path::new(run_path),
            run_path,
            &measures,
            &options,
            &stream,
        )?;
        let n = out.evaluation.query_ids.len();
        if per_query {
            for (q, id) in out.evaluation.query_ids.iter().enumerate() {
                let row: Vec<String> = out
                    .evaluation
                    .values
                    .iter()
                    .map(|v| format!("{:?}", v[q]))
                    .collect();
                println!("{id} {}", row.join(" "));
            }
        }
        (
            out.evaluation.aggregates(),
            n,
            format!("stream {:?}", start.elapsed().saturating_sub(read_qrels)),
        )
    } else {
        let t = Instant::now();
        let run = read_run_file(Path::new(run_path), run_path, &ReadOptions::default())?.table;
        let read_run = t.elapsed();
        let t = Instant::now();
        let prepared = prepare(
            &qrels,
            &run,
            &options.conventions,
            &options.prepare_options(),
        )?;
        let prepare_time = t.elapsed();
        let t = Instant::now();
        let values = compute(&prepared.batch, &measures, &options.conventions, 1)?;
        let compute_time = t.elapsed();
        if per_query {
            for (q, id) in prepared.batch.query_ids.iter().enumerate() {
                let row: Vec<String> = values.iter().map(|v| format!("{:?}", v[q])).collect();
                println!("{id} {}", row.join(" "));
            }
        }
        let aggregates = values
            .iter()
            .zip(&measures)
            .map(|(v, m)| m.family.aggregate.apply(v))
            .collect();
        let stages =
            format!("read run {read_run:?}, prepare {prepare_time:?}, compute {compute_time:?}");
        (aggregates, prepared.batch.num_queries(), stages)
    };
    for (m, v) in measures.iter().zip(&values) {
        println!("{:<10} {v:.4}", m.name());
    }
    println!(
        "{queries} queries; read qrels {read_qrels:?}, {stages}; total {:?}",
        start.elapsed()
    );
    println!("{}", peak_memory());
    Ok(())
}
