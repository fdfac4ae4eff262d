//! The registry of measures: what a family is ([`Family`]: names and aliases by tool, typed
//! parameters, cutoff, trec_eval's names, ranx's, aggregate, profiles, formula and citation,
//! kernel), the [`Measure`] values names parse to (`nDCG@10`, `P(rel=2)@5`,
//! `nDCG(gain=exp)@10`, trec_eval's `ndcg_cut.10`, ranx's `ndcg@10-l2`), and the collection of
//! every family ([`families`]).
//!
//! Each kernel module declares the families whose kernels it holds, next to them: [`kernels`]
//! (trec_eval's classic measures), [`trec_extra`] (the rest of trec_eval), [`cwl`] (C/W/L),
//! [`diversity`] (subtopics), [`prefs`] (preferences), [`ir_measures`], [`ranx`], and
//! [`answers`] (the answer measures, scored outside the core). Adding a measure is a kernel
//! and one [`Family`] entry beside it in one of those modules. Families defined at run time by
//! a binding's users join them through [`user`], the registry's one extension point.

pub mod answers;
pub mod cwl;
pub mod diversity;
pub mod ir_measures;
pub mod kernels;
mod names;
pub mod prefs;
pub mod ranx;
pub mod trec_eval;
pub mod trec_extra;
pub mod user;

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::batch::{QueryView, RankedBatch};
use crate::error::{float_text, Error, ProfileProblem, Result};
use crate::profile::Conventions;

pub use names::{
    distinct, listed_names, parse_listed, parse_measure, parse_measures, split_list, MAX_CUTOFF,
};
pub use trec_eval::TrecName;

/// trec_eval's floor for geometric means (MIN_GEO_MEAN).
pub const GEOMETRIC_MEAN_FLOOR: f64 = 1e-5;

/// Every family, module by module, in the order `rankscope measures` lists them.
static MODULES: [&[Family]; 8] = [
    kernels::FAMILIES,
    trec_extra::FAMILIES,
    cwl::FAMILIES,
    diversity::FAMILIES,
    prefs::FAMILIES,
    ir_measures::FAMILIES,
    ranx::FAMILIES,
    answers::FAMILIES,
];

/// Every family, in the order `rankscope measures` lists them: the built-in ones, then those
/// defined at run time ([`user`]).
pub fn families() -> impl Iterator<Item = &'static Family> {
    built_in_families().chain(user::families())
}

/// The families of the core's own modules.
pub fn built_in_families() -> impl Iterator<Item = &'static Family> {
    MODULES.iter().flat_map(|module| module.iter())
}

/// The family of a canonical name or alias (case-insensitive): a tool's alias, ranx's name,
/// or a name trec_eval prints that parses ([`Alias`]).
pub fn family(name: &str) -> Option<&'static Family> {
    families().find(|f| f.names().any(|n| n.eq_ignore_ascii_case(name)))
}

/// How per-query values combine into one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aggregate {
    /// Arithmetic mean, added one value at a time in query order (as trec_eval).
    Mean,
    /// trec_eval's gm_*: `exp(mean(ln(max(v, 1e-5))))`.
    GeometricMean,
    /// The total (trec_eval's num_ret, num_rel, num_rel_ret).
    Sum,
    /// The number of queries (num_q).
    Count,
    /// The arithmetic mean of the values there are (the answer measures'): a question without
    /// one (NaN: the judge gave no grade, or there is no reference answer to score against)
    /// is left out; NaN when none has one.
    MeanOfValues,
}

