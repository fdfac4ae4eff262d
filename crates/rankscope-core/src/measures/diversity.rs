//! Diversity measures from subtopic judgements, as ndeval (the TREC Web track's novelty and
//! diversity evaluator, version 4.5) computes them and ir_measures names them: alpha-nDCG,
//! alpha-DCG, ERR-IA, nERR-IA, NRBP, nNRBP, P-IA, MAP-IA and subtopic recall.
//!
//! Each query has subtopics S; a document is relevant to subtopic s when its judgement for s
//! has a grade >= the relevance level (ndeval's judgements are binary). Only subtopics with a
//! relevant document count (`|S|` below); a query without one scores 0 on every measure.
//! Unjudged documents and documents judged non-relevant are alike: relevant to no subtopic.
//!
//! Novelty: the document at rank i gains `g_i = sum_{s relevant} (1 - alpha)^{c_s}`, `c_s` the
//! documents relevant to s ranked above it. ndeval's quirks, kept:
//!
//! * alpha-DCG@k and ERR-IA@k are divided by the "ideal ideal" (every rank relevant to every
//!   subtopic), except at k = 1, where ndeval leaves them undivided;
//! * alpha-nDCG, nERR-IA and nNRBP divide by the same quantity of an ideal ranking built
//!   greedily (at each rank the judged document of largest gain, ties to the larger document
//!   id), which approximates the true ideal (finding it is NP-hard);
//! * cutoffs beyond the ranking keep dividing by the ideal ideal of the cutoff (and P-IA by k).
//!
//! `judged_only=True` (ir_measures) drops documents without any judgement from the ranking
//! first.

use super::{
    kernel, Alias, Context, CutoffKind, Family, Kind, Measure, Param, ParamKind, Params, Reads,
    Scalar, JUDGED_ONLY, REL,
};
use crate::batch::{Label, QueryView, SubtopicView, UNJUDGED};

const ALPHA: Param = Param::with_default("alpha", ParamKind::Number, Scalar::Number(0.5));
// Without `rel=` a judgement counts at the evaluation's relevance level (1 unless asked), as for
// every family; so `rel=1` stays in names (ir_measures leaves it out).
const INTENT_PARAMS: &[Param] = &[REL, JUDGED_ONLY];
const ALPHA_PARAMS: &[Param] = &[ALPHA, REL, JUDGED_ONLY];
const NRBP_PARAMS: &[Param] = &[
    ALPHA,
    Param::with_default("beta", ParamKind::Number, Scalar::Number(0.5)),
    REL,
];
const ALPHA_NDCG_CITATION: &str = "Clarke et al., Novelty and diversity in information retrieval \
    evaluation, SIGIR 2008; ndeval 4.5 (TREC Web track)";
const ERR_IA_CITATION: &str = "Chapelle et al., Expected reciprocal rank for graded relevance, \
    CIKM 2009; Agrawal et al., Diversifying search results, WSDM 2009; ndeval 4.5";
const NRBP_CITATION: &str = "Clarke, Kolla & Vechtomova, An effectiveness measure for ambiguous \
    and underspecified queries, ICTIR 2009; ndeval 4.5";
const IA_CITATION: &str = "Agrawal et al., Diversifying search results, WSDM 2009; ndeval 4.5";

