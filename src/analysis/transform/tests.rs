//! Oracle tests: each transform against a slow reference that rewrites the enter/exit event
//! list and builds a new trace through the public `Builder`, on random traces; plus the nesting
//! invariants on random traces with unmatched exits and open calls.

use super::rewrite::{Rule, rewrite};
use super::*;
use crate::analysis::profile::profile;
use crate::analysis::testutil::{Events, Rng, random_trace, simple_trace, trace_from_events};
use crate::trace::{Action, Clock, Lane};

const METHODS: usize = 6;

/// Random well-nested events (every entry exited, no unmatched exit) over six methods, so that
/// a trace rebuilt from rewritten events has the same shape rules as the original.
fn clean_events(seed: u64, threads: usize, events: usize) -> Vec<Events> {
    let mut rng = Rng::new(seed);
    (0..threads)
        .map(|_| {
            let mut ev = Events::new();
            let mut stack: Vec<MethodId> = Vec::new();
            let (mut axis, mut cpu) = (rng.below(50), rng.below(10));
            for k in 0..events {
                let step = rng.below(6);
                axis += step;
                cpu += rng.below(step + 1) + rng.below(2);
                let closing = k + stack.len() >= events;
                if !closing && (stack.is_empty() || (stack.len() < 10 && rng.below(2) == 0)) {
                    let m = MethodId(rng.below(METHODS as u64) as u32);
                    stack.push(m);
                    ev.push((Action::Enter, m, axis, cpu));
                } else if let Some(m) = stack.pop() {
                    ev.push((Action::Exit, m, axis, cpu));
                }
            }
            while let Some(m) = stack.pop() {
                axis += 1;
                ev.push((Action::Exit, m, axis, cpu));
            }
            ev
        })
        .collect()
}

/// The reference: the rule applied to one thread's event list; returns the kept events and the
/// axis and CPU time cut out.
fn reference_events(ev: &Events, rule: &Rule) -> (Events, u64, u64) {
    let mut out = Events::new();
    // Per open input call: its method and whether its events are kept.
    let mut stack: Vec<(MethodId, bool)> = Vec::new();
    let (mut cut_axis, mut cut_cpu) = (0u64, 0u64);
    // The open dropped call's depth and start times.
    let mut cutting: Option<(usize, u64, u64)> = None;
    for &(a, m, axis, cpu) in ev {
        let mi = m.index();
        if a == Action::Enter {
            let kept = match rule {
                Rule::Merge(set) => !set[mi],
                Rule::Focus(set) => {
                    set[mi]
                        || stack
                            .iter()
                            .any(|&(x, k)| k && matches!(rule, Rule::Focus(s) if s[x.index()]))
                }
                Rule::FocusPath(path) => {
                    let p: Vec<MethodId> = stack.iter().map(|f| f.0).chain([m]).collect();
                    p.len() >= path.len() && (0..path.len()).all(|k| path[k][p[k].index()])
                }
                Rule::Collapse { methods, direct } => {
                    let inside = if *direct {
                        stack.iter().rev().find(|f| f.1).map(|f| f.0) == Some(m)
                    } else {
                        stack.iter().any(|&(x, k)| k && x == m)
                    };
                    !(methods[mi] && inside)
                }
                Rule::Drop(set) => {
                    if cutting.is_none() && set[mi] {
                        cutting = Some((stack.len(), axis, cpu));
                    }
                    cutting.is_none()
                }
            };
            stack.push((m, kept));
            if kept {
                out.push((a, m, axis - cut_axis, cpu - cut_cpu));
            }
        } else {
            let (_, kept) = stack.pop().expect("clean events");
            if kept {
                out.push((a, m, axis - cut_axis, cpu - cut_cpu));
            }
            if let Some((d, sa, sc)) = cutting
                && d == stack.len()
            {
                cut_axis += axis - sa;
                cut_cpu += cpu - sc;
                cutting = None;
            }
        }
    }
    (out, cut_axis, cut_cpu)
}

/// Lane contents, call by call, with first children.
fn lanes_of(lanes: &[Lane]) -> Vec<Vec<(crate::trace::Call, usize)>> {
    lanes
        .iter()
        .map(|l| {
            (0..l.len())
                .map(|i| (l.call(i), l.first_child(i)))
                .collect()
        })
        .collect()
}

fn mask(rng: &mut Rng) -> Vec<bool> {
    let mut m: Vec<bool> = (0..METHODS).map(|_| rng.below(3) == 0).collect();
    m[rng.below(METHODS as u64) as usize] = true;
    m
}

fn random_rule(rng: &mut Rng) -> Rule {
    match rng.below(6) {
        0 => Rule::Merge(mask(rng)),
        1 => Rule::Focus(mask(rng)),
        2 => Rule::FocusPath((0..1 + rng.below(3)).map(|_| mask(rng)).collect()),
        3 => Rule::Collapse {
            methods: mask(rng),
            direct: false,
        },
        4 => Rule::Collapse {
            methods: mask(rng),
            direct: true,
        },
        _ => Rule::Drop(mask(rng)),
    }
}

