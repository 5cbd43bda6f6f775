//! Generates large, realistic Android method traces for benchmarks, samples and tests
//! (`tracelens gen`).
//!
//! The shape follows real app traces: a sparse call graph (each method calls 2–6 others a few
//! levels below it, so stacks reach depth ~20), some direct recursion, threads interleaved in
//! chunks of a few hundred records (as ART flushes per-thread buffers), unmatched exits at each
//! thread's start (frames entered before tracing began), occasional unrolls (exits by exception)
//! and frames still open at the end. Method and thread names look like an Android app's. Output
//! is deterministic for a seed and is written as it is generated.

mod script;

use std::io::{self, Write};

use super::writer::{
    Layout, MethodDef, TraceSpec, data_header, key_text, method_line, record_size,
};
use crate::glob::glob_match;
use crate::trace::{Action, ClockMode};
pub use script::{BLOCKING_METHODS, MainScript};

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenOptions {
    pub records: u64,
    pub threads: u16,
    pub methods: u32,
    pub seed: u64,
    pub layout: Layout,
    pub clock: ClockMode,
    /// Tracing cost per record, ns (`--overhead-ns`): each record a thread writes delays its
    /// later records by this much on both of its clocks, and the key states it. None: no cost,
    /// and the key states 1000 (the generator's output for a given seed does not change).
    pub overhead_ns: Option<u64>,
    /// Seed of the method table and call graph (default: `seed`): runs sharing a program seed
    /// and differing in `seed` share their methods and differ in the walk and its timing.
    pub program_seed: Option<u64>,
    /// Time added to every call of the matching methods (`gen --slow`).
    pub slow: Vec<Slowdown>,
    /// Frames, blocking calls and startup phases placed on the main thread (`gen --frames`).
    pub script: MainScript,
}

/// `gen --slow`: the methods whose calls each take `add_us` longer, on both clocks (the time is
/// added just before each exit, so the callers' inclusive time grows too).
#[derive(Clone, Debug, PartialEq)]
pub struct Slowdown {
    pub methods: MethodMatch,
    pub add_us: u64,
}

/// Which generated methods a [`Slowdown`] applies to.
#[derive(Clone, Debug, PartialEq)]
pub enum MethodMatch {
    /// The method with this index in the method table (`0..methods`).
    Index(u32),
    /// A glob (`*`, `?`) on `class.name` or on `class.name signature`.
    Glob(String),
}

impl MethodMatch {
    fn matches(&self, index: usize, m: &MethodDef) -> bool {
        match self {
            MethodMatch::Index(i) => *i as usize == index,
            MethodMatch::Glob(g) => {
                let dotted = format!("{}.{}", m.class, m.name);
                glob_match(g, &dotted) || glob_match(g, &format!("{dotted} {}", m.signature))
            }
        }
    }
}

impl Default for GenOptions {
    fn default() -> Self {
        Self {
            records: 100_000,
            threads: 8,
            methods: 2000,
            seed: 1,
            layout: Layout::V3,
            clock: ClockMode::Dual,
            overhead_ns: None,
            program_seed: None,
            slow: Vec::new(),
            script: MainScript::default(),
        }
    }
}

/// A small, fast deterministic generator (SplitMix64).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0), from the upper 32 bits of the next number (the product is
    /// taken in 128 bits: `n` may exceed 2³²).
    #[inline]
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64() >> 32) * u128::from(n)) >> 32) as u64
    }
    #[inline]
    pub(crate) fn chance(&mut self, per_million: u64) -> bool {
        self.below(1_000_000) < per_million
    }
}

