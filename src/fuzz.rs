//! Entry points of the fuzz targets (`fuzz/fuzz_targets/*.rs`, run with `cargo fuzz`) and of the
//! regression corpus that stable `cargo test` replays (`tests/fuzz_regressions.rs`).
//!
//! Each [`Target`] takes arbitrary bytes and runs one reader, or one command's whole pipeline as
//! the CLI runs it (detection → reader → analysis → report), writing the output to a sink. A
//! target returns normally for every input: an `Err` from a reader is a valid outcome; a panic,
//! a hang or memory out of proportion to the input is a finding.

use std::io;

use crate::analysis::diff::TraceDiff;
use crate::analysis::profile::{ProfileSinkFactory, profile};
use crate::formats::android::{self, FORMAT_TRACE};
use crate::formats::legacy::{self, LegacyKind};
use crate::formats::{Parsed, Progress, ReadContext, detect};
use crate::report::profile_text::{Style, render_parts};
use crate::trace::{Clock, Trace};

/// What a fuzz target exercises. The name is the target's file name in `fuzz/fuzz_targets/` and
/// its folder in `fuzz/regressions/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Content detection (Android and legacy sniffing).
    Detect,
    /// The Android key text alone.
    AndroidKey,
    /// An Android data section (`.data` file) read with one of a few fixed keys (the first byte
    /// chooses the key), both to a builder and to profile sinks.
    AndroidData,
    /// A combined key + data trace (or whatever the Android reader is given): its overview, and
    /// the trace to a builder.
    AndroidTrace,
    /// An ART streaming trace.
    AndroidStreaming,
    /// An ART V2 trace (either revision), to a builder and to the dump.
    AndroidV2,
    /// OpenOffice `RTL_LOGFILE`.
    Rtl,
    /// Windows CE PerfLog.
    PerfLog,
    /// CProfiler CSV.
    CProfiler,
    /// Logger CSV.
    Logger,
    /// R8/ProGuard `mapping.txt`.
    Mapping,
    /// `tracelens profile` (text and HTML) through all three ways in: records to sinks, events,
    /// and lanes, on both clocks.
    Profile,
    /// `tracelens dump`.
    Dump,
    /// `tracelens summary` (text and JSON) and `tracelens info`.
    Summary,
    /// `tracelens graph`.
    Graph,
    /// `tracelens diff` of the input's two halves (text and JSON).
    Diff,
    /// `tracelens convert` to every export format on every clock.
    Convert,
    /// `tracelens profile --range`: a range chosen by the input's first two bytes.
    Restrict,
    /// What the viewer computes when a file is opened (the load job's document, with the `gui`
    /// feature) and the call trees of its lower panel.
    Viewer,
    /// What the Transform, Search and compensation switches compute: every kind of call-tree
    /// transform on methods of the trace (alone and stacked), a search, and the compensated
    /// trace (the key's overhead, or one from the input's first byte), each then profiled.
    Transforms,
    /// `tracelens diff --base A --new B` of the input's two halves: by method and by call path,
    /// with a budget.
    Regress,
    /// A session sidecar (`FILE.tracelens.json`) from the input, resolved against the sample
    /// trace as the viewer does when it reopens a trace (nothing without the `gui` feature).
    Session,
    /// `tracelens insights` (text, JSON and a gate on every metric) at two refresh rates, with a
    /// rules file's category.
    Insights,
    /// simpleperf's report-sample protobuf (the input after a `SIMPLEPERF` header), then what
    /// the commands compute from samples: their counts, the profile, collapsed stacks.
    Simpleperf,
    /// A `perf.data` recording (the input after a `PERFILE2` magic when it lacks one), then the
    /// same as for simpleperf's protobuf.
    PerfData,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 25] = [
        Target::Detect,
        Target::AndroidKey,
        Target::AndroidData,
        Target::AndroidTrace,
        Target::AndroidStreaming,
        Target::AndroidV2,
        Target::Rtl,
        Target::PerfLog,
        Target::CProfiler,
        Target::Logger,
        Target::Mapping,
        Target::Profile,
        Target::Dump,
        Target::Summary,
        Target::Graph,
        Target::Diff,
        Target::Convert,
        Target::Restrict,
        Target::Viewer,
        Target::Transforms,
        Target::Regress,
        Target::Session,
        Target::Simpleperf,
        Target::Insights,
        Target::PerfData,
    ];

    /// The target's name (`fuzz/fuzz_targets/NAME.rs`, `fuzz/regressions/NAME/`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Detect => "detect",
            Target::AndroidKey => "android_key",
            Target::AndroidData => "android_data",
            Target::AndroidTrace => "android_trace",
            Target::AndroidStreaming => "android_streaming",
            Target::AndroidV2 => "android_v2",
            Target::Rtl => "rtl",
            Target::PerfLog => "perflog",
            Target::CProfiler => "cprofiler",
            Target::Logger => "logger",
            Target::Mapping => "mapping",
            Target::Profile => "profile",
            Target::Dump => "dump",
            Target::Summary => "summary",
            Target::Graph => "graph",
            Target::Diff => "diff",
            Target::Convert => "convert",
            Target::Restrict => "restrict",
            Target::Viewer => "viewer",
            Target::Transforms => "transforms",
            Target::Regress => "regress",
            Target::Session => "session",
            Target::Simpleperf => "simpleperf",
            Target::PerfData => "perf_data",
            Target::Insights => "insights",
        }
    }

    /// The target called `name`.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Runs `target` on `bytes`. Returns normally for every input unless there is a bug.
