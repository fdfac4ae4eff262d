//! Measure names: `Family[(param=value, ...)][@cutoff]`, trec_eval's `ndcg_cut.10`,
//! `ndcg_cut_10`, `P_5`, `iprec_at_recall_0.10`, and ranx's (its own grammar, in [`super::ranx`]).
//! Parsed by hand (no regular expressions) into typed values; an unknown name suggests close
//! ones as `difflib.get_close_matches` does.

use super::{families, family, Cutoff, CutoffKind, Family, Measure, Param, ParamKind, Value};
use crate::error::{quoted, Error, MeasureProblem, Result};

/// The largest cutoff (and integer parameter) accepted.
pub const MAX_CUTOFF: u64 = 1_000_000_000;

/// Parse a measure name (canonical, ir_measures-style, trec_eval's or ranx's) into a
/// [`Measure`]. An error names the whole name given (and the part of it that is wrong).
///
/// ```
/// use rankscope_core::{parse_measure, Error};
///
/// assert_eq!(parse_measure("ndcg_cut.10").unwrap().name(), "nDCG@10");
/// assert_eq!(parse_measure("rbp.95").unwrap().name(), "RBP(p=0.95)");
/// let Err(Error::UnknownMeasure(problem)) = parse_measure("nDGC@10") else { panic!() };
/// assert_eq!((problem.measure.as_str(), problem.part.as_deref()), ("nDGC@10", Some("nDGC")));
/// assert_eq!(problem.suggestions[0], "nDCG");
/// ```
pub fn parse_measure(name: &str) -> Result<Measure> {
    parse(name.trim()).map_err(|error| described(error).in_measure(name.trim()))
}

/// Whether `text` is one measure name: [`parse_measure`] without the error's message (an
/// unknown name's close matches cost a thousand times the parsing).
fn is_measure(text: &str) -> bool {
    parse(text.trim()).is_ok()
}

fn parse(text: &str) -> Result<Measure> {
    if let Some(parsed) = super::ranx::parse(text) {
        return parsed;
    }
    if let Some((family_text, params, cutoff)) = split_canonical(text) {
        if params.is_some() || cutoff.is_some() || preset(family_text).is_some() {
            return build(family_text, params, cutoff, text);
        }
    }
    // A plain name or alias (`11pt_avg` starts with a digit, `r-precision` holds a hyphen).
    let plain = family(text).map(|_| (text, None));
    let Some((family_text, cutoff)) = plain.or_else(|| split_trec(text)) else {
        return Err(unknown(text));
    };
    let family = family_of(family_text)?;
    refuse_cutoff_of_set_name(family, family_text, cutoff, text)?;
    let cutoff = match cutoff {
        Some(c)
            if matches!(family.cutoff, CutoffKind::RecallLevel | CutoffKind::Factor)
                && c.starts_with('.') =>
        {
            Some(format!("0{c}"))
        }
        other => other.map(str::to_string),
    };
    checked(
        Measure {
            family,
            cutoff: parse_cutoff(family, cutoff.as_deref(), text)?,
            params: Vec::new(),
        },
        text,
    )
}

/// Parse several names, dropping repeats and keeping the order; at least one is needed. Each
/// text may list several measures separated by commas ([`parse_listed`]).
pub fn parse_measures<S: AsRef<str>>(names: &[S]) -> Result<Vec<Measure>> {
    let mut parsed = Vec::new();
    for name in names {
        match parse_listed(name.as_ref()) {
            Ok(measures) => parsed.extend(measures.into_iter().map(Ok)),
            Err(error) => parsed.push(Err(error)),
        }
    }
    distinct(parsed)
}

