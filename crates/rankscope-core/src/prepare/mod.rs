//! Prepare: validate, de-duplicate, order and join a run with its qrels into a [`RankedBatch`].
//!
//! The qrels are indexed once ([`Judgements`]): a hash table from (query, document) to the
//! judgement, each query's grades sorted for the ideal ranking. The run's rows are grouped by
//! query (kept as they are when the file already groups them), and every query is then ordered,
//! cut and looked up on its own, queries in parallel. A query already in rank order is only
//! checked, not sorted.
//!
//! One concern a file: `judgements` indexes the qrels, `groups` finds each query's rows in the
//! run, `rank` orders, cuts and looks up one query; this module joins them into the batch.

mod groups;
mod judgements;
mod rank;

pub use judgements::Judgements;

use crate::batch::{RankedBatch, NOT_RETRIEVED};
use crate::error::{quoted, Error, InputProblem, Result};
use crate::parallel::{self, PARALLEL_MIN_ROWS};
use crate::profile::{
    Conventions, DuplicatePolicy, IdealTies, MissingQueryRanking, UnjudgedDocuments,
    UnretrievedJudgements,
};
use crate::table::{Qrels, Run};

use groups::{Entry, QueryGroups, Rows};
use judgements::subtopic_judgements;
use rank::{order_rows, rank_query, reads_scores, Ranked, Scratch};

/// Options of an evaluation that change what is prepared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrepareOptions {
    /// Lowest grade that counts as relevant; used here only by profiles with binary
    /// relevance, whose grades become 0 or 1.
    pub relevance_level: i64,
    /// Include judged queries absent from the run, with an empty ranking (trec_eval `-c`).
    pub complete: bool,
    /// Keep only the first `max_documents` of each query's ranking (trec_eval `-M`).
    pub max_documents: Option<usize>,
    /// Attach the judgements per subtopic (for diversity measures).
    pub subtopics: bool,
}

impl Default for PrepareOptions {
    fn default() -> Self {
        Self {
            relevance_level: 1,
            complete: false,
            max_documents: None,
            subtopics: false,
        }
    }
}

/// A batch with what was left out on the way.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prepared {
    /// The queries to evaluate, by query id (byte-wise ascending).
    pub batch: RankedBatch,
    /// Query ids of the run that have no judgements (ignored, as trec_eval does), sorted.
    pub unjudged_queries: Vec<String>,
    /// Judged query ids absent from the run (scored 0 under `complete`, else left out), sorted.
    pub missing_queries: Vec<String>,
    /// Positions in `batch` of the queries scored on trec_eval's placeholder ranking (judged,
    /// absent from the run, under `complete` and [`MissingQueryRanking::Placeholder`]).
    pub placeholders: Vec<usize>,
}

/// Refuse a document judged twice in one query (unless the profile counts duplicates).
pub fn check_qrels(qrels: &Qrels, conventions: &Conventions) -> Result<()> {
    Judgements::new(qrels, conventions, 1).map(|_| ())
}

/// Join `run` with `qrels` under `conventions` into a [`RankedBatch`].
///
/// Errors: a document judged twice (unless the profile keeps duplicate judgements), a
/// document ranked twice in one evaluated query under [`DuplicatePolicy::Error`] (counted only
/// in judged queries and within `max_documents`, as trec_eval), and no query of the run judged
/// (unless `complete`).
pub fn prepare(
    qrels: &Qrels,
    run: &Run,
    conventions: &Conventions,
    options: &PrepareOptions,
) -> Result<Prepared> {
    let judgements = Judgements::new(qrels, conventions, options.relevance_level)?;
    let prepared = prepare_with(&judgements, run, options)?;
    if prepared.batch.num_queries() == 0 && !options.complete {
        return Err(no_common_queries(&run.source, run.queries.len(), qrels));
    }
    Ok(prepared)
}

/// The error for a run none of whose queries is judged.
pub fn no_common_queries(run_source: &str, run_queries: usize, qrels: &Qrels) -> Error {
    Error::NoCommonQueries(InputProblem::new(format!(
        "no query of the run ({run_source}) is judged in the qrels ({}): the run has \
         {run_queries} queries, the qrels {}, none in common; check that the query ids match",
        qrels.source,
        qrels.queries.len()
    )))
}

