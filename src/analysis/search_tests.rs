//! The search against a slow reference: walk every call, build its method's names, and test
//! each term on them with a regex compiled per call (or a lower-cased substring test).

use super::*;
use crate::analysis::testutil::{Rng, random_events};
use crate::trace::{Action, Builder, ClockMode};

/// A dual-clock random trace whose methods have varied classes, names, signatures and files.
fn varied_trace(seed: u64) -> Trace {
    let events = random_events(seed, 3, 400);
    let mut b = Builder::new("search-test");
    b.clock = Some(ClockMode::Dual);
    let specs = [
        ("com.app.Main", "run", "()V", Some("Main.java")),
        (
            "com.app.Main",
            "onCreate",
            "(Landroid/os/Bundle;)V",
            Some("Main.java"),
        ),
        (
            "com.lib.Parser",
            "parse",
            "(Ljava/lang/String;)I",
            Some("Parser.kt"),
        ),
        ("com.lib.Parser$Inner", "<init>", "()V", None),
        (
            "java.util.HashMap",
            "get",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
            None,
        ),
        ("com.app.Run", "runLoop", "(I)V", Some("Run.java")),
    ];
    for (i, (c, n, s, f)) in specs.iter().enumerate() {
        b.add_method(4 * (i as u64 + 1), c, n, s, *f, None);
    }
    for (t, evs) in events.iter().enumerate() {
        let tid = b.add_thread(t as u64 + 1, &format!("t{t}"));
        let ev = b.events_mut(tid);
        for &(a, m, axis, cpu) in evs {
            ev.push(a, m, axis, Some(cpu));
        }
    }
    b.finish()
}

/// The reference: whether `text` matches the pattern of a term (as the grammar says).
fn ref_term(pattern: &str, is_regex: bool, text: &str) -> bool {
    if is_regex {
        Regex::new(&format!("(?i){pattern}"))
            .unwrap()
            .is_match(text)
    } else {
        text.to_lowercase().contains(&pattern.to_lowercase())
    }
}

/// Every matching call of `trace` for terms (field, negated, pattern, is_regex), in
/// (start, call) order.
fn reference(trace: &Trace, terms: &[(Field, bool, &str, bool)]) -> Vec<(CallRef, u64, u64)> {
    let mut out = Vec::new();
    for (ti, t) in trace.threads.iter().enumerate() {
        for (d, lane) in t.lanes.iter().enumerate() {
            for i in 0..lane.len() {
                let m = lane.method(i);
                let meth = &trace.methods[m.index()];
                let ok = terms.iter().all(|&(field, neg, pat, re)| {
                    let text = match field {
                        Field::Full => trace.method_full_name(m),
                        Field::Class => trace.str(meth.class).to_string(),
                        Field::Method => trace.str(meth.name).to_string(),
                        Field::Signature => trace.str(meth.signature).to_string(),
                        Field::File => meth
                            .source_file
                            .map_or(String::new(), |s| trace.str(s).to_string()),
                    };
                    ref_term(pat, re, &text) != neg
                });
                if ok {
                    let call = CallRef {
                        thread: ThreadId(ti as u32),
                        depth: d as u32,
                        index: i as u32,
                    };
                    out.push((call, lane.start(i), lane.end(i)));
                }
            }
        }
    }
    out.sort_by_key(|&(c, s, _)| (s, c));
    out
}

fn found(r: &SearchResult) -> Vec<(CallRef, u64, u64)> {
    r.hits.iter().map(|h| (h.call, h.start, h.end)).collect()
}

