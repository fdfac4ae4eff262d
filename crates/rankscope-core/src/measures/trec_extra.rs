//! The rest of trec_eval 10's measures: infAP, Rprec_mult, utility, 11pt_avg, binG, G,
//! ndcg_rel, Rndcg, relative_P, set_relative_P, set_map, set_F, num_nonrel_judged_ret, rbp,
//! rbp_resid, unj and yaap, each as trec_eval's m_*.c defines it.
//!
//! Notation as in [`super::kernels`]; besides, a retrieved document is *unjudged* when it is
//! absent from the qrels ([`UNJUDGED`]) or judged with a negative grade ([`POOLED_UNJUDGED`]:
//! in the pool but not judged, as infAP's sampled pools mark them).

use super::kernels::{interpolated_precision_at, KernelArgs};
use crate::batch::{QueryView, POOLED_UNJUDGED, UNJUDGED};

/// trec_eval's INFAP_EPSILON.
const INFAP_EPSILON: f64 = 0.00001;

fn divide(numerator: f64, denominator: f64) -> f64 {
    if denominator == 0.0 {
        0.0
    } else {
        numerator / denominator
    }
}

/// The gain of a grade: the measure's `gains=` for that grade, else the grade itself (0 for
/// negative grades), as trec_eval's setup_gains.
pub fn gain_of(grade: i64, args: &KernelArgs<'_>) -> f64 {
    match args.gains.iter().find(|(g, _)| *g == grade) {
        Some(&(_, gain)) => gain,
        None => grade.max(0) as f64,
    }
}

/// The ideal gains of a query: every judged document's gain (grades >= 0), positive ones only,
/// largest first.
pub fn ideal_gains(query: &QueryView<'_>, args: &KernelArgs<'_>) -> Vec<f64> {
    let mut gains: Vec<f64> = query
        .judged
        .iter()
        .filter(|&&g| g >= 0)
        .map(|&g| gain_of(g, args))
        .filter(|&gain| gain > 0.0)
        .collect();
    gains.sort_by(|a, b| b.total_cmp(a));
    gains
}

/// nDCG@k with the gains of `gains=`: Σ_{i<=k} gain(g_i) / log2(i + 1) over the same sum for
/// the judged documents ordered by gain.
pub fn ndcg_with_gains(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let limit = args.cutoff.unwrap_or(usize::MAX);
    let discount = |i: usize| (i as f64 + 2.0).log2();
    let dcg = query
        .grades
        .iter()
        .take(limit)
        .enumerate()
        .map(|(i, &g)| (i, gain_of(g, args)))
        .filter(|&(_, gain)| gain != 0.0)
        .fold(0.0, |sum, (i, gain)| sum + gain / discount(i));
    let ideal = ideal_gains(query, args)
        .into_iter()
        .take(limit)
        .enumerate()
        .fold(0.0, |sum, (i, gain)| sum + gain / discount(i));
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}

/// Relevant retrieved, retrieved and relevant, as floats.
fn counts(query: &QueryView<'_>, level: i64) -> (f64, f64, f64) {
    (
        query.num_relevant_retrieved(level, None) as f64,
        query.num_retrieved() as f64,
        query.num_relevant(level) as f64,
    )
}

/// infAP = (1/R) Σ_{relevant retrieved at rank k} E[P@k], with E[P@1] = 1 and
/// E[P@k] = 1/k + ((k-1)/k) · (d/(k-1)) · (r + ε)/(r + n + 2ε) for k > 1, where among the
/// documents above rank k, d are in the pool, r relevant and n judged non-relevant
/// (Yilmaz & Aslam, CIKM 2006). Documents outside the pool are skipped.
pub fn infap(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let (mut rel, mut nonrel, mut pooled) = (0usize, 0usize, 0usize);
    let mut total = 0.0;
    for (j, &grade) in query.grades.iter().enumerate() {
        if grade == UNJUDGED {
            continue;
        }
        if grade == POOLED_UNJUDGED {
            pooled += 1;
        } else if grade < args.level {
            nonrel += 1;
        } else {
            rel += 1;
            total += if j == 0 {
                1.0
            } else {
                let k = j as f64;
                let above = (rel - 1) as f64;
                1.0 / (k + 1.0)
                    + (k / (k + 1.0))
                        * ((above + nonrel as f64 + pooled as f64) / k)
                        * ((above + INFAP_EPSILON) / (above + nonrel as f64 + 2.0 * INFAP_EPSILON))
            };
        }
    }
    divide(total, query.num_relevant(args.level) as f64)
}

