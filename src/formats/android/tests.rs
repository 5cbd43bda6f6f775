//! Reader tests over traces made by [`super::writer`]: write → read → the same events.

use super::writer::{Event, Layout, MethodDef, TraceSpec, write_data, write_key, write_trace};
use super::{read, read_pair};
use crate::formats::{Progress, ReadContext};
use crate::trace::{Action, Builder, ClockMode, Trace};

/// A record of thread `tid` naming method `m` (of the key's methods `m << 2`).
fn event(tid: u16, m: u32, action: Action, time1: u32, time2: u32) -> Event {
    Event {
        tid,
        method_id: m << 2,
        action,
        time1,
        time2,
    }
}

fn spec(layout: Layout, clock: ClockMode) -> TraceSpec {
    let mut s = TraceSpec::new(layout, clock);
    s.threads = vec![(1, "main".into()), (7, "worker".into())];
    s.methods = (0..4)
        .map(|i| MethodDef {
            id: i << 2,
            class: format!("com.ex.C{i}"),
            name: "m".into(),
            signature: "()V".into(),
            source_file: Some("C.java".into()),
            line: Some(i as i32),
        })
        .collect();
    let e = event;
    s.events = vec![
        e(1, 3, Action::Exit, 0, 100), // unmatched exit
        e(1, 0, Action::Enter, 2, 102),
        e(7, 1, Action::Enter, 0, 103),
        e(1, 0, Action::Enter, 5, 106), // recursion
        e(1, 0, Action::Unroll, 9, 110),
        e(7, 2, Action::Enter, 4, 111),
        e(7, 2, Action::Exit, 6, 115),
        e(1, 9, Action::Enter, 12, 120), // id missing from the key
        e(1, 9, Action::Exit, 13, 121),
    ];
    s
}

fn ctx(p: &Progress) -> ReadContext<'_> {
    ReadContext::new(None, p)
}

/// The events of a trace per thread as (tid, class, action, time1, time2).
fn events(b: Builder) -> (Trace, Vec<(u64, String, u32)>) {
    let t = b.finish();
    let mut out = Vec::new();
    for th in &t.threads {
        for lane in &th.lanes {
            for i in 0..lane.len() {
                out.push((
                    th.raw_id,
                    t.str(t.method(lane.method(i)).class).to_string(),
                    lane.start(i) as u32,
                ));
            }
        }
    }
    out.sort();
    (t, out)
}

#[test]
fn round_trip_every_layout() {
    let p = Progress::default();
    for (layout, clock) in [
        (Layout::V1, ClockMode::ThreadCpu),
        (Layout::V2, ClockMode::Wall),
        (Layout::V2, ClockMode::ThreadCpu),
        (Layout::V3, ClockMode::Dual),
        (Layout::Streaming, ClockMode::Dual),
        (Layout::Streaming, ClockMode::Wall),
    ] {
        let s = spec(layout, clock);
        let b = read(&write_trace(&s), &ctx(&p)).unwrap();
        assert_eq!(b.source.record_count, s.events.len() as u64);
        assert_eq!(b.clock, Some(clock), "{layout:?}");
        assert_eq!(b.axis_synthesized, clock == ClockMode::ThreadCpu);
        let codes: Vec<_> = b.diagnostics.iter().map(|d| d.code.clone()).collect();
        assert!(codes.contains(&"unknown-method".to_string()), "{codes:?}");
        let (t, calls) = events(b);
        // 5 enters + 1 unmatched exit; the unknown id became one (unknown) method.
        assert_eq!(t.call_count(), 6, "{layout:?}");
        assert_eq!(t.methods.len(), 5);
        assert_eq!(t.str(t.methods[4].class), "(unknown)");
        assert_eq!(t.threads.len(), 2);
        assert_eq!(t.threads[0].name, "main");
        assert_eq!(t.threads[0].event_count, 6);
        assert_eq!(t.threads[1].event_count, 3);
        assert_eq!(t.methods.line(t.threads[0].lanes[0].method(0)), Some(3));
        // Times are raw: the dual axis is time2, wall is time1.
        let axis_of_main_first = match clock {
            ClockMode::Dual => 100,
            _ => 0,
        };
        assert_eq!(t.threads[0].axis_range.unwrap().0, axis_of_main_first);
        assert!(calls.iter().any(|c| c.1 == "com.ex.C2"));
    }
}

#[test]
fn pair_reads_like_the_combined_file() {
    let p = Progress::default();
    let s = spec(Layout::V3, ClockMode::Dual);
    let (_, a) = events(read(&write_trace(&s), &ctx(&p)).unwrap());
    let (_, b) = events(read_pair(&write_key(&s), &write_data(&s), &ctx(&p)).unwrap());
    assert_eq!(a, b);
}

