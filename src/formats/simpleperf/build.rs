//! The second step of the reader: names resolved (files and threads came after the samples),
//! times put on the axis, and calls made from the samples.
//!
//! **Calls from samples.** A sample at time `t` stands for its thread's time from `t` to the
//! thread's next sample, at most the thread's median interval between samples (the file's
//! median of those when the thread has one sample; 1 ms when no thread has two): a thread that
//! sleeps between two samples does not show its last stack through the sleep. Per thread, in
//! time order, consecutive samples that share their root frames (methods) make one call of each
//! shared frame spanning them; a frame that changes ends its call and those of its callees where
//! the next sample starts. So a method's inclusive time is the time of the samples it is on the
//! stack of, its exclusive time that of the samples where it is the leaf, and its calls are its
//! runs of consecutive samples. Samples of every event type make calls.
//!
//! **Times.** The file's times are ns of the monotonic clock; the axis is µs from the first
//! sample or context switch of the file (`ticks_per_sec` = 1 000 000, as for Android traces).

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::FORMAT;
use super::decode::{Decoded, FrameKey};
use crate::trace::{
    Action, Builder, ClockMode, ContextSwitch, Diagnostic, EventType, Frames, Location, MethodId,
    Samples, Severity, StrId, ThreadEvents, ThreadId,
};

/// The interval a sample stands for when no thread has two samples, µs.
const FALLBACK_INTERVAL_US: u64 = 1000;

/// The event type whose samples are taken as a thread leaves the CPU.
const OFF_CPU_EVENT: &str = "sched:sched_switch";

/// Makes the builder of a decoded file of `byte_len` bytes and format `version`.
pub(super) fn build(mut d: Decoded, version: u16, byte_len: u64) -> Builder {
    let mut b = Builder::new(FORMAT);
    b.clock = Some(ClockMode::Wall);
    b.ticks_per_sec = 1_000_000;
    b.source.version = Some(u32::from(version));
    b.source.byte_len = byte_len;
    b.source.record_count = d.records;
    b.diagnostics = std::mem::take(&mut d.diagnostics);
    if version != 1 {
        b.diag(Diagnostic::warning(
            "unknown-version",
            Location::Offset(10),
            format!("version {version} (1 expected): read as version 1"),
        ));
    }
    let trace_offcpu = d
        .meta
        .as_ref()
        .is_some_and(|m| m.trace_offcpu == Some(true));
    source_options(&mut b, &d);
    let mut samples = std::mem::take(&mut d.samples);
    samples.frames = frames(&mut b, &d.frames, &d.files);
    samples.event_types = event_types(&mut b, d.meta.as_ref(), d.max_event_type, trace_offcpu);
    samples.lost = d.lost.map(|(_, lost)| lost);
    if let Some((recorded, lost)) = d.lost.filter(|l| l.1 > 0) {
        b.diag(Diagnostic::warning(
            "lost-samples",
            Location::File,
            format!("the recorder lost {lost} samples (it kept {recorded})"),
        ));
    }
    if d.truncated_stacks > 0 {
        b.diag(Diagnostic::new(
            Severity::Info,
            "truncated-stack",
            Location::File,
            format!(
                "{} of {} samples have a stack the unwinder stopped short of its root",
                d.truncated_stacks,
                samples.len()
            ),
        ));
    }
    // Threads in the order of the samples' ids: the process's main thread (its id is the
    // process id) first, then by thread id.
    let process_of = |tid: i32| d.thread_info.get(&tid).map(|i| i.0 as i32);
    let mut order: Vec<usize> = (0..d.tids.len()).collect();
    order.sort_by_key(|&i| (process_of(d.tids[i]) != Some(d.tids[i]), d.tids[i]));
    let mut new_id = vec![ThreadId(0); d.tids.len()];
    let mut by_tid: FxHashMap<i32, ThreadId> = FxHashMap::default();
    for &i in &order {
        let tid = d.tids[i];
        let name = d.thread_info.get(&tid).map_or("", |(_, n)| n.as_str());
        new_id[i] = b.add_thread(tid as u32 as u64, name);
        by_tid.insert(tid, new_id[i]);
    }
    samples.map_threads(|t| new_id[t.index()]);
    samples.context_switches = d
        .switches
        .iter()
        .filter_map(|&(tid, time, on_cpu)| {
            let thread = *by_tid.get(&tid)?;
            Some(ContextSwitch {
                thread,
                time,
                on_cpu,
            })
        })
        .collect();
    let t0 = samples
        .times()
        .iter()
        .chain(samples.context_switches.iter().map(|c| &c.time))
        .min()
        .copied()
        .unwrap_or(0);
    samples.map_times(|ns| (ns - t0) / 1000);
    for (i, events) in thread_events(&samples, d.tids.len())
        .into_iter()
        .enumerate()
    {
        *b.events_mut(ThreadId(i as u32)) = events;
    }
    b.samples = samples;
    b
}