/// [`prepare`] with qrels indexed once (streaming prepares many chunks against them). A run
/// with no judged query gives an empty batch here (the caller decides whether that is an
/// error); the missing queries are those of the qrels absent from this run. The conventions
/// and relevance level are those `judgements` were indexed with (`options.relevance_level`
/// is not looked at).
pub fn prepare_with(
    judgements: &Judgements<'_>,
    run: &Run,
    options: &PrepareOptions,
) -> Result<Prepared> {
    prepare_listing(judgements, run, options, true)
}

/// [`prepare_with`]; `list_missing` false leaves `missing_queries` empty (streaming prepares
/// many chunks, each missing nearly every judged query, and finds the missing ones once).
pub(crate) fn prepare_listing(
    judgements: &Judgements<'_>,
    run: &Run,
    options: &PrepareOptions,
    list_missing: bool,
) -> Result<Prepared> {
    let conventions = &judgements.conventions;
    let qrels = judgements.qrels;
    assert!(
        run.len() < u32::MAX as usize,
        "a run (or chunk) holds fewer than 2^32 rows"
    );

    let groups = QueryGroups::of(run);
    let mut entries: Vec<Entry<'_>> = Vec::with_capacity(run.queries.len());
    let mut unjudged: Vec<String> = Vec::new();
    let mut in_run = vec![false; qrels.queries.len()];
    for (code, name) in run.queries.names().enumerate() {
        let rows = match groups.rows(code) {
            Some(rows) => rows,
            // A ranking given empty: the query retrieved nothing.
            None if run.empty_queries.contains(&(code as u32)) => Rows::Range(0, 0),
            None => continue, // an id interned without rows
        };
        match qrels.queries.get(name) {
            Some(qrels_code) => {
                in_run[qrels_code as usize] = true;
                entries.push(Entry {
                    name,
                    qrels_code,
                    run_code: code as u32,
                    rows,
                });
            }
            None => unjudged.push(name.to_string()),
        }
    }
    let mut missing: Vec<String> = Vec::new();
    for (code, name) in qrels.queries.names().enumerate() {
        if !in_run[code] && (list_missing || options.complete) {
            if list_missing {
                missing.push(name.to_string());
            }
            if options.complete {
                entries.push(Entry {
                    name,
                    qrels_code: code as u32,
                    run_code: u32::MAX,
                    rows: Rows::Range(0, 0),
                });
            }
        }
    }
    unjudged.sort_unstable();
    missing.sort_unstable();
    entries.sort_unstable_by(|a, b| a.name.cmp(b.name));

    let ranked: Vec<Ranked> = parallel::map_with_scratch(
        &entries,
        run.len() >= PARALLEL_MIN_ROWS,
        Scratch::default,
        |scratch, entry| rank_query(judgements, run, entry, options, scratch),
    );

    if conventions.duplicate_documents == DuplicatePolicy::Error {
        // The query named is the first of the run that has one, as the run is read.
        let first = entries
            .iter()
            .zip(&ranked)
            .filter_map(|(entry, ranked)| ranked.duplicate.map(|position| (entry, position)))
            .min_by_key(|(entry, _)| entry.run_code);
        if let Some((entry, row)) = first {
            return Err(duplicate_error(run, row, entry.name));
        }
    }

    let total: usize = ranked.iter().map(|r| r.grades.len()).sum();
    let mut batch = RankedBatch {
        query_ids: Vec::with_capacity(entries.len()),
        offsets: Vec::with_capacity(entries.len() + 1),
        grades: Vec::with_capacity(total),
        judged_offsets: Vec::with_capacity(entries.len() + 1),
        judged: Vec::new(),
        num_distinct_relevant: judgements.distinct_relevant.as_ref().map(|_| Vec::new()),
        subtopics: None,
        scores: reads_scores(conventions).then(|| Vec::with_capacity(total)),
        judged_ranks: (conventions.ideal_ties == IdealTies::RunScore).then(Vec::new),
    };
    batch.offsets.push(0);
    batch.judged_offsets.push(0);
    if options.subtopics {
        batch.subtopics = Some(subtopic_judgements(judgements, &entries, &ranked));
    }
    let placeholders: Vec<usize> =
        if conventions.missing_query_ranking == MissingQueryRanking::Placeholder {
            let scored_missing = entries.iter().map(|entry| entry.run_code == u32::MAX);
            scored_missing
                .enumerate()
                .filter_map(|(position, missing)| missing.then_some(position))
                .collect()
        } else {
            Vec::new()
        };
    let own_ideal = conventions.ideal_ties == IdealTies::RunScore
        || conventions.unretrieved_judgements == UnretrievedJudgements::Ignore;
    for (entry, ranked) in entries.iter().zip(ranked) {
        batch.query_ids.push(entry.name.to_string());
        batch.grades.extend_from_slice(&ranked.grades);
        batch.offsets.push(batch.grades.len());
        if let Some(scores) = batch.scores.as_mut() {
            scores.extend_from_slice(&ranked.scores);
        }
        if own_ideal {
            let (grades, ranks) = ideal_ranking(judgements, entry.qrels_code, &ranked);
            batch.judged.extend(grades);
            if let Some(out) = batch.judged_ranks.as_mut() {
                out.extend(ranks);
            }
        } else {
            batch
                .judged
                .extend_from_slice(judgements.ideal_of(entry.qrels_code));
        }
        batch.judged_offsets.push(batch.judged.len());
        if let (Some(out), Some(distinct)) = (
            batch.num_distinct_relevant.as_mut(),
            judgements.distinct_relevant.as_ref(),
        ) {
            out.push(distinct[entry.qrels_code as usize]);
        }
    }
    Ok(Prepared {
        batch,
        unjudged_queries: unjudged,
        missing_queries: missing,
        placeholders,
    })
}

