//! `RankedBatch`: every query of an evaluation as contiguous arrays.
//!
//! A batch holds Q queries. Two ragged arrays are stored flat with offsets:
//!
//! * `grades[offsets[q]..offsets[q + 1]]`: the grade of each retrieved document of query q, in
//!   rank order ([`UNJUDGED`] for a document without judgement);
//! * `judged[judged_offsets[q]..judged_offsets[q + 1]]`: every judgement of query q, grades
//!   sorted in descending order (the ideal ranking).
//!
//! Kernels see one query at a time through [`QueryView`].
//!
//! When diversity measures are evaluated the batch also holds [`SubtopicJudgements`]: each
//! retrieved document's judgements per subtopic, and each query's judged documents with theirs.

/// Grade of a retrieved document absent from the qrels (trec_eval's RELVALUE_NONPOOL).
pub const UNJUDGED: i64 = -1;

/// Grade of a retrieved document judged with a negative grade: in the pool but not judged
/// (trec_eval's RELVALUE_UNJUDGED; infAP tells it from [`UNJUDGED`], other measures do not).
pub const POOLED_UNJUDGED: i64 = -2;

/// Rankings and judgements of a set of queries, in contiguous arrays.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankedBatch {
    /// Query ids, in the order of the arrays (byte-wise ascending, as results are listed).
    pub query_ids: Vec<String>,
    /// `Q + 1` offsets into `grades`.
    pub offsets: Vec<usize>,
    /// Grades of retrieved documents in rank order; [`UNJUDGED`] where not judged.
    pub grades: Vec<i64>,
    /// `Q + 1` offsets into `judged`.
    pub judged_offsets: Vec<usize>,
    /// Each query's judged grades, sorted descending.
    pub judged: Vec<i64>,
    /// Per query, relevant documents counted once each when the qrels hold duplicates (only
    /// profiles that keep duplicate judgements, i.e. `weknora`; otherwise `None`).
    pub num_distinct_relevant: Option<Vec<u64>>,
    /// Judgements per subtopic (only when a diversity measure is evaluated).
    pub subtopics: Option<SubtopicJudgements>,
    /// The run's score of every retrieved document, aligned with `grades`, at the precision
    /// the ranking was sorted at (only under conventions that read scores: tied scores
    /// averaged, the ideal ranking ordered by run score).
    pub scores: Option<Vec<f64>>,
    /// Aligned with `judged`: the rank (from 0) of each judged document in its query's
    /// ranking, [`NOT_RETRIEVED`] if the run did not retrieve it; documents of equal grade in
    /// the ideal order of [`crate::profile::IdealTies::RunScore`] (only under that convention).
    pub judged_ranks: Option<Vec<u32>>,
}

/// The rank of a judged document the run did not retrieve, in [`RankedBatch::judged_ranks`].
pub const NOT_RETRIEVED: u32 = u32::MAX;

/// One judgement of a document for one subtopic of its query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label {
    /// The subtopic, numbered from 0 within the query.
    pub subtopic: u32,
    /// The grade.
    pub grade: i64,
}

/// Lists of labels stored flat: list `i` is `labels[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelLists {
    /// One more offset than lists.
    pub offsets: Vec<usize>,
    /// The labels, list after list.
    pub labels: Vec<Label>,
}

impl Default for LabelLists {
    fn default() -> Self {
        Self {
            offsets: vec![0],
            labels: Vec::new(),
        }
    }
}

impl LabelLists {
    /// Append one list.
    pub fn push(&mut self, labels: &[Label]) {
        self.labels.extend_from_slice(labels);
        self.offsets.push(self.labels.len());
    }

    /// Number of lists.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there is no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lists `start..end` as a view.
    fn view(&self, start: usize, end: usize) -> LabelView<'_> {
        LabelView {
            offsets: &self.offsets[start..=end],
            labels: &self.labels,
        }
    }
}

/// Some consecutive lists of a [`LabelLists`].
#[derive(Debug, Clone, Copy)]
pub struct LabelView<'a> {
    offsets: &'a [usize],
    labels: &'a [Label],
}

impl<'a> LabelView<'a> {
    /// Number of lists.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there is no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// List `i`.
    pub fn get(&self, i: usize) -> &'a [Label] {
        &self.labels[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Every list, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [Label]> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// The judgements per subtopic of a batch's queries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SubtopicJudgements {
    /// Per query: its subtopics (labels number them from 0).
    pub num_subtopics: Vec<u32>,
    /// One list per retrieved document, aligned with `RankedBatch::grades`: its judgements by
    /// subtopic (empty when not judged).
    pub retrieved: LabelLists,
    /// `Q + 1` offsets into the lists of `judged`.
    pub judged_offsets: Vec<usize>,
    /// Per query, one list per judged document, documents in descending order of their ids
    /// (byte-wise; ndeval's ideal ranking breaks ties that way).
    pub judged: LabelLists,
}

/// One query's judgements per subtopic.
#[derive(Debug, Clone, Copy)]
pub struct SubtopicView<'a> {
    /// Subtopics of the query (labels number them from 0).
    pub num_subtopics: usize,
    /// The judgements of each retrieved document, in rank order.
    pub retrieved: LabelView<'a>,
    /// The judgements of each judged document (document ids descending).
    pub judged: LabelView<'a>,
}

