use super::*;
use crate::analysis::profile::profile;
use crate::analysis::testutil::Rng;
use crate::trace::{Builder, ClockMode};

const METHODS: u32 = 7;

/// One thread's random events: ops and the times on each clock.
struct RandomEvents {
    ops: Vec<u32>,
    axis: Vec<u64>,
    cpu: Vec<u64>,
}

/// `n` random events: unmatched exits at the start and in the middle, exits of methods below
/// the top and not on the stack, unrolls, deep recursion, times that start near the 32-bit
/// limit now and then (so that they wrap) and times that run backwards.
fn random_events(rng: &mut Rng, n: usize) -> RandomEvents {
    let mut events = RandomEvents {
        ops: Vec::with_capacity(n),
        axis: Vec::new(),
        cpu: Vec::new(),
    };
    let mut stack: Vec<u32> = Vec::new();
    let near_wrap = rng.below(3) == 0;
    let mut axis: u64 = if near_wrap {
        u32::MAX as u64 - 300
    } else {
        rng.below(100)
    };
    let mut cpu: u64 = if near_wrap {
        u32::MAX as u64 - 200
    } else {
        rng.below(50)
    };
    for _ in 0..n {
        let m = rng.below(METHODS as u64) as u32;
        let (method, action) = match rng.below(20) {
            0 => (m, 1),      // exit of any method: unmatched, below or absent
            1 => (m, 2),      // unroll of any method
            2..=10 => (m, 0), // enter
            _ => match stack.last() {
                Some(&top) => (top, 1 + rng.below(2) as u32),
                None => (m, 0),
            },
        };
        match action {
            0 => stack.push(method),
            _ => {
                if let Some(p) = stack.iter().rposition(|&x| x == method) {
                    stack.truncate(p);
                }
            }
        }
        events.ops.push(Op::encode(method, action));
        let step = rng.below(7);
        axis += step;
        cpu += rng.below(step + 1);
        // Now and then a time runs backwards.
        let mut back = |x: u64| {
            if rng.below(40) == 0 {
                x.saturating_sub(5)
            } else {
                x
            }
        };
        let (a, c) = (back(axis), back(cpu));
        events.axis.push(a);
        events.cpu.push(c);
    }
    events
}

/// A random trace with every kind of damage the builder tolerates ([`random_events`]), an
/// empty thread and, rarely, a thread whose time columns do not fit its events.
fn random_builder(seed: u64) -> Builder {
    let mut rng = Rng::new(seed);
    let mode = [ClockMode::Dual, ClockMode::ThreadCpu, ClockMode::Wall][seed as usize % 3];
    let mut b = Builder::new("random");
    b.clock = Some(mode);
    for i in 0..METHODS as u64 {
        let class = format!("C{}", i % 3);
        b.add_method(4 * i, &class, &format!("m{i}"), "()V", None, None);
    }
    let threads = 1 + rng.below(5) as usize;
    for t in 0..threads {
        let id = b.add_thread(t as u64 + 1, &format!("t{t}"));
        let n = match rng.below(8) {
            0 => 0,
            1 => 1,
            _ => rng.below(400) as usize,
        };
        let events = random_events(&mut rng, n);
        let wrap = |v: &[u64]| Times::U32Wrapping(v.iter().map(|&x| x as u32).collect());
        let ev = b.events_mut(id);
        ev.ops = events.ops;
        match mode {
            ClockMode::Dual => {
                ev.axis = wrap(&events.axis);
                ev.cpu = Some(wrap(&events.cpu));
            }
            ClockMode::ThreadCpu => {
                ev.axis = Times::U64(events.axis);
                ev.cpu = Some(wrap(&events.cpu));
            }
            ClockMode::Wall => ev.axis = wrap(&events.axis),
        }
        // Rarely, a reader bug: columns that do not fit the events.
        if n > 2 && rng.below(25) == 0 {
            match rng.below(2) {
                0 => ev.axis = Times::U64(vec![1]),
                _ => ev.cpu = Some(Times::U64(vec![1])),
            }
        }
    }
    b
}

