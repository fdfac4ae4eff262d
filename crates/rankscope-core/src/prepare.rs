//! Prepare: validate, de-duplicate, order and join a run with its qrels into a [`RankedBatch`].
//!
//! The qrels are indexed once ([`Judgements`]): a hash table from (query, document) to the
//! judgement, each query's grades sorted for the ideal ranking. The run's rows are grouped by
//! query (kept as they are when the file already groups them), and every query is then ordered,
//! cut and looked up on its own, queries in parallel. A query already in rank order is only
//! checked, not sorted.

use std::hash::BuildHasher;
use std::sync::OnceLock;

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::batch::{Label, RankedBatch, SubtopicJudgements, POOLED_UNJUDGED, UNJUDGED};
use crate::error::{py_repr, Error, InputProblem, Result};
use crate::intern::Interner;
use crate::parallel::{self, PARALLEL_MIN_ROWS};
use crate::profile::{Conventions, DuplicatePolicy, Ordering, ScorePrecision, UnjudgedDocuments};
use crate::table::{Qrels, Run, StrColumn};

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
}

/// The qrels indexed for preparing runs: checked once, then used for every run or chunk.
///
/// Each query has its own small open-addressing table from document to its first judgement,
/// so looking up a query's documents stays within a few cache lines.
///
/// Qrels with subtopics (diversity qrels) may judge a document once per subtopic; measures
/// that do not read subtopics see the document's highest grade (a document relevant to any
/// subtopic is relevant to the query, as ndeval counts it for MAP). The judgements per
/// subtopic are indexed on first use ([`SubtopicIndex`]).
#[derive(Debug)]
pub struct Judgements<'a> {
    qrels: &'a Qrels,
    conventions: Conventions,
    relevance_level: i64,
    hasher: DefaultHashBuilder,
    /// Per qrels query: where its table starts in `slots`; its size is a power of two.
    table_offsets: Vec<usize>,
    /// `(upper half of the document's hash, row + 1)`; row + 1 = 0 marks an empty slot.
    slots: Vec<(u32, u32)>,
    /// Per qrels query: its grades (binarized if the profile says so), sorted descending.
    ideal_offsets: Vec<usize>,
    ideal: Vec<i64>,
    /// Per qrels query: distinct relevant documents (profiles keeping duplicate judgements).
    distinct_relevant: Option<Vec<u64>>,
    /// Of documents judged for several subtopics: first row -> highest grade.
    topic_grades: HashMap<u32, i64>,
    /// The judgements per subtopic, indexed when first needed.
    subtopic_index: OnceLock<SubtopicIndex>,
}

/// One query's table filled: the earliest first row of a document judged twice (an error),
/// the distinct relevant documents, and (diversity qrels) `(first row, later row)` of the
/// documents judged again for another subtopic.
type Filled = (Option<u32>, u64, Vec<(u32, u32)>);

/// One query's subtopics: how many, `(first row, label)` of every judgement by first row,
/// and its documents' first rows, document ids descending.
type QuerySubtopics = (u32, Vec<(u32, Label)>, Vec<u32>);

/// Diversity qrels indexed per query: each document's judgements by subtopic.
#[derive(Debug)]
struct SubtopicIndex {
    /// Per qrels query: its subtopics.
    num_subtopics: Vec<u32>,
    /// Per qrels row that is a document's first judgement: the range of its labels.
    doc_labels: Vec<(u32, u32)>,
    labels: Vec<Label>,
    /// Per qrels query: `judged_rows[judged_offsets[q]..judged_offsets[q + 1]]`, the first
    /// rows of its documents, document ids descending (byte-wise).
    judged_offsets: Vec<usize>,
    judged_rows: Vec<u32>,
}

