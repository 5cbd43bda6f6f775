//! `perf.data` recordings: a real one from Linux `perf record -g` (tests/data/perf, see its
//! README) whose per-thread, self and total sample counts equal those of `perf script`'s own
//! decoding of it; its names read `file+0xADDRESS` (no binaries are read); files that lack a
//! needed part are refused with an error naming it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tracelens::analysis::samples::SampleCounts;
use tracelens::formats::{Progress, ReadContext, read_bytes};
use tracelens::trace::MethodId;

use crate::util::tracelens;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/perf")
        .join(name)
}

/// Samples per thread id, and per frame (`base name+0xADDRESS`) the samples where it is the
/// leaf and those where it is on the stack (once per sample).
#[derive(Debug, Default, PartialEq)]
struct Counts {
    per_thread: BTreeMap<u64, u64>,
    per_frame: BTreeMap<String, (u64, u64)>,
}

impl Counts {
    fn add(&mut self, tid: u64, frames: &[String]) {
        *self.per_thread.entry(tid).or_default() += 1;
        let mut seen: Vec<&String> = Vec::new();
        for (k, f) in frames.iter().enumerate() {
            let e = self.per_frame.entry(f.clone()).or_default();
            e.0 += u64::from(k == 0);
            if !seen.contains(&f) {
                seen.push(f);
                e.1 += 1;
            }
        }
    }
}

/// `perf script -F tid,ip,sym,dso`: a line with the thread id, then one line per frame (leaf
/// first) `ADDRESS [SYMBOL] (PATH)`, then a blank line. A frame is named `name(path, symbol,
/// address)`.
fn perf_script_counts(text: &str, name: impl Fn(&str, &str, &str) -> String) -> Counts {
    let mut c = Counts::default();
    let mut sample: Option<(u64, Vec<String>)> = None;
    for line in text.lines().chain([""]) {
        let line = line.trim();
        if line.is_empty() {
            if let Some((tid, frames)) = sample.take() {
                c.add(tid, &frames);
            }
        } else if let Some((addr, rest)) = line.split_once(' ') {
            let (symbol, path) = rest.rsplit_once(" (").unwrap_or(("", rest));
            let path = path.trim_matches(['(', ')']);
            let frames = &mut sample.as_mut().expect("a sample's thread first").1;
            frames.push(name(path, symbol.trim(), addr));
        } else {
            sample = Some((line.parse().unwrap(), Vec::new()));
        }
    }
    c
}

/// `base name+0xADDRESS`, the name of a frame without a symbol.
fn unnamed(path: &str, addr: &str) -> String {
    format!("{}+0x{addr}", path.rsplit('/').next().unwrap())
}

/// The counts of the reader: per thread id, and per method name (self, total).
fn read_counts(bytes: &[u8]) -> (tracelens::trace::Trace, Counts) {
    let progress = Progress::default();
    let trace = read_bytes(bytes, &ReadContext::new(None, &progress)).unwrap();
    let counts = SampleCounts::of(&trace).unwrap();
    let mut got = Counts::default();
    for (t, th) in trace.threads.iter().enumerate() {
        got.per_thread.insert(th.raw_id, counts.thread_samples[t]);
    }
    for m in 0..trace.methods.len() {
        let (own, total) = counts.method(MethodId(m as u32));
        if total > 0 {
            let name = trace.str(trace.methods[m].name).to_string();
            got.per_frame.insert(name, (own, total));
        }
    }
    (trace, got)
}

#[test]
fn a_linux_perf_recording_counts_as_perf_script_decodes_it() {
    let bytes = std::fs::read(data("threads.data")).unwrap();
    let (trace, got) = read_counts(&bytes);
    assert_eq!(trace.source.format, "perf.data");
    let script = std::fs::read_to_string(data("threads.perf-script.txt")).unwrap();
    let want = perf_script_counts(&script, |path, _, addr| unnamed(path, addr));
    assert_eq!(want.per_thread.values().sum::<u64>(), 679);
    assert_eq!(got, want);
    assert_eq!(trace.threads.len(), 2);
    assert!(trace.threads.iter().all(|t| t.name == "threads"));
    assert!(trace.call_count() > 0, "calls are made from the samples");
    let counts = SampleCounts::of(&trace).unwrap();
    assert_eq!(counts.event_types[0].samples, 679);
}

