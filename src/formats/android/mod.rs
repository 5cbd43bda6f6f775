//! Android method traces ("Traceview"/dmtrace), formats/android.md §1 and §4.
//!
//! Variants read here:
//! - a combined `.trace`: key text ([`key`]) followed by the binary data section;
//! - a `.key` + `.data` pair ([`read_pair`]);
//! - an ART streaming trace ([`streaming`]): `SLOW` first, inline thread and method packets, the
//!   key as a summary packet at the end;
//! - an ART V2 trace ([`v2`]): `SLOW` with version 4, 5, 0xF4 or 0xF5, then typed packets.
//!
//! Data section header (little-endian):
//!
//! | offset | size | field                                                          |
//! |--------|------|----------------------------------------------------------------|
//! | 0      | 4    | magic `SLOW`                                                   |
//! | 4      | 2    | version 1, 2, 3 (`| 0xF0` when streaming)                      |
//! | 6      | 2    | offset of the first record from byte 0 of the header           |
//! | 8      | 8    | start time, µs                                                 |
//! | 16     | 2    | record size (version 3 only)                                   |
//!
//! Records: v1 `u8 tid | u32 method<<2|action | u32 time1` (9 bytes), v2 the same with a u16 tid
//! (10 bytes), v3 as v2 plus `u32 time2` when the clock is dual, padded to the header's record
//! size. `time1` is thread-CPU µs for `thread-cpu` and `dual` clocks, wall µs for `wall`; `time2`
//! is wall µs.
//!
//! Model mapping: dual → CPU = time1, axis = time2; wall → axis = time1; thread-cpu → CPU =
//! time1, axis rebuilt from file order (each record advances a global clock by its thread's CPU
//! delta since that thread's previous record; Traceview's rule). Times stay raw (not rebased).
//! Unknown method ids all map to one `(unknown)` method, as dmtracedump does.

pub(crate) mod data;
pub(crate) mod key;
pub(crate) mod overview;
pub(crate) mod streaming;
pub mod synth;
pub mod v2;
pub(crate) mod writer;

use crate::formats::detect::{Detected, detect};
use crate::formats::{FormatError, ReadContext};
use crate::trace::builder::ThreadCap;
use crate::trace::{
    Builder, ClockMode, Diagnostic, Location, MAX_OVERHEAD_NS, Severity, SinkFactory, SourceInfo,
    StartStatedBy, StartTime, Streamed,
};

pub(crate) use data::DataHeader;
pub(crate) use key::{Key, KeyMethod, KeyThread, parse_key, parse_key_once};

/// Format name of combined traces and `.key`/`.data` pairs.
pub(crate) const FORMAT_TRACE: &str = "android-trace";
/// Format name of ART streaming traces.
pub(crate) const FORMAT_STREAMING: &str = "android-streaming";

/// Raw id and class name of the placeholder for method ids missing from the key.
pub(crate) const UNKNOWN_METHOD_RAW_ID: u64 = u64::MAX;
pub(crate) const UNKNOWN_METHOD_CLASS: &str = "(unknown)";

/// Reads an Android trace (combined key + data, or streaming) into a builder.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Builder, FormatError> {
    match detect(bytes) {
        Detected::AndroidKey => {
            let key = parse_key_once(bytes, FORMAT_TRACE, 0, Some(ctx))?;
            let data_offset = key.end_offset;
            read_key_and_data(
                key,
                &bytes[..data_offset],
                &bytes[data_offset..],
                data_offset as u64,
                bytes.len() as u64,
                ctx,
            )
        }
        Detected::AndroidStreaming { .. } => streaming::read(bytes, ctx),
        Detected::AndroidV2 { .. } => v2::read(bytes, ctx),
        Detected::AndroidData { version } => Err(FormatError::new(
            FORMAT_TRACE,
            Location::Offset(0),
            format!(
                "this is a data section (version {version}) without its key; open the matching .key file (or the base name) instead"
            ),
        )),
        other => Err(unsupported(other, 0).unwrap_or_else(|| {
            FormatError::new(
                FORMAT_TRACE,
                Location::Offset(0),
                "not an Android trace: expected '*version' or 'SLOW' at the start",
            )
        })),
    }
}

/// The data header of a combined or streaming trace, or of a `.data` file (None if there is
/// none or it is unreadable).
pub(crate) fn data_header(bytes: &[u8]) -> Option<DataHeader> {
    match detect(bytes) {
        Detected::AndroidKey => {
            let key = parse_key(bytes, FORMAT_TRACE, 0).ok()?;
            DataHeader::parse(&bytes[key.end_offset..], key.end_offset as u64).ok()
        }
        Detected::AndroidStreaming { .. } | Detected::AndroidData { .. } => {
            DataHeader::parse(bytes, 0).ok()
        }
        _ => None,
    }
}

