//! `tracelens dump`: the record listing of `dmtracedump -o`, byte for byte.
//!
//! ```text
//! VERSION: 3                                  key version
//! Threads (2):                                key threads sorted by id, "%2d %s"
//!  1 main
//! Trace (threadID action usecs class.method signature):
//!  1 ent        30 ..android/app/Foo.bar (I)V  "%2d %s  %8u%c%s%s"
//! ```
//!
//! Per record: thread id, `ent`/`xit`/`unr`/`???`, time1, then the depth as dots (2 at each
//! thread's start, incremented before printing an enter, decremented after printing an exit; a
//! negative depth prints no dots and a `-` flag, one above 10000 prints 10000 dots and `+`), then
//! the method as `class.name signature` (the class alone, everything after the id, for key
//! lines of fewer than three fields or an empty class or name,
//! `???.??? methodId: 0x..` for ids missing from the key, C's `%#x`: `0` for zero). Unlike dmtracedump, the fifth field of
//! ART method lines (the source file) is not glued onto the signature, thread ids above 32767 work
//! and streaming traces are read (threads and methods united from the summary and the packets),
//! and names longer than 4 096 bytes are cut (`…`).
//! Works from the raw records in file order, not from the model.

use std::io::{self, Write};

use crate::formats::android::data::{DataHeader, RawRecord, for_each_record, record_area};
use crate::formats::android::key::DmtraceParts;
use crate::formats::android::{
    FORMAT_TRACE, Key, KeyMethod, KeyThread, MethodLookup, parse_key_once, streaming, v2,
};
use crate::formats::detect::{Detected, detect};
use crate::formats::{FormatError, ReadContext, ReleaseInput};
use crate::mapping::{Mapping, Resolver};
use crate::trace::{ClockMode, Diagnostic, Location};

/// Why a dump stopped.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("write failed: {0}")]
    Io(#[from] io::Error),
}

const MAX_DEPTH: usize = 10000;

/// The longest method name printed, in bytes (longer ones are cut and end in `…`): a name is
/// printed with every record, so a megabyte-long name in the key would make gigabytes of
/// output. Twice the model's [`crate::trace::MAX_STRING_BYTES`], as the name here is class,
/// name and signature together.
const MAX_NAME_BYTES: usize = 2 * crate::trace::MAX_STRING_BYTES;

/// Dumps a combined or streaming trace. Returns what damage it found that did not stop it (a
/// record cut short by the end of the file: dmtracedump's "hit EOF mid-record" warning).
pub fn dump(bytes: &[u8], out: &mut dyn Write) -> Result<Vec<Diagnostic>, DumpError> {
    dump_mapped(bytes, None, None, out)
}

/// Parses the key at the start of `bytes`, giving its pages back to `input` as it goes (its
/// lines are read again only for the methods the records name).
fn parse_key_giving_back<'a>(
    bytes: &'a [u8],
    input: Option<&dyn ReleaseInput>,
) -> Result<Key<'a>, FormatError> {
    let progress = crate::formats::Progress::default();
    let ctx = ReadContext {
        path: None,
        progress: &progress,
        input,
    };
    parse_key_once(bytes, FORMAT_TRACE, 0, Some(&ctx))
}

/// [`dump`] with the method names mapped back through an R8/ProGuard mapping; `input`, when
/// given, takes back the key's pages once they are read.
pub(crate) fn dump_mapped(
    bytes: &[u8],
    input: Option<&dyn ReleaseInput>,
    mapping: Option<&Mapping>,
    out: &mut dyn Write,
) -> Result<Vec<Diagnostic>, DumpError> {
    match detect(bytes) {
        Detected::AndroidKey => {
            let key = parse_key_giving_back(bytes, input)?;
            dump_key_and_data(
                key.version,
                &key.threads,
                &key.methods,
                &bytes[key.end_offset..],
                key.end_offset as u64,
                mapping,
                out,
            )
        }
        Detected::AndroidStreaming { .. } => {
            let scan = streaming::scan(bytes, |_, _| {}, None)?;
            let threads = scan.united_threads();
            let methods = scan.united_methods();
            let mut p = Printer::new(scan.key_version(), &threads, &methods, mapping, out)?;
            p.trace_line()?;
            streaming::scan(bytes, |_, r| p.record(r), None)?;
            p.finish()?;
            Ok(Vec::new())
        }
        Detected::AndroidV2 { .. } => dump_v2(bytes, mapping, out),
        Detected::AndroidData { .. } => Err(FormatError::new(
            FORMAT_TRACE,
            Location::Offset(0),
            "a data section without its key: dump the .key file (or the base name) instead",
        )
        .into()),
        other => Err(crate::formats::android::unsupported(other, 0)
            .unwrap_or_else(|| {
                FormatError::new(
                    FORMAT_TRACE,
                    Location::Offset(0),
                    "not an Android trace: expected '*version' or 'SLOW' at the start",
                )
            })
            .into()),
    }
}

