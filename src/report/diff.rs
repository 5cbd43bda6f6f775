//! `tracelens diff A B`: dmtracedump `-d`'s text, with correctly signed differences, and JSON.
//!
//! The text is dmtracedump's (run 1 = A): the matched methods sorted by exclusive difference
//! (largest first; ties keep run A's inclusive order), each as `class.method excl_a excl_b diff
//! ratio` then `calls_a` and `calls_b` on their own lines; the same sorted by inclusive difference
//! (a stable sort of the exclusive order, as dmtracedump's qsort); then the methods of run A only
//! and of run B only as `class.method excl incl calls`. Unlike dmtracedump, a negative difference
//! prints as a negative number, and a difference against a zero base is the real difference
//! (dmtracedump prints 0); the ratio against a zero base prints `0.00` as dmtracedump does (it is
//! `null` in JSON). Calls are the non-recursive calls.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::diff::{DiffRow, Totals, TraceDiff};

/// dmtracedump's `-d` text for one clock.
pub(crate) fn write_diff_text(diff: &TraceDiff, out: &mut dyn Write) -> io::Result<()> {
    // The matched rows by number (4 bytes each, a row is made when it is read).
    let mut matched: Vec<u32> = (0..diff.matched().len() as u32).collect();
    // The exclusive table, then the inclusive one: each sorted by its delta, largest first.
    type Column = (
        fn(&DiffRow) -> Option<i64>,
        fn(&Totals) -> u64,
        fn(&DiffRow) -> Option<f64>,
    );
    let columns: [Column; 2] = [
        (
            |r| r.d_exclusive(),
            |t| t.exclusive,
            |r| r.exclusive_ratio(),
        ),
        (
            |r| r.d_inclusive(),
            |t| t.inclusive,
            |r| r.inclusive_ratio(),
        ),
    ];
    for (delta, time, ratio) in columns {
        matched.sort_by_key(|&i| std::cmp::Reverse(delta(&diff.row(i as usize)).unwrap_or(0)));
        for &i in &matched {
            let r = diff.row(i as usize);
            let (a, b) = (r.a.unwrap_or_default(), r.b.unwrap_or_default());
            writeln!(
                out,
                "{} {} {} {} {:.2}\n{}\n{}",
                r.key.dotted(),
                time(&a),
                time(&b),
                delta(&r).unwrap_or(0),
                ratio(&r).unwrap_or(0.0),
                a.calls,
                b.calls
            )?;
        }
    }
    for r in diff.only_a().chain(diff.only_b()) {
        let t = r.a.or(r.b).unwrap_or_default();
        writeln!(
            out,
            "{} {} {} {}",
            r.key.dotted(),
            t.exclusive,
            t.inclusive,
            t.calls
        )?;
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonRow<'a> {
    class: &'a str,
    name: Option<&'a str>,
    signature: &'a str,
    /// "both", "a" or "b".
    present: &'static str,
    a: Option<crate::analysis::diff::Totals>,
    b: Option<crate::analysis::diff::Totals>,
    d_inclusive: Option<i64>,
    d_exclusive: Option<i64>,
    d_calls: Option<i64>,
    inclusive_ratio: Option<f64>,
    exclusive_ratio: Option<f64>,
}

impl<'a> JsonRow<'a> {
    fn of(r: DiffRow<'a>) -> Self {
        JsonRow {
            class: r.key.class,
            name: r.key.name,
            signature: r.key.signature,
            present: match (r.a.is_some(), r.b.is_some()) {
                (true, true) => "both",
                (true, false) => "a",
                _ => "b",
            },
            a: r.a,
            b: r.b,
            d_inclusive: r.d_inclusive(),
            d_exclusive: r.d_exclusive(),
            d_calls: r.d_calls(),
            inclusive_ratio: r.inclusive_ratio(),
            exclusive_ratio: r.exclusive_ratio(),
        }
    }
}

/// A sequence serialized from an iterator as its items come (once): a diff's rows are written
/// one at a time, and a clock's diff is made only when its turn comes and dropped after it.
struct Streamed<I>(std::cell::RefCell<Option<I>>);

impl<I> Streamed<I> {
    fn new(items: I) -> Self {
        Streamed(std::cell::RefCell::new(Some(items)))
    }
}

impl<I: Iterator<Item = T>, T: Serialize> Serialize for Streamed<I> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let items = self.0.borrow_mut().take();
        s.collect_seq(items.into_iter().flatten())
    }
}

