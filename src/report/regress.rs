//! `tracelens diff --base A... --new B...`: the regression report (text) and its JSON
//! (schema in docs/regressions.md, `"schema": "tracelens-regressions", "version": 1`).

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value, json};

use crate::analysis::regress::budget::Verdict;
use crate::analysis::regress::paths::PATH_SHOWN_BYTES;
use crate::analysis::regress::samples::Keying;
use crate::analysis::regress::{Comparison, Metric, MetricChange, Row, RowKey, Status};
use crate::trace::Clock;

/// The JSON schema's version; bumped when a field changes meaning or goes away.
pub const SCHEMA_VERSION: u32 = 1;

/// A duration with a unit that fits (four significant digits), e.g. `2.013 ms`, `162.0 µs`;
/// `signed` adds `+` to positive values.
fn fmt_time(ticks: f64, ticks_per_sec: u64, signed: bool) -> String {
    let s = ticks / ticks_per_sec.max(1) as f64;
    let sign = if signed && s > 0.0 { "+" } else { "" };
    let a = s.abs();
    let (v, unit) = match a {
        0.0 => return "0".to_string(),
        a if a >= 1.0 => (s, "s"),
        a if a >= 1e-3 => (s * 1e3, "ms"),
        a if a >= 1e-6 => (s * 1e6, "µs"),
        _ => (s * 1e9, "ns"),
    };
    let decimals = match v.abs() {
        x if x < 9.9995 => 3,
        x if x < 99.995 => 2,
        x if x < 999.95 => 1,
        _ => 0,
    };
    format!("{sign}{v:.decimals$} {unit}")
}

fn fmt_q(q: f64) -> String {
    if q < 1e-300 {
        "<1e-300".to_string()
    } else if q < 0.001 {
        format!("{q:.1e}")
    } else {
        format!("{q:.3}")
    }
}

fn fmt_pct(p: Option<f64>) -> String {
    p.map_or("new".to_string(), |p| format!("{p:+.1}%"))
}

fn clock_name(c: Clock) -> &'static str {
    match c {
        Clock::Cpu => "thread CPU",
        Clock::Wall => "wall",
    }
}