/// Dumps an ART V2 file: threads from the thread packets, names from the method packets, the
/// time of each record in the model's ticks (µs, or ns for files whose times are not whole
/// µs): the CPU time for dual and thread-CPU clocks, else the wall time.
fn dump_v2(
    bytes: &[u8],
    mapping: Option<&Mapping>,
    out: &mut dyn Write,
) -> Result<Vec<Diagnostic>, DumpError> {
    let framing = v2::scan::Framing::of(bytes)?;
    let first = v2::scan::scan(bytes, framing, |_| {}, None)?;
    let (clock, _) = crate::formats::android::clock_mode(
        first.summary.as_ref().and_then(|s| s.option("clock")),
        first.header.is_dual(),
    );
    let unit = first.unit(clock != ClockMode::ThreadCpu);
    let divisor = v2::build::Ticks::of(unit, first.whole_thousands).divisor;
    let threads: Vec<KeyThread> = (first.threads.iter())
        .map(|&(tid, name)| KeyThread {
            id: tid as i64,
            name,
        })
        .collect();
    // Method values numbered densely as met: the method packets' first, then the records'.
    let mut dense_of: rustc_hash::FxHashMap<u64, u32> = Default::default();
    let mut raw_ids = Vec::new();
    let mut arena = Vec::new();
    let methods = v2::build::key_methods(
        &first.methods,
        |value| Some(dense_id(&mut dense_of, &mut raw_ids, value)),
        &mut arena,
    );
    let mut p = Printer::new(first.key_version(), &threads, &methods, mapping, out)?;
    p.raw_ids = raw_ids;
    p.trace_line()?;
    let mut slot_of: rustc_hash::FxHashMap<u32, usize> = Default::default();
    // The CPU time is the second of a dual-clock record, the only one of a thread-CPU one.
    let time_at = usize::from(clock == ClockMode::Dual);
    v2::scan::scan(
        bytes,
        framing,
        |r| {
            let next = slot_of.len();
            let slot = *slot_of.entry(r.tid).or_insert(next);
            let d = dense_id(&mut dense_of, &mut p.raw_ids, r.method & !3);
            // Event ids are 30 bits; a file naming more methods than that is not real.
            if d < 1 << 30 {
                let op = d << 2 | (r.method & 3) as u32;
                p.print(r.tid, slot, op, r.times[time_at] / divisor);
            }
        },
        None,
    )?;
    p.finish()?;
    Ok(Vec::new())
}

/// The dense id of the method value `value`, numbering it if it is new.
fn dense_id(
    dense_of: &mut rustc_hash::FxHashMap<u64, u32>,
    raw_ids: &mut Vec<u64>,
    value: u64,
) -> u32 {
    *dense_of.entry(value).or_insert_with(|| {
        raw_ids.push(value);
        (raw_ids.len() - 1) as u32
    })
}

/// Dumps a `.key` + `.data` pair, the method names mapped back through an R8/ProGuard mapping
/// when one is given; `input`, when given, takes back the key's pages once they are read.
pub(crate) fn dump_pair_mapped(
    key_bytes: &[u8],
    data: &[u8],
    input: Option<&dyn ReleaseInput>,
    mapping: Option<&Mapping>,
    out: &mut dyn Write,
) -> Result<Vec<Diagnostic>, DumpError> {
    let key = parse_key_giving_back(key_bytes, input)?;
    dump_key_and_data(
        key.version,
        &key.threads,
        &key.methods,
        data,
        0,
        mapping,
        out,
    )
}

fn dump_key_and_data(
    version: u32,
    threads: &[KeyThread],
    methods: &[KeyMethod],
    data: &[u8],
    data_offset: u64,
    mapping: Option<&Mapping>,
    out: &mut dyn Write,
) -> Result<Vec<Diagnostic>, DumpError> {
    let mut p = Printer::new(version, threads, methods, mapping, out)?;
    let header = match DataHeader::parse(data, data_offset) {
        Ok(h) if !h.is_streaming() => h,
        Ok(_) => {
            p.out.flush()?;
            return Err(FormatError::new(
                FORMAT_TRACE,
                Location::Offset(data_offset + 4),
                "a streaming data section after a key is not a valid trace",
            )
            .into());
        }
        Err(e) => {
            p.out.flush()?;
            return Err(e.into());
        }
    };
    p.trace_line()?;
    for_each_record(data, &header, |r| p.record(r));
    let partial = record_area(data, &header).1;
    p.finish()?;
    // dmtracedump: "WARNING: hit EOF mid-record" — a warning, not a failure.
    Ok(partial
        .map(|at| {
            Diagnostic::warning(
                "truncated",
                Location::Offset(data_offset + at as u64),
                format!("{FORMAT_TRACE}: file truncated inside a record; the records before it were dumped"),
            )
        })
        .into_iter()
        .collect())
}