impl Aggregate {
    /// Its name (`mean`, `geometric_mean`, `sum`, `count`, `mean_of_values`).
    pub fn as_str(self) -> &'static str {
        match self {
            Aggregate::Mean => "mean",
            Aggregate::GeometricMean => "geometric_mean",
            Aggregate::Sum => "sum",
            Aggregate::Count => "count",
            Aggregate::MeanOfValues => "mean_of_values",
        }
    }

    /// Combine per-query values (in query order); NaN when there are none.
    pub fn apply(self, values: &[f64]) -> f64 {
        if values.is_empty() {
            return f64::NAN;
        }
        let n = values.len() as f64;
        match self {
            Aggregate::Mean => values.iter().fold(0.0, |sum, v| sum + v) / n,
            Aggregate::GeometricMean => {
                let logs = values
                    .iter()
                    .fold(0.0, |sum, v| sum + v.max(GEOMETRIC_MEAN_FLOOR).ln());
                (logs / n).exp()
            }
            Aggregate::Sum => values.iter().fold(0.0, |sum, v| sum + v),
            Aggregate::Count => n,
            Aggregate::MeanOfValues => {
                let (sum, count) = values
                    .iter()
                    .filter(|v| !v.is_nan())
                    .fold((0.0, 0usize), |(sum, count), v| (sum + v, count + 1));
                if count == 0 {
                    f64::NAN
                } else {
                    sum / count as f64
                }
            }
        }
    }
}

/// What `@...` means for a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CutoffKind {
    /// Refused.
    None,
    /// `@k` optional.
    Optional,
    /// `@k` required.
    Required,
    /// `@r`, a recall level in [0, 1], required.
    RecallLevel,
    /// `@f`, a positive factor (of the number of relevant documents), required.
    Factor,
}

impl CutoffKind {
    /// Its name (`none`, `optional`, `required`, `recall_level`, `factor`).
    pub fn as_str(self) -> &'static str {
        match self {
            CutoffKind::None => "none",
            CutoffKind::Optional => "optional",
            CutoffKind::Required => "required",
            CutoffKind::RecallLevel => "recall_level",
            CutoffKind::Factor => "factor",
        }
    }
}

/// The values a parameter accepts, and how they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// An integer from 1 to [`MAX_CUTOFF`].
    Count,
    /// An integer of either sign, at most [`MAX_CUTOFF`] in size (the C/W/L grade range).
    Integer,
    /// A finite number.
    Number,
    /// A number strictly between 0 and 1 (a persistence).
    Fraction,
    /// Finite numbers separated by `;`, each once, written sorted (`levels=0.25;0.5`).
    Numbers,
    /// Gains by grade, `grade:gain` separated by `;`, each grade once (`gains=1:3;2:9`).
    Gains,
    /// `True` or `False` (`true` and `false` accepted), written capitalized.
    Flag,
    /// One of the words listed, written bare (`gain=exp`).
    Words(&'static [&'static str]),
    /// One of the words listed, written in quotes as ir_measures writes them (`dcg='exp-log2'`);
    /// accepted bare or in single or double quotes.
    Quoted(&'static [&'static str]),
}

impl ParamKind {
    /// How `rankscope measures` shows the values.
    pub fn describe(self) -> String {
        match self {
            ParamKind::Count | ParamKind::Integer => "integer".into(),
            ParamKind::Number => "number".into(),
            ParamKind::Fraction => "number in 0..1".into(),
            ParamKind::Numbers => "number;number;...".into(),
            ParamKind::Gains => "grade:gain;...".into(),
            ParamKind::Flag => "True|False".into(),
            ParamKind::Words(words) => words.join("|"),
            ParamKind::Quoted(words) => words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join("|"),
        }
    }
}

/// A parameter's value, once parsed: typed, validated, never text again.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// [`ParamKind::Count`] and [`ParamKind::Integer`].
    Integer(i64),
    /// [`ParamKind::Number`] and [`ParamKind::Fraction`].
    Number(f64),
    /// [`ParamKind::Flag`].
    Flag(bool),
    /// [`ParamKind::Words`] and [`ParamKind::Quoted`]: the word, as the family lists it.
    Word(&'static str),
    /// [`ParamKind::Numbers`], sorted.
    Numbers(Vec<f64>),
    /// [`ParamKind::Gains`], by grade ascending.
    Gains(Vec<(i64, f64)>),
}

/// A default value: what a measure uses when the parameter is not given, and what names leave
/// out when it is (as ir_measures prints `RBP(p=0.8)` as `RBP`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// An integer default.
    Integer(i64),
    /// A number default.
    Number(f64),
    /// A flag default.
    Flag(bool),
    /// A word default.
    Word(&'static str),
}

impl From<Scalar> for Value {
    fn from(scalar: Scalar) -> Self {
        match scalar {
            Scalar::Integer(v) => Value::Integer(v),
            Scalar::Number(v) => Value::Number(v),
            Scalar::Flag(v) => Value::Flag(v),
            Scalar::Word(v) => Value::Word(v),
        }
    }
}