impl<'a> Judgements<'a> {
    /// Index `qrels`; a document judged twice in one query is an error unless the profile
    /// keeps duplicate judgements (the first judgement then gives the document's grade).
    pub fn new(qrels: &'a Qrels, conventions: &Conventions, relevance_level: i64) -> Result<Self> {
        assert!(
            qrels.len() < u32::MAX as usize,
            "qrels hold fewer than 2^32 judgements"
        );
        let queries = qrels.queries.len();
        let (offsets, by_query) = rows_by_query(&qrels.query, queries);

        let mut table_offsets = Vec::with_capacity(queries + 1);
        let mut size_total = 0;
        for q in 0..queries {
            table_offsets.push(size_total);
            size_total += table_size(offsets[q + 1] - offsets[q]);
        }
        table_offsets.push(size_total);
        let mut index = Judgements {
            qrels,
            conventions: conventions.clone(),
            relevance_level,
            hasher: DefaultHashBuilder::default(),
            table_offsets,
            slots: Vec::new(),
            ideal_offsets: Vec::new(),
            ideal: Vec::new(),
            distinct_relevant: None,
            topic_grades: HashMap::new(),
            subtopic_index: OnceLock::new(),
        };
        // A document judged again for another subtopic is not a duplicate.
        let by_subtopic = qrels.has_subtopics() && !conventions.keeps_duplicate_judgements();
        // Each query's table filled on its own, queries in parallel: the earliest first row
        // of a repeated pair, the distinct relevant documents, and (diversity qrels) the
        // repeated rows with their documents' first rows.
        let mut slots = vec![(0, 0); size_total];
        let tables = split_by_offsets(&mut slots, &index.table_offsets);
        let parallel = qrels.len() >= PARALLEL_MIN_ROWS;
        let numbered: Vec<_> = tables.into_iter().enumerate().collect();
        let filled: Vec<Filled> = parallel::map(numbered, parallel, |(q, table)| {
            let mut duplicate: Option<u32> = None;
            let mut distinct = 0;
            let mut repeats = Vec::new();
            for &row in &by_query[offsets[q]..offsets[q + 1]] {
                let doc = qrels.docs.get_bytes(row as usize);
                let hash = index.doc_hash(doc);
                match probe(table, &qrels.docs, doc, hash) {
                    Ok(first) if by_subtopic => repeats.push((first, row)),
                    Ok(first) => duplicate = Some(duplicate.map_or(first, |d| d.min(first))),
                    Err(slot) => {
                        table[slot] = ((hash >> 32) as u32, row + 1);
                        distinct += u64::from(index.grade(qrels.grade[row as usize]) >= 1);
                    }
                }
            }
            if by_subtopic {
                duplicate = same_subtopic_repeat(qrels, &repeats);
            }
            (duplicate, distinct, repeats)
        });
        index.slots = slots;
        let duplicate = filled.iter().filter_map(|(d, _, _)| *d).min();
        if let Some(row) = duplicate.filter(|_| !conventions.keeps_duplicate_judgements()) {
            let row = row as usize;
            let (scope, once) = if by_subtopic {
                let subtopic = qrels.subtopics.name(qrels.subtopic[row]);
                (
                    format!(" for subtopic {}", py_repr(subtopic)),
                    "once per subtopic of a query",
                )
            } else {
                (String::new(), "once per query")
            };
            return Err(Error::DuplicateDocument(
                InputProblem::new(format!(
                    "document {} appears more than once in the qrels of query {}{scope}; each \
                     document may be judged {once}",
                    py_repr(qrels.docs.get(row)),
                    py_repr(qrels.query_id(row))
                ))
                .in_source(&qrels.source),
            ));
        }
        let mut repeated: Vec<u32> = Vec::new();
        for &(first, row) in filled.iter().flat_map(|(_, _, r)| r) {
            let best = index
                .topic_grades
                .entry(first)
                .or_insert(qrels.grade[first as usize]);
            *best = (*best).max(qrels.grade[row as usize]);
            repeated.push(row);
        }
        repeated.sort_unstable();

        // Each query's grades (one per document), sorted descending.
        let (offsets, by_query) = if repeated.is_empty() {
            (offsets, by_query)
        } else {
            let kept: Vec<u32> = by_query
                .into_iter()
                .filter(|row| repeated.binary_search(row).is_err())
                .collect();
            let codes: Vec<u32> = kept.iter().map(|&r| qrels.query[r as usize]).collect();
            let (starts, order) = rows_by_query(&codes, queries);
            (
                starts,
                order.into_iter().map(|i| kept[i as usize]).collect(),
            )
        };
        let mut ideal: Vec<i64> = by_query
            .iter()
            .map(|&row| index.grade(index.topic_grade(row)))
            .collect();
        parallel::map(split_by_offsets(&mut ideal, &offsets), parallel, |grades| {
            grades.sort_unstable_by(|a, b| b.cmp(a))
        });
        if conventions.keeps_duplicate_judgements() {
            index.distinct_relevant = Some(filled.iter().map(|(_, d, _)| *d).collect());
        }
        index.ideal_offsets = offsets;
        index.ideal = ideal;
        Ok(index)
    }

