//! ranx's measures that no trec_eval family gives: `hits`, `f1`, `dcg`, `dcg_burges` and
//! `ndcg_burges`, as ranx's `ranx/metrics/*.py` computes them.
//!
//! ranx's other names mean what a trec_eval family computes and are aliases of it
//! (`hit_rate` = Success, `r-precision` = Rprec, `precision` = P, `recall` = R, `mrr` = RR,
//! `map` = AP, `ndcg` = nDCG). As ranx, only grades >= the relevance level carry a gain, and a
//! query without relevant documents scores 0. Notation as in [`super::kernels`].

use super::kernels::KernelArgs;
use crate::batch::QueryView;

/// Where ranx's measures are defined.
pub const CITATION: &str = "Bassani, ranx: a blazing-fast Python library for ranking \
                            evaluation and comparison, ECIR 2022; https://github.com/AmenRa/ranx";

/// hits@k = Σ_{i<=k} rel_i: the number of relevant documents in the first k (all without k).
pub fn hits(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    query.num_relevant_retrieved(args.level, args.cutoff) as f64
}

/// f1@k = 2 P R / (P + R) with P = hits@k / k and R = hits@k / R (k = the number retrieved
/// without a cutoff; k is not capped by the number retrieved, as in P@k); 0 when P + R = 0.
pub fn f1(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let relevant = query.num_relevant(args.level);
    let k = args.cutoff.unwrap_or(query.num_retrieved());
    if relevant == 0 || k == 0 {
        return 0.0;
    }
    let hits = query.num_relevant_retrieved(args.level, args.cutoff) as f64;
    let precision = hits / k as f64;
    let recall = hits / relevant as f64;
    if precision + recall == 0.0 {
        return 0.0;
    }
    // ranx's order of operations, for the same last bit.
    2.0 * ((precision * recall) / (precision + recall))
}

/// The gain of a grade: the grade (Järvelin & Kekäläinen) or `2^grade - 1` (Burges et al.)
/// for grades >= the relevance level, 0 below it.
fn gain(grade: i64, level: i64, burges: bool) -> f64 {
    if grade < level || grade <= 0 {
        return 0.0;
    }
    let grade = grade as f64;
    if burges {
        grade.exp2() - 1.0
    } else {
        grade
    }
}

/// Σ_{i<=k} gain(g_i) / log2(i + 1) over `grades` in rank order.
fn discounted(grades: &[i64], cutoff: Option<usize>, level: i64, burges: bool) -> f64 {
    let k = cutoff.unwrap_or(grades.len()).min(grades.len());
    grades[..k].iter().enumerate().fold(0.0, |sum, (i, &g)| {
        sum + gain(g, level, burges) / (i as f64 + 2.0).log2()
    })
}

fn dcg_of(query: &QueryView<'_>, args: &KernelArgs<'_>, burges: bool) -> f64 {
    if query.num_relevant(args.level) == 0 {
        return 0.0;
    }
    discounted(query.grades, args.cutoff, args.level, burges)
}

fn ndcg_of(query: &QueryView<'_>, args: &KernelArgs<'_>, burges: bool) -> f64 {
    let dcg = dcg_of(query, args, burges);
    let ideal = discounted(query.judged, args.cutoff, args.level, burges);
    // ranx divides by 1 when the ideal DCG is 0 (the DCG is 0 then too).
    dcg / if ideal == 0.0 { 1.0 } else { ideal }
}

/// dcg@k = Σ_{i<=k} g_i / log2(i + 1), Järvelin & Kekäläinen's gain (the grade).
pub fn dcg(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    dcg_of(query, args, false)
}

/// dcg_burges@k = Σ_{i<=k} (2^g_i - 1) / log2(i + 1), Burges et al.'s gain.
pub fn dcg_burges(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    dcg_of(query, args, true)
}

/// ndcg_burges@k = dcg_burges@k over the same sum for the judged documents ordered by grade.
pub fn ndcg_burges(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    ndcg_of(query, args, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Conventions;

    fn args(conventions: &Conventions, cutoff: Option<usize>, level: i64) -> KernelArgs<'_> {
        let mut args = crate::measures::parse_measure("hits")
            .unwrap()
            .kernel_args(conventions, level);
        args.cutoff = cutoff;
        args
    }

    fn view<'a>(grades: &'a [i64], judged: &'a [i64]) -> QueryView<'a> {
        QueryView {
            grades,
            judged,
            num_distinct_relevant: None,
            subtopics: None,
        }
    }

    #[test]
    fn by_hand() {
        let trec = Conventions::profile("trec").unwrap();
        // Ranking: grades 0, 2, 0, 1; the judged grades 2, 1, 0, 0.
        let grades = [0, 2, 0, 1];
        let judged = [2, 1, 0, 0];
        let q = view(&grades, &judged);
        assert_eq!(hits(&q, &args(&trec, Some(2), 1)), 1.0);
        assert_eq!(hits(&q, &args(&trec, None, 1)), 2.0);
        assert_eq!(hits(&q, &args(&trec, None, 2)), 1.0);
        // P@3 = 1/3, R@3 = 1/2: F1 = 2 (1/6) / (5/6) = 0.4.
        assert!((f1(&q, &args(&trec, Some(3), 1)) - 0.4).abs() < 1e-15);
        // k beyond the ranking: P = 2/10, R = 1.
        assert!((f1(&q, &args(&trec, Some(10), 1)) - 2.0 * 0.2 / 1.2).abs() < 1e-15);
        let dcg3 = 2.0 / 3f64.log2();
        assert_eq!(dcg(&q, &args(&trec, Some(3), 1)), dcg3);
        assert_eq!(dcg_burges(&q, &args(&trec, Some(3), 1)), 3.0 / 3f64.log2());
        let ideal = 3.0 + 1.0 / 3f64.log2();
        let expected = (3.0 / 3f64.log2() + 1.0 / 5f64.log2()) / ideal;
        assert!((ndcg_burges(&q, &args(&trec, None, 1)) - expected).abs() < 1e-15);
        // Level 2: grade 1 carries no gain.
        assert_eq!(dcg(&q, &args(&trec, None, 2)), 2.0 / 3f64.log2());
        // No relevant document: 0.
        let none = view(&[0, 0], &[0]);
        assert_eq!(ndcg_burges(&none, &args(&trec, None, 1)), 0.0);
        assert_eq!(f1(&none, &args(&trec, None, 1)), 0.0);
        assert_eq!(dcg(&none, &args(&trec, None, 1)), 0.0);
    }
}
