//! The reader on small hand-written recordings, one case each.

use super::proto::{
    CallChainEntry, ContextSwitch, File, LostSituation, MetaInfo, RecordData, Sample, Thread,
    UnwindingResult,
};
use super::writer::RecordWriter;
use crate::formats::{Progress, ReadContext};
use crate::trace::{ExecKind, Trace};

/// A frame `symbol` of file `file` (-1: no symbol) at `vaddr`.
fn frame(file: u32, symbol: i32, vaddr: u64) -> CallChainEntry {
    CallChainEntry {
        vaddr_in_file: Some(vaddr),
        file_id: Some(file),
        symbol_id: Some(symbol),
        execution_type: None,
    }
}

/// A sample of thread `tid` at `time_us` whose stack is `root_first` (file 0's symbols).
fn sample(tid: i32, time_us: u64, root_first: &[i32]) -> RecordData {
    RecordData::Sample(Sample {
        time: Some(1_000_000_000 + time_us * 1000),
        thread_id: Some(tid),
        callchain: root_first
            .iter()
            .rev()
            .map(|&s| frame(0, s, 0x100 * s as u64))
            .collect(),
        event_count: Some(1000),
        event_type_id: Some(0),
        unwinding_result: None,
    })
}

fn lib(symbols: &[&str]) -> RecordData {
    RecordData::File(File {
        id: Some(0),
        path: Some("/system/lib64/libfoo.so".into()),
        symbol: symbols.iter().map(|s| s.to_string()).collect(),
        mangled_symbol: Vec::new(),
    })
}

fn thread(tid: u32, name: &str) -> RecordData {
    RecordData::Thread(Thread {
        thread_id: Some(tid),
        process_id: Some(7),
        thread_name: Some(name.into()),
    })
}

fn bytes(records: Vec<RecordData>) -> Vec<u8> {
    let mut w = RecordWriter::new(Vec::new()).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.finish().unwrap()
}

fn read(bytes: &[u8]) -> Trace {
    let progress = Progress::default();
    crate::formats::read_bytes(bytes, &ReadContext::new(None, &progress)).unwrap()
}

