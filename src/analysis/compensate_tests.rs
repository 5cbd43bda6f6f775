//! The compensation against a slow reference: the events themselves moved back by k·o (clamped),
//! then built into a trace the ordinary way.

use super::*;
use crate::analysis::profile::profile;
use crate::analysis::testutil::{Events, random_events, trace_from_events};
use crate::trace::builder::PARALLEL_THREAD_CALLS;
use crate::trace::{Action, Clock, MethodId};
use proptest::prelude::*;

/// `round(k · o · tps / 1e9)`, written out.
fn offset(k: usize, o_ns: u64, tps: u64) -> u64 {
    ((k as u128 * o_ns as u128 * tps as u128 + 500_000_000) / 1_000_000_000) as u64
}

/// Every thread's k-th event moved back by off(k) on both clocks, clamped to stay
/// non-decreasing.
fn compensated_events(threads: &[Events], o_ns: u64) -> Vec<Events> {
    threads
        .iter()
        .map(|ev| {
            let (mut pa, mut pc) = (0u64, 0u64);
            ev.iter()
                .enumerate()
                .map(|(k, &(action, m, axis, cpu))| {
                    // In ns: the compensated trace's ticks are 1000 times finer.
                    let off = offset(k, o_ns, 1_000_000_000);
                    pa = (axis * 1000).saturating_sub(off).max(pa);
                    pc = (cpu * 1000).saturating_sub(off).max(pc);
                    (action, m, pa, pc)
                })
                .collect()
        })
        .collect()
}

/// Every call of every thread with its first child, and the thread ranges.
type Flat = Vec<(
    Vec<Vec<(Call, usize)>>,
    Option<(u64, u64)>,
    Option<(u64, u64)>,
)>;

fn flatten(t: &Trace) -> Flat {
    t.threads
        .iter()
        .map(|th| {
            let lanes = th
                .lanes
                .iter()
                .map(|l| {
                    (0..l.len())
                        .map(|i| (l.call(i), l.first_child(i)))
                        .collect()
                })
                .collect();
            (lanes, th.axis_range, th.cpu_range)
        })
        .collect()
}

fn check_against_reference(seed: u64, threads: usize, events: usize, o_ns: u64) {
    let ev = random_events(seed, threads, events);
    let measured = trace_from_events(&ev);
    let (fast, c) = compensate(&measured, o_ns, OverheadSource::Given);
    let slow = trace_from_events(&compensated_events(&ev, o_ns));
    assert_eq!(flatten(&fast), flatten(&slow), "seed {seed} o {o_ns}");
    assert_eq!((c.overhead_ns, c.approximate_threads), (o_ns, 0));
    assert_eq!((c.tick_factor, fast.ticks_per_sec), (1000, 1_000_000_000));
    for clock in [Clock::Cpu, Clock::Wall] {
        assert_eq!(profile(&fast, clock), profile(&slow, clock));
    }
    // Compensated thread by thread in the trace itself, the same trace.
    let (owned, owned_c) = compensate_owned(measured, o_ns, OverheadSource::Given);
    assert_eq!(
        flatten(&owned),
        flatten(&fast),
        "owned: seed {seed} o {o_ns}"
    );
    assert_eq!(owned_c, c);
    assert_eq!(owned.ticks_per_sec, fast.ticks_per_sec);
    assert_eq!(owned.diagnostics.len(), fast.diagnostics.len());
}

#[test]
fn offsets_step_exactly() {
    for (o, tps) in [
        (0, 1_000_000),
        (1371, 1_000_000),
        (2000, 1_000_000),
        (999_999, 1_000_000),
        (761, 3_579_545),
        (54_855, 1_000_000_000),
        (1, 1),
        (MAX_OVERHEAD_NS, u64::MAX),
    ] {
        let off = Offsets::new(o, tps);
        let mut st = off.stepper();
        for k in 0..5000u64 {
            let want = ((k as u128 * o as u128 * tps as u128 + 500_000_000) / 1_000_000_000)
                .min(u64::MAX as u128) as u64;
            assert_eq!(off.at(k), want, "o {o} tps {tps} k {k}");
            assert_eq!(st.take(), want, "o {o} tps {tps} k {k}");
        }
    }
}