/// The text report: significant regressions ranked, then improvements, then (with `all`) the
/// rest, then the rows found in one group only; at most `top` rows per section.
pub fn write_text(
    cmp: &Comparison,
    clock: Clock,
    all: bool,
    top: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let tps = cmp.ticks_per_sec;
    let m = cmp.options.metric;
    let what = match cmp.options.keying {
        Keying::Methods => "methods",
        Keying::Paths => "call paths",
    };
    let count = |s: Status| cmp.count(s);
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "base: {}, new: {} (mean length {} and {}: first to last record, summed over threads); clock: {}",
        plural(cmp.base_runs, "run"),
        plural(cmp.new_runs, "run"),
        fmt_time(cmp.base_run_ticks, tps, false),
        fmt_time(cmp.new_run_ticks, tps, false),
        clock_name(clock)
    )?;
    let min = cmp.options.min_change.map_or(String::new(), |t| {
        format!(" and a change of at least {t} either way")
    });
    if cmp.sampled {
        let min = cmp.options.min_change.map_or(String::new(), |t| {
            format!(" and a change of time per run of at least {t} either way")
        });
        writeln!(
            out,
            "{} samples (share of each group's samples); two-proportion z-test on sample counts, Benjamini-Hochberg q < {}{min}",
            m.name(),
            cmp.options.alpha
        )?;
    } else {
        writeln!(
            out,
            "{} time per call; Mann-Whitney U on per-call durations, Benjamini-Hochberg q < {}{min}",
            m.name(),
            cmp.options.alpha
        )?;
    }
    writeln!(
        out,
        "{} {what} in both groups; significant: {}, {}; {} only in base, {} only in new",
        cmp.tested(),
        plural(count(Status::Regression), "regression"),
        plural(count(Status::Improvement), "improvement"),
        count(Status::OnlyBase),
        count(Status::OnlyNew)
    )?;
    let other = match m {
        Metric::Exclusive => Metric::Inclusive,
        Metric::Inclusive => Metric::Exclusive,
    };
    let header = if cmp.sampled {
        sampled_header(other)
    } else {
        format!(
            "{:>4}  {:>22}  {:>25}  {:>10}  {:>10}  {:>8}  {:>11}  {:>17}  {:>20}  name",
            "#",
            "change per call",
            "95% CI",
            "base/call",
            "new/call",
            "q",
            "change/run",
            "calls/run",
            &format!("{} change/call", &other.name()[..4]),
        )
    };
    let mut sections = vec![
        ("Regressions, by time added per run", Status::Regression),
        ("Improvements, by time saved per run", Status::Improvement),
    ];
    if all {
        sections.push(("Not significant", Status::Unchanged));
    }
    for (title, status) in sections {
        let ranked = cmp.ranked(status);
        writeln!(out, "\n{title} ({}):", ranked.len())?;
        if ranked.is_empty() {
            continue;
        }
        writeln!(out, "{header}")?;
        for (rank, &i) in ranked.iter().enumerate().take(top) {
            let r = cmp.row(i);
            if cmp.sampled {
                write_sampled_row(cmp, rank, &r, other, out)?;
                continue;
            }
            let (mc, oc) = (r.metric(m), r.metric(other));
            let ci = mc.ci95.map_or("-".to_string(), |(lo, hi)| {
                format!("[{}, {}]", fmt_time(lo, tps, true), fmt_time(hi, tps, true))
            });
            writeln!(
                out,
                "{:>4}  {:>22}  {:>25}  {:>10}  {:>10}  {:>8}  {:>11}  {:>17}  {:>20}  {}",
                rank + 1,
                format!(
                    "{} ({})",
                    fmt_time(mc.change(), tps, true),
                    fmt_pct(mc.change_pct())
                ),
                ci,
                fmt_time(mc.base_mean, tps, false),
                fmt_time(mc.new_mean, tps, false),
                fmt_q(mc.q),
                fmt_time(mc.new_per_run - mc.base_per_run, tps, true),
                format!("{:.1} → {:.1}", r.base_calls_per_run, r.new_calls_per_run),
                format!(
                    "{}{}",
                    fmt_time(oc.change(), tps, true),
                    if oc.significant { " *" } else { "" }
                ),
                r.key.label()
            )?;
        }
        if ranked.len() > top {
            writeln!(
                out,
                "  ... {} more (--top N shows more)",
                ranked.len() - top
            )?;
        }
    }
    for (title, status) in [
        ("Only in base", Status::OnlyBase),
        ("Only in new", Status::OnlyNew),
    ] {
        let ranked = cmp.ranked(status);
        writeln!(out, "\n{title} ({}), by time per run:", ranked.len())?;
        for &i in ranked.iter().take(top) {
            let r = cmp.row(i);
            let mc = r.metric(m);
            let (per_run, calls) = match status {
                Status::OnlyBase => (mc.base_per_run, r.base_calls_per_run),
                _ => (mc.new_per_run, r.new_calls_per_run),
            };
            if cmp.sampled {
                // The calls of sampled runs are runs of samples: not counted here.
                let per_run = fmt_time(per_run, tps, false);
                writeln!(out, "  {per_run:>11}/run  {}", r.key.label())?;
                continue;
            }
            writeln!(
                out,
                "  {:>11}/run  {:>10.1} calls/run  {}",
                fmt_time(per_run, tps, false),
                calls,
                r.key.label()
            )?;
        }
        if ranked.len() > top {
            writeln!(out, "  ... {} more", ranked.len() - top)?;
        }
    }
    if !all && count(Status::Unchanged) > 0 {
        writeln!(
            out,
            "\n{} {what} without a significant change are not listed (--all lists them).",
            count(Status::Unchanged)
        )?;
    }
    Ok(())
}

/// The header of the rows of a comparison of sampled runs (`other`: the metric beside).
fn sampled_header(other: Metric) -> String {
    format!(
        "{:>4}  {:>22}  {:>19}  {:>10}  {:>10}  {:>8}  {:>19}  {:>19}  name",
        "#",
        "change per run",
        "share of samples",
        "base/run",
        "new/run",
        "q",
        "samples/run",
        &format!("{} change/run", &other.name()[..4]),
    )
}