pub fn run(target: Target, bytes: &[u8]) {
    let progress = Progress::default();
    let ctx = ReadContext::new(None, &progress);
    match target {
        Target::Detect => {
            let _ = detect::detect(bytes);
            let _ = legacy::sniff(bytes, None);
            let _ = android::data_header(bytes);
        }
        Target::AndroidKey => {
            let _ = android::parse_key(bytes, FORMAT_TRACE, 0);
        }
        Target::AndroidData => android_data(bytes, &ctx),
        Target::AndroidTrace => {
            let _ = android::overview::overview_of_bytes(bytes);
            if let Ok(b) = android::read(bytes, &ctx) {
                b.finish();
            }
        }
        Target::AndroidStreaming => {
            if let Ok(b) = android::streaming::read(bytes, &ctx) {
                b.finish();
            }
        }
        Target::AndroidV2 => {
            if let Ok(b) = android::v2::read(bytes, &ctx) {
                b.finish();
            }
            let _ = crate::report::dump::dump(bytes, &mut io::sink());
        }
        Target::Rtl => legacy_reader(LegacyKind::Rtl, bytes, &ctx),
        Target::PerfLog => legacy_reader(LegacyKind::PerfLog, bytes, &ctx),
        Target::CProfiler => legacy_reader(LegacyKind::CProfiler, bytes, &ctx),
        Target::Logger => legacy_reader(LegacyKind::Logger, bytes, &ctx),
        Target::Mapping => mapping(bytes),
        Target::Profile => profile_pipeline(bytes, &ctx),
        Target::Dump => {
            let _ = crate::report::dump::dump(bytes, &mut io::sink());
        }
        Target::Summary => {
            if let Some(trace) = load(bytes, &ctx) {
                let profiles = crate::report::summary::summary_profiles(&trace);
                let s = crate::report::summary::summarize_with_profiles(
                    "fuzz",
                    &trace,
                    profiles.as_ref(),
                );
                let _ = crate::report::summary::write_json(
                    std::slice::from_ref(&s),
                    &mut std::io::sink(),
                );
                let _ = crate::report::summary::to_text(&s, 10);
                let _ = crate::report::info::render(std::path::Path::new("fuzz"), &trace);
                drop(s);
                // `summary --compensate`: the measured times kept, the trace compensated in
                // place, both beside each other in the report.
                use crate::analysis::compensate::{OverheadSource, compensate_owned};
                use crate::analysis::profile::{self, ClockTimes, Detail};
                use crate::report::summary::summary_profiles;
                let measured: Vec<ClockTimes> =
                    profile::profiles(&trace, &trace.clocks(), Detail::Totals, ClockTimes::of);
                let (c, how) = compensate_owned(trace, 700, OverheadSource::Given);
                let after = summary_profiles(&c);
                let s = crate::report::summary::summarize_compensated(
                    "fuzz",
                    &c,
                    &how,
                    after.as_ref(),
                    &measured,
                );
                let _ = crate::report::summary::write_json(
                    std::slice::from_ref(&s),
                    &mut std::io::sink(),
                );
                let _ = crate::report::summary::to_text(&s, 10);
            }
        }
        Target::Insights => {
            if let Some(trace) = load(bytes, &ctx) {
                insights(&trace);
            }
        }
        Target::Graph => {
            if let Some(trace) = load(bytes, &ctx) {
                let p = profile(&trace, trace.primary_clock());
                let _ = crate::report::graph::write_dot(&trace, &p, 1, &mut io::sink());
            }
        }
        Target::Diff => {
            let (a, b) = bytes.split_at(bytes.len() / 2);
            let (Some(a), Some(b)) = (load(a, &ctx), load(b, &ctx)) else {
                return;
            };
            let diffs = TraceDiff::of_traces(&a, &b);
            let mut out = io::sink();
            if let Some(d) = diffs.first() {
                let _ = crate::report::diff::write_diff_text(d, &mut out);
            }
            let _ = crate::report::diff::write_diff_json(&diffs, "a", "b", 1, &mut out);
        }
        Target::Convert => {
            if let Some(trace) = load(bytes, &ctx) {
                use crate::report::export::{ExportFormat, ExportOptions, export};
                for clock in clocks_of(&trace) {
                    for format in [
                        ExportFormat::Speedscope,
                        ExportFormat::Chrome,
                        ExportFormat::Collapsed,
                    ] {
                        let opts = ExportOptions::default();
                        let _ = export(&trace, format, clock, "fuzz", &opts, &mut io::sink());
                    }
                }
            }
        }
        Target::Restrict => {
            let (range, rest) = bytes.split_at(bytes.len().min(2));
            let Some(trace) = load(rest, &ctx) else {
                return;
            };
            let Some((lo, hi)) = trace.axis_range() else {
                return;
            };
            let span = hi.saturating_sub(lo).saturating_add(1);
            let at = |b: Option<&u8>| lo.saturating_add(span / 255 * u64::from(*b.unwrap_or(&0)));
            let (a, b) = (at(range.first()), at(range.get(1)));
            let t = crate::analysis::restrict::restrict(&trace, a.min(b), a.max(b));
            for clock in clocks_of(&t) {
                let p = profile(&t, clock);
                let _ = render_parts(&t, &p, &Style::Text);
            }
        }
        Target::Viewer => {
            if let Some(trace) = load(bytes, &ctx) {
                viewer(trace);
            }
        }
        Target::Transforms => {
            let (first, rest) = bytes.split_at(bytes.len().min(1));
            if let Some(trace) = load(rest, &ctx) {
                transforms(&trace, first.first().copied().unwrap_or(0));
            }
        }
        Target::Regress => {
            let (a, b) = bytes.split_at(bytes.len() / 2);
            if let (Some(a), Some(b)) = (load(a, &ctx), load(b, &ctx)) {
                regress(&a, &b);
            }
        }
        Target::Session => session(bytes),
        Target::Simpleperf => simpleperf(bytes, &ctx),
        Target::PerfData => perf_data(bytes, &ctx),
    }
}

