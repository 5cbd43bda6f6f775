//! Generates realistic simpleperf recordings (`tracelens gen --layout simpleperf`) for tests and
//! benchmarks, with no device.
//!
//! The shape follows what `simpleperf report-sample --protobuf --show-callchain` writes for an
//! app: threads that start in libc and ART, Java frames below them (interpreted in the app's
//! dex, or JIT-compiled in `[JIT app cache]`), framework frames from the boot image, native
//! leaves in libc, the kernel or a stripped library whose addresses have no symbol. Each
//! thread walks a sparse call graph (stacks reach depth 20–40), and sleeps now and then; a
//! caller frame's address is where it makes its call, the same while the call lasts, and the
//! innermost Java frame's moves from sample to sample. Then,
//! as simpleperf writes them, after every sample: the lost-sample count, the files with their
//! symbol tables, the threads and the meta info. Some samples belong to a second event type,
//! some have stacks the unwinder cut short. Deterministic for a seed; written as generated.

use std::io::{self, Write};

use super::proto::{
    CallChainEntry, ContextSwitch, ExecutionType, File, LostSituation, MetaInfo, RecordData,
    Sample, Thread, UnwindingResult,
};
use super::writer::RecordWriter;
use crate::formats::android::synth::Rng;

/// What to generate.
#[derive(Clone, Debug)]
pub struct SampledOptions {
    pub samples: u64,
    pub threads: u16,
    /// Java methods of the app.
    pub methods: u32,
    pub seed: u64,
    /// Record off-CPU samples and context switches (`--trace-offcpu`).
    pub off_cpu: bool,
    /// The seed of the program (methods, names, call graph) when it differs from `seed`:
    /// recordings of one program with fresh seeds are runs of one build.
    pub program_seed: Option<u64>,
    /// `(m, extra)`: each sample whose innermost Java method is the program's method `m` is
    /// followed by `extra` more of the same stack, as if `m` ran `1 + extra` times as long.
    pub heavier: Option<(u32, u32)>,
    /// The percentage (0 to 100) of samples that keep their thread's previous stack and move
    /// only within its leaf, as a thread in a loop does: the callers' frames (addresses
    /// included) are the previous sample's, the leaf's address is drawn again.
    pub same_stack_percent: u8,
    /// Give every Java frame a new address at every sample, callers too. No recording looks
    /// like that (a caller's address is where it made its call, the same while the call lasts):
    /// it is the worst case for a reader that skips the frames a sample shares, byte for byte,
    /// with its thread's previous one. The walk and the decoded samples are the same either way.
    pub fresh_caller_addresses: bool,
}

impl Default for SampledOptions {
    fn default() -> Self {
        SampledOptions {
            samples: 100_000,
            threads: 8,
            methods: 2000,
            seed: 1,
            off_cpu: false,
            program_seed: None,
            heavier: None,
            same_stack_percent: 0,
            fresh_caller_addresses: false,
        }
    }
}

/// What was written.
#[derive(Clone, Copy, Debug, Default)]
pub struct SampledStats {
    pub samples: u64,
    pub records: u64,
    pub bytes: u64,
    pub max_depth: usize,
    pub lost: u64,
}

const PID: u32 = 4242;
const PACKAGE: &str = "com.example.shop";

/// The files of the recording: (path, symbols). Java methods are added to the dex and JIT
/// files; the stripped library has no symbols.
const LIBC: u32 = 0;
const LIBART: u32 = 1;
const DEX: u32 = 2;
const JIT: u32 = 3;
const BOOT: u32 = 4;
const STRIPPED: u32 = 5;
const KERNEL: u32 = 6;

fn fixed_files() -> Vec<(String, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        (
            "/apex/com.android.runtime/lib64/bionic/libc.so".into(),
            s(&[
                "__start_thread",
                "__pthread_start(void*)",
                "memcpy",
                "syscall",
                "__epoll_pwait",
                "read",
                "write",
                "malloc",
                "free",
            ]),
        ),
        (
            "/apex/com.android.art/lib64/libart.so".into(),
            s(&[
                "art::Thread::CreateCallback(void*)",
                "art_quick_invoke_stub",
                "art::ArtMethod::Invoke(art::Thread*, unsigned int*, unsigned int, art::JValue*, char const*)",
                "nterp_helper",
                "art::gc::Heap::AllocObject",
                "art_quick_alloc_object_resolved_region_tlab",
            ]),
        ),
        (
            "/data/app/~~Xq3bZ0tT==/com.example.shop-8fK2Lw==/oat/arm64/base.odex".into(),
            Vec::new(),
        ),
        ("[JIT app cache]".into(), Vec::new()),
        (
            "/system/framework/arm64/boot-framework.oat".into(),
            s(&[
                "android.app.ActivityThread.main",
                "android.os.Looper.loop",
                "android.os.Looper.loopOnce",
                "android.os.Handler.dispatchMessage",
                "java.lang.Thread.run",
                "java.util.concurrent.ThreadPoolExecutor.runWorker",
            ]),
        ),
        ("/vendor/lib64/libshopnative.so".into(), Vec::new()),
        (
            "[kernel.kallsyms]".into(),
            s(&[
                "el0_svc",
                "do_el0_svc",
                "invoke_syscall",
                "schedule",
                "__arm64_sys_read",
            ]),
        ),
    ]
}

