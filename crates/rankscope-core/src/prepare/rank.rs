//! One query in rank order: sorted (or checked), de-duplicated, cut, and looked up.

use crate::intern::same_bytes;
use crate::profile::{
    Conventions, DuplicatePolicy, IdealTies, IdenticalIds, MissingQueryRanking, Ordering,
    ScorePrecision, TiedScores, UnjudgedDocuments, PLACEHOLDER_DOCUMENT,
};
use crate::table::Run;

use super::groups::Entry;
use super::judgements::{Judgements, QueryTable};
use super::PrepareOptions;

/// Buffers reused from query to query on one thread.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) rows: Vec<u32>,
    keys: Vec<f64>,
    pub(super) hashes: Vec<u64>,
    seen: SeenDocuments,
}

/// The documents of one query seen so far, by hash: an open-addressing table of
/// `(upper half of the hash) << 32 | item + 1` (0: an empty slot), a power of two of slots at
/// most a quarter full (as the tables of judgements, and for the same reason: fewer probes
/// that go on, fewer branches guessed wrong), cleared from query to query (zeroed at once).
/// Finding and inserting are one probe.
#[derive(Default)]
struct SeenDocuments {
    slots: Vec<u64>,
}

impl SeenDocuments {
    /// Empty, with room for `items` documents.
    fn clear(&mut self, items: usize) {
        let size = (4 * items).next_power_of_two().max(2);
        self.slots.clear();
        self.slots.resize(size, 0);
    }

    /// The item seen before whose document is `item`'s (`same(earlier)` tells, for an item of
    /// the same hash), or `None` after taking `item` in.
    #[inline]
    fn earlier_or_insert(
        &mut self,
        hash: u64,
        item: u32,
        same: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let tag = (hash >> 32) as u32;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            let (slot_tag, item_plus_one) = ((slot >> 32) as u32, slot as u32);
            if item_plus_one == 0 {
                self.slots[i] = u64::from(tag) << 32 | u64::from(item + 1);
                return None;
            }
            if slot_tag == tag && same(item_plus_one - 1) {
                return Some(item_plus_one - 1);
            }
            i = (i + 1) & mask;
        }
    }
}

/// One query prepared.
pub(super) struct Ranked {
    /// The grades of its documents in rank order.
    pub(super) grades: Vec<i64>,
    /// Duplicates an error: the run row of the first document ranked twice.
    pub(super) duplicate: Option<usize>,
    /// With subtopics or [`IdealTies::RunScore`]: the first qrels row of each document
    /// (aligned with `grades`).
    pub(super) judged_rows: Vec<Option<u32>>,
    /// Under conventions that read scores ([`reads_scores`]): each document's score, at the
    /// precision it was sorted at (aligned with `grades`).
    pub(super) scores: Vec<f64>,
}

/// Whether the batch carries the run's scores: only the conventions that read them pay.
pub(super) fn reads_scores(conventions: &Conventions) -> bool {
    conventions.tied_scores == TiedScores::Averaged || conventions.ideal_ties == IdealTies::RunScore
}

/// A score at the precision the conventions compare scores at.
fn at_precision(score: f64, precision: ScorePrecision) -> f64 {
    match precision {
        ScorePrecision::Float64 => score,
        ScorePrecision::Float32 => f64::from(score as f32),
    }
}