    /// The qrels indexed.
    pub fn qrels(&self) -> &Qrels {
        self.qrels
    }

    /// The judged query ids.
    pub fn queries(&self) -> &Interner {
        &self.qrels.queries
    }

    /// A grade as measures see it: 0 or 1 under binary relevance.
    fn grade(&self, grade: i64) -> i64 {
        if self.conventions.binary_relevance {
            i64::from(grade >= self.relevance_level)
        } else {
            grade
        }
    }

    /// Query `query`'s table.
    #[inline]
    fn table(&self, query: u32) -> &[(u32, u32)] {
        let q = query as usize;
        &self.slots[self.table_offsets[q]..self.table_offsets[q + 1]]
    }

    /// The first judgement of `doc` in qrels query `query`, given the document's hash by
    /// [`Judgements::doc_hash`].
    #[inline]
    fn lookup_row(&self, query: u32, doc: &[u8], doc_hash: u64) -> Option<u32> {
        probe(self.table(query), &self.qrels.docs, doc, doc_hash).ok()
    }

    /// The grade of a document by its first judgement ([`UNJUDGED`] if it has none).
    #[inline]
    fn grade_of(&self, first_row: Option<u32>) -> i64 {
        match first_row {
            Some(row) => match self.grade(self.topic_grade(row)) {
                grade if grade < 0 => POOLED_UNJUDGED,
                grade => grade,
            },
            None => UNJUDGED,
        }
    }

    /// The grade of a document by its first judgement: its highest over subtopics.
    #[inline]
    fn topic_grade(&self, first_row: u32) -> i64 {
        if self.topic_grades.is_empty() {
            return self.qrels.grade[first_row as usize];
        }
        match self.topic_grades.get(&first_row) {
            Some(&grade) => grade,
            None => self.qrels.grade[first_row as usize],
        }
    }

    /// The grade of `doc` in qrels query `query` ([`UNJUDGED`] if not judged), given the
    /// document's hash by [`Judgements::doc_hash`].
    #[inline]
    fn lookup(&self, query: u32, doc: &[u8], doc_hash: u64) -> i64 {
        self.grade_of(self.lookup_row(query, doc, doc_hash))
    }

    /// The judgements per subtopic, indexed on first use.
    fn subtopic_index(&self) -> &SubtopicIndex {
        self.subtopic_index.get_or_init(|| self.index_subtopics())
    }

