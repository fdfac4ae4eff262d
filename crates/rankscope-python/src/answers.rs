//! Answer measures of texts, scored by the core with the GIL released: BLEU and ROUGE as
//! sacrebleu and rouge-score compute them, WeKnora's BLEU and ROUGE, and the tokenizers.

use pyo3::prelude::*;
use rankscope_core::answers::{
    score_pairs, score_weknora_pairs, AnswerMeasure, Tokenizer, WeknoraMeasure,
};
use rankscope_core::error::{Error, Result};

use crate::errors::IntoPyResult;

/// The tokens of `text` by the tokenizer called `tokenizer` (`13a`, `zh`, `char`, `none`,
/// `rouge`).
#[pyfunction]
fn answer_tokens(py: Python<'_>, text: &str, tokenizer: &str) -> PyResult<Vec<String>> {
    let tokenizer = Tokenizer::parse(tokenizer)
        .ok_or_else(|| Error::measure(tokenizer, "no tokenizer has that name"));
    tokenizer.map(|t| t.tokens(text)).or_raise(py)
}

/// One column of values per measure for each answer against its references; a measure is
/// `(kind, n, tokenizer)`, kind `BLEU`, `ROUGE-N` or `ROUGE-L`.
#[pyfunction]
fn score_answers(
    py: Python<'_>,
    answers: Vec<String>,
    references: Vec<Vec<String>>,
    measures: Vec<(String, usize, String)>,
) -> PyResult<Vec<Vec<f64>>> {
    let measures: Result<Vec<AnswerMeasure>> = measures
        .iter()
        .map(|(kind, n, tokenizer)| AnswerMeasure::parse(kind, *n, tokenizer))
        .collect();
    let measures = measures.or_raise(py)?;
    py.detach(|| score_pairs(&answers, &references, &measures))
        .or_raise(py)
}

/// One column of values per WeKnora measure for each answer against its reference, both given
/// as sentences of space-joined words; a measure is `(kind, weights, option)`:
/// `("BLEU", weights, "smoothed" | "unsmoothed")`, `("ROUGE-1" ... "ROUGE-5" | "ROUGE-L", [],
/// "f" | "p" | "r")`.
#[pyfunction]
fn score_weknora_answers(
    py: Python<'_>,
    answers: Vec<Vec<String>>,
    references: Vec<Vec<String>>,
    measures: Vec<(String, Vec<f64>, String)>,
) -> PyResult<Vec<Vec<f64>>> {
    let measures: Result<Vec<WeknoraMeasure>> = measures
        .iter()
        .map(|(kind, weights, option)| WeknoraMeasure::parse(kind, weights, option))
        .collect();
    let measures = measures.or_raise(py)?;
    py.detach(|| score_weknora_pairs(&answers, &references, &measures))
        .or_raise(py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(answer_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(score_answers, m)?)?;
    m.add_function(wrap_pyfunction!(score_weknora_answers, m)?)?;
    Ok(())
}