#[test]
fn event_walk_equals_the_lane_engine_on_damaged_streams() {
    let mut damage = [0usize; 4];
    for seed in 0..600 {
        for clock in [Clock::Cpu, Clock::Wall] {
            let finished = random_builder(seed).finish();
            let expected = profile(&finished, clock);
            let (mut trace, events) = random_builder(seed).finish_events();
            let got = profile_events(&mut trace, &events, clock);
            assert_eq!(got, expected, "seed {seed}, {clock:?}");
            assert_eq!(trace.diagnostics, finished.diagnostics, "seed {seed}");
            for (a, b) in trace.threads.iter().zip(&finished.threads) {
                assert_eq!(
                    (a.axis_range, a.cpu_range, a.event_count),
                    (b.axis_range, b.cpu_range, b.event_count),
                    "seed {seed}, thread {}",
                    a.raw_id
                );
            }
            for d in &finished.diagnostics {
                let i = [
                    "mismatched-exit",
                    "exit-not-on-stack",
                    "time-backwards",
                    "internal-times",
                ]
                .iter()
                .position(|c| *c == d.code);
                if let Some(i) = i {
                    damage[i] += 1;
                }
            }
        }
    }
    // The generator really made every kind of damage.
    assert!(damage.iter().all(|&n| n > 0), "damage seen: {damage:?}");
}

#[test]
fn event_walk_equals_the_lane_engine_on_the_sample_traces() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("sample-traces exists") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "trace") {
            continue;
        }
        let progress = crate::formats::Progress::default();
        let finished = crate::load::load_path(&path, &progress).expect("sample loads");
        let crate::formats::Parsed::Unfinished(b) =
            crate::load::load_parsed(&path, &progress).expect("sample loads")
        else {
            panic!("{} is an Android trace", path.display());
        };
        let (mut trace, events) = b.finish_events();
        let clock = finished.primary_clock();
        let got = profile_events(&mut trace, &events, clock);
        assert_eq!(got, profile(&finished, clock), "{}", path.display());
        assert_eq!(
            trace.diagnostics,
            finished.diagnostics,
            "{}",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 5, "only {seen} sample traces");
}

/// The spec of a random Android trace of `layout` and `clock`: [`METHODS`] methods, and up to
/// six threads, the first missing from the key now and then.
fn random_spec(
    rng: &mut Rng,
    layout: crate::formats::android::writer::Layout,
    clock: ClockMode,
) -> crate::formats::android::writer::TraceSpec {
    use crate::formats::android::writer::{MethodDef, TraceSpec};
    let mut spec = TraceSpec::new(layout, clock);
    for i in 0..METHODS {
        spec.methods.push(MethodDef {
            id: (i + 1) * 4,
            class: format!("C{}", i % 3),
            name: format!("m{i}"),
            signature: "()V".into(),
            source_file: None,
            line: None,
        });
    }
    let threads = 1 + rng.below(6) as u16;
    for t in 0..threads {
        if t > 0 || rng.below(3) > 0 {
            spec.threads.push((t + 1, format!("t{t}")));
        }
    }
    spec
}

/// A method id the key does not list.
const NOT_IN_KEY: u32 = 0x4000;

/// A random record's method id (with the invalid action 3 in its low bits, or an id missing
/// from the key, now and then) and action, given its thread's `stack` of methods, which it
/// updates.
fn random_record(rng: &mut Rng, stack: &mut Vec<u32>) -> (u32, crate::trace::Action) {
    use crate::trace::Action;
    let m = 1 + rng.below(METHODS as u64) as u32;
    let (method, action) = match rng.below(40) {
        0 => (m, Action::Exit),
        1 => (m, Action::Unroll),
        2 => (NOT_IN_KEY, Action::Enter),
        3 => return ((m * 4) | 3, Action::Enter), // invalid action 3 (method id bits)
        4..=20 => (m, Action::Enter),
        _ => match stack.last() {
            Some(&top) => (top, Action::Exit),
            None => (m, Action::Enter),
        },
    };
    match action {
        Action::Enter => stack.push(method),
        _ => {
            if let Some(p) = stack.iter().rposition(|&x| x == method) {
                stack.truncate(p);
            }
        }
    }
    match method {
        NOT_IN_KEY => (method, action),
        _ => (method * 4, action),
    }
}

