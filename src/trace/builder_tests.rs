//! Tests of [`super`]: nesting rules, lane sizes, the lane budget.

use super::*;

/// A wall-clock builder with methods 0..4 (`C0.m` …).
fn four_methods() -> Builder {
    let mut b = Builder::new("test");
    b.clock = Some(ClockMode::Wall);
    for i in 0..4 {
        b.add_method(i, &format!("C{i}"), "m", "()V", None, None);
    }
    b
}

fn build(evts: &[(Action, u32, u64)]) -> Trace {
    let mut b = four_methods();
    let t = b.add_thread(1, "main");
    for &(a, m, time) in evts {
        b.events_mut(t).push(a, MethodId(m), time, None);
    }
    b.finish()
}

fn calls(t: &Trace) -> Vec<(usize, u32, u64, u64, bool, bool)> {
    let mut out = vec![];
    for (d, lane) in t.threads[0].lanes.iter().enumerate() {
        for i in 0..lane.len() {
            let f = lane.flags(i);
            out.push((
                d,
                lane.method(i).0,
                lane.start(i),
                lane.end(i),
                f.synthesized_entry,
                f.unclosed,
            ));
        }
    }
    out
}

use Action::*;

#[test]
fn nesting_simple() {
    let t = build(&[
        (Enter, 0, 1),
        (Enter, 1, 2),
        (Exit, 1, 4),
        (Enter, 2, 5),
        (Exit, 2, 6),
        (Exit, 0, 9),
    ]);
    assert_eq!(
        calls(&t),
        vec![
            (0, 0, 1, 9, false, false),
            (1, 1, 2, 4, false, false),
            (1, 2, 5, 6, false, false)
        ]
    );
    let l0 = &t.threads[0].lanes[0];
    assert_eq!(l0.children(0, t.threads[0].lanes[1].len()), 0..2);
    assert_eq!(t.threads[0].axis_range, Some((1, 9)));
}

#[test]
fn unmatched_exits_adopt_earlier_calls() {
    // A() at 1..2, exit of B at 3 (unmatched), C() 4..5, exit of D at 6 (unmatched), E open from 7.
    let t = build(&[
        (Enter, 0, 1),
        (Exit, 0, 2),
        (Exit, 1, 3),
        (Enter, 2, 4),
        (Exit, 2, 5),
        (Unroll, 3, 6),
        (Enter, 0, 7),
        (Enter, 1, 8),
    ]);
    assert_eq!(
        calls(&t),
        vec![
            (0, 3, 1, 6, true, false),
            (0, 0, 7, 8, false, true),
            (1, 1, 1, 3, true, false),
            (1, 2, 4, 5, false, false),
            (1, 1, 8, 8, false, true),
            (2, 0, 1, 2, false, false),
        ]
    );
    let th = &t.threads[0];
    // D adopts B and C; B adopts A; the open A(7) has the open B(8).
    assert_eq!(th.lanes[0].children(0, th.lanes[1].len()), 0..2);
    assert_eq!(th.lanes[0].children(1, th.lanes[1].len()), 2..3);
    assert_eq!(th.lanes[1].children(0, th.lanes[2].len()), 0..1);
    assert_eq!(th.lanes[1].children(1, th.lanes[2].len()), 1..1);
}

#[test]
fn mismatched_exit_unwinds_with_diagnostic() {
    let t = build(&[(Enter, 0, 1), (Enter, 1, 2), (Exit, 3, 3), (Exit, 0, 5)]);
    assert_eq!(
        calls(&t),
        vec![(0, 0, 1, 5, false, false), (1, 1, 2, 5, false, false)]
    );
    let codes: Vec<_> = t.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, vec!["mismatched-exit", "exit-not-on-stack"]);
}

#[test]
fn u32_times_unwrap() {
    let mut b = Builder::new("test");
    b.clock = Some(ClockMode::Wall);
    b.add_method(0, "A", "m", "()V", None, None);
    let t = b.add_thread(1, "main");
    let ev = b.events_mut(t);
    ev.ops = vec![0, 1];
    ev.axis = Times::U32Wrapping(vec![u32::MAX - 10, 5]);
    let tr = b.finish();
    assert_eq!(tr.threads[0].lanes[0].dur(0), 16);
}

/// Every call of `t` as (thread, depth, method, start, end).
fn all_calls(t: &Trace) -> Vec<(usize, usize, u32, u64, u64)> {
    let mut out = vec![];
    for (ti, th) in t.threads.iter().enumerate() {
        for (d, lane) in th.lanes.iter().enumerate() {
            for i in 0..lane.len() {
                out.push((ti, d, lane.method(i).0, lane.start(i), lane.end(i)));
            }
        }
    }
    out
}