/// Reads a `.key` + `.data` pair. Byte offsets in messages refer to the data file for the data.
pub(crate) fn read_pair(
    key_bytes: &[u8],
    data: &[u8],
    ctx: &ReadContext,
) -> Result<Builder, FormatError> {
    let key = parse_key_once(key_bytes, FORMAT_TRACE, 0, Some(ctx))?;
    let total = (key_bytes.len() + data.len()) as u64;
    read_key_and_data(key, key_bytes, data, 0, total, ctx)
}

/// The error for data versions no reader handles (SW64, unknown, and ART V2 data after a key
/// or in a `.data` file), if `detected` is one.
pub(crate) fn unsupported(detected: Detected, offset: u64) -> Option<FormatError> {
    let e = |msg: String| {
        Some(FormatError::new(
            FORMAT_TRACE,
            Location::Offset(offset),
            msg,
        ))
    };
    match detected {
        // ART's first V2 writer (2024) wrote its non-streaming traces this way: the key text,
        // then the data without a method or thread packet. No reader can name their records.
        Detected::AndroidV2 { version } => e(format!(
            "ART V2 data (version {version:#x}) after a key: the non-streaming layout of ART's \
             first V2 writer (2024), which ART itself wrote broken (no method or thread packets, \
             so no record can be named); record with --streaming. ART V2 traces are read as \
             files of their own"
        )),
        Detected::AndroidSw64 => {
            e("64-bit Dalvik data ('SW64') is not supported: no VM ever wrote it".to_string())
        }
        Detected::AndroidUnknownVersion { version } => e(format!(
            "unsupported data version {version} (expected 1, 2, 3 or a streaming 0xF1..0xF3)"
        )),
        _ => None,
    }
}

/// Reads the data section `data` that belongs to `key` (parsed from `key_bytes`, given back once
/// the builder has what it needs of them). `data_offset` is where `data` starts in its file (for
/// messages); `byte_len` the input size.
fn read_key_and_data(
    key: Key,
    key_bytes: &[u8],
    data: &[u8],
    data_offset: u64,
    byte_len: u64,
    ctx: &ReadContext,
) -> Result<Builder, FormatError> {
    let (mut b, tables, header, clock) = prepare(key, data, data_offset, byte_len)?;
    ctx.done_with(key_bytes);
    let section = data::Section {
        data,
        offset: data_offset,
        header: &header,
        clock,
    };
    data::decode(&mut b, tables, section, ctx)?;
    Ok(b)
}

/// Reads an Android trace handing its records to sinks made by `factory` instead of storing them
/// (see [`crate::trace::SinkFactory`]): the builder gets everything else. `Ok(None)` when the
/// input is not a combined key + data trace (ART streaming traces must be collected first;
/// [`read`] reads them, and gives the errors for other inputs).
pub fn read_to_sinks<F: SinkFactory>(
    bytes: &[u8],
    ctx: &ReadContext,
    factory: &F,
) -> Result<Option<Streamed<F::Sink>>, FormatError> {
    if detect(bytes) != Detected::AndroidKey {
        return Ok(None);
    }
    // The records are counted beside the key's parsing, from where the key's `*end` line
    // says they start (recounted if the parsed key ends elsewhere).
    let (prepared, early) = rayon::join(
        || {
            let key = parse_key_once(bytes, FORMAT_TRACE, 0, Some(ctx))?;
            let end = key.end_offset;
            let prepared = prepare(key, &bytes[end..], end as u64, bytes.len() as u64)?;
            ctx.done_with(&bytes[..end]);
            crate::timing::mark("key and tables");
            Ok::<_, FormatError>((end, prepared))
        },
        || {
            let end = key_end(bytes)?;
            let data = &bytes[end..];
            let header = DataHeader::parse(data, end as u64).ok()?;
            let pass1 = data::count_records(data, &header, false, ctx).ok();
            crate::timing::mark("records counted");
            Some((end, pass1?))
        },
    );
    let (data_offset, (mut b, tables, header, clock)) = prepared?;
    let pass1 = early.filter(|(end, _)| *end == data_offset).map(|(_, p)| p);
    let section = data::Section {
        data: &bytes[data_offset..],
        offset: data_offset as u64,
        header: &header,
        clock,
    };
    let sinks = data::decode_to_sinks(&mut b, tables, section, ctx, factory, pass1)?;
    Ok(Some((b, sinks)))
}