#[test]
fn parse_grammar() {
    let q = Query::parse(r#"  -class:/^com\.lib/ name:parse "sig:(I)V" file:  foo:bar "/a b/" "#)
        .unwrap();
    let got: Vec<_> = q
        .terms
        .iter()
        .map(|t| (t.field, t.negated, t.pattern.as_str(), t.is_regex))
        .collect();
    assert_eq!(
        got,
        vec![
            (Field::Class, true, r"^com\.lib", true),
            (Field::Method, false, "parse", false),
            (Field::Signature, false, "(I)V", false),
            // `file:` with nothing after it is no term; an unknown prefix is text.
            (Field::Full, false, "foo:bar", false),
            (Field::Full, false, "a b", true),
        ]
    );
    assert_eq!(
        Query::parse("\"open").err(),
        Some(QueryError::UnclosedQuote)
    );
    assert!(matches!(
        Query::parse("/a(/"),
        Err(QueryError::BadRegex { .. })
    ));
    assert!(Query::parse("   ").unwrap().is_empty());
    // A lone "-" and a lone "/" are plain text.
    let q = Query::parse("- /").unwrap();
    assert_eq!(q.terms.len(), 2);
    assert!(q.terms.iter().all(|t| !t.negated && !t.is_regex));
}

#[test]
fn search_equals_reference_on_many_queries() {
    type Terms = Vec<(Field, bool, &'static str, bool)>;
    let queries: Vec<(&str, Terms)> = vec![
        ("run", vec![(Field::Full, false, "run", false)]),
        ("RUN", vec![(Field::Full, false, "RUN", false)]),
        (
            "class:parser -name:/^<init>$/",
            vec![
                (Field::Class, false, "parser", false),
                (Field::Method, true, "^<init>$", true),
            ],
        ),
        (
            "/main\\.(run|oncreate)/ sig:()V",
            vec![
                (Field::Full, false, "main\\.(run|oncreate)", true),
                (Field::Signature, false, "()V", false),
            ],
        ),
        ("file:.java", vec![(Field::File, false, ".java", false)]),
        ("-file:/./", vec![(Field::File, true, ".", true)]),
        ("method:get", vec![(Field::Method, false, "get", false)]),
        (
            "nothing-matches-this",
            vec![(Field::Full, false, "nothing-matches-this", false)],
        ),
        ("", vec![]),
    ];
    for seed in 1..6 {
        let trace = varied_trace(seed);
        for (text, terms) in &queries {
            let q = Query::parse(text).unwrap();
            let r = search(&trace, None, &q, MAX_HITS);
            let want = reference(&trace, terms);
            assert_eq!(found(&r), want, "seed {seed} query {text:?}");
            assert_eq!(r.total, want.len() as u64);
            assert!(!r.truncated());
            // Durations on both clocks and the per-thread ticks agree with the lanes.
            for h in &r.hits {
                let lane = &trace.threads[h.call.thread.index()].lanes[h.call.depth as usize];
                let i = h.call.index as usize;
                assert_eq!(h.wall, Some(lane.dur(i)));
                assert_eq!(h.cpu, lane.cpu(i).map(|c| c.1));
                assert_eq!(h.method, lane.method(i));
            }
            // The minimap's density: every listed call counted once, in the bin of its start.
            assert_eq!(r.density.len(), DENSITY_BINS);
            assert_eq!(
                r.density.iter().map(|&n| n as usize).sum::<usize>(),
                want.len()
            );
            let (a, b) = trace.axis_range().unwrap();
            for &(_, s, _) in &want {
                let bin = ((s - a) as f64 / (b - a) as f64 * DENSITY_BINS as f64) as usize;
                assert!(r.density[bin.min(DENSITY_BINS - 1)] > 0);
            }
            for (ti, starts) in r.starts_by_thread.iter().enumerate() {
                let mut s: Vec<u64> = want
                    .iter()
                    .filter(|(c, _, _)| c.thread.index() == ti)
                    .map(|x| x.1)
                    .collect();
                s.sort_unstable();
                assert_eq!(starts, &s);
            }
        }
    }
}

#[test]
fn the_cap_keeps_the_count_exact_and_lists_a_subset() {
    let trace = varied_trace(7);
    let q = Query::parse("com").unwrap();
    let all = search(&trace, None, &q, MAX_HITS);
    let cap = all.hits.len() / 3;
    let some = search(&trace, None, &q, cap);
    assert_eq!(some.total, all.total);
    assert_eq!(some.hits.len(), cap);
    assert!(some.truncated());
    let every: std::collections::HashSet<_> = all.hits.iter().map(|h| h.call).collect();
    assert!(some.hits.iter().all(|h| every.contains(&h.call)));
    assert!(
        some.hits
            .windows(2)
            .all(|w| (w[0].start, w[0].call) <= (w[1].start, w[1].call))
    );
}

#[test]
fn sorted_order_is_a_total_order_by_each_column() {
    let trace = varied_trace(3);
    let r = search(&trace, None, &Query::parse("a").unwrap(), MAX_HITS);
    assert!(r.hits.len() > 10);
    let name = |h: &CallHit| trace.method_full_name(h.method);
    for col in [
        HitColumn::Method,
        HitColumn::Thread,
        HitColumn::Start,
        HitColumn::End,
        HitColumn::Wall,
        HitColumn::Cpu,
        HitColumn::Depth,
    ] {
        for asc in [true, false] {
            let order = sorted_order(&trace, &r, col, asc);
            let mut seen = order.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..r.hits.len() as u32).collect::<Vec<_>>());
            for w in order.windows(2) {
                let (a, b) = (&r.hits[w[0] as usize], &r.hits[w[1] as usize]);
                let ord = match col {
                    HitColumn::Method => name(a).cmp(&name(b)).then(a.method.cmp(&b.method)),
                    HitColumn::Thread => a.call.thread.cmp(&b.call.thread),
                    HitColumn::Start => a.start.cmp(&b.start),
                    HitColumn::End => a.end.cmp(&b.end),
                    HitColumn::Wall => a.wall.cmp(&b.wall),
                    HitColumn::Cpu => a.cpu.cmp(&b.cpu),
                    HitColumn::Depth => a.call.depth.cmp(&b.call.depth),
                };
                let ord = if asc { ord } else { ord.reverse() };
                assert_ne!(ord, std::cmp::Ordering::Greater, "{col:?} {asc}");
                if ord == std::cmp::Ordering::Equal {
                    assert!(w[0] < w[1], "ties keep the time order");
                }
            }
        }
    }
}