#[test]
fn thread_cpu_axis_is_rebuilt_from_file_order() {
    let p = Progress::default();
    let s = spec(Layout::V2, ClockMode::ThreadCpu);
    let (t, _) = events(read(&write_trace(&s), &ctx(&p)).unwrap());
    // File order main 0, main 2, worker 0 (first record: no advance), main 5, main 9, worker 4
    // (+4), worker 6 (+2), main 12 (+3), main 13 (+1): clock 0,2,2,5,9,13,15,18,19.
    let worker = &t.threads[1];
    assert_eq!(worker.axis_range.unwrap().0, 2);
    assert_eq!(t.threads[0].axis_range.unwrap(), (0, 19));
}

#[test]
fn truncated_tail_keeps_whole_records() {
    let p = Progress::default();
    let s = spec(Layout::V3, ClockMode::Dual);
    let bytes = write_trace(&s);
    let b = read(&bytes[..bytes.len() - 5], &ctx(&p)).unwrap();
    assert_eq!(b.source.record_count, s.events.len() as u64 - 1);
    let d = b
        .diagnostics
        .iter()
        .find(|d| d.code == "truncated")
        .unwrap();
    assert_eq!(
        d.location,
        crate::trace::Location::Offset((bytes.len() - 14) as u64)
    );
}

#[test]
fn many_records_decode_in_parallel_chunks_like_one_pass() {
    use super::synth::{GenOptions, generate_vec};
    let p = Progress::default();
    for (layout, clock) in [
        (Layout::V3, ClockMode::Dual),
        (Layout::V2, ClockMode::ThreadCpu),
    ] {
        let opts = GenOptions {
            records: 300_000,
            threads: 5,
            methods: 300,
            seed: 9,
            layout,
            clock,
            ..GenOptions::default()
        };
        let bytes = generate_vec(&opts);
        let b = read(&bytes, &ctx(&p)).unwrap();
        // Oracle: a plain sequential decode of the same records.
        let key = super::parse_key(&bytes, "t", 0).unwrap();
        let data = &bytes[key.end_offset..];
        let h = super::DataHeader::parse(data, 0).unwrap();
        let mut per_tid: std::collections::BTreeMap<u16, Vec<(u32, u32)>> = Default::default();
        let mut clock_us = 0u64;
        let mut last: std::collections::HashMap<u16, u32> = Default::default();
        let mut axis: std::collections::BTreeMap<u16, Vec<u64>> = Default::default();
        super::data::for_each_record(data, &h, |r| {
            per_tid.entry(r.tid).or_default().push((r.op, r.time1));
            if let Some(p) = last.insert(r.tid, r.time1) {
                clock_us += r.time1.wrapping_sub(p) as u64;
            }
            axis.entry(r.tid).or_default().push(clock_us);
        });
        let tids: Vec<u16> = per_tid.keys().copied().collect();
        for (g, tid) in tids.iter().enumerate() {
            let (raw, _) = b.thread_info(crate::trace::ThreadId(g as u32));
            assert_eq!(raw, *tid as u64);
        }
        let mut b = b;
        for (g, tid) in tids.iter().enumerate() {
            let ev = b.events_mut(crate::trace::ThreadId(g as u32));
            let want = &per_tid[tid];
            assert_eq!(ev.ops.len(), want.len());
            // ART ids are index << 2, so the method index equals op >> 2.
            assert!(ev.ops.iter().zip(want).all(|(a, w)| *a == w.0));
            if clock == ClockMode::ThreadCpu
                && let crate::trace::Times::U64(ax) = &ev.axis
            {
                assert_eq!(ax, &axis[tid]);
            }
        }
    }
}

/// The quick search for the records' start agrees with the key parser wherever it answers.
#[test]
fn key_end_agrees_with_the_key_parser() {
    let keys = [
        "*version\n3\n*threads\n1\tmain\n*methods\n0x10\tA\tb\t()V\n*end\nSLOW",
        "*version\r\n3\r\n*methods\r\n0x10\tA\tb\t()V\r\n*end\r\nSLOW",
        "*version\n3\n*endless\n*methods\n0x10\tA\t*end\t()V\n*end\n*end\nSLOW",
        "*version\n3\n*methods\n0x10\tA\tb\t()V\n*end",
    ];
    for text in keys {
        let parsed = super::key::parse_key(text.as_bytes(), "t", 0).expect(text);
        match super::key_end(text.as_bytes()) {
            Some(end) => assert_eq!(end, parsed.end_offset, "{text:?}"),
            // Only a key ending at the end of the input without a newline has no quick answer.
            None => assert_eq!(parsed.end_offset, text.len(), "{text:?}"),
        }
    }
}