/// A random Android trace file with every kind of record-level damage: exits that do not
/// match, unrolls, method ids missing from the key, the invalid action 3, thread ids missing
/// from the key, 32-bit times that wrap and times that run backwards, and sometimes a partial
/// record at the end.
/// `records`: how many (None: a random number below 1500).
fn random_file(seed: u64, records: Option<usize>) -> (Vec<u8>, ClockMode) {
    use crate::formats::android::writer::{Event, Layout, write_trace};
    let mut rng = Rng::new(seed);
    let (layout, clock) = match seed % 5 {
        0 => (Layout::V1, ClockMode::ThreadCpu),
        1 => (Layout::V2, ClockMode::Wall),
        2 => (Layout::V2, ClockMode::ThreadCpu),
        _ => (Layout::V3, ClockMode::Dual),
    };
    let mut spec = random_spec(&mut rng, layout, clock);
    let threads = spec.threads.last().map_or(1, |t| t.0) as usize;
    let n = records.unwrap_or_else(|| rng.below(1500) as usize);
    let mut stacks: Vec<Vec<u32>> = vec![Vec::new(); threads];
    let start = if rng.below(3) == 0 { u32::MAX - 400 } else { 0 };
    let mut t1 = vec![start; threads];
    let mut t2 = start.wrapping_add(50);
    // Threads run in bursts, as in real files; sometimes every record switches.
    let burst = if rng.below(3) == 0 {
        1
    } else {
        1 + rng.below(40)
    };
    let mut th = 0usize;
    for i in 0..n {
        if (i as u64).is_multiple_of(burst) {
            th = rng.below(threads as u64) as usize;
        }
        let (method_id, action) = random_record(&mut rng, &mut stacks[th]);
        let step = rng.below(9) as u32;
        t1[th] = t1[th].wrapping_add(rng.below(step as u64 + 1) as u32);
        t2 = t2.wrapping_add(step);
        let mut back = |x: u32| {
            if rng.below(60) == 0 {
                x.wrapping_sub(7)
            } else {
                x
            }
        };
        let (time1, time2) = (back(t1[th]), back(t2));
        let tid = th as u16 + 1;
        spec.events.push(Event {
            tid,
            method_id,
            action,
            time1,
            time2,
        });
    }
    let mut bytes = write_trace(&spec);
    if rng.below(4) == 0 {
        bytes.extend_from_slice(&[1, 2, 3][..1 + rng.below(2) as usize]);
    }
    (bytes, clock)
}

/// Profiles `bytes` through the sinks and through lanes; both must agree on the profile, the
/// diagnostics, and each thread's event count and ranges (except the rebuilt axis of
/// thread-CPU traces, which the sinks do not compute).
/// Returns whether some worker with several threads ended with a dense table per thread,
/// whether some ended with hash maps, and whether some ended with one shared table.
fn sinks_agree_with_lanes(
    bytes: &[u8],
    clock: Clock,
    table_limit: usize,
    what: &str,
) -> (bool, bool, bool) {
    use crate::formats::{Progress, ReadContext, android};
    let progress = Progress::default();
    let ctx = ReadContext::new(None, &progress);
    let finished = android::read(bytes, &ctx).expect("readable").finish();
    let expected = profile(&finished, clock);
    let factory = ProfileSinkFactory {
        clock: Some(clock),
        table_limit,
    };
    let (b, sinks) = android::read_to_sinks(bytes, &ctx, &factory)
        .expect("readable")
        .expect("a combined trace");
    let several = sinks.iter().filter(|s| s.threads.len() > 1);
    let tables = (
        (several.clone()).any(|s| s.shared.is_none() && !s.has_sparse_tables()),
        several.clone().any(|s| s.has_sparse_tables()),
        several.clone().any(|s| s.shared.is_some()),
    );
    let (trace, got) = factory.finish(b, Some(sinks));
    assert_eq!(got, expected, "{what}");
    assert_eq!(trace.diagnostics, finished.diagnostics, "{what}");
    assert_eq!(trace.methods.len(), finished.methods.len(), "{what}");
    assert_eq!(trace.threads.len(), finished.threads.len(), "{what}");
    let rebuilt_axis = trace.clock == Some(ClockMode::ThreadCpu);
    for (a, b) in trace.threads.iter().zip(&finished.threads) {
        assert_eq!(
            (a.raw_id, a.event_count, a.cpu_range),
            (b.raw_id, b.event_count, b.cpu_range),
            "{what}"
        );
        if !rebuilt_axis {
            assert_eq!(a.axis_range, b.axis_range, "{what}, thread {}", a.raw_id);
        }
    }
    tables
}