    /// Group each query's judgements by document (first row), subtopics numbered per query
    /// in order of appearance; qrels without subtopics have one subtopic per query.
    fn index_subtopics(&self) -> SubtopicIndex {
        let qrels = self.qrels;
        let queries = qrels.queries.len();
        let (offsets, by_query) = rows_by_query(&qrels.query, queries);
        let numbered: Vec<usize> = (0..queries).collect();
        let per_query: Vec<QuerySubtopics> =
            parallel::map(numbered, qrels.len() >= PARALLEL_MIN_ROWS, |q| {
                let mut local: Vec<u32> = Vec::new();
                let mut labelled: Vec<(u32, Label)> = Vec::new();
                for &row in &by_query[offsets[q]..offsets[q + 1]] {
                    let doc = qrels.docs.get_bytes(row as usize);
                    let first = self
                        .lookup_row(q as u32, doc, self.doc_hash(doc))
                        .expect("every judged document is in its query's table");
                    let code = qrels.subtopic.get(row as usize).copied().unwrap_or(0);
                    let subtopic = match local.iter().position(|&c| c == code) {
                        Some(i) => i,
                        None => {
                            local.push(code);
                            local.len() - 1
                        }
                    } as u32;
                    let grade = qrels.grade[row as usize];
                    labelled.push((first, Label { subtopic, grade }));
                }
                labelled.sort_by_key(|&(first, label)| (first, label.subtopic));
                let mut firsts: Vec<u32> = labelled.iter().map(|&(f, _)| f).collect();
                firsts.dedup();
                firsts.sort_unstable_by(|&a, &b| {
                    qrels
                        .docs
                        .get_bytes(b as usize)
                        .cmp(qrels.docs.get_bytes(a as usize))
                });
                (local.len() as u32, labelled, firsts)
            });
        let mut index = SubtopicIndex {
            num_subtopics: Vec::with_capacity(queries),
            doc_labels: vec![(0, 0); qrels.len()],
            labels: Vec::with_capacity(qrels.len()),
            judged_offsets: vec![0],
            judged_rows: Vec::new(),
        };
        for (subtopics, labelled, firsts) in per_query {
            index.num_subtopics.push(subtopics);
            for (i, &(first, label)) in labelled.iter().enumerate() {
                if i == 0 || labelled[i - 1].0 != first {
                    let start = index.labels.len() as u32;
                    index.doc_labels[first as usize] = (start, start);
                }
                index.labels.push(label);
                index.doc_labels[first as usize].1 += 1;
            }
            index.judged_rows.extend(firsts);
            index.judged_offsets.push(index.judged_rows.len());
        }
        index
    }

    #[inline]
    fn doc_hash(&self, doc: &[u8]) -> u64 {
        self.hasher.hash_one(doc)
    }

    fn ideal_of(&self, query: u32) -> &[i64] {
        let q = query as usize;
        &self.ideal[self.ideal_offsets[q]..self.ideal_offsets[q + 1]]
    }
}

/// The rows of each query code in their order (a stable counting sort): query q's rows are
/// `rows[starts[q]..starts[q + 1]]`.
fn rows_by_query(codes: &[u32], queries: usize) -> (Vec<usize>, Vec<u32>) {
    let mut starts = vec![0usize; queries + 1];
    for &q in codes {
        starts[q as usize + 1] += 1;
    }
    for q in 0..queries {
        starts[q + 1] += starts[q];
    }
    let mut fill = starts.clone();
    let mut rows = vec![0u32; codes.len()];
    for (row, &q) in codes.iter().enumerate() {
        rows[fill[q as usize]] = row as u32;
        fill[q as usize] += 1;
    }
    (starts, rows)
}

/// Of a query's documents judged more than once (`(first row, later row)` pairs), the
/// earliest row judging a document again for a subtopic it was already judged for, if any.
fn same_subtopic_repeat(qrels: &Qrels, repeats: &[(u32, u32)]) -> Option<u32> {
    let mut firsts: Vec<u32> = repeats.iter().map(|&(first, _)| first).collect();
    firsts.sort_unstable();
    firsts.dedup();
    // (document, subtopic, row) of every judgement: each document's first once, then the rest.
    let subtopic = |row: u32| qrels.subtopic[row as usize];
    let mut judged: Vec<(u32, u32, u32)> = firsts.iter().map(|&f| (f, subtopic(f), f)).collect();
    judged.extend(
        repeats
            .iter()
            .map(|&(first, row)| (first, subtopic(row), row)),
    );
    judged.sort_unstable();
    judged
        .windows(2)
        .filter(|pair| (pair[0].0, pair[0].1) == (pair[1].0, pair[1].1))
        .map(|pair| pair[1].2)
        .min()
}