/// Row `r` of a comparison of sampled runs, ranked `rank` (from 0).
fn write_sampled_row(
    cmp: &Comparison,
    rank: usize,
    r: &Row,
    other: Metric,
    out: &mut dyn Write,
) -> io::Result<()> {
    let tps = cmp.ticks_per_sec;
    let (mc, oc) = (r.metric(cmp.options.metric), r.metric(other));
    let change = mc.new_per_run - mc.base_per_run;
    let pct = (mc.base_per_run > 0.0).then(|| change / mc.base_per_run * 100.0);
    let (shares, per_run) = mc.samples.map_or(("-".into(), "-".into()), |s| {
        let runs = |n: usize| n.max(1) as f64;
        (
            format!(
                "{:.2}% → {:.2}%",
                s.base_share() * 100.0,
                s.new_share() * 100.0
            ),
            format!(
                "{:.1} → {:.1}",
                s.base as f64 / runs(cmp.base_runs),
                s.new as f64 / runs(cmp.new_runs)
            ),
        )
    });
    writeln!(
        out,
        "{:>4}  {:>22}  {:>19}  {:>10}  {:>10}  {:>8}  {:>19}  {:>19}  {}",
        rank + 1,
        format!("{} ({})", fmt_time(change, tps, true), fmt_pct(pct)),
        shares,
        fmt_time(mc.base_per_run, tps, false),
        fmt_time(mc.new_per_run, tps, false),
        fmt_q(mc.q),
        per_run,
        format!(
            "{}{}",
            fmt_time(oc.new_per_run - oc.base_per_run, tps, true),
            if oc.significant { " *" } else { "" }
        ),
        r.key.label()
    )
}

/// The one-screen summary of broken budgets (empty when none is broken).
pub fn write_budget_summary(
    cmp: &Comparison,
    verdicts: &[Verdict],
    out: &mut dyn Write,
) -> io::Result<()> {
    let broken: Vec<&Verdict> = verdicts.iter().filter(|v| !v.breaking.is_empty()).collect();
    if broken.is_empty() {
        return Ok(());
    }
    let tps = cmp.ticks_per_sec;
    let per = if cmp.sampled { "run" } else { "call" };
    writeln!(
        out,
        "{} of {} budgets broken ({} time per {per}, significant at q < {}):",
        broken.len(),
        verdicts.len(),
        cmp.options.metric.name(),
        cmp.options.alpha
    )?;
    for v in broken {
        writeln!(out, "  {} broken by {} methods:", v.rule, v.breaking.len())?;
        for &i in v.breaking.iter().take(5) {
            let r = cmp.row(i);
            let mc = r.metric(cmp.options.metric);
            let (base, new) = mc.gated();
            let pct = (base > 0.0).then(|| (new - base) / base * 100.0);
            writeln!(
                out,
                "    {} ({}) {} → {} per {per}, q {}  {}",
                fmt_time(new - base, tps, true),
                fmt_pct(pct),
                fmt_time(base, tps, false),
                fmt_time(new, tps, false),
                fmt_q(mc.q),
                r.key.label()
            )?;
        }
        if v.breaking.len() > 5 {
            writeln!(out, "    ... {} more", v.breaking.len() - 5)?;
        }
    }
    Ok(())
}

fn ms(ticks: f64, tps: u64) -> f64 {
    ticks / tps.max(1) as f64 * 1e3
}

fn metric_json(mc: &MetricChange, tps: u64) -> Value {
    let mut v = json!({
        "n_base": mc.n_base,
        "n_new": mc.n_new,
        "base_ms_per_call": ms(mc.base_mean, tps),
        "new_ms_per_call": ms(mc.new_mean, tps),
        "change_ms_per_call": ms(mc.change(), tps),
        "change_pct": mc.change_pct(),
        "ci95_ms": mc.ci95.map(|(lo, hi)| [ms(lo, tps), ms(hi, tps)]),
        "base_ms_per_run": ms(mc.base_per_run, tps),
        "new_ms_per_run": ms(mc.new_per_run, tps),
        "base_share": mc.base_share,
        "new_share": mc.new_share,
        "u": mc.test.map(|t| t.u_new),
        "prob_new_slower": mc.test.map(|t| t.prob_new_slower),
        "z": mc.test.map(|t| t.z).or(mc.samples.map(|s| s.z)),
        "p": mc.p(),
        "q": mc.p().map(|_| mc.q),
        "significant": mc.significant,
    });
    if let (Some(s), Value::Object(o)) = (mc.samples, &mut v) {
        let samples = json!({
            "base": s.base,
            "new": s.new,
            "base_total": s.base_total,
            "new_total": s.new_total,
            "base_share": s.base_share(),
            "new_share": s.new_share(),
            "dispersion": s.dispersion,
        });
        o.insert("samples".into(), samples);
    }
    v
}

