//! Time the measures' kernels alone: a TREC run is read and prepared once, then `compute` runs
//! on the prepared batch, 31 times for each set of measures; prints the median and the fastest.
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo run --release -p rankscope-core --example kernels -- QRELS RUN
//! ```
//!
//! The first set is the benchmark's six measures, the second twelve others of every kind of
//! kernel (counts, interpolation, inferred AP, RBP, ERR, set measures, ranx's).

use std::path::Path;
use std::time::Instant;

use rankscope_core::trec::{read_qrels_file, read_run_file, ReadOptions};
use rankscope_core::{compute, parse_measures, prepare, Conventions, EvalOptions};

const SETS: [&[&str]; 2] = [
    &["nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10"],
    &[
        "R@100",
        "Bpref",
        "Rprec",
        "IPrec@0.5",
        "infAP",
        "RBP",
        "ERR@20",
        "SetF",
        "hits@10",
        "ndcg_burges@10",
        "NumRelRet",
        "Success@10",
    ],
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [qrels_path, run_path, ..] = args.as_slice() else {
        return Err("usage: kernels QRELS RUN".into());
    };
    let read = ReadOptions::default();
    let qrels = read_qrels_file(Path::new(qrels_path), qrels_path, &read)?.table;
    let run = read_run_file(Path::new(run_path), run_path, &read)?.table;
    let options = EvalOptions::new(Conventions::profile("trec")?);
    let batch = prepare(
        &qrels,
        &run,
        &options.conventions,
        &options.prepare_options(),
    )?
    .batch;
    for names in SETS {
        let measures = parse_measures(names)?;
        let mut times = Vec::new();
        for _ in 0..31 {
            let start = Instant::now();
            let values = compute(&batch, &measures, &options.conventions, 1)?;
            times.push(start.elapsed().as_secs_f64());
            std::hint::black_box(values);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{} measures on {} queries: median {:.2} ms, fastest {:.2} ms",
            names.len(),
            batch.num_queries(),
            times[times.len() / 2] * 1e3,
            times[0] * 1e3
        );
    }
    Ok(())
}
