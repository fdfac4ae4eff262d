//! trec_eval's view of the registry: each family's [`TrecName`]s (what trec_eval prints, its
//! place in trec_eval's measure table, how `-m name.params` reads parameters and what it uses
//! without them), trec_eval's [`NICKNAMES`], and the two lines of its table that are not
//! measures ([`NOT_MEASURES`]: runid and relstring, which the trec-eval command prints itself).
//!
//! pytrec_eval is trec_eval 9: [`TrecName::pytrec_eval`] says which names it computes.

use super::{families, Cutoff, Family, Measure};

/// How `-m name.params` reads a family's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// No parameters (given ones are ignored, with a warning).
    None,
    /// Integer cutoffs, one line each (`P_5`); read with strtol, so 23.4 is 23.
    Cutoffs,
    /// Recall levels, one line each (`iprec_at_recall_0.10`).
    Levels,
    /// Multiples of R, one line each (`Rprec_mult_0.20`).
    Factors,
    /// Recall levels averaged into one line (`11pt_avg`).
    LevelSet,
    /// The four coefficients a, b, c, d (`utility`).
    Utility,
    /// `grade=gain` pairs (and `p=` for rbp): one line.
    Pairs,
    /// One number (set_F's beta).
    Number,
}

impl Style {
    /// Its name (`none`, `cutoffs`, `levels`, `factors`, `level_set`, `utility`, `pairs`,
    /// `number`).
    pub fn as_str(self) -> &'static str {
        match self {
            Style::None => "none",
            Style::Cutoffs => "cutoffs",
            Style::Levels => "levels",
            Style::Factors => "factors",
            Style::LevelSet => "level_set",
            Style::Utility => "utility",
            Style::Pairs => "pairs",
            Style::Number => "number",
        }
    }
}

/// The judgements (`-R`) a trec_eval measure is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Judgements {
    /// Qrels (`-R qrels`, the default).
    Qrels,
    /// Qrels whose second column names a judgement group (`-R qrels_jg`).
    Groups,
    /// Preferences (`-R prefs` or `-R qrels_prefs`).
    Preferences,
    /// Any (runid, num_q).
    Any,
}

impl Judgements {
    /// Its name (`qrels`, `qrels_jg`, `prefs`, `any`).
    pub fn as_str(self) -> &'static str {
        match self {
            Judgements::Qrels => "qrels",
            Judgements::Groups => "qrels_jg",
            Judgements::Preferences => "prefs",
            Judgements::Any => "any",
        }
    }

    /// The judgements of a name [`Judgements::as_str`] gives.
    pub fn named(name: &str) -> Option<Self> {
        [
            Judgements::Qrels,
            Judgements::Groups,
            Judgements::Preferences,
            Judgements::Any,
        ]
        .into_iter()
        .find(|judgements| judgements.as_str() == name)
    }
}

/// One of trec_eval's names for a family's measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrecName {
    /// The name (`ndcg_cut`; lines print `ndcg_cut_10`).
    pub name: &'static str,
    /// Its place in trec_eval 10's measure table, the order trec_eval prints in; `None` for a
    /// name trec_eval prints for the family's measures that `-m` reads as another family's
    /// (`set_P`, SetP's, is read as P).
    pub position: Option<u8>,
    /// How `-m` reads its parameters.
    pub style: Style,
    /// The parameters trec_eval uses when `-m` gives none (cutoffs, levels, coefficients...).
    pub defaults: &'static [f64],
    /// Whether trec_eval prints it only in the summary (`all`), not per query.
    pub summary_only: bool,
    /// The judgements it is computed from.
    pub judgements: Judgements,
    /// Whether pytrec_eval (trec_eval 9) computes it.
    pub pytrec_eval: bool,
    /// The parameters of the measures it names, as names write them (`relative=True` for
    /// `set_relative_P` of SetP); empty for most.
    pub params: &'static str,
    /// Parameters trec_eval takes from its own options rather than from `-m`, which its
    /// printed names leave out (utility's `n`, from `-N`).
    pub from_options: &'static [&'static str],
    /// Why trec_eval's own value is not determined by its inputs here (it reads memory it
    /// never wrote), or empty: the command warns that it prints the corrected value.
    pub undetermined: &'static str,
}