/// The key's options and the data header's start time become typed facts, for combined,
/// streaming and pair traces alike.
#[test]
fn header_facts_are_typed() {
    use crate::trace::{StartStatedBy, StartTime};
    let p = Progress::default();
    for layout in [Layout::V3, Layout::Streaming] {
        let mut s = spec(layout, ClockMode::Dual);
        s.vm = "dalvik".into();
        s.pid = Some(4242);
        s.start_time_us = 1_700_000_000_123_456;
        s.elapsed_time_us = 987;
        let t = read(&write_trace(&s), &ctx(&p)).unwrap().finish();
        assert_eq!(
            t.source.start,
            Some(StartTime {
                epoch_us: 1_700_000_000_123_456,
                stated_by: StartStatedBy::DataHeader
            }),
            "{layout:?}"
        );
        assert_eq!(t.source.vm.as_deref(), Some("dalvik"), "{layout:?}");
        assert_eq!(t.source.pid, Some(4242), "{layout:?}");
        assert_eq!(t.source.overflowed, Some(false), "{layout:?}");
        if layout == Layout::V3 {
            assert_eq!(t.source.stated_elapsed_us, Some(987));
            let pair = read_pair(&write_key(&s), &write_data(&s), &ctx(&p))
                .unwrap()
                .finish();
            assert_eq!(pair.source.start, t.source.start);
            assert_eq!(pair.source.pid, Some(4242));
        }
    }
}

/// Repeated method ids: the first line of each id is used, every later one is reported, and
/// records find the first line's method (against a hash set over the lines in order).
#[test]
fn repeated_method_ids_keep_the_first_line() {
    use crate::testutil::Rng;
    let mut rng = Rng::new(5);
    for round in 0..200 {
        let n = 1 + rng.below(40) as usize;
        let sorted = round % 4 == 0;
        let ids: Vec<u64> = (0..n)
            .map(|i| {
                if sorted {
                    4 * (i as u64 + 1)
                } else {
                    4 * (1 + rng.below(12))
                }
            })
            .collect();
        let lines: Vec<String> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| format!("{id:#x}\tC{i}\tm\t()V"))
            .collect();
        let methods: Vec<super::KeyMethod> = lines
            .iter()
            .map(|l| super::key::parse_method_line(l.as_bytes()).unwrap())
            .collect();
        let mut seen = std::collections::HashSet::new();
        let want: Vec<bool> = ids.iter().map(|id| !seen.insert(*id)).collect();
        assert_eq!(super::repeated_ids(&methods), want, "{ids:?}");
        let mut b = Builder::new("t");
        let tables = super::Tables::from_key(&mut b, &[], &methods, |_| Vec::new());
        let repeats = b
            .diagnostics
            .iter()
            .filter(|d| d.code == "key-duplicate-method");
        assert_eq!(repeats.count(), want.iter().filter(|r| **r).count());
        for (i, id) in ids.iter().enumerate() {
            let first = ids.iter().position(|x| x == id).unwrap();
            let m = tables.methods.get(*id as u32) as usize;
            assert_eq!(
                b.strings.get(b.methods[m].class),
                format!("C{first}"),
                "{i}"
            );
        }
    }
}