/// A leaf loses o, its parent (2d + 1)·o inclusive and (children + 1)·o exclusive.
#[test]
fn parent_and_leaves_lose_what_the_model_says() {
    let (a, b) = (MethodId(0), MethodId(1));
    // True times: A [0, 100], B [10, 20] and [50, 60]; o = 3 µs per record.
    let truth = [(0, a), (10, b), (20, b), (50, b), (60, b), (100, a)];
    let acts = [
        Action::Enter,
        Action::Enter,
        Action::Exit,
        Action::Enter,
        Action::Exit,
        Action::Exit,
    ];
    let measured: Events = truth
        .iter()
        .zip(acts)
        .enumerate()
        .map(|(k, (&(t, m), act))| (act, m, t + 3 * k as u64, t + 3 * k as u64))
        .collect();
    let trace = trace_from_events(&[measured]);
    let p = profile(&trace, Clock::Cpu);
    assert_eq!(p.method(a).inclusive, 100 + 5 * 3);
    assert_eq!(p.method(a).exclusive, 80 + 3 * 3);
    assert_eq!(p.method(b).inclusive, 20 + 2 * 3);
    let (c, how) = compensate(&trace, 3000, OverheadSource::Given);
    for clock in [Clock::Cpu, Clock::Wall] {
        let p = in_measured_ticks(profile(&c, clock), how.tick_factor);
        assert_eq!(p.method(a).inclusive, 100);
        assert_eq!(p.method(a).exclusive, 80);
        assert_eq!(p.method(b).inclusive, 20);
        assert_eq!(p.total_time, 100);
    }
    // B's measured 26 µs is not mostly tracing (20 true); a smaller o flags nothing either,
    // and an o that eats B's whole time flags it.
    let flags = mostly_tracing(&p, &profile(&c, Clock::Cpu), 1000);
    assert_eq!(flags, vec![false, false, false, false, false, false]);
    let (eaten, _) = compensate(&trace, 12_000, OverheadSource::Given);
    let flags = mostly_tracing(&p, &profile(&eaten, Clock::Cpu), 1000);
    assert!(flags[b.index()] && flags[a.index()], "{flags:?}");
}

