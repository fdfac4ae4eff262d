//! The answer measures: BLEU, ROUGE-1, ROUGE-2, ROUGE-L, ExactMatch and TokenF1, which score a
//! generated answer against reference answers, and the judged ones (Faithfulness,
//! AnswerRelevance, ReferenceAgreement), which a judge grades. BLEU and ROUGE are computed by
//! [`crate::answers`]; ExactMatch, TokenF1 and the judged ones above the bindings (in
//! `rankscope.answers`, over SQuAD's normalization and `rankscope.judge`'s judges). The registry
//! parses, lists and validates their names like every other family's, and holds the answer
//! profiles' default measures ([`default_measures`]).

use super::{Aggregate, Alias, Family, Kind, Param, ParamKind};

/// The answer profiles: `standard` (the reference packages) and `weknora` (WeKnora's own
/// BLEU-n and ROUGE), in the order they are listed.
pub const PROFILES: &[&str] = &["standard", "weknora"];

/// The profiles that define BLEU and ROUGE.
const BOTH: &[&str] = &["standard", "weknora"];

const FORMULA: &str =
    "per question, the best score over its references; mean over the questions with a value";
const ROUGE: &str = "Lin, ROUGE (2004); rouge-score (Google Research)";
const SQUAD: &str = "Rajpurkar et al., SQuAD (EMNLP 2016)";
const STEM: &[Param] = &[Param::new("stem", ParamKind::Words(&["True", "False"]))];
const JUDGED: &str =
    "per question, the judge's grade over the top of its scale (0-3), the mean of \
                      `repeats` askings (stat=sd: their standard deviation; stat=failed: the \
                      share of askings without a grade); mean over the questions with a \
                      grade";
const JUDGE_CITATION: &str = "rankscope.answers' prompts, after Es et al., RAGAS (EACL 2024) and \
                              Zheng et al., LLM-as-a-judge (NeurIPS 2023)";
/// The parameters of the judged measures: askings per question, and which statistic of them.
const JUDGE_PARAMS: &[Param] = &[
    Param::new("repeats", ParamKind::Count),
    Param::new("stat", ParamKind::Words(&["mean", "sd", "failed"])),
];

