//! `perf.data` recordings, as `simpleperf record -g` and Linux `perf record -g` write them, read
//! through the `linux-perf-data` crate into the samples the protobuf reader makes ([`Decoder`]),
//! then named and turned into calls by the same [`super::build`].
//!
//! | part | what it gives |
//! |---|---|
//! | attributes (event descriptions) | the event types, one per attribute |
//! | `MMAP` / `MMAP2` records | per process, the files mapped at each address range |
//! | `COMM` / `FORK` records | thread names and processes; a forked process inherits its parent's mappings |
//! | `SAMPLE` records | thread, time (ns), period (the weight) and callchain (leaf first) |
//! | `LOST` records | samples the kernel dropped, a diagnostic |
//! | simpleperf's `FILE2` / `FILE` features | per file, the symbol table simpleperf took on the device |
//! | simpleperf's `META_INFO` feature | package, app type, SDK, build type, `trace_offcpu` |
//!
//! **Names.** A frame is the file its address is mapped from (`class`) and the symbol of the
//! file's table that holds the address in the file (`name`). Without a table (Linux perf keeps
//! none: its symbols are in the binaries, which are not read) or outside every symbol, the frame
//! reads `libfoo.so+0x1a2b`, the address in the file; an address no mapping holds reads
//! `[unknown]+0xADDRESS`. No name is invented.
//!
//! **Untrusted input.** The crate sizes buffers by what the header says, so the header's
//! sections, the feature table and the event descriptions are checked against the file first
//! ([`check_layout`]); a record that does not parse ends the reading with a diagnostic, keeping
//! the samples before it. A file without sample callchains, or without mappings, is an error
//! naming what is missing.

use std::io::Cursor;

use linux_perf_data::linux_perf_event_reader::{
    EventRecord, RawEventRecord, ReadFormat, RecordType, SampleFormat, SampleRecord,
};
use linux_perf_data::{PerfFile, PerfFileReader, PerfFileRecord, SimpleperfTypeSpecificInfo};
use rustc_hash::FxHashMap;

use super::decode::{Decoded, Decoder};
use super::frame::FrameKey;
use super::proto::MetaInfo;
use crate::formats::{FormatError, ReadContext, cancelled};
use crate::trace::{Builder, Diagnostic, ExecKind, Location};

/// The format's name in the model and in messages.
pub const FORMAT: &str = "perf.data";

/// Callchain entries at or above this are context markers (`PERF_CONTEXT_KERNEL`, ...), not
/// addresses.
const PERF_CONTEXT_MAX: u64 = -4095i64 as u64;

/// Records between two looks at the cancel flag.
const CANCEL_CHECK: u64 = 1 << 14;

/// Reads a `perf.data` recording into a builder, as [`super::read`] does a protobuf.
pub fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Builder, FormatError> {
    check_layout(bytes).map_err(|(at, what)| error(at, what))?;
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = PerfFileReader::parse_file(Cursor::new(bytes))
        .map_err(|e| error(0, format!("the header does not parse: {e}")))?;
    let mut r = Reader::new(&perf_file);
    loop {
        let record = match record_iter.next_record(&mut perf_file) {
            Ok(Some(record)) => record,
            Ok(None) => break,
            Err(e) => {
                r.d.out.diagnostics.push(Diagnostic::warning(
                    "bad-record",
                    Location::File,
                    format!("a record does not parse ({e}); the records after it were not read"),
                ));
                break;
            }
        };
        r.d.out.records += 1;
        if r.d.out.records.is_multiple_of(CANCEL_CHECK) && ctx.progress.is_cancelled() {
            return Err(cancelled(FORMAT));
        }
        if let PerfFileRecord::EventRecord { attr_index, record } = record {
            match (callchain_fits(&record) && build_id_fits(&record)).then(|| record.parse()) {
                Some(Ok(parsed)) => r.event(attr_index, parsed),
                _ => r.bad_records += 1,
            }
        }
    }
    ctx.progress.add_bytes(bytes.len() as u64);
    let decoded = r.finish()?;
    Ok(super::build::build(
        decoded,
        FORMAT,
        None,
        bytes.len() as u64,
    ))
}

fn error(at: u64, what: impl Into<String>) -> FormatError {
    FormatError::new(FORMAT, Location::Offset(at), what)
}

/// A range of a process's addresses mapped from a file.
#[derive(Clone, Copy)]
struct Mapping {
    start: u64,
    end: u64,
    /// The offset in the file of `start`.
    page_offset: u64,
    file: u32,
}