/// One parameter a family accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param {
    /// Its name (`rel`, `gain`, `p`, ...).
    pub name: &'static str,
    /// The values it takes.
    pub kind: ParamKind,
    /// Its default, if it has one: used when the parameter is not given, and left out of
    /// names when given.
    pub default: Option<Scalar>,
}

impl Param {
    /// A parameter without default (the kernel says what its absence means).
    pub const fn new(name: &'static str, kind: ParamKind) -> Self {
        Self {
            name,
            kind,
            default: None,
        }
    }

    /// A parameter with a default.
    pub const fn with_default(name: &'static str, kind: ParamKind, default: Scalar) -> Self {
        Self {
            name,
            kind,
            default: Some(default),
        }
    }

    /// A value of this parameter as names write it.
    pub fn print(&self, value: &Value) -> String {
        match (self.kind, value) {
            (ParamKind::Quoted(_), Value::Word(word)) => format!("'{word}'"),
            (_, Value::Integer(v)) => v.to_string(),
            (_, Value::Number(v)) => float_text(*v),
            (_, Value::Flag(v)) => (if *v { "True" } else { "False" }).into(),
            (_, Value::Word(word)) => (*word).into(),
            (_, Value::Numbers(values)) => values
                .iter()
                .map(|&v| float_text(v))
                .collect::<Vec<_>>()
                .join(";"),
            (_, Value::Gains(gains)) => gains
                .iter()
                .map(|&(g, v)| format!("{g}:{}", float_text(v)))
                .collect::<Vec<_>>()
                .join(";"),
        }
    }

    /// How `rankscope measures` shows the values, the default in brackets.
    pub fn describe(&self) -> String {
        match self.default {
            Some(default) => format!("{} [{}]", self.kind.describe(), self.print(&default.into())),
            None => self.kind.describe(),
        }
    }
}

/// The `rel=` parameter: the lowest grade that counts as relevant, for this measure alone.
pub const REL: Param = Param::new("rel", ParamKind::Count);
/// ir_measures' `judged_only=`: unjudged documents leave the ranking first (trec_eval `-J`).
pub const JUDGED_ONLY: Param =
    Param::with_default("judged_only", ParamKind::Flag, Scalar::Flag(false));
/// trec_eval's gains by grade (`-m ndcg.1=3,2=9`), `gains=1:3;2:9`.
pub const GAINS: Param = Param::new("gains", ParamKind::Gains);

/// A tool whose names a family answers to (ranx's names and grammar are [`Family::ranx`];
/// pytrec_eval's are trec_eval 9's, [`TrecName::pytrec_eval`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    /// trec_eval.
    TrecEval,
    /// ir_measures.
    IrMeasures,
    /// Other common spellings.
    Other,
}

impl Tool {
    /// Its name (`trec_eval`, `ir_measures`, `other`).
    pub fn as_str(self) -> &'static str {
        match self {
            Tool::TrecEval => "trec_eval",
            Tool::IrMeasures => "ir_measures",
            Tool::Other => "other",
        }
    }
}

/// Another name of a family, and the tool it comes from. A *preset* alias also sets
/// parameters: ir_measures' `SetRelP` is `SetP(relative=True)` and prints so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alias {
    /// The tool.
    pub tool: Tool,
    /// The name (matched case-insensitively).
    pub name: &'static str,
    /// The parameters the name sets, as `key=value,...` (empty for a plain alias).
    pub preset: &'static str,
    /// Whether the name takes a cutoff when the family does (trec_eval's `set_P` does not).
    pub cutoff: bool,
}

impl Alias {
    /// A trec_eval name (`map`, `ndcg_cut`).
    pub const fn trec_eval(name: &'static str) -> Self {
        Self::of(Tool::TrecEval, name)
    }

    /// One of trec_eval's names for the measures of a whole retrieved set (`set_P`): no cutoff.
    pub const fn trec_eval_set(name: &'static str) -> Self {
        Self {
            cutoff: false,
            ..Self::of(Tool::TrecEval, name)
        }
    }