/// [`read_pair`] handing the records to sinks, as [`read_to_sinks`].
pub(crate) fn read_pair_to_sinks<F: SinkFactory>(
    key_bytes: &[u8],
    data: &[u8],
    ctx: &ReadContext,
    factory: &F,
) -> Result<Streamed<F::Sink>, FormatError> {
    let total = (key_bytes.len() + data.len()) as u64;
    let (prepared, pass1) = rayon::join(
        || {
            let key = parse_key_once(key_bytes, FORMAT_TRACE, 0, Some(ctx))?;
            let prepared = prepare(key, data, 0, total);
            ctx.done_with(key_bytes);
            prepared
        },
        || {
            let header = DataHeader::parse(data, 0).ok()?;
            data::count_records(data, &header, false, ctx).ok()
        },
    );
    let (mut b, tables, header, clock) = prepared?;
    let section = data::Section {
        data,
        offset: 0,
        header: &header,
        clock,
    };
    let sinks = data::decode_to_sinks(&mut b, tables, section, ctx, factory, pass1)?;
    Ok((b, sinks))
}

/// Where the records of a combined trace start if its key is valid: after the first line that
/// is `*end` (what [`parse_key`] finds for a valid key; the caller checks).
fn key_end(bytes: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(bytes, b"\n*end").find_map(|at| {
        let rest = &bytes[at + 5..];
        if rest.starts_with(b"\n") {
            Some(at + 6)
        } else if rest.starts_with(b"\r\n") {
            Some(at + 7)
        } else {
            None
        }
    })
}

/// Everything before the records: the data header, the builder with the key's options, clock,
/// diagnostics, threads and methods.
fn prepare(
    mut key: Key,
    data: &[u8],
    data_offset: u64,
    byte_len: u64,
) -> Result<(Builder, Tables, DataHeader, ClockMode), FormatError> {
    let header = DataHeader::parse(data, data_offset)?;
    if header.is_streaming() {
        return Err(FormatError::new(
            FORMAT_TRACE,
            Location::Offset(data_offset + 4),
            "a streaming data section after a key is not a valid trace",
        ));
    }
    let mut b = Builder::new(FORMAT_TRACE);
    b.source.version = Some(header.version as u32);
    b.source.options = key.options.clone();
    b.diagnostics.extend(header.diagnostic(data_offset));
    if let Some(d) = stated_facts(&mut b.source, &key.options, &header) {
        b.diag(d);
    }
    b.source.byte_len = byte_len;
    b.diagnostics.append(std::mem::take(&mut key.diagnostics));
    if key.version != header.version as u32 {
        b.diag(Diagnostic::new(
            Severity::Info,
            "version-mismatch",
            Location::Offset(data_offset + 4),
            format!(
                "the key says version {} but the data header says {}; the data header wins",
                key.version, header.version
            ),
        ));
    }
    let (clock, note) = clock_mode(key.option("clock"), header.has_time2());
    if let Some(d) = note {
        b.diag(d);
    }
    b.clock = Some(clock);
    b.axis_synthesized = clock == ClockMode::ThreadCpu;
    let tables = Tables::from_key(&mut b, &key.threads, &key.methods, |lookup| {
        data::named_lines(data, &header, lookup, key.methods.len())
    });
    Ok((b, tables, header, clock))
}

/// The typed facts of the key's options (`vm`, `pid`, `elapsed-time-usec`,
/// `data-file-overflow`, `clock-call-overhead-nsec`) and of the data header (start time). An
/// overhead that is not a number of at most [`MAX_OVERHEAD_NS`] is ignored, with the diagnostic
/// returned.
pub(crate) fn stated_facts(
    source: &mut SourceInfo,
    options: &[(String, String)],
    header: &DataHeader,
) -> Option<Diagnostic> {
    let option = |k: &str| {
        options
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.trim())
    };
    source.start = i64::try_from(header.start_time_us)
        .ok()
        .map(|epoch_us| StartTime {
            epoch_us,
            stated_by: StartStatedBy::DataHeader,
        });
    source.vm = option("vm").map(str::to_string);
    source.pid = option("pid").and_then(|p| p.parse().ok());
    source.stated_elapsed_us = option("elapsed-time-usec").and_then(|us| us.parse().ok());
    source.overflowed = option("data-file-overflow").map(|v| v == "true");
    let overhead = option("clock-call-overhead-nsec")?;
    match overhead.parse::<u64>() {
        Ok(ns) if ns <= MAX_OVERHEAD_NS => {
            source.call_overhead_ns = Some(ns);
            None
        }
        _ => Some(Diagnostic::warning(
            "bad-call-overhead",
            Location::File,
            format!(
                "clock-call-overhead-nsec={overhead} is not a time of 0 to {MAX_OVERHEAD_NS} ns; ignored (--compensate needs --overhead-ns)"
            ),
        )),
    }
}