#[test]
fn matches_the_reference_on_random_traces() {
    for seed in 0..30 {
        for o in [0, 1000, 1371, 2500, 40_000] {
            check_against_reference(seed, 3, 300, o);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn matches_the_reference(seed in any::<u64>(), threads in 1usize..4, events in 0usize..200,
                             o_ns in prop_oneof![0u64..3000, Just(MAX_OVERHEAD_NS)]) {
        check_against_reference(seed, threads, events, o_ns);
    }
}

/// A dropped exit leaves a record no call accounts for: the thread is approximate, with a
/// diagnostic, and its times still nest.
#[test]
fn records_without_calls_make_the_thread_approximate() {
    let (a, b, c) = (MethodId(0), MethodId(1), MethodId(2));
    let ev: Events = vec![
        (Action::Enter, a, 0, 0),
        (Action::Exit, c, 5, 5),
        (Action::Enter, b, 10, 10),
        (Action::Exit, b, 20, 20),
        (Action::Exit, a, 30, 30),
    ];
    let (t, c) = compensate(&trace_from_events(&[ev]), 1000, OverheadSource::Key);
    assert_eq!(c.approximate_threads, 1);
    assert!(
        t.diagnostics
            .iter()
            .any(|d| d.code == "compensation-approximate")
    );
    let l = &t.threads[0].lanes;
    assert!(l[0].start(0) <= l[1].start(0) && l[1].end(0) <= l[0].end(0));
}

/// A rebuilt axis (thread-CPU-only traces) is kept; the CPU times are compensated.
#[test]
fn a_rebuilt_axis_is_kept() {
    let ev = random_events(7, 2, 200);
    let mut measured = trace_from_events(&ev);
    measured.axis_synthesized = true;
    let (t, _) = compensate(&measured, 1000, OverheadSource::Given);
    let slow = trace_from_events(&compensated_events(&ev, 1000));
    for ((th, m), s) in t.threads.iter().zip(&measured.threads).zip(&slow.threads) {
        let (a, b) = m.axis_range.unwrap();
        assert_eq!(th.axis_range, Some((a * 1000, b * 1000)));
        assert_eq!(th.cpu_range, s.cpu_range);
        for (d, l) in th.lanes.iter().enumerate() {
            for i in 0..l.len() {
                let ml = &m.lanes[d];
                assert_eq!(
                    (l.start(i), l.dur(i)),
                    (ml.start(i) * 1000, ml.dur(i) * 1000)
                );
                assert_eq!(l.cpu(i), s.lanes[d].cpu(i));
            }
        }
    }
}

#[test]
fn large_threads_rewritten_in_parallel_keep_their_places_among_small_ones() {
    // Threads of very different sizes, compensated in parallel: each rewritten thread must land
    // in its own place.
    let small = random_events(7, 6, 60);
    let large = random_events(8, 3, 50_000);
    let ev: Vec<Events> = [&small[0], &large[0], &small[1], &small[2], &large[1]]
        .into_iter()
        .chain([&small[3], &large[2], &small[4], &small[5]])
        .cloned()
        .collect();
    let measured = trace_from_events(&ev);
    let is_large: Vec<bool> = (measured.threads.iter())
        .map(|t| t.call_count() >= PARALLEL_THREAD_CALLS)
        .collect();
    assert_eq!(
        is_large,
        [false, true, false, false, true, false, true, false, false]
    );
    let (fast, _) = compensate(&measured, 700, OverheadSource::Given);
    let slow = trace_from_events(&compensated_events(&ev, 700));
    assert_eq!(flatten(&fast), flatten(&slow));
    let ids = |t: &Trace| t.threads.iter().map(|t| t.raw_id).collect::<Vec<_>>();
    assert_eq!(ids(&fast), ids(&measured));
}

/// The measured times read back as the profile had them, in 32 bits while every time fits and
/// in 64 once one does not, and flag the same methods as the profile would.
#[test]
fn measured_times_read_back_narrow_or_wide() {
    use crate::analysis::profile::{EdgeLists, MethodProfile, Profile};
    for top in [
        0u64,
        1000,
        u64::from(u32::MAX),
        u64::from(u32::MAX) + 1,
        u64::MAX,
    ] {
        let methods: Vec<MethodProfile> = (0..50u64)
            .map(|i| MethodProfile {
                inclusive: top.saturating_sub(i * 7),
                exclusive: (top / 3).saturating_sub(i),
                ..MethodProfile::EMPTY
            })
            .collect();
        let profile = Profile {
            clock: Clock::Wall,
            total_time: top,
            methods: methods.clone(),
            toplevel: MethodProfile::EMPTY,
            edge_lists: EdgeLists::default(),
        };
        let measured = ClockTimes::of(profile.clone());
        assert_eq!(measured.len(), methods.len());
        for (i, m) in methods.iter().enumerate() {
            assert_eq!(
                measured.get(MethodId(i as u32)),
                [m.inclusive, m.exclusive],
                "{top}"
            );
        }
        let compensated = Profile {
            // Every other method kept a quarter of its time: mostly tracing.
            methods: (methods.iter().enumerate())
                .map(|(i, m)| MethodProfile {
                    inclusive: if i % 2 == 0 {
                        m.inclusive / 4
                    } else {
                        m.inclusive
                    },
                    ..m.clone()
                })
                .collect(),
            ..profile
        };
        let want = flag_mostly_tracing(methods.iter().map(|m| m.inclusive), &compensated, 1);
        assert_eq!(measured.mostly_tracing(&compensated, 1), want);
        assert_eq!(want.iter().any(|&f| f), top > 0, "{top}");
    }
}
