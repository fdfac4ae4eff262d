//! `Qrels` and `Run`: the two inputs of an evaluation, as columns.
//!
//! Query ids are interned (a `u32` code per row, codes in order of first appearance); document
//! ids are kept as one byte buffer with offsets (no allocation per row); rows stay in the order
//! given.

use crate::error::{float_text, quoted, Error, InputProblem, Result};
use crate::intern::Interner;
use crate::parallel;

/// Strings stored back to back: item `i` is `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone)]
pub struct StrColumn {
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

impl Default for StrColumn {
    fn default() -> Self {
        Self {
            bytes: Vec::new(),
            offsets: vec![0],
        }
    }
}

impl StrColumn {
    /// An empty column with room for `rows` items of `bytes` bytes in all.
    pub fn with_capacity(rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Self {
            bytes: Vec::with_capacity(bytes),
            offsets,
        }
    }

    /// Room for `rows` more items of `bytes` more bytes.
    pub fn reserve(&mut self, rows: usize, bytes: usize) {
        self.offsets.reserve(rows);
        self.bytes.reserve(bytes);
    }

    /// No items left, the memory kept.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.offsets.truncate(1);
    }

    /// Append one item.
    ///
    /// An item of 4 to 16 bytes (most document ids) is copied as two overlapping words where
    /// the room for it is already there, without a call to `memcpy` (whose call and dispatch
    /// on the length cost more than the copy of a short id).
    #[inline]
    pub fn push(&mut self, item: &str) {
        let item = item.as_bytes();
        let (len, at) = (item.len(), self.bytes.len());
        if (4..=16).contains(&len) && self.bytes.capacity() - at >= len {
            let src = item.as_ptr();
            // SAFETY: `len` bytes of room follow the `at` bytes of `self.bytes`, so the two
            // words written (`at..at + 8` and `at + len - 8..at + len`, or their four-byte
            // counterparts for `len < 8`) lie within its capacity; the words read lie within
            // `item`, whose `len` bytes they cover between them (overlapping where `len` is not
            // twice the word), so `at..at + len` is written whole before the length grows.
            #[allow(unsafe_code)]
            unsafe {
                let dst = self.bytes.as_mut_ptr().add(at);
                if len >= 8 {
                    let head = std::ptr::read_unaligned(src.cast::<u64>());
                    let tail = std::ptr::read_unaligned(src.add(len - 8).cast::<u64>());
                    std::ptr::write_unaligned(dst.cast::<u64>(), head);
                    std::ptr::write_unaligned(dst.add(len - 8).cast::<u64>(), tail);
                } else {
                    let head = std::ptr::read_unaligned(src.cast::<u32>());
                    let tail = std::ptr::read_unaligned(src.add(len - 4).cast::<u32>());
                    std::ptr::write_unaligned(dst.cast::<u32>(), head);
                    std::ptr::write_unaligned(dst.add(len - 4).cast::<u32>(), tail);
                }
                self.bytes.set_len(at + len);
            }
        } else {
            self.bytes.extend_from_slice(item);
        }
        self.offsets.push(self.bytes.len());
    }

    /// Item `i`.
    pub fn get(&self, i: usize) -> &str {
        let bytes = &self.bytes[self.offsets[i]..self.offsets[i + 1]];
        // SAFETY: only whole `&str`s are pushed, and offsets fall between them, so every item
        // is valid UTF-8.
        #[allow(unsafe_code)]
        unsafe {
            std::str::from_utf8_unchecked(bytes)
        }
    }