/// The diversity measures (ndeval's; ir_measures' names and parameters).
pub static FAMILIES: &[Family] = &[
    Family {
        name: "alpha_nDCG",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), alpha_ndcg)),
        summary: "alpha-nDCG: nDCG of novelty gains over subtopics, normalized by ndeval's greedy ideal ranking",
        formula: "alpha-DCG@k / alpha-DCG@k of the greedy ideal; gain g_i = sum_{s rel} (1 - alpha)^{c_s}, c_s = documents relevant to s above i",
        citation: ALPHA_NDCG_CITATION,
        cutoff: CutoffKind::Required,
        params: ALPHA_PARAMS,
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "alpha_DCG",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), alpha_dcg)),
        summary: "alpha-DCG, divided by ndeval's ideal ideal (every rank relevant to every subtopic; not at k = 1)",
        formula: "sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} |S| (1 - alpha)^(i-1) / log2(i + 1)",
        citation: ALPHA_NDCG_CITATION,
        cutoff: CutoffKind::Required,
        params: ALPHA_PARAMS,
        bounded: false,
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "ERR_IA",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), err_ia)),
        summary: "intent-aware ERR (alpha = 0.5), divided by ndeval's ideal ideal (not at k = 1)",
        formula: "sum_{i<=k} g_i / i / sum_{i<=k} |S| 0.5^(i-1) / i",
        citation: ERR_IA_CITATION,
        cutoff: CutoffKind::Required,
        params: INTENT_PARAMS,
        bounded: false,
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "nERR_IA",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), nerr_ia)),
        summary: "intent-aware ERR normalized by ndeval's greedy ideal ranking",
        formula: "ERR-IA@k / ERR-IA@k of the greedy ideal",
        citation: ERR_IA_CITATION,
        cutoff: CutoffKind::Required,
        params: INTENT_PARAMS,
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "NRBP",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), nrbp)),
        summary: "novelty- and rank-biased precision over the whole ranking (alpha, beta = 0.5)",
        formula: "(1 - (1 - alpha) beta) / |S| sum_i beta^(i-1) g_i",
        citation: NRBP_CITATION,
        cutoff: CutoffKind::None,
        params: NRBP_PARAMS,
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "nNRBP",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), nnrbp)),
        summary: "NRBP normalized by ndeval's greedy ideal ranking (0 without a relevant subtopic)",
        formula: "NRBP / NRBP of the greedy ideal",
        citation: NRBP_CITATION,
        cutoff: CutoffKind::None,
        params: NRBP_PARAMS,
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "P_IA",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), precision_ia)),
        summary: "intent-aware precision: relevant (document, subtopic) pairs in the top k / (k |S|)",
        formula: "sum_{i<=k} |{s: rel_{i,s}}| / (k |S|)",
        citation: IA_CITATION,
        cutoff: CutoffKind::Required,
        params: INTENT_PARAMS,
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "AP_IA",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), average_precision_ia)),
        summary: "intent-aware average precision: AP per subtopic, averaged over subtopics",
        formula: "(1/|S|) sum_s sum_{i rel to s} P_s@i / R_s",
        citation: IA_CITATION,
        cutoff: CutoffKind::None,
        params: INTENT_PARAMS,
        aliases: &[Alias::ir_measures("map_ia")],
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
    Family {
        name: "StRecall",
        kind: Kind::Ranking(|m| kernel(Diversity::of(m), subtopic_recall)),
        summary: "subtopic recall: subtopics with a relevant document in the top k / |S|",
        formula: "|{s: exists i<=k, rel_{i,s}}| / |S|",
        citation: "Zhai, Cohen & Lafferty, Beyond independent relevance, SIGIR 2003; ndeval's strec",
        cutoff: CutoffKind::Required,
        params: &[REL],
        aliases: &[Alias::other("strec")],
        reads: Reads::Subtopics,
        ..Family::DEFAULTS
    },
];

/// The parameters of the diversity measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Diversity {
    /// The cutoff `k` (required by the measures that read it; all ranks without one).
    pub cutoff: Option<usize>,
    /// Redundancy intolerance (`alpha=`, 0.5 by default).
    pub alpha: f64,
    /// NRBP's patience (`beta=`, 0.5 by default).
    pub beta: f64,
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
    /// Documents without any judgement leave the ranking first (`judged_only=True`): these
    /// kernels drop them themselves, with their subtopics.
    pub judged_only: bool,
}

impl Diversity {
    fn of(m: &Measure) -> Self {
        Self {
            cutoff: m.cutoff_count(),
            alpha: m.number("alpha").unwrap_or(0.5),
            beta: m.number("beta").unwrap_or(0.5),
            rel: m.relevance_level(),
            judged_only: m.flag("judged_only"),
        }
    }

