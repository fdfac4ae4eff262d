//! Answer measures computed from the texts: BLEU and ROUGE as the reference packages compute
//! them (sacrebleu's sentence BLEU, rouge-score's ROUGE-N and ROUGE-L: [`bleu`], [`rouge`]) and
//! as WeKnora does ([`weknora`]), with the packages' tokenizers ([`tokenize`]).
//!
//! The kernels work on interned tokens (`u32`): each pair of an answer and its references is
//! interned on its own, so the pairs of a batch need nothing in common and are scored on
//! rayon's threads when there are enough of them. [`score_pairs`] and [`score_weknora_pairs`]
//! take the texts of a batch and a list of measures, tokenize each text once per tokenizer the
//! measures use, and return one column of values per measure.

pub mod bleu;
mod ngrams;
pub mod rouge;
pub mod tokenize;
pub mod weknora;

use hashbrown::HashMap;

use crate::error::{Error, InputProblem, Result};
use crate::parallel;
pub use rouge::{Prf, Rouge};
pub use tokenize::Tokenizer;

/// Pairs below which a batch is scored on the calling thread.
const PARALLEL_MIN_PAIRS: usize = 2048;

/// A measure of the `standard` answer profile, with the tokenizer its texts go through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerMeasure {
    /// What is computed.
    pub score: Score,
    /// How the texts are split into tokens.
    pub tokenizer: Tokenizer,
}

/// What an [`AnswerMeasure`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// sacrebleu's sentence BLEU (0-1) up to n-grams of this order.
    Bleu(usize),
    /// rouge-score's F-measure, the best over the references.
    Rouge(Rouge),
}

impl AnswerMeasure {
    /// The measure `kind` (`BLEU`, `ROUGE-N` or `ROUGE-L`) with order `n` (BLEU's highest
    /// n-gram order, ROUGE-N's n) and the tokenizer called `tokenizer`.
    ///
    /// # Errors
    /// [`Error::Measure`] for an unknown kind or tokenizer, or an order outside 1-4.
    pub fn parse(kind: &str, n: usize, tokenizer: &str) -> Result<Self> {
        let name = format!("{kind}(n={n},tokenize={tokenizer})");
        if !(1..=ngrams::MAX_ORDER).contains(&n) {
            return Err(Error::measure(&name, "the n-gram order must be 1 to 4"));
        }
        let score = match kind {
            "BLEU" => Score::Bleu(n),
            "ROUGE-N" => Score::Rouge(Rouge::N(n)),
            "ROUGE-L" => Score::Rouge(Rouge::L),
            _ => return Err(Error::measure(&name, "expected BLEU, ROUGE-N or ROUGE-L")),
        };
        let tokenizer = Tokenizer::parse(tokenizer).ok_or_else(|| {
            Error::measure(&name, "the tokenizer must be 13a, zh, char, none or rouge")
        })?;
        Ok(Self { score, tokenizer })
    }
}

/// Interns the tokens of one pair's texts: ids are only compared within the pair.
#[derive(Default)]
struct PairVocabulary<'a> {
    ids: HashMap<&'a str, u32>,
}

impl<'a> PairVocabulary<'a> {
    fn id(&mut self, token: &'a str) -> u32 {
        let next = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        *self.ids.entry(token).or_insert(next)
    }

    /// The ids of the whitespace-separated tokens of `text`.
    fn ids(&mut self, text: &'a str) -> Vec<u32> {
        tokenize::split_python(text).map(|t| self.id(t)).collect()
    }
}

/// An answer's tokens and its references', interned together.
struct Interned {
    tokenizer: Tokenizer,
    answer: Vec<u32>,
    references: Vec<Vec<u32>>,
}

fn intern(tokenizer: Tokenizer, answer: &str, references: &[String]) -> Interned {
    let answer_text = tokenizer.spaced(answer);
    let reference_texts: Vec<_> = references.iter().map(|r| tokenizer.spaced(r)).collect();
    let mut vocabulary = PairVocabulary::default();
    let answer = vocabulary.ids(&answer_text);
    let references = reference_texts.iter().map(|r| vocabulary.ids(r)).collect();
    Interned {
        tokenizer,
        answer,
        references,
    }
}

/// The values of `measures` for one answer and its references.
fn score_pair(answer: &str, references: &[String], measures: &[AnswerMeasure]) -> Vec<f64> {
    let mut interned: Vec<Interned> = Vec::new();
    measures
        .iter()
        .map(|m| {
            let index = match interned.iter().position(|i| i.tokenizer == m.tokenizer) {
                Some(index) => index,
                None => {
                    interned.push(intern(m.tokenizer, answer, references));
                    interned.len() - 1
                }
            };
            let pair = &interned[index];
            let references: Vec<&[u32]> = pair.references.iter().map(Vec::as_slice).collect();
            match m.score {
                Score::Bleu(n) => bleu::sentence_bleu(&pair.answer, &references, n),
                Score::Rouge(kind) => rouge::best(kind, &pair.answer, &references).f,
            }
        })
        .collect()
}