/// One query's judged grades, descending, and (under [`IdealTies::RunScore`]) the rank of
/// each document in the ranking ([`NOT_RETRIEVED`] if absent), equal grades by the run's
/// score descending (an unretrieved document scores 0), ties in the order of the qrels.
/// Under [`UnretrievedJudgements::Ignore`] only the retrieved documents' judgements count,
/// each occurrence of a document ranked twice once.
fn ideal_ranking(
    judgements: &Judgements<'_>,
    qrels_code: u32,
    ranked: &Ranked,
) -> (Vec<i64>, Vec<u32>) {
    let conventions = &judgements.conventions;
    let by_score = conventions.ideal_ties == IdealTies::RunScore;
    // (grade, score, first qrels row, rank) of every document of the ideal ranking.
    let mut ideal: Vec<(i64, f64, u32, u32)> =
        if conventions.unretrieved_judgements == UnretrievedJudgements::Ignore {
            let judged = ranked.grades.iter().enumerate().filter(|(_, &g)| g >= 0);
            judged
                .map(|(rank, &grade)| {
                    let row = ranked.judged_rows.get(rank).copied().flatten();
                    let score = ranked.scores.get(rank).copied().unwrap_or(0.0);
                    (grade, score, row.unwrap_or(u32::MAX), rank as u32)
                })
                .collect()
        } else {
            let grades = judgements.ideal_of(qrels_code);
            let rows = judgements.ideal_rows_of(qrels_code);
            // The first rank of each judged document retrieved, with its score.
            let mut retrieved: hashbrown::HashMap<u32, (u32, f64)> = hashbrown::HashMap::new();
            for (rank, row) in ranked.judged_rows.iter().enumerate() {
                if let Some(row) = *row {
                    let score = ranked.scores.get(rank).copied().unwrap_or(0.0);
                    retrieved.entry(row).or_insert((rank as u32, score));
                }
            }
            grades
                .iter()
                .enumerate()
                .map(|(i, &grade)| match rows.get(i) {
                    Some(&row) => {
                        let (rank, score) =
                            retrieved.get(&row).copied().unwrap_or((NOT_RETRIEVED, 0.0));
                        (grade, score, row, rank)
                    }
                    None => (grade, 0.0, u32::MAX, NOT_RETRIEVED),
                })
                .collect()
        };
    if by_score {
        ideal.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| b.1.partial_cmp(&a.1).expect("scores are finite"))
                .then_with(|| a.2.cmp(&b.2))
        });
    } else {
        ideal.sort_by_key(|d| std::cmp::Reverse(d.0));
    }
    let ranks = if by_score {
        ideal.iter().map(|d| d.3).collect()
    } else {
        Vec::new()
    };
    (ideal.into_iter().map(|d| d.0).collect(), ranks)
}

/// The error for a document ranked twice (at run row `row`) in query `query`.
fn duplicate_error(run: &Run, row: usize, query: &str) -> Error {
    Error::DuplicateDocument(
        InputProblem::new(format!(
            "document {} appears more than once in the run of query {}; each document may be \
             ranked once per query (evaluate(..., duplicate_documents='keep_first') keeps the \
             first, as ranked by score)",
            quoted(run.docs.get(row)),
            quoted(query)
        ))
        .in_source(&run.source)
        .about(query, run.docs.get(row)),
    )
}

