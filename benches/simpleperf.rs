//! Reading simpleperf recordings (not a test: it prints numbers). Usage:
//!
//! ```text
//! cargo bench --bench simpleperf                  # generates a 200 MB recording
//! cargo bench --bench simpleperf -- --mb 1000     # a 1 GB one
//! cargo bench --bench simpleperf -- FILE.trace    # a recording of your own
//! cargo bench --bench simpleperf -- --decode FILE.trace   # decoding alone, no whole load
//! cargo bench --bench simpleperf -- --decode FILE.trace --runs 10   # least CPU time of 10
//! cargo bench --bench simpleperf -- --decode FILE.trace --map [--populate | --sequential | --willneed]
//! cargo bench --bench simpleperf -- --shared FILE.trace   # how alike a thread's samples are
//! ```
//!
//! `--decode` reads the file into memory once and decodes it from there; with `--map` each run
//! decodes a fresh memory map of it instead (as the viewer loads a file), its pages faulted in
//! as they are first read, or all at once when mapped (`--populate`, `MAP_POPULATE`), or with
//! `madvise(MADV_SEQUENTIAL)` or `madvise(MADV_WILLNEED)` on the whole map.
//!
//! Loads the file as the viewer does (memory-mapped, page cache warm: detection, decoding, the
//! calls made from the samples, the lanes) once, and prints the process's peak resident memory
//! (VmHWM) beside the file size (the generator writes as it goes, so the peak is the load's).
//! Then, best of 3 each, samples per second of: decoding alone (the records, the stacks
//! interned), the reader (decoding, names, the calls made from the samples) and the whole load.

mod common;

use std::time::Instant;

use tracelens::formats::simpleperf::synth::{SampledOptions, generate};
use tracelens::formats::{Progress, ReadContext, simpleperf};

/// Bytes the generator writes per sample on average (measured: about 310).
const BYTES_PER_SAMPLE: u64 = 310;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb = args
        .iter()
        .position(|a| a == "--mb")
        .and_then(|i| args.get(i + 1)?.parse::<u64>().ok())
        .unwrap_or(200);
    let file = args
        .iter()
        .find(|a| !a.starts_with('-') && a.parse::<u64>().is_err());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = match file {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let p = dir.path().join("recording.trace");
            let t0 = Instant::now();
            let opts = SampledOptions {
                samples: (mb << 20) / BYTES_PER_SAMPLE,
                threads: 16,
                methods: 20_000,
                ..SampledOptions::default()
            };
            let out = std::io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(&p).expect("create"),
            );
            let stats = generate(&opts, out).expect("write the recording");
            println!(
                "generated {} samples, {:.1} MB in {:.1} s",
                stats.samples,
                stats.bytes as f64 / 1e6,
                t0.elapsed().as_secs_f64()
            );
            p
        }
    };
    let size = std::fs::metadata(&path).expect("recording").len();
    if args.iter().any(|a| a == "--shared") {
        shared_roots(&std::fs::read(&path).expect("read the recording"));
        return;
    }
    if args.iter().any(|a| a == "--decode") {
        let runs = args
            .iter()
            .position(|a| a == "--runs")
            .and_then(|i| args.get(i + 1)?.parse::<usize>().ok())
            .unwrap_or(3)
            .max(1);
        decode_only(&path, size, runs, Input::from_args(&args));
        return;
    }
    let _ = std::fs::read(&path); // warm the page cache
    // One load first, alone in the process, for its peak memory.
    let trace = tracelens::load::load_path(&path, &Progress::default()).expect("load");
    let peak_kb = peak_resident_kb();
    println!(
        "load {}: {:.1} MB, {} samples, {} stacks, {} threads, {} methods, {} calls",
        path.display(),
        size as f64 / 1e6,
        trace.samples.len(),
        trace.samples.stacks.len(),
        trace.threads.len(),
        trace.methods.len(),
        trace.call_count(),
    );
    println!(
        "peak resident memory {:.1} MB = {:.2} x the file (sample table {:.1} MB, calls {:.1} MB)",
        peak_kb as f64 / 1024.0,
        (peak_kb * 1024) as f64 / size as f64,
        trace.samples.heap_bytes() as f64 / 1e6,
        trace.call_heap_bytes() as f64 / 1e6,
    );
    let samples = trace.samples.len() as f64;
    drop(trace);
    println!(
        "best of 3, {} worker threads:",
        rayon::current_num_threads()
    );
    let print = |what: &str, best: std::time::Duration| {
        println!(
            "  {what:<8} {:>6.0} ms, {:>5.2} M samples/s, {:>4.0} ns a sample, {:>5.0} MB/s",
            best.as_secs_f64() * 1e3,
            samples / best.as_secs_f64() / 1e6,
            best.as_secs_f64() * 1e9 / samples,
            size as f64 / 1e6 / best.as_secs_f64(),
        );
    };
    let bytes = std::fs::read(&path).expect("read the recording");
    let progress = Progress::default();
    let ctx = ReadContext::new(None, &progress);
    let (best, _) = common::best_of(3, || {
        simpleperf::decode_samples(&bytes, &ctx).expect("decode")
    });
    print("decode", best);
    let (best, _) = common::best_of(3, || simpleperf::read(&bytes, &ctx).expect("read"));
    print("read", best);
    drop(bytes);
    let (best, ()) = common::best_of(3, || {
        drop(tracelens::load::load_path(&path, &Progress::default()).expect("load"));
    });
    print("load", best);
}

/// Where `--decode` reads the recording from.
#[derive(Clone, Copy, Debug)]
enum Input {
    /// Read into memory once, before the runs.
    Memory,
    /// Mapped at each run, with what to ask of the kernel.
    Map(MapAdvice),
}