fn row_json(r: &Row, rank: Option<usize>, tps: u64) -> Value {
    let key = match &r.key {
        RowKey::Method(k) => json!({"method": k.full(), "class": k.class, "name": k.name,
                                    "signature": k.signature}),
        RowKey::Path(p) => {
            let (names, omitted) = p.innermost(PATH_SHOWN_BYTES, |k| k.full());
            if omitted > 0 {
                json!({"path": names, "path_omitted": omitted})
            } else {
                json!({"path": names})
            }
        }
    };
    let status = match r.status {
        Status::Regression => "regression",
        Status::Improvement => "improvement",
        Status::Unchanged => "unchanged",
        Status::OnlyBase => "only_base",
        Status::OnlyNew => "only_new",
    };
    let mut v = json!({
        "status": status,
        "rank": rank,
        "base_calls_per_run": r.base_calls_per_run,
        "new_calls_per_run": r.new_calls_per_run,
        "exclusive": metric_json(&r.exclusive, tps),
        "inclusive": metric_json(&r.inclusive, tps),
    });
    if let (Value::Object(o), Value::Object(k)) = (&mut v, key) {
        o.extend(k);
    }
    v
}

/// The sections of rows in the JSON document.
const SECTIONS: [(&str, Status); 5] = [
    ("regressions", Status::Regression),
    ("improvements", Status::Improvement),
    ("unchanged", Status::Unchanged),
    ("only_base", Status::OnlyBase),
    ("only_new", Status::OnlyNew),
];

/// One section's rows, made one at a time as they are written (a comparison of call paths has
/// millions of rows; their JSON values all at once took tens of GB).
struct Section<'a> {
    cmp: &'a Comparison,
    status: Status,
    all: bool,
}

impl Serialize for Section<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ranked = if self.status != Status::Unchanged || self.all {
            self.cmp.ranked(self.status)
        } else {
            Vec::new()
        };
        let ranked_status = matches!(self.status, Status::Regression | Status::Improvement);
        let tps = self.cmp.ticks_per_sec;
        let mut seq = s.serialize_seq(Some(ranked.len()))?;
        for (n, &i) in ranked.iter().enumerate() {
            seq.serialize_element(&row_json(
                &self.cmp.row(i),
                ranked_status.then_some(n + 1),
                tps,
            ))?;
        }
        seq.end()
    }
}

/// The document `head` with its sections written as [`Section`]s.
struct Document<'a> {
    head: &'a Map<String, Value>,
    cmp: &'a Comparison,
    all: bool,
}

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.head.len()))?;
        for (k, v) in self.head {
            match SECTIONS.iter().find(|(name, _)| name == k) {
                Some(&(_, status)) => map.serialize_entry(
                    k,
                    &Section {
                        cmp: self.cmp,
                        status,
                        all: self.all,
                    },
                )?,
                None => map.serialize_entry(k, v)?,
            }
        }
        map.end()
    }
}

/// The JSON document (every row with `all`, else the significant and one-sided ones).
pub fn to_json(
    cmp: &Comparison,
    clock: Clock,
    base: &[String],
    new: &[String],
    all: bool,
    verdicts: &[Verdict],
) -> Value {
    let mut doc = head_json(cmp, clock, base, new, verdicts);
    for (name, status) in SECTIONS {
        let section = Section { cmp, status, all };
        doc[name] = serde_json::to_value(section).expect("rows as JSON");
    }
    doc
}

/// [`to_json`] written pretty-printed to `out` (the same bytes as `serde_json::to_writer_pretty`
/// of it), without holding the rows' JSON values.
pub fn write_json(
    cmp: &Comparison,
    clock: Clock,
    base: &[String],
    new: &[String],
    all: bool,
    verdicts: &[Verdict],
    out: &mut dyn Write,
) -> io::Result<()> {
    let Value::Object(head) = head_json(cmp, clock, base, new, verdicts) else {
        unreachable!("the document is an object")
    };
    let doc = Document {
        head: &head,
        cmp,
        all,
    };
    serde_json::to_writer_pretty(out, &doc).map_err(io::Error::from)
}

