//! Preference judgements: the reader's messages, and properties of the preference measures over
//! random judgements and runs (bounds, counts that nest, invariance to the order of lines and
//! queries, qrels read as preferences giving what the qrels kernels give).

use rankscope_core::measures::prefs::FAMILIES;
use rankscope_core::prefs::{evaluate_prefs, parse_prefs, Prefs, PrefsFormat};
use rankscope_core::trec::{parse_qrels, parse_run, ReadOptions};
use rankscope_core::{evaluate, parse_measures, Conventions, EvalOptions, Measure, Run};

mod common;
use common::Random;

fn prefs_measures() -> Vec<Measure> {
    let names: Vec<&str> = FAMILIES.iter().map(|family| family.name).collect();
    parse_measures(&names).unwrap()
}

fn prefs(text: &str, format: PrefsFormat) -> Prefs {
    parse_prefs(text.as_bytes(), "prefs", format).unwrap()
}

fn run(lines: &[String]) -> Run {
    let text = lines.join("\n") + "\n";
    parse_run(text.as_bytes(), "run", &ReadOptions::default())
        .unwrap()
        .table
}

fn error(text: &str, format: PrefsFormat) -> String {
    parse_prefs(text.as_bytes(), "prefs.txt", format)
        .unwrap_err()
        .to_string()
}

#[test]
fn the_reader_names_file_and_line() {
    let prefs = PrefsFormat::Prefs;
    assert_eq!(
        error("# comment\nq g s d 1\nq g s d\n", prefs),
        "prefs.txt:3: expected 5 whitespace-separated fields (query_id group subgroup doc_id \
         level); found 4\n    q g s d"
    );
    assert_eq!(
        error("q g d 1 extra\n", PrefsFormat::QrelsPrefs),
        "prefs.txt:1: expected 4 whitespace-separated fields (query_id group doc_id level); \
         found 5\n    q g d 1 extra"
    );
    assert_eq!(
        error("\nq g s d high\n", prefs),
        "prefs.txt:2: level must be a finite number; found 'high'\n    q g s d high"
    );
    assert_eq!(
        error("q g s d inf\n", prefs),
        "prefs.txt:1: level must be a finite number; found 'inf'\n    q g s d inf"
    );
    assert!(error("# only a comment\n\n", prefs).contains("holds only comments"));
    assert!(error("", prefs).contains("file is empty"));
    assert!(error("q g s d\u{0} 1\n", prefs).starts_with("prefs.txt:1: line holds a NUL byte"));
}

#[test]
fn the_reader_keeps_what_trec_eval_keeps() {
    // A byte order mark, blank and comment lines skipped, '#' inside an id kept, '\r\n'.
    let read = prefs(
        "\u{feff}# c\n\n q1  g1 s1 doc#37 1.5\r\nq1 g1 s1 d2 0\n",
        PrefsFormat::Prefs,
    );
    let docs: Vec<(&str, f64, u64)> = read
        .lines
        .iter()
        .map(|l| (l.doc.as_str(), l.level, l.line))
        .collect();
    assert_eq!(docs, [("doc#37", 1.5, 3), ("d2", 0.0, 4)]);
    // qrels_prefs: the second column is the group, every line in subgroup "0"; 1e1 is 10.
    let read = prefs("q1 it1 d1 1e1\n", PrefsFormat::QrelsPrefs);
    let line = &read.lines[0];
    assert_eq!(
        (line.group.as_str(), line.subgroup.as_str(), line.level),
        ("it1", "0", 10.0)
    );
}

#[test]
fn contradicting_preferences_are_refused_with_the_line() {
    let read = prefs(
        "q g s1 a 2\nq g s1 b 0\nq g s2 b 1\nq g s2 c 0\n",
        PrefsFormat::Prefs,
    );
    let ranking = run(&["q Q0 a 1 1 t".to_string()]);
    let options = EvalOptions::new(Conventions::profile("trec").unwrap());
    let message = evaluate_prefs(&read, &ranking, &prefs_measures(), &options)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "prefs:3: document 'b' has level 0 (non-relevant) in one subgroup and a level above 0 in \
         another of group 'g' of query 'q'"
    );
    let read = prefs("q g s a 2\nq g s a 1\n", PrefsFormat::Prefs);
    let message = evaluate_prefs(&read, &ranking, &prefs_measures(), &options)
        .unwrap_err()
        .to_string();
    assert!(message.contains("document 'a' has two different levels in group 'g'"));
    let cycle = "q g s1 a 2\nq g s1 b 1\nq g s2 b 2\nq g s2 a 1\n";
    let message = evaluate_prefs(
        &prefs(cycle, PrefsFormat::Prefs),
        &ranking,
        &prefs_measures(),
        &options,
    )
    .unwrap_err()
    .to_string();
    assert!(message.contains("documents 'a' and 'b' are each preferred to the other"));
}