const CLASSES: &[&str] = &[
    "com.example.shop.ui.CartFragment",
    "com.example.shop.ui.ProductAdapter",
    "com.example.shop.data.Repository",
    "com.example.shop.data.PriceCalculator",
    "com.example.shop.net.ApiClient",
    "androidx.recyclerview.widget.RecyclerView",
    "kotlinx.coroutines.DispatchedTask",
    "okhttp3.internal.connection.RealCall",
];
const VERBS: &[&str] = &[
    "onBind", "load", "compute", "render", "parse", "update", "fetch", "apply", "measure", "draw",
];

/// A Java method: where its code is (file and symbol) and how it runs.
#[derive(Clone, Copy)]
struct JavaMethod {
    file: u32,
    symbol: i32,
    kind: ExecutionType,
    /// Its first callee, and how many (the callees are consecutive methods).
    callees: (u32, u32),
}

/// The program: Java methods spread over the dex and the JIT cache, each calling a few methods
/// deeper in the list.
fn program(rng: &mut Rng, files: &mut [(String, Vec<String>)], methods: u32) -> Vec<JavaMethod> {
    let n = methods.max(8);
    (0..n)
        .map(|i| {
            let class = CLASSES[rng.below(CLASSES.len() as u64) as usize];
            let verb = VERBS[rng.below(VERBS.len() as u64) as usize];
            let jit = rng.chance(600_000);
            let (file, kind) = if jit {
                (JIT, ExecutionType::JitJvmMethod)
            } else {
                (DEX, ExecutionType::InterpretedJvmMethod)
            };
            let table = &mut files[file as usize].1;
            table.push(format!("{class}.{verb}{i}"));
            let first = (i + 1 + rng.below(u64::from(n / 16 + 1)) as u32).min(n - 1);
            let count = if first >= n - 1 {
                0
            } else {
                2 + rng.below(5) as u32
            };
            JavaMethod {
                file,
                symbol: table.len() as i32 - 1,
                kind,
                callees: (first, count.min(n - first)),
            }
        })
        .collect()
}

/// One thread: its root frames (leaf first at the end), its Java stack and its clock.
struct ThreadWalk {
    tid: u32,
    name: String,
    roots: Vec<CallChainEntry>,
    java: Vec<u32>,
    /// The callchain of its last sample (before any cut), leaf first.
    last: Vec<CallChainEntry>,
    /// The next time it runs, ns.
    next_ns: u64,
}

fn native(file: u32, symbol: i32, rng: &mut Rng) -> CallChainEntry {
    CallChainEntry {
        vaddr_in_file: Some(0x1_0000 + 0x400 * symbol.max(0) as u64 + rng.below(0x3ff)),
        file_id: Some(file),
        symbol_id: Some(symbol),
        execution_type: None,
    }
}

fn java_entry(m: &JavaMethod, rng: &mut Rng) -> CallChainEntry {
    CallChainEntry {
        vaddr_in_file: Some(0x20_0000 + 0x100 * m.symbol as u64 + rng.below(0xff)),
        file_id: Some(m.file),
        symbol_id: Some(m.symbol),
        execution_type: Some(m.kind as i32),
    }
}

/// The address in `caller` of its call to method `callee`: one per pair, inside `caller`'s
/// symbol as [`java_entry`] places it.
fn call_site(caller: &JavaMethod, callee: u32) -> u64 {
    let spread = u64::from(callee).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56;
    0x20_0000 + 0x100 * caller.symbol as u64 + spread % 0xff
}