const PACKAGES: &[&str] = &[
    "com.example.shop.ui",
    "com.example.shop.data",
    "com.example.shop.net",
    "androidx.recyclerview.widget",
    "androidx.lifecycle",
    "androidx.fragment.app",
    "android.view",
    "android.widget",
    "android.os",
    "android.graphics",
    "java.util",
    "java.lang",
    "kotlin.collections",
    "kotlinx.coroutines",
    "okhttp3.internal.connection",
    "okio",
    "com.google.gson",
    "android.database.sqlite",
];
const CLASSES: &[&str] = &[
    "MainActivity",
    "ProductListFragment",
    "ProductAdapter",
    "ProductViewHolder",
    "CartRepository",
    "CatalogViewModel",
    "ImageLoader",
    "RecyclerView",
    "LinearLayoutManager",
    "LiveData",
    "View",
    "ViewGroup",
    "TextView",
    "ImageView",
    "Choreographer",
    "ViewRootImpl",
    "Handler",
    "Looper",
    "MessageQueue",
    "HashMap",
    "ArrayList",
    "StringBuilder",
    "Gson",
    "JsonReader",
    "RealCall",
    "RealConnection",
    "Buffer",
    "SQLiteDatabase",
    "SQLiteCursor",
    "BitmapFactory",
    "Canvas",
    "DispatchedTask",
    "CollectionsKt",
];
const NAMES: &[&str] = &[
    "onCreate",
    "onResume",
    "onBindViewHolder",
    "onCreateViewHolder",
    "bind",
    "measure",
    "onMeasure",
    "layout",
    "onLayout",
    "draw",
    "onDraw",
    "dispatchMessage",
    "handleMessage",
    "next",
    "loop",
    "get",
    "put",
    "hashCode",
    "equals",
    "append",
    "toString",
    "fromJson",
    "read",
    "write",
    "execute",
    "enqueue",
    "query",
    "moveToNext",
    "decodeStream",
    "invalidate",
    "requestLayout",
    "setText",
    "run",
    "invokeSuspend",
    "resumeWith",
    "map",
    "filter",
];
const SIGNATURES: &[&str] = &[
    "()V",
    "(I)V",
    "(II)V",
    "()I",
    "()Z",
    "(Ljava/lang/Object;)Z",
    "(Ljava/lang/Object;)Ljava/lang/Object;",
    "(Landroid/os/Bundle;)V",
    "(Landroid/graphics/Canvas;)V",
    "(Ljava/lang/String;)Ljava/lang/StringBuilder;",
    "(Landroidx/recyclerview/widget/RecyclerView$ViewHolder;I)V",
    "(Ljava/io/Reader;Ljava/lang/reflect/Type;)Ljava/lang/Object;",
    "(ZIIII)V",
];
const THREAD_NAMES: &[&str] = &[
    "main",
    "RenderThread",
    "OkHttp Dispatcher",
    "DefaultDispatcher-worker-1",
    "DefaultDispatcher-worker-2",
    "AsyncTask #1",
    "pool-2-thread-1",
    "Binder:12345_1",
    "Binder:12345_2",
    "FinalizerDaemon",
    "HeapTaskDaemon",
    "Glide Executor",
];

/// Deepest level of the call graph; methods at the last levels are leaves.
const LEVELS: u32 = 28;
/// The depth the random walk drifts towards.
const TARGET_DEPTH: i64 = 20;

/// The method table and call graph.
pub(crate) struct Program {
    pub methods: Vec<MethodDef>,
    /// Callees of each method (indices).
    pub callees: Vec<Vec<u32>>,
    /// Methods at level 0 (thread entry points).
    pub roots: Vec<u32>,
}

/// Builds `n` methods with realistic names and a sparse layered call graph.
pub(crate) fn program(n: u32, rng: &mut Rng) -> Program {
    let n = n.max(LEVELS + 1);
    let mut methods = Vec::with_capacity(n as usize);
    let mut level = Vec::with_capacity(n as usize);
    for i in 0..n {
        let pkg = PACKAGES[rng.below(PACKAGES.len() as u64) as usize];
        let class = CLASSES[rng.below(CLASSES.len() as u64) as usize];
        let name = NAMES[rng.below(NAMES.len() as u64) as usize];
        let suffix = i / (NAMES.len() as u32 * 4);
        let class = if suffix == 0 {
            format!("{pkg}.{class}")
        } else {
            format!("{pkg}.{class}${suffix}")
        };
        let kotlin = pkg.contains("kotlin") || pkg.contains("example");
        let file = format!(
            "{}.{}",
            class
                .rsplit('.')
                .next()
                .unwrap_or("X")
                .split('$')
                .next()
                .unwrap_or("X"),
            if kotlin { "kt" } else { "java" }
        );
        methods.push(MethodDef {
            id: i << 2,
            class,
            name: name.to_string(),
            signature: SIGNATURES[rng.below(SIGNATURES.len() as u64) as usize].to_string(),
            source_file: Some(file),
            line: None,
        });
        // The first LEVELS+1 methods cover every level; the rest are spread evenly.
        level.push(if i <= LEVELS {
            i
        } else {
            rng.below(LEVELS as u64 + 1) as u32
        });
    }
    let mut by_level: Vec<Vec<u32>> = vec![Vec::new(); LEVELS as usize + 1];
    for (i, &l) in level.iter().enumerate() {
        by_level[l as usize].push(i as u32);
    }
    let mut callees = Vec::with_capacity(n as usize);
    for (i, &l) in level.iter().enumerate() {
        let mut c = Vec::new();
        if l < LEVELS {
            let k = 2 + rng.below(5);
            for _ in 0..k {
                let target = (l + 1 + rng.below(2) as u32).min(LEVELS) as usize;
                let pool = &by_level[target];
                c.push(pool[rng.below(pool.len() as u64) as usize]);
            }
            // Some direct recursion.
            if rng.chance(60_000) {
                c.push(i as u32);
            }
        }
        callees.push(c);
    }
    Program {
        methods,
        callees,
        roots: by_level[0].clone(),
    }
}