#[test]
fn only_preference_measures_are_computed_from_preferences() {
    let read = prefs("q g s a 2\nq g s b 1\n", PrefsFormat::Prefs);
    let ranking = run(&["q Q0 a 1 1 t".to_string()]);
    let options = EvalOptions::new(Conventions::profile("trec").unwrap());
    let message = evaluate_prefs(&read, &ranking, &parse_measures(&["AP"]).unwrap(), &options)
        .unwrap_err()
        .to_string();
    assert!(message.starts_with("AP is not computed from preference judgements"));
    let other = run(&["other Q0 a 1 1 t".to_string()]);
    let error = evaluate_prefs(&read, &other, &prefs_measures(), &options).unwrap_err();
    assert!(error
        .to_string()
        .starts_with("no query of the run (run) is judged"));
}

/// Random consistent preferences: per query, groups of documents each with a hidden level;
/// subgroups judge random subsets with those levels (so no group contradicts itself). And a run
/// over the judged documents and a few others, scores with ties.
fn case(random: &mut Random) -> (Vec<String>, Vec<String>) {
    let mut lines = Vec::new();
    let mut ranking = Vec::new();
    let levels = [0.0, 0.0, 1.0, 2.0, 3.0, 4.5];
    for q in 0..1 + random.below(5) {
        let docs = 2 + random.below(10);
        for g in 0..1 + random.below(3) {
            let hidden: Vec<f64> = (0..docs)
                .map(|_| levels[random.below(6) as usize])
                .collect();
            for s in 0..1 + random.below(3) {
                for (d, level) in hidden.iter().enumerate() {
                    if random.below(3) > 0 {
                        lines.push(format!("q{q} g{g} s{s} d{d} {level}"));
                    }
                }
            }
        }
        for d in 0..docs + 3 {
            if random.below(2) == 0 {
                ranking.push(format!("q{q} Q0 d{d} 0 {} t", random.below(4)));
            }
        }
        ranking.push(format!("q{q} Q0 x 0 -1 t"));
    }
    (lines, ranking)
}

fn values(lines: &[String], ranking: &[String], options: &EvalOptions) -> Vec<Vec<f64>> {
    let read = prefs(&(lines.join("\n") + "\n"), PrefsFormat::Prefs);
    evaluate_prefs(&read, &run(ranking), &prefs_measures(), options)
        .unwrap()
        .values
}

#[test]
fn ratios_are_bounded_counts_nest_and_line_order_does_not_matter() {
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    let measures = prefs_measures();
    let column = |name: &str| measures.iter().position(|m| m.family.name == name).unwrap();
    for _ in 0..300 {
        let (mut lines, mut ranking) = case(&mut random);
        let options = EvalOptions {
            complete: random.below(2) == 0,
            max_documents: (random.below(2) == 0).then(|| 1 + random.below(5) as usize),
            ..EvalOptions::new(Conventions::profile("trec").unwrap())
        };
        let base = values(&lines, &ranking, &options);
        for (m, values) in measures.iter().zip(&base) {
            if m.family.bounded {
                assert!(
                    values.iter().all(|v| (0.0..=1.0).contains(v)),
                    "{m}: {values:?}"
                );
            } else {
                assert!(values.iter().all(|v| *v >= 0.0 && v.fract() == 0.0), "{m}");
            }
        }
        let (possible, fulfilled, fulfilled_ret) = (
            &base[column("NumPrefsPoss")],
            &base[column("NumPrefsFul")],
            &base[column("NumPrefsFulRet")],
        );
        for q in 0..possible.len() {
            assert!(fulfilled_ret[q] <= fulfilled[q] && fulfilled[q] <= possible[q]);
        }
        // Judgements and results in any order, queries interleaved: the same values.
        random.shuffle(&mut lines);
        random.shuffle(&mut ranking);
        assert_eq!(values(&lines, &ranking, &options), base);
    }
}

#[test]
fn qrels_read_as_preferences_give_what_the_qrels_kernels_give() {
    // Scores without ties (the two orders of ties differ: trec_eval breaks them by document id
    // descending for qrels, ascending for preferences), grades 0-3.
    let mut random = Random(99);
    let measures = prefs_measures();
    let options = EvalOptions::new(Conventions::profile("trec").unwrap());
    for _ in 0..300 {
        let mut qrels = String::new();
        let mut ranking = Vec::new();
        for q in 0..1 + random.below(4) {
            for d in 0..1 + random.below(12) {
                if random.below(4) > 0 {
                    qrels.push_str(&format!("q{q} 0 d{d} {}\n", random.below(4)));
                }
            }
            let mut docs: Vec<u64> = (0..14).collect();
            random.shuffle(&mut docs);
            for (rank, d) in docs.iter().take(random.below(14) as usize + 1).enumerate() {
                ranking.push(format!("q{q} Q0 d{d} {rank} {} t", 100 - rank));
            }
        }
        let Ok(table) = parse_qrels(qrels.as_bytes(), "qrels", &ReadOptions::default()) else {
            continue; // no judgement drawn
        };
        let table = table.table;
        let ranking = run(&ranking);
        let Ok(by_kernels) = evaluate(&table, &ranking, &measures, &options) else {
            continue;
        };
        let read = prefs(&qrels, PrefsFormat::QrelsPrefs);
        let by_prefs = evaluate_prefs(&read, &ranking, &measures, &options).unwrap();
        assert_eq!(by_prefs.query_ids, by_kernels.query_ids);
        for (m, (a, b)) in measures
            .iter()
            .zip(by_prefs.values.iter().zip(&by_kernels.values))
        {
            assert_eq!(a, b, "{m}");
        }
    }
}