/// A key of more than [`super::EAGER_KEY_METHODS`] methods keeps only those the records name,
/// in key order: the trace reads as if its key listed only them (plus the diagnostic), in every
/// layout and as a `.key` + `.data` pair.
#[test]
fn a_large_key_keeps_only_the_named_methods() {
    let p = Progress::default();
    let extra = super::EAGER_KEY_METHODS as u32 + 10;
    for (layout, clock) in [
        (Layout::V1, ClockMode::ThreadCpu),
        (Layout::V2, ClockMode::Wall),
        (Layout::V3, ClockMode::Dual),
        (Layout::Streaming, ClockMode::Dual),
    ] {
        let small = spec(layout, clock);
        let mut big = small.clone();
        // Unnamed methods before, between and after the named ones (ids 0, 4, 8, 12).
        big.methods = (0..extra)
            .map(|i| MethodDef {
                id: (100 + i) << 2,
                class: format!("unused.C{i}"),
                name: "m".into(),
                signature: "()V".into(),
                source_file: None,
                line: None,
            })
            .collect();
        for (i, m) in small.methods.iter().enumerate() {
            big.methods.insert(i * 20_000, m.clone());
        }
        let read_both = |s: &TraceSpec| {
            let whole = events(read(&write_trace(s), &ctx(&p)).unwrap());
            let pair = (layout != Layout::Streaming)
                .then(|| events(read_pair(&write_key(s), &write_data(s), &ctx(&p)).unwrap()));
            (whole, pair)
        };
        let ((tb, calls_big), pair_big) = read_both(&big);
        let ((ts, calls_small), pair_small) = read_both(&small);
        assert_eq!(calls_big, calls_small, "{layout:?}");
        assert_eq!(tb.methods, ts.methods, "{layout:?}");
        assert_eq!(
            pair_big.map(|(_, c)| c),
            pair_small.map(|(_, c)| c),
            "{layout:?}"
        );
        let d = tb
            .diagnostics
            .iter()
            .find(|d| d.code == "uncalled-methods")
            .expect("the left-out methods are reported");
        assert!(
            d.message.starts_with(&format!("{extra} of the key's")),
            "{}",
            d.message
        );
        assert!(!ts.diagnostics.iter().any(|d| d.code == "uncalled-methods"));
    }
}

/// [`super::MethodLookup::build`] maps each record value to the first line of its id, in both
/// of its layouts (a table for ids up to 8 per line, a hash map past that), and never maps ids
/// that cannot be a record's; checked against a map filled first-wins.
#[test]
fn the_method_lookup_keeps_each_ids_first_line() {
    use super::{MethodLookup, NONE};
    let mut rng = crate::testutil::Rng::new(14);
    let mut next = move || rng.next();
    for (lines, span) in [(0, 4), (1, 4), (50, 40), (300, 2_000), (300, 1 << 40)] {
        for _ in 0..20 {
            // Ids from a small span repeat; some are not multiples of 4, some do not fit 32 bits.
            let pairs: Vec<(u64, u32)> = (0..lines as u32).map(|i| (next() % span, i)).collect();
            let lookup = MethodLookup::build(pairs.iter().copied());
            let mut want = std::collections::HashMap::new();
            for &(id, i) in &pairs {
                want.entry(id).or_insert(i);
            }
            for &(id, _) in &pairs {
                let got = u32::try_from(id).map_or(NONE, |id| lookup.get(id & !3));
                let first = if id & 3 == 0 && id <= u64::from(u32::MAX) {
                    want[&id]
                } else {
                    // A value the records can carry (low bits clear) maps to its own id's line.
                    match u32::try_from(id & !3) {
                        Ok(v) => want.get(&u64::from(v)).copied().unwrap_or(NONE),
                        Err(_) => NONE,
                    }
                };
                assert_eq!(got, first, "id {id:#x} of {lines} lines over {span}");
            }
        }
    }
}

/// A streaming trace's times that fall by more than 2^31 are read as a wrap and said, each
/// thread's first on each clock, with the record and its offset (as in the other layouts).
#[test]
fn a_wrap_in_a_streaming_trace_is_said() {
    for clock in [ClockMode::Wall, ClockMode::Dual] {
        let mut s = spec(Layout::Streaming, clock);
        let e = event;
        s.events = vec![
            e(1, 0, Action::Enter, 10, 10),
            e(7, 1, Action::Enter, 11, 11),
            e(1, 1, Action::Enter, 0xFFFF_FFFE, 0xFFFF_FFFE),
            e(1, 1, Action::Exit, 30, 30),
            e(1, 0, Action::Exit, 35, 35),
            e(7, 1, Action::Exit, 40, 40),
        ];
        let bytes = write_trace(&s);
        let p = Progress::default();
        let trace = read(&bytes, &ctx(&p)).expect("reads").finish();
        let wraps: Vec<_> = (trace.diagnostics.iter())
            .filter(|d| d.code == "time-wrap")
            .collect();
        let clocks = if clock == ClockMode::Dual { 2 } else { 1 };
        assert_eq!(wraps.len(), clocks, "{clock:?}: {wraps:?}");
        for w in &wraps {
            assert!(
                w.message.starts_with("thread 1: ") && w.message.contains("from 4294967294 to 30"),
                "{w:?}"
            );
            // The record at that offset is the one with time 30 (thread 1, method 1, exit).
            let crate::trace::Location::Offset(at) = w.location else {
                panic!("{w:?}")
            };
            let record = &bytes[at as usize..];
            assert_eq!(&record[..2], &1u16.to_le_bytes(), "{w:?}");
            assert_eq!(&record[6..10], &30u32.to_le_bytes(), "{w:?}");
        }
    }
}
