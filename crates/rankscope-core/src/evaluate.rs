//! `evaluate`: from qrels, a run and measures to per-query values and aggregates.

use rayon::prelude::*;

use crate::batch::{QueryView, RankedBatch};
use crate::error::{quoted, Error, Result};
use crate::measures::ir_measures::judged_grades;
use crate::measures::trec_extra::relevance_string;
use crate::measures::{check_profile_support, user, Context, Kernel, Measure, Reads};
use crate::parallel::PARALLEL_MIN_ROWS;
use crate::prepare::{no_common_queries, prepare_listing, Judgements, PrepareOptions, Prepared};
use crate::profile::Conventions;
use crate::table::{Qrels, Run};

pub use crate::measures::kernels::MAX_EXP_GRADE;

/// The options of an evaluation besides the measures.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalOptions {
    /// The profile's conventions (possibly with options changed).
    pub conventions: Conventions,
    /// Lowest grade that counts as relevant for binary measures (trec_eval `-l`): any
    /// integer, compared as trec_eval compares it (below 1, judged non-relevant documents
    /// count; below 0, where a measure compares grades directly, documents absent from the
    /// qrels, graded [`crate::batch::UNJUDGED`], and pooled but unjudged ones too).
    pub relevance_level: i64,
    /// Score judged queries missing from the run as 0 (trec_eval `-c`).
    pub complete: bool,
    /// Evaluate only the first documents of each ranking (trec_eval `-M`; 0 leaves every
    /// ranking empty).
    pub max_documents: Option<usize>,
}

impl EvalOptions {
    /// The defaults for a profile: relevance level 1, not complete, no cut.
    pub fn new(conventions: Conventions) -> Self {
        Self {
            conventions,
            relevance_level: 1,
            complete: false,
            max_documents: None,
        }
    }

    /// What prepare needs of these options.
    pub fn prepare_options(&self) -> PrepareOptions {
        PrepareOptions {
            relevance_level: self.relevance_level,
            complete: self.complete,
            max_documents: self.max_documents,
            subtopics: false,
        }
    }
}

/// Per-query values of each measure, and what was left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The measures, in the order asked.
    pub measures: Vec<Measure>,
    /// The evaluated query ids, byte-wise ascending.
    pub query_ids: Vec<String>,
    /// `values[m][q]`: measure m of query q.
    pub values: Vec<Vec<f64>>,
    /// Queries of the run without judgements (ignored), sorted.
    pub unjudged_queries: Vec<String>,
    /// Judged queries absent from the run (scored 0 if complete, else left out), sorted.
    pub missing_queries: Vec<String>,
    /// The run's name.
    pub run_name: String,
}

impl Evaluation {
    /// Per-query values of measure `m`, in the order of `query_ids`.
    pub fn scores(&self, m: usize) -> &[f64] {
        &self.values[m]
    }

    /// The aggregate of measure `m` over the evaluated queries (its family's aggregate, values
    /// added one at a time in query order); NaN when no query was evaluated.
    pub fn aggregate(&self, m: usize) -> f64 {
        self.measures[m].family.aggregate.apply(&self.values[m])
    }

    /// Every measure's aggregate, in the order of `measures`.
    pub fn aggregates(&self) -> Vec<f64> {
        (0..self.measures.len())
            .map(|m| self.aggregate(m))
            .collect()
    }

    /// The warning about unjudged queries, if there are any.
    pub fn unjudged_warning(&self) -> Option<String> {
        if self.unjudged_queries.is_empty() {
            return None;
        }
        let shown: Vec<&str> = self
            .unjudged_queries
            .iter()
            .take(5)
            .map(String::as_str)
            .collect();
        let more = if self.unjudged_queries.len() > 5 {
            "..."
        } else {
            ""
        };
        Some(format!(
            "{} queries of run {} have no judgements and were ignored: {}{more}",
            self.unjudged_queries.len(),
            quoted(&self.run_name),
            shown.join(", ")
        ))
    }
}

