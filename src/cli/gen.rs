//! `tracelens gen`: writes large realistic Android traces (and simpleperf recordings) for
//! benchmarks and experiments.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::{CliError, ClocksArg};
use crate::formats::android::synth::{
    BLOCKING_METHODS, GenOptions, MainScript, MethodMatch, Slowdown, generate,
};
use crate::formats::android::v2::Revision;
use crate::formats::android::v2::writer::{V2Layout, reencode};
use crate::formats::android::writer::Layout;
use crate::load::LoadError;
use crate::trace::ClockMode;

/// Arguments of `tracelens gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// Number of records to write.
    #[arg(long, default_value_t = 1_000_000)]
    pub records: u64,
    /// Number of threads.
    #[arg(long, default_value_t = 8)]
    pub threads: u16,
    /// Number of methods.
    #[arg(long, default_value_t = 5000)]
    pub methods: u32,
    /// Seed of the random generator (the same seed gives the same file).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seed of the method table and call graph (default: --seed). Runs with one --program-seed
    /// and different --seed share their methods: a group of runs of one program.
    #[arg(long, value_name = "N")]
    pub program_seed: Option<u64>,
    /// Make every call of some methods slower, on both clocks: `GLOB:+2ms` (a glob on
    /// `class.name` or `class.name signature`) or `INDEX:+500us` (the method's index in the
    /// table). Repeatable; units us, ms, s.
    #[arg(long, value_name = "METHOD:+TIME", value_parser = parse_slowdown)]
    pub slow: Vec<Slowdown>,
    /// Container and record layout.
    #[arg(long, value_enum, default_value_t = LayoutArg::V3)]
    pub layout: LayoutArg,
    /// Clock(s) recorded. v3 is written only for `dual`; v1/v2 take one clock.
    #[arg(long, value_enum, default_value_t = ClocksArg::Dual)]
    pub clock: ClocksArg,
    /// Simulate a tracing cost of N ns per record: each record a thread writes delays that
    /// thread's later records by N ns on both clocks (each thread as if on its own core), and
    /// the key states `clock-call-overhead-nsec=N`. The same seed without it gives the times
    /// without tracing cost (docs/compensation.md).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=crate::analysis::compensate::MAX_OVERHEAD_NS))]
    pub overhead_ns: Option<u64>,
    /// With `--layout simpleperf`: record off-CPU samples and context switches, as
    /// `simpleperf record --trace-offcpu` does.
    #[arg(long)]
    pub off_cpu: bool,
    /// With `--layout simpleperf`: the percentage of samples that keep their thread's previous
    /// stack and move only within its leaf, as a thread in a loop does (0: every sample is a
    /// step of a random walk).
    #[arg(long, value_name = "PERCENT", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub same_stack: u8,
    /// With `--layout simpleperf`: give every Java frame a new address at every sample, callers
    /// too (no recording looks like that; the worst case for the reader). The samples decode
    /// the same.
    #[arg(long)]
    pub fresh_caller_addresses: bool,
    /// Re-encode this V1 trace (a combined `.trace` or an ART streaming file) in `--layout`
    /// (an `art-v2…` one) instead of generating records.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    #[command(flatten)]
    pub script: ScriptArgs,
    /// Output file. With `--layout pair`, FILE.key and FILE.data are written.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Known work on the main thread, for checking `insights`: frames with blocking calls inside,
/// and startup phases. Each frame (and the startup) is written in one piece between the random
/// records (these records come on top of --records), nested in the main thread's current call.
#[derive(Debug, Args)]
pub struct ScriptArgs {
    /// Place N `android.view.Choreographer.doFrame` calls on the main thread, spread evenly
    /// over the trace.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub frames: u32,
    /// The wall time of a frame, µs.
    #[arg(long, value_name = "US", default_value_t = 8000)]
    pub frame_us: u64,
    /// Make every K-th frame (K, 2K, ...) janky: it lasts --jank-us. 0: none.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub jank_every: u32,
    /// The wall time of a janky frame, µs.
    #[arg(long, value_name = "US", default_value_t = 25_000)]
    pub jank_us: u64,
    /// Blocking calls in every frame, in order, each this long on the wall clock (the thread's
    /// CPU clock stands still in them): `binder:2000,disk:500`. Categories: binder, disk,
    /// network, lock, sleep, inflate, class-load.
    #[arg(long, value_name = "CATEGORY:US,...", value_delimiter = ',', value_parser = parse_blocking)]
    pub blocking: Vec<(usize, u64)>,
    /// Start the main thread with the startup phases (binding the application, its onCreate,
    /// the activity's create, start and resume).
    #[arg(long)]
    pub startup: bool,
}