    /// An ir_measures name (`α_nDCG`).
    pub const fn ir_measures(name: &'static str) -> Self {
        Self::of(Tool::IrMeasures, name)
    }

    /// An ir_measures name that sets parameters (`SetRelP`: `relative=True`).
    pub const fn ir_measures_preset(name: &'static str, preset: &'static str) -> Self {
        Self {
            preset,
            ..Self::of(Tool::IrMeasures, name)
        }
    }

    /// Another common spelling (`mrr`, `mean_average_precision`).
    pub const fn other(name: &'static str) -> Self {
        Self::of(Tool::Other, name)
    }

    const fn of(tool: Tool, name: &'static str) -> Self {
        Self {
            tool,
            name,
            preset: "",
            cutoff: true,
        }
    }
}

/// How ranx writes a family's measures: `name[@k][-lN]`, or `name.p` for a persistence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranx {
    /// ranx's metric name (`ndcg`, `hit_rate`, `rbp`).
    pub name: &'static str,
    /// What ranx's number after the name is.
    pub number: RanxNumber,
    /// What ranx's `-lN` suffix does to the measure.
    pub level: RanxLevel,
    /// How the measure compares with ranx's definition.
    pub note: &'static str,
}

/// The number after a ranx name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RanxNumber {
    /// `@k`, a cutoff (the whole ranking without it).
    Cutoff,
    /// `.95` (or `@95`): RBP's persistence p, the digits after `0.`; required.
    Persistence,
    /// None: ranx ignores it, rankscope refuses it.
    None,
}

impl RanxNumber {
    /// Its name (`cutoff`, `persistence`, `none`).
    pub fn as_str(self) -> &'static str {
        match self {
            RanxNumber::Cutoff => "cutoff",
            RanxNumber::Persistence => "persistence",
            RanxNumber::None => "none",
        }
    }
}

/// What ranx's `-lN` (a relevance level, 1 by default) does to a family's measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RanxLevel {
    /// Sets `rel=N`: documents graded N or more are relevant.
    Rel,
    /// Grades below N gain nothing (`gains=1:0;...;N-1:0`); the others keep their grade.
    ZeroGainsBelow,
}

impl RanxLevel {
    /// Its name (`rel`, `zero_gains_below`).
    pub fn as_str(self) -> &'static str {
        match self {
            RanxLevel::Rel => "rel",
            RanxLevel::ZeroGainsBelow => "zero_gains_below",
        }
    }
}

/// What a family's kernel reads of a query's judgements.
#[derive(Debug, Clone, Copy)]
pub enum Reads {
    /// The grades of the ranking and of the judged documents.
    Grades,
    /// The judgements per subtopic too ([`crate::prepare::PrepareOptions::subtopics`]).
    Subtopics,
    /// Preference counts: trec_eval's preference measures, over preference files or graded
    /// judgements seen as one judgement group ([`prefs`]).
    Preferences(prefs::Preference),
}

/// Whether a family scores rankings (with its kernel) or generated answers.
#[derive(Clone, Copy)]
pub enum Kind {
    /// A ranking measure: its kernel, bound to a measure's parameters.
    Ranking(Bind),
    /// An answer measure: scored outside the core (`rankscope.answers`); the core parses,
    /// lists and validates its names.
    Answer,
    /// A family defined at run time: its values come from the [`user::Scorer`] defined with
    /// it, once per batch.
    User,
}

impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Kind {
    /// Its name (`ranking`, `answer`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::Ranking(_) => "ranking",
            Kind::Answer => "answer",
            Kind::User => "user",
        }
    }
}

/// The profiles that define a measure of trec_eval's or ir_measures' (every ranking measure).
pub const TREC_PROFILES: &[&str] = &["trec", "trec9"];
/// The profiles that define a measure WeKnora computes too.
pub const ALL_PROFILES: &[&str] = &["trec", "trec9", "weknora"];