/// Reads `bytes` as a simpleperf recording (given the header when they lack it), then what the
/// commands do with samples ([`sampled`]).
fn simpleperf(bytes: &[u8], ctx: &ReadContext) {
    use crate::formats::simpleperf;
    let mut input = Vec::with_capacity(bytes.len() + 12);
    if !bytes.starts_with(simpleperf::MAGIC) {
        input.extend_from_slice(simpleperf::MAGIC);
        input.extend_from_slice(&1u16.to_le_bytes());
    }
    input.extend_from_slice(bytes);
    if let Ok(b) = simpleperf::read(&input, ctx) {
        sampled(&b.finish());
    }
}

/// Reads `bytes` as a `perf.data` recording (given the magic when they lack it), then what the
/// commands do with samples ([`sampled`]).
fn perf_data(bytes: &[u8], ctx: &ReadContext) {
    use crate::formats::simpleperf;
    let mut input = Vec::with_capacity(bytes.len() + 8);
    if !bytes.starts_with(simpleperf::PERF_DATA_MAGIC) {
        input.extend_from_slice(simpleperf::PERF_DATA_MAGIC);
    }
    input.extend_from_slice(bytes);
    if let Ok(b) = simpleperf::perf_data::read(&input, ctx) {
        sampled(&b.finish());
    }
}