/// A file frames are in: its path, and the symbol table simpleperf kept of it (sorted by
/// address), with how an offset in the file becomes an address of that table.
struct FileInfo {
    path: String,
    symbols: Vec<(u64, u32)>,
    names: Vec<String>,
    /// Added (wrapping) to an offset in the file to make an address of the table.
    bias: u64,
    /// The table holds run-time addresses (the kernel's and its modules', as simpleperf
    /// records them): a sampled address is looked up as it is, not as an offset in the file.
    absolute: bool,
    kind: ExecKind,
}

/// The reader's state between records.
struct Reader {
    d: Decoder<'static>,
    /// Per process id, its mappings, latest last.
    maps: FxHashMap<i32, Vec<Mapping>>,
    files: Vec<FileInfo>,
    file_ids: FxHashMap<String, u32>,
    /// simpleperf's symbol tables by path, until a mapping names their file.
    tables: FxHashMap<String, FileInfo>,
    /// Frames by (process, address): addresses repeat from sample to sample. Cleared when a
    /// mapping is added.
    frames: FxHashMap<(i32, u64), FrameKey>,
    chain: Vec<FrameKey>,
    samples: u64,
    without_callchain: u64,
    bad_records: u64,
    lost: u64,
}

impl Reader {
    fn new(perf_file: &PerfFile) -> Self {
        let mut r = Reader {
            d: Decoder::default(),
            maps: FxHashMap::default(),
            files: Vec::new(),
            file_ids: FxHashMap::default(),
            tables: symbol_tables(perf_file),
            frames: FxHashMap::default(),
            chain: Vec::new(),
            samples: 0,
            without_callchain: 0,
            bad_records: 0,
            lost: 0,
        };
        r.d.out.meta = Some(meta_info(perf_file));
        r
    }

    fn event(&mut self, attr_index: usize, record: EventRecord<'_>) {
        match record {
            EventRecord::Sample(s) => self.sample(attr_index, &s),
            EventRecord::Comm(c) => {
                let name = String::from_utf8_lossy(&c.name.as_slice()).into_owned();
                let pid = u32::try_from(c.pid).unwrap_or(0);
                self.d.out.thread_info.insert(c.tid, (pid, name));
            }
            EventRecord::Fork(f) => {
                if f.pid != f.ppid
                    && let Some(parent) = self.maps.get(&f.ppid).cloned()
                {
                    self.maps.insert(f.pid, parent);
                }
                let info = self.d.out.thread_info.get(&f.ptid).cloned();
                let pid = u32::try_from(f.pid).unwrap_or(0);
                let name = info.map(|i| i.1).unwrap_or_default();
                self.d.out.thread_info.entry(f.tid).or_insert((pid, name));
            }
            EventRecord::Mmap(m) => self.map(m.pid, m.address, m.length, m.page_offset, &m.path),
            EventRecord::Mmap2(m) => self.map(m.pid, m.address, m.length, m.page_offset, &m.path),
            EventRecord::Lost(l) => self.lost = self.lost.saturating_add(l.count),
            _ => {}
        }
    }

    fn map(
        &mut self,
        pid: i32,
        start: u64,
        len: u64,
        page_offset: u64,
        path: &linux_perf_data::linux_perf_event_reader::RawData<'_>,
    ) {
        let path = String::from_utf8_lossy(&path.as_slice()).into_owned();
        // Linux perf names the kernel's map `[kernel.kallsyms]_text`; simpleperf's tables
        // `[kernel.kallsyms]`.
        let path = if path.starts_with("[kernel.kallsyms]") {
            "[kernel.kallsyms]".to_string()
        } else {
            path
        };
        let file = self.file(&path);
        self.maps.entry(pid).or_default().push(Mapping {
            start,
            end: start.saturating_add(len),
            page_offset,
            file,
        });
        self.frames.clear();
    }

    fn file(&mut self, path: &str) -> u32 {
        if let Some(&id) = self.file_ids.get(path) {
            return id;
        }
        let id = self.files.len() as u32;
        let info = self.tables.remove(path).unwrap_or_else(|| FileInfo {
            path: path.to_string(),
            symbols: Vec::new(),
            names: Vec::new(),
            bias: 0,
            absolute: false,
            kind: kind_of(path, false),
        });
        self.files.push(info);
        self.file_ids.insert(path.to_string(), id);
        id
    }