/// In a query's table (slots `(upper half of the document's hash, row + 1)`, a power of two of
/// them, row + 1 = 0 when empty): `Ok(row)` of the first judgement of `doc`, or `Err(slot)`, the
/// empty slot where it would go.
#[inline]
fn probe(
    table: &[(u32, u32)],
    docs: &StrColumn,
    doc: &[u8],
    hash: u64,
) -> std::result::Result<u32, usize> {
    let mask = table.len() - 1;
    let tag = (hash >> 32) as u32;
    let mut i = hash as usize & mask;
    loop {
        let (slot_tag, row_plus_one) = table[i];
        if row_plus_one == 0 {
            return Err(i);
        }
        let row = row_plus_one - 1;
        if slot_tag == tag && docs.get_bytes(row as usize) == doc {
            return Ok(row);
        }
        i = (i + 1) & mask;
    }
}

/// `values` cut at `offsets` (`offsets.len() - 1` consecutive pieces).
fn split_by_offsets<'v, T>(mut values: &'v mut [T], offsets: &[usize]) -> Vec<&'v mut [T]> {
    let mut pieces = Vec::with_capacity(offsets.len().saturating_sub(1));
    for bounds in offsets.windows(2) {
        let (piece, rest) = values.split_at_mut(bounds[1] - bounds[0]);
        pieces.push(piece);
        values = rest;
    }
    pieces
}

/// Slots for `n` entries: a power of two, at most half full.
fn table_size(n: usize) -> usize {
    (2 * n).next_power_of_two().max(2)
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

/// One query to prepare: its id, its code in the qrels, and its rows in the run (if any).
struct Entry<'r> {
    name: &'r str,
    qrels_code: u32,
    run_code: u32,
    rows: Rows<'r>,
}

/// A query's rows: a range of the run (grouped files) or listed (others).
#[derive(Clone, Copy)]
enum Rows<'r> {
    Range(usize, usize),
    Listed(&'r [u32]),
}

impl Rows<'_> {
    fn len(&self) -> usize {
        match self {
            Rows::Range(start, end) => end - start,
            Rows::Listed(rows) => rows.len(),
        }
    }

    fn fill(&self, out: &mut Vec<u32>) {
        out.clear();
        match *self {
            Rows::Range(start, end) => out.extend(start as u32..end as u32),
            Rows::Listed(rows) => out.extend_from_slice(rows),
        }
    }
}

/// The run's rows grouped by query: ranges when each query's rows are together (as files
/// write them), else listed by a stable counting sort on the query code.
struct QueryGroups {
    /// Per query code: its rows `start..end` (grouped), or its slice of `listed` (not grouped).
    bounds: Vec<(usize, usize)>,
    listed: Option<Vec<u32>>,
}

impl QueryGroups {
    fn of(run: &Run) -> Self {
        let queries = run.queries.len();
        let mut bounds = vec![(usize::MAX, usize::MAX); queries];
        let mut previous: Option<u32> = None;
        let mut grouped = true;
        for (row, &q) in run.query.iter().enumerate() {
            if previous != Some(q) {
                if bounds[q as usize].0 != usize::MAX {
                    grouped = false;
                    break;
                }
                bounds[q as usize].0 = row;
                if let Some(p) = previous {
                    bounds[p as usize].1 = row;
                }
                previous = Some(q);
            }
        }
        if grouped {
            if let Some(p) = previous {
                bounds[p as usize].1 = run.len();
            }
            return Self {
                bounds,
                listed: None,
            };
        }
        let (starts, listed) = rows_by_query(&run.query, queries);
        let bounds = (0..queries).map(|q| (starts[q], starts[q + 1])).collect();
        Self {
            bounds,
            listed: Some(listed),
        }
    }