struct ThreadState {
    tid: u16,
    stack: Vec<u32>,
    /// Frames entered before tracing started, exited without an enter record.
    pre_stack: Vec<u32>,
    cpu_us: u64,
    started: bool,
    /// Tracing cost accumulated by this thread's records so far, ns.
    overhead_ns: u64,
}

/// Statistics of a generated file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GenStats {
    pub records: u64,
    pub unmatched_exits: u64,
    pub unrolls: u64,
    pub max_depth: usize,
    pub bytes: u64,
}

/// Writes a trace to `out` (and, for a `.key`/`.data` pair, the data to `data_out`).
pub(crate) fn generate(
    opts: &GenOptions,
    out: &mut dyn Write,
    mut data_out: Option<&mut dyn Write>,
) -> io::Result<GenStats> {
    let mut rng = Rng::new(opts.seed);
    let prog = match opts.program_seed {
        Some(p) => program(opts.methods, &mut Rng::new(p)),
        None => program(opts.methods, &mut rng),
    };
    let slow_us: Vec<u64> = (prog.methods.iter().enumerate())
        .map(|(i, m)| {
            let hits = opts.slow.iter().filter(|s| s.methods.matches(i, m));
            hits.map(|s| s.add_us).fold(0, u64::saturating_add)
        })
        .collect();
    let any_slow = slow_us.iter().any(|&us| us > 0);
    let threads = opts.threads.clamp(
        1,
        if opts.layout == Layout::V1 {
            255
        } else {
            65535
        },
    );
    let pid = 12345u32;
    let mut spec = TraceSpec::new(opts.layout, opts.clock);
    spec.pid = Some(pid);
    spec.start_time_us = 1_700_000_000_000_000;
    spec.threads = (0..threads)
        .map(|i| {
            let tid = if opts.layout == Layout::V1 {
                i + 1
            } else {
                i.wrapping_add(pid as u16)
            };
            let name = match THREAD_NAMES.get(i as usize) {
                Some(n) => n.to_string(),
                None => format!("Thread-{i}"),
            };
            (tid, name)
        })
        .collect();
    spec.methods = prog.methods.clone();
    // The script's methods follow the program's (none without a script: the output for a seed
    // does not change).
    let scenes = opts.script.scenes();
    if !scenes.is_empty() {
        let first_id = (prog.methods.len() as u32) << 2;
        spec.methods.extend(opts.script.methods(first_id));
    }
    // A scene is written once the main thread's first records (its unmatched exits) are out,
    // at the first record past its slot; the scenes left at the end follow the last record.
    let slot = |k: usize| (k as u64 + 1) * opts.records / (scenes.len() as u64 + 1);
    let mut next_scene = 0usize;
    if let Some(ns) = opts.overhead_ns {
        spec.call_overhead_ns = ns;
    }
    let rs = record_size(opts.layout, opts.clock);
    let streaming = opts.layout == Layout::Streaming;

    let mut stats = GenStats::default();
    if streaming {
        out.write_all(&data_header(spec.version() | 0xF0, rs, spec.start_time_us))?;
    } else {
        // The elapsed time is only known at the end; estimate from the mean step.
        spec.elapsed_time_us = opts.records * 3;
        let key = key_text(&spec, Some(opts.records));
        out.write_all(key.as_bytes())?;
        stats.bytes += key.len() as u64;
        let header = data_header(spec.version(), rs, spec.start_time_us);
        match data_out.as_deref_mut() {
            Some(d) => d.write_all(&header)?,
            None => out.write_all(&header)?,
        }
    }
    stats.bytes += 32;

    let mut states: Vec<ThreadState> = spec
        .threads
        .iter()
        .map(|&(tid, _)| {
            let depth = rng.below(4) as usize;
            let mut pre = Vec::new();
            let mut m = prog.roots[rng.below(prog.roots.len() as u64) as usize];
            for _ in 0..depth {
                pre.push(m);
                match prog.callees[m as usize].first() {
                    Some(&c) => m = c,
                    None => break,
                }
            }
            ThreadState {
                tid,
                stack: Vec::new(),
                pre_stack: pre,
                cpu_us: 0,
                started: false,
                overhead_ns: 0,
            }
        })
        .collect();
    // Sub-µs parts of the true times (`--overhead-ns` only; a stream of its own).
    let mut phases = Rng::new(opts.seed ^ 0x0F0F_5EED);
    let mut wall_us = 0u64;
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    let mut cur = 0usize;
    let mut left_in_chunk = 0u64;
    let main_share = 40u64;
    let mut out_of = RecordFormat {
        layout: opts.layout,
        clock: opts.clock,
        record_size: rs,
        streaming,
        defined: vec![false; spec.methods.len()],
        methods: spec.methods.clone(),
        first_script_method: prog.methods.len() as u32,
    };
    for r in 0..opts.records {
        while next_scene < scenes.len() && r >= slot(next_scene) && states[0].pre_stack.is_empty() {
            let scene = &scenes[next_scene];
            next_scene += 1;
            wall_us = out_of.write_scene(scene, &mut states[0], wall_us, &mut buf);
            stats.records += scene.len() as u64;
        }
        if left_in_chunk == 0 {
            // The main thread gets a large share, the others round-robin-ish.
            cur = if rng.below(100) < main_share {
                0
            } else {
                rng.below(states.len() as u64) as usize
            };
            left_in_chunk = 50 + rng.below(450);
        }
        left_in_chunk -= 1;
        let st = &mut states[cur];
        let step = 1 + rng.below(4);
        wall_us += step;
        if st.started {
            st.cpu_us += step - rng.below(step);
        }
        st.started = true;
        let depth = st.stack.len() as i64;
        let top = st.stack.last().copied();
        let callees: &[u32] = match top {
            Some(m) => &prog.callees[m as usize],
            None => &prog.roots,
        };
        let p_enter = (500 + (TARGET_DEPTH - depth) * 40).clamp(50, 950) as u64;
        let (method, action) = if !st.pre_stack.is_empty() && top.is_none() {
            let m = st.pre_stack.pop().unwrap_or(0);
            stats.unmatched_exits += 1;
            (m, Action::Exit)
        } else if top.is_none() || (!callees.is_empty() && rng.below(1000) < p_enter) {
            let m = callees[rng.below(callees.len() as u64) as usize];
            st.stack.push(m);
            stats.max_depth = stats.max_depth.max(st.stack.len());
            (m, Action::Enter)
        } else {
            let m = st.stack.pop().unwrap_or(0);
            if rng.chance(1_000) {
                stats.unrolls += 1;
                (m, Action::Unroll)
            } else {
                (m, Action::Exit)
            }
        };
        out_of.define_method(method, &mut buf);
        if any_slow && action != Action::Enter {
            // The slowed method's own work, just before it returns.
            wall_us += slow_us[method as usize];
            st.cpu_us += slow_us[method as usize];
        }
        // The thread's own tracing cost so far delays both of its clocks. The true times have
        // a random sub-µs part, as real clock reads do (the file without the cost holds them
        // truncated to µs), so the truncation of the delayed time is not tied to the record
        // index.
        let (cpu_late, wall_late) = match opts.overhead_ns {
            Some(n) => {
                let late = |phase: u64| (phase + st.overhead_ns) / 1000;
                let v = (late(phases.below(1000)), late(phases.below(1000)));
                st.overhead_ns += n;
                v
            }
            None => (0, 0),
        };
        let wall_us = wall_us + wall_late;
        out_of.record(
            st.tid,
            method,
            action,
            st.cpu_us + cpu_late,
            wall_us,
            &mut buf,
        );
        stats.records += 1;
        if buf.len() >= 1 << 20 {
            stats.bytes += buf.len() as u64;
            match data_out.as_deref_mut() {
                Some(d) => d.write_all(&buf)?,
                None => out.write_all(&buf)?,
            }
            buf.clear();
        }
    }
    for scene in &scenes[next_scene..] {
        wall_us = out_of.write_scene(scene, &mut states[0], wall_us, &mut buf);
        stats.records += scene.len() as u64;
    }
    if streaming {
        spec.elapsed_time_us = wall_us;
        let summary = key_text(&spec, None);
        buf.extend_from_slice(&[0, 0, 3]);
        buf.extend_from_slice(&(summary.len() as u32).to_le_bytes());
        buf.extend_from_slice(summary.as_bytes());
    }
    stats.bytes += buf.len() as u64;
    match data_out {
        Some(d) => d.write_all(&buf)?,
        None => out.write_all(&buf)?,
    }
    Ok(stats)
}