/// The measures a text names: one name, or several separated by commas (`"nDCG@10, AP"`).
///
/// The rule: a text that is one valid name is that measure, whatever commas it holds (a
/// parameter list, `P(rel=2,judged_only=True)@5`, or ir_measures' gains,
/// `nDCG(gains={0:0,1:4})`); any other text is split at the commas outside parentheses and
/// braces, and each piece is a name (empty pieces are skipped). trec_eval's `-m` syntax with
/// commas (`P.5,10`, `utility.1,-1,0,1`) is not a name here: it is refused with a message that
/// says how to write it.
///
/// ```
/// use rankscope_core::measures::parse_listed;
///
/// let names = |text| -> Vec<String> {
///     parse_listed(text).unwrap().iter().map(|m| m.name()).collect()
/// };
/// assert_eq!(names("nDCG@10, AP"), ["nDCG@10", "AP"]);
/// assert_eq!(names("P(rel=2)@5,RR"), ["P(rel=2)@5", "RR"]);
/// assert_eq!(names("nDCG(gains={0:0,1:4})@10"), ["nDCG(gains=0:0.0;1:4.0)@10"]);
/// let error = parse_listed("P.5,10").unwrap_err().to_string();
/// assert!(error.starts_with("'P.5,10' is trec_eval's -m syntax"), "{error}");
/// let error = parse_listed("nDCG@10,5").unwrap_err().to_string();
/// assert!(error.starts_with("'5' in 'nDCG@10,5' is not a measure"), "{error}");
/// ```
pub fn parse_listed(text: &str) -> Result<Vec<Measure>> {
    if !text.contains(',') {
        return Ok(vec![parse_measure(text)?]);
    }
    match listed_names(text).as_slice() {
        [] => Err(Error::measure(
            text.trim(),
            format!("no measure named in {}", quoted(text.trim())),
        )),
        [one] if *one == text.trim() => Ok(vec![parse_measure(one)?]),
        pieces => list_of(text, pieces),
    }
}

/// The measures of the pieces of a list (`text`, for messages).
fn list_of(text: &str, pieces: &[&str]) -> Result<Vec<Measure>> {
    let text = text.trim();
    pieces
        .iter()
        .map(|piece| {
            parse_measure(piece).map_err(|error| {
                if is_trec_eval_list(text) {
                    Error::measure_part(
                        text,
                        *piece,
                        format!(
                            "{} is trec_eval's -m syntax, which `rankscope trec-eval` reads; \
                             here a list names each measure in full, separated by commas \
                             (P.5,10 is P@5,P@10; utility.1,-1,0,1 is \
                             Utility(a=1,b=-1,c=0,d=1); ndcg.1=0.5,2=1 is \
                             nDCG(gains=1:0.5;2:1))",
                            quoted(text)
                        ),
                    )
                } else if piece
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
                {
                    Error::measure_part(
                        text,
                        *piece,
                        format!(
                            "{} in {} is not a measure: a list names each measure in full, \
                             separated by commas (P@5,P@10)",
                            quoted(piece),
                            quoted(text)
                        ),
                    )
                } else {
                    error
                }
            })
        })
        .collect()
}

/// Whether `text` is trec_eval's `-m name.params` with commas in its parameters
/// (`P.5,10`, `utility.1,-1,0,1`, `ndcg.1=0.5,2=1`).
fn is_trec_eval_list(text: &str) -> bool {
    let Some((name, params)) = text.split_once('.') else {
        return false;
    };
    params.contains(',')
        && families().any(|f| {
            f.trec_eval
                .iter()
                .any(|t| t.name.eq_ignore_ascii_case(name))
        })
}

