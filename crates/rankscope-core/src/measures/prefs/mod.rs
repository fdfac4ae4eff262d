//! trec_eval 10's preference measures (`-m all_prefs`): prefs_num_prefs_poss,
//! prefs_num_prefs_ful, prefs_num_prefs_ful_ret, prefs_simp, prefs_pair, prefs_avgjg,
//! prefs_avgjg_Rnonrel and their `_ret` and `_imp` variants, as trec_eval's m_prefs_*.c
//! define them over the counts of `counts` (form_prefs_counts.c).
//!
//! Each family reads its measure over the counts ([`Preference`]): on graded judgements, the
//! query's grades as one judgement group of one subgroup (trec_eval's `-R qrels_prefs` of qrels
//! whose second column is constant), negative grades unjudged; on preference files, through
//! [`crate::prefs`].

mod counts;

pub use counts::{Conflict, Group, GroupCounts, Judgement, PrefCounts};

use super::trec_eval::{Judgements, TrecName};
use super::{
    kernel, Aggregate, Alias, Context, CutoffKind, Family, Kernel, Kind, Measure, Params, Reads,
};
use crate::batch::QueryView;

const CITATION: &str = "Buckley, trec_eval's preference measures (form_prefs_counts.c, \
                        m_prefs_*.c), trec_eval 10 (NIST), https://github.com/usnistgov/trec_eval";

/// A preference family's measure over a query's counts.
#[derive(Debug, Clone, Copy)]
pub struct Preference {
    /// The value from the counts.
    pub score: fn(&PrefCounts) -> f64,
    /// Whether it needs the counts per pair of documents.
    pub pairs: bool,
}

impl Params for Preference {}

/// Why trec_eval's values of the Rnonrel preference measures are not determined by its input.
const RNONREL_UNDETERMINED: &str = "trec_eval 10 can read past the end of an array when it \
                                    adds the non-relevant documents (valgrind: invalid read)";