/// One query of a batch: what a kernel sees.
#[derive(Debug, Clone, Copy)]
pub struct QueryView<'a> {
    /// Grades of the retrieved documents in rank order; [`UNJUDGED`] where not judged.
    pub grades: &'a [i64],
    /// Judged grades, sorted descending.
    pub judged: &'a [i64],
    /// Relevant documents counted once each (profiles keeping duplicate judgements only).
    pub num_distinct_relevant: Option<u64>,
    /// Judgements per subtopic (only when a diversity measure is evaluated).
    pub subtopics: Option<SubtopicView<'a>>,
    /// The scores of the retrieved documents, in rank order (conventions that read them).
    pub scores: Option<&'a [f64]>,
    /// Aligned with `judged`: each judged document's rank, or [`NOT_RETRIEVED`]; equal
    /// grades in [`crate::profile::IdealTies::RunScore`]'s order (under it only).
    pub judged_ranks: Option<&'a [u32]>,
}

impl RankedBatch {
    /// Number of queries.
    pub fn num_queries(&self) -> usize {
        self.query_ids.len()
    }

    /// Query `q`.
    pub fn query(&self, q: usize) -> QueryView<'_> {
        QueryView {
            grades: &self.grades[self.offsets[q]..self.offsets[q + 1]],
            judged: &self.judged[self.judged_offsets[q]..self.judged_offsets[q + 1]],
            num_distinct_relevant: self.num_distinct_relevant.as_ref().map(|d| d[q]),
            subtopics: self.subtopics.as_ref().map(|s| SubtopicView {
                num_subtopics: s.num_subtopics[q] as usize,
                retrieved: s.retrieved.view(self.offsets[q], self.offsets[q + 1]),
                judged: s.judged.view(s.judged_offsets[q], s.judged_offsets[q + 1]),
            }),
            scores: self
                .scores
                .as_ref()
                .map(|s| &s[self.offsets[q]..self.offsets[q + 1]]),
            judged_ranks: self
                .judged_ranks
                .as_ref()
                .map(|r| &r[self.judged_offsets[q]..self.judged_offsets[q + 1]]),
        }
    }

    /// The largest judged grade (0 when there is none above it).
    pub fn max_judged_grade(&self) -> i64 {
        self.judged.iter().copied().max().unwrap_or(0).max(0)
    }
}

impl QueryView<'_> {
    /// Documents retrieved.
    pub fn num_retrieved(&self) -> usize {
        self.grades.len()
    }

    /// Judged documents with grade at least `level` (the distinct ones when the qrels keep
    /// duplicates). A negative grade in the qrels is a pooled but unjudged document, never
    /// relevant, whatever the level (trec_eval counts only grades of 0 and more in num_rel).
    pub fn num_relevant(&self, level: i64) -> usize {
        match self.num_distinct_relevant {
            Some(count) => count as usize,
            // Sorted descending: the relevant ones come first.
            None => {
                let level = level.max(0);
                self.judged.partition_point(|&g| g >= level)
            }
        }
    }

    /// Judged documents with `0 <= grade < level`.
    pub fn num_judged_nonrelevant(&self, level: i64) -> usize {
        self.judged
            .iter()
            .filter(|&&g| (0..level).contains(&g))
            .count()
    }

    /// Relevant documents among the first `cutoff` retrieved (all if `None`).
    ///
    /// Within a cutoff, grades are compared with `level` as they are, as trec_eval's measures
    /// at a cutoff read its ranked list: below level 0 a document absent from the qrels
    /// ([`UNJUDGED`]) counts, below -1 a pooled but unjudged one too. Over the whole ranking
    /// only judged documents count, as trec_eval's num_rel_ret (what its set measures divide).
    /// For levels of 0 and more the two are the same.
    pub fn num_relevant_retrieved(&self, level: i64, cutoff: Option<usize>) -> usize {
        match cutoff {
            Some(k) => {
                let top = &self.grades[..k.min(self.grades.len())];
                top.iter().filter(|&&g| g >= level).count()
            }
            None => {
                let level = level.max(0);
                self.grades.iter().filter(|&&g| g >= level).count()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_cut_the_flat_arrays() {
        let batch = RankedBatch {
            query_ids: vec!["a".into(), "b".into()],
            offsets: vec![0, 3, 4],
            grades: vec![2, UNJUDGED, 0, 1],
            judged_offsets: vec![0, 3, 3],
            judged: vec![2, 1, 0],
            num_distinct_relevant: None,
            subtopics: None,
            scores: None,
            judged_ranks: None,
        };
        let a = batch.query(0);
        assert_eq!(
            (a.num_retrieved(), a.num_relevant(1), a.num_relevant(2)),
            (3, 2, 1)
        );
        assert_eq!(a.num_judged_nonrelevant(1), 1);
        assert_eq!(a.num_relevant_retrieved(1, Some(1)), 1);
        assert_eq!(a.num_relevant_retrieved(0, None), 2);
        let b = batch.query(1);
        assert_eq!((b.num_retrieved(), b.num_relevant(1)), (1, 0));
        assert_eq!(batch.max_judged_grade(), 2);
    }
}