/// Per thread, per depth: (method name, start, duration).
fn calls(t: &Trace) -> Vec<Vec<(String, u64, u64)>> {
    let th = &t.threads[0];
    th.lanes
        .iter()
        .map(|lane| {
            (0..lane.len())
                .map(|i| {
                    (
                        t.str(t.method(lane.method(i)).name).to_string(),
                        lane.start(i),
                        lane.dur(i),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn names_come_from_files_and_threads_written_after_the_samples() {
    let t = read(&bytes(vec![
        sample(9, 0, &[0, 1]),
        sample(9, 100, &[0, 1]),
        lib(&["main", "work"]),
        thread(9, "worker"),
    ]));
    assert_eq!(t.source.format, "simpleperf");
    assert_eq!(t.threads.len(), 1);
    assert_eq!(
        (t.threads[0].raw_id, t.threads[0].name.as_str()),
        (9, "worker")
    );
    assert_eq!(t.samples.len(), 2);
    let names: Vec<String> = (0..t.methods.len() as u32)
        .map(|m| t.method_short_name(crate::trace::MethodId(m)))
        .collect();
    assert_eq!(
        names,
        [
            "/system/lib64/libfoo.so.main",
            "/system/lib64/libfoo.so.work"
        ]
    );
    assert!(
        t.diagnostics.iter().all(|d| d.code != "truncated"),
        "{:?}",
        t.diagnostics
    );
}

#[test]
fn consecutive_samples_sharing_frames_make_one_call() {
    // 0 → 1, 0 → 1, 0 → 2, then a long sleep, 0 → 2: the sleep ends the calls (a sample stands
    // for at most the median interval, 100 µs).
    let t = read(&bytes(vec![
        sample(1, 0, &[0, 1]),
        sample(1, 100, &[0, 1]),
        sample(1, 200, &[0, 2]),
        sample(1, 5000, &[0, 2]),
        lib(&["root", "a", "b"]),
    ]));
    let c = calls(&t);
    let s = |n: &str, a, d| (n.to_string(), a, d);
    assert_eq!(c[0], vec![s("root", 0, 300), s("root", 5000, 100)]);
    assert_eq!(
        c[1],
        vec![s("a", 0, 200), s("b", 200, 100), s("b", 5000, 100)]
    );
}

#[test]
fn unknown_symbols_read_file_and_address() {
    let t = read(&bytes(vec![
        RecordData::Sample(Sample {
            time: Some(5),
            thread_id: Some(1),
            callchain: vec![frame(0, -1, 0x1a2b), frame(0, 0, 0x10), frame(3, 0, 0x20)],
            ..Sample::default()
        }),
        lib(&["known"]),
    ]));
    let mut names: Vec<String> = (0..t.methods.len() as u32)
        .map(|m| t.method_short_name(crate::trace::MethodId(m)))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "/system/lib64/libfoo.so.known",
            "/system/lib64/libfoo.so.libfoo.so+0x1a2b",
            "[file 3].[symbol 0]"
        ]
    );
    assert!(t.diagnostics.iter().any(|d| d.code == "unknown-file"));
}

#[test]
fn a_truncated_tail_keeps_the_records_before_it() {
    let whole = bytes(vec![sample(1, 0, &[0]), sample(1, 10, &[0]), lib(&["x"])]);
    // Cut inside the second sample: the first stays.
    let first = u32::from_le_bytes(whole[12..16].try_into().unwrap()) as usize;
    let cut = &whole[..12 + 4 + first + 4 + 3];
    let t = read(cut);
    assert_eq!(t.samples.len(), 1);
    assert!(t.diagnostics.iter().any(|d| d.code == "truncated"));
    // Every cut reads without a panic.
    for n in 0..whole.len() {
        let progress = Progress::default();
        let _ = crate::formats::read_bytes(&whole[..n], &ReadContext::new(None, &progress));
    }
}

#[test]
fn lost_samples_truncated_stacks_and_meta_info_are_reported() {
    let mut s = Sample {
        time: Some(10),
        thread_id: Some(1),
        callchain: vec![frame(0, 0, 0)],
        event_type_id: Some(1),
        ..Sample::default()
    };
    s.unwinding_result = Some(UnwindingResult {
        error_code: Some(2),
        ..UnwindingResult::default()
    });
    let t = read(&bytes(vec![
        RecordData::Sample(s),
        RecordData::ContextSwitch(ContextSwitch {
            switch_on: Some(false),
            time: Some(20),
            thread_id: Some(1),
        }),
        RecordData::Lost(LostSituation {
            sample_count: Some(100),
            lost_count: Some(3),
        }),
        lib(&["x"]),
        RecordData::MetaInfo(MetaInfo {
            event_type: vec!["cpu-clock".into(), "sched:sched_switch".into()],
            app_package_name: Some("com.example".into()),
            trace_offcpu: Some(true),
            ..MetaInfo::default()
        }),
    ]));
    let codes: Vec<&str> = t.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert!(
        codes.contains(&"lost-samples") && codes.contains(&"truncated-stack"),
        "{codes:?}"
    );
    assert_eq!(t.samples.lost, Some(3));
    let s = t.samples.get(0);
    assert!(s.meta.truncated() && t.samples.is_off_cpu(s.meta));
    assert_eq!(t.samples.context_switches.len(), 1);
    assert_eq!(t.source.option("app_package_name"), Some("com.example"));
    assert_eq!(
        t.samples.frames.kind(crate::trace::FrameId(0)),
        ExecKind::Native
    );
}

#[test]
fn not_simpleperf_is_an_error_naming_the_format() {
    let progress = Progress::default();
    let e = super::read(b"SIMPLEPER", &ReadContext::new(None, &progress)).unwrap_err();
    assert_eq!(e.format, "simpleperf");
}