/// The 14 preference families, in trec_eval's order.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "NumPrefsPoss",
        kind: Kind::Ranking(bind),
        summary: "number of preferences judged, whether their documents were retrieved or not (summed over queries)",
        formula: "sum_g (possible_ret + possible_imp + possible_notoccur)",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &[Alias::trec_eval("prefs_num_prefs_poss")],
        trec_eval: &[TrecName::at("prefs_num_prefs_poss", 34)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: num_possible,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "NumPrefsFul",
        kind: Kind::Ranking(bind),
        summary: "number of preferences A > B fulfilled: A ranked above B, or A retrieved and B not (summed over queries)",
        formula: "sum_g (fulfilled_ret + fulfilled_imp)",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &[Alias::trec_eval("prefs_num_prefs_ful")],
        trec_eval: &[TrecName::at("prefs_num_prefs_ful", 35)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: num_fulfilled,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "NumPrefsFulRet",
        kind: Kind::Ranking(bind),
        summary: "number of preferences fulfilled with both documents retrieved (summed over queries)",
        formula: "sum_g fulfilled_ret",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &[Alias::trec_eval("prefs_num_prefs_ful_ret")],
        trec_eval: &[TrecName::at("prefs_num_prefs_ful_ret", 36)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: num_fulfilled_ret,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsSimp",
        kind: Kind::Ranking(bind),
        summary: "preferences fulfilled / preferences judged (neither document retrieved: a failure)",
        formula: "sum_g (fulfilled_ret + fulfilled_imp) / sum_g (possible_ret + possible_imp + possible_notoccur)",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_simp")],
        trec_eval: &[TrecName::at("prefs_simp", 37)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: simple,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsPair",
        kind: Kind::Ranking(bind),
        summary: "mean over document pairs of the share of groups whose preference the ranking fulfils",
        formula: "mean_{pairs A,B judged} c(A>B) / (c(A>B) + c(B>A)), A ranked above B (0 when neither is retrieved); c counts groups",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_pair")],
        trec_eval: &[TrecName::at("prefs_pair", 38)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: pair,
            pairs: true,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsAvgJG",
        kind: Kind::Ranking(bind),
        summary: "preferences fulfilled / judged within each judgement group, averaged over groups",
        formula: "(1/|G|) sum_g (fulfilled_ret + fulfilled_imp)_g / (possible_ret + possible_imp + possible_notoccur)_g",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_avgjg")],
        trec_eval: &[TrecName::at("prefs_avgjg", 39)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: average_groups,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsAvgJGRNonRel",
        kind: Kind::Ranking(bind),
        summary: "PrefsAvgJG with as many non-relevant documents (level 0) per group as relevant ones (R)",
        formula: "N <= R: R - N fulfilled non-relevant added below each relevant document; N > R: the first R non-relevant kept, preferences recounted",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_avgjg_Rnonrel")],
        trec_eval: &[TrecName::at("prefs_avgjg_Rnonrel", 40)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()
            .undetermined(RNONREL_UNDETERMINED)],
        reads: Reads::Preferences(Preference {
            score: average_groups_rnonrel,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsSimpRet",
        kind: Kind::Ranking(bind),
        summary: "PrefsSimp over preferences whose two documents are retrieved",
        formula: "sum_g fulfilled_ret / sum_g possible_ret",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_simp_ret")],
        trec_eval: &[TrecName::at("prefs_simp_ret", 41)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: simple_ret,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsPairRet",
        kind: Kind::Ranking(bind),
        summary: "PrefsPair over pairs whose two documents are retrieved",
        formula: "mean_{pairs A,B retrieved} c(A>B) / (c(A>B) + c(B>A)), A ranked above B",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_pair_ret")],
        trec_eval: &[TrecName::at("prefs_pair_ret", 42)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: pair_ret,
            pairs: true,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsAvgJGRet",
        kind: Kind::Ranking(bind),
        summary: "PrefsAvgJG over preferences whose two documents are retrieved",
        formula: "(1/|G|) sum_g fulfilled_ret_g / possible_ret_g",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_avgjg_ret")],
        trec_eval: &[TrecName::at("prefs_avgjg_ret", 43)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: average_groups_ret,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsAvgJGRNonRelRet",
        kind: Kind::Ranking(bind),
        summary: "PrefsAvgJGRNonRel over retrieved documents (R and N: relevant and non-relevant retrieved)",
        formula: "as PrefsAvgJGRNonRel, counting preferences between retrieved documents only",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_avgjg_Rnonrel_ret")],
        trec_eval: &[TrecName::at("prefs_avgjg_Rnonrel_ret", 44)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()
            .undetermined(RNONREL_UNDETERMINED)],
        reads: Reads::Preferences(Preference {
            score: average_groups_rnonrel_ret,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsSimpImp",
        kind: Kind::Ranking(bind),
        summary: "PrefsSimp over preferences with at least one document retrieved",
        formula: "sum_g (fulfilled_ret + fulfilled_imp) / sum_g (possible_ret + possible_imp)",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_simp_imp")],
        trec_eval: &[TrecName::at("prefs_simp_imp", 45)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: simple_imp,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsPairImp",
        kind: Kind::Ranking(bind),
        summary: "PrefsPair over pairs with at least one document retrieved",
        formula: "mean_{pairs A,B, one retrieved} c(A>B) / (c(A>B) + c(B>A)), A ranked above B",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_pair_imp")],
        trec_eval: &[TrecName::at("prefs_pair_imp", 46)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: pair_imp,
            pairs: true,
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "PrefsAvgJGImp",
        kind: Kind::Ranking(bind),
        summary: "PrefsAvgJG over preferences with at least one document retrieved",
        formula: "(1/|G|) sum_g (fulfilled_ret + fulfilled_imp)_g / (possible_ret + possible_imp)_g",
        citation: CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aliases: &[Alias::trec_eval("prefs_avgjg_imp")],
        trec_eval: &[TrecName::at("prefs_avgjg_imp", 47)
            .from(Judgements::Preferences)
            .not_in_pytrec_eval()],
        reads: Reads::Preferences(Preference {
            score: average_groups_imp,
            pairs: false,
        }),
        ..Family::DEFAULTS
    },
];

/// A preference family's kernel: its measure over the query's graded judgements as one
/// judgement group ([`PrefCounts::of_query`]).
fn bind(m: &Measure) -> Box<dyn Kernel> {
    let Reads::Preferences(preference) = m.family.reads else {
        unreachable!("the kernel of the preference families, which read preferences")
    };
    kernel(
        preference,
        |query: &QueryView<'_>, p: &Preference, _: &Context<'_>| {
            (p.score)(&PrefCounts::of_query(query, p.pairs))
        },
    )
}

/// prefs_num_prefs_poss: preferences possible, whether retrieved or not.
pub fn num_possible(p: &PrefCounts) -> f64 {
    p.total(|c| c.possible_ret + c.possible_imp + c.possible_notoccur) as f64
}

/// prefs_num_prefs_ful: preferences fulfilled, implied ones included.
pub fn num_fulfilled(p: &PrefCounts) -> f64 {
    p.total(|c| c.fulfilled_ret + c.fulfilled_imp) as f64
}

/// prefs_num_prefs_ful_ret: preferences fulfilled among retrieved documents.
pub fn num_fulfilled_ret(p: &PrefCounts) -> f64 {
    p.total(|c| c.fulfilled_ret) as f64
}

fn ratio(fulfilled: u64, possible: u64) -> f64 {
    if possible > 0 {
        fulfilled as f64 / possible as f64
    } else {
        0.0
    }
}

/// prefs_simp: fulfilled / possible, over every group's preferences.
pub fn simple(p: &PrefCounts) -> f64 {
    ratio(
        p.total(|c| c.fulfilled_ret + c.fulfilled_imp),
        p.total(|c| c.possible_ret + c.possible_imp + c.possible_notoccur),
    )
}

/// prefs_simp_ret: fulfilled / possible among retrieved documents.
pub fn simple_ret(p: &PrefCounts) -> f64 {
    ratio(p.total(|c| c.fulfilled_ret), p.total(|c| c.possible_ret))
}

/// prefs_simp_imp: fulfilled / possible, pairs with neither document retrieved left out.
pub fn simple_imp(p: &PrefCounts) -> f64 {
    ratio(
        p.total(|c| c.fulfilled_ret + c.fulfilled_imp),
        p.total(|c| c.possible_ret + c.possible_imp),
    )
}

/// prefs_pair: the mean over document pairs of the share of groups' preferences fulfilled.
pub fn pair(p: &PrefCounts) -> f64 {
    p.pair_average(true, true)
}

/// prefs_pair_ret: prefs_pair over pairs of retrieved documents.
pub fn pair_ret(p: &PrefCounts) -> f64 {
    p.pair_average(false, false)
}

/// prefs_pair_imp: prefs_pair over pairs with at least one document retrieved.
pub fn pair_imp(p: &PrefCounts) -> f64 {
    p.pair_average(true, false)
}

/// prefs_avgjg: fulfilled / possible per group, averaged over groups.
pub fn average_groups(p: &PrefCounts) -> f64 {
    p.average_over_groups(|c| {
        (
            c.fulfilled_ret + c.fulfilled_imp,
            c.possible_ret + c.possible_imp + c.possible_notoccur,
        )
    })
}

/// prefs_avgjg_ret: prefs_avgjg among retrieved documents.
pub fn average_groups_ret(p: &PrefCounts) -> f64 {
    p.average_over_groups(|c| (c.fulfilled_ret, c.possible_ret))
}

/// prefs_avgjg_imp: prefs_avgjg, pairs with neither document retrieved left out.
pub fn average_groups_imp(p: &PrefCounts) -> f64 {
    p.average_over_groups(|c| {
        (
            c.fulfilled_ret + c.fulfilled_imp,
            c.possible_ret + c.possible_imp,
        )
    })
}

/// prefs_avgjg_Rnonrel: prefs_avgjg with as many non-relevant documents per group as relevant.
pub fn average_groups_rnonrel(p: &PrefCounts) -> f64 {
    p.average_rnonrel(false)
}

/// prefs_avgjg_Rnonrel_ret: prefs_avgjg_Rnonrel among retrieved documents.
pub fn average_groups_rnonrel_ret(p: &PrefCounts) -> f64 {
    p.average_rnonrel(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judgements<'a>(lines: &[(&'a str, &'a str, &'a str, f64)]) -> Vec<Judgement<'a>> {
        lines
            .iter()
            .map(|&(group, subgroup, doc, level)| Judgement {
                group,
                subgroup,
                doc,
                level,
            })
            .collect()
    }

    fn counts(lines: &[(&str, &str, &str, f64)], ranking: &[&str]) -> PrefCounts {
        PrefCounts::new(&judgements(lines), ranking, true).unwrap()
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-15, "{a} != {b}");
    }

    #[test]
    fn one_subgroup_counts_by_hand() {
        // get_prefs.c's example of 13 preferences; retrieved d4, d1, d3: internal ranks d4 0,
        // d1 1, d3 2, then d2 3, d5 4, d6 5. Fulfilled with both retrieved: d4>d1, d4>d3,
        // d1>d3; with one: d4>d2, d4>d5, d4>d6, d1>d2, d1>d5, d1>d6; failed with one retrieved:
        // d2>d3, d6>d3; neither retrieved: d2>d5, d6>d5.
        let lines = [
            ("u", "s", "d1", 3.0),
            ("u", "s", "d2", 2.0),
            ("u", "s", "d3", 0.0),
            ("u", "s", "d4", 6.0),
            ("u", "s", "d5", 0.0),
            ("u", "s", "d6", 2.0),
        ];
        let p = counts(&lines, &["d4", "x", "d1", "d3"]);
        assert_eq!((p.num_judged, p.num_judged_ret), (6, 3));
        let c = &p.groups[0].counts;
        assert_eq!(
            (
                c.fulfilled_ret,
                c.possible_ret,
                c.fulfilled_imp,
                c.possible_imp
            ),
            (3, 3, 6, 8)
        );
        assert_eq!(c.possible_notoccur, 2);
        assert_eq!(
            (c.num_rel, c.num_rel_ret, c.num_nonrel, c.num_nonrel_ret),
            (4, 2, 2, 1)
        );
        assert_eq!(num_possible(&p), 13.0);
        assert_eq!(num_fulfilled(&p), 9.0);
        assert_eq!(num_fulfilled_ret(&p), 3.0);
        close(simple(&p), 9.0 / 13.0);
        close(simple_ret(&p), 1.0);
        close(simple_imp(&p), 9.0 / 11.0);
        // One group: the pair and group averages are the simple ratios.
        close(pair(&p), 9.0 / 13.0);
        close(pair_ret(&p), 1.0);
        close(pair_imp(&p), 9.0 / 11.0);
        close(average_groups(&p), 9.0 / 13.0);
        close(average_groups_ret(&p), 1.0);
        close(average_groups_imp(&p), 9.0 / 11.0);
        // R = 4 >= N = 2: 2 non-relevant added below each relevant document; fulfilled
        // 9 + 2·2 (relevant retrieved), possible 13 + 2·4.
        close(average_groups_rnonrel(&p), 13.0 / 21.0);
        // Retrieved: R = 2, N = 1: fulfilled 3 + 2·1, possible 3 + 4·1 (trec_eval multiplies
        // by all relevant documents).
        close(average_groups_rnonrel_ret(&p), 5.0 / 7.0);
    }

    #[test]
    fn subgroups_are_closed_transitively() {
        // get_prefs.c: 1>2, 1>3, 2>3 and 2>4 give 1>4 too. Retrieved d4, d2, d1: 1>2, 2>4 and
        // 1>4 fail with both retrieved; 1>3 and 2>3 are fulfilled with one retrieved.
        let lines = [
            ("u", "s1", "d1", 3.0),
            ("u", "s1", "d2", 2.0),
            ("u", "s1", "d3", 1.0),
            ("u", "s2", "d2", 5.0),
            ("u", "s2", "d4", 4.0),
        ];
        let p = counts(&lines, &["d4", "d2", "d1"]);
        let c = &p.groups[0].counts;
        assert_eq!(
            (
                c.fulfilled_ret,
                c.possible_ret,
                c.fulfilled_imp,
                c.possible_imp
            ),
            (0, 3, 2, 2)
        );
        assert_eq!(num_possible(&p), 5.0);
        close(simple(&p), 0.4);
        assert_eq!(simple_ret(&p), 0.0);
        assert_eq!((c.num_rel, c.num_rel_ret, c.num_nonrel), (4, 3, 0));
        // R = 4, N = 0: fulfilled 2 + 3·4, possible 5 + 4·4.
        close(average_groups_rnonrel(&p), 14.0 / 21.0);
        // R = 3, N = 0: fulfilled 0 + 3·3, possible 3 + 4·3.
        close(average_groups_rnonrel_ret(&p), 0.6);
    }

    #[test]
    fn groups_disagreeing_on_a_pair_share_it() {
        // get_prefs.c's two users: u1 1>2; u2 3>1, 4>1, 3>4, 2>1. Ranking d1 d2 d3 d4.
        let lines = [
            ("u1", "s1", "d1", 3.0),
            ("u1", "s1", "d2", 2.0),
            ("u2", "s1", "d1", 0.0),
            ("u2", "s1", "d3", 6.0),
            ("u2", "s1", "d4", 2.0),
            ("u2", "s2", "d1", 0.0),
            ("u2", "s2", "d2", 8.0),
        ];
        let p = counts(&lines, &["d1", "d2", "d3", "d4"]);
        assert_eq!(num_possible(&p), 5.0);
        // u1: 1 of 1; u2: 3>4 only, 1 of 4.
        close(simple(&p), 0.4);
        close(average_groups(&p), (1.0 + 0.25) / 2.0);
        // Pairs {1,2}: 1/2; {1,3}: 0; {1,4}: 0; {3,4}: 1.
        close(pair(&p), 1.5 / 4.0);
    }

    #[test]
    fn nothing_retrieved_and_nothing_judged_apart() {
        let lines = [("u", "s", "a", 1.0), ("u", "s", "b", 0.0)];
        let p = counts(&lines, &[]);
        assert_eq!((num_possible(&p), num_fulfilled(&p)), (1.0, 0.0));
        assert_eq!(simple(&p), 0.0);
        assert_eq!(pair(&p), 0.0);
        // Retrieved only: R = N = 0, 0/0: the query scores 0 as in trec_eval.
        assert_eq!(average_groups_rnonrel_ret(&p), 0.0);
        // One level only: no preference at all.
        let p = counts(&[("u", "s", "a", 1.0), ("u", "s", "b", 1.0)], &["a"]);
        assert_eq!((num_possible(&p), simple(&p), pair(&p)), (0.0, 0.0, 0.0));
    }

    #[test]
    fn contradictions_are_refused() {
        let two_levels = [
            ("u", "s", "a", 2.0),
            ("u", "s", "a", 1.0),
            ("u", "s", "b", 0.0),
        ];
        assert!(matches!(
            PrefCounts::new(&judgements(&two_levels), &[], false),
            Err(Conflict::TwoLevels { .. })
        ));
        let zero = [
            ("u", "s1", "a", 2.0),
            ("u", "s1", "b", 0.0),
            ("u", "s2", "b", 1.0),
            ("u", "s2", "c", 0.5),
        ];
        assert_eq!(
            PrefCounts::new(&judgements(&zero), &[], false),
            Err(Conflict::ZeroAndNonZero { judgement: 2 })
        );
        let cycle = [
            ("u", "s1", "a", 2.0),
            ("u", "s1", "b", 1.0),
            ("u", "s2", "b", 2.0),
            ("u", "s2", "c", 1.0),
            ("u", "s3", "c", 2.0),
            ("u", "s3", "a", 1.0),
        ];
        assert!(matches!(
            PrefCounts::new(&judgements(&cycle), &[], false),
            Err(Conflict::Cycle { group, .. }) if group == "u"
        ));
    }

    #[test]
    fn graded_judgements_are_one_group() {
        // Grades in rank order (−1: unjudged), judged grades descending.
        let grades = [2, crate::batch::UNJUDGED, 0, 1];
        let judged = [2, 1, 1, 0, 0];
        let query = QueryView {
            grades: &grades,
            judged: &judged,
            num_distinct_relevant: None,
            subtopics: None,
            scores: None,
            judged_ranks: None,
        };
        let of_query = PrefCounts::of_query(&query, true);
        let lines = [
            ("0", "0", "a", 2.0),
            ("0", "0", "c", 0.0),
            ("0", "0", "d", 1.0),
            ("0", "0", "e", 1.0),
            ("0", "0", "f", 0.0),
        ];
        let direct = counts(&lines, &["a", "b", "c", "d"]);
        assert_eq!(of_query.groups[0].counts, direct.groups[0].counts);
        assert_eq!(FAMILIES.len(), 14);
        for family in FAMILIES {
            let Reads::Preferences(p) = family.reads else {
                panic!("{} reads no preferences", family.name)
            };
            assert_eq!((p.score)(&of_query), (p.score)(&direct), "{}", family.name);
        }
    }
}