#[test]
fn each_rule_matches_the_event_rewrite() {
    let mut rng = Rng::new(99);
    for seed in 0..300 {
        let events = clean_events(seed, 3, 300);
        let trace = trace_from_events(&events);
        let rule = random_rule(&mut rng);
        let fast = rewrite(&trace, &rule);
        let mut rewritten = Vec::new();
        let mut cuts = Vec::new();
        for ev in &events {
            let (e, ca, cc) = reference_events(ev, &rule);
            rewritten.push(e);
            cuts.push((ca, cc));
        }
        let mut slow = trace_from_events(&rewritten);
        // A thread keeps its extent less the time cut out of it.
        for ((t, orig), (ca, cc)) in slow.threads.iter_mut().zip(&trace.threads).zip(&cuts) {
            t.axis_range = orig.axis_range.map(|(a, b)| (a, b - ca));
            t.cpu_range = orig.cpu_range.map(|(a, b)| (a, b - cc));
        }
        for (f, s) in fast.threads.iter().zip(&slow.threads) {
            check_thread(f).unwrap_or_else(|e| panic!("seed {seed} {rule:?}: {e}"));
            assert_eq!(
                lanes_of(&f.lanes),
                lanes_of(&s.lanes),
                "seed {seed} {rule:?}"
            );
            assert_eq!((f.axis_range, f.cpu_range), (s.axis_range, s.cpu_range));
        }
        for clock in [Clock::Cpu, Clock::Wall] {
            assert_eq!(
                profile(&fast, clock),
                profile(&slow, clock),
                "seed {seed} {rule:?}"
            );
        }
    }
}

/// Traces with unmatched exits, exits by exception and open calls: every rule keeps the lanes
/// well nested, keeps kept calls' flags, and only a drop changes times.
#[test]
fn rules_keep_nesting_on_traces_with_flags() {
    let mut rng = Rng::new(5);
    for seed in 0..150 {
        let trace = random_trace(seed, 3, 400);
        for t in &trace.threads {
            check_thread(t).unwrap();
        }
        let rule = random_rule(&mut rng);
        let out = rewrite(&trace, &rule);
        for (o, t) in out.threads.iter().zip(&trace.threads) {
            check_thread(o).unwrap_or_else(|e| panic!("seed {seed} {rule:?}: {e}"));
            assert!(o.call_count() <= t.call_count());
            if !matches!(rule, Rule::Drop(_)) {
                assert_eq!(o.axis_range, t.axis_range);
                // Every kept call is an original call, times and flags included.
                let mut orig: Vec<_> = t
                    .lanes
                    .iter()
                    .flat_map(|l| (0..l.len()).map(|i| l.call(i)))
                    .collect();
                orig.sort_by_key(|c| (c.start, c.dur, c.method));
                for l in &o.lanes {
                    for i in 0..l.len() {
                        let c = l.call(i);
                        assert!(
                            orig.binary_search_by_key(&(c.start, c.dur, c.method), |c| (
                                c.start, c.dur, c.method
                            ))
                            .is_ok()
                        );
                    }
                }
            }
        }
    }
}