/// The name dmtracedump prints for a method line (without the ART source-file tail).
fn dump_name(m: &KeyMethod) -> Vec<u8> {
    match m.dmtracedump_parts() {
        DmtraceParts::ClassOnly(class) => class.to_vec(),
        DmtraceParts::Named {
            class,
            name,
            signature,
        } => [class, b".", name, b" ", signature].concat(),
    }
}

/// [`dump_name`] with the class, name and signature mapped back (None: unchanged).
fn mapped_name(resolver: &mut Resolver, m: &KeyMethod) -> Option<Vec<u8>> {
    let DmtraceParts::Named {
        class,
        name,
        signature,
    } = m.dmtracedump_parts()
    else {
        return None;
    };
    let text = |b| std::str::from_utf8(b).ok();
    let (class, name, sig) = (text(class)?, text(name)?, text(signature)?);
    let r = resolver.resolve(class, name, sig);
    if r.outcome == crate::mapping::Outcome::ClassNotMapped && r.signature == sig {
        return None;
    }
    Some(format!("{}.{} {}", r.class, r.name, r.signature).into_bytes())
}

/// C's `%#x`: `0x` and lowercase hex digits, but zero as a bare `0`.
struct CHex(u64);

impl std::fmt::Display for CHex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            0 => f.write_str("0"),
            n => write!(f, "{n:#x}"),
        }
    }
}

struct Printer<'o, 'k> {
    out: io::BufWriter<&'o mut dyn Write>,
    methods: &'k [KeyMethod<'k>],
    resolver: Option<Resolver<'k>>,
    /// A record's method value → the key's first line with that id.
    lines: MethodLookup,
    /// The names printed so far, by line: made on a method's first record (a table of every
    /// method's name would take a key of a million methods to 80 MB).
    names: Vec<Option<Box<[u8]>>>,
    /// Depth per thread slot (the thread id for V1; V2 threads are numbered as met).
    depth: Vec<i32>,
    /// V2: the value records carry for each dense method id (printed for methods no packet
    /// names); empty for V1, whose records carry the key's ids.
    raw_ids: Vec<u64>,
    dots: Vec<u8>,
    line: Vec<u8>,
    error: Option<io::Error>,
}