/// One query's documents as an evaluation ranks them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedDocuments {
    /// The query's id.
    pub query_id: String,
    /// The run's rows of its documents, in rank order (sorted, de-duplicated and cut as the
    /// conventions and options say).
    pub rows: Vec<u32>,
    /// Each document's grade ([`crate::UNJUDGED`] when the judgements do not hold it).
    pub grades: Vec<i64>,
}

/// Every query of `run` (judged or not; by query id, byte-wise), its documents in the order an
/// evaluation ranks them, with their grades in `judgements` (which may hold no query at all).
/// A document ranked twice is an error, as in [`prepare`], when the conventions say so.
pub fn rank_documents(
    judgements: &Judgements<'_>,
    run: &Run,
    options: &PrepareOptions,
) -> Result<Vec<RankedDocuments>> {
    let groups = QueryGroups::of(run);
    let queries = &judgements.qrels.queries;
    let mut entries: Vec<Entry<'_>> = run
        .queries
        .names()
        .enumerate()
        .filter_map(|(code, name)| {
            let rows = groups.rows(code)?;
            let qrels_code = queries.get(name).unwrap_or(u32::MAX);
            let run_code = code as u32;
            Some(Entry {
                name,
                qrels_code,
                run_code,
                rows,
            })
        })
        .collect();
    entries.sort_unstable_by(|a, b| a.name.cmp(b.name));
    let ranked: Vec<(RankedDocuments, Option<usize>)> = parallel::map_with_scratch(
        &entries,
        run.len() >= PARALLEL_MIN_ROWS,
        Scratch::default,
        |scratch, entry| {
            let duplicate = order_rows(judgements, run, entry, options, scratch, None);
            let grades = if entry.qrels_code == u32::MAX {
                vec![crate::UNJUDGED; scratch.rows.len()]
            } else {
                let table = judgements.query_table(entry.qrels_code);
                let docs = scratch.rows.iter().zip(&scratch.hashes);
                docs.map(|(&r, &h)| table.lookup(run.docs.get_bytes(r as usize), h))
                    .collect()
            };
            let mut rows = scratch.rows.clone();
            let mut grades: Vec<i64> = grades;
            if judgements.conventions.unjudged_documents == UnjudgedDocuments::Drop {
                let kept = rows.iter().zip(&grades).filter(|(_, &g)| g >= 0);
                (rows, grades) = kept.map(|(&row, &grade)| (row, grade)).unzip();
            }
            let documents = RankedDocuments {
                query_id: entry.name.to_string(),
                rows,
                grades,
            };
            (documents, duplicate)
        },
    );
    let first = entries
        .iter()
        .zip(&ranked)
        .filter_map(|(entry, (_, duplicate))| duplicate.map(|row| (entry, row)))
        .min_by_key(|(entry, _)| entry.run_code);
    if let Some((entry, row)) = first {
        return Err(duplicate_error(run, row, entry.name));
    }
    Ok(ranked.into_iter().map(|(documents, _)| documents).collect())
}

/// A one-query batch from lists, for the single-question paths (WeKnora's metric API, the
/// service): `judged` holds `(doc_id, grade)` pairs, `ranking` `(doc_id, score)` pairs; an
/// empty ranking gives a query with nothing retrieved. The rules of [`prepare`]; errors name
/// `<judgements of query q>` or `<ranking of query q>`.
pub fn prepare_query(
    judged: &[(&str, i64)],
    ranking: &[(&str, f64)],
    conventions: &Conventions,
    relevance_level: i64,
    query_id: &str,
) -> Result<RankedBatch> {
    let mut qrels = Qrels::new(format!("<judgements of query {query_id}>"));
    for &(doc, grade) in judged {
        qrels.push(query_id, doc, grade);
    }
    let mut run = Run::new("run", format!("<ranking of query {query_id}>"));
    for &(doc, score) in ranking {
        run.push(query_id, doc, score);
    }
    if judged.is_empty() {
        // No judgement: the query is still evaluated (every measure 0).
        qrels.queries.intern(query_id);
    }
    // One query: its judgements per subtopic (one subtopic) cost next to nothing.
    let options = PrepareOptions {
        relevance_level,
        complete: true,
        max_documents: None,
        subtopics: true,
    };
    Ok(prepare(&qrels, &run, conventions, &options)?.batch)
}

#[cfg(test)]
mod tests;