impl TrecName {
    /// A name at `position` of trec_eval's table, without parameters, from qrels.
    pub const fn at(name: &'static str, position: u8) -> Self {
        Self {
            name,
            position: Some(position),
            style: Style::None,
            defaults: &[],
            summary_only: false,
            judgements: Judgements::Qrels,
            pytrec_eval: true,
            params: "",
            from_options: &[],
            undetermined: "",
        }
    }

    /// A name trec_eval prints for the family's measures, read by `-m` as another's.
    pub const fn printed(name: &'static str) -> Self {
        Self {
            position: None,
            ..Self::at(name, 0)
        }
    }

    /// The same, with parameters read in `style` and `defaults` without them.
    pub const fn reads(mut self, style: Style, defaults: &'static [f64]) -> Self {
        self.style = style;
        self.defaults = defaults;
        self
    }

    /// The same, printed only in the summary.
    pub const fn summary_only(mut self) -> Self {
        self.summary_only = true;
        self
    }

    /// The same, computed from other judgements than qrels.
    pub const fn from(mut self, judgements: Judgements) -> Self {
        self.judgements = judgements;
        self
    }

    /// The same, unknown to pytrec_eval.
    pub const fn not_in_pytrec_eval(mut self) -> Self {
        self.pytrec_eval = false;
        self
    }

    /// The same, naming the measures with these parameters.
    pub const fn with_params(mut self, params: &'static str) -> Self {
        self.params = params;
        self
    }

    /// The same, with parameters that trec_eval's options set (left out of printed names).
    pub const fn with_options(mut self, params: &'static [&'static str]) -> Self {
        self.from_options = params;
        self
    }

    /// The same, where trec_eval's value depends on memory it never wrote, for `why`.
    pub const fn undetermined(mut self, why: &'static str) -> Self {
        self.undetermined = why;
        self
    }
}

/// trec_eval's default cutoffs.
pub const CUTOFFS: &[f64] = &[5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0];
/// trec_eval's default recall levels (iprec_at_recall).
pub const RECALL_LEVELS: &[f64] = &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// trec_eval's default factors of R (Rprec_mult).
pub const RPREC_FACTORS: &[f64] = &[0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];

/// The lines of trec_eval's measure table that are not measures: runid (the run's name, in
/// the summary) and relstring (each query's grades as characters).
pub static NOT_MEASURES: [TrecName; 2] = [
    TrecName::at("runid", 0)
        .summary_only()
        .from(Judgements::Any),
    TrecName::at("relstring", 12).reads(Style::Cutoffs, &[10.0]),
];

/// trec_eval 10's nicknames for sets of measures (its measures.c), each listing trec_eval
/// names in trec_eval's own order (the output follows the table's).
pub const NICKNAMES: &[(&str, &[&str])] = &[
    (
        "official",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "P",
        ],
    ),
    (
        "all_trec",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "P",
            "relstring",
            "recall",
            "unj",
            "rbp",
            "rbp_resid",
            "infAP",
            "gm_bpref",
            "utility",
            "11pt_avg",
            "ndcg",
            "relative_P",
            "Rprec_mult",
            "success",
            "map_cut",
            "ndcg_cut",
            "ndcg_rel",
            "Rndcg",
            "binG",
            "G",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
            "num_nonrel_judged_ret",
        ],
    ),
    (
        "set",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "utility",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
        ],
    ),
    (
        "all_prefs",
        &[
            "runid",
            "num_q",
            "prefs_num_prefs_poss",
            "prefs_num_prefs_ful",
            "prefs_num_prefs_ful_ret",
            "prefs_simp",
            "prefs_pair",
            "prefs_avgjg",
            "prefs_avgjg_Rnonrel",
            "prefs_simp_ret",
            "prefs_pair_ret",
            "prefs_avgjg_ret",
            "prefs_avgjg_Rnonrel_ret",
            "prefs_simp_imp",
            "prefs_pair_imp",
            "prefs_avgjg_imp",
        ],
    ),
    (
        "prefs",
        &[
            "runid",
            "num_q",
            "prefs_num_prefs_poss",
            "prefs_num_prefs_ful",
            "prefs_num_prefs_ful_ret",
            "prefs_simp",
            "prefs_pair",
            "prefs_avgjg",
        ],
    ),
    (
        "qrels_jg",
        &["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"],
    ),
];

