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
    /// BLEU with these weights for n = 1..4.
    Bleu([f64; 4]),
    /// ROUGE-N's or ROUGE-L's F.
    Rouge(Rouge),
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
            WeknoraMeasure::Bleu(weights) => {
                let (answer, reference) = lower_ids.get_or_insert_with(lowered);
                weknora::bleu(answer, reference, &weights)
            }
            WeknoraMeasure::Rouge(Rouge::N(n)) => {
                weknora::rouge_n(&answer_flat, &reference_flat, n).f
            }
            WeknoraMeasure::Rouge(Rouge::L) => {
                weknora::rouge_l(&slices(&answer_ids), &slices(&reference_ids)).f
            }
        })
        .collect()
}