impl ScriptArgs {
    /// The script, or a usage error when it cannot be written as asked.
    fn script(&self) -> Result<MainScript, CliError> {
        let script = MainScript {
            frames: self.frames,
            frame_us: self.frame_us,
            jank_every: self.jank_every,
            jank_us: self.jank_us,
            blocking: self.blocking.clone(),
            startup: self.startup,
        };
        if self.frames == 0 && !self.blocking.is_empty() {
            return Err(CliError::Usage(
                "--blocking places calls in frames: give --frames".into(),
            ));
        }
        script.check().map_err(CliError::Usage)?;
        Ok(script)
    }
}

/// `--blocking CATEGORY:US`.
fn parse_blocking(s: &str) -> Result<(usize, u64), String> {
    let categories = || {
        let names: Vec<&str> = BLOCKING_METHODS.iter().map(|b| b.0).collect();
        names.join(", ")
    };
    let (category, us) = s
        .split_once(':')
        .ok_or_else(|| format!("'{s}': expected CATEGORY:US, e.g. binder:2000"))?;
    let index = MainScript::blocking_index(category)
        .ok_or_else(|| format!("'{category}': not one of {}", categories()))?;
    let us = us
        .parse::<u64>()
        .map_err(|_| format!("'{s}': expected a whole number of µs after ':'"))?;
    Ok((index, us))
}

/// `--layout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    V1,
    V2,
    V3,
    Streaming,
    /// A `.key` + `.data` pair (v3 for dual, else v2).
    Pair,
    /// A simpleperf report-sample protobuf: `--records` samples, `--methods` Java methods
    /// (`--clock`, `--slow`, `--overhead-ns` do not apply).
    Simpleperf,
    /// ART V2 (version 4 or 5), the current revision.
    ArtV2,
    /// ART V2 streaming (version 0xF4 or 0xF5), the current revision.
    ArtV2Streaming,
    /// ART V2 (version 4 or 5) in the encoding of ART's first writer (2024), laid out as its
    /// streaming files (ART's own non-streaming layout of that writer was broken and is not
    /// readable).
    ArtV2Early,
    /// ART V2 streaming as ART's first writer (2024) encoded it.
    ArtV2EarlyStreaming,
}

impl LayoutArg {
    /// The V2 layout, for the `art-v2…` values.
    fn v2(self) -> Option<V2Layout> {
        let (revision, streaming) = match self {
            LayoutArg::ArtV2 => (Revision::Later, false),
            LayoutArg::ArtV2Streaming => (Revision::Later, true),
            LayoutArg::ArtV2Early => (Revision::Early, false),
            LayoutArg::ArtV2EarlyStreaming => (Revision::Early, true),
            _ => return None,
        };
        Some(V2Layout {
            revision,
            streaming,
        })
    }
}

/// Writes the trace and prints what was written on stderr.
pub(crate) fn run(args: &GenArgs) -> Result<(), CliError> {
    if let Some(v2) = args.layout.v2() {
        return run_v2(args, v2);
    }
    if args.from.is_some() {
        return Err(CliError::Usage(
            "--from re-encodes a trace as ART V2: use an art-v2 --layout".into(),
        ));
    }
    let script = script_of(args)?;
    let clock = ClockMode::from(args.clock);
    let layout = match args.layout {
        LayoutArg::Simpleperf => return run_sampled(args),
        LayoutArg::V1 => Layout::V1,
        LayoutArg::V2 => Layout::V2,
        LayoutArg::V3 => Layout::V3,
        LayoutArg::Streaming => Layout::Streaming,
        LayoutArg::Pair if clock == ClockMode::Dual => Layout::V3,
        LayoutArg::Pair => Layout::V2,
        v2 => unreachable!("{v2:?} is written by run_v2"),
    };
    if layout == Layout::V3 && clock != ClockMode::Dual {
        return Err(CliError::Usage(
            "version 3 records carry two clocks; use --clock dual or --layout v2".into(),
        ));
    }
    if layout != Layout::V3 && layout != Layout::Streaming && clock == ClockMode::Dual {
        return Err(CliError::Usage(
            "v1/v2 records carry one clock; use --clock wall or cpu".into(),
        ));
    }
    let opts = GenOptions {
        records: args.records,
        threads: args.threads,
        methods: args.methods,
        seed: args.seed,
        layout,
        clock,
        overhead_ns: args.overhead_ns,
        program_seed: args.program_seed,
        slow: args.slow.clone(),
        script,
    };
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CliError::Write { path, source }
    };
    let create = |p: &Path| {
        std::fs::File::create(p)
            .map(|f| BufWriter::with_capacity(1 << 20, f))
            .map_err(write_error(p))
    };
    let stats = if args.layout == LayoutArg::Pair {
        let with = |ext: &str| {
            let mut s = args.output.as_os_str().to_owned();
            s.push(ext);
            PathBuf::from(s)
        };
        let (key_path, data_path) = (with(".key"), with(".data"));
        let (mut k, mut d) = (create(&key_path)?, create(&data_path)?);
        let stats = generate(&opts, &mut k, Some(&mut d)).map_err(write_error(&args.output))?;
        k.flush().map_err(write_error(&key_path))?;
        d.flush().map_err(write_error(&data_path))?;
        stats
    } else {
        let mut f = create(&args.output)?;
        let stats = generate(&opts, &mut f, None).map_err(write_error(&args.output))?;
        f.flush().map_err(write_error(&args.output))?;
        stats
    };
    super::warn(format_args!(
        "wrote {} records ({} bytes, max depth {}, {} unmatched exits, {} unrolls) to {}",
        stats.records,
        stats.bytes,
        stats.max_depth,
        stats.unmatched_exits,
        stats.unrolls,
        args.output.display()
    ));
    Ok(())
}