/// Counts a sampled trace's samples, profiles its calls, writes its collapsed stacks and merges
/// its truncated roots.
fn sampled(trace: &Trace) {
    let _ = crate::analysis::samples::SampleCounts::of(trace);
    let p = profile(trace, trace.primary_clock());
    let _ = render_parts(trace, &p, &Style::Text);
    use crate::report::export::{ExportFormat, ExportOptions, export};
    let opts = ExportOptions::default();
    let clock = trace.primary_clock();
    let _ = export(
        trace,
        ExportFormat::Collapsed,
        clock,
        "fuzz",
        &opts,
        &mut io::sink(),
    );
    let merge = crate::analysis::transform::Transform::MergeTruncatedRoots;
    if let Ok(merged) = crate::analysis::transform::apply_one(trace, &merge) {
        for th in &merged.threads {
            if let Err(e) = crate::analysis::transform::check_thread(th) {
                panic!("merging truncated roots made a malformed thread: {e}");
            }
        }
    }
}

/// Every transform kind on a few methods of `trace`, one at a time and stacked; a search; the
/// compensated trace. Each result must be a well-formed trace, and is profiled.
fn transforms(trace: &Trace, byte: u8) {
    use crate::analysis::transform::{Transform, apply, check_thread, method_pattern};
    let n = trace.methods.len() as u32;
    let picks: Vec<String> = [0, n / 2, n.saturating_sub(1), u32::from(byte)]
        .into_iter()
        .filter(|&m| m < n)
        .map(|m| method_pattern(trace, crate::trace::MethodId(m)))
        .collect();
    // The call path of the first call of the deepest lane of the first thread.
    let path: Vec<String> = trace
        .threads
        .first()
        .map(|t| {
            let mut path = Vec::new();
            let mut index = 0;
            for (depth, lane) in t.lanes.iter().enumerate() {
                if index >= lane.len() {
                    break;
                }
                path.push(method_pattern(trace, lane.method(index)));
                // The first child of this call, if it has one.
                let next_len = t.lanes.get(depth + 1).map_or(0, |l| l.len());
                let children = lane.children(index, next_len);
                if children.is_empty() {
                    break;
                }
                index = children.start;
            }
            path
        })
        .unwrap_or_default();
    let mut stack = Vec::new();
    for m in &picks {
        for t in [
            Transform::Merge { method: m.clone() },
            Transform::Focus { method: m.clone() },
            Transform::CollapseRecursion { method: m.clone() },
            Transform::CollapseDirectRecursion { method: m.clone() },
            Transform::Drop { method: m.clone() },
        ] {
            stack.push(t);
        }
    }
    stack.push(Transform::FocusSubtree { path });
    stack.push(Transform::MergePackage {
        globs: vec!["java.*".into(), "a*".into()],
    });
    stack.push(Transform::OnlyMyCode {
        globs: vec!["com.*".into(), "*.B*".into()],
    });
    let clock = trace.primary_clock();
    let check = |t: &Trace| {
        for th in &t.threads {
            if let Err(e) = check_thread(th) {
                panic!("a transform made a malformed thread: {e}");
            }
        }
        let _ = profile(t, clock);
    };
    for t in &stack {
        if let Ok(out) = apply(trace, std::slice::from_ref(t)) {
            check(&out);
        }
    }
    // Stacked: the first few, in order (each step's input is the previous output).
    if let Ok(out) = apply(trace, &stack[..stack.len().min(4)]) {
        check(&out);
    }
    if let Ok(q) = crate::analysis::search::Query::parse("a|B c") {
        let r = crate::analysis::search::search(trace, None, &q, 1_000);
        let _ = r.first_at_or_after(0);
    }
    use crate::analysis::compensate::{OverheadSource, compensate, compensate_owned, overhead_for};
    let given = (byte >= 128).then(|| u64::from(byte) * 37);
    if let Some((ns, from)) = overhead_for(trace, given) {
        let (c, _) = compensate(trace, ns, from);
        check(&c);
    }
    // The command line's way: the trace used up, thread by thread.
    let (c, _) = compensate_owned(trace.clone(), u64::MAX / 3, OverheadSource::Given);
    check(&c);
}