fn threads(rng: &mut Rng, count: u16) -> Vec<ThreadWalk> {
    const NAMES: &[&str] = &[
        "RenderThread",
        "OkHttp Dispatcher",
        "DefaultDispatch",
        "pool-2-thread-1",
        "Binder:4242_2",
        "FinalizerDaemon",
    ];
    (0..count.max(1))
        .map(|i| {
            let main = i == 0;
            let mut roots = vec![native(LIBC, 0, rng), native(LIBC, 1, rng)];
            if main {
                roots.push(native(BOOT, 0, rng));
                roots.push(native(BOOT, 1, rng));
                roots.push(native(BOOT, 2, rng));
                roots.push(native(BOOT, 3, rng));
            } else {
                roots.push(native(LIBART, 0, rng));
                roots.push(native(LIBART, 1, rng));
                roots.push(native(BOOT, 4, rng));
            }
            let name = if main {
                PACKAGE.to_string()
            } else {
                NAMES[(i as usize - 1) % NAMES.len()].to_string()
            };
            ThreadWalk {
                tid: if main { PID } else { PID + 10 + u32::from(i) },
                name,
                roots,
                java: Vec::new(),
                last: Vec::new(),
                next_ns: 0,
            }
        })
        .collect()
}

impl ThreadWalk {
    /// One step of the walk: return from a few frames, then call a few.
    fn step(&mut self, rng: &mut Rng, program: &[JavaMethod]) {
        let pops = rng.below(4) as usize;
        self.java.truncate(self.java.len().saturating_sub(pops));
        if self.java.is_empty() {
            self.java
                .push(rng.below((program.len() as u64 / 8).max(1)) as u32);
        }
        for _ in 0..rng.below(4) {
            let top = program[*self.java.last().unwrap_or(&0) as usize];
            if top.callees.1 == 0 || self.java.len() >= 36 {
                break;
            }
            self.java
                .push(top.callees.0 + rng.below(u64::from(top.callees.1)) as u32);
        }
    }

    /// The callchain of a sample now, leaf first.
    fn callchain(&self, rng: &mut Rng, program: &[JavaMethod], fresh: bool) -> Vec<CallChainEntry> {
        let mut chain = Vec::with_capacity(self.roots.len() + self.java.len() + 4);
        match rng.below(10) {
            0 => {
                chain.push(native(KERNEL, 3, rng));
                chain.push(native(KERNEL, 0, rng));
                chain.push(native(LIBC, 3, rng));
            }
            1 => chain.push(native(LIBC, 2, rng)),
            2 => chain.push(CallChainEntry {
                vaddr_in_file: Some(0x8000 + rng.below(64) * 0x10),
                file_id: Some(STRIPPED),
                symbol_id: Some(-1),
                execution_type: None,
            }),
            3 => chain.push(native(LIBART, 5, rng)),
            _ => {}
        }
        // A caller's address is where it calls its callee; only the innermost Java frame's
        // moves from sample to sample. Every frame draws one, so the walk is that of any
        // `fresh` for a seed.
        let mut callee = None;
        for &m in self.java.iter().rev() {
            let mut entry = java_entry(&program[m as usize], rng);
            if let Some(callee) = callee.filter(|_| !fresh) {
                entry.vaddr_in_file = Some(call_site(&program[m as usize], callee));
            }
            chain.push(entry);
            callee = Some(m);
        }
        chain.extend(self.roots.iter().rev().copied());
        chain
    }

    /// The callchain of a sample now: with `opts.same_stack_percent`, the last one with its
    /// leaf moved; otherwise a step of the walk.
    fn next_callchain(
        &mut self,
        rng: &mut Rng,
        program: &[JavaMethod],
        opts: &SampledOptions,
    ) -> Vec<CallChainEntry> {
        // No draw without the option: the recordings of a seed stay those of the walk alone.
        let same = opts.same_stack_percent > 0
            && !self.last.is_empty()
            && rng.below(100) < u64::from(opts.same_stack_percent);
        let chain = if same {
            let mut chain = self.last.clone();
            if let Some(leaf) = chain.first_mut() {
                let vaddr = leaf.vaddr_in_file.unwrap_or(0);
                leaf.vaddr_in_file = Some((vaddr & !0xff) | rng.below(0x100));
            }
            chain
        } else {
            self.step(rng, program);
            self.callchain(rng, program, opts.fresh_caller_addresses)
        };
        if opts.same_stack_percent > 0 {
            self.last.clone_from(&chain);
        }
        chain
    }
}