#[test]
fn the_commands_read_perf_data() {
    let f = data("threads.data");
    let f = f.to_str().unwrap();
    let o = tracelens(&["summary", "--json", f]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json[0]["format"], "perf.data");
    assert_eq!(json[0]["samples"], 679);
    let o = tracelens(&["convert", f, "--to", "collapsed", "-o", "-"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let total: u64 = text
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 679);
    assert!(
        text.contains("threads+0x"),
        "unnamed frames read file+0xADDRESS"
    );
}

/// The recording with its header kept and its records cut, or its attributes' size spoiled.
#[test]
fn missing_parts_are_named() {
    let bytes = std::fs::read(data("threads.data")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let check = |name: &str, bytes: &[u8], want: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let o = tracelens(&["info", file.to_str().unwrap()]);
        assert!(!o.status.success(), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("perf.data") && err.contains(want),
            "{name}: {err}"
        );
    };
    // A header only: its sections point past the end.
    check("header.data", &bytes[..104], "past the end of the file");
    let mut zero_attr = bytes.clone();
    zero_attr[16..24].copy_from_slice(&0u64.to_le_bytes());
    check("attr.data", &zero_attr, "attribute size");
    // Every record but the samples' mappings: no frame can be placed.
    let mut short = b"PERFILE2".to_vec();
    short.extend_from_slice(&104u64.to_le_bytes());
    short.extend_from_slice(&136u64.to_le_bytes());
    short.resize(4096, 0);
    check("empty.data", &short, "perf.data");
}

/// `bytes` (a perf.data file) with simpleperf's feature sections added: `META_INFO` (129) and
/// `FILE2` (132), after the file's own features, the feature table rewritten for them. No
/// simpleperf runs here, so this stands in for a recording simpleperf made.
fn with_simpleperf_features(bytes: &[u8], meta: &[u8], file2: &[u8]) -> Vec<u8> {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let table = (u64_at(40) + u64_at(48)) as usize;
    let mut flags = [u64_at(72), u64_at(80), u64_at(88), u64_at(96)];
    let mut sections: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut entry = table;
    for bit in 0..256u32 {
        if flags[bit as usize / 64] >> (bit % 64) & 1 == 1 {
            let (offset, size) = (u64_at(entry) as usize, u64_at(entry + 8) as usize);
            sections.insert(bit, bytes[offset..offset + size].to_vec());
            entry += 16;
        }
    }
    for (bit, data) in [(129u32, meta), (132, file2)] {
        flags[bit as usize / 64] |= 1 << (bit % 64);
        sections.insert(bit, data.to_vec());
    }
    let mut out = bytes[..table].to_vec();
    for (k, f) in flags.iter().enumerate() {
        out[72 + 8 * k..80 + 8 * k].copy_from_slice(&f.to_le_bytes());
    }
    let mut offset = (table + 16 * sections.len()) as u64;
    for data in sections.values() {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        offset += data.len() as u64;
    }
    for data in sections.values() {
        out.extend_from_slice(data);
    }
    out
}

/// The symbols of tests/data/perf/threads as `nm -S threads` lists them: (address, size, name).
const SYMBOLS: &[(u64, u32, &str)] = &[
    (0x1060, 0x22, "_start"),
    (0x1149, 0x32, "spin"),
    (0x117b, 0x36, "parse_work"),
    (0x11b1, 0x26, "worker"),
    (0x11d7, 0x24, "render_work"),
    (0x11fb, 0x51, "main"),
];

#[test]
fn simpleperf_feature_sections_name_the_frames() {
    use linux_perf_data::prost::Message;
    use linux_perf_data::{
        SimpleperfElfFileInfo, SimpleperfFileRecord, SimpleperfSymbol, SimpleperfTypeSpecificInfo,
        simpleperf_dso_type,
    };
    const BINARY: &str = "/tmp/pd/threads";
    let record = SimpleperfFileRecord {
        path: BINARY.into(),
        r#type: simpleperf_dso_type::DSO_ELF_FILE,
        min_vaddr: 0,
        symbol: SYMBOLS
            .iter()
            .map(|&(vaddr, len, name)| SimpleperfSymbol {
                vaddr,
                len,
                name: name.into(),
            })
            .collect(),
        type_specific_msg: Some(SimpleperfTypeSpecificInfo::ElfFile(SimpleperfElfFileInfo {
            file_offset_of_min_vaddr: 0,
        })),
    };
    let encoded = record.encode_to_vec();
    let mut file2 = (encoded.len() as u32).to_le_bytes().to_vec();
    file2.extend_from_slice(&encoded);
    let mut meta = Vec::new();
    for (k, v) in [
        ("app_package_name", "com.example.threads"),
        ("app_type", "profileable"),
        ("android_sdk_version", "34"),
        ("trace_offcpu", "false"),
    ] {
        for s in [k, v] {
            meta.extend_from_slice(s.as_bytes());
            meta.push(0);
        }
    }
    let bytes = std::fs::read(data("threads.data")).unwrap();
    let (trace, got) = read_counts(&with_simpleperf_features(&bytes, &meta, &file2));
    // perf names the binary's frames from its ELF symbols; the reader from the table.
    let script = std::fs::read_to_string(data("threads.perf-script.txt")).unwrap();
    let want = perf_script_counts(&script, |path, symbol, addr| {
        if path == BINARY {
            symbol.to_string()
        } else {
            unnamed(path, addr)
        }
    });
    assert_eq!(got, want);
    // The others were inlined into these.
    for name in ["spin", "worker", "main"] {
        assert!(got.per_frame.contains_key(name), "{name}");
    }
    assert_eq!(
        trace.source.option("app_package_name"),
        Some("com.example.threads")
    );
    assert_eq!(trace.source.option("android_sdk_version"), Some("34"));
}