/// The group comparison of `a` against `b` (one run each, and each twice), by method and by
/// call path, with a budget checked.
fn regress(a: &Trace, b: &Trace) {
    use crate::analysis::regress::samples::{Keying, has_clock, run_samples};
    use crate::analysis::regress::{Options, compare, compare_owned};
    for clock in clocks_of(a) {
        if !has_clock(b, clock) {
            continue;
        }
        for keying in [Keying::Methods, Keying::Paths] {
            let (ra, rb) = (run_samples(a, clock, keying), run_samples(b, clock, keying));
            let options = Options {
                keying,
                ..Options::default()
            };
            let runs =
                |r: &crate::analysis::regress::samples::RunSamples| vec![r.clone(), r.clone()];
            // As the viewer compares (rows kept whole), then as the command line does (rows made
            // from the runs as they are written), which the reports below use.
            let whole = compare(&runs(&ra), &runs(&rb), &options);
            let cmp = compare_owned(runs(&ra), runs(&rb), &options);
            assert_eq!(whole.len(), cmp.len());
            if let Some(last) = cmp.len().checked_sub(1) {
                assert_eq!(whole.key(last), cmp.row(last).key);
                assert_eq!(whole.status(last), cmp.row(last).status);
            }
            for status in [
                crate::analysis::regress::Status::Regression,
                crate::analysis::regress::Status::Improvement,
                crate::analysis::regress::Status::OnlyBase,
            ] {
                let _ = cmp.ranked(status);
            }
            let mut out = io::sink();
            let _ = crate::report::regress::write_text(&cmp, clock, true, 50, &mut out);
            use crate::analysis::regress::budget::{Rule, check};
            let rules: Vec<Rule> = ["*:+5%", "a.*:+1ms", "*B*:-0us"]
                .into_iter()
                .filter_map(|s| Rule::parse_spec(s).ok())
                .collect();
            let verdicts = check(&cmp, &rules);
            let names = ["a".to_string()];
            let _ = crate::report::regress::to_json(&cmp, clock, &names, &names, true, &verdicts);
        }
    }
}

