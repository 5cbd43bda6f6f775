//! Writes Android method traces: combined v1/v2/v3, `.key` + `.data` pairs and ART streaming
//! files, from a list of events. Used by tests, by `sample-traces/` and by `tracelens gen`.
//!
//! The output follows the writers in Dalvik's `Profile.cpp` and ART's `trace.cc`: key lines in
//! the order `*version`, options, `*threads`, `*methods`, `*end`; a 32-byte data header; records
//! of 9 (v1), 10 (v2) or 14 (v3, dual clock) bytes. Streaming files put a thread packet before a
//! thread's first record, a method packet before a method's first use, and the key (with
//! `*threads` and `*methods`) as a summary packet at the end.

use crate::trace::ClockMode;

/// Which container and record layout to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Version 1: 1-byte thread ids, one clock.
    V1,
    /// Version 2: 2-byte thread ids, one clock.
    V2,
    /// Version 3: 2-byte thread ids, record size in the header, two clocks when dual.
    V3,
    /// ART streaming (version 0xF2 for one clock, 0xF3 for dual).
    Streaming,
}

/// A method of the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MethodDef {
    /// Key id; records carry it with the action in the low two bits, so it must be a multiple of 4.
    pub id: u32,
    pub class: String,
    pub name: String,
    pub signature: String,
    pub source_file: Option<String>,
    /// Written as a sixth field (Dalvik style) when present.
    pub line: Option<i32>,
}

/// One record.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    pub tid: u16,
    pub method_id: u32,
    pub action: crate::trace::Action,
    /// Thread-CPU µs (thread-cpu, dual) or wall µs (wall).
    pub time1: u32,
    /// Wall µs; written only for dual-clock v3 and streaming.
    pub time2: u32,
}

/// Everything a trace file states.
#[derive(Clone, Debug)]
pub(crate) struct TraceSpec {
    pub layout: Layout,
    pub clock: ClockMode,
    /// "art" or "dalvik".
    pub vm: String,
    pub pid: Option<u32>,
    pub start_time_us: u64,
    pub elapsed_time_us: u64,
    /// `clock-call-overhead-nsec` (1000 unless `gen --overhead-ns` says).
    pub call_overhead_ns: u64,
    /// Extra `key=value` lines written after the standard options.
    pub extra_options: Vec<(String, String)>,
    pub threads: Vec<(u16, String)>,
    pub methods: Vec<MethodDef>,
    /// The records, for the in-memory writers the tests use (`tracelens gen` streams its own).
    #[cfg(test)]
    pub events: Vec<Event>,
}

impl TraceSpec {
    /// An empty spec with the usual options.
    pub(crate) fn new(layout: Layout, clock: ClockMode) -> Self {
        Self {
            layout,
            clock,
            vm: "art".into(),
            pid: None,
            start_time_us: 0,
            elapsed_time_us: 0,
            call_overhead_ns: 1000,
            extra_options: Vec::new(),
            threads: Vec::new(),
            methods: Vec::new(),
            #[cfg(test)]
            events: Vec::new(),
        }
    }

    /// The data version number (without the streaming bits).
    pub(crate) fn version(&self) -> u16 {
        match self.layout {
            Layout::V1 => 1,
            Layout::V2 => 2,
            Layout::V3 => 3,
            Layout::Streaming if self.clock == ClockMode::Dual => 3,
            Layout::Streaming => 2,
        }
    }

    #[cfg(test)]
    pub(crate) fn record_size(&self) -> usize {
        record_size(self.layout, self.clock)
    }
}

/// Bytes per record for a layout and clock.
pub(crate) fn record_size(layout: Layout, clock: ClockMode) -> usize {
    match layout {
        Layout::V1 => 9,
        Layout::V2 => 10,
        Layout::V3 | Layout::Streaming if clock == ClockMode::Dual => 14,
        Layout::V3 => 10,
        Layout::Streaming => 10,
    }
}

/// The method line of a key (`id\tclass\tname\tsig[\tfile[\tline]]`).
pub(crate) fn method_line(m: &MethodDef) -> String {
    let mut s = if m.id == 0 {
        "0".to_string()
    } else {
        format!("{:#x}", m.id)
    };
    for f in [&m.class, &m.name, &m.signature] {
        s.push('\t');
        s.push_str(f);
    }
    if m.source_file.is_some() || m.line.is_some() {
        s.push('\t');
        s.push_str(m.source_file.as_deref().unwrap_or("(null)"));
    }
    if let Some(l) = m.line {
        s.push_str(&format!("\t{l}"));
    }
    s
}