impl<'o, 'k> Printer<'o, 'k> {
    fn new(
        version: u32,
        threads: &[KeyThread],
        methods: &'k [KeyMethod<'k>],
        mapping: Option<&'k Mapping>,
        out: &'o mut dyn Write,
    ) -> io::Result<Self> {
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        writeln!(out, "VERSION: {version}")?;
        let mut sorted: Vec<&KeyThread> = threads.iter().collect();
        sorted.sort_by_key(|t| t.id);
        writeln!(out, "Threads ({}):", sorted.len())?;
        for t in sorted {
            write!(out, "{:2} ", t.id)?;
            out.write_all(t.name)?;
            out.write_all(b"\n")?;
        }
        // Each id's first line: the lines in key order, the first of an id kept.
        let lines =
            MethodLookup::build((methods.iter().enumerate()).map(|(i, m)| (m.id, i as u32)));
        Ok(Printer {
            out,
            methods,
            resolver: mapping.map(Resolver::new),
            lines,
            names: vec![None; methods.len()],
            depth: vec![2; 65536],
            raw_ids: Vec::new(),
            dots: vec![b'.'; MAX_DEPTH],
            line: Vec::with_capacity(256),
            error: None,
        })
    }

    /// The name of the key's first method line with the record method value `id`, if any.
    fn name(&mut self, id: u32) -> Option<&[u8]> {
        let line = self.lines.get(id) as usize;
        let (methods, resolver) = (self.methods, &mut self.resolver);
        let name = self.names.get_mut(line)?.get_or_insert_with(|| {
            let m = &methods[line];
            let mut name = (resolver.as_mut())
                .and_then(|r| mapped_name(r, m))
                .unwrap_or_else(|| dump_name(m));
            crate::trace::shorten_bytes(&mut name, MAX_NAME_BYTES);
            name.into()
        });
        Some(name)
    }

    fn trace_line(&mut self) -> io::Result<()> {
        writeln!(
            self.out,
            "Trace (threadID action usecs class.method signature):"
        )
    }

    fn record(&mut self, r: RawRecord) {
        self.print(r.tid.into(), r.tid as usize, r.op, r.time1.into());
    }

    /// Prints a record of thread `tid`, whose depth is kept at `slot`, with the method value
    /// `op` and the time `time`.
    fn print(&mut self, tid: u32, slot: usize, op: u32, time: u64) {
        if self.error.is_some() {
            return;
        }
        let action = (op & 3) as usize;
        let id = op & !3;
        if slot >= self.depth.len() {
            self.depth.resize(slot + 1, 2);
        }
        let depth = &mut self.depth[slot];
        if action == 0 {
            *depth += 1;
        }
        let d = *depth;
        let (print_depth, note) = if d < 0 {
            (0, b'-')
        } else if d as usize > MAX_DEPTH {
            (MAX_DEPTH, b'+')
        } else {
            (d as usize, b' ')
        };
        if action != 0 {
            *depth -= 1;
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let action_str = ["ent", "xit", "unr", "???"][action];
        let _ = write!(line, "{tid:2} {action_str}  {time:8}");
        line.push(note);
        line.extend_from_slice(&self.dots[..print_depth]);
        match self.name(id) {
            Some(n) => line.extend_from_slice(n),
            None => {
                let raw = self.raw_ids.get((id >> 2) as usize).copied();
                let _ = write!(line, "???.??? methodId: {}", CHex(raw.unwrap_or(id.into())));
            }
        }
        line.push(b'\n');
        let written = self.out.write_all(&line);
        self.line = line;
        if let Err(e) = written {
            self.error = Some(e);
        }
    }

    fn finish(mut self) -> Result<(), DumpError> {
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        self.out.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::android::writer::{Event, Layout, MethodDef, TraceSpec, write_trace};
    use crate::trace::{Action, ClockMode};

    fn spec(layout: Layout) -> TraceSpec {
        let mut s = TraceSpec::new(layout, ClockMode::Dual);
        s.threads = vec![(3, "b".into()), (1, "main".into())];
        s.methods = vec![MethodDef {
            id: 4,
            class: "a.B".into(),
            name: "run".into(),
            signature: "()V".into(),
            source_file: Some("B.java".into()),
            line: None,
        }];
        let e = |tid, method_id, action, time1| Event {
            tid,
            method_id,
            action,
            time1,
            time2: time1 * 2,
        };
        s.events = vec![
            e(1, 4, Action::Exit, 0),
            e(1, 4, Action::Exit, 1),
            e(1, 4, Action::Exit, 2),
            e(3, 8, Action::Enter, 5),
            e(1, 4, Action::Enter, 7),
            e(1, 4, Action::Unroll, 9),
            e(1, 4, Action::Exit, 11),
        ];
        s
    }

    const EXPECTED: &str = "VERSION: 3\nThreads (2):\n 1 main\n 3 b\n\
        Trace (threadID action usecs class.method signature):\n \
        1 xit         0 ..a.B.run ()V\n \
        1 xit         1 .a.B.run ()V\n \
        1 xit         2 a.B.run ()V\n \
        3 ent         5 ...???.??? methodId: 0x8\n \
        1 ent         7 a.B.run ()V\n \
        1 unr         9 a.B.run ()V\n \
        1 xit        11-a.B.run ()V\n";

    #[test]
    fn dumps_like_dmtracedump() {
        for layout in [Layout::V3, Layout::Streaming] {
            let bytes = write_trace(&spec(layout));
            let mut out = Vec::new();
            dump(&bytes, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), EXPECTED, "{layout:?}");
        }
    }

    #[test]
    fn art_v2_dumps_as_its_v1_original_and_damage_does_not_panic() {
        use crate::formats::android::v2::Revision;
        use crate::formats::android::v2::writer::{V2Layout, reencode};
        let v1 = write_trace(&spec(Layout::Streaming));
        for revision in [Revision::Early, Revision::Later] {
            for streaming in [false, true] {
                let v2 = reencode(
                    &v1,
                    V2Layout {
                        revision,
                        streaming,
                    },
                )
                .unwrap();
                let mut out = Vec::new();
                dump(&v2, &mut out).unwrap();
                let expected = EXPECTED.replacen("VERSION: 3", "VERSION: 5", 1);
                assert_eq!(String::from_utf8(out).unwrap(), expected, "{revision:?}");
                for cut in 0..v2.len() {
                    let _ = dump(&v2[..cut], &mut Vec::new());
                    let mut bad = v2.clone();
                    bad[cut] ^= 0x5A;
                    let _ = dump(&bad, &mut Vec::new());
                }
            }
        }
    }

    #[test]
    fn header_only_prints_key_then_fails() {
        let bytes = b"*version\n3\n*threads\n1\tmain\n*methods\n*end\nSLOW\ndata follows\n";
        let mut out = Vec::new();
        let err = dump(bytes, &mut out).unwrap_err();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "VERSION: 3\nThreads (1):\n 1 main\n"
        );
        assert!(err.to_string().contains("data section missing"), "{err}");
    }
}
