//! Time the core's plain-file TREC readers, in process (median of repeated reads):
//!
//! ```text
//! cargo run --release -p rankscope-core --example read_files -- [--repeat N] FILE...
//! ```
//!
//! A file whose name ends in `qrels` is read as qrels, any other as a run. Besides the wall
//! time, the CPU time of all the process's threads (from /proc, where there is one), which is
//! steadier than wall time on a busy machine.

use std::path::Path;
use std::time::Instant;

use rankscope_core::trec::{read_qrels_file, read_run_file, ReadOptions};

/// Nanoseconds run by all the process's threads so far (0 where /proc is missing).
fn cpu_nanoseconds() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 7;
    if let Some(i) = args.iter().position(|a| a == "--repeat") {
        repeat = args.get(i + 1).ok_or("--repeat needs a number")?.parse()?;
        if repeat == 0 {
            return Err("--repeat needs at least 1".into());
        }
        args.drain(i..i + 2);
    }
    if args.is_empty() {
        return Err("usage: read_files [--repeat N] FILE...".into());
    }
    for path in &args {
        let mut times = Vec::with_capacity(repeat);
        let mut cpu_times = Vec::with_capacity(repeat);
        let mut rows = 0;
        for _ in 0..repeat {
            let cpu = cpu_nanoseconds();
            let start = Instant::now();
            rows = if path.ends_with("qrels") {
                read_qrels_file(Path::new(path), path, &ReadOptions::default())?
                    .table
                    .len()
            } else {
                read_run_file(Path::new(path), path, &ReadOptions::default())?
                    .table
                    .len()
            };
            times.push(start.elapsed().as_secs_f64() * 1e3);
            cpu_times.push((cpu_nanoseconds() - cpu) as f64 / 1e6);
        }
        let fastest = times.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "{path}: {rows} rows, median {:.1} ms (fastest {fastest:.1}), CPU median {:.1} ms, \
             {repeat} reads",
            median(times),
            median(cpu_times)
        );
    }
    Ok(())
}