/// A family of measures sharing one kernel: `P` covers `P@5`, `P(rel=2)@10`, ... Each kernel
/// module lists its families; [`families`] collects them.
#[derive(Debug)]
pub struct Family {
    /// Canonical spelling (ir_measures' where it has the measure).
    pub name: &'static str,
    /// A ranking measure with its kernel, or an answer measure.
    pub kind: Kind,
    /// One line: what the measure is.
    pub summary: &'static str,
    /// The formula (trec profile).
    pub formula: &'static str,
    /// Where the measure is defined.
    pub citation: &'static str,
    /// Whether `@k` is refused, optional, required, a recall level or a factor.
    pub cutoff: CutoffKind,
    /// Allowed parameters, in the order names print them.
    pub params: &'static [Param],
    /// Rules across parameters, checked once a name is parsed (`name` is the whole text).
    pub check: Option<fn(&Measure, &str) -> Result<()>>,
    /// How per-query values combine.
    pub aggregate: Aggregate,
    /// Whether values lie in [0, 1].
    pub bounded: bool,
    /// Other names, by tool (case-insensitive).
    pub aliases: &'static [Alias],
    /// trec_eval's names for the family's measures: what it prints and what `-m` reads.
    pub trec_eval: &'static [TrecName],
    /// How ranx names the family's measures, if it has them.
    pub ranx: Option<Ranx>,
    /// The profiles that define it (answer measures: the answer profiles).
    pub profiles: &'static [&'static str],
    /// What its kernel reads.
    pub reads: Reads,
}

impl Family {
    /// The fields most families share, for `..Family::DEFAULTS` (name, kind, summary, formula,
    /// citation, cutoff and params are always given).
    pub const DEFAULTS: Family = Family {
        name: "",
        kind: Kind::Answer,
        summary: "",
        formula: "",
        citation: "",
        cutoff: CutoffKind::None,
        params: &[],
        check: None,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        trec_eval: &[],
        ranx: None,
        profiles: TREC_PROFILES,
        reads: Reads::Grades,
    };

    /// Every name the family answers to: its own, its aliases', ranx's.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(self.name)
            .chain(self.aliases.iter().map(|a| a.name))
            .chain(self.ranx.map(|r| r.name))
    }

    /// Whether the profile `name` defines the family's measures.
    pub fn defined_by(&self, profile: &str) -> bool {
        self.profiles.contains(&profile)
    }

    /// The parameter `key`, if the family has it.
    pub fn param(&self, key: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == key)
    }
}

/// The cutoff of a measure: a count (`@10`) or a recall level or factor (`IPrec@0.5`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cutoff {
    /// A number of documents, 1 to [`MAX_CUTOFF`].
    Count(u64),
    /// A recall level in [0, 1], or a positive factor.
    Level(f64),
}

impl fmt::Display for Cutoff {
    /// Integers plainly, recall levels with the shortest digits and a fraction (`0.1`, `1.0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cutoff::Count(k) => write!(f, "{k}"),
            Cutoff::Level(level) => f.write_str(&float_text(*level)),
        }
    }
}

/// One measure with its parameters, e.g. `nDCG@10` or `P(rel=2)@5`.
///
/// Build measures with [`parse_measure`] or [`Measure::new`] (both validate).
#[derive(Debug, Clone)]
pub struct Measure {
    /// Its family.
    pub family: &'static Family,
    /// Its cutoff, if any.
    pub cutoff: Option<Cutoff>,
    /// The parameters given, in the family's order; a value equal to its default is left out.
    pub params: Vec<(&'static Param, Value)>,
}

impl PartialEq for Measure {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Measure {}

impl Hash for Measure {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl Measure {
    /// A validated measure from its parts: the family (any name or alias), the cutoff text
    /// (`"10"`, `"0.5"`) and `key=value` parameters, with the messages of name parsing.
    pub fn new(family: &str, cutoff: Option<&str>, params: &[(&str, &str)]) -> Result<Self> {
        let text: String = params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        let mut name = family.to_string();
        if !text.is_empty() {
            name = format!("{name}({text})");
        }
        if let Some(cut) = cutoff {
            name = format!("{name}@{cut}");
        }
        names::build(
            family,
            if text.is_empty() { None } else { Some(&text) },
            cutoff,
            &name,
        )
        .map_err(names::described)
    }

    /// The canonical name; parsing it gives this measure back.
    pub fn name(&self) -> String {
        let mut text = self.family.name.to_string();
        if !self.params.is_empty() {
            text = format!("{text}({})", self.params_text().join(","));
        }
        if let Some(cutoff) = self.cutoff {
            text = format!("{text}@{cutoff}");
        }
        text
    }