/// Refuses a batch whose lists of answers and of references differ in length.
fn same_length(answers: usize, references: usize) -> Result<()> {
    if answers == references {
        return Ok(());
    }
    Err(Error::Input(InputProblem::new(format!(
        "{answers} answers but {references} lists of references"
    ))))
}

fn columns(rows: Vec<Vec<f64>>, measures: usize) -> Vec<Vec<f64>> {
    let mut columns = vec![Vec::with_capacity(rows.len()); measures];
    for row in rows {
        for (column, value) in columns.iter_mut().zip(row) {
            column.push(value);
        }
    }
    columns
}

/// The values of `measures` for each answer against its references (`references[i]` for
/// `answers[i]`): one column per measure, one value per pair.
///
/// # Errors
/// [`Error::Input`] when the two lists differ in length.
pub fn score_pairs(
    answers: &[String],
    references: &[Vec<String>],
    measures: &[AnswerMeasure],
) -> Result<Vec<Vec<f64>>> {
    same_length(answers.len(), references.len())?;
    let pairs: Vec<(&String, &Vec<String>)> = answers.iter().zip(references).collect();
    let rows = parallel::map(pairs, answers.len() >= PARALLEL_MIN_PAIRS, |(a, r)| {
        score_pair(a, r, measures)
    });
    Ok(columns(rows, measures.len()))
}

/// A WeKnora measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WeknoraMeasure {
    /// `BLEUMetric`: `orders` weights (1-4) for n = 1, 2, ..., add-1 smoothed or not.
    Bleu {
        /// The weights, the first `orders` of them used.
        weights: [f64; ngrams::MAX_ORDER],
        /// How many weights (the highest n-gram order).
        orders: usize,
        /// Whether each n-gram precision is add-1 smoothed.
        smoothing: bool,
    },
    /// `RougeMetric`: one statistic of ROUGE-N (n = 1-5) or ROUGE-L.
    Rouge(Rouge, RougeStat),
}

/// Which number of a ROUGE score WeKnora's `RougeMetric` returns (its `stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RougeStat {
    /// `p`.
    Precision,
    /// `r`.
    Recall,
    /// `f`.
    F,
}

impl RougeStat {
    fn of(self, score: Prf) -> f64 {
        match self {
            Self::Precision => score.precision,
            Self::Recall => score.recall,
            Self::F => score.f,
        }
    }
}

impl WeknoraMeasure {
    /// The measure `kind` (`BLEU`, `ROUGE-1` ... `ROUGE-5`, `ROUGE-L`): BLEU with `weights`
    /// (1-4 of them) and `option` `smoothed` or `unsmoothed`; ROUGE with no weights and
    /// `option` the statistic, `f`, `p` or `r`.
    ///
    /// # Errors
    /// [`Error::Measure`] for anything else.
    pub fn parse(kind: &str, weights: &[f64], option: &str) -> Result<Self> {
        let problem = |what: &str| Error::measure(format!("WeKnora's {kind}"), what);
        if kind == "BLEU" {
            if weights.is_empty() || weights.len() > ngrams::MAX_ORDER {
                return Err(problem("BLEU takes 1 to 4 weights (n = 1..4)"));
            }
            let smoothing = match option {
                "smoothed" => true,
                "unsmoothed" => false,
                _ => return Err(problem("BLEU is smoothed or unsmoothed")),
            };
            let mut padded = [0.0; ngrams::MAX_ORDER];
            padded[..weights.len()].copy_from_slice(weights);
            return Ok(Self::Bleu {
                weights: padded,
                orders: weights.len(),
                smoothing,
            });
        }
        let rouge = match kind.strip_prefix("ROUGE-") {
            Some("L") => Rouge::L,
            Some(digits) => match digits.parse::<usize>() {
                Ok(n) if (1..=weknora::MAX_ROUGE_ORDER).contains(&n) && n.to_string() == digits => {
                    Rouge::N(n)
                }
                _ => return Err(problem("expected BLEU, ROUGE-1 ... ROUGE-5 or ROUGE-L")),
            },
            None => return Err(problem("expected BLEU, ROUGE-1 ... ROUGE-5 or ROUGE-L")),
        };
        if !weights.is_empty() {
            return Err(problem("ROUGE takes no weights"));
        }
        let stat = match option {
            "f" => RougeStat::F,
            "p" => RougeStat::Precision,
            "r" => RougeStat::Recall,
            _ => return Err(problem("the ROUGE statistic is f, p or r")),
        };
        Ok(Self::Rouge(rouge, stat))
    }
}

