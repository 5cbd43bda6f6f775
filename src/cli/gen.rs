//! `tracelens gen`: writes large realistic Android traces for benchmarks and experiments.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::formats::android::synth::{GenOptions, generate};
use crate::formats::android::writer::Layout;
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
    /// Container and record layout.
    #[arg(long, value_enum, default_value_t = LayoutArg::V3)]
    pub layout: LayoutArg,
    /// Clock(s) recorded. v3 is written only for `dual`; v1/v2 take one clock.
    #[arg(long, value_enum, default_value_t = ClockArg::Dual)]
    pub clock: ClockArg,
    /// Output file. With `--layout pair`, FILE.key and FILE.data are written.
    #[arg(short, long)]
    pub output: PathBuf,
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
}

/// `--clock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    Dual,
    Wall,
    ThreadCpu,
}

/// Writes the trace; returns the exit code.
pub fn run(args: &GenArgs) -> i32 {
    let clock = match args.clock {
        ClockArg::Dual => ClockMode::Dual,
        ClockArg::Wall => ClockMode::Wall,
        ClockArg::ThreadCpu => ClockMode::ThreadCpu,
    };
    let layout = match args.layout {
        LayoutArg::V1 => Layout::V1,
        LayoutArg::V2 => Layout::V2,
        LayoutArg::V3 => Layout::V3,
        LayoutArg::Streaming => Layout::Streaming,
        LayoutArg::Pair if clock == ClockMode::Dual => Layout::V3,
        LayoutArg::Pair => Layout::V2,
    };
    if layout == Layout::V3 && clock != ClockMode::Dual {
        eprintln!(
            "tracelens gen: version 3 records carry two clocks; use --clock dual or --layout v2"
        );
        return 2;
    }
    if layout != Layout::V3 && layout != Layout::Streaming && clock == ClockMode::Dual {
        eprintln!("tracelens gen: v1/v2 records carry one clock; use --clock wall or thread-cpu");
        return 2;
    }
    let opts = GenOptions {
        records: args.records,
        threads: args.threads,
        methods: args.methods,
        seed: args.seed,
        layout,
        clock,
    };
    let create = |p: &PathBuf| {
        std::fs::File::create(p)
            .map(|f| BufWriter::with_capacity(1 << 20, f))
            .map_err(|e| eprintln!("{}: cannot write: {e}", p.display()))
    };
    let result = if args.layout == LayoutArg::Pair {
        let with = |ext: &str| {
            let mut s = args.output.as_os_str().to_owned();
            s.push(ext);
            PathBuf::from(s)
        };
        let (Ok(mut k), Ok(mut d)) = (create(&with(".key")), create(&with(".data"))) else {
            return 1;
        };
        generate(&opts, &mut k, Some(&mut d)).and_then(|s| {
            k.flush()?;
            d.flush()?;
            Ok(s)
        })
    } else {
        let Ok(mut f) = create(&args.output) else {
            return 1;
        };
        generate(&opts, &mut f, None).and_then(|s| {
            f.flush()?;
            Ok(s)
        })
    };
    match result {
        Ok(stats) => {
            eprintln!(
                "wrote {} records ({} bytes, max depth {}, {} unmatched exits, {} unrolls) to {}",
                stats.records,
                stats.bytes,
                stats.max_depth,
                stats.unmatched_exits,
                stats.unrolls,
                args.output.display()
            );
            0
        }
        Err(e) => {
            eprintln!("{}: cannot write: {e}", args.output.display());
            1
        }
    }
}