    /// The parameters given as names write them: `key=value`, in the family's order.
    pub fn params_text(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|(param, value)| format!("{}={}", param.name, param.print(value)))
            .collect()
    }

    /// The value of parameter `key`: as given, else its default.
    pub fn value(&self, key: &str) -> Option<Value> {
        self.params
            .iter()
            .find(|(p, _)| p.name == key)
            .map(|(_, v)| v.clone())
            .or_else(|| self.family.param(key)?.default.map(Value::from))
    }

    /// Whether parameter `key` was given (with a value other than its default).
    pub fn has(&self, key: &str) -> bool {
        self.params.iter().any(|(p, _)| p.name == key)
    }

    /// The integer parameter `key` (given, else its default).
    pub fn integer(&self, key: &str) -> Option<i64> {
        match self.value(key)? {
            Value::Integer(v) => Some(v),
            _ => None,
        }
    }

    /// The number parameter `key` (given, else its default).
    pub fn number(&self, key: &str) -> Option<f64> {
        match self.value(key)? {
            Value::Number(v) => Some(v),
            _ => None,
        }
    }

    /// The boolean parameter `key` (given, else its default; false without either).
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.value(key), Some(Value::Flag(true)))
    }

    /// The word parameter `key` (given, else its default).
    pub fn word(&self, key: &str) -> Option<&'static str> {
        match self.value(key)? {
            Value::Word(word) => Some(word),
            _ => None,
        }
    }

    /// The numbers of parameter `key`, if given.
    pub fn numbers(&self, key: &str) -> Option<Vec<f64>> {
        match self.value(key)? {
            Value::Numbers(values) => Some(values),
            _ => None,
        }
    }

    /// The gains by grade of parameter `key` (empty if not given).
    pub fn gains(&self, key: &str) -> Vec<(i64, f64)> {
        match self.value(key) {
            Some(Value::Gains(gains)) => gains,
            _ => Vec::new(),
        }
    }

    /// The `rel=` parameter, if given.
    pub fn relevance_level(&self) -> Option<i64> {
        self.integer("rel")
    }

    /// The count cutoff, if any.
    pub fn cutoff_count(&self) -> Option<usize> {
        match self.cutoff {
            Some(Cutoff::Count(k)) => Some(k as usize),
            _ => None,
        }
    }

    /// The recall level or factor cutoff, if any.
    pub fn cutoff_level(&self) -> Option<f64> {
        match self.cutoff {
            Some(Cutoff::Level(level)) => Some(level),
            _ => None,
        }
    }

    /// The name trec_eval prints for this measure, or `None` when trec_eval has no such one
    /// (a measure with its own `rel=` has none: trec_eval sets the level for all at once).
    pub fn trec_name(&self) -> Option<String> {
        trec_eval::printed_name(self)
    }

    /// This measure's kernel, or the reason it has none here (an answer measure; a user
    /// family, scored by its [`user::Scorer`]).
    pub fn kernel(&self) -> Result<Box<dyn Kernel>> {
        match self.family.kind {
            Kind::Ranking(bind) => Ok(bind(self)),
            Kind::Answer => Err(self.not_a_ranking_measure()),
            Kind::User => Err(Error::measure(
                self.name(),
                format!(
                    "{} is defined by its user: its scorer computes it, not a kernel",
                    self.name()
                ),
            )),
        }
    }

    /// Whether a family defined at run time scores this measure ([`user`]).
    pub fn is_user_defined(&self) -> bool {
        matches!(self.family.kind, Kind::User)
    }

    fn not_a_ranking_measure(&self) -> Error {
        Error::measure(
            self.name(),
            format!(
                "{} scores generated answers, not rankings; use rankscope.evaluate_answers \
                 (command line: rankscope answers)",
                self.name()
            ),
        )
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// What every kernel reads besides its own parameters: the evaluation's context.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The profile's conventions.
    pub conventions: &'a Conventions,
    /// The lowest grade that counts as relevant for a measure without `rel=`: the
    /// evaluation's level, or 1 under binary relevance (grades are 0 or 1 by then).
    pub relevance_level: i64,
}

