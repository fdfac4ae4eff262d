//! The qrels indexed for preparing runs: a table per query from document to judgement, the
//! ideal grades, and the judgements per subtopic.

use std::hash::BuildHasher;
use std::sync::OnceLock;

use hashbrown::{DefaultHashBuilder, HashMap};

use crate::batch::{Label, SubtopicJudgements, POOLED_UNJUDGED, UNJUDGED};
use crate::error::{quoted, Error, InputProblem, Result};
use crate::intern::{same_bytes, Interner};
use crate::parallel::{self, PARALLEL_MIN_ROWS};
use crate::profile::{Conventions, IdealTies};
use crate::table::{Qrels, StrColumn};

use super::groups::{rows_by_query, Entry};
use super::rank::Ranked;

/// The qrels indexed for preparing runs: checked once, then used for every run or chunk.
///
/// Each query has its own small open-addressing table from document to its first judgement,
/// so looking up a query's documents stays within a few cache lines.
///
/// Qrels with subtopics (diversity qrels) may judge a document once per subtopic; measures
/// that do not read subtopics see the document's highest grade (a document relevant to any
/// subtopic is relevant to the query, as ndeval counts it for MAP). The judgements per
/// subtopic are indexed on first use (`SubtopicIndex`).
#[derive(Debug)]
pub struct Judgements<'a> {
    pub(super) qrels: &'a Qrels,
    pub(super) conventions: Conventions,
    relevance_level: i64,
    hasher: DefaultHashBuilder,
    /// Random seeds of [`Judgements::doc_hash`] (from `hasher`, which is seeded at random).
    seeds: [u64; 2],
    /// Per qrels query: where its table starts in `slots`; its size is a power of two.
    table_offsets: Vec<usize>,
    /// `(upper half of the document's hash, row + 1)`; row + 1 = 0 marks an empty slot.
    slots: Vec<(u32, u32)>,
    /// Per qrels query: its grades (binarized if the profile says so), sorted descending.
    ideal_offsets: Vec<usize>,
    ideal: Vec<i64>,
    /// Under [`IdealTies::RunScore`]: the first qrels row of each document of `ideal`, equal
    /// grades in the order of the qrels.
    ideal_rows: Vec<u32>,
    /// Per qrels query: distinct relevant documents (profiles keeping duplicate judgements).
    pub(super) distinct_relevant: Option<Vec<u64>>,
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
        let hasher = DefaultHashBuilder::default();
        // Random per process (hashbrown's seeded hasher), so that no input can aim at a slot;
        // odd, so never zero.
        let seeds = [hasher.hash_one(1u64) | 1, hasher.hash_one(2u64) | 1];
        let mut index = Judgements {
            qrels,
            conventions: conventions.clone(),
            relevance_level,
            hasher,
            seeds,
            table_offsets,
            slots: Vec::new(),
            ideal_offsets: Vec::new(),
            ideal: Vec::new(),
            ideal_rows: Vec::new(),
            distinct_relevant: None,
            topic_grades: HashMap::new(),
            subtopic_index: OnceLock::new(),
        };
        // A document judged again for another subtopic is not a duplicate.
        let by_subtopic = qrels.has_subtopics() && !conventions.keeps_duplicate_judgements();
        // Each query's table filled on its own, queries in parallel: the earliest first row
        // of a repeated pair, the distinct relevant documents, and (diversity qrels) the
        // repeated rows with their documents' first rows.
        // Written with zeros here rather than allocated zeroed (`vec![(0, 0); n]`): the pages of
        // a zeroed allocation are the kernel's shared zero page until written, so each probe's
        // first read and then its write cost a copy-on-write fault, whose flush of the other
        // threads' TLBs interrupts every core (a tenth of the 10M-line run's time under perf).
        let mut slots = Vec::with_capacity(size_total);
        slots.resize(size_total, (0, 0));
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
                    format!(" for subtopic {}", quoted(subtopic)),
                    "once per subtopic of a query",
                )
            } else {
                (String::new(), "once per query")
            };
            return Err(Error::DuplicateDocument(
                InputProblem::new(format!(
                    "document {} appears more than once in the qrels of query {}{scope}; each \
                     document may be judged {once}",
                    quoted(qrels.docs.get(row)),
                    quoted(qrels.query_id(row))
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
        let mut ideal: Vec<i64>;
        if conventions.ideal_ties == IdealTies::RunScore {
            // Documents, not only grades: equal grades in the order of the qrels.
            let mut rows = by_query;
            let grade_of = |row: u32| index.grade(index.topic_grade(row));
            parallel::map(split_by_offsets(&mut rows, &offsets), parallel, |rows| {
                rows.sort_unstable_by_key(|&row| (std::cmp::Reverse(grade_of(row)), row));
            });
            ideal = rows.iter().map(|&row| grade_of(row)).collect();
            index.ideal_rows = rows;
        } else {
            ideal = by_query
                .iter()
                .map(|&row| index.grade(index.topic_grade(row)))
                .collect();
            parallel::map(split_by_offsets(&mut ideal, &offsets), parallel, |grades| {
                grades.sort_unstable_by(|a, b| b.cmp(a));
            });
        }
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

    /// Query `query`'s table, for looking up its documents one after another (the table found
    /// once, not for every document).
    #[inline]
    pub(super) fn query_table(&self, query: u32) -> QueryTable<'_, 'a> {
        let q = query as usize;
        QueryTable {
            judgements: self,
            slots: &self.slots[self.table_offsets[q]..self.table_offsets[q + 1]],
        }
    }

    /// The grade of a document by its first judgement ([`UNJUDGED`] if it has none).
    #[inline]
    pub(super) fn grade_of(&self, first_row: Option<u32>) -> i64 {
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
                        .query_table(q as u32)
                        .lookup_row(doc, self.doc_hash(doc))
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

    /// A document id's hash: ids of 4 to 16 bytes (most) as two overlapping words, mixed by
    /// one folded multiplication with the table's random seed, inlined where it is asked; any
    /// other by the table's hasher.
    #[inline]
    pub(super) fn doc_hash(&self, doc: &[u8]) -> u64 {
        let n = doc.len();
        let eight = |at: usize| u64::from_le_bytes(doc[at..at + 8].try_into().expect("8"));
        let four =
            |at: usize| u64::from(u32::from_le_bytes(doc[at..at + 4].try_into().expect("4")));
        let (first, last) = match n {
            8..=16 => (eight(0), eight(n - 8)),
            4..=7 => (four(0), four(n - 4)),
            _ => return self.hasher.hash_one(doc),
        };
        let product =
            u128::from(first ^ self.seeds[0]) * u128::from(last ^ self.seeds[1] ^ n as u64);
        (product as u64) ^ ((product >> 64) as u64)
    }

    pub(super) fn ideal_of(&self, query: u32) -> &[i64] {
        let q = query as usize;
        &self.ideal[self.ideal_offsets[q]..self.ideal_offsets[q + 1]]
    }

    /// The first qrels rows of [`Judgements::ideal_of`]'s documents (under
    /// [`IdealTies::RunScore`] only; empty otherwise).
    pub(super) fn ideal_rows_of(&self, query: u32) -> &[u32] {
        if self.ideal_rows.is_empty() {
            return &[];
        }
        let q = query as usize;
        &self.ideal_rows[self.ideal_offsets[q]..self.ideal_offsets[q + 1]]
    }
}

/// One query's table of [`Judgements`] (see [`Judgements::query_table`]).
pub(super) struct QueryTable<'j, 'a> {
    judgements: &'j Judgements<'a>,
    /// The query's slots of [`Judgements::slots`](Judgements).
    slots: &'j [(u32, u32)],
}

impl QueryTable<'_, '_> {
    /// The first judgement of `doc` in the query, given the document's hash by
    /// [`Judgements::doc_hash`].
    #[inline]
    pub(super) fn lookup_row(&self, doc: &[u8], doc_hash: u64) -> Option<u32> {
        probe(self.slots, &self.judgements.qrels.docs, doc, doc_hash).ok()
    }

    /// The grade of `doc` in the query ([`UNJUDGED`] if not judged), given the document's
    /// hash by [`Judgements::doc_hash`].
    ///
    /// Always inlined: it is asked once per ranked document, and a call of its own (registers
    /// saved and restored) cost a third of it.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn lookup(&self, doc: &[u8], doc_hash: u64) -> i64 {
        self.judgements.grade_of(self.lookup_row(doc, doc_hash))
    }
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
        if slot_tag == tag && same_bytes(docs.get_bytes(row as usize), doc) {
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

/// Slots for `n` entries: a power of two, at most a quarter full. Every ranked document is
/// looked up and most are not judged, so a lookup mostly ends at an empty slot; at half full
/// the first slot probed held another document so often that whether to probe on was a branch
/// the processor guessed wrong about for a third of the ranked documents (callgrind's branch
/// simulation, `benchmarks/RESULTS-reader.md`).
fn table_size(n: usize) -> usize {
    (4 * n).next_power_of_two().max(2)
}

/// The judgements per subtopic of the queries prepared.
pub(super) fn subtopic_judgements(
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