/// Writes a sample of thread `t` now, of `callchain` (cut short now and then), and moves the
/// thread's clock on: it runs on, or sleeps a while (off the CPU, with `opts.off_cpu`).
fn sample<W: Write>(
    w: &mut RecordWriter<W>,
    rng: &mut Rng,
    t: &mut ThreadWalk,
    mut callchain: Vec<CallChainEntry>,
    opts: &SampledOptions,
    stats: &mut SampledStats,
) -> io::Result<()> {
    let interval_ns = 250_000;
    let now = t.next_ns;
    let truncated = rng.chance(10_000);
    if truncated {
        let keep = callchain
            .len()
            .saturating_sub(2 + rng.below(4) as usize)
            .max(1);
        callchain.truncate(keep);
    }
    stats.max_depth = stats.max_depth.max(callchain.len());
    let second = rng.chance(100_000);
    let sample = Sample {
        time: Some(now),
        thread_id: Some(t.tid as i32),
        callchain,
        event_count: Some(if second {
            500_000 + rng.below(100_000)
        } else {
            interval_ns
        }),
        event_type_id: Some(u32::from(second)),
        unwinding_result: truncated.then_some(UnwindingResult {
            raw_error_code: Some(2),
            error_addr: Some(rng.next_u64() & 0xffff_ffff),
            error_code: Some(2),
        }),
    };
    w.write(RecordData::Sample(sample))?;
    stats.samples += 1;
    let sleep = rng.chance(4_000);
    let gap = if sleep {
        2_000_000 + rng.below(30_000_000)
    } else {
        interval_ns + rng.below(20_000)
    };
    if sleep && opts.off_cpu {
        let tid = Some(t.tid);
        let off = ContextSwitch {
            switch_on: Some(false),
            time: Some(now + interval_ns / 2),
            thread_id: tid,
        };
        let on = ContextSwitch {
            switch_on: Some(true),
            time: Some(now + gap),
            thread_id: tid,
        };
        w.write(RecordData::ContextSwitch(off))?;
        w.write(RecordData::ContextSwitch(on))?;
    }
    t.next_ns = now + gap;
    Ok(())
}

/// Writes a recording of `opts` to `out`.
pub fn generate(opts: &SampledOptions, out: impl Write) -> io::Result<SampledStats> {
    let mut rng = Rng::new(opts.seed);
    let mut files = fixed_files();
    let program = match opts.program_seed {
        Some(seed) => program(&mut Rng::new(seed), &mut files, opts.methods),
        None => program(&mut rng, &mut files, opts.methods),
    };
    let mut threads = threads(&mut rng, opts.threads);
    let mut w = RecordWriter::new(out)?;
    let mut stats = SampledStats::default();
    let start_ns: u64 = 86_400_000_000_000 + rng.below(1 << 40);
    for t in &mut threads {
        t.next_ns = start_ns + rng.below(1_000_000);
    }
    while stats.samples < opts.samples {
        // The thread that runs next.
        let (i, _) = threads
            .iter()
            .enumerate()
            .min_by_key(|(_, t)| t.next_ns)
            .expect("at least one thread");
        let t = &mut threads[i];
        let callchain = t.next_callchain(&mut rng, &program, opts);
        let repeats = match opts.heavier {
            Some((m, extra)) if t.java.last() == Some(&m) => 1 + extra,
            _ => 1,
        };
        for _ in 0..repeats {
            if stats.samples == opts.samples {
                break;
            }
            sample(&mut w, &mut rng, t, callchain.clone(), opts, &mut stats)?;
        }
    }
    stats.lost = opts.samples / 200;
    w.write(RecordData::Lost(LostSituation {
        sample_count: Some(opts.samples),
        lost_count: Some(stats.lost),
    }))?;
    for (id, (path, symbol)) in files.into_iter().enumerate() {
        w.write(RecordData::File(File {
            id: Some(id as u32),
            path: Some(path),
            symbol,
            mangled_symbol: Vec::new(),
        }))?;
    }
    for t in &threads {
        w.write(RecordData::Thread(Thread {
            thread_id: Some(t.tid),
            process_id: Some(PID),
            thread_name: Some(t.name.clone()),
        }))?;
    }
    let second = if opts.off_cpu {
        "sched:sched_switch"
    } else {
        "cpu-cycles"
    };
    w.write(RecordData::MetaInfo(MetaInfo {
        event_type: vec!["cpu-clock".into(), second.into()],
        app_package_name: Some(PACKAGE.into()),
        app_type: Some("debuggable".into()),
        android_sdk_version: Some("34".into()),
        android_build_type: Some("user".into()),
        trace_offcpu: Some(opts.off_cpu),
    }))?;
    stats.records = w.records;
    let bytes = w.bytes + 4;
    w.finish()?;
    stats.bytes = bytes;
    Ok(stats)
}