impl<'a> Context<'a> {
    /// The context of an evaluation at `relevance_level` under `conventions`.
    pub fn new(conventions: &'a Conventions, relevance_level: i64) -> Self {
        Self {
            conventions,
            relevance_level: if conventions.binary_relevance {
                1
            } else {
                relevance_level
            },
        }
    }

    /// The level of a measure's own `rel=`, else the evaluation's.
    pub fn level(&self, rel: Option<i64>) -> i64 {
        rel.unwrap_or(self.relevance_level)
    }
}

/// A measure's kernel with its parameters bound: one value per query.
pub trait Kernel: Send + Sync {
    /// The value for one query.
    fn score(&self, query: &QueryView<'_>, context: &Context<'_>) -> f64;

    /// Whether the ranking loses its unjudged documents before [`Kernel::score`] sees it
    /// (`judged_only=True`).
    fn judged_only(&self) -> bool {
        false
    }

    /// Refuse a batch the measure is not defined on (grades out of its range); `name` is the
    /// measure's, for the message.
    fn check(&self, _name: &str, _batch: &RankedBatch, _context: &Context<'_>) -> Result<()> {
        Ok(())
    }
}

/// How a family makes a measure's kernel from its typed parameters.
pub type Bind = fn(&Measure) -> Box<dyn Kernel>;

/// A kernel's own parameters, and what it asks of the evaluation besides scoring.
pub trait Params: Send + Sync + 'static {
    /// See [`Kernel::judged_only`].
    fn judged_only(&self) -> bool {
        false
    }

    /// See [`Kernel::check`].
    fn check(&self, _name: &str, _batch: &RankedBatch, _context: &Context<'_>) -> Result<()> {
        Ok(())
    }
}

impl Params for () {}

/// A kernel from its parameters and a scoring function of the query, the parameters and the
/// context: what most families' [`Bind`] returns.
pub fn kernel<P, F>(params: P, score: F) -> Box<dyn Kernel>
where
    P: Params,
    F: Fn(&QueryView<'_>, &P, &Context<'_>) -> f64 + Send + Sync + 'static,
{
    Box::new(Scored { params, score })
}

struct Scored<P, F> {
    params: P,
    score: F,
}

impl<P, F> Kernel for Scored<P, F>
where
    P: Params,
    F: Fn(&QueryView<'_>, &P, &Context<'_>) -> f64 + Send + Sync + 'static,
{
    fn score(&self, query: &QueryView<'_>, context: &Context<'_>) -> f64 {
        (self.score)(query, &self.params, context)
    }

    fn judged_only(&self) -> bool {
        self.params.judged_only()
    }

    fn check(&self, name: &str, batch: &RankedBatch, context: &Context<'_>) -> Result<()> {
        self.params.check(name, batch, context)
    }
}