/// A sidecar session from `bytes`, resolved against the embedded sample trace.
#[cfg(feature = "gui")]
fn session(bytes: &[u8]) {
    use std::sync::OnceLock;
    static SAMPLE: OnceLock<Option<Trace>> = OnceLock::new();
    let sample = SAMPLE.get_or_init(|| {
        let progress = Progress::default();
        let ctx = ReadContext::new(None, &progress);
        load(crate::SAMPLE_TRACE, &ctx)
    });
    let Some(trace) = sample else { return };
    if let Ok(s) = crate::app::session::Session::parse(bytes, "fuzz.tracelens.json") {
        let r = s.resolve(trace, Some(bytes.len() as u64));
        let _ = crate::app::session::rule_colors(trace, &r.color_rules);
        let _ = crate::analysis::transform::apply(trace, &r.transforms);
    }
}

/// Sessions belong to the viewer: without it there is nothing to fuzz.
#[cfg(not(feature = "gui"))]
fn session(_bytes: &[u8]) {}

/// The clocks of `trace`, or its primary clock when it has none.
fn clocks_of(trace: &Trace) -> Vec<Clock> {
    let clocks = trace.clocks();
    if clocks.is_empty() {
        vec![trace.primary_clock()]
    } else {
        clocks
    }
}

/// Detects and reads `bytes` as the CLI does (None when they are not a readable trace).
fn load(bytes: &[u8], ctx: &ReadContext) -> Option<Trace> {
    crate::formats::read_bytes(bytes, ctx).ok()
}

/// What `tracelens insights` computes and writes, at 60 and 240 Hz, with every gate metric.
fn insights(trace: &Trace) {
    use crate::analysis::insights::gate::{GateRule, check};
    use crate::analysis::insights::rules::parse_rules;
    use crate::analysis::insights::{Options, RuleSet, analyze, budget_us};
    let extra = parse_rules("app com.*\nui android.view.*.{draw,measure}\n").unwrap_or_default();
    let gate: Vec<GateRule> = ["frames>1", "janky>0", "frame-p90>1ms", "frame-max>2ms"]
        .into_iter()
        .chain(["blocking>1ms", "binder>1us", "app>5ms"])
        .filter_map(|r| GateRule::parse(r).ok())
        .collect();
    for hz in [60.0, 240.0] {
        let options = Options {
            frame_budget_us: budget_us(hz),
            rules: RuleSet::new(extra.clone()),
        };
        let insights = analyze(trace, &options);
        let _ = crate::report::insights::write_text(&insights, &mut io::sink());
        let _ = crate::report::insights::write_json(&insights, "fuzz", &mut io::sink());
        let _ = check(&insights, &gate);
    }
}

fn legacy_reader(kind: LegacyKind, bytes: &[u8], ctx: &ReadContext) {
    let _ = legacy::read(kind, bytes, ctx);
}

fn mapping(bytes: &[u8]) {
    if let Ok(m) = crate::mapping::Mapping::parse_bytes("fuzz", bytes.to_vec()) {
        // Resolve a few names the mapping itself defines and a few it does not.
        let classes: Vec<String> = m
            .classes()
            .take(4)
            .map(|c| c.obfuscated().to_string())
            .collect();
        for c in classes.iter().map(String::as_str).chain(["a", "a.b", "x"]) {
            for (name, sig) in [("a", "()V"), ("b", "(La;I)La;"), ("<init>", "([La/b;J)V")] {
                let _ = crate::mapping::resolve(&m, c, name, sig);
            }
        }
    }
}

/// Keys for [`Target::AndroidData`]: the data's first byte picks one.
const KEYS: [&str; 3] = [
    "*version\n3\ndata-file-overflow=false\nclock=dual\nvm=art\n*threads\n1\tmain\n2\tworker\n\
     *methods\n0x1000\ta.B\tc\t()V\tB.java\t1\n0x1004\ta.B\td\t(I)V\n0x1008\tx\ty\tz\n*end\n",
    "*version\n2\nclock=wall\n*threads\n1\tmain\n3\tother\n*methods\n0x4\tp.Q\tr\t()V\n\
     0x8\tp.Q\ts\t()I\n0xc\tp.R\tt\t()V\n*end\n",
    "*version\n1\nclock=thread-cpu\n*threads\n5\tt5\n*methods\n0x10\tk.L\tm\t()V\n\
     0x14\tk.L\tn\t(J)J\n*end\n",
];