/// The values of WeKnora's `measures` for each answer against its one reference, both given
/// as their sentences, each sentence its words joined by spaces: one column per measure.
///
/// # Errors
/// [`Error::Input`] when the two lists differ in length.
pub fn score_weknora_pairs(
    answers: &[Vec<String>],
    references: &[Vec<String>],
    measures: &[WeknoraMeasure],
) -> Result<Vec<Vec<f64>>> {
    same_length(answers.len(), references.len())?;
    let pairs: Vec<(&Vec<String>, &Vec<String>)> = answers.iter().zip(references).collect();
    let rows = parallel::map(pairs, answers.len() >= PARALLEL_MIN_PAIRS, |(a, r)| {
        score_weknora_pair(a, r, measures)
    });
    Ok(columns(rows, measures.len()))
}

fn slices(sentences: &[Vec<u32>]) -> Vec<&[u32]> {
    sentences.iter().map(Vec::as_slice).collect()
}

/// The interned lower-cased words of an answer and a reference (WeKnora's BLEU ignores case).
fn lowered_ids(answer: &[String], reference: &[String]) -> (Vec<u32>, Vec<u32>) {
    let lower = |sentences: &[String]| sentences.join(" ").to_lowercase();
    let (answer, reference) = (lower(answer), lower(reference));
    let mut vocabulary = PairVocabulary::default();
    let answer = vocabulary.ids(&answer);
    (answer, vocabulary.ids(&reference))
}

fn score_weknora_pair(
    answer: &[String],
    reference: &[String],
    measures: &[WeknoraMeasure],
) -> Vec<f64> {
    let mut vocabulary = PairVocabulary::default();
    let answer_ids: Vec<Vec<u32>> = answer.iter().map(|s| vocabulary.ids(s)).collect();
    let reference_ids: Vec<Vec<u32>> = reference.iter().map(|s| vocabulary.ids(s)).collect();
    let (answer_flat, reference_flat) = (answer_ids.concat(), reference_ids.concat());
    let lowered = || lowered_ids(answer, reference);
    let mut lower_ids: Option<(Vec<u32>, Vec<u32>)> = None;
    measures
        .iter()
        .map(|m| match *m {
            WeknoraMeasure::Bleu {
                weights,
                orders,
                smoothing,
            } => {
                let (answer, reference) = lower_ids.get_or_insert_with(lowered);
                weknora::bleu(answer, reference, &weights[..orders], smoothing)
            }
            WeknoraMeasure::Rouge(Rouge::N(n), stat) => {
                stat.of(weknora::rouge_n(&answer_flat, &reference_flat, n))
            }
            WeknoraMeasure::Rouge(Rouge::L, stat) => stat.of(weknora::rouge_l(
                &slices(&answer_ids),
                &slices(&reference_ids),
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weknora_measures_parse_and_refuse() {
        let bleu = WeknoraMeasure::parse("BLEU", &[0.5, 0.5], "unsmoothed").unwrap();
        let expected = WeknoraMeasure::Bleu {
            weights: [0.5, 0.5, 0.0, 0.0],
            orders: 2,
            smoothing: false,
        };
        assert_eq!(bleu, expected);
        assert_eq!(
            WeknoraMeasure::parse("ROUGE-5", &[], "p").unwrap(),
            WeknoraMeasure::Rouge(Rouge::N(5), RougeStat::Precision)
        );
        assert_eq!(
            WeknoraMeasure::parse("ROUGE-L", &[], "r").unwrap(),
            WeknoraMeasure::Rouge(Rouge::L, RougeStat::Recall)
        );
        for (kind, weights, option) in [
            ("BLEU", &[][..], "smoothed"),
            ("BLEU", &[0.2; 5][..], "smoothed"),
            ("BLEU", &[1.0][..], "f"),
            ("ROUGE-6", &[][..], "f"),
            ("ROUGE-0", &[][..], "f"),
            ("ROUGE-01", &[][..], "f"),
            ("ROUGE-1", &[1.0][..], "f"),
            ("ROUGE-1", &[][..], "smoothed"),
            ("rouge-1", &[][..], "f"),
        ] {
            assert!(
                WeknoraMeasure::parse(kind, weights, option).is_err(),
                "{kind} {weights:?} {option}"
            );
        }
    }

    #[test]
    fn weknora_pairs_give_each_statistic() {
        let answers = vec![vec!["a b c d".to_string()]];
        let references = vec![vec!["a b".to_string()]];
        let measures = ["f", "p", "r"].map(|s| WeknoraMeasure::parse("ROUGE-1", &[], s).unwrap());
        let columns = score_weknora_pairs(&answers, &references, &measures).unwrap();
        let (p, r) = (0.5, 1.0);
        assert_eq!(columns, [[2.0 * (p * r / (p + r + 1e-8))], [p], [r]]);
    }
}
