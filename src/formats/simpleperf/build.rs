//! The second step of the reader: names resolved (files and threads came after the samples),
//! times put on the axis, and calls made from the samples.
//!
//! **Calls from samples** are made by the rule of [`crate::trace::sample_calls`]: a method's
//! inclusive time is the time of the samples it is on the stack of, and its calls are its runs of
//! consecutive samples.
//!
//! **Times.** The file's times are ns of the monotonic clock; the axis is µs from the first
//! sample or context switch of the file (`ticks_per_sec` = 1 000 000, as for Android traces).

use rustc_hash::FxHashMap;

use super::decode::Decoded;
use super::frame::FrameKey;
use crate::trace::sample_calls::thread_events;
use crate::trace::{
    Builder, ClockMode, ContextSwitch, Diagnostic, EventType, Frames, Location, MethodId, Severity,
    StrId, ThreadId,
};

/// The event type whose samples are taken as a thread leaves the CPU.
const OFF_CPU_EVENT: &str = "sched:sched_switch";

/// Makes the builder of a decoded file of `format` (its name in the model), of `byte_len` bytes
/// and of layout `version` (the protobuf's; None for a layout without one).
pub(super) fn build(mut d: Decoded, format: &str, version: Option<u16>, byte_len: u64) -> Builder {
    let mut b = Builder::new(format);
    b.clock = Some(ClockMode::Wall);
    b.ticks_per_sec = 1_000_000;
    b.source.version = version.map(u32::from);
    b.source.byte_len = byte_len;
    b.source.record_count = d.records;
    b.diagnostics = std::mem::take(&mut d.diagnostics);
    if let Some(version) = version.filter(|&v| v != 1) {
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
            ..
        } = *f;
        let kind = f.kind();
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