/// The main-thread script, refused where its times cannot be kept exact.
fn script_of(args: &GenArgs) -> Result<MainScript, CliError> {
    let script = args.script.script()?;
    let refused = if script.is_empty() {
        None
    } else if args.overhead_ns.is_some() {
        Some("write exact times: drop --overhead-ns")
    } else if args.layout == LayoutArg::Simpleperf {
        Some("write method traces, not simpleperf")
    } else {
        None
    };
    match refused {
        Some(why) => Err(CliError::Usage(format!("--frames and --startup {why}"))),
        None => Ok(script),
    }
}

/// `gen --layout simpleperf`.
fn run_sampled(args: &GenArgs) -> Result<(), CliError> {
    use crate::formats::simpleperf::synth::{SampledOptions, generate};
    let opts = SampledOptions {
        samples: args.records,
        threads: args.threads,
        methods: args.methods,
        seed: args.seed,
        off_cpu: args.off_cpu,
        program_seed: args.program_seed,
        heavier: None,
        same_stack_percent: args.same_stack,
        fresh_caller_addresses: args.fresh_caller_addresses,
    };
    let path = &args.output;
    let write_error = |source| CliError::Write {
        path: path.clone(),
        source,
    };
    let file = std::fs::File::create(path).map_err(write_error)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let stats = generate(&opts, &mut out).map_err(write_error)?;
    out.flush().map_err(write_error)?;
    super::warn(format_args!(
        "wrote {} samples ({} records, {} bytes, max depth {}, {} lost) to {}",
        stats.samples,
        stats.records,
        stats.bytes,
        stats.max_depth,
        stats.lost,
        path.display()
    ));
    Ok(())
}

/// An ART V2 file: the records generated (as an ART streaming V1 trace first, which takes
/// every clock) or read from `--from`, re-encoded.
fn run_v2(args: &GenArgs, layout: V2Layout) -> Result<(), CliError> {
    let (opened, generated);
    let v1: &[u8] = match &args.from {
        Some(path) => {
            opened = crate::load::Source::open(path).map_err(|source| LoadError::Io {
                path: path.clone(),
                source,
            })?;
            &opened
        }
        None => {
            let opts = GenOptions {
                records: args.records,
                threads: args.threads,
                methods: args.methods,
                seed: args.seed,
                layout: Layout::Streaming,
                clock: ClockMode::from(args.clock),
                overhead_ns: args.overhead_ns,
                program_seed: args.program_seed,
                slow: args.slow.clone(),
                script: script_of(args)?,
            };
            let mut v1 = Vec::new();
            generate(&opts, &mut v1, None).map_err(|source| CliError::Write {
                path: args.output.clone(),
                source,
            })?;
            generated = v1;
            &generated
        }
    };
    let from = args.from.as_deref().unwrap_or(&args.output);
    let v2 = reencode(v1, layout).map_err(|error| LoadError::Format {
        path: from.to_path_buf(),
        error,
    })?;
    std::fs::write(&args.output, &v2).map_err(|source| CliError::Write {
        path: args.output.clone(),
        source,
    })?;
    super::warn(format_args!(
        "wrote {} bytes of ART V2 ({:?} revision{}) to {}",
        v2.len(),
        layout.revision,
        if layout.streaming { ", streaming" } else { "" },
        args.output.display()
    ));
    Ok(())
}

/// `--slow METHOD:+TIME`.
fn parse_slowdown(s: &str) -> Result<Slowdown, String> {
    let (method, time) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("expected METHOD:+TIME (e.g. '*.onDraw:+2ms'), got '{s}'"))?;
    let us = crate::analysis::regress::budget::parse_time_us(time.trim_start_matches('+'))?;
    let methods = match method.parse::<u32>() {
        Ok(i) => MethodMatch::Index(i),
        Err(_) => MethodMatch::Glob(method.to_string()),
    };
    Ok(Slowdown {
        methods,
        add_us: us.round() as u64,
    })
}