/// The names a text lists, by the rule of [`parse_listed`]: the whole text when it is one
/// name, else its pieces between commas outside parentheses and braces (empty ones left out).
///
/// ```
/// use rankscope_core::measures::listed_names;
///
/// assert_eq!(listed_names("P(rel=2)@5, AP,"), ["P(rel=2)@5", "AP"]);
/// assert_eq!(listed_names("nDCG(gains={0:0,1:4})"), ["nDCG(gains={0:0,1:4})"]);
/// ```
pub fn listed_names(text: &str) -> Vec<&str> {
    if is_measure(text) {
        return vec![text.trim()];
    }
    split_list(text)
        .into_iter()
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// The pieces of a text split at its commas outside parentheses and braces, each trimmed
/// (empty ones kept).
///
/// ```
/// use rankscope_core::measures::split_list;
///
/// assert_eq!(split_list("P(rel=2)@5, AP,"), ["P(rel=2)@5", "AP", ""]);
/// ```
pub fn split_list(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut depth, mut start) = (0_i32, 0);
    for (i, byte) in text.bytes().enumerate() {
        match byte {
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => depth -= 1,
            b',' if depth <= 0 => {
                pieces.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(text[start..].trim());
    pieces
}

/// The measures parsed, each once in the order of its first appearance; the first error if
/// any; an error if there is none.
pub fn distinct(parsed: impl IntoIterator<Item = Result<Measure>>) -> Result<Vec<Measure>> {
    let mut result: Vec<Measure> = Vec::new();
    for measure in parsed {
        let measure = measure?;
        if !result.contains(&measure) {
            result.push(measure);
        }
    }
    if result.is_empty() {
        return Err(Error::measure(
            "",
            "no measure given; name at least one, e.g. 'nDCG@10'",
        ));
    }
    Ok(result)
}

/// A measure from the parts of a canonical name (`name` is the whole text, for messages).
pub(super) fn build(
    family_text: &str,
    params: Option<&str>,
    cutoff: Option<&str>,
    name: &str,
) -> Result<Measure> {
    if let Some((target, preset)) = preset(family_text) {
        let params = match params.map(str::trim) {
            Some(given) if !given.is_empty() => format!("{preset},{given}"),
            _ => preset.to_string(),
        };
        return build(target.name, Some(&params), cutoff, name);
    }
    let family = family_of(family_text)?;
    refuse_cutoff_of_set_name(family, family_text, cutoff, name)?;
    let cutoff = parse_cutoff(family, cutoff, name)?;
    let params = parse_params(family, params, name)?;
    checked(
        Measure {
            family,
            cutoff,
            params,
        },
        name,
    )
}

/// The measure, once its family's rules across parameters hold.
fn checked(measure: Measure, name: &str) -> Result<Measure> {
    if let Some(check) = measure.family.check {
        check(&measure, name)?;
    }
    Ok(measure)
}

/// The family and parameters a preset name stands for (`SetRelP`: SetP, `relative=True`).
fn preset(name: &str) -> Option<(&'static Family, &'static str)> {
    families().find_map(|f| {
        f.aliases
            .iter()
            .find(|a| !a.preset.is_empty() && a.name.eq_ignore_ascii_case(name))
            .map(|a| (f, a.preset))
    })
}

/// trec_eval's names of whole-set measures (`set_P`) take no cutoff.
fn refuse_cutoff_of_set_name(
    family: &Family,
    family_text: &str,
    cutoff: Option<&str>,
    name: &str,
) -> Result<()> {
    let set_name = family
        .aliases
        .iter()
        .any(|a| !a.cutoff && a.name.eq_ignore_ascii_case(family_text));
    if set_name && cutoff.is_some() {
        return Err(Error::measure_part(
            name,
            cutoff.unwrap_or_default(),
            format!("{family_text} takes no cutoff; got {}", quoted(name)),
        ));
    }
    Ok(())
}

/// `Family[(params)][@cutoff]` (a family name may hold
/// hyphens after its first character: `ROUGE-L`).
fn split_canonical(text: &str) -> Option<(&str, Option<&str>, Option<&str>)> {
    let bytes = text.as_bytes();
    let first = *bytes.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let end = bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-'));
    let end = end.unwrap_or(bytes.len());
    let (family, mut rest) = text.split_at(end);
    let mut params = None;
    if let Some(inner) = rest.strip_prefix('(') {
        let close = inner.find(['(', ')'])?;
        if inner.as_bytes()[close] != b')' {
            return None;
        }
        params = Some(&inner[..close]);
        rest = &inner[close + 1..];
    }
    let mut cutoff = None;
    if let Some(cut) = rest.strip_prefix('@') {
        if cut.is_empty() || cut.contains(['@', '(', ')']) {
            return None;
        }
        cutoff = Some(cut);
        rest = "";
    }
    rest.is_empty().then_some((family, params, cutoff))
}

/// trec_eval's `family[._]cutoff`: the shortest family of
/// letters and underscores after which the rest is empty or `[._]\.?[0-9][0-9.]*`.
fn split_trec(text: &str) -> Option<(&str, Option<&str>)> {
    let bytes = text.as_bytes();
    for split in 1..=bytes.len() {
        let b = bytes[split - 1];
        if !(b.is_ascii_alphabetic() || b == b'_') {
            return None;
        }
        let rest = &text[split..];
        if rest.is_empty() {
            return Some((text, None));
        }
        let Some(cut) = rest.strip_prefix(['.', '_']) else {
            continue;
        };
        let digits = cut.strip_prefix('.').unwrap_or(cut);
        let valid = digits.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && digits.bytes().all(|c| c.is_ascii_digit() || c == b'.');
        if valid {
            return Some((&text[..split], Some(cut)));
        }
    }
    None
}

pub(super) fn family_of(name: &str) -> Result<&'static Family> {
    family(name).ok_or_else(|| unknown(name))
}

/// An error of [`parse`] or [`build`] as they are shown: an unknown name's message and close
/// names are made here ([`suggesting`]), only for an error that is returned.
pub(super) fn described(error: Error) -> Error {
    match error {
        Error::UnknownMeasure(problem) if problem.message.is_empty() => {
            suggesting(problem.part.as_deref().unwrap_or(&problem.measure))
        }
        other => other,
    }
}

/// Whether `text` is an integer from 1 to MAX_CUTOFF in ASCII digits.
pub(super) fn count(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = text.trim_start_matches('0');
    if digits.len() > 10 {
        return None;
    }
    let value: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    (1..=MAX_CUTOFF).contains(&value).then_some(value)
}

pub(super) fn parse_cutoff(
    family: &Family,
    text: Option<&str>,
    name: &str,
) -> Result<Option<Cutoff>> {
    let Some(text) = text else {
        return match family.cutoff {
            CutoffKind::Required | CutoffKind::RecallLevel | CutoffKind::Factor => {
                Err(Error::measure(
                    name,
                    format!(
                        "measure {0} needs a cutoff, as in {0}@{1}; got {2}",
                        family.name,
                        match family.cutoff {
                            CutoffKind::RecallLevel => "0.5",
                            CutoffKind::Factor => "1.0",
                            _ => "10",
                        },
                        quoted(name)
                    ),
                ))
            }
            _ => Ok(None),
        };
    };
    match family.cutoff {
        CutoffKind::None => Err(Error::measure_part(
            name,
            text,
            format!(
                "measure {} takes no cutoff; got {}",
                family.name,
                quoted(name)
            ),
        )),
        CutoffKind::RecallLevel => {
            let level: f64 = text.trim().parse().unwrap_or(f64::NAN);
            if (0.0..=1.0).contains(&level) {
                Ok(Some(Cutoff::Level(level)))
            } else {
                Err(Error::measure_part(
                    name,
                    text,
                    format!(
                        "the recall level of {} must be a number in [0, 1]; got {} in {}",
                        family.name,
                        quoted(text),
                        quoted(name)
                    ),
                ))
            }
        }
        CutoffKind::Factor => match number(text) {
            Some(factor) if factor > 0.0 => Ok(Some(Cutoff::Level(factor))),
            _ => Err(Error::measure_part(
                name,
                text,
                format!(
                    "the factor of {} must be a positive number; got {} in {}",
                    family.name,
                    quoted(text),
                    quoted(name)
                ),
            )),
        },
        _ => match count(text) {
            Some(k) => Ok(Some(Cutoff::Count(k))),
            None => Err(Error::measure_part(
                name,
                text,
                format!(
                    "the cutoff of {} must be an integer from 1 to {MAX_CUTOFF}; got {} in {}",
                    family.name,
                    quoted(text),
                    quoted(name)
                ),
            )),
        },
    }
}

pub(super) fn parse_params(
    family: &Family,
    text: Option<&str>,
    name: &str,
) -> Result<Vec<(&'static Param, Value)>> {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return Ok(vec![]);
    };
    let mut params: Vec<(&'static Param, Value)> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    // Commas inside braces belong to a value (ir_measures prints gains as a dict).
    for item in split_list(text) {
        let (key, value) = match item.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => (k.trim(), v.trim()),
            _ => {
                return Err(Error::measure_part(
                    name,
                    item,
                    format!(
                        "parameters are written key=value; got {} in {}",
                        quoted(item),
                        quoted(name)
                    ),
                ))
            }
        };
        let Some(param) = family.param(key) else {
            let allowed: Vec<&str> = family.params.iter().map(|p| p.name).collect();
            let allowed = if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(Error::measure_part(
                name,
                key,
                format!(
                    "measure {} has no parameter {} (parameters: {allowed}); got {}",
                    family.name,
                    quoted(key),
                    quoted(name)
                ),
            ));
        };
        let value = parse_value(param, value, family, name)?;
        if seen.contains(&key) {
            return Err(Error::measure_part(
                name,
                key,
                format!("parameter {} given twice in {}", quoted(key), quoted(name)),
            ));
        }
        seen.push(key);
        // A default is left out, so that `RBP(p=0.8)` is `RBP` and `alpha_nDCG(alpha=0.5)@10`
        // is `alpha_nDCG@10`, as in ir_measures.
        if param.default.map(Value::from) != Some(value.clone()) {
            params.push((param, value));
        }
    }
    // In the family's order (ir_measures prints parameters in the order they are declared).
    params.sort_by_key(|(param, _)| family.params.iter().position(|p| p.name == param.name));
    Ok(params)
}

/// The value `text` gives parameter `param`, or the error naming what it must be.
pub(super) fn parse_value(param: &Param, text: &str, family: &Family, name: &str) -> Result<Value> {
    let bad = |what: &str| {
        Error::measure_part(
            name,
            format!("{}={text}", param.name),
            format!(
                "parameter {} of {} must be {what}; got {} in {}",
                param.name,
                family.name,
                quoted(text),
                quoted(name)
            ),
        )
    };
    Ok(match param.kind {
        ParamKind::Count => match count(text) {
            Some(v) => Value::Integer(v as i64),
            None => return Err(bad(&format!("an integer from 1 to {MAX_CUTOFF}"))),
        },
        ParamKind::Integer => match text.parse::<i64>() {
            Ok(v) if v.unsigned_abs() <= MAX_CUTOFF => Value::Integer(v),
            _ => {
                return Err(bad(&format!(
                    "an integer from -{MAX_CUTOFF} to {MAX_CUTOFF}"
                )))
            }
        },
        ParamKind::Number => match number(text) {
            Some(v) => Value::Number(v),
            None => return Err(bad("a number")),
        },
        ParamKind::Fraction => match number(text) {
            Some(v) if v > 0.0 && v < 1.0 => Value::Number(v),
            _ => return Err(bad("a number strictly between 0 and 1")),
        },
        ParamKind::Numbers => match parse_numbers(text) {
            Some(values) => Value::Numbers(values),
            None => return Err(bad("numbers separated by ';', each once")),
        },
        ParamKind::Gains => match parse_gains(text) {
            Some(gains) => Value::Gains(gains),
            None => {
                return Err(bad(
                    "grade:gain pairs separated by ';', each grade once (e.g. 1:3;2:9)",
                ))
            }
        },
        ParamKind::Flag => match text {
            "True" | "true" => Value::Flag(true),
            "False" | "false" => Value::Flag(false),
            _ => return Err(bad("True or False")),
        },
        ParamKind::Words(words) => match words.iter().find(|w| **w == text) {
            Some(word) => Value::Word(word),
            None => return Err(bad(&format!("one of {}", words.join(", ")))),
        },
        ParamKind::Quoted(words) => {
            match unquote(text).and_then(|t| words.iter().find(|w| **w == t)) {
                Some(word) => Value::Word(word),
                None => {
                    let listed: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
                    return Err(bad(&format!("one of {}", listed.join(", "))));
                }
            }
        }
    })
}

/// A word in matching single or double quotes, or bare.
fn unquote(text: &str) -> Option<&str> {
    for quote in ['\'', '"'] {
        if let Some(inner) = text.strip_prefix(quote) {
            return inner.strip_suffix(quote);
        }
    }
    Some(text)
}

/// A finite number.
fn number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Numbers separated by `;`, sorted, none twice.
fn parse_numbers(text: &str) -> Option<Vec<f64>> {
    let mut values = text.split(';').map(number).collect::<Option<Vec<f64>>>()?;
    values.sort_by(f64::total_cmp);
    let before = values.len();
    values.dedup();
    (values.len() == before && !values.is_empty()).then_some(values)
}

/// `grade:gain` pairs separated by `;`, or ir_measures' printed dict (`{0:0,1:4}`, pairs
/// separated by commas), sorted by grade, each grade once.
fn parse_gains(text: &str) -> Option<Vec<(i64, f64)>> {
    let (text, separator) = match text.strip_prefix('{') {
        Some(inner) => (inner.strip_suffix('}')?, ','),
        None => (text, ';'),
    };
    let mut gains = text
        .split(separator)
        .map(|pair| {
            let (grade, gain) = pair.split_once(':')?;
            Some((grade.trim().parse::<i64>().ok()?, number(gain)?))
        })
        .collect::<Option<Vec<_>>>()?;
    gains.sort_by_key(|&(g, _)| g);
    let before = gains.len();
    gains.dedup_by_key(|&mut (g, _)| g);
    (gains.len() == before && !gains.is_empty()).then_some(gains)
}

/// The unknown-name error as [`parse`] and [`build`] return it, without its message, which
/// [`described`] makes for an error that is shown.
fn unknown(name: &str) -> Error {
    Error::UnknownMeasure(MeasureProblem::new(name, String::new()).at(name))
}

/// The unknown-name error, with up to three close names (as `difflib.get_close_matches`
/// picks them) among its suggestions.
fn suggesting(name: &str) -> Error {
    let mut known: Vec<&str> = families().flat_map(Family::names).collect();
    known.sort_unstable();
    known.dedup();
    let mut close: Vec<String> = close_matches(name, &known, 3, 0.5)
        .into_iter()
        .map(str::to_string)
        .collect();
    if close.is_empty() {
        let lowered: Vec<String> = known.iter().map(|n| n.to_lowercase()).collect();
        let lowered_refs: Vec<&str> = lowered.iter().map(String::as_str).collect();
        let hits = close_matches(&name.to_lowercase(), &lowered_refs, 3, 0.6);
        close = known
            .iter()
            .filter(|n| hits.contains(&n.to_lowercase().as_str()))
            .map(|n| (*n).to_string())
            .collect();
    }
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", close.join(", "))
    };
    let names: Vec<&str> = families().map(|f| f.name).collect();
    let message = format!(
        "unknown measure {}{hint} (known: {})",
        quoted(name),
        names.join(", ")
    );
    Error::UnknownMeasure(MeasureProblem {
        suggestions: close,
        ..MeasureProblem::new(name, message).at(name)
    })
}