/// Picks the clock from the key's `clock=` option and whether the records carry two times.
pub(crate) fn clock_mode(clock: Option<&str>, has_t2: bool) -> (ClockMode, Option<Diagnostic>) {
    match clock {
        Some("dual") if has_t2 => (ClockMode::Dual, None),
        Some("dual") => (
            ClockMode::ThreadCpu,
            Some(Diagnostic::warning(
                "clock-no-time2",
                Location::Offset(4),
                "clock=dual but the records have no second time field; reading thread-CPU only",
            )),
        ),
        Some("wall") => (ClockMode::Wall, None),
        Some("thread-cpu") | Some("global") => (ClockMode::ThreadCpu, None),
        None if has_t2 => (ClockMode::Dual, None),
        None => (ClockMode::ThreadCpu, None),
        Some(other) => (
            if has_t2 {
                ClockMode::Dual
            } else {
                ClockMode::ThreadCpu
            },
            Some(Diagnostic::warning(
                "clock-unknown",
                Location::File,
                format!("unknown clock '{other}' in the key; guessed from the record size"),
            )),
        ),
    }
}

/// Adds the `(unknown)` method that records naming ids missing from the key count as, with the
/// diagnostic that says so.
pub(crate) fn add_unknown_method(b: &mut Builder, at: Location, message: String) {
    b.add_method(
        UNKNOWN_METHOD_RAW_ID,
        UNKNOWN_METHOD_CLASS,
        "",
        "",
        None,
        None,
    );
    b.diag(Diagnostic::warning("unknown-method", at, message));
}

/// Keys with more method lines than this keep only the methods that some record names: a
/// method costs about 100 bytes in the model and more in every per-method table after it
/// (profiles, diffs, exports), where its key line may be 14 bytes. Real keys list the methods
/// the VM traced, which the records name anyway.
pub(crate) const EAGER_KEY_METHODS: usize = 1 << 16;

/// Sentinel for "no entry" in the lookup tables.
pub(crate) const NONE: u32 = u32::MAX;

/// Maps record method values and thread ids to model ids.
pub(crate) struct Tables {
    /// u16 tid → thread index (NONE: not seen yet).
    pub thread_of_tid: Vec<u32>,
    pub methods: MethodLookup,
}

impl Tables {
    /// Adds the key's threads and methods to `b` (in key order) and indexes them. A key of
    /// more than [`EAGER_KEY_METHODS`] methods keeps only those some record names: `named`
    /// tells, given the lookup from a record's method value to its line in `methods`, which
    /// lines are named (a superset is fine; a line left out turns its records into
    /// `(unknown)`).
    pub(crate) fn from_key(
        b: &mut Builder,
        threads: &[KeyThread],
        methods: &[KeyMethod],
        named: impl FnOnce(&MethodLookup) -> Vec<bool>,
    ) -> Tables {
        let mut thread_of_tid = vec![NONE; 65536];
        let mut seen_ids = rustc_hash::FxHashSet::default();
        let mut wide = Vec::new();
        let mut cap = ThreadCap::default();
        for t in threads {
            if !cap.admits(seen_ids.len(), || seen_ids.contains(&t.id)) {
                continue;
            }
            if !seen_ids.insert(t.id) {
                b.diag(Diagnostic::warning(
                    "key-duplicate-thread",
                    Location::File,
                    format!(
                        "thread id {} is listed twice in the key; the first name is used",
                        t.id
                    ),
                ));
                continue;
            }
            let tid = b.add_thread(t.id as u64, &String::from_utf8_lossy(t.name));
            if (0..65536).contains(&t.id) {
                thread_of_tid[t.id as usize] = tid.0;
            } else if t.id > 0 {
                wide.push((t.id, tid.0));
            }
        }
        b.diagnostics.extend(cap.diagnostic("*threads lines"));
        // Records carry u16 tids: a key tid above 65535 (old ART) matches its low 16 bits when
        // no exact id claims them.
        for (id, t) in wide {
            let slot = &mut thread_of_tid[(id & 0xFFFF) as usize];
            if *slot == NONE {
                *slot = t;
            }
        }
        let repeated = repeated_ids(methods);
        let named = (methods.len() > EAGER_KEY_METHODS).then(|| {
            let lines = methods.iter().zip(&repeated).enumerate();
            named(&MethodLookup::build(
                lines
                    .filter(|(_, (_, r))| !**r)
                    .map(|(i, (m, _))| (m.id, i as u32)),
            ))
        });
        let mut pairs: Vec<(u64, u32)> = Vec::new();
        let mut unnamed = 0u64;
        for (i, (m, repeated)) in methods.iter().zip(repeated).enumerate() {
            if repeated {
                // The line is read again only for the diagnostics that are kept.
                b.diag_lazy("key-duplicate-method", || {
                    Diagnostic::warning(
                        "key-duplicate-method",
                        Location::File,
                        format!("method id {:#x} is listed twice; the first is used", m.id),
                    )
                    .with_raw(String::from_utf8_lossy(m.raw))
                });
                continue;
            }
            if named
                .as_ref()
                .is_some_and(|n| !n.get(i).copied().unwrap_or(false))
            {
                unnamed += 1;
                continue;
            }
            let f = m.model_fields();
            let id = b.add_method(
                m.id,
                &f.class,
                &f.name,
                &f.signature,
                f.source_file.as_deref(),
                f.line,
            );
            pairs.push((m.id, id.0));
        }
        if unnamed > 0 {
            b.diag(Diagnostic::new(
                Severity::Info,
                "uncalled-methods",
                Location::File,
                format!(
                    "{unnamed} of the key's {} methods are named by no record and were left out (keys of more than {EAGER_KEY_METHODS} methods keep only the methods the records name)",
                    methods.len()
                ),
            ));
        }
        Tables {
            thread_of_tid,
            methods: MethodLookup::build(pairs.iter().copied()),
        }
    }
}