/// One clock's diff, as its JSON object.
struct JsonClock<D>(D);

impl<D: std::borrow::Borrow<TraceDiff>> Serialize for JsonClock<D> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(bound = "Streamed<I>: Serialize")]
        struct Fields<I> {
            clock: crate::trace::Clock,
            methods: Streamed<I>,
        }
        let d = self.0.borrow();
        Fields {
            clock: d.clock,
            methods: Streamed::new(d.rows().map(JsonRow::of)),
        }
        .serialize(s)
    }
}

#[derive(Serialize)]
#[serde(bound = "Streamed<I>: Serialize")]
struct JsonDiff<'a, I> {
    run_a: &'a str,
    run_b: &'a str,
    /// Tick rate of the times (1 000 000 = µs).
    ticks_per_sec: u64,
    clocks: Streamed<I>,
}

/// The diffs (one per clock, owned or borrowed, each made when its turn comes) as JSON: every
/// row with both runs' totals, signed differences and ratios (`null` where undefined).
pub(crate) fn write_diff_json<D: std::borrow::Borrow<TraceDiff>>(
    diffs: impl IntoIterator<Item = D>,
    run_a: &str,
    run_b: &str,
    ticks_per_sec: u64,
    out: &mut dyn Write,
) -> io::Result<()> {
    let doc = JsonDiff {
        run_a,
        run_b,
        ticks_per_sec,
        clocks: Streamed::new(diffs.into_iter().map(JsonClock)),
    };
    // serde_json writes token by token: through a buffer of a known type, not each token
    // through `dyn Write`.
    let mut w = io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut w, &doc).map_err(io::Error::other)?;
    writeln!(w)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::diff::RunTotals;
    use crate::analysis::profile::profile;
    use crate::analysis::testutil::{SIMPLE2_TXT, simple_trace, trace_from_txt};

    /// dmtracedump's text with its unsigned negatives turned into signed numbers.
    fn signed(expected: &str) -> String {
        expected
            .split('\n')
            .map(|line| {
                line.split(' ')
                    .map(|w| match w.parse::<u64>() {
                        Ok(v) if v > i64::MAX as u64 => (v as i64).to_string(),
                        _ => w.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn reproduces_dmtracedump_diff_with_signs_fixed() {
        let a = simple_trace();
        let b = trace_from_txt(SIMPLE2_TXT);
        let pa = profile(&a, a.primary_clock());
        let pb = profile(&b, b.primary_clock());
        let diff = TraceDiff::new(
            RunTotals::from_profile(&a, pa),
            RunTotals::from_profile(&b, pb),
        );
        let mut buf = Vec::new();
        write_diff_text(&diff, &mut buf).unwrap();
        let got = String::from_utf8(buf).unwrap();
        let want = signed(include_str!(
            "../../tests/data/dmtracedump/simple_vs_simple2.diff.txt"
        ));
        assert!(want.contains("C.bar 7 3 -4 42.86"));
        assert_eq!(got, want);
    }

    #[test]
    fn json_has_signed_differences_and_null_ratios() {
        let a = simple_trace();
        let b = trace_from_txt(SIMPLE2_TXT);
        let diffs = TraceDiff::of_traces(&a, &b);
        assert_eq!(diffs.len(), 1);
        let mut buf = Vec::new();
        write_diff_json(&diffs, "simple", "simple2", 1_000_000, &mut buf).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        let methods = v["clocks"][0]["methods"].as_array().unwrap();
        let find = |c: &str| methods.iter().find(|m| m["class"] == c).unwrap();
        assert_eq!(find("B")["d_exclusive"], -5);
        assert_eq!(find("B")["d_inclusive"], -4);
        assert_eq!(find("A")["d_calls"], 0);
        assert_eq!(find("D")["present"], "a");
        assert!(find("D")["d_inclusive"].is_null());
        assert_eq!(find("E")["present"], "b");
        assert!(find("(unknown)")["inclusive_ratio"].is_null());
        assert_eq!(v["clocks"][0]["clock"], "cpu");
    }
}