/// The families of this module.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "BLEU",
        kind: Kind::Answer,
        summary: "sentence BLEU of an answer, 0-1 (sacrebleu: exp smoothing; n = highest n-gram \
                  order, default 4; tokenize = sacrebleu's tokenizer, default 13a, zh for \
                  Chinese; profile weknora: WeKnora's add-1 BLEU-n)",
        formula: FORMULA,
        citation: "Papineni et al., BLEU (ACL 2002); Post, sacrebleu (WMT 2018)",
        cutoff: super::CutoffKind::None,
        params: &[
            Param::new("n", ParamKind::Words(&["1", "2", "3", "4"])),
            Param::new(
                "tokenize",
                ParamKind::Words(&["13a", "zh", "intl", "char", "none"]),
            ),
        ],
        aliases: &[Alias::other("sacrebleu"), Alias::other("bleu4")],
        profiles: BOTH,
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "ROUGE-1",
        kind: Kind::Answer,
        summary: "ROUGE-1 F-measure of an answer (rouge-score; stem=True: Porter stemming)",
        formula: FORMULA,
        citation: ROUGE,
        cutoff: super::CutoffKind::None,
        params: STEM,
        aliases: &[Alias::other("rouge1")],
        profiles: BOTH,
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "ROUGE-2",
        kind: Kind::Answer,
        summary: "ROUGE-2 F-measure of an answer (rouge-score; stem=True: Porter stemming)",
        formula: FORMULA,
        citation: ROUGE,
        cutoff: super::CutoffKind::None,
        params: STEM,
        aliases: &[Alias::other("rouge2")],
        profiles: BOTH,
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "ROUGE-L",
        kind: Kind::Answer,
        summary: "ROUGE-L F-measure (longest common subsequence) of an answer (rouge-score; \
                  profile weknora: summary level)",
        formula: FORMULA,
        citation: ROUGE,
        cutoff: super::CutoffKind::None,
        params: STEM,
        aliases: &[Alias::other("rougeL")],
        profiles: BOTH,
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "ExactMatch",
        kind: Kind::Answer,
        summary: "1 if the answer equals a reference after SQuAD's normalization, else 0",
        formula: FORMULA,
        citation: SQUAD,
        cutoff: super::CutoffKind::None,
        params: &[],
        aliases: &[
            Alias::other("EM"),
            Alias::other("exact_match"),
            Alias::other("exact"),
        ],
        profiles: &["standard"],
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "TokenF1",
        kind: Kind::Answer,
        summary: "F1 of the answer's and a reference's tokens after SQuAD's normalization",
        formula: FORMULA,
        citation: SQUAD,
        cutoff: super::CutoffKind::None,
        params: &[],
        aliases: &[Alias::other("token_f1")],
        profiles: &["standard"],
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "Faithfulness",
        kind: Kind::Answer,
        summary: "a judge's grade of how far the answer is supported by the retrieved passages \
                  (needs a judge and the passages)",
        formula: JUDGED,
        citation: JUDGE_CITATION,
        cutoff: super::CutoffKind::None,
        params: JUDGE_PARAMS,
        aliases: &[Alias::other("faithfulness")],
        profiles: &["standard"],
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "AnswerRelevance",
        kind: Kind::Answer,
        summary: "a judge's grade of how well the answer addresses the question (needs a judge)",
        formula: JUDGED,
        citation: JUDGE_CITATION,
        cutoff: super::CutoffKind::None,
        params: JUDGE_PARAMS,
        aliases: &[Alias::other("answer_relevance")],
        profiles: &["standard"],
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
    Family {
        name: "ReferenceAgreement",
        kind: Kind::Answer,
        summary: "a judge's grade of how far the answer agrees with the reference answer \
                  (needs a judge)",
        formula: JUDGED,
        citation: JUDGE_CITATION,
        cutoff: super::CutoffKind::None,
        params: JUDGE_PARAMS,
        aliases: &[Alias::other("reference_agreement")],
        profiles: &["standard"],
        aggregate: Aggregate::MeanOfValues,
        ..Family::DEFAULTS
    },
];

/// What an answer profile computes when no measure is named (WeKnora's six for `weknora`), or
/// `None` for an unknown profile.
pub fn default_measures(profile: &str) -> Option<&'static [&'static str]> {
    match profile {
        "standard" => Some(&[
            "BLEU",
            "ROUGE-1",
            "ROUGE-2",
            "ROUGE-L",
            "ExactMatch",
            "TokenF1",
        ]),
        "weknora" => Some(&[
            "BLEU(n=1)",
            "BLEU(n=2)",
            "BLEU(n=4)",
            "ROUGE-1",
            "ROUGE-2",
            "ROUGE-L",
        ]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measures::parse_measures;

    #[test]
    fn every_profile_has_defaults_it_defines() {
        for profile in PROFILES {
            let names = default_measures(profile).unwrap();
            for m in parse_measures(names).unwrap() {
                assert!(matches!(m.family.kind, Kind::Answer), "{m}");
                assert!(m.family.defined_by(profile), "{m} under {profile}");
            }
        }
        assert_eq!(default_measures("trec"), None);
    }

    #[test]
    fn judged_measures_take_repeats_and_a_statistic() {
        let parsed =
            parse_measures(&["Faithfulness(repeats=5,stat=sd)", "answer_relevance"]).unwrap();
        assert_eq!(parsed[0].to_string(), "Faithfulness(repeats=5,stat=sd)");
        assert_eq!(parsed[1].to_string(), "AnswerRelevance");
        assert!(parse_measures(&["ReferenceAgreement(stat=median)"]).is_err());
        assert!(parse_measures(&["Faithfulness(repeats=0)"]).is_err());
    }
}