    fn sample(&mut self, attr_index: usize, s: &SampleRecord<'_>) {
        self.samples += 1;
        let Some(callchain) = &s.callchain else {
            self.without_callchain += 1;
            return;
        };
        let pid = s.pid.unwrap_or(-1);
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        for i in 0..callchain.len() {
            match callchain.get(i) {
                Some(addr) if addr < PERF_CONTEXT_MAX => chain.push(self.frame(pid, addr)),
                _ => {}
            }
        }
        let tid = s.tid.unwrap_or(pid);
        let time = s.timestamp.unwrap_or(0);
        let weight = s.period.unwrap_or(1);
        let event_type = u32::try_from(attr_index).unwrap_or(u32::MAX);
        self.d
            .add_sample(tid, time, &chain, weight, event_type, false);
        self.chain = chain;
    }

    /// The frame of `addr` in process `pid` (or in the kernel's mappings).
    fn frame(&mut self, pid: i32, addr: u64) -> FrameKey {
        if let Some(&f) = self.frames.get(&(pid, addr)) {
            return f;
        }
        let mapping = [pid, -1].iter().find_map(|p| {
            self.maps
                .get(p)?
                .iter()
                .rev()
                .find(|m| m.start <= addr && addr < m.end)
                .copied()
        });
        let key = match mapping {
            Some(m) => {
                let file = &self.files[m.file as usize];
                let vaddr = if file.absolute {
                    addr
                } else {
                    let offset = (addr - m.start).wrapping_add(m.page_offset);
                    offset.wrapping_add(file.bias)
                };
                let symbol = symbol_at(&file.symbols, vaddr);
                FrameKey::of(m.file, symbol.map_or(-1, |i| i as i32), vaddr, file.kind)
            }
            None => FrameKey::of(self.file("[unknown]"), -1, addr, ExecKind::Native),
        };
        self.frames.insert((pid, addr), key);
        key
    }

    /// What was read, as the protobuf reader's decoded records; an error when the samples
    /// cannot make stacks.
    fn finish(self) -> Result<Decoded, FormatError> {
        let Reader {
            d,
            maps,
            files,
            samples,
            without_callchain,
            bad_records,
            lost,
            ..
        } = self;
        if samples > 0 && without_callchain == samples {
            return Err(error(
                0,
                format!(
                    "none of the {samples} samples has a callchain: record with call graphs \
                     (`simpleperf record -g` or `perf record -g`)"
                ),
            ));
        }
        if samples > 0 && maps.is_empty() {
            return Err(error(
                0,
                "the recording has no mmap records, so no frame can be placed in a file",
            ));
        }
        let mut out = d.finish();
        out.files = files
            .into_iter()
            .enumerate()
            .map(|(i, f)| (i as u32, (f.path, f.names)))
            .collect();
        if lost > 0 {
            out.lost = Some((samples, lost));
        }
        if without_callchain > 0 {
            out.diagnostics.push(Diagnostic::warning(
                "no-callchain",
                Location::File,
                format!("{without_callchain} samples have no callchain; they were left out"),
            ));
        }
        if bad_records > 0 {
            out.diagnostics.push(Diagnostic::warning(
                "bad-record",
                Location::File,
                format!("{bad_records} records do not parse; they were skipped"),
            ));
        }
        Ok(out)
    }
}

/// Whether a record's build id, if it is an `MMAP2` record with one, is at most 20 bytes long: the
/// crate asserts it (a panic), where a longer one is a damaged record.
fn build_id_fits(record: &RawEventRecord<'_>) -> bool {
    use linux_perf_data::linux_perf_event_reader::constants::PERF_RECORD_MISC_MMAP_BUILD_ID;
    /// The build id's length follows pid, tid, address, length and page offset.
    const LEN_AT: usize = 4 + 4 + 8 + 8 + 8;
    if record.record_type != RecordType::MMAP2 || record.misc & PERF_RECORD_MISC_MMAP_BUILD_ID == 0
    {
        return true;
    }
    // A record too short for the length is refused by the crate's parse, with an error.
    let data = record.data.as_slice();
    data.get(LEN_AT).is_none_or(|&len| len <= 20)
}