/// Thread 1: `chain` exits without entries (each synthesized caller one level above the
/// calls before it) around a few real calls; thread 2: three nested calls.
fn chain_trace(chain: u32) -> Builder {
    let mut b = four_methods();
    let t1 = b.add_thread(1, "chain");
    let t2 = b.add_thread(2, "short");
    let ev = b.events_mut(t1);
    ev.push(Enter, MethodId(1), 0, None);
    ev.push(Exit, MethodId(1), 1, None);
    for i in 0..chain {
        ev.push(Exit, MethodId(i % 4), 2 + u64::from(i), None);
    }
    let ev = b.events_mut(t2);
    for (a, m, time) in [
        (Enter, 0, 0),
        (Enter, 1, 1),
        (Enter, 2, 2),
        (Exit, 2, 3),
        (Exit, 1, 4),
        (Exit, 0, 5),
    ] {
        ev.push(a, MethodId(m), time, None);
    }
    b
}

#[test]
fn lane_budget_cuts_the_deepest_threads_to_a_common_level() {
    // 51 lanes on thread 1, 3 on thread 2: a budget of 10 keeps 7 + 3.
    let full = chain_trace(50).finish();
    assert_eq!(full.threads[0].lanes.len(), 51);
    assert!(
        full.diagnostics
            .iter()
            .all(|d| d.code != "nesting-too-deep")
    );
    let cut = chain_trace(50).finish_with_lane_budget(10);
    assert_eq!(cut.threads[0].lanes.len(), 7);
    assert_eq!(cut.threads[1].lanes.len(), 3);
    // The kept calls are the uncut trace's calls above the cut, unchanged.
    let expected: Vec<_> = all_calls(&full)
        .into_iter()
        .filter(|&(t, d, ..)| t == 1 || d < 7)
        .collect();
    assert_eq!(all_calls(&cut), expected);
    let d: Vec<_> = cut
        .diagnostics
        .iter()
        .filter(|d| d.code == "nesting-too-deep")
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].message
            .starts_with("thread 1: 44 calls nested 7 or more")
    );
    assert!(
        d[0].message
            .contains("deepest threads were cut to 7 levels")
    );
    // A budget that holds every lane changes nothing.
    assert_eq!(
        all_calls(&chain_trace(50).finish_with_lane_budget(54)),
        all_calls(&full)
    );
}

#[test]
fn lane_budget_also_allows_one_lane_per_32_calls() {
    // 51 + 3 lanes for 54 calls: a budget of 1 still keeps one lane per 32 calls (1) and
    // every thread's top lane.
    let cut = chain_trace(50).finish_with_lane_budget(1);
    assert_eq!(cut.threads[0].lanes.len(), 1);
    assert_eq!(cut.threads[1].lanes.len(), 1);
    // 2 000 exits: 2 004 calls allow 62 lanes: 59 + 3.
    let cut = chain_trace(2_000).finish_with_lane_budget(1);
    assert_eq!(cut.threads[0].lanes.len(), 59);
    assert_eq!(cut.threads[1].lanes.len(), 3);
}

#[test]
fn lane_caps_match_brute_force() {
    use crate::trace::nesting::lane_caps;
    let mut seed = 7u64;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for _ in 0..500 {
        let depths: Vec<usize> = (0..next(6)).map(|_| next(20) as usize).collect();
        let budget = next(60) as usize;
        let caps = lane_caps(&depths, budget);
        let total: usize = depths.iter().sum();
        // Brute force: the largest common level that fits, or nothing cut when all fit.
        let kept = |l: usize| depths.iter().map(|&d| d.min(l)).sum::<usize>();
        let level = (1..=20).rev().find(|&l| kept(l) <= budget).unwrap_or(1);
        let want: Vec<usize> = if total <= budget {
            depths.clone()
        } else {
            depths.iter().map(|&d| d.min(level)).collect()
        };
        assert_eq!(caps, want, "{depths:?} budget {budget}");
        // Within the budget unless the top lanes alone exceed it.
        let tops = depths.iter().filter(|&&d| d > 0).count();
        assert!(caps.iter().sum::<usize>() <= budget.max(tops));
    }
}

#[test]
fn large_threads_built_in_parallel_keep_their_places_among_small_ones() {
    // Threads of many calls are built on the workers, the rest in order on this thread: each
    // thread's lanes and diagnostics are those it has when built alone, in thread order.
    let thread_events = |raw: u64, calls: u64| {
        let mut ev = vec![(Enter, 1, 0)];
        for i in 0..calls {
            ev.push((Enter, 0, 2 * i + 1));
            ev.push((Exit, 0, 2 * i + 2));
        }
        // A mismatched exit: diagnostics of this thread.
        ev.push((Exit, 3, 2 * calls + 1));
        ev.push((Exit, 1, 2 * calls + 2 + raw));
        ev
    };
    let make = |threads: &[(u64, u64)]| {
        let mut b = four_methods();
        for &(raw, calls) in threads {
            let t = b.add_thread(raw, &format!("t{raw}"));
            for (a, m, time) in thread_events(raw, calls) {
                b.events_mut(t).push(a, MethodId(m), time, None);
            }
        }
        b.finish()
    };
    let all: Vec<(u64, u64)> = [3, 20_000, 5, 7, 17_000, 2]
        .into_iter()
        .enumerate()
        .map(|(i, calls)| (i as u64 + 1, calls))
        .collect();
    let whole = make(&all);
    let large: Vec<bool> = (whole.threads.iter())
        .map(|t| t.call_count() >= PARALLEL_THREAD_CALLS)
        .collect();
    assert_eq!(large, [false, true, false, false, true, false]);
    let (mut calls, mut diags) = (Vec::new(), Vec::new());
    for (i, &t) in all.iter().enumerate() {
        let alone = make(&[t]);
        calls.extend(
            all_calls(&alone)
                .into_iter()
                .map(|c| (i, c.1, c.2, c.3, c.4)),
        );
        diags.extend(alone.diagnostics.iter().map(|d| format!("{d:?}")));
    }
    assert_eq!(all_calls(&whole), calls);
    let got: Vec<String> = whole.diagnostics.iter().map(|d| format!("{d:?}")).collect();
    assert_eq!(got, diags);
    assert!(diags.len() >= all.len());
}