/// trec_eval's measure table in its order: each name with the family `-m` reads it as
/// (`None` for runid and relstring).
pub fn table() -> Vec<(Option<&'static Family>, &'static TrecName)> {
    let mut rows: Vec<(Option<&'static Family>, &'static TrecName)> = families()
        .flat_map(|f| f.trec_eval.iter().map(move |t| (Some(f), t)))
        .filter(|(_, t)| t.position.is_some())
        .chain(NOT_MEASURES.iter().map(|t| (None, t)))
        .collect();
    rows.sort_by_key(|(_, t)| t.position);
    rows
}

/// The name trec_eval prints for `m` (`ndcg_cut_10`, `iprec_at_recall_0.10`), if it has one:
/// the first of the family's names of its shape (a cutoff, a level or none) whose parameters
/// are the measure's. Judgement groups' names are left out (they name `-R qrels_jg` lines).
pub(super) fn printed_name(m: &Measure) -> Option<String> {
    let named = |t: &TrecName| {
        let params: Vec<String> = m
            .params
            .iter()
            .filter(|(param, _)| !t.from_options.contains(&param.name))
            .map(|(param, value)| format!("{}={}", param.name, param.print(value)))
            .collect();
        params.join(",")
    };
    m.family
        .trec_eval
        .iter()
        .filter(|t| t.judgements != Judgements::Groups && t.params == named(t))
        .find_map(|t| match (m.cutoff, t.style) {
            (
                None,
                Style::None | Style::Pairs | Style::Number | Style::Utility | Style::LevelSet,
            ) => Some(t.name.to_string()),
            (Some(Cutoff::Count(k)), Style::Cutoffs) => Some(format!("{}_{k}", t.name)),
            (Some(Cutoff::Level(level)), Style::Levels | Style::Factors) => {
                Some(format!("{}_{level:.2}", t.name))
            }
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_each_place_once() {
        let positions: Vec<u8> = table().iter().filter_map(|(_, t)| t.position).collect();
        assert_eq!(positions, (0..positions.len() as u8).collect::<Vec<_>>());
        let names: Vec<&str> = table().iter().map(|(_, t)| t.name).collect();
        assert_eq!(
            names[..6],
            ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
        );
        assert_eq!(names.last(), Some(&"unj"));
    }

    #[test]
    fn every_nickname_names_lines_of_the_table() {
        let names: Vec<&str> = table().iter().map(|(_, t)| t.name).collect();
        for (nickname, members) in NICKNAMES {
            for member in *members {
                assert!(names.contains(member), "{nickname}: {member}");
            }
        }
    }

    #[test]
    fn printed_names_follow_the_shape_of_the_measure() {
        let name = |text: &str| super::super::parse_measure(text).unwrap().trec_name();
        assert_eq!(name("AP").as_deref(), Some("map"));
        assert_eq!(name("AP@100").as_deref(), Some("map_cut_100"));
        assert_eq!(name("RprecMult@0.2").as_deref(), Some("Rprec_mult_0.20"));
        assert_eq!(name("SetRelP").as_deref(), Some("set_relative_P"));
        assert_eq!(name("SetR").as_deref(), Some("set_recall"));
        assert_eq!(name("Utility").as_deref(), Some("utility"));
        assert_eq!(name("Utility(a=2.0)"), None);
        assert_eq!(name("Utility(n=50)").as_deref(), Some("utility"));
        assert_eq!(name("PrefsSimp").as_deref(), Some("prefs_simp"));
        assert_eq!(name("RBP"), None);
    }
}