/// The header facts of the file: the meta info's fields, and the process when every thread
/// with samples names one.
fn source_options(b: &mut Builder, d: &Decoded) {
    if let Some(m) = &d.meta {
        let mut opt = |k: &str, v: &Option<String>| {
            if let Some(v) = v {
                b.source.options.push((k.to_string(), v.clone()));
            }
        };
        opt("app_package_name", &m.app_package_name);
        opt("app_type", &m.app_type);
        opt("android_sdk_version", &m.android_sdk_version);
        opt("android_build_type", &m.android_build_type);
        if !m.event_type.is_empty() {
            let types = m.event_type.join(", ");
            b.source.options.push(("event_types".into(), types));
        }
        if let Some(t) = m.trace_offcpu {
            b.source
                .options
                .push(("trace_offcpu".into(), t.to_string()));
        }
    }
    let mut pids = d
        .tids
        .iter()
        .filter_map(|t| d.thread_info.get(t).map(|i| i.0));
    if let Some(first) = pids.next()
        && pids.all(|p| p == first)
    {
        b.source.pid = Some(u64::from(first));
    }
}

/// The frames of the stacks: each frame's method (interned by file path and symbol) and kind.
fn frames(
    b: &mut Builder,
    raw: &[FrameKey],
    files: &FxHashMap<u32, (String, Vec<String>)>,
) -> Frames {
    let mut methods: FxHashMap<(StrId, StrId), MethodId> = FxHashMap::default();
    let mut frames = Frames::default();
    let (mut missing_files, mut missing_symbols) = (0u64, 0u64);
    for f in raw {
        let FrameKey {
            file_id,
            symbol_id,
            vaddr,
            kind,
        } = *f;
        let file = files.get(&file_id);
        missing_files += u64::from(file.is_none());
        let path = file.map(|(p, _)| p.as_str());
        let symbol = usize::try_from(symbol_id)
            .ok()
            .and_then(|i| file?.1.get(i))
            .filter(|s| !s.is_empty());
        missing_symbols += u64::from(symbol_id >= 0 && symbol.is_none());
        let class = match path {
            Some(p) => b.strings.intern(p),
            None => b.strings.intern(&format!("[file {file_id}]")),
        };
        let base = path.map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        let name = match symbol {
            Some(s) => b.strings.intern(s),
            None if symbol_id >= 0 => b.strings.intern(&format!("{base}[symbol {symbol_id}]")),
            None => b.strings.intern(&format!("{base}+0x{vaddr:x}")),
        };
        let method = *methods.entry((class, name)).or_insert_with(|| {
            let id = MethodId(b.methods.len() as u32);
            b.methods.push(
                crate::trace::Method {
                    raw_id: u64::from(id.0),
                    class,
                    name,
                    signature: StrId::EMPTY,
                    source_file: None,
                },
                None,
            )
        });
        frames.push(method, kind);
    }
    if missing_files > 0 {
        b.diag(Diagnostic::warning(
            "unknown-file",
            Location::File,
            format!("{missing_files} frames name a file the recording does not describe; they read [file N]+0xADDRESS"),
        ));
    }
    if missing_symbols > 0 {
        b.diag(Diagnostic::warning(
            "unknown-symbol",
            Location::File,
            format!("{missing_symbols} frames name a symbol their file's table does not have; they read FILE[symbol N]"),
        ));
    }
    frames
}