/// Record method value (low two bits clear) → method index.
pub(crate) enum MethodLookup {
    /// ART ids are `index << 2`: a table indexed by `id >> 2`.
    Dense(Vec<u32>),
    /// Dalvik ids are `Method*` pointers.
    Hashed(rustc_hash::FxHashMap<u32, u32>),
}

impl MethodLookup {
    #[inline]
    pub(crate) fn get(&self, id: u32) -> u32 {
        match self {
            MethodLookup::Dense(t) => t.get((id >> 2) as usize).copied().unwrap_or(NONE),
            MethodLookup::Hashed(h) => h.get(&id).copied().unwrap_or(NONE),
        }
    }
}

impl MethodLookup {
    /// The lookup of `(id, index)` pairs with distinct ids (the first pair of an id is kept),
    /// read twice and not collected: a list of them took 16 bytes a method line. Ids that are
    /// not multiples of 4 or do not fit 32 bits can never match a record.
    pub(crate) fn build(pairs: impl Iterator<Item = (u64, u32)> + Clone) -> MethodLookup {
        let usable = pairs.filter(|(id, _)| *id <= u32::MAX as u64 && *id & 3 == 0);
        let (count, max) = usable.clone().fold((0usize, 0u64), |(n, max), (id, _)| {
            (n + 1, max.max(id >> 2))
        });
        let max = max as usize;
        if max <= (count * 8).max(1 << 16) {
            let mut t = vec![NONE; max + 1];
            for (id, idx) in usable {
                let slot = &mut t[(id >> 2) as usize];
                if *slot == NONE {
                    *slot = idx;
                }
            }
            MethodLookup::Dense(t)
        } else {
            let mut h = rustc_hash::FxHashMap::default();
            h.reserve(count);
            for (id, idx) in usable {
                h.entry(id as u32).or_insert(idx);
            }
            MethodLookup::Hashed(h)
        }
    }
}

/// For each method line, whether an earlier line has its id. Without a hash table (a key of a
/// million methods would spend 50 MB on one): keys list ids in increasing order, so usually
/// there is nothing to find; otherwise one sort of (id, line).
fn repeated_ids(methods: &[KeyMethod]) -> Vec<bool> {
    let mut repeated = vec![false; methods.len()];
    if methods.windows(2).all(|w| w[0].id < w[1].id) {
        return repeated;
    }
    // Line indices sorted by (id, line): 4 bytes a line, where (id, line) pairs took 16 (a key
    // of nothing but one repeated 12-byte line had 16 MB in them).
    let mut order: Vec<u32> = (0..methods.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (methods[i as usize].id, i));
    for w in order.windows(2) {
        if methods[w[0] as usize].id == methods[w[1] as usize].id {
            repeated[w[1] as usize] = true;
        }
    }
    repeated
}

#[cfg(test)]
mod tests;
