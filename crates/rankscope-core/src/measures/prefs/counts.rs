//! Preference counting, as trec_eval's form_prefs_counts.c does it: what the preference
//! measures ([`super`]) are computed from.
//!
//! Preferences come in *judgement groups* (one user's information need), each made of
//! *subgroups*: within a subgroup, a document with a higher level is preferred to one with a
//! lower level. A group with one subgroup is a list of equivalence classes (documents of equal
//! level); a group with several is a preference relation closed under transitivity. Level 0
//! means non-relevant, above 0 relevant.
//!
//! Each judged document gets an internal rank: the retrieved ones `0..judged_ret` in ranking
//! order, then the others. A preference A > B is *fulfilled* when A's internal rank is lower;
//! it is counted as *retrieved* (both retrieved), *implied* (one retrieved) or *not occurring*
//! (neither). [`PrefCounts`] holds those counts per group, and the counts summed over groups
//! for each document pair (for the `pair` measures).

use crate::batch::QueryView;

/// One preference judgement: a document's level in a subgroup of a judgement group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement<'a> {
    /// The judgement group.
    pub group: &'a str,
    /// The subgroup within the group.
    pub subgroup: &'a str,
    /// The document.
    pub doc: &'a str,
    /// Its level: higher is preferred; 0 is non-relevant.
    pub level: f64,
}

/// Preferences of one group that contradict each other (trec_eval refuses them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    /// A document with two levels in one subgroup of a group of one subgroup.
    TwoLevels {
        /// Index of a judgement of the document (in the slice given to [`PrefCounts::new`]).
        judgement: usize,
    },
    /// A document with level 0 in one subgroup and above 0 in another of the same group.
    ZeroAndNonZero {
        /// Index of the judgement that contradicts an earlier one.
        judgement: usize,
    },
    /// Two documents each preferred to the other (directly or through others) in one group.
    Cycle {
        /// The group.
        group: String,
        /// The two documents.
        docs: (String, String),
    },
}

/// The preference counts of one judgement group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupCounts {
    /// Fulfilled, both documents retrieved.
    pub fulfilled_ret: u64,
    /// Possible (fulfilled or not), both retrieved.
    pub possible_ret: u64,
    /// Fulfilled, only the preferred document retrieved.
    pub fulfilled_imp: u64,
    /// Possible, exactly one retrieved.
    pub possible_imp: u64,
    /// Possible, neither retrieved.
    pub possible_notoccur: u64,
    /// Documents of level 0 (equivalence classes: level <= 0).
    pub num_nonrel: u64,
    /// Of which retrieved.
    pub num_nonrel_ret: u64,
    /// Documents of level above 0.
    pub num_rel: u64,
    /// Of which retrieved.
    pub num_rel_ret: u64,
}

/// How a group's preferences are held.
#[derive(Debug, Clone, PartialEq)]
enum Form {
    /// One subgroup: equivalence classes by descending level, internal ranks ascending in each.
    Classes(Vec<Vec<usize>>),
    /// Several subgroups: `prefers[i][j]` when i is preferred to j (closed transitively), and
    /// each document's level (-1 when the group does not judge it).
    Array {
        prefers: BitMatrix,
        levels: Vec<f64>,
    },
}

/// A judgement group: its preferences and their counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    form: Form,
    /// The counts.
    pub counts: GroupCounts,
}

/// A square matrix of bits, one row of words per document.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BitMatrix {
    size: usize,
    words: usize,
    bits: Vec<u64>,
}

impl BitMatrix {
    fn new(size: usize) -> Self {
        let words = size.div_ceil(64);
        Self {
            size,
            words,
            bits: vec![0; size * words],
        }
    }

    fn get(&self, i: usize, j: usize) -> bool {
        self.bits[i * self.words + j / 64] >> (j % 64) & 1 == 1
    }

    fn set(&mut self, i: usize, j: usize, on: bool) {
        let word = &mut self.bits[i * self.words + j / 64];
        if on {
            *word |= 1 << (j % 64);
        } else {
            *word &= !(1 << (j % 64));
        }
    }

    /// Reflexive-transitive closure (Warshall), then the diagonal cleared: what trec_eval's
    /// repeated multiplication of the matrix (with ones on the diagonal) by itself reaches.
    fn close(&mut self) {
        for i in 0..self.size {
            self.set(i, i, true);
        }
        for k in 0..self.size {
            let row_k = self.bits[k * self.words..(k + 1) * self.words].to_vec();
            for i in 0..self.size {
                if self.get(i, k) {
                    let row = &mut self.bits[i * self.words..(i + 1) * self.words];
                    for (word, extra) in row.iter_mut().zip(&row_k) {
                        *word |= extra;
                    }
                }
            }
        }
        for i in 0..self.size {
            self.set(i, i, false);
        }
    }
}