/// How records are written: the layout and clocks of the file, and the methods a streaming
/// file has defined so far.
struct RecordFormat {
    layout: Layout,
    clock: ClockMode,
    record_size: usize,
    streaming: bool,
    methods: Vec<MethodDef>,
    defined: Vec<bool>,
    /// The index of the script's first method in `methods`.
    first_script_method: u32,
}

impl RecordFormat {
    /// A streaming file defines each method in a packet before its first record.
    fn define_method(&mut self, method: u32, buf: &mut Vec<u8>) {
        if self.streaming && !self.defined[method as usize] {
            self.defined[method as usize] = true;
            let line = format!("{}\n", method_line(&self.methods[method as usize]));
            buf.extend_from_slice(&[0, 0, 1]);
            buf.extend_from_slice(&(line.len() as u16).to_le_bytes());
            buf.extend_from_slice(line.as_bytes());
        }
    }

    /// One record of thread `tid` at thread-CPU time `cpu_us` and wall time `wall_us`.
    fn record(
        &self,
        tid: u16,
        method: u32,
        action: Action,
        cpu_us: u64,
        wall_us: u64,
        buf: &mut Vec<u8>,
    ) {
        let time1 = match self.clock {
            ClockMode::Wall => wall_us as u32,
            _ => cpu_us as u32,
        };
        if self.layout == Layout::V1 {
            buf.push(tid as u8);
        } else {
            buf.extend_from_slice(&tid.to_le_bytes());
        }
        buf.extend_from_slice(&(method << 2 | action as u32).to_le_bytes());
        buf.extend_from_slice(&time1.to_le_bytes());
        if self.clock == ClockMode::Dual && self.record_size >= 14 {
            buf.extend_from_slice(&(wall_us as u32).to_le_bytes());
        }
    }