    fn k(&self) -> usize {
        self.cutoff.unwrap_or(usize::MAX)
    }
}

impl Params for Diversity {}

/// ndeval's rank discount: `log(2) / log(i + 2)` for the 0-based rank i.
fn discount(i: usize) -> f64 {
    2f64.ln() / (i as f64 + 2.0).ln()
}

/// One query's subtopic judgements as a kernel reads them at one relevance level.
struct Intents<'a> {
    view: SubtopicView<'a>,
    level: i64,
    /// Per subtopic: its relevant judged documents.
    relevant: Vec<usize>,
    /// Subtopics with a relevant document (ndeval's actualSubtopics).
    covered: usize,
}

impl<'a> Intents<'a> {
    fn of(query: &QueryView<'a>, level: i64) -> Self {
        let view = query
            .subtopics
            .expect("diversity measures are computed on batches prepared with subtopics");
        let mut relevant = vec![0usize; view.num_subtopics];
        for labels in view.judged.iter() {
            for label in labels.iter().filter(|l| l.grade >= level) {
                relevant[label.subtopic as usize] += 1;
            }
        }
        let covered = relevant.iter().filter(|&&n| n > 0).count();
        Self {
            view,
            level,
            relevant,
            covered,
        }
    }

    /// The subtopics `labels` makes relevant.
    fn relevant_to<'l>(&self, labels: &'l [Label]) -> impl Iterator<Item = usize> + 'l {
        let level = self.level;
        labels
            .iter()
            .filter(move |l| l.grade >= level)
            .map(|l| l.subtopic as usize)
    }

    /// The ranking's documents' labels in rank order (without unjudged documents under
    /// `judged_only`).
    fn ranking(&self, query: &QueryView<'a>, judged_only: bool) -> Vec<&'a [Label]> {
        query
            .grades
            .iter()
            .zip(self.view.retrieved.iter())
            .filter(|&(&grade, _)| !(judged_only && grade == UNJUDGED))
            .map(|(_, labels)| labels)
            .collect()
    }

    /// The novelty gain of each document of `ranking` (`g_i` of the module's notation).
    fn gains(&self, ranking: &[&[Label]], alpha: f64) -> Vec<f64> {
        let mut weight = vec![1.0; self.view.num_subtopics];
        ranking
            .iter()
            .map(|labels| {
                let mut gain = 0.0;
                for s in self.relevant_to(labels) {
                    gain += weight[s];
                    weight[s] *= 1.0 - alpha;
                }
                gain
            })
            .collect()
    }

    /// ndeval's greedy ideal ranking, `depth` documents deep at most: at each rank the judged
    /// document of largest gain, ties to the larger document id.
    fn ideal(&self, alpha: f64, depth: usize) -> Vec<&'a [Label]> {
        // Judged documents come by descending id: the first of equal gains wins.
        let mut left: Vec<&[Label]> = self
            .view
            .judged
            .iter()
            .filter(|labels| self.relevant_to(labels).next().is_some())
            .collect();
        let mut weight = vec![1.0; self.view.num_subtopics];
        let mut ideal = Vec::with_capacity(depth.min(left.len()));
        while ideal.len() < depth && !left.is_empty() {
            let mut best = 0;
            let mut best_gain = f64::NEG_INFINITY;
            for (i, labels) in left.iter().enumerate() {
                let gain: f64 = self.relevant_to(labels).map(|s| weight[s]).sum();
                if gain > best_gain {
                    best = i;
                    best_gain = gain;
                }
            }
            let labels = left.remove(best);
            for s in self.relevant_to(labels) {
                weight[s] *= 1.0 - alpha;
            }
            ideal.push(labels);
        }
        ideal
    }
}