/// Every measure's per-query values on a prepared batch: `values[m][q]`. Queries are scored
/// in parallel, every measure of a query on the same thread.
///
/// Each measure's kernel is bound to its parameters once; the context (the conventions and
/// the relevance level) is passed to every kernel alike. Errors: an answer measure; a measure
/// reading subtopics on a batch prepared without them; a kernel refusing the batch's grades
/// (the exponential gain above [`MAX_EXP_GRADE`], ERR above gdeval's 4). A measure with
/// `judged_only=True` sees the ranking without its unjudged documents. A measure of a family
/// defined at run time is scored by its [`user::Scorer`], once for the whole batch, after the
/// kernels.
pub fn compute(
    batch: &RankedBatch,
    measures: &[Measure],
    conventions: &Conventions,
    relevance_level: i64,
) -> Result<Vec<Vec<f64>>> {
    if measures.iter().any(Measure::is_user_defined) {
        return compute_with_user(batch, measures, conventions, relevance_level);
    }
    let context = Context::new(conventions, relevance_level);
    let kernels: Vec<Box<dyn Kernel>> = measures
        .iter()
        .map(Measure::kernel)
        .collect::<Result<_>>()?;
    if batch.subtopics.is_none() {
        if let Some(m) = measures.iter().find(|m| reads_subtopics(m)) {
            return Err(Error::measure(
                m.name(),
                format!(
                    "{} reads judgements per subtopic, which this batch was prepared without \
                     (PrepareOptions::subtopics)",
                    m.name()
                ),
            ));
        }
    }
    for (m, kernel) in measures.iter().zip(&kernels) {
        kernel.check(&m.name(), batch, &context)?;
    }
    // Asked once, not per query.
    let judged_only: Vec<bool> = kernels.iter().map(|k| k.judged_only()).collect();
    let width = measures.len();
    let queries = batch.num_queries();
    let mut flat = vec![0.0; width * queries];
    let score = |(q, row): (usize, &mut [f64])| {
        let query = batch.query(q);
        for ((value, kernel), &judged_only) in row.iter_mut().zip(&kernels).zip(&judged_only) {
            *value = if judged_only {
                let grades = judged_grades(query.grades);
                let scores = query.scores.map(|scores| {
                    let kept = scores.iter().zip(query.grades).filter(|(_, &g)| g >= 0);
                    kept.map(|(&score, _)| score).collect::<Vec<f64>>()
                });
                kernel.score(
                    &QueryView {
                        grades: &grades,
                        scores: scores.as_deref(),
                        judged_ranks: None,
                        ..query
                    },
                    &context,
                )
            } else {
                kernel.score(&query, &context)
            };
        }
    };
    if width > 0 && batch.grades.len() >= PARALLEL_MIN_ROWS {
        flat.par_chunks_mut(width)
            .with_min_len(64)
            .enumerate()
            .for_each(score);
    } else if width > 0 {
        flat.chunks_mut(width).enumerate().for_each(score);
    }
    Ok((0..width)
        .map(|m| (0..queries).map(|q| flat[q * width + m]).collect())
        .collect())
}

/// [`compute`] of measures some of which are user-defined: the kernels' values as ever, the
/// others from their scorers, in the order of `measures`.
fn compute_with_user(
    batch: &RankedBatch,
    measures: &[Measure],
    conventions: &Conventions,
    relevance_level: i64,
) -> Result<Vec<Vec<f64>>> {
    let native: Vec<Measure> = measures
        .iter()
        .filter(|m| !m.is_user_defined())
        .cloned()
        .collect();
    let mut native_values = compute(batch, &native, conventions, relevance_level)?.into_iter();
    let context = Context::new(conventions, relevance_level);
    let mut values = Vec::with_capacity(measures.len());
    for measure in measures {
        if !measure.is_user_defined() {
            values.push(native_values.next().unwrap_or_default());
            continue;
        }
        let scorer = user::scorer(measure.family).ok_or_else(|| {
            Error::measure(
                measure.name(),
                format!("{} is defined by no scorer here", measure.name()),
            )
        })?;
        let scored = scorer.score(measure, batch, &context)?;
        if scored.len() != batch.num_queries() {
            return Err(Error::measure(
                measure.name(),
                format!(
                    "{} gave {} values for {} queries",
                    measure.name(),
                    scored.len(),
                    batch.num_queries()
                ),
            ));
        }
        values.push(scored);
    }
    Ok(values)
}