/// Preferences over each pair of documents, summed over the groups: `count(i, j)` groups
/// prefer i to j.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PairCounts {
    size: usize,
    counts: Vec<u16>,
}

impl PairCounts {
    fn add(&mut self, i: usize, j: usize) {
        let cell = &mut self.counts[i * self.size + j];
        *cell = cell.saturating_add(1);
    }

    fn count(&self, i: usize, j: usize) -> u16 {
        self.counts[i * self.size + j]
    }
}

/// The preference counts of one query.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefCounts {
    /// Documents judged in any group.
    pub num_judged: usize,
    /// Of which retrieved (internal ranks `0..num_judged_ret`).
    pub num_judged_ret: usize,
    /// The groups, in byte-wise order of their names.
    pub groups: Vec<Group>,
    pairs: Option<PairCounts>,
}

impl PrefCounts {
    /// The counts of one query's judgements against its ranking (document ids in rank order,
    /// distinct), with the per-pair counts if `with_pairs` (the `pair` measures need them).
    pub fn new(
        judgements: &[Judgement<'_>],
        ranking: &[&str],
        with_pairs: bool,
    ) -> Result<Self, Conflict> {
        // Internal ranks: judged documents retrieved, in rank order; then the others, in
        // byte-wise order of their ids.
        let mut judged: Vec<&str> = judgements.iter().map(|j| j.doc).collect();
        judged.sort_unstable();
        judged.dedup();
        let mut rank_of: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(judged.len());
        for &doc in ranking {
            if judged.binary_search(&doc).is_ok() && !rank_of.contains_key(doc) {
                rank_of.insert(doc, rank_of.len());
            }
        }
        let num_judged_ret = rank_of.len();
        for &doc in &judged {
            let next = rank_of.len();
            rank_of.entry(doc).or_insert(next);
        }
        let mut order: Vec<usize> = (0..judgements.len()).collect();
        let key = |i: usize| (judgements[i].group, judgements[i].subgroup);
        order.sort_by(|&a, &b| {
            key(a)
                .cmp(&key(b))
                .then(
                    // Levels are finite; -0 and 0 are one level, as in trec_eval.
                    judgements[b]
                        .level
                        .partial_cmp(&judgements[a].level)
                        .expect("finite levels"),
                )
                .then(rank_of[judgements[a].doc].cmp(&rank_of[judgements[b].doc]))
        });
        let mut counts = Self::empty(judged.len(), num_judged_ret, with_pairs);
        let mut start = 0;
        while start < order.len() {
            let name = judgements[order[start]].group;
            let end = start
                + order[start..]
                    .iter()
                    .take_while(|&&i| judgements[i].group == name)
                    .count();
            let lines: Vec<(usize, usize)> = order[start..end]
                .iter()
                .map(|&i| (i, rank_of[judgements[i].doc]))
                .collect();
            let subgroups = 1 + lines
                .windows(2)
                .filter(|w| judgements[w[0].0].subgroup != judgements[w[1].0].subgroup)
                .count();
            let group = if subgroups > 1 {
                let (prefers, levels) = counts.array(judgements, &lines)?;
                if let Some((i, j)) = prefers_each_other(&prefers) {
                    let doc = |rank: usize| {
                        let line = lines.iter().find(|l| l.1 == rank).expect("judged here");
                        judgements[line.0].doc.to_string()
                    };
                    return Err(Conflict::Cycle {
                        group: name.to_string(),
                        docs: (doc(i), doc(j)),
                    });
                }
                counts.array_in_pairs(&prefers);
                Group {
                    counts: array_counts(&prefers, &levels, num_judged_ret),
                    form: Form::Array { prefers, levels },
                }
            } else {
                // One subgroup: a class per level, in descending order.
                let mut classes: Vec<Vec<usize>> = Vec::new();
                let mut levels: Vec<f64> = Vec::new();
                for &(i, rank) in &lines {
                    if levels.last() != Some(&judgements[i].level) {
                        levels.push(judgements[i].level);
                        classes.push(Vec::new());
                    }
                    classes.last_mut().expect("pushed").push(rank);
                }
                if let Some(rank) = counts.classes_in_pairs(&classes) {
                    let line = lines.iter().find(|l| l.1 == rank).expect("judged here");
                    return Err(Conflict::TwoLevels { judgement: line.0 });
                }
                Group {
                    counts: class_counts(&classes, &levels, num_judged_ret),
                    form: Form::Classes(classes),
                }
            };
            counts.groups.push(group);
            start = end;
        }
        Ok(counts)
    }

    /// The counts of a query's graded judgements as one judgement group of one subgroup (the
    /// grade as level), against its ranking: what trec_eval's `-R qrels_prefs` makes of qrels
    /// whose second column is the same on every line. Negative grades are unjudged.
    pub fn of_query(query: &QueryView<'_>, with_pairs: bool) -> Self {
        let retrieved: Vec<i64> = query.grades.iter().copied().filter(|&g| g >= 0).collect();
        let num_judged_ret = retrieved.len();
        let mut grades: Vec<i64> = query.judged.iter().copied().filter(|&g| g >= 0).collect();
        // Descending already; the judged documents not retrieved get the ranks after.
        let mut left = retrieved.clone();
        left.sort_unstable_by(|a, b| b.cmp(a));
        let mut unretrieved = Vec::with_capacity(grades.len());
        let mut k = 0;
        for &g in &grades {
            while k < left.len() && left[k] > g {
                k += 1;
            }
            if k < left.len() && left[k] == g {
                k += 1;
            } else {
                unretrieved.push(g);
            }
        }
        grades.dedup();
        let mut classes: Vec<Vec<usize>> = vec![Vec::new(); grades.len()];
        let class_of = |g: i64| grades.iter().position(|&x| x == g).expect("judged grade");
        for (rank, &g) in retrieved.iter().chain(&unretrieved).enumerate() {
            classes[class_of(g)].push(rank);
        }
        let levels: Vec<f64> = grades.iter().map(|&g| g as f64).collect();
        let num_judged = num_judged_ret + unretrieved.len();
        let mut counts = Self::empty(num_judged, num_judged_ret, with_pairs);
        // Each document is in one class only: no conflict.
        let _ = counts.classes_in_pairs(&classes);
        counts.groups.push(Group {
            counts: class_counts(&classes, &levels, num_judged_ret),
            form: Form::Classes(classes),
        });
        counts
    }

    fn empty(num_judged: usize, num_judged_ret: usize, with_pairs: bool) -> Self {
        Self {
            num_judged,
            num_judged_ret,
            groups: Vec::new(),
            pairs: with_pairs.then(|| PairCounts {
                size: num_judged,
                counts: vec![0; num_judged * num_judged],
            }),
        }
    }

    /// Adds a class group's preferences to the pair counts; the internal rank of a document
    /// found in two classes, if any (trec_eval's "occurs with different rel_level").
    fn classes_in_pairs(&mut self, classes: &[Vec<usize>]) -> Option<usize> {
        for (c1, first) in classes.iter().enumerate() {
            for second in &classes[c1 + 1..] {
                for &r1 in first {
                    for &r2 in second {
                        if r1 == r2 {
                            return Some(r1);
                        }
                        if let Some(pairs) = &mut self.pairs {
                            pairs.add(r1, r2);
                        }
                    }
                }
            }
        }
        None
    }

    /// The preference array of a group of several subgroups (`lines`: judgement index and
    /// internal rank, sorted by subgroup, level descending, rank), before its closure check.
    fn array(
        &self,
        judgements: &[Judgement<'_>],
        lines: &[(usize, usize)],
    ) -> Result<(BitMatrix, Vec<f64>), Conflict> {
        let mut prefers = BitMatrix::new(self.num_judged);
        let mut levels = vec![-1.0; self.num_judged];
        for (n, &(i, rank)) in lines.iter().enumerate() {
            let level = judgements[i].level;
            let known = levels[rank];
            if (known > 0.0 && level == 0.0) || (known == 0.0 && level > 0.0) {
                return Err(Conflict::ZeroAndNonZero { judgement: i });
            }
            levels[rank] = level;
            let subgroup = judgements[i].subgroup;
            let rest = lines[n + 1..]
                .iter()
                .take_while(|l| judgements[l.0].subgroup == subgroup);
            for &(_, other) in rest.skip_while(|l| judgements[l.0].level == level) {
                prefers.set(rank, other, true);
            }
        }
        prefers.close();
        Ok((prefers, levels))
    }

    fn array_in_pairs(&mut self, prefers: &BitMatrix) {
        if let Some(pairs) = &mut self.pairs {
            for i in 0..prefers.size {
                for j in 0..prefers.size {
                    if prefers.get(i, j) {
                        pairs.add(i, j);
                    }
                }
            }
        }
    }

    /// Σ over groups of `part`.
    pub(super) fn total(&self, part: impl Fn(&GroupCounts) -> u64) -> u64 {
        self.groups.iter().map(|g| part(&g.counts)).sum()
    }

    /// Σ_g ful_g / poss_g over the groups with possible preferences, / number of groups (0 when
    /// the sum is 0), as trec_eval's prefs_avgjg.
    pub(super) fn average_over_groups(&self, ratio: impl Fn(&GroupCounts) -> (u64, u64)) -> f64 {
        let mut sum = 0.0;
        for group in &self.groups {
            let (fulfilled, possible) = ratio(&group.counts);
            if possible > 0 {
                sum += fulfilled as f64 / possible as f64;
            }
        }
        positive_mean(sum, self.groups.len())
    }

    /// The mean over document pairs with a preference of the share of groups the ranking
    /// satisfies, pairs counted in the regions asked: both retrieved, one retrieved, neither
    /// (pairs of the last region count, their share is 0).
    pub(super) fn pair_average(&self, one_retrieved: bool, neither: bool) -> f64 {
        let pairs = self.pairs.as_ref().expect("pair counts asked for");
        let ret = self.num_judged_ret;
        let all = self.num_judged;
        let mut sum = 0.0;
        let mut num_pairs = 0u64;
        let mut visit = |i: usize, j: usize, share: bool| {
            let (ij, ji) = (pairs.count(i, j), pairs.count(j, i));
            if ij > 0 || ji > 0 {
                num_pairs += 1;
                if share {
                    sum += f64::from(ij) / f64::from(u32::from(ij) + u32::from(ji));
                }
            }
        };
        for i in 0..ret {
            for j in i + 1..ret {
                visit(i, j, true);
            }
        }
        if one_retrieved {
            for i in 0..ret {
                for j in ret..all {
                    visit(i, j, true);
                }
            }
        }
        if neither {
            for i in ret..all {
                for j in i + 1..all {
                    visit(i, j, false);
                }
            }
        }
        if num_pairs > 0 {
            sum / num_pairs as f64
        } else {
            0.0
        }
    }

    /// prefs_avgjg_Rnonrel (`retrieved_only`: its `_ret` variant).
    pub(super) fn average_rnonrel(&self, retrieved_only: bool) -> f64 {
        let mut sum = 0.0;
        for group in &self.groups {
            let c = &group.counts;
            let (rel, nonrel) = if retrieved_only {
                (c.num_rel_ret, c.num_nonrel_ret)
            } else {
                (c.num_rel, c.num_nonrel)
            };
            let (fulfilled, possible) = if rel >= nonrel {
                // Add rel - nonrel non-relevant documents below every relevant one.
                let (mut fulfilled, mut possible) = (c.fulfilled_ret, c.possible_ret);
                if !retrieved_only {
                    fulfilled += c.fulfilled_imp;
                    possible += c.possible_imp + c.possible_notoccur;
                }
                (
                    fulfilled + c.num_rel_ret * (rel - nonrel),
                    possible + c.num_rel * (rel - nonrel),
                )
            } else {
                group.recount_rnonrel(self.num_judged, self.num_judged_ret, retrieved_only)
            };
            // 0/0 is NaN, which makes the query's value 0, as in trec_eval.
            sum += fulfilled as f64 / possible as f64;
        }
        positive_mean(sum, self.groups.len())
    }
}

/// `sum / n` when the sum is above 0 (not NaN), else 0: how trec_eval's averages over groups
/// end.
fn positive_mean(sum: f64, n: usize) -> f64 {
    if sum > 0.0 {
        sum / n as f64
    } else {
        0.0
    }
}

/// The first pair of documents each preferred to the other, if any.
fn prefers_each_other(prefers: &BitMatrix) -> Option<(usize, usize)> {
    (0..prefers.size)
        .flat_map(|i| (0..prefers.size).map(move |j| (i, j)))
        .find(|&(i, j)| i != j && prefers.get(i, j) && prefers.get(j, i))
}

/// The counts of a group of equivalence classes (trec_eval's add_ec_pref_to_jg).
fn class_counts(classes: &[Vec<usize>], levels: &[f64], ret: usize) -> GroupCounts {
    let mut c = GroupCounts::default();
    for (c1, first) in classes.iter().enumerate() {
        let retrieved = first.iter().take_while(|&&r| r < ret).count() as u64;
        if levels[c1] > 0.0 {
            c.num_rel_ret += retrieved;
            c.num_rel += first.len() as u64;
        } else {
            c.num_nonrel_ret += retrieved;
            c.num_nonrel += first.len() as u64;
        }
        for second in &classes[c1 + 1..] {
            for &r1 in first {
                for &r2 in second {
                    if r1 < r2 {
                        if r2 < ret {
                            c.fulfilled_ret += 1;
                        } else if r1 < ret {
                            c.fulfilled_imp += 1;
                        } else {
                            c.possible_notoccur += 1;
                        }
                    } else if r1 < ret {
                        c.possible_ret += 1;
                    } else if r2 < ret {
                        c.possible_imp += 1;
                    } else {
                        c.possible_notoccur += 1;
                    }
                }
            }
        }
    }
    c.possible_ret += c.fulfilled_ret;
    c.possible_imp += c.fulfilled_imp;
    c
}

/// The counts of a group held as a preference array (trec_eval's add_pa_pref_to_jg).
fn array_counts(prefers: &BitMatrix, levels: &[f64], ret: usize) -> GroupCounts {
    let mut c = GroupCounts::default();
    for (i, &level) in levels.iter().enumerate() {
        let retrieved = u64::from(i < ret);
        if level > 0.0 {
            c.num_rel += 1;
            c.num_rel_ret += retrieved;
        } else if level == 0.0 {
            c.num_nonrel += 1;
            c.num_nonrel_ret += retrieved;
        }
    }
    for i in 0..prefers.size {
        for j in 0..prefers.size {
            if !prefers.get(i, j) {
                continue;
            }
            match (i < ret, j < ret) {
                (true, true) if j < i => c.possible_ret += 1,
                (true, true) => c.fulfilled_ret += 1,
                (true, false) => c.fulfilled_imp += 1,
                (false, true) => c.possible_imp += 1,
                (false, false) => c.possible_notoccur += 1,
            }
        }
    }
    c.possible_ret += c.fulfilled_ret;
    c.possible_imp += c.fulfilled_imp;
    c
}

impl Group {
    /// Fulfilled and possible preferences with only the first R non-relevant documents kept
    /// (R relevant ones), as trec_eval's prefs_avgjg_Rnonrel recounts them; `retrieved_only`
    /// keeps retrieved documents only (its `_ret` variant, R relevant retrieved).
    fn recount_rnonrel(&self, all: usize, ret: usize, retrieved_only: bool) -> (u64, u64) {
        let c = &self.counts;
        let (mut fulfilled, mut not_fulfilled) = (0u64, 0u64);
        match &self.form {
            Form::Classes(classes) => {
                let keep = if retrieved_only {
                    c.num_rel_ret
                } else {
                    c.num_rel
                } as usize;
                let last = classes.last().expect("a group has a class");
                // The last class is taken as the non-relevant one, as trec_eval does.
                let kept = &last[..keep.min(last.len())];
                let part = |ranks: &[usize]| -> usize {
                    if retrieved_only {
                        ranks.iter().take_while(|&&r| r < ret).count()
                    } else {
                        ranks.len()
                    }
                };
                let mut tally = |r1: usize, r2: usize| {
                    if r1 < r2 && r1 < ret {
                        fulfilled += 1;
                    } else {
                        not_fulfilled += 1;
                    }
                };
                let count = classes.len();
                for c1 in 0..count {
                    let first = &classes[c1][..part(&classes[c1])];
                    for second in classes.iter().take(count - 1).skip(c1 + 1) {
                        for &r1 in first {
                            for &r2 in &second[..part(second)] {
                                tally(r1, r2);
                            }
                        }
                    }
                    for &r1 in first {
                        for &r2 in &kept[..part(kept)] {
                            tally(r1, r2);
                        }
                    }
                }
            }
            Form::Array { prefers, levels } => {
                let scan = if retrieved_only { ret } else { all };
                let mut seen = 0u64;
                let mut first_discarded = scan;
                for (i, &level) in levels.iter().enumerate().take(scan) {
                    if level == 0.0 {
                        seen += 1;
                        if seen == c.num_rel + 1 {
                            first_discarded = i;
                            break;
                        }
                    }
                }
                let dropped = |i: usize| i >= first_discarded && levels[i] == 0.0;
                let limit = if retrieved_only { ret } else { all };
                for i in (0..limit).filter(|&i| !dropped(i)) {
                    for j in (0..limit).filter(|&j| j != i && !dropped(j)) {
                        if !prefers.get(i, j) {
                            continue;
                        }
                        if i < ret && j > i {
                            fulfilled += 1;
                        } else {
                            not_fulfilled += 1;
                        }
                    }
                }
            }
        }
        (fulfilled, fulfilled + not_fulfilled)
    }
}