/// Whether a record's callchain, if it is a sample with one, holds no more entries than its
/// bytes: the crate sizes it by multiplying the count it reads, which a damaged count overflows.
/// The fields before the callchain are those the crate reads, in its order.
fn callchain_fits(record: &RawEventRecord<'_>) -> bool {
    let info = &record.parse_info;
    let format = info.sample_format;
    if record.record_type != RecordType::SAMPLE || !format.contains(SampleFormat::CALLCHAIN) {
        return true;
    }
    let data = record.data.as_slice();
    let word = |at: usize| -> Option<u64> {
        let b = data.get(at..at.checked_add(8)?)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    };
    let fixed = [
        SampleFormat::IDENTIFIER,
        SampleFormat::IP,
        SampleFormat::TID,
        SampleFormat::TIME,
        SampleFormat::ADDR,
        SampleFormat::ID,
        SampleFormat::STREAM_ID,
        SampleFormat::CPU,
        SampleFormat::PERIOD,
    ];
    let mut at = 8 * fixed.iter().filter(|&&f| format.contains(f)).count();
    if format.contains(SampleFormat::READ) {
        let read = info.read_format;
        let times = [
            ReadFormat::TOTAL_TIME_ENABLED,
            ReadFormat::TOTAL_TIME_RUNNING,
        ];
        let times = 8 * times.iter().filter(|&&f| read.contains(f)).count();
        let id = if read.contains(ReadFormat::ID) { 8 } else { 0 };
        if read.contains(ReadFormat::GROUP) {
            at += 8 + times + id;
        } else {
            let Some(nr) = word(at).and_then(|n| usize::try_from(n).ok()) else {
                return false;
            };
            let values = nr.checked_mul(8 + id);
            let Some(next) = values.and_then(|v| (at + 8 + times).checked_add(v)) else {
                return false;
            };
            at = next;
        }
    }
    let Some(nr) = word(at) else {
        return false;
    };
    nr.checked_mul(8)
        .and_then(|n| usize::try_from(n).ok())
        .is_some_and(|n| n <= data.len() - (at + 8))
}

/// The index of the symbol of `symbols` (sorted by address) that holds `vaddr`.
fn symbol_at(symbols: &[(u64, u32)], vaddr: u64) -> Option<usize> {
    let i = symbols
        .partition_point(|&(start, _)| start <= vaddr)
        .checked_sub(1)?;
    let (start, len) = symbols[i];
    (vaddr - start < u64::from(len.max(1))).then_some(i)
}

/// How the code of a file runs: JIT caches hold JIT-compiled Java, dex files interpreted Java.
fn kind_of(path: &str, dex: bool) -> ExecKind {
    if path.contains("[JIT") || path.contains("jit-cache") {
        ExecKind::Jit
    } else if dex {
        ExecKind::Interpreted
    } else {
        ExecKind::Native
    }
}