    /// The rows of query `code`; `None` if it has none.
    fn rows(&self, code: usize) -> Option<Rows<'_>> {
        let (start, end) = self.bounds[code];
        if start == usize::MAX || start == end {
            return None;
        }
        Some(match &self.listed {
            None => Rows::Range(start, end),
            Some(listed) => Rows::Listed(&listed[start..end]),
        })
    }
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
        let Some(rows) = groups.rows(code) else {
            continue; // an id interned without rows
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
            return Err(Error::DuplicateDocument(
                InputProblem::new(format!(
                    "document {} appears more than once in the run of query {}; each document \
                     may be ranked once per query (evaluate(..., \
                     duplicate_documents='keep_first') keeps the first, as ranked by score)",
                    py_repr(run.docs.get(row)),
                    py_repr(entry.name)
                ))
                .in_source(&run.source),
            ));
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
    };
    batch.offsets.push(0);
    batch.judged_offsets.push(0);
    if options.subtopics {
        batch.subtopics = Some(subtopic_judgements(judgements, &entries, &ranked));
    }
    for (entry, Ranked { grades, .. }) in entries.iter().zip(ranked) {
        batch.query_ids.push(entry.name.to_string());
        batch.grades.extend_from_slice(&grades);
        batch.offsets.push(batch.grades.len());
        batch
            .judged
            .extend_from_slice(judgements.ideal_of(entry.qrels_code));
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
    })
}

/// Buffers reused from query to query on one thread.
#[derive(Default)]
struct Scratch {
    rows: Vec<u32>,
    keys: Vec<f64>,
    hashes: Vec<u64>,
    seen: HashTable<u32>,
}