/// A block: method, start, end, CPU start, CPU end.
type TestBlock = (u32, u64, u64, u64, u64);

/// Threads given as blocks ([`Builder::push_blocks`]) get the lanes, time ranges, event counts
/// and diagnostics of the same blocks pushed as an enter and an exit each, times running
/// backwards on either clock included, beside threads of nested events (whose lanes share the
/// budget) and threads without blocks.
#[test]
fn blocks_make_what_their_events_make() {
    let mut rng = crate::testutil::Rng::new(23);
    for round in 0..40 {
        let cpu = round % 2 == 0;
        // Per thread: blocks, or None for nested events.
        let threads: Vec<Option<Vec<TestBlock>>> = (0..1 + rng.below(6))
            .map(|_| {
                if rng.below(4) == 0 {
                    return None;
                }
                let (mut t, mut c) = (rng.below(50), rng.below(50));
                let blocks = (0..rng.below(8))
                    .map(|_| {
                        // Mostly forward; now and then a time before the last.
                        let mut step = |x: &mut u64| {
                            *x = if rng.below(6) == 0 {
                                x.saturating_sub(rng.below(20))
                            } else {
                                *x + rng.below(20)
                            };
                            *x
                        };
                        let (s, cs) = (step(&mut t), step(&mut c));
                        let (e, ce) = (step(&mut t), step(&mut c));
                        (rng.below(4) as u32, s, e, cs, ce)
                    })
                    .collect();
                Some(blocks)
            })
            .collect();
        let make = |as_blocks: bool| {
            let mut b = four_methods();
            b.clock = Some(if cpu {
                ClockMode::Dual
            } else {
                ClockMode::Wall
            });
            for (i, thread) in threads.iter().enumerate() {
                let t = b.add_thread(10 + i as u64, "t");
                let Some(blocks) = thread else {
                    let ev = b.events_mut(t);
                    for (a, m, time) in [(Enter, 0, 1), (Enter, 1, 2), (Exit, 1, 3), (Exit, 0, 4)] {
                        ev.push(a, MethodId(m), time, cpu.then_some(time));
                    }
                    continue;
                };
                if as_blocks {
                    let blocks = blocks.iter().map(|&(m, s, e, cs, ce)| Block {
                        method: MethodId(m),
                        start: s,
                        end: e,
                        cpu: (cs, ce),
                    });
                    b.push_blocks(t, cpu, blocks);
                } else {
                    let ev = b.events_mut(t);
                    for &(m, s, e, cs, ce) in blocks {
                        ev.push(Enter, MethodId(m), s, cpu.then_some(cs));
                        ev.push(Exit, MethodId(m), e, cpu.then_some(ce));
                    }
                }
            }
            b.finish_with_lane_budget(2)
        };
        let (want, got) = (make(false), make(true));
        let view = |t: &Trace| {
            let threads: Vec<_> = (t.threads.iter())
                .map(|th| {
                    let calls: Vec<_> = (th.lanes.iter().enumerate())
                        .flat_map(|(d, lane)| (0..lane.len()).map(move |i| (d, lane.call(i))))
                        .map(|(d, c)| format!("{d} {c:?}"))
                        .collect();
                    (calls, th.axis_range, th.cpu_range, th.event_count)
                })
                .collect();
            let diags: Vec<_> = (t.diagnostics.iter())
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            (threads, diags)
        };
        assert_eq!(view(&got), view(&want), "round {round}");
    }
}

#[test]
fn time_drains_read_as_the_time_reader_reads_the_column() {
    let raw = vec![5u32, 3, u32::MAX - 1, 2, 7];
    let mut expected = Vec::new();
    let mut r = TimeReader::default();
    for &t in &raw {
        expected.push(r.next_u32(t));
    }
    let mut d = TimeDrain::new(Times::U32Wrapping(raw));
    let mut r = TimeReader::default();
    let got: Vec<u64> = (0..5).map(|_| d.next(&mut r)).collect();
    assert_eq!(got, expected);
    assert_eq!(d.next(&mut r), *expected.last().unwrap(), "past the end");
}