/// One query in rank order, cut and de-duplicated.
pub(super) fn rank_query(
    judgements: &Judgements<'_>,
    run: &Run,
    entry: &Entry<'_>,
    options: &PrepareOptions,
    scratch: &mut Scratch,
) -> Ranked {
    let conventions = &judgements.conventions;
    if entry.rows.len() == 0 {
        if entry.run_code == u32::MAX
            && conventions.missing_query_ranking == MissingQueryRanking::Placeholder
        {
            return placeholder_ranking(judgements, entry, options);
        }
        return Ranked {
            grades: Vec::new(),
            duplicate: None,
            judged_rows: Vec::new(),
            scores: Vec::new(),
        };
    }
    let with_rows = options.subtopics || conventions.ideal_ties == IdealTies::RunScore;
    let table = judgements.query_table(entry.qrels_code);
    // Without the rows, the grades are looked up as the rows are put in order.
    let mut grades: Vec<i64> = Vec::new();
    let lookup = if with_rows {
        None
    } else {
        grades.reserve(
            entry
                .rows
                .len()
                .min(options.max_documents.unwrap_or(usize::MAX)),
        );
        Some((&table, &mut grades))
    };
    let duplicate = order_rows(judgements, run, entry, options, scratch, lookup);
    let Scratch { rows, hashes, .. } = scratch;
    let mut judged_rows: Vec<Option<u32>> = Vec::new();
    let mut scores: Vec<f64> = Vec::new();
    if reads_scores(conventions) {
        let precision = conventions.score_precision;
        scores.extend(
            rows.iter()
                .map(|&r| at_precision(run.score[r as usize], precision)),
        );
    }
    if with_rows {
        judged_rows.extend(
            rows.iter()
                .zip(hashes.iter())
                .map(|(&r, &h)| table.lookup_row(run.docs.get_bytes(r as usize), h)),
        );
        grades.extend(judged_rows.iter().map(|&row| judgements.grade_of(row)));
    }
    if conventions.unjudged_documents == UnjudgedDocuments::Drop {
        // After the cut, as trec_eval -J with -M.
        if !scores.is_empty() {
            let kept = scores.iter().zip(&grades).filter(|(_, &g)| g >= 0);
            scores = kept.map(|(&score, _)| score).collect();
        }
        if with_rows {
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
        scores,
    }
}

/// Put a query's rows in rank order in `scratch.rows` (their documents' hashes in
/// `scratch.hashes`): sorted by the conventions' ordering, duplicates dropped or kept as the
/// conventions say, cut at `max_documents`; with `lookup`, their grades in the query's table
/// pushed onto its vector, in the same order. Returns, when duplicates are an error, the run
/// row of the first document ranked twice.
pub(super) fn order_rows(
    judgements: &Judgements<'_>,
    run: &Run,
    entry: &Entry<'_>,
    options: &PrepareOptions,
    scratch: &mut Scratch,
    mut lookup: Option<(&QueryTable<'_, '_>, &mut Vec<i64>)>,
) -> Option<usize> {
    let conventions = &judgements.conventions;
    let max_documents = options.max_documents;
    let Scratch {
        rows,
        keys,
        hashes,
        seen,
    } = scratch;
    entry.rows.fill(rows);
    if conventions.identical_ids == IdenticalIds::Drop {
        let query = entry.name.as_bytes();
        rows.retain(|&r| run.docs.get_bytes(r as usize) != query);
    }
    if conventions.ordering != Ordering::AsGiven {
        let ascending = conventions.ordering == Ordering::ScoreThenDocidAsc;
        let precision = conventions.score_precision;
        let key = |r: u32| at_precision(run.score[r as usize], precision);
        // Document ids descending (or ascending), byte-wise: `Greater` when `b` ranks first.
        let ids = |a: u32, b: u32| {
            let ids = run
                .docs
                .get_bytes(b as usize)
                .cmp(run.docs.get_bytes(a as usize));
            if ascending {
                ids.reverse()
            } else {
                ids
            }
        };
        // Most rankings come in order: checked pair by pair from the scores (no keys written
        // out), the ids compared only on a tie.
        let mut last = rows.first().map_or(0.0, |&first| key(first));
        let in_order = rows.windows(2).all(|pair| {
            let next = key(pair[1]);
            let ordered = last > next
                || (last == next && ids(pair[0], pair[1]) != std::cmp::Ordering::Greater);
            last = next;
            ordered
        });
        if !in_order {
            keys.clear();
            keys.extend(rows.iter().map(|&r| key(r)));
            // Score descending, then the ids.
            let before = |a: usize, b: usize| -> std::cmp::Ordering {
                keys[b]
                    .partial_cmp(&keys[a])
                    .expect("scores are finite")
                    .then_with(|| ids(rows[a], rows[b]))
            };
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
    let same_doc = |a: u32, b: u32| {
        same_bytes(
            run.docs.get_bytes(a as usize),
            run.docs.get_bytes(b as usize),
        )
    };
    let limit = max_documents.unwrap_or(usize::MAX);
    let look_up_all =
        |rows: &[u32], hashes: &[u64], lookup: Option<(&QueryTable, &mut Vec<i64>)>| {
            if let Some((table, grades)) = lookup {
                let docs = rows.iter().zip(hashes);
                grades.extend(docs.map(|(&r, &h)| table.lookup(run.docs.get_bytes(r as usize), h)));
            }
        };
    match conventions.duplicate_documents {
        DuplicatePolicy::KeepFirst => {
            hash_docs(rows, hashes);
            seen.clear(rows.len());
            let mut kept = 0;
            for i in 0..rows.len() {
                let (row, hash) = (rows[i], hashes[i]);
                if seen
                    .earlier_or_insert(hash, row, |other| same_doc(other, row))
                    .is_none()
                {
                    rows[kept] = row;
                    hashes[kept] = hash;
                    kept += 1;
                }
            }
            rows.truncate(kept.min(limit));
            hashes.truncate(kept.min(limit));
            look_up_all(rows, hashes, lookup);
            None
        }
        DuplicatePolicy::KeepAll => {
            rows.truncate(limit);
            hash_docs(rows, hashes);
            look_up_all(rows, hashes, lookup);
            None
        }
        DuplicatePolicy::Error => {
            // Cut first: only the documents kept count. Each hashed, checked and looked up in
            // one pass.
            rows.truncate(limit);
            seen.clear(rows.len());
            hashes.clear();
            // The first document (in rank order) that appears again later.
            let mut first_repeat: Option<usize> = None;
            for (i, &row) in rows.iter().enumerate() {
                let doc = run.docs.get_bytes(row as usize);
                let hash = judgements.doc_hash(doc);
                hashes.push(hash);
                if let Some((table, grades)) = &mut lookup {
                    grades.push(table.lookup(doc, hash));
                }
                let same =
                    |other: u32| same_bytes(run.docs.get_bytes(rows[other as usize] as usize), doc);
                if let Some(earlier) = seen.earlier_or_insert(hash, i as u32, same) {
                    let earlier = earlier as usize;
                    first_repeat = Some(first_repeat.map_or(earlier, |f| f.min(earlier)));
                }
            }
            first_repeat.map(|i| rows[i] as usize)
        }
    }
}

/// trec_eval's ranking of a judged query absent from the run under `-c`: the one document
/// [`PLACEHOLDER_DOCUMENT`] (graded as the qrels grade it, which they normally do not), cut by
/// `max_documents` and dropped under `-J` as any document would be.
fn placeholder_ranking(
    judgements: &Judgements<'_>,
    entry: &Entry<'_>,
    options: &PrepareOptions,
) -> Ranked {
    let doc = PLACEHOLDER_DOCUMENT.as_bytes();
    let row = judgements
        .query_table(entry.qrels_code)
        .lookup_row(doc, judgements.doc_hash(doc));
    let mut grades = vec![judgements.grade_of(row)];
    let conventions = &judgements.conventions;
    let mut judged_rows = if options.subtopics || conventions.ideal_ties == IdealTies::RunScore {
        vec![row]
    } else {
        Vec::new()
    };
    let mut scores = if reads_scores(conventions) {
        vec![1.0]
    } else {
        Vec::new()
    };
    let dropped =
        judgements.conventions.unjudged_documents == UnjudgedDocuments::Drop && grades[0] < 0;
    if options.max_documents == Some(0) || dropped {
        grades.clear();
        judged_rows.clear();
        scores.clear();
    }
    Ranked {
        grades,
        duplicate: None,
        judged_rows,
        scores,
    }
}