/// The key text. `num_records` is written as `num-method-calls` (omitted when `None`, as in
/// streaming summaries).
pub(crate) fn key_text(spec: &TraceSpec, num_records: Option<u64>) -> String {
    let mut k = format!(
        "*version\n{}\ndata-file-overflow=false\nclock={}\nelapsed-time-usec={}\n",
        spec.version(),
        spec.clock.key_name(),
        spec.elapsed_time_us
    );
    if let Some(n) = num_records {
        k.push_str(&format!("num-method-calls={n}\n"));
    }
    k.push_str(&format!(
        "clock-call-overhead-nsec={}\n",
        spec.call_overhead_ns
    ));
    k.push_str(&format!("vm={}\n", spec.vm));
    if let Some(pid) = spec.pid {
        k.push_str(&format!("pid={pid}\n"));
    }
    for (key, v) in &spec.extra_options {
        k.push_str(&format!("{key}={v}\n"));
    }
    k.push_str("*threads\n");
    for (tid, name) in &spec.threads {
        k.push_str(&format!("{tid}\t{name}\n"));
    }
    k.push_str("*methods\n");
    for m in &spec.methods {
        k.push_str(&method_line(m));
        k.push('\n');
    }
    k.push_str("*end\n");
    k
}

/// The 32-byte data header.
pub(crate) fn data_header(version: u16, record_size: usize, start_time_us: u64) -> [u8; 32] {
    let mut h = [0u8; 32];
    h[0..4].copy_from_slice(b"SLOW");
    h[4..6].copy_from_slice(&version.to_le_bytes());
    h[6..8].copy_from_slice(&32u16.to_le_bytes());
    h[8..16].copy_from_slice(&start_time_us.to_le_bytes());
    if version & 0x0F >= 3 {
        h[16..18].copy_from_slice(&(record_size as u16).to_le_bytes());
    }
    h
}

#[cfg(test)]
/// Appends one record.
#[inline]
pub(crate) fn encode_record(out: &mut Vec<u8>, layout: Layout, clock: ClockMode, e: &Event) {
    if layout == Layout::V1 {
        out.push(e.tid as u8);
    } else {
        out.extend_from_slice(&e.tid.to_le_bytes());
    }
    out.extend_from_slice(&(e.method_id | e.action as u32).to_le_bytes());
    out.extend_from_slice(&e.time1.to_le_bytes());
    if record_size(layout, clock) == 14 {
        out.extend_from_slice(&e.time2.to_le_bytes());
    }
}

#[cfg(test)]
/// A combined `.trace` (key then data). Streaming specs are written as streaming files.
pub(crate) fn write_trace(spec: &TraceSpec) -> Vec<u8> {
    if spec.layout == Layout::Streaming {
        return write_streaming(spec);
    }
    let mut out = key_text(spec, Some(spec.events.len() as u64)).into_bytes();
    out.extend_from_slice(&write_data(spec));
    out
}

#[cfg(test)]
/// The `.key` of a pair.
pub(crate) fn write_key(spec: &TraceSpec) -> Vec<u8> {
    key_text(spec, Some(spec.events.len() as u64)).into_bytes()
}

#[cfg(test)]
/// The data section (the `.data` of a pair).
pub(crate) fn write_data(spec: &TraceSpec) -> Vec<u8> {
    let rs = spec.record_size();
    let mut out = Vec::with_capacity(32 + rs * spec.events.len());
    out.extend_from_slice(&data_header(spec.version(), rs, spec.start_time_us));
    for e in &spec.events {
        encode_record(&mut out, spec.layout, spec.clock, e);
    }
    out
}

#[cfg(test)]
/// An ART streaming file.
pub(crate) fn write_streaming(spec: &TraceSpec) -> Vec<u8> {
    let mut out = Vec::new();
    let rs = record_size(Layout::Streaming, spec.clock);
    out.extend_from_slice(&data_header(spec.version() | 0xF0, rs, spec.start_time_us));
    let mut thread_seen = rustc_hash::FxHashSet::default();
    let mut method_seen = rustc_hash::FxHashSet::default();
    for e in &spec.events {
        if thread_seen.insert(e.tid)
            && let Some((_, name)) = spec.threads.iter().find(|(t, _)| *t == e.tid)
        {
            out.extend_from_slice(&[0, 0, 2]);
            out.extend_from_slice(&e.tid.to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
        }
        if method_seen.insert(e.method_id)
            && let Some(m) = spec.methods.iter().find(|m| m.id == e.method_id)
        {
            let line = format!("{}\n", method_line(m));
            out.extend_from_slice(&[0, 0, 1]);
            out.extend_from_slice(&(line.len() as u16).to_le_bytes());
            out.extend_from_slice(line.as_bytes());
        }
        encode_record(&mut out, Layout::Streaming, spec.clock, e);
    }
    let summary = key_text(spec, None);
    out.extend_from_slice(&[0, 0, 3]);
    out.extend_from_slice(&(summary.len() as u32).to_le_bytes());
    out.extend_from_slice(summary.as_bytes());
    out
}