    /// Item `i` as bytes.
    pub fn get_bytes(&self, i: usize) -> &[u8] {
        &self.bytes[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there is no item.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of all items together.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Append every item of each of `parts` in turn (over rayon's threads with `parallel`).
    pub(crate) fn extend_from_parts(&mut self, parts: &[&StrColumn], parallel: bool) {
        let mut bases = Vec::with_capacity(parts.len());
        let mut base = self.bytes.len();
        for part in parts {
            bases.push(base);
            base += part.bytes.len();
        }
        let bytes: Vec<&[u8]> = parts.iter().map(|part| &part.bytes[..]).collect();
        parallel::extend_from_parts(&mut self.bytes, &bytes, parallel, |_, &b| b);
        let ends: Vec<&[usize]> = parts.iter().map(|part| &part.offsets[1..]).collect();
        parallel::extend_from_parts(&mut self.offsets, &ends, parallel, |part, &end| {
            end + bases[part]
        });
    }

    /// The items' bytes back to back, and where each item starts and ends (`offsets[i]..
    /// offsets[i + 1]`, `offsets[0] == 0`): the column taken apart without copying.
    pub fn into_parts(self) -> (Vec<u8>, Vec<usize>) {
        (self.bytes, self.offsets)
    }

    /// Append every item of `other`.
    pub fn extend(&mut self, other: &StrColumn) {
        self.extend_from_parts(&[other], false);
    }
}

/// Relevance judgements: rows (query, document, integer grade), in the order given.
#[derive(Debug, Clone, Default)]
pub struct Qrels {
    /// Where the judgements came from, for messages.
    pub source: String,
    /// The query ids; `query[i]` is a code of this interner.
    pub queries: Interner,
    /// The query of each row.
    pub query: Vec<u32>,
    /// The document of each row.
    pub docs: StrColumn,
    /// The grade of each row.
    pub grade: Vec<i64>,
    /// The subtopics (TREC's second field, which diversity qrels use for the intent judged),
    /// interned; `subtopic[i]` is a code of this interner.
    pub subtopics: Interner,
    /// The subtopic of each row; empty when the qrels name no subtopics (none given, or a
    /// TREC file's second field with one value throughout): every judgement is then of the
    /// query as a whole.
    pub subtopic: Vec<u32>,
}

impl Qrels {
    /// Empty qrels from `source`.
    pub fn new(source: impl Into<String>) -> Self {
        Self {
            source: source.into(),
            ..Self::default()
        }
    }

    /// Append one judgement.
    pub fn push(&mut self, query_id: &str, doc_id: &str, grade: i64) {
        let code = self.queries.intern(query_id);
        self.push_coded(code, doc_id, grade);
    }

    /// Append one judgement of the query `self.queries` gave `query` as its code (for callers
    /// that intern a query once for all its judgements).
    #[inline]
    pub fn push_coded(&mut self, query: u32, doc_id: &str, grade: i64) {
        debug_assert!((query as usize) < self.queries.len());
        self.query.push(query);
        self.docs.push(doc_id);
        self.grade.push(grade);
    }

    /// Append one judgement of `doc_id` for subtopic `subtopic` of the query. Either every row
    /// has a subtopic or none has.
    pub fn push_with_subtopic(&mut self, query_id: &str, subtopic: &str, doc_id: &str, grade: i64) {
        assert_eq!(
            self.subtopic.len(),
            self.len(),
            "every judgement has a subtopic, or none has"
        );
        let code = self.subtopics.intern(subtopic);
        self.subtopic.push(code);
        self.push(query_id, doc_id, grade);
    }

    /// Whether the rows carry subtopics.
    pub fn has_subtopics(&self) -> bool {
        !self.subtopic.is_empty()
    }

    /// The same judgements read as trec_eval reads qrels: the second field ignored, so that a
    /// document judged under two subtopics is a document judged twice.
    pub fn without_subtopics(&self) -> Qrels {
        Qrels {
            subtopics: Interner::default(),
            subtopic: Vec::new(),
            ..self.clone()
        }
    }

    /// Room for `rows` more judgements of `bytes` more document id bytes.
    pub fn reserve(&mut self, rows: usize, bytes: usize) {
        self.query.reserve(rows);
        self.docs.reserve(rows, bytes);
        self.grade.reserve(rows);
    }

    /// Number of judgements.
    pub fn len(&self) -> usize {
        self.query.len()
    }

    /// Whether there is no judgement.
    pub fn is_empty(&self) -> bool {
        self.query.is_empty()
    }

    /// The query id of row `i`.
    pub fn query_id(&self, i: usize) -> &str {
        self.queries.name(self.query[i])
    }

    /// The checks of every table of judgements on built rows: some rows, no empty id.
    pub fn check(&self) -> Result<()> {
        if self.is_empty() {
            return Err(Error::EmptyInput(
                InputProblem::new("qrels hold no judgements").in_source(&self.source),
            ));
        }
        assert!(
            self.subtopic.is_empty() || self.subtopic.len() == self.len(),
            "every judgement has a subtopic, or none has"
        );
        check_ids(&self.queries, &self.query, &self.docs, &self.source)
    }
}

/// Ranked results: rows (query, document, score), in the order given.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// The run's name (the tag of a TREC run).
    pub name: String,
    /// Where the results came from, for messages.
    pub source: String,
    /// The query ids; `query[i]` is a code of this interner.
    pub queries: Interner,
    /// The query of each row.
    pub query: Vec<u32>,
    /// The document of each row.
    pub docs: StrColumn,
    /// The score of each row.
    pub score: Vec<f64>,
    /// Queries given with an empty ranking (`{q: []}` in memory; a TREC file cannot say so):
    /// they retrieved nothing and are evaluated so, as pytrec_eval and WeKnora evaluate them.
    pub empty_queries: Vec<u32>,
}

impl Run {
    /// An empty run named `name` from `source`.
    pub fn new(name: impl Into<String>, source: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            source: source.into(),
            ..Self::default()
        }
    }

    /// Name a query whose ranking is empty (see [`Run::empty_queries`]).
    pub fn push_empty(&mut self, query_id: &str) {
        let code = self.queries.intern(query_id);
        self.empty_queries.push(code);
    }

    /// Append one result.
    pub fn push(&mut self, query_id: &str, doc_id: &str, score: f64) {
        let code = self.queries.intern(query_id);
        self.push_coded(code, doc_id, score);
    }

    /// Append one result of the query `self.queries` gave `query` as its code (for callers
    /// that intern a query once for all its results).
    #[inline]
    pub fn push_coded(&mut self, query: u32, doc_id: &str, score: f64) {
        debug_assert!((query as usize) < self.queries.len());
        self.query.push(query);
        self.docs.push(doc_id);
        self.score.push(score);
    }

    /// Room for `rows` more results of `bytes` more document id bytes.
    pub fn reserve(&mut self, rows: usize, bytes: usize) {
        self.query.reserve(rows);
        self.docs.reserve(rows, bytes);
        self.score.reserve(rows);
    }

    /// Number of results.
    pub fn len(&self) -> usize {
        self.query.len()
    }

    /// Whether there is no result.
    pub fn is_empty(&self) -> bool {
        self.query.is_empty()
    }

    /// The query id of row `i`.
    pub fn query_id(&self, i: usize) -> &str {
        self.queries.name(self.query[i])
    }

    /// The checks of every run on built rows: some rows, no empty id, every
    /// score finite (the first bad one named with its query, document and row).
    pub fn check(&self) -> Result<()> {
        if self.is_empty() && self.empty_queries.is_empty() {
            return Err(Error::EmptyInput(
                InputProblem::new("run holds no results").in_source(&self.source),
            ));
        }
        check_ids(&self.queries, &self.query, &self.docs, &self.source)?;
        if let Some(row) = self.score.iter().position(|s| !s.is_finite()) {
            return Err(Error::Input(
                InputProblem::new(format!(
                    "score must be a finite number; found {} for query {}, document {} (row {})",
                    float_text(self.score[row]),
                    quoted(self.query_id(row)),
                    quoted(self.docs.get(row)),
                    row + 1
                ))
                .in_source(&self.source),
            ));
        }
        Ok(())
    }
}

fn check_ids(queries: &Interner, query: &[u32], docs: &StrColumn, source: &str) -> Result<()> {
    let empty = |column: &str, row: usize| {
        Err(Error::Input(
            InputProblem::new(format!(
                "column '{column}' is empty or null at row {}",
                row + 1
            ))
            .in_source(source),
        ))
    };
    // The empty id is looked for among the distinct ids (once), then its first row.
    if let Some(code) = queries.names().position(str::is_empty) {
        if let Some(row) = query.iter().position(|&q| q as usize == code) {
            return empty("query_id", row);
        }
    }
    if let Some(row) = (0..docs.len()).find(|&i| docs.get_bytes(i).is_empty()) {
        return empty("doc_id", row);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_order_and_queries_are_interned() {
        let mut run = Run::new("bm25", "<dict>");
        run.push("q2", "a", 1.0);
        run.push("q1", "b", 2.0);
        run.push("q2", "c", 0.5);
        assert_eq!(run.query, [0, 1, 0]);
        assert_eq!(run.docs.get(2), "c");
        assert_eq!(run.query_id(1), "q1");
        run.check().unwrap();
    }

    #[test]
    fn a_cleared_column_starts_again_with_its_memory() {
        let mut docs = StrColumn::with_capacity(2, 8);
        docs.push("d1");
        docs.push("d22");
        let room = docs.bytes.capacity();
        docs.clear();
        assert!(docs.is_empty());
        assert_eq!(docs.byte_len(), 0);
        assert_eq!(docs.bytes.capacity(), room);
        docs.push("d3");
        assert_eq!((docs.len(), docs.get(0)), (1, "d3"));
    }

    #[test]
    fn checks_word_the_first_bad_row() {
        let mut run = Run::new("r", "<dict>");
        run.push("q1", "d1", 1.0);
        run.push("q1", "d2", f64::NAN);
        assert_eq!(
            run.check().unwrap_err().to_string(),
            "<dict>: score must be a finite number; found nan for query 'q1', document 'd2' \
             (row 2)"
        );
        let mut qrels = Qrels::new("<dict>");
        qrels.push("q1", "", 1);
        assert_eq!(
            qrels.check().unwrap_err().to_string(),
            "<dict>: column 'doc_id' is empty or null at row 1"
        );
        assert!(matches!(Qrels::new("x").check(), Err(Error::EmptyInput(_))));
    }

    #[test]
    fn items_of_every_length_push_whole_with_room_or_without() {
        let text = "abcdefghijklmnopqrstuvwxyz0123456789";
        for room in [0, 64, 1024] {
            let mut docs = StrColumn::with_capacity(0, room);
            let mut all = String::new();
            for len in (0..=text.len()).chain((0..=text.len()).rev()) {
                let item = &text[text.len() - len..];
                docs.push(item);
                all.push_str(item);
            }
            for (i, len) in (0..=text.len()).chain((0..=text.len()).rev()).enumerate() {
                assert_eq!(
                    docs.get(i),
                    &text[text.len() - len..],
                    "room {room}, item {i}"
                );
            }
            assert_eq!(docs.byte_len(), all.len());
            assert_eq!(docs.bytes, all.as_bytes());
        }
    }

    #[test]
    fn columns_extend() {
        let mut a = StrColumn::default();
        a.push("x");
        let mut b = StrColumn::default();
        b.push("yy");
        b.push("");
        a.extend(&b);
        assert_eq!((a.len(), a.get(0), a.get(1), a.get(2)), (3, "x", "yy", ""));
    }
}