/// Rprec_mult@f = precision at rank c = ⌊f·R + 0.9⌋ (relevant in the top c / c; 0 when c = 0).
pub fn rprec_mult(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let factor = args.recall_level.unwrap_or(1.0);
    let cut = (factor * query.num_relevant(args.level) as f64 + 0.9).trunc() as usize;
    let hits = query.num_relevant_retrieved(args.level, Some(cut));
    divide(hits as f64, cut as f64)
}

/// utility = a·relret + b·(ret − relret) + c·(R − relret) + d·(N + relret − ret − R), N the
/// number of documents in the collection (`n=`, trec_eval `-N`; 0 by default).
pub fn utility(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let (relret, ret, rel) = counts(query, args.level);
    let [a, b, c, d] = args.coefficients;
    a * relret
        + b * (ret - relret)
        + c * (rel - relret)
        + d * (args.collection_size + relret - ret - rel)
}

/// 11pt_avg = mean of interpolated precision over the recall levels (default 0.0, 0.1, ...,
/// 1.0), added from the last level to the first, as trec_eval adds them.
pub fn eleven_point_average(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let levels = &args.levels;
    let total = levels.iter().rev().fold(0.0, |sum, &level| {
        sum + interpolated_precision_at(query, args, level)
    });
    divide(total, levels.len() as f64)
}

/// binG = (1/R) Σ_{relevant at rank i} 1 / log2(i + 2 − rel_so_far), rel_so_far counting this
/// one: a relevant document is discounted by the non-relevant ones above it.
pub fn bin_g(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let mut seen = 0usize;
    let mut total = 0.0;
    for (i, &grade) in query.grades.iter().enumerate() {
        if grade >= args.level {
            seen += 1;
            total += 1.0 / ((3 + i - seen) as f64).log2();
        }
    }
    divide(total, query.num_relevant(args.level) as f64)
}

/// G = Σ_i gain_i / log2(2 + cost_i − gained_i) / Σ ideal gains, where gained_i sums the gains
/// of the first i documents and cost_i sums max(ideal gain at j, 1) over j <= i (trec_eval's
/// m_G).
pub fn g(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let ideal = ideal_gains(query, args);
    let (mut gained, mut cost, mut total) = (0.0, 0.0, 0.0);
    for (i, &grade) in query.grades.iter().enumerate() {
        let gain = gain_of(grade, args);
        gained += gain;
        let ideal_gain = ideal.get(i).copied().unwrap_or(0.0);
        cost += if ideal_gain >= 1.0 { ideal_gain } else { 1.0 };
        if gain != 0.0 {
            total += gain / (2.0 + cost - gained).log2();
        }
    }
    let ideal_total = ideal.iter().fold(0.0, |sum, g| sum + g);
    divide(total, ideal_total)
}

/// DCG of the ranking and of the ideal ranking, rank by rank over the longer of the two: the
/// running sums after each rank (the shorter one stays at its total).
fn running_dcg(query: &QueryView<'_>, args: &KernelArgs<'_>, ideal: &[f64]) -> Vec<(f64, f64)> {
    let length = query.grades.len().max(ideal.len());
    let (mut dcg, mut ideal_dcg) = (0.0, 0.0);
    (0..length)
        .map(|i| {
            let discount = (i as f64 + 2.0).log2();
            if let Some(&grade) = query.grades.get(i) {
                let gain = gain_of(grade, args);
                if gain != 0.0 {
                    dcg += gain / discount;
                }
            }
            if let Some(&gain) = ideal.get(i) {
                ideal_dcg += gain / discount;
            }
            (dcg, ideal_dcg)
        })
        .collect()
}