/// Refuse measures the conventions' profile does not define: answer measures always; under
/// binary relevance (`weknora`), what WeKnora does not compute, `rel=`, and cutoffs but nDCG's.
pub fn check_profile_support(measures: &[Measure], conventions: &Conventions) -> Result<()> {
    if let Some(m) = measures
        .iter()
        .find(|m| matches!(m.family.kind, Kind::Answer))
    {
        return Err(m.not_a_ranking_measure());
    }
    if !conventions.binary_relevance {
        return Ok(());
    }
    for m in measures {
        let family = m.family;
        if !family.defined_by("weknora") {
            let supported: Vec<&str> = families()
                .filter(|f| matches!(f.kind, Kind::Ranking(_)) && f.defined_by("weknora"))
                .map(|f| f.name)
                .collect();
            let message = format!(
                "{} is not defined by the {} profile (it defines {}); use profile='trec'",
                m.name(),
                conventions.name,
                supported.join(", ")
            );
            return Err(Error::Profile(
                ProfileProblem::new(m.name(), message, supported).of_profile(&conventions.name),
            ));
        }
        if m.relevance_level().is_some() {
            let message = format!(
                "{}: the {} profile has binary relevance; set relevance_level on evaluate() \
                 instead of rel= on the measure",
                m.name(),
                conventions.name
            );
            return Err(Error::Profile(
                ProfileProblem::new(m.name(), message, [] as [&str; 0])
                    .of_profile(&conventions.name)
                    .of_convention("binary_relevance"),
            ));
        }
        // WeKnora's NDCG takes a cutoff; its other measures score the whole ranking.
        if family.name != "nDCG" && m.cutoff.is_some() {
            let message = format!(
                "{}: the {} profile defines {} over the whole ranking, without a cutoff; use \
                 {} or profile='trec'",
                m.name(),
                conventions.name,
                family.name,
                family.name
            );
            return Err(Error::Profile(
                ProfileProblem::new(m.name(), message, [family.name]).of_profile(&conventions.name),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_as_trec_eval() {
        assert_eq!(Aggregate::Mean.apply(&[0.5, 0.25]), 0.375);
        let gm = Aggregate::GeometricMean.apply(&[0.5, 0.0]);
        assert!((gm - 0.0022360679774997894).abs() < 1e-15);
        assert_eq!(Aggregate::Sum.apply(&[3.0, 4.0]), 7.0);
        assert_eq!(Aggregate::Count.apply(&[3.0, 4.0]), 2.0);
        assert_eq!(Aggregate::MeanOfValues.apply(&[0.5, f64::NAN, 0.25]), 0.375);
        assert!(Aggregate::MeanOfValues.apply(&[f64::NAN]).is_nan());
        assert!(Aggregate::Mean.apply(&[0.5, f64::NAN]).is_nan());
        assert!(Aggregate::Mean.apply(&[]).is_nan());
    }

    #[test]
    fn trec_names() {
        let name = |text: &str| parse_measure(text).unwrap().trec_name();
        assert_eq!(name("nDCG@10").as_deref(), Some("ndcg_cut_10"));
        assert_eq!(name("P").as_deref(), Some("set_P"));
        assert_eq!(name("IPrec@0.1").as_deref(), Some("iprec_at_recall_0.10"));
        assert_eq!(name("P(rel=2)@5"), None);
        assert_eq!(name("RR@10"), None);
    }

    #[test]
    fn every_name_is_one_familys() {
        let mut seen: Vec<(String, &str)> = Vec::new();
        for family in families() {
            for name in family.names() {
                let lower = name.to_lowercase();
                if let Some((_, owner)) = seen.iter().find(|(n, _)| *n == lower) {
                    assert_eq!(*owner, family.name, "{name} names two families");
                }
                seen.push((lower, family.name));
            }
        }
    }

    #[test]
    fn only_the_answer_measures_have_no_kernel() {
        let answers: Vec<&str> = answers::FAMILIES.iter().map(|f| f.name).collect();
        let without: Vec<&str> = families()
            .filter(|f| matches!(f.kind, Kind::Answer))
            .map(|f| f.name)
            .collect();
        assert_eq!(without, answers);
    }

    #[test]
    fn defaults_are_values_of_their_kind() {
        for family in families() {
            for param in family.params {
                let Some(default) = param.default else {
                    continue;
                };
                let text = param.print(&default.into());
                let name = format!("{}({}={text})", family.name, param.name);
                let parsed = names::parse_value(param, &text, family, &name);
                assert_eq!(parsed, Ok(default.into()), "{name}");
            }
        }
    }

    #[test]
    fn weknora_refuses_what_it_does_not_define() {
        let weknora = Conventions::profile("weknora").unwrap();
        let check = |text: &str| {
            check_profile_support(&[parse_measure(text).unwrap()], &weknora)
                .map_err(|e| e.to_string())
        };
        assert!(check("nDCG@3").is_ok());
        assert_eq!(
            check("Bpref").unwrap_err(),
            "Bpref is not defined by the weknora profile (it defines nDCG, AP, RR, P, R); use \
             profile='trec'"
        );
        assert_eq!(
            check("P@5").unwrap_err(),
            "P@5: the weknora profile defines P over the whole ranking, without a cutoff; use P \
             or profile='trec'"
        );
        assert_eq!(
            check("AP(rel=2)").unwrap_err(),
            "AP(rel=2): the weknora profile has binary relevance; set relevance_level on \
             evaluate() instead of rel= on the measure"
        );
        assert_eq!(
            check("ROUGE-L").unwrap_err(),
            "ROUGE-L scores generated answers, not rankings; use rankscope.evaluate_answers \
             (command line: rankscope answers)"
        );
    }
}