/// The event types: the meta info's names, then one per id the samples use beyond them.
fn event_types(
    b: &mut Builder,
    meta: Option<&super::proto::MetaInfo>,
    max_used: Option<u32>,
    trace_offcpu: bool,
) -> Vec<EventType> {
    let named = meta.map_or(&[][..], |m| &m.event_type[..]);
    let mut types: Vec<EventType> = named
        .iter()
        .map(|n| EventType {
            name: n.clone(),
            off_cpu: trace_offcpu && n == OFF_CPU_EVENT,
        })
        .collect();
    let used = max_used.map_or(0, |m| {
        (m as usize + 1).min(usize::from(crate::trace::SampleMeta::MAX_EVENT_TYPE) + 1)
    });
    if used > types.len() {
        b.diag(Diagnostic::warning(
            "unknown-event-type",
            Location::File,
            format!(
                "samples name event types up to #{} but the meta info names {}; the others read `#N`",
                used - 1,
                types.len()
            ),
        ));
        for i in types.len()..used {
            types.push(EventType {
                name: format!("#{i}"),
                off_cpu: false,
            });
        }
    }
    types
}

/// The median of the positive intervals between consecutive `times` (sorted).
fn median_interval(times: impl Iterator<Item = u64>) -> Option<u64> {
    let mut prev = None;
    let mut gaps: Vec<u64> = Vec::new();
    for t in times {
        if let Some(p) = prev.replace(t)
            && t > p
        {
            gaps.push(t - p);
        }
    }
    if gaps.is_empty() {
        return None;
    }
    let mid = gaps.len() / 2;
    Some(*gaps.select_nth_unstable(mid).1)
}

/// Every thread's calls, as enter and exit events made from its samples (see the module docs).
fn thread_events(samples: &Samples, threads: usize) -> Vec<ThreadEvents> {
    // Each thread's samples, in time order.
    let mut by_thread: Vec<Vec<u32>> = vec![Vec::new(); threads];
    for (i, t) in samples.threads().iter().enumerate() {
        by_thread[t.index()].push(i as u32);
    }
    let times = samples.times();
    by_thread
        .par_iter_mut()
        .for_each(|order| order.sort_by_key(|&i| times[i as usize]));
    let medians: Vec<Option<u64>> = by_thread
        .par_iter()
        .map(|order| median_interval(order.iter().map(|&i| times[i as usize])))
        .collect();
    let mut known: Vec<u64> = medians.iter().flatten().copied().collect();
    let fallback = if known.is_empty() {
        FALLBACK_INTERVAL_US
    } else {
        let mid = known.len() / 2;
        *known.select_nth_unstable(mid).1
    };
    by_thread
        .into_par_iter()
        .zip(medians)
        .map(|(order, median)| calls_of(samples, &order, median.unwrap_or(fallback)))
        .collect()
}

/// The events of one thread's samples (`order`: their indices, in time order); a sample stands
/// for at most `cap` µs.
fn calls_of(samples: &Samples, order: &[u32], cap: u64) -> ThreadEvents {
    let mut ev = ThreadEvents::default();
    let mut open: Vec<MethodId> = Vec::new();
    let mut path: Vec<MethodId> = Vec::new();
    let mut end = 0u64;
    let times = samples.times();
    for (k, &i) in order.iter().enumerate() {
        let s = samples.get(i as usize);
        samples.methods_root_first(s.stack, &mut path);
        // The calls go on only when this sample starts where the previous one ends.
        let shared = if end < s.time {
            0
        } else {
            open.iter().zip(&path).take_while(|(a, b)| a == b).count()
        };
        for &m in open[shared..].iter().rev() {
            ev.push(Action::Exit, m, end, None);
        }
        open.truncate(shared);
        for &m in &path[shared..] {
            ev.push(Action::Enter, m, s.time, None);
            open.push(m);
        }
        let next = order.get(k + 1).map(|&j| times[j as usize]);
        end = s.time + next.map_or(cap, |n| (n - s.time).min(cap));
    }
    for &m in open.iter().rev() {
        ev.push(Action::Exit, m, end, None);
    }
    ev
}