/// Σ_{i<k} gain_i · weight(i), divided by the ideal ideal Σ_{i<k} |S| (1 - alpha)^i · weight(i)
/// unless k = 1 (ndeval's alpha-DCG with `discount`, ERR-IA with 1 / (i + 1)).
fn normalized_sum(
    gains: &[f64],
    k: usize,
    alpha: f64,
    covered: usize,
    weight: fn(usize) -> f64,
) -> f64 {
    let total = gains
        .iter()
        .take(k)
        .enumerate()
        .fold(0.0, |sum, (i, g)| sum + g * weight(i));
    if k == 1 {
        return total;
    }
    let mut ideal_ideal = 0.0;
    let mut gain = covered as f64;
    for i in 0..k {
        ideal_ideal += gain * weight(i);
        gain *= 1.0 - alpha;
    }
    total / ideal_ideal
}

fn reciprocal(i: usize) -> f64 {
    1.0 / (i as f64 + 1.0)
}

/// alpha-DCG@k, or (normalized by the greedy ideal) alpha-nDCG@k, or the ERR-IA pair.
fn cumulative(
    query: &QueryView<'_>,
    p: &Diversity,
    cx: &Context<'_>,
    weight: fn(usize) -> f64,
    ideal: bool,
) -> f64 {
    let intents = Intents::of(query, cx.level(p.rel));
    if intents.covered == 0 {
        return 0.0;
    }
    let k = p.k();
    let ranking = intents.ranking(query, p.judged_only);
    let value = normalized_sum(
        &intents.gains(&ranking, p.alpha),
        k,
        p.alpha,
        intents.covered,
        weight,
    );
    if !ideal || value == 0.0 {
        return value;
    }
    let best = intents.ideal(p.alpha, k);
    value
        / normalized_sum(
            &intents.gains(&best, p.alpha),
            k,
            p.alpha,
            intents.covered,
            weight,
        )
}

/// alpha-DCG@k = Σ_{i<=k} g_i / log2(i + 1), over the ideal ideal (ndeval's alpha-DCG).
pub fn alpha_dcg(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    cumulative(query, p, cx, discount, false)
}

/// alpha-nDCG@k = alpha-DCG@k of the ranking / alpha-DCG@k of the greedy ideal ranking.
pub fn alpha_ndcg(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    cumulative(query, p, cx, discount, true)
}

/// ERR-IA@k = Σ_{i<=k} g_i / i, over the ideal ideal (ndeval's ERR-IA, alpha = 0.5).
pub fn err_ia(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    cumulative(query, p, cx, reciprocal, false)
}

/// nERR-IA@k = ERR-IA@k of the ranking / ERR-IA@k of the greedy ideal ranking.
pub fn nerr_ia(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    cumulative(query, p, cx, reciprocal, true)
}

/// NRBP = (1 - (1 - alpha) beta) / |S| · Σ_i beta^(i-1) g_i over the whole ranking.
fn nrbp_of(gains: &[f64], p: &Diversity, covered: usize) -> f64 {
    let mut decay = 1.0;
    let mut total = 0.0;
    for g in gains {
        total += g * decay;
        decay *= p.beta;
    }
    total * (1.0 - (1.0 - p.alpha) * p.beta) / covered as f64
}

/// Novelty- and rank-biased precision (Clarke, Kolla & Vechtomova, ICTIR 2009).
pub fn nrbp(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    let intents = Intents::of(query, cx.level(p.rel));
    if intents.covered == 0 {
        return 0.0;
    }
    let ranking = intents.ranking(query, false);
    nrbp_of(&intents.gains(&ranking, p.alpha), p, intents.covered)
}

/// NRBP / NRBP of the greedy ideal ranking (0, not ndeval's NaN, without a relevant subtopic).
pub fn nnrbp(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    let intents = Intents::of(query, cx.level(p.rel));
    if intents.covered == 0 {
        return 0.0;
    }
    let ranking = intents.ranking(query, false);
    let value = nrbp_of(&intents.gains(&ranking, p.alpha), p, intents.covered);
    let best = intents.ideal(p.alpha, usize::MAX);
    value / nrbp_of(&intents.gains(&best, p.alpha), p, intents.covered)
}