#[derive(Clone, Copy, Debug)]
enum MapAdvice {
    None,
    Populate,
    Sequential,
    WillNeed,
}

impl Input {
    fn from_args(args: &[String]) -> Self {
        let has = |flag: &str| args.iter().any(|a| a == flag);
        if !has("--map") {
            return Input::Memory;
        }
        Input::Map(if has("--populate") {
            MapAdvice::Populate
        } else if has("--sequential") {
            MapAdvice::Sequential
        } else if has("--willneed") {
            MapAdvice::WillNeed
        } else {
            MapAdvice::None
        })
    }
}

/// A read-only map of `path`, as advised.
fn map(path: &std::path::Path, advice: MapAdvice) -> memmap2::Mmap {
    let file = std::fs::File::open(path).expect("open the recording");
    let mut options = memmap2::MmapOptions::new();
    if let MapAdvice::Populate = advice {
        options.populate();
    }
    // SAFETY: a read-only private map of a file that nothing writes while the bench runs.
    #[allow(unsafe_code)]
    let map = unsafe { options.map(&file) }.expect("map the recording");
    let advice = match advice {
        MapAdvice::Sequential => Some(memmap2::Advice::Sequential),
        MapAdvice::WillNeed => Some(memmap2::Advice::WillNeed),
        MapAdvice::None | MapAdvice::Populate => None,
    };
    if let Some(advice) = advice {
        map.advise(advice).expect("madvise");
    }
    map
}

/// Decoding alone: the best wall time and the least CPU time of `runs` decodes (with `--map`,
/// the mapping is part of each run).
fn decode_only(path: &std::path::Path, size: u64, runs: usize, input: Input) {
    let bytes = match input {
        Input::Memory => std::fs::read(path).expect("read the recording"),
        Input::Map(_) => {
            let _ = std::fs::read(path); // the page cache warm, as for a file just written
            Vec::new()
        }
    };
    let progress = Progress::default();
    let ctx = ReadContext::new(None, &progress);
    let (mut best, mut least_cpu, mut samples) = (f64::MAX, f64::MAX, 0);
    for _ in 0..runs {
        let (cpu0, t0) = (cpu_seconds(), Instant::now());
        samples = match input {
            Input::Memory => simpleperf::decode_samples(&bytes, &ctx),
            Input::Map(advice) => simpleperf::decode_samples(&map(path, advice), &ctx),
        }
        .expect("decode");
        best = best.min(t0.elapsed().as_secs_f64());
        least_cpu = least_cpu.min(cpu_seconds() - cpu0);
    }
    println!(
        "decode {} ({input:?}): {samples} samples, best of {runs} on {} worker threads: {:.0} ms, {:.2} M samples/s, {:.0} ns a sample, {:.0} MB/s",
        path.display(),
        rayon::current_num_threads(),
        best * 1e3,
        samples as f64 / best / 1e6,
        best * 1e9 / samples as f64,
        size as f64 / 1e6 / best,
    );
    // On a shared machine the wall time says little; the CPU time of a decode does.
    println!(
        "  CPU time a decode (least of {runs}): {:.0} ms = {:.0} ns a sample; on 2 idle cores at best {:.2} M samples/s",
        least_cpu * 1e3,
        least_cpu * 1e9 / samples as f64,
        samples as f64 / (least_cpu / 2.0) / 1e6,
    );
}

/// How often a sample's callchain ends with the frames of its thread's previous sample,
/// addresses included (the frames the reader does not read again), counted with prost.
fn shared_roots(bytes: &[u8]) {
    use prost::Message;
    use simpleperf::proto::{CallChainEntry, Record, RecordData};
    let mut last: std::collections::HashMap<Option<i32>, Vec<CallChainEntry>> = Default::default();
    let (mut samples, mut with_last, mut any, mut but_leaf, mut all) = (0, 0, 0, 0, 0);
    let (mut frames, mut shared) = (0, 0);
    let mut pos = simpleperf::MAGIC.len() + 2;
    while let Some(size) = bytes.get(pos..pos + 4) {
        let size = u32::from_le_bytes(size.try_into().expect("4 bytes")) as usize;
        let Some(record) = bytes.get(pos + 4..pos + 4 + size).filter(|_| size > 0) else {
            break;
        };
        pos += 4 + size;
        let Ok(Record {
            record_data: Some(RecordData::Sample(s)),
        }) = Record::decode(record)
        else {
            continue;
        };
        samples += 1;
        let Some(before) = last.insert(s.thread_id, s.callchain.clone()) else {
            continue;
        };
        let chain = &s.callchain;
        let roots = chain
            .iter()
            .rev()
            .zip(before.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        with_last += 1;
        frames += chain.len();
        shared += roots;
        any += usize::from(roots > 0);
        but_leaf += usize::from(chain.len() == before.len() && roots + 1 >= chain.len());
        all += usize::from(*chain == before);
    }
    let share = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
    println!(
        "{samples} samples, {with_last} after another of their thread; of those, their callchain"
    );
    println!(
        "  ends with at least one frame of the previous: {:.1} %",
        share(any, with_last)
    );
    println!(
        "  is the previous one's but for its leaf, or all of it: {:.1} %",
        share(but_leaf, with_last)
    );
    println!("  is the previous one's: {:.1} %", share(all, with_last));
    println!(
        "  frames that are the previous one's root frames: {:.1} % of {frames}",
        share(shared, frames)
    );
}

/// The CPU time of the process so far (user and system, all its threads), seconds: the first
/// field of each thread's `schedstat`, in ns (the ticks of `/proc/self/stat` are 10 ms).
fn cpu_seconds() -> f64 {
    let ns: u64 = std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    ns as f64 / 1e9
}

/// The process's peak resident memory (VmHWM), kB.
fn peak_resident_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .unwrap_or(0)
}