/// `difflib.get_close_matches(word, possibilities, n, cutoff)`: the best `n` by
/// SequenceMatcher's ratio, ties by the larger string.
fn close_matches<'a>(word: &str, possibilities: &[&'a str], n: usize, cutoff: f64) -> Vec<&'a str> {
    let b: Vec<char> = word.chars().collect();
    let mut scored: Vec<(f64, &str)> = possibilities
        .iter()
        .filter_map(|x| {
            let a: Vec<char> = x.chars().collect();
            let ratio = similarity(&a, &b);
            (ratio >= cutoff).then_some((ratio, *x))
        })
        .collect();
    scored.sort_by(|p, q| q.0.total_cmp(&p.0).then_with(|| q.1.cmp(p.1)));
    scored.into_iter().take(n).map(|(_, x)| x).collect()
}

/// SequenceMatcher(None, a, b).ratio(): 2 M / (|a| + |b|), M the characters of the matching
/// blocks found by recursive longest common substrings.
fn similarity(a: &[char], b: &[char]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let mut matched = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(a, b, alo, ahi, blo, bhi);
        if k > 0 {
            matched += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    2.0 * matched as f64 / total as f64
}

/// The longest common block of `a[alo..ahi]` and `b[blo..bhi]`, earliest in `a`, then in `b`.
fn longest_match(
    a: &[char],
    b: &[char],
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut best_i, mut best_j, mut best) = (alo, blo, 0);
    let mut lengths = vec![0usize; b.len() + 1];
    for (i, item) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next = vec![0usize; b.len() + 1];
        for j in blo..bhi {
            if *item == b[j] {
                let k = lengths[j] + 1;
                next[j + 1] = k;
                if k > best {
                    best_i = i + 1 - k;
                    best_j = j + 1 - k;
                    best = k;
                }
            }
        }
        lengths = next;
    }
    (best_i, best_j, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> String {
        parse_measure(text).map_or_else(|e| format!("{}: {e}", e.kind()), |m| m.name())
    }

    #[test]
    fn names_and_aliases_parse_to_canonical_names() {
        for (text, canonical) in [
            ("nDCG@10", "nDCG@10"),
            ("ndcg_cut.10", "nDCG@10"),
            ("ndcg_cut_10", "nDCG@10"),
            ("map", "AP"),
            ("MRR", "RR"),
            ("P_5", "P@5"),
            ("iprec_at_recall_0.10", "IPrec@0.1"),
            ("iprec_at_recall_.5", "IPrec@0.5"),
            ("nDCG(gain=exp)@3", "nDCG(gain=exp)@3"),
            ("P(rel=02)@5", "P(rel=2)@5"),
            (" set_P ", "P"),
            ("IPrec@1", "IPrec@1.0"),
            ("success.1", "Success@1"),
            ("gm_map", "GM_AP"),
        ] {
            assert_eq!(name(text), canonical, "{text}");
        }
    }

    #[test]
    fn unknown_names_list_every_family() {
        let known: Vec<&str> = families().map(|f| f.name).collect();
        assert_eq!(
            name("nDGC@10"),
            format!(
                "UnknownMeasure: unknown measure 'nDGC'; did you mean nDCG, RnDCG, nDCGRel? \
                 (known: {})",
                known.join(", ")
            )
        );
        assert!(known.starts_with(&["nDCG", "AP", "RR", "P", "R", "Rprec", "Success"]));
    }

    #[test]
    fn bad_names_get_clear_messages() {
        for (text, message) in [
            ("Success", "Measure: measure Success needs a cutoff, as in Success@10; got 'Success'"),
            ("IPrec@2", "Measure: the recall level of IPrec must be a number in [0, 1]; got '2' in 'IPrec@2'"),
            ("P@0", "Measure: the cutoff of P must be an integer from 1 to 1000000000; got '0' in 'P@0'"),
            ("Rprec@5", "Measure: measure Rprec takes no cutoff; got 'Rprec@5'"),
            ("set_P@5", "Measure: set_P takes no cutoff; got 'set_P@5'"),
            ("P(rel)@5", "Measure: parameters are written key=value; got 'rel' in 'P(rel)@5'"),
            (
                "nDCG(rel=2)",
                "Measure: measure nDCG has no parameter 'rel' (parameters: dcg, gain, gains, \
                 judged_only); got \
                 'nDCG(rel=2)'",
            ),
            (
                "nDCG(gain=log)",
                "Measure: parameter gain of nDCG must be one of linear, exp; got 'log' in \
                 'nDCG(gain=log)'",
            ),
            ("P(rel=1,rel=2)", "Measure: parameter 'rel' given twice in 'P(rel=1,rel=2)'"),
        ] {
            assert_eq!(name(text), message, "{text}");
        }
    }

    #[test]
    fn repeats_are_dropped_in_order() {
        let parsed = parse_measures(&["nDCG@10", "ndcg_cut.10", "AP"]).unwrap();
        assert_eq!(
            parsed.iter().map(Measure::name).collect::<Vec<_>>(),
            ["nDCG@10", "AP"]
        );
        assert!(parse_measures::<&str>(&[]).is_err());
    }

    #[test]
    fn similarity_matches_difflib() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        // difflib.SequenceMatcher(None, "abcd", "bcde").ratio() == 0.75
        assert_eq!(similarity(&chars("abcd"), &chars("bcde")), 0.75);
        assert_eq!(
            close_matches("appel", &["ape", "apple", "peach", "puppy"], 3, 0.6),
            ["apple", "ape"]
        );
    }
}