/// The document with empty sections.
fn head_json(
    cmp: &Comparison,
    clock: Clock,
    base: &[String],
    new: &[String],
    verdicts: &[Verdict],
) -> Value {
    let tps = cmp.ticks_per_sec;
    let count = |s: Status| cmp.count(s);
    let empty = Vec::<Value>::new;
    json!({
        "schema": "tracelens-regressions",
        "version": SCHEMA_VERSION,
        "clock": match clock { Clock::Cpu => "cpu", Clock::Wall => "wall" },
        "keying": match cmp.options.keying { Keying::Methods => "methods", Keying::Paths => "paths" },
        "metric": cmp.options.metric.name(),
        "test": if cmp.sampled { "two-proportion-z" } else { "mann-whitney-u" },
        "correction": "benjamini-hochberg",
        "interval": if cmp.sampled { "none" } else { "welch-95" },
        "alpha": cmp.options.alpha,
        "min_change": cmp.options.min_change.map(|t| t.to_string()),
        "base": {"runs": base, "mean_ms_per_run": ms(cmp.base_run_ticks, tps)},
        "new": {"runs": new, "mean_ms_per_run": ms(cmp.new_run_ticks, tps)},
        "counts": {
            "tested": cmp.tested(),
            "regressions": count(Status::Regression),
            "improvements": count(Status::Improvement),
            "unchanged": count(Status::Unchanged),
            "only_base": count(Status::OnlyBase),
            "only_new": count(Status::OnlyNew),
        },
        "regressions": empty(),
        "improvements": empty(),
        "unchanged": empty(),
        "only_base": empty(),
        "only_new": empty(),
        "budgets": verdicts.iter().map(|v| json!({
            "rule": v.rule.to_string(),
            "glob": v.rule.glob,
            "threshold": v.rule.threshold.to_string(),
            "broken": !v.breaking.is_empty(),
            "breaking": v.breaking.iter().map(|&i| {
                let r = cmp.row(i);
                r.method().map_or_else(|| r.key.label(), |k| k.full())
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::regress::samples::run_samples;
    use crate::analysis::regress::{Options, compare};
    use crate::formats::android::synth::{GenOptions, generate_vec};

    /// The streamed document is byte for byte the pretty-printed [`to_json`], for methods and
    /// call paths, with and without the unchanged rows, and its paths are the rows' methods.
    #[test]
    fn streamed_json_is_the_documents_bytes() {
        let trace = |seed| {
            let opts = GenOptions {
                records: 20_000,
                methods: 60,
                threads: 2,
                seed,
                program_seed: Some(3),
                ..GenOptions::default()
            };
            let bytes = generate_vec(&opts);
            let p = crate::formats::Progress::default();
            crate::load::load_bytes(std::path::Path::new("r.trace"), &bytes, &p).unwrap()
        };
        let (a, b) = ([trace(1), trace(2)], [trace(3), trace(4)]);
        for keying in [Keying::Methods, Keying::Paths] {
            let runs = |ts: &[crate::trace::Trace]| -> Vec<_> {
                ts.iter()
                    .map(|t| run_samples(t, Clock::Cpu, keying))
                    .collect()
            };
            let options = Options {
                keying,
                ..Options::default()
            };
            let cmp = compare(&runs(&a), &runs(&b), &options);
            let names = ["a".to_string()];
            for all in [false, true] {
                let doc = to_json(&cmp, Clock::Cpu, &names, &names, all, &[]);
                let want = serde_json::to_vec_pretty(&doc).unwrap();
                let mut got = Vec::new();
                write_json(&cmp, Clock::Cpu, &names, &names, all, &[], &mut got).unwrap();
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    String::from_utf8(want).unwrap()
                );
                let mut paths_checked = 0;
                for (name, status) in SECTIONS {
                    let rows = doc[name].as_array().unwrap();
                    let ranked = if status == Status::Unchanged && !all {
                        Vec::new()
                    } else {
                        cmp.ranked(status)
                    };
                    assert_eq!(rows.len(), ranked.len(), "{name}");
                    if let (Some(first), Keying::Paths) = (rows.first(), keying) {
                        let RowKey::Path(p) = cmp.key(ranked[0]) else {
                            panic!("a path row")
                        };
                        let want: Vec<String> = p.methods().iter().map(|k| k.full()).collect();
                        assert_eq!(first["path"], json!(want));
                        assert_eq!(p.last().full(), *want.last().unwrap());
                        paths_checked += 1;
                    }
                }
                assert!(keying == Keying::Methods || paths_checked > 0);
            }
        }
    }
}