fn android_data(bytes: &[u8], ctx: &ReadContext) {
    let Some((&which, data)) = bytes.split_first() else {
        return;
    };
    let key = KEYS[usize::from(which) % KEYS.len()].as_bytes();
    if let Ok(b) = android::read_pair(key, data, ctx) {
        b.finish();
    }
    let factory = ProfileSinkFactory::new(None);
    if let Ok((b, sinks)) = android::read_pair_to_sinks(key, data, ctx, &factory) {
        let (trace, p) = factory.finish(b, Some(sinks));
        let _ = render_parts(&trace, &p, &Style::Text);
    }
}

fn profile_pipeline(bytes: &[u8], ctx: &ReadContext) {
    // The three ways in must agree (as `tests/robustness.rs` checks on the real traces): records
    // to sinks (what `tracelens profile FILE` runs on combined traces), the events (streaming
    // traces), and the lanes (`--range`, the viewer), unless the lanes left out calls nested
    // deeper than the model keeps.
    let mut expected = Vec::new();
    for clock in [None, Some(Clock::Cpu), Some(Clock::Wall)] {
        let factory = ProfileSinkFactory::new(clock);
        if let Ok(Some((b, sinks))) = android::read_to_sinks(bytes, ctx, &factory) {
            let (trace, p) = factory.finish(b, Some(sinks));
            let _ = render_parts(&trace, &p, &Style::Text);
            expected.push(p);
        }
    }
    let Ok(parsed) = crate::formats::read_to_builder(bytes, ctx) else {
        return;
    };
    let trace = match parsed {
        Parsed::Unfinished(b) => {
            // Events (one read per clock: finishing takes the builder), then lanes.
            let clocks = clocks_of(&b.finish_events().0);
            for clock in clocks {
                let Ok(Parsed::Unfinished(b)) = crate::formats::read_to_builder(bytes, ctx) else {
                    return;
                };
                let (trace, p) = ProfileSinkFactory::new(Some(clock)).finish(b, None);
                let _ = render_parts(&trace, &p, &Style::Text);
                expected.push(p);
            }
            match crate::formats::read_bytes(bytes, ctx) {
                Ok(t) => t,
                Err(_) => return,
            }
        }
        other => other.finish(),
    };
    let complete = !trace
        .diagnostics
        .iter()
        .any(|d| d.code == "nesting-too-deep");
    for clock in clocks_of(&trace) {
        let p = profile(&trace, clock);
        if complete {
            for e in expected.iter().filter(|e| e.clock == clock) {
                assert_eq!(
                    e, &p,
                    "the lanes' profile differs from the records' ({clock:?})"
                );
            }
        }
        let _ = render_parts(&trace, &p, &Style::Text);
        let html = Style::Html { sortable_url: None };
        let _ = render_parts(&trace, &p, &html);
    }
}

fn viewer(trace: Trace) {
    use crate::analysis::calltree::{BottomUpTree, CallTree, NodeId, TreeOptions};
    for clock in clocks_of(&trace) {
        let top = CallTree::top_down(&trace, TreeOptions::new(clock));
        let _ = top.flame_layout();
        // The viewer's bottom-up tree is lazy: open nodes depth-first, as a user would. Each
        // opening costs time linear in the calls it gathers; 2 000 of them bound one input.
        let mut bottom = BottomUpTree::new(top);
        let mut open = vec![NodeId::ROOT];
        let mut opened = 0;
        while let Some(n) = open.pop()
            && opened < 2_000
        {
            open.extend_from_slice(bottom.expand(n));
            opened += 1;
        }
    }
    #[cfg(feature = "gui")]
    let _ = crate::app::Document::new(trace).ranked();
}