#[test]
fn sinks_equal_the_lane_engine_on_damaged_files() {
    let mut seen = std::collections::BTreeSet::new();
    let (mut own_tables, mut sparse_tables, mut shared_table) = (false, false, false);
    for seed in 0..300 {
        let (bytes, mode) = random_file(seed, None);
        let clocks: &[Clock] = match mode {
            ClockMode::Dual => &[Clock::Cpu, Clock::Wall],
            ClockMode::ThreadCpu => &[Clock::Cpu],
            ClockMode::Wall => &[Clock::Wall, Clock::Cpu],
        };
        for &clock in clocks {
            // Tables per thread when the shared one moves often: dense ones, or hash maps of
            // the stacks when there is no memory for dense ones.
            for limit in [usize::MAX, 0] {
                let (own, sparse, shared) = sinks_agree_with_lanes(
                    &bytes,
                    clock,
                    limit,
                    &format!("seed {seed}, {mode:?}, {clock:?}, limit {limit}"),
                );
                assert!(limit > 0 || !own, "seed {seed}: no memory for own tables");
                assert!(limit == 0 || !sparse, "seed {seed}: hash maps with memory");
                own_tables |= own;
                sparse_tables |= sparse;
                shared_table |= shared;
            }
        }
        let progress = crate::formats::Progress::default();
        let ctx = crate::formats::ReadContext::new(None, &progress);
        let t = crate::formats::android::read(&bytes, &ctx).expect("readable");
        seen.extend(t.diagnostics.iter().map(|d| d.code.clone()));
    }
    assert!(
        own_tables && sparse_tables && shared_table,
        "all three ways of keeping recursion tables"
    );
    // The generator made every kind of damage the reader reports.
    for code in [
        "truncated",
        "thread-not-in-key",
        "unknown-method",
        "invalid-action",
    ] {
        assert!(seen.contains(code), "no {code} in {seen:?}");
    }
}

#[test]
fn sinks_equal_the_lane_engine_on_files_of_many_chunks() {
    // Over 2^16 records per chunk: record indices in diagnostics span chunks.
    for seed in [3, 8] {
        let (bytes, mode) = random_file(seed, Some(300_000));
        let clock = if mode == ClockMode::Wall {
            Clock::Wall
        } else {
            Clock::Cpu
        };
        sinks_agree_with_lanes(&bytes, clock, usize::MAX, &format!("seed {seed}"));
    }
}

/// The first record naming an unknown method (and the first with action 3) lies in a later
/// chunk of the record area: the diagnostics give its offset in the file, as the lane path.
#[test]
fn sinks_locate_the_first_bad_record_across_chunks() {
    use crate::formats::android::writer::{Event, Layout, MethodDef, TraceSpec, write_trace};
    use crate::trace::Action;
    let mut spec = TraceSpec::new(Layout::V2, ClockMode::Wall);
    spec.methods.push(MethodDef {
        id: 4,
        class: "A".into(),
        name: "m".into(),
        signature: "()V".into(),
        source_file: None,
        line: None,
    });
    spec.threads.push((1, "main".into()));
    for i in 0..400_000u32 {
        let (method_id, action) = match i {
            250_001 => (0x400, Action::Enter), // missing from the key
            300_001 => (7, Action::Enter),     // 4 | 3: the invalid action
            _ if i % 2 == 0 => (4, Action::Enter),
            _ => (4, Action::Exit),
        };
        spec.events.push(Event {
            tid: 1,
            method_id,
            action,
            time1: i,
            time2: 0,
        });
    }
    let bytes = write_trace(&spec);
    sinks_agree_with_lanes(&bytes, Clock::Wall, usize::MAX, "late bad records");
}

#[test]
fn sinks_read_key_and_data_pairs() {
    use crate::formats::{Progress, ReadContext, android};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
    let key = std::fs::read(dir.join("pair.key")).expect("pair.key");
    let data = std::fs::read(dir.join("pair.data")).expect("pair.data");
    let progress = Progress::default();
    let ctx = ReadContext::new(None, &progress);
    let finished = android::read_pair(&key, &data, &ctx)
        .expect("pair")
        .finish();
    let clock = finished.primary_clock();
    let factory = ProfileSinkFactory::new(None);
    let (b, sinks) = android::read_pair_to_sinks(&key, &data, &ctx, &factory).expect("pair");
    let (trace, got) = factory.finish(b, Some(sinks));
    assert_eq!(got, profile(&finished, clock));
    assert_eq!(trace.diagnostics, finished.diagnostics);
    assert!(got.methods.iter().any(|m| m.calls > 0));
}