/// Whether the measure's kernel reads judgements per subtopic.
fn reads_subtopics(m: &Measure) -> bool {
    matches!(m.family.reads, Reads::Subtopics)
}

/// Evaluate a run against qrels: prepare, then compute every measure.
pub fn evaluate(
    qrels: &Qrels,
    run: &Run,
    measures: &[Measure],
    options: &EvalOptions,
) -> Result<Evaluation> {
    let judgements = Judgements::new(qrels, &options.conventions, options.relevance_level)?;
    evaluate_with(&judgements, run, measures, options)
}

/// [`evaluate`] against qrels indexed once, for evaluating many runs against the same qrels
/// (`judgements` must be indexed with `options`' conventions and relevance level).
pub fn evaluate_with(
    judgements: &Judgements<'_>,
    run: &Run,
    measures: &[Measure],
    options: &EvalOptions,
) -> Result<Evaluation> {
    check_profile_support(measures, &options.conventions)?;
    let (prepared, values) = score(judgements, run, measures, options, options.complete, true)?;
    if prepared.batch.num_queries() == 0 && !options.complete {
        return Err(no_common_queries(
            &run.source,
            run.queries.len(),
            judgements.qrels(),
        ));
    }
    Ok(Evaluation {
        measures: measures.to_vec(),
        query_ids: prepared.batch.query_ids,
        values,
        unjudged_queries: prepared.unjudged_queries,
        missing_queries: prepared.missing_queries,
        run_name: run.name.clone(),
    })
}

/// trec_eval's relstring of every query evaluated (as [`evaluate`] orders them): the first
/// `length` grades of its ranking as characters (see [`relevance_string`]).
pub fn relevance_strings(
    qrels: &Qrels,
    run: &Run,
    options: &EvalOptions,
    length: usize,
) -> Result<Vec<(String, String)>> {
    let judgements = Judgements::new(qrels, &options.conventions, options.relevance_level)?;
    let prepared = prepare_listing(&judgements, run, &options.prepare_options(), false)?;
    let batch = prepared.batch;
    Ok((0..batch.num_queries())
        .map(|q| {
            // trec_eval clears the relstring of a query scored on its placeholder.
            let grades = if prepared.placeholders.contains(&q) {
                &[]
            } else {
                batch.query(q).grades
            };
            (batch.query_ids[q].clone(), relevance_string(grades, length))
        })
        .collect())
}

/// Prepare `run` (with the judged queries it misses if `complete`; listing them if
/// `list_missing`) and compute every measure.
pub(crate) fn score(
    judgements: &Judgements<'_>,
    run: &Run,
    measures: &[Measure],
    options: &EvalOptions,
    complete: bool,
    list_missing: bool,
) -> Result<(Prepared, Vec<Vec<f64>>)> {
    let prepare_options = PrepareOptions {
        complete,
        subtopics: measures.iter().any(reads_subtopics),
        ..options.prepare_options()
    };
    let prepared = prepare_listing(judgements, run, &prepare_options, list_missing)?;
    let mut values = compute(
        &prepared.batch,
        measures,
        &options.conventions,
        options.relevance_level,
    )?;
    for (measure, values) in measures.iter().zip(values.iter_mut()) {
        if cleared_after_placeholder(measure) {
            for &q in &prepared.placeholders {
                values[q] = 0.0;
            }
        }
    }
    Ok((prepared, values))
}

/// Whether trec_eval sets the measure to 0 for a query scored on its placeholder ranking: it
/// clears the values it prints as exactly `num_ret`, `utility` or `rbp_resid`, and every `unj`
/// one (trec_eval.c, after "clean up leftovers"); a measure with parameters of its own prints
/// another name and keeps its value.
fn cleared_after_placeholder(measure: &Measure) -> bool {
    measure.trec_name().is_some_and(|name| {
        matches!(name.as_str(), "num_ret" | "utility" | "rbp_resid") || name.starts_with("unj")
    })
}