#[test]
fn thread_cpu_traces_have_no_wall_durations() {
    let trace = crate::analysis::testutil::simple_trace();
    let r = search(&trace, None, &Query::parse("foo").unwrap(), MAX_HITS);
    assert!(!r.hits.is_empty());
    assert!(r.hits.iter().all(|h| h.wall.is_none() && h.cpu.is_some()));
    // first_at_or_after wraps around.
    let last = r.hits.last().unwrap().start;
    assert_eq!(r.first_at_or_after(last + 1), Some(0));
    assert_eq!(r.first_at_or_after(0), Some(0));
}

#[test]
fn method_set_matches_per_method() {
    let mut rng = Rng::new(5);
    let mut b = Builder::new("t");
    let n = 200;
    for i in 0..n {
        let class = format!("c{}", rng.below(7));
        b.add_method(i, &class, &format!("m{i}"), "()V", None, None);
    }
    let t = b.add_thread(1, "main");
    b.events_mut(t).push(Action::Enter, MethodId(0), 0, None);
    let trace = b.finish();
    let set = Query::parse("class:c3").unwrap().method_set(&trace, None);
    let want: Vec<u32> = (0..n as u32)
        .filter(|&i| trace.str(trace.methods[i as usize].class) == "c3")
        .collect();
    let got: Vec<u32> = (0..n as u32)
        .filter(|&i| set.contains(MethodId(i)))
        .collect();
    assert_eq!(got, want);
    assert_eq!(set.len(), want.len());
    assert!(!set.contains(MethodId(10_000)));
}