/// The judgements per subtopic of the queries prepared.
fn subtopic_judgements(
    judgements: &Judgements<'_>,
    entries: &[Entry<'_>],
    ranked: &[Ranked],
) -> SubtopicJudgements {
    let index = judgements.subtopic_index();
    let labels_of = |row: u32| {
        let (start, end) = index.doc_labels[row as usize];
        &index.labels[start as usize..end as usize]
    };
    let mut out = SubtopicJudgements {
        judged_offsets: vec![0],
        ..SubtopicJudgements::default()
    };
    for (entry, ranked) in entries.iter().zip(ranked) {
        let q = entry.qrels_code as usize;
        out.num_subtopics.push(index.num_subtopics[q]);
        for row in &ranked.judged_rows {
            out.retrieved.push(row.map_or(&[], labels_of));
        }
        let judged = &index.judged_rows[index.judged_offsets[q]..index.judged_offsets[q + 1]];
        for &row in judged {
            out.judged.push(labels_of(row));
        }
        out.judged_offsets.push(out.judged.len());
    }
    out
}

/// One query prepared.
struct Ranked {
    /// The grades of its documents in rank order.
    grades: Vec<i64>,
    /// Duplicates an error: the run row of the first document ranked twice.
    duplicate: Option<usize>,
    /// With subtopics: the first qrels row of each document (aligned with `grades`).
    judged_rows: Vec<Option<u32>>,
}

/// One query in rank order, cut and de-duplicated.
fn rank_query(
    judgements: &Judgements<'_>,
    run: &Run,
    entry: &Entry<'_>,
    options: &PrepareOptions,
    scratch: &mut Scratch,
) -> Ranked {
    let conventions = &judgements.conventions;
    let max_documents = options.max_documents;
    if entry.rows.len() == 0 {
        return Ranked {
            grades: Vec::new(),
            duplicate: None,
            judged_rows: Vec::new(),
        };
    }
    let Scratch {
        rows,
        keys,
        hashes,
        seen,
    } = scratch;
    entry.rows.fill(rows);
    if conventions.ordering != Ordering::AsGiven {
        let ascending = conventions.ordering == Ordering::ScoreThenDocidAsc;
        keys.clear();
        keys.extend(rows.iter().map(|&r| {
            let score = run.score[r as usize];
            match conventions.score_precision {
                ScorePrecision::Float64 => score,
                ScorePrecision::Float32 => f64::from(score as f32),
            }
        }));
        let before = |a: usize, b: usize| -> std::cmp::Ordering {
            // Score descending, then document id descending (or ascending), byte-wise.
            keys[b]
                .partial_cmp(&keys[a])
                .expect("scores are finite")
                .then_with(|| {
                    let ids = run
                        .docs
                        .get_bytes(rows[b] as usize)
                        .cmp(run.docs.get_bytes(rows[a] as usize));
                    if ascending {
                        ids.reverse()
                    } else {
                        ids
                    }
                })
        };
        let in_order = (1..rows.len()).all(|i| before(i - 1, i) != std::cmp::Ordering::Greater);
        if !in_order {
            let mut order: Vec<usize> = (0..rows.len()).collect();
            order.sort_by(|&a, &b| before(a, b)); // stable: exact repeats keep the input order
            let sorted: Vec<u32> = order.iter().map(|&i| rows[i]).collect();
            *rows = sorted;
        }
    }

    let hash_docs = |rows: &[u32], hashes: &mut Vec<u64>| {
        hashes.clear();
        hashes.extend(
            rows.iter()
                .map(|&r| judgements.doc_hash(run.docs.get_bytes(r as usize))),
        );
    };
    hash_docs(rows, hashes);
    let same_doc =
        |a: u32, b: u32| run.docs.get_bytes(a as usize) == run.docs.get_bytes(b as usize);
    let mut duplicate = None;
    match conventions.duplicate_documents {
        DuplicatePolicy::KeepAll => {}
        DuplicatePolicy::KeepFirst => {
            seen.clear();
            let mut kept = 0;
            for i in 0..rows.len() {
                let (row, hash) = (rows[i], hashes[i]);
                let fresh = seen.find(hash, |&other| same_doc(other, row)).is_none();
                if fresh {
                    seen.insert_unique(hash, row, |&r| {
                        judgements.doc_hash(run.docs.get_bytes(r as usize))
                    });
                    rows[kept] = row;
                    hashes[kept] = hash;
                    kept += 1;
                }
            }
            rows.truncate(kept);
            hashes.truncate(kept);
        }
        DuplicatePolicy::Error => {}
    }
    if let Some(limit) = max_documents {
        rows.truncate(limit);
        hashes.truncate(limit);
    }
    if conventions.duplicate_documents == DuplicatePolicy::Error {
        seen.clear();
        // The first document (in rank order) that appears again later.
        let mut first_repeat: Option<usize> = None;
        for i in 0..rows.len() {
            let (row, hash) = (rows[i], hashes[i]);
            match seen.find(hash, |&other| same_doc(rows[other as usize], row)) {
                Some(&earlier) => {
                    let earlier = earlier as usize;
                    first_repeat = Some(first_repeat.map_or(earlier, |f| f.min(earlier)));
                }
                None => {
                    seen.insert_unique(hash, i as u32, |&j| hashes[j as usize]);
                }
            }
        }
        duplicate = first_repeat.map(|i| rows[i] as usize);
    }
    let mut judged_rows: Vec<Option<u32>> = Vec::new();
    let mut grades: Vec<i64> = if options.subtopics {
        judged_rows.extend(rows.iter().zip(hashes.iter()).map(|(&r, &h)| {
            judgements.lookup_row(entry.qrels_code, run.docs.get_bytes(r as usize), h)
        }));
        judged_rows
            .iter()
            .map(|&row| judgements.grade_of(row))
            .collect()
    } else {
        rows.iter()
            .zip(hashes.iter())
            .map(|(&r, &h)| judgements.lookup(entry.qrels_code, run.docs.get_bytes(r as usize), h))
            .collect()
    };
    if conventions.unjudged_documents == UnjudgedDocuments::Drop {
        // After the cut, as trec_eval -J with -M.
        if options.subtopics {
            let kept: Vec<Option<u32>> = judged_rows
                .iter()
                .zip(&grades)
                .filter(|(_, &g)| g >= 0)
                .map(|(&row, _)| row)
                .collect();
            judged_rows = kept;
        }
        grades.retain(|&g| g >= 0);
    }
    Ranked {
        grades,
        duplicate,
        judged_rows,
    }
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