/// simpleperf's symbol tables by path (none for Linux perf, or when they do not parse).
fn symbol_tables(perf_file: &PerfFile) -> FxHashMap<String, FileInfo> {
    let Ok(Some(files)) = perf_file.simpleperf_symbol_tables() else {
        return FxHashMap::default();
    };
    files
        .into_iter()
        .map(|f| {
            use linux_perf_data::simpleperf_dso_type::{
                DSO_DEX_FILE, DSO_KERNEL, DSO_KERNEL_MODULE,
            };
            let dex = f.r#type == DSO_DEX_FILE;
            let absolute = [DSO_KERNEL, DSO_KERNEL_MODULE].contains(&f.r#type);
            // An ELF file's table is of virtual addresses: an offset in the file maps to one
            // by the file offset of its lowest address.
            let bias = match f.type_specific_msg {
                Some(SimpleperfTypeSpecificInfo::ElfFile(e))
                    if e.file_offset_of_min_vaddr != u64::MAX =>
                {
                    f.min_vaddr.wrapping_sub(e.file_offset_of_min_vaddr)
                }
                _ => 0,
            };
            let mut symbols: Vec<(u64, u32, String)> = f
                .symbol
                .into_iter()
                .map(|s| (s.vaddr, s.len, s.name))
                .collect();
            symbols.sort_by_key(|s| s.0);
            let kind = kind_of(&f.path, dex);
            let info = FileInfo {
                path: f.path.clone(),
                symbols: symbols.iter().map(|s| (s.0, s.1)).collect(),
                names: symbols.into_iter().map(|s| s.2).collect(),
                bias,
                absolute,
                kind,
            };
            (f.path, info)
        })
        .collect()
}

/// The event types (one per attribute) and simpleperf's meta info, as the protobuf's.
fn meta_info(perf_file: &PerfFile) -> MetaInfo {
    let event_type = perf_file
        .event_attributes()
        .iter()
        .enumerate()
        .map(|(i, a)| match a.name() {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => format!("event {i} ({:?})", a.attr.type_),
        })
        .collect();
    let meta = perf_file.simpleperf_meta_info().ok().flatten();
    let get = |k: &str| meta.as_ref().and_then(|m| m.get(k)).map(|v| v.to_string());
    MetaInfo {
        event_type,
        app_package_name: get("app_package_name"),
        app_type: get("app_type"),
        android_sdk_version: get("android_sdk_version"),
        android_build_type: get("android_build_type"),
        trace_offcpu: get("trace_offcpu").map(|v| v == "true"),
    }
}

/// Little-endian u64 at `at`, if the bytes are there.
fn u64_at(bytes: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    let b = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

/// A section `(offset, size)` read at `at`, which must lie inside the file.
fn section_at(bytes: &[u8], at: u64, what: &str) -> Result<(u64, u64), (u64, String)> {
    let (offset, size) = (u64_at(bytes, at), u64_at(bytes, at + 8));
    let (Some(offset), Some(size)) = (offset, size) else {
        return Err((at, format!("the file ends inside the {what}'s place")));
    };
    if offset
        .checked_add(size)
        .is_none_or(|end| end > bytes.len() as u64)
    {
        return Err((
            at,
            format!("the {what} ({size} bytes at {offset}) goes past the end of the file"),
        ));
    }
    Ok((offset, size))
}

/// The feature that describes the events (`HEADER_EVENT_DESC`).
const FEATURE_EVENT_DESC: u32 = 12;

/// Checks what the crate sizes buffers and loops by: the header's sections, the feature table
/// and every feature section lie inside the file; the attribute size is one of an attribute;
/// the event descriptions' counts and lengths fit their section. Errors are (offset, what).
fn check_layout(bytes: &[u8]) -> Result<(), (u64, String)> {
    const HEADER: u64 = 104;
    if (bytes.len() as u64) < HEADER || !bytes.starts_with(super::PERF_DATA_MAGIC) {
        return Err((0, "expected 'PERFILE2' and a 104-byte header".into()));
    }
    let attr_size = u64_at(bytes, 16).unwrap_or(0);
    if !(64..=4096).contains(&attr_size) {
        return Err((
            16,
            format!("an attribute size of {attr_size} bytes (64 to 4096 expected)"),
        ));
    }
    section_at(bytes, 24, "attribute section")?;
    let (data, data_size) = section_at(bytes, 40, "data section")?;
    let (types, types_size) = section_at(bytes, 56, "event type section")?;
    // Each event type entry names a section of event ids.
    let entry = attr_size + 16;
    for k in 0..types_size / entry {
        section_at(bytes, types + k * entry + attr_size, "event ids")?;
    }
    let mut table = data + data_size;
    for word in 0..4u32 {
        let flags = u64_at(bytes, 72 + 8 * u64::from(word)).unwrap_or(0);
        for bit in (0..64).filter(|b| flags >> b & 1 == 1) {
            let (offset, size) = section_at(bytes, table, "feature section")?;
            if word * 64 + bit == FEATURE_EVENT_DESC {
                check_event_desc(bytes, offset, size)?;
            }
            table += 16;
        }
    }
    Ok(())
}

/// Checks the event descriptions: `nr`, `attr_size`, then per event an attribute, `nr_ids`, a
/// string (its length, its bytes) and the ids, all inside the section.
fn check_event_desc(bytes: &[u8], offset: u64, size: u64) -> Result<(), (u64, String)> {
    let end = offset + size;
    let bad = |at: u64| {
        (
            at,
            "the event descriptions do not fit their section".to_string(),
        )
    };
    let nr = u32_at(bytes, offset).ok_or(bad(offset))?;
    let attr_size = u64::from(u32_at(bytes, offset + 4).ok_or(bad(offset))?);
    if !(64..=4096).contains(&attr_size) {
        return Err(bad(offset + 4));
    }
    let mut at = offset + 8;
    for _ in 0..nr {
        at += attr_size;
        let ids = u64::from(u32_at(bytes, at).filter(|_| at + 4 <= end).ok_or(bad(at))?);
        let len = u64::from(
            u32_at(bytes, at + 4)
                .filter(|_| at + 8 <= end)
                .ok_or(bad(at))?,
        );
        at += 8 + len + 8 * ids;
        if at > end {
            return Err(bad(at));
        }
    }
    Ok(())
}