/// A stack applies in order: merge a then merge b is merge {a, b}; transforms survive a JSON
/// round trip and their command-line spelling.
#[test]
fn stacks_compose_and_round_trip() {
    let trace = random_trace(3, 2, 500);
    let (a, b) = ("pkg.C0.m0".to_string(), "pkg.C1.m4".to_string());
    let stack = vec![
        Transform::Merge { method: a.clone() },
        Transform::Merge { method: b.clone() },
    ];
    let both = apply(&trace, &stack).unwrap();
    let set: Vec<bool> = (0..METHODS).map(|i| i == 0 || i == 4).collect();
    let once = rewrite(&trace, &Rule::Merge(set));
    for (x, y) in both.threads.iter().zip(&once.threads) {
        assert_eq!(lanes_of(&x.lanes), lanes_of(&y.lanes));
    }
    let all = vec![
        Transform::Merge { method: a.clone() },
        Transform::Focus {
            method: "pkg.C1.*".into(),
        },
        Transform::FocusSubtree {
            path: vec![a.clone(), b.clone()],
        },
        Transform::CollapseRecursion { method: a.clone() },
        Transform::CollapseDirectRecursion {
            method: "pkg.C0.m0 ()V".into(),
        },
        Transform::Drop { method: b.clone() },
        Transform::MergePackage {
            globs: vec!["pkg.C2.*".into(), "pkg.C1".into()],
        },
        Transform::OnlyMyCode {
            globs: vec!["pkg.C0.*".into()],
        },
    ];
    let json = serde_json::to_string(&all).unwrap();
    assert!(json.contains(r#""kind":"focus-subtree""#), "{json}");
    assert_eq!(serde_json::from_str::<Vec<Transform>>(&json).unwrap(), all);
    for t in &all {
        assert_eq!(&Transform::parse(&t.spec()).unwrap(), t);
        apply_one(&trace, t).unwrap();
    }
    // The stack applied to a trace that is used up (each thread's calls freed as its rewritten
    // thread is made) is the same trace.
    let borrowed = apply(&trace, &all).unwrap();
    let owned = apply_owned(trace.clone(), &all).unwrap();
    assert_eq!(owned.threads.len(), borrowed.threads.len());
    for (x, y) in owned.threads.iter().zip(&borrowed.threads) {
        assert_eq!(lanes_of(&x.lanes), lanes_of(&y.lanes));
        assert_eq!(
            (x.raw_id, x.axis_range, x.cpu_range),
            (y.raw_id, y.axis_range, y.cpu_range)
        );
    }
    assert_eq!(owned.methods, borrowed.methods);
    assert!(matches!(
        apply_one(
            &trace,
            &Transform::Merge {
                method: "pkg.Nope.x".into()
            }
        ),
        Err(TransformError::NoMethod { .. })
    ));
    assert!(Transform::parse("merge").is_err());
    assert!(Transform::parse("frobnicate:a.b").is_err());
    assert!(Transform::parse("focus-subtree:a.b>>c.d").is_err());
}

/// dmtracedump's simple trace by hand: merging B.foo gives its self time to A.main; dropping
/// it shortens A.main and the thread.
#[test]
fn merge_and_drop_on_the_simple_trace() {
    let trace = simple_trace();
    let id = |n: &str| {
        (0..trace.methods.len())
            .map(|i| MethodId(i as u32))
            .find(|&m| trace.method_short_name(m) == n)
            .unwrap()
    };
    let (main, foo, bar) = (id("A.main"), id("B.foo"), id("C.bar"));
    let before = profile(&trace, Clock::Cpu);
    let merged = apply_one(
        &trace,
        &Transform::Merge {
            method: "B.foo".into(),
        },
    )
    .unwrap();
    let after = profile(&merged, Clock::Cpu);
    assert_eq!(after.method(foo).total_calls(), 0);
    assert_eq!(
        after.method(main).exclusive,
        before.method(main).exclusive + before.method(foo).exclusive
    );
    assert_eq!(after.method(bar), &{
        let mut b = after.method(bar).clone();
        b.exclusive = before.method(bar).exclusive;
        b
    });
    assert_eq!(after.total_time, before.total_time);
    // B.foo runs 2..17 in A.main 0..26 on thread 1: dropping it leaves A.main 11 long.
    let dropped = apply_one(
        &trace,
        &Transform::Drop {
            method: "B.foo".into(),
        },
    )
    .unwrap();
    let p = profile(&dropped, Clock::Cpu);
    assert_eq!(p.method(main).inclusive, 26 - 15);
    assert_eq!(p.method(foo).total_calls(), 0);
    assert_eq!(p.total_time, before.total_time - 15);
}

/// Renaming follows method ids: with methods 0 and 1 swapping names, a merge of method 0 named
/// the old way names it the new way, and gives the same lanes on the renamed trace.
#[test]
fn patterns_follow_a_rename() {
    let from = random_trace(11, 2, 300);
    let mut to = from.clone();
    let methods = std::sync::Arc::make_mut(&mut to.methods);
    let (a, b) = (methods[0].clone(), methods[1].clone());
    (methods[0].class, methods[0].name) = (b.class, b.name);
    (methods[1].class, methods[1].name) = (a.class, a.name);
    let stack = vec![
        Transform::Merge {
            method: "pkg.C0.m0".into(),
        },
        Transform::FocusSubtree {
            path: vec!["pkg.C1.m1 ()V".into(), "pkg.C2.*".into()],
        },
        Transform::MergePackage {
            globs: vec!["pkg.C0".into()],
        },
    ];
    let renamed = rename_patterns(&stack, &from, &to);
    assert_eq!(
        renamed,
        vec![
            Transform::Merge {
                method: "pkg.C1.m1".into()
            },
            Transform::FocusSubtree {
                path: vec!["pkg.C0.m0 ()V".into(), "pkg.C2.*".into()]
            },
            Transform::MergePackage {
                globs: vec!["pkg.C0".into()]
            },
        ]
    );
    let x = apply(&from, &stack[..1]).unwrap();
    let y = apply(&to, &renamed[..1]).unwrap();
    for (p, q) in x.threads.iter().zip(&y.threads) {
        assert_eq!(lanes_of(&p.lanes), lanes_of(&q.lanes));
    }
}

#[test]
fn an_empty_call_path_is_an_error_not_a_panic() {
    // Sessions are JSON written by anyone: `{"kind": "focus-subtree", "path": []}` parses.
    let trace = random_trace(3, 2, 50);
    let t: Transform = serde_json::from_str(r#"{"kind": "focus-subtree", "path": []}"#).unwrap();
    let err = apply(&trace, &[t]).unwrap_err();
    assert!(matches!(err, TransformError::Syntax { .. }), "{err:?}");
    assert!(err.to_string().contains("call path"), "{err}");
    assert!(Transform::parse("focus-subtree:").is_err());
}