/// ndcg_rel = nDCG averaged over the ranks of the relevant documents (gain > 0), a relevant
/// document not retrieved counting the nDCG of the whole ranking (trec_eval's m_ndcg_rel).
pub fn ndcg_rel(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let ideal = ideal_gains(query, args);
    let running = running_dcg(query, args, &ideal);
    let mut total = 0.0;
    let mut retrieved = 0usize;
    for (i, &grade) in query.grades.iter().enumerate() {
        if gain_of(grade, args) > 0.0 {
            let (dcg, ideal_dcg) = running[i];
            total += dcg / ideal_dcg;
            retrieved += 1;
        }
    }
    let Some(&(dcg, ideal_dcg)) = running.last() else {
        return 0.0;
    };
    if ideal.is_empty() {
        return 0.0;
    }
    total += (ideal.len() as f64 - retrieved as f64) * dcg / ideal_dcg;
    if total > 0.0 {
        total / ideal.len() as f64
    } else {
        0.0
    }
}

/// Rndcg = nDCG averaged over the ranks where the ideal gain changes (the ends of the ideal
/// ranking's grade levels), the nDCG of the whole ranking standing in beyond the last
/// retrieved document (trec_eval's m_Rndcg).
pub fn rndcg(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    if query.num_relevant(args.level) == 0 {
        return 0.0;
    }
    let ideal = ideal_gains(query, args);
    let ideal_at = |i: usize| ideal.get(i).copied().unwrap_or(0.0);
    let (mut dcg, mut ideal_dcg) = (0.0, 0.0);
    // The sum of nDCG at the level ends, and their number.
    let mut points = (0.0, 0usize);
    let add = |points: &mut (f64, usize), dcg: f64, ideal_dcg: f64| {
        if ideal_dcg > 0.0 {
            points.0 += dcg / ideal_dcg;
            points.1 += 1;
        }
    };
    let grades = query.grades;
    let mut previous = ideal_at(0);
    let mut ideal_gain = previous;
    let mut i = 0;
    while i < grades.len() && ideal_gain > 0.0 {
        ideal_gain = ideal_at(i);
        if previous != ideal_gain {
            add(&mut points, dcg, ideal_dcg);
            previous = ideal_gain;
        }
        let discount = (i as f64 + 2.0).log2();
        dcg += gain_of(grades[i], args) / discount;
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount;
        }
        i += 1;
    }
    if i < grades.len() {
        for (j, &grade) in grades.iter().enumerate().skip(i) {
            dcg += gain_of(grade, args) / (j as f64 + 2.0).log2();
        }
        add(&mut points, dcg, ideal_dcg);
    }
    while ideal_gain > 0.0 {
        ideal_gain = ideal_at(i);
        if previous != ideal_gain {
            add(&mut points, dcg, ideal_dcg);
            previous = ideal_gain;
        }
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / (i as f64 + 2.0).log2();
        }
        i += 1;
    }
    divide(points.0, points.1 as f64)
}

/// relative_P@k = relevant in the top k / min(k, R); without k (set_relative_P), relevant
/// retrieved / min(retrieved, R). 0 when R = 0.
pub fn relative_precision(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let rel = query.num_relevant(args.level);
    let size = args.cutoff.unwrap_or(query.num_retrieved());
    let hits = query.num_relevant_retrieved(args.level, args.cutoff);
    divide(hits as f64, size.min(rel) as f64)
}

/// set_map = relret² / (ret · R): set precision times set recall.
pub fn set_map(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let (relret, ret, rel) = counts(query, args.level);
    divide(relret * relret, ret * rel)
}

/// set_F = (β + 1) · P · R / (β · P + R) over the retrieved set (trec_eval's β multiplies P
/// as given, not squared); 0 when nothing relevant is retrieved.
pub fn set_f(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let (relret, ret, rel) = counts(query, args.level);
    if relret == 0.0 {
        return 0.0;
    }
    let (precision, recall) = (relret / ret, relret / rel);
    let beta = args.beta;
    (beta + 1.0) * precision * recall / (beta * precision + recall)
}