/// P-IA@k = Σ_{i<=k} (subtopics document i is relevant to) / (k |S|).
pub fn precision_ia(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    let intents = Intents::of(query, cx.level(p.rel));
    if intents.covered == 0 {
        return 0.0;
    }
    let k = p.k();
    let ranking = intents.ranking(query, p.judged_only);
    let hits: usize = ranking
        .iter()
        .take(k)
        .map(|labels| intents.relevant_to(labels).count())
        .sum();
    hits as f64 / (k * intents.covered) as f64
}

/// Subtopic recall: subtopics with a relevant document in the top k / |S|.
pub fn subtopic_recall(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    let intents = Intents::of(query, cx.level(p.rel));
    if intents.covered == 0 {
        return 0.0;
    }
    let k = p.k();
    let mut seen = vec![false; intents.view.num_subtopics];
    for labels in intents.ranking(query, false).iter().take(k) {
        for s in intents.relevant_to(labels) {
            seen[s] = true;
        }
    }
    seen.iter().filter(|&&s| s).count() as f64 / intents.covered as f64
}

/// MAP-IA: the mean over subtopics with a relevant document of the subtopic's average
/// precision, Σ_{i relevant to s} P_s@i / R_s.
pub fn average_precision_ia(query: &QueryView<'_>, p: &Diversity, cx: &Context<'_>) -> f64 {
    let intents = Intents::of(query, cx.level(p.rel));
    if intents.covered == 0 {
        return 0.0;
    }
    let subtopics = intents.view.num_subtopics;
    let (mut found, mut total) = (vec![0usize; subtopics], vec![0.0; subtopics]);
    for (i, labels) in intents.ranking(query, p.judged_only).iter().enumerate() {
        for s in intents.relevant_to(labels) {
            found[s] += 1;
            total[s] += found[s] as f64 / (i as f64 + 1.0);
        }
    }
    let sum = (0..subtopics)
        .filter(|&s| intents.relevant[s] > 0)
        .fold(0.0, |sum, s| sum + total[s] / intents.relevant[s] as f64);
    sum / intents.covered as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measures::parse_measure;
    use crate::prepare::{prepare, PrepareOptions};
    use crate::table::{Qrels, Run};
    use crate::{compute, Conventions};

    /// One query, subtopics 1 and 2 (3 never relevant): a relevant to 1 and 2, b to 1, c to
    /// 2, n judged non-relevant; ranked b, u (unjudged), a, n.
    fn values(names: &[&str], ranking: &[&str]) -> Vec<f64> {
        let mut qrels = Qrels::new("qrels");
        for (subtopic, doc, grade) in [
            ("1", "a", 1),
            ("2", "a", 2),
            ("1", "b", 1),
            ("2", "c", 1),
            ("1", "n", 0),
            ("3", "n", 0),
        ] {
            qrels.push_with_subtopic("q", subtopic, doc, grade);
        }
        let mut run = Run::new("run", "run");
        for (i, doc) in ranking.iter().enumerate() {
            run.push("q", doc, -(i as f64));
        }
        let trec = Conventions::profile("trec").unwrap();
        let options = PrepareOptions {
            subtopics: true,
            ..PrepareOptions::default()
        };
        let batch = prepare(&qrels, &run, &trec, &options).unwrap().batch;
        let measures: Vec<_> = names.iter().map(|n| parse_measure(n).unwrap()).collect();
        compute(&batch, &measures, &trec, 1)
            .unwrap()
            .into_iter()
            .map(|v| v[0])
            .collect()
    }

    fn close(got: &[f64], expected: &[f64]) {
        for (g, e) in got.iter().zip(expected) {
            assert!((g - e).abs() < 1e-12, "got {got:?}, expected {expected:?}");
        }
    }

    #[test]
    fn novelty_gains_and_their_normalizations() {
        // Gains (alpha = 0.5): b 1, u 0, a 0.5 + 1 = 1.5, n 0. |S| = 2.
        let d = |i: usize| discount(i);
        let dcg3 = 1.0 + 1.5 * d(2);
        let ideal_ideal3 = 2.0 + 1.0 * d(1) + 0.5 * d(2);
        // Greedy ideal: a (2), then b and c tie at 0.5: c, the larger id; then b (0.5).
        let ideal_dcg3 = 2.0 + 0.5 * d(1) + 0.5 * d(2);
        let err3 = 1.0 + 1.5 / 3.0;
        let err_ideal3 = 2.0 + 1.0 / 2.0 + 0.5 / 3.0;
        let ideal_err3 = 2.0 + 0.5 / 2.0 + 0.5 / 3.0;
        close(
            &values(
                &[
                    "alpha_DCG@3",
                    "alpha_nDCG@3",
                    "ERR_IA@3",
                    "nERR_IA@3",
                    "ERR_IA@1",
                    "alpha_DCG@1",
                ],
                &["b", "u", "a", "n"],
            ),
            &[
                dcg3 / ideal_ideal3,
                dcg3 / ideal_dcg3,
                err3 / err_ideal3,
                err3 / ideal_err3,
                1.0, // undivided at k = 1
                1.0,
            ],
        );
    }

    #[test]
    fn intent_aware_precision_recall_and_map() {
        close(
            &values(
                &["P_IA@2", "P_IA@5", "StRecall@1", "StRecall@3", "AP_IA"],
                &["b", "u", "a", "n"],
            ),
            // P-IA: 1 / (2·2), 3 / (5·2); subtopic 1: b@1, a@3 -> (1 + 2/3) / 2;
            // subtopic 2: a@3 -> (1/3) / 2 (c never retrieved).
            &[
                0.25,
                0.3,
                0.5,
                1.0,
                ((1.0 + 2.0 / 3.0) / 2.0 + (1.0 / 3.0) / 2.0) / 2.0,
            ],
        );
    }

    #[test]
    fn nrbp_and_its_ideal() {
        // Gains 1, 0, 1.5, 0 with beta 0.5: 1 + 1.5/4; scale (1 - 0.25) / 2.
        let scale = 0.75 / 2.0;
        let run = (1.0 + 1.5 / 4.0) * scale;
        let ideal = (2.0 + 0.5 / 2.0 + 0.5 / 4.0) * scale;
        close(
            &values(&["NRBP", "nNRBP"], &["b", "u", "a", "n"]),
            &[run, run / ideal],
        );
    }

    #[test]
    fn parameters_and_judged_only() {
        // alpha = 1: a second document on a subtopic gains nothing. Gains b 1, a 1.
        let d = |i: usize| discount(i);
        close(
            &values(&["alpha_DCG(alpha=1)@3"], &["b", "u", "a"]),
            &[(1.0 + d(2)) / 2.0],
        );
        // judged_only drops u: b, a, n. P-IA@2 = (1 + 2) / 4.
        close(
            &values(&["P_IA(judged_only=True)@2"], &["b", "u", "a", "n"]),
            &[0.75],
        );
        // rel=2: only a's judgement for subtopic 2 is relevant; |S| = 1.
        close(
            &values(&["StRecall(rel=2)@1", "P_IA(rel=2)@3"], &["a", "b"]),
            &[1.0, 1.0 / 3.0],
        );
    }

    #[test]
    fn nothing_relevant_scores_zero() {
        close(
            &values(&["alpha_nDCG@5", "nNRBP", "AP_IA"], &["n", "u"]),
            &[0.0, 0.0, 0.0],
        );
        let mut qrels = Qrels::new("qrels");
        qrels.push_with_subtopic("q", "1", "n", 0);
        let mut run = Run::new("run", "run");
        run.push("q", "n", 1.0);
        let trec = Conventions::profile("trec").unwrap();
        let options = PrepareOptions {
            subtopics: true,
            ..PrepareOptions::default()
        };
        let batch = prepare(&qrels, &run, &trec, &options).unwrap().batch;
        let measures = [
            parse_measure("nNRBP").unwrap(),
            parse_measure("nERR_IA@5").unwrap(),
        ];
        assert_eq!(
            compute(&batch, &measures, &trec, 1).unwrap(),
            [[0.0], [0.0]]
        );
    }
}