    /// Writes `scene` on the main thread `main`, starting 1 µs after `wall_us`; returns the wall
    /// time of its last record.
    fn write_scene(
        &mut self,
        scene: &[script::ScriptRecord],
        main: &mut ThreadState,
        wall_us: u64,
        buf: &mut Vec<u8>,
    ) -> u64 {
        let (wall0, cpu0) = (wall_us + 1, main.cpu_us + 1);
        for r in scene {
            let method = self.first_script_method + r.method as u32;
            self.define_method(method, buf);
            self.record(
                main.tid,
                method,
                r.action,
                cpu0 + r.cpu_us,
                wall0 + r.wall_us,
                buf,
            );
        }
        let last = scene.last().map_or((0, 0), |r| (r.wall_us, r.cpu_us));
        main.cpu_us = cpu0 + last.1;
        main.started = true;
        wall0 + last.0
    }
}

/// Generates into memory (a combined or streaming file).
pub fn generate_vec(opts: &GenOptions) -> Vec<u8> {
    let mut v = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = generate(opts, &mut v, None);
    v
}

#[cfg(test)]
mod tests {
    use super::Rng;

    /// `below(n)` stays below `n` for any `n`, and below 2³² it is the upper 32 bits scaled,
    /// so the files generated for a seed do not depend on how the product is taken.
    #[test]
    fn below_stays_below_its_bound_for_any_bound() {
        for n in [
            1,
            7,
            1_000_000,
            u64::from(u32::MAX),
            1 << 32,
            1 << 40,
            u64::MAX,
        ] {
            let (mut rng, mut twin) = (Rng::new(n), Rng::new(n));
            for _ in 0..1000 {
                let v = rng.below(n);
                assert!(v < n, "{v} from below({n})");
                let upper = twin.next_u64() >> 32;
                if n <= u64::from(u32::MAX) {
                    assert_eq!(v, (upper * n) >> 32);
                }
            }
        }
    }
}