/// Number of judged non-relevant documents retrieved (0 <= grade < level).
pub fn num_nonrel_judged_ret(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    query
        .grades
        .iter()
        .filter(|&&g| (0..args.level).contains(&g))
        .count() as f64
}

/// The gain table of rbp: every grade from 0 to the query's largest judged grade and every
/// grade of `gains=`; scaled to [0, 1] by (gain − min) / (max − min) when a gain lies outside.
fn rbp_gain<'a>(query: &QueryView<'_>, args: &'a KernelArgs<'_>) -> impl Fn(i64) -> f64 + 'a {
    let top = query.judged.first().copied().unwrap_or(-1);
    let table: Vec<f64> = (0..=top)
        .map(|g| gain_of(g, args))
        .chain(
            args.gains
                .iter()
                .filter(|(g, _)| *g > top || *g < 0)
                .map(|&(_, v)| v),
        )
        .collect();
    let min = table.iter().copied().fold(f64::INFINITY, f64::min);
    let max = table.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let scale = min < 0.0 || max > 1.0;
    move |grade: i64| {
        let gain = match args.gains.iter().find(|(g, _)| *g == grade) {
            Some(&(_, gain)) => gain,
            None if grade >= 0 && grade <= top => grade as f64,
            None => return 0.0,
        };
        if scale {
            (gain - min) / (max - min)
        } else {
            gain
        }
    }
}

/// rbp = (1 − p) Σ_i gain_i · p^(i−1), gains scaled to [0, 1] (Moffat & Zobel, ACM TOIS
/// 27(1), 2008); p = 0.9 unless `p=` is given.
pub fn rbp(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let gain = rbp_gain(query, args);
    let mut weight = 1.0;
    let mut total = 0.0;
    for &grade in query.grades {
        let g = gain(grade);
        if g != 0.0 {
            total += g * weight;
        }
        weight *= args.p;
    }
    (1.0 - args.p) * total
}

/// rbp_resid = p^n + (1 − p) Σ_{unjudged at rank i} p^(i−1): the most the unjudged documents
/// and those beyond the ranking could add to rbp (0 when every retrieved document is judged).
pub fn rbp_resid(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let mut weight = 1.0;
    let mut total = 0.0;
    let mut unjudged = false;
    for &grade in query.grades {
        if grade < 0 {
            unjudged = true;
            total += weight;
        }
        weight *= args.p;
    }
    if unjudged {
        weight + (1.0 - args.p) * total
    } else {
        0.0
    }
}

/// unj@k = unjudged documents in the top k / k (k even when fewer were retrieved).
pub fn unjudged(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let k = args.cutoff.unwrap_or(query.num_retrieved());
    let top = &query.grades[..k.min(query.grades.len())];
    divide(top.iter().filter(|&&g| g < 0).count() as f64, k as f64)
}

/// yaap = ln((1 + s) / (1 + R − s)), s = Σ_{relevant retrieved} P@rank (Robertson, On
/// Smoothing Average Precision, ECIR 2012).
pub fn yaap(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let mut seen = 0usize;
    let mut sum = 0.0;
    for (i, &grade) in query.grades.iter().enumerate() {
        if grade >= args.level {
            seen += 1;
            sum += seen as f64 / (i as f64 + 1.0);
        }
    }
    let rel = query.num_relevant(args.level) as f64;
    ((1.0 + sum) / (1.0 + rel - sum)).ln()
}

/// trec_eval's relstring: the grades of the first `length` documents as characters, `0`-`9`
/// for grades, `>` above 9, `-` not in the pool, `.` pooled but unjudged, `<` below that.
pub fn relevance_string(grades: &[i64], length: usize) -> String {
    grades
        .iter()
        .take(length)
        .map(|&grade| match grade {
            10.. => '>',
            0..=9 => char::from(b'0' + grade as u8),
            UNJUDGED => '-',
            POOLED_UNJUDGED => '.',
            _ => '<',
        })
        .collect()
}
