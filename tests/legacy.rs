//! Legacy formats: shared examples with README-stated values, and one test per edge case.

use std::path::{Path, PathBuf};

use tracelens::analysis::series::series_stats;
use tracelens::analysis::stats::{Stats, compare_runs};
use tracelens::formats::legacy::{LegacyKind, read, sniff};
use tracelens::formats::{Progress, ReadContext};
use tracelens::trace::{Location, Trace};

const EX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/legacy-examples");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-traces/legacy")
        .join(name)
}

fn load(path: &Path) -> Trace {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let kind =
        sniff(&bytes, Some(path)).unwrap_or_else(|| panic!("{} not sniffed", path.display()));
    let progress = Progress::default();
    read(kind, &bytes, &ReadContext::new(Some(path), &progress)).expect("read")
}

fn fx(name: &str) -> Trace {
    load(&fixture(name))
}

fn has_code(t: &Trace, code: &str) -> bool {
    t.diagnostics.iter().any(|d| d.code == code)
}

fn method_named(t: &Trace, name: &str) -> Option<tracelens::trace::MethodId> {
    (0..t.methods.len() as u32)
        .map(tracelens::trace::MethodId)
        .find(|&m| t.str(t.methods[m.index()].name) == name)
}

/// (start, dur) of every call of method `name` on all threads.
fn calls_of(t: &Trace, name: &str) -> Vec<(u64, u64)> {
    let Some(m) = method_named(t, name) else {
        return vec![];
    };
    let mut v = vec![];
    for th in &t.threads {
        for lane in &th.lanes {
            for i in 0..lane.len() {
                if lane.method(i) == m {
                    v.push((lane.start(i), lane.dur(i)));
                }
            }
        }
    }
    v.sort();
    v
}

fn series<'a>(t: &'a Trace, name: &str) -> Vec<tracelens::trace::SeriesRef<'a>> {
    t.durations.iter().filter(|d| d.name == name).collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------- shared examples

#[test]
fn example_rtl_soffice_4242() {
    let t = load(Path::new(&format!(
        "{EX}/synthetic/rtl_logfile/soffice_4242.log"
    )));
    assert_eq!(t.source.format, "rtl-logfile");
    assert_eq!(calls_of(&t, "::Desktop::Main"), vec![(44, 3004 - 44)]);
    assert_eq!(t.source.option("pid"), Some("4242"));
    assert_eq!(t.source.option("clean_exit"), Some("true"));
    assert_eq!(t.source.option("closing_ms"), Some("3010"));
    assert!(
        !has_code(&t, "R8") && !has_code(&t, "R9") && !has_code(&t, "R10"),
        "{:?}",
        t.diagnostics
    );
    // Logical scope closed by a shorter label.
    assert_eq!(
        calls_of(&t, "creation ConfigItem [file=standard, version=6, mode=3]"),
        vec![(91, 49)]
    );
    assert_eq!(t.threads.len(), 3);
    assert!(
        t.instants.iter().any(
            |i| t.instants.label(i).to_string() == "PERFORMANCE - enter Main()" && i.time == 0
        )
    );
}

#[test]
fn example_rtl_nopid_r13() {
    let t = load(Path::new(&format!(
        "{EX}/synthetic/rtl_logfile/trace.nopid"
    )));
    assert!(has_code(&t, "R13"), "{:?}", t.diagnostics);
    assert!(
        !has_code(&t, "R10"),
        "glued closing record must be split: {:?}",
        t.diagnostics
    );
}

#[test]
fn example_perflog_fsperflog() {
    let t = load(Path::new(&format!(
        "{EX}/synthetic/ce_perflog/fsperflog_CEPC_x86_6_0_2915.log"
    )));
    assert_eq!(t.source.format, "ce-perflog");
    let m0 = series(&t, "Test=CeWriteRecord - Write 100 records,time=%AVG%");
    let run1: Vec<f64> = m0[0].durations_s.iter().map(|s| s * 1000.0).collect();
    assert_eq!(run1.len(), 3);
    for (got, want) in run1.iter().zip([102.68, 91.31, 92.30]) {
        assert!(close(*got, want, 0.01), "{got} vs {want}");
    }
    let w4k = series(
        &t,
        "Bytes=4096,Bps AVG=%Bytes%/%AVG%,Bps MIN=%Bytes%/%MAX%,Bps MAX=%Bytes%/%MIN%,Test=Write",
    );
    let ms: Vec<f64> = w4k[0].durations_s.iter().map(|s| s * 1000.0).collect();
    assert!(
        close(ms[0], 4.534, 0.001) && close(ms[1], 4.516, 0.001),
        "{ms:?}"
    );
    let w64k = series(
        &t,
        "Bytes=65536,Bps AVG=%Bytes%/%AVG%,Bps MIN=%Bytes%/%MAX%,Bps MAX=%Bytes%/%MIN%,Test=Write",
    );
    assert!(close(w64k[0].durations_s[0] * 1000.0, 51.32, 0.01));
    assert!(
        t.counters
            .iter()
            .any(|c| c.name.starts_with("CPU %") && c.points[0] == (0.0, 57.843834))
    );
    assert!(t.clock.is_none());
}

#[test]
fn example_perflog_perftest() {
    let t = load(Path::new(&format!(
        "{EX}/synthetic/ce_perflog/perftest_DeviceEmulator_ARMV4I_6_0_1234.log"
    )));
    for code in ["P8", "P10", "P15", "P16", "P19"] {
        assert!(has_code(&t, code), "{code}: {:?}", t.diagnostics);
    }
    let s = series(&t, "Test=Read [4K] block , flags=0x3 ");
    assert_eq!(s.len(), 1);
    // RESOLUTION 1000 arrives late: 4096 ticks = 4.096 s, converted retroactively.
    assert!(
        close(s[0].durations_s[0], 4.096, 1e-9),
        "{:?}",
        s[0].durations_s
    );
    assert!(close(*s[0].durations_s.last().unwrap(), 0.005, 1e-9));
}

#[test]
fn example_perflog_doc_example1() {
    let t = load(Path::new(&format!(
        "{EX}/doc_excerpts/ce_perflog_doc_example1_myperfapp_CEPC_x86_6_0_1234.log"
    )));
    assert!(!t.durations.is_empty() || !t.counters.is_empty());
}

#[test]
fn example_cprofiler_run1() {
    let t = load(Path::new(&format!(
        "{EX}/synthetic/cprofiler/profiler_2006.06.14.10.31.07.csv"
    )));
    let foo = series(&t, "CFoo::Foo")[0];
    let s = Stats::of(foo.durations_s);
    assert_eq!(s.count, 3);
    assert_eq!(foo.incomplete, 1);
    assert!(
        close(s.mean * 1000.0, 1.0143, 0.0001),
        "{}",
        s.mean * 1000.0
    );
    assert!(close(s.min * 1000.0, 0.9998, 0.0001) && close(s.max * 1000.0, 1.0342, 0.0001));
    assert!(close(
        series(&t, "CDoc::Load")[0].durations_s[0] * 1000.0,
        1999.72,
        0.01
    ));
    assert!(close(
        series(&t, "CMainFrame::OnCreate")[0].durations_s[0] * 1000.0,
        268.61,
        0.01
    ));
    assert!(has_code(&t, "C1"));
}

#[test]
fn example_cprofiler_utf16_and_compare() {
    let a = load(Path::new(&format!(
        "{EX}/synthetic/cprofiler/profiler_2006.06.14.10.31.07.csv"
    )));
    let b = load(Path::new(&format!(
        "{EX}/synthetic/cprofiler/profiler_2006.06.15.09.00.00.csv"
    )));
    assert!(
        b.durations.iter().any(|d| !d.name.is_ascii()),
        "non-ASCII ids decoded"
    );
    let rows = compare_runs(&[&a, &b], 0);
    let foo = rows
        .iter()
        .find(|r| r.name == "CFoo::Foo")
        .expect("CFoo::Foo in both");
    assert_eq!(foo.change_vs_baseline[0], Some(0.0));
}

#[test]
fn example_cprofiler_temp_files() {
    for tid in ["2312", "3044"] {
        let t = load(Path::new(&format!(
            "{EX}/synthetic/cprofiler/tmp_run/{tid}.profiler"
        )));
        assert_eq!(t.source.option("partial_run"), Some("true"));
        assert!(
            t.durations
                .iter()
                .all(|d| d.group == format!("thread {tid}"))
        );
        assert!(has_code(&t, "C9"));
    }
}

#[test]
fn example_logger_out() {
    let t = load(Path::new(&format!(
        "{EX}/synthetic/alexta_logger/logger_out.csv"
    )));
    assert_eq!(t.source.format, "logger-csv");
    let th = t
        .threads
        .iter()
        .find(|th| th.raw_id == 28870)
        .expect("tid 28870");
    let lane = &th.lanes[0];
    let first = (0..lane.len())
        .find(|&i| t.str(t.methods[lane.method(i).index()].name) == "1->2")
        .unwrap();
    assert_eq!(lane.dur(first), 10_500_000);
    assert!(lane.cpu(first).unwrap().1.abs_diff(5_001_000) < 1_000);
    let second = (0..lane.len())
        .find(|&i| t.str(t.methods[lane.method(i).index()].name) == "2->4")
        .unwrap();
    assert!(lane.dur(second).abs_diff(89_500_000) < 1_000);
    assert!(lane.cpu(second).unwrap().1.abs_diff(79_000) < 1_000);
    assert!(
        has_code(&t, "L5") && has_code(&t, "L2"),
        "{:?}",
        t.diagnostics
    );
}

#[test]
fn example_logger_cpu_zeros() {
    let t = load(Path::new(&format!(
        "{EX}/synthetic/alexta_logger/logger_cpu_disabled_zeros.csv"
    )));
    assert_eq!(t.clock, Some(tracelens::trace::ClockMode::Wall));
    assert!(t.call_count() > 0);
}

#[test]
fn stats_match_slow_reference() {
    let v = [3.0, 1.0, 2.0, 10.0];
    let s = Stats::of(&v);
    assert_eq!((s.count, s.min, s.max, s.total), (4, 1.0, 10.0, 16.0));
    assert_eq!(s.median, 2.5);
    assert!(close(
        s.stddev,
        ((1.0f64 + 9.0 + 4.0 + 36.0) / 4.0).sqrt(),
        1e-12
    ));
}

// ---------------------------------------------------------------- RTL edge cases

fn r(name: &str) -> Trace {
    let t = fx(name);
    assert_eq!(t.source.format, "rtl-logfile", "{name}");
    t
}

#[test]
fn r01_missing_header_accepted_with_warning() {
    let t = r("r01_no_header.log");
    assert_eq!(calls_of(&t, "a"), vec![(10, 10)]);
    assert!(has_code(&t, "R1"));
    assert_eq!(t.source.option("pid_source"), Some("none"));
}

#[test]
fn r02_wide_time_parsed() {
    assert_eq!(calls_of(&r("r02_wide_time.log"), "a"), vec![(999_999, 6)]);
}

#[test]
fn r03_cross_thread_decrease_no_warning() {
    let t = r("r03_cross_thread_decrease.log");
    assert_eq!(calls_of(&t, "b"), vec![(95, 15)]);
    assert!(!has_code(&t, "R4"));
}

#[test]
fn r04_same_thread_wrap_unwrapped_and_decrease_clamped() {
    let t = r("r04_same_thread_decrease.log");
    assert_eq!(calls_of(&t, "a"), vec![(4_294_967_290, 10)]);
    assert_eq!(calls_of(&t, "b"), vec![(10, 0)]);
    assert_eq!(t.diagnostics.iter().filter(|d| d.code == "R4").count(), 2);
}

#[test]
fn r05_interleaved_records_split() {
    let t = r("r05_interleaved.log");
    assert!(has_code(&t, "R5"));
    assert_eq!(calls_of(&t, "x"), vec![(10, 3)]);
    assert!(
        t.instants
            .iter()
            .any(|i| t.instants.label(i).to_string() == "hello" && i.time == 12)
    );
    assert!(
        t.instants
            .iter()
            .any(|i| t.instants.label(i).to_string() == "world" && i.time == 11),
        "{:?}",
        t.instants
    );
}

#[test]
fn r06_unprefixed_line_is_continuation() {
    let t = r("r06_unprefixed.log");
    let d = t.diagnostics.iter().find(|d| d.code == "R6").expect("R6");
    assert_eq!(d.location, Location::Line(3));
    assert_eq!(d.raw.as_deref(), Some("( LogBridge a,b)"));
    assert!(
        t.instants
            .label(&t.instants[0])
            .to_string()
            .ends_with("( LogBridge a,b)")
    );
}

#[test]
fn r07_logbridge_suffix_stripped() {
    let t = r("r07_logbridge_suffix.log");
    assert_eq!(calls_of(&t, "bridge f"), vec![(10, 10)]);
    assert_eq!(calls_of(&t, "bridge g"), vec![(30, 10)]);
    assert!(!has_code(&t, "R8"));
}

#[test]
fn r08_orphan_end_is_instant() {
    let t = r("r08_orphan_end.log");
    assert!(has_code(&t, "R8"));
    assert!(
        t.instants
            .iter()
            .any(|i| t.instants.label(i).to_string() == "orphan end: nothing")
    );
    assert_eq!(t.call_count(), 1);
}

#[test]
fn r09_close_deeper_closes_intermediates() {
    let t = r("r09_close_deeper.log");
    assert!(has_code(&t, "R9"));
    assert_eq!(calls_of(&t, "inner"), vec![(20, 10)]);
    assert_eq!(calls_of(&t, "outer"), vec![(10, 20)]);
}

#[test]
fn r10_open_scopes_close_at_last_time() {
    let t = r("r10_open_at_eof.log");
    assert!(has_code(&t, "R10"));
    assert_eq!(t.source.option("clean_exit"), Some("false"));
    assert_eq!(calls_of(&t, "a"), vec![(10, 40)]);
}

#[test]
fn r11_closing_line_metadata_and_stale_tail_ignored() {
    let t = r("r11_closing_and_stale_tail.log");
    assert_eq!(t.source.option("clean_exit"), Some("true"));
    assert_eq!(t.source.option("closing_ms"), Some("30"));
    assert!(method_named(&t, "stale").is_none());
}

#[test]
fn r12_scope_with_colon_prefers_open_scope() {
    let t = r("r12_scope_with_colon.log");
    assert!(
        t.instants
            .iter()
            .any(|i| t.instants.label(i).to_string() == "msg : more"),
        "{:?}",
        t.instants
    );
}

#[test]
fn r13_nul_bytes_removed() {
    let t = r("r13_nul_bytes_removed.log");
    assert!(has_code(&t, "R13"));
    assert_eq!(calls_of(&t, "a"), vec![(10, 2)]);
    assert!(!has_code(&t, "R10"));
}

#[test]
fn r14_names_without_convention_accepted() {
    let t = r("r14_no_convention.log");
    let m = method_named(&t, "JustAName").expect("method");
    assert_eq!(t.str(t.methods[m.index()].class), "");
    let s = r("r07_logbridge_suffix.log");
    let _ = s;
    let full = load(Path::new(&format!(
        "{EX}/synthetic/rtl_logfile/soffice_4242.log"
    )));
    let m = method_named(&full, "::Desktop::Main").unwrap();
    assert_eq!(full.str(full.methods[m.index()].class), "desktop");
    assert_eq!(full.str(full.methods[m.index()].signature), "(cd100003)");
}

#[test]
fn r15_thread_id_reuse_stays_one_track() {
    let t = r("r15_thread_reuse.log");
    assert_eq!(t.threads.len(), 1);
    assert_eq!(t.call_count(), 2);
}

#[test]
fn r16_windows1252_decoded() {
    let t = r("r16_windows1252.log");
    assert_eq!(calls_of(&t, "café €").len(), 1);
}

#[test]
fn r17_crlf_stripped() {
    assert_eq!(calls_of(&r("r17_crlf.log"), "a"), vec![(10, 10)]);
}

#[test]
fn r18_only_header_is_valid_and_empty() {
    let t = r("r18_only_header.log");
    assert_eq!(t.call_count(), 0);
    assert_eq!(t.source.option("pid"), Some("7"));
    assert_eq!(t.source.option("epoch_s"), Some("1154432145.123456"));
    // The typed facts: the start at time 0 is the opening time minus the timer's reading.
    assert_eq!(t.source.pid, Some(7));
    let timer_ms: i64 = t.source.option("timer_ms").unwrap().parse().unwrap();
    assert_eq!(
        t.source.start.map(|s| (s.epoch_us, s.stated_by)),
        Some((
            1_154_432_145_123_456 - timer_ms * 1000,
            tracelens::trace::StartStatedBy::LogHeader
        ))
    );
}

#[test]
fn r19_banner_skipped_with_warning() {
    let t = r("r19_banner.log");
    let d = t.diagnostics.iter().find(|d| d.code == "R19").expect("R19");
    assert_eq!(d.location, Location::Line(1));
    assert_eq!(t.call_count(), 1);
}

#[test]
fn r20_doc_pattern_row_is_not_a_record() {
    let t = r("r20_doc_pattern.log");
    assert!(method_named(&t, "::ChartModel::BuildChart").is_none());
    assert_eq!(t.call_count(), 1);
}

#[test]
fn rtl_pid_from_file_name_fallback() {
    let t = r("oo_1788.log");
    assert_eq!(t.source.option("pid"), Some("1788"));
    assert_eq!(t.source.option("pid_source"), Some("file-name"));
}

// ---------------------------------------------------------------- PerfLog edge cases

fn p(name: &str) -> Trace {
    let t = fx(name);
    assert_eq!(t.source.format, "ce-perflog", "{name}");
    t
}

fn durs(t: &Trace, name: &str) -> Vec<f64> {
    series(t, name)
        .iter()
        .flat_map(|d| d.durations_s.iter().copied())
        .collect()
}

#[test]
fn p01_by_app_case_insensitive() {
    let t = p("p01_by_case.log");
    assert_eq!(durs(&t, "m1"), vec![0.010]);
    assert_eq!(durs(&t, "m2"), vec![0.020]);
}

#[test]
fn p02_both_processid_spellings() {
    let t = p("p02_proccessid.log");
    assert_eq!(t.source.option("s0.pid"), Some("0x03d3002e"));
    assert!(
        t.source
            .options
            .iter()
            .any(|(k, v)| k == "s0.pid" && v == "0x0000002f")
    );
}

#[test]
fn p03_whitespace_variations() {
    let t = p("p03_whitespace.log");
    assert_eq!(t.source.option("s0.build"), Some("77"));
    assert_eq!(durs(&t, "m"), vec![0.005]);
}

#[test]
fn p04_prefixed_lines() {
    let t = p("p04_prefixed.log");
    assert_eq!(durs(&t, "m"), vec![0.007]);
    assert!(
        t.source
            .options
            .iter()
            .any(|(k, v)| k.ends_with(".prefix") && v.contains("PID:400002"))
    );
}

#[test]
fn p05_noise_skipped_and_counted() {
    let t = p("p05_noise.log");
    assert_eq!(t.source.option("non_perf_lines"), Some("2"));
    assert_eq!(durs(&t, "m"), vec![0.007]);
}

#[test]
fn p06_took_lines_info() {
    assert!(has_code(&p("p06_took.log"), "P6"));
}

#[test]
fn p07_sessions_reset_markers_and_resolution() {
    let t = p("p07_two_sessions.log");
    let s = series(&t, "m");
    assert_eq!(s.len(), 1, "the second PerfLog session has no registration");
    assert_eq!(s[0].durations_s.to_vec(), vec![0.010]);
    assert!(has_code(&t, "P10"), "id 1 unregistered in session 2");
    assert_eq!(durs(&t, "unregistered id 1"), vec![0.005]);
}

#[test]
fn p08_events_before_header() {
    let t = p("p08_before_header.log");
    assert!(has_code(&t, "P8"));
    assert_eq!(durs(&t, "unregistered id 1 [ticks]"), vec![10.0]);
}

#[test]
fn p09_late_and_zero_resolution() {
    let t = p("p09_late_resolution.log");
    assert_eq!(durs(&t, "m"), vec![0.5]);
    assert_eq!(durs(&t, "z [ticks]"), vec![500.0]);
    assert!(has_code(&t, "P9"));
}

#[test]
fn p10_unregistered_id() {
    let t = p("p10_unregistered.log");
    assert!(has_code(&t, "P10"));
    assert_eq!(durs(&t, "unregistered id 42"), vec![0.010]);
}

#[test]
fn p11_reregistration_binds_latest() {
    let t = p("p11_reregistered.log");
    assert_eq!(durs(&t, "x"), vec![0.001, 0.002]);
    assert_eq!(durs(&t, "y"), vec![0.003]);
}

#[test]
fn p12_bracket_in_marker_name() {
    assert_eq!(
        durs(&p("p12_bracket_in_name.log"), "Read [4K] ok"),
        vec![0.003]
    );
}

#[test]
fn p13_missing_open_bracket_before_app() {
    assert_eq!(durs(&p("p13_missing_bracket.log"), "m"), vec![0.003]);
}

#[test]
fn p14_empty_app_name() {
    let t = p("p14_empty_app.log");
    assert_eq!(durs(&t, "m"), vec![0.003]);
    assert_eq!(series(&t, "m")[0].group, "session 0: ");
}

#[test]
fn p15_bad_and_suspicious_values() {
    let t = p("p15_bad_values.log");
    assert_eq!(durs(&t, "m"), vec![4_294_967.295, 0.003]);
    assert_eq!(t.diagnostics.iter().filter(|d| d.code == "P15").count(), 2);
    let d = t
        .diagnostics
        .iter()
        .find(|d| d.message.contains("non-numeric"))
        .unwrap();
    assert_eq!(d.location, Location::Line(6));
}

#[test]
fn p16_msvc_float_spellings() {
    let t = p("p16_msvc_floats.log");
    assert_eq!(t.diagnostics.iter().filter(|d| d.code == "P16").count(), 3);
    assert_eq!(t.counters[0].points, vec![(0.0, 42.5)]);
    assert!(
        tracelens::formats::legacy::perflog::parse_msvc_float("1.#QNAN0")
            .unwrap()
            .is_nan()
    );
}

#[test]
fn p17_calibration_lines_are_metadata() {
    let t = p("p17_cal_lines.log");
    assert!(t.durations.is_empty());
    assert_eq!(
        t.source
            .options
            .iter()
            .filter(|(k, _)| k == "s0.cal")
            .count(),
        3
    );
}

#[test]
fn p18_undocumented_records_kept_raw() {
    let t = p("p18_undocumented.log");
    assert_eq!(
        t.diagnostics
            .iter()
            .filter(|d| d.code == "P18" && d.raw.is_some())
            .count(),
        2
    );
}

#[test]
fn p19_truncated_last_line() {
    let t = p("p19_truncated.log");
    assert!(has_code(&t, "P19"));
    assert_eq!(durs(&t, "m"), vec![0.003]);
}

#[test]
fn p20_crlf_and_utf16() {
    assert_eq!(durs(&p("p20_crlf.log"), "m"), vec![0.009]);
    assert_eq!(durs(&p("p20_utf16le.log"), "m"), vec![0.25]);
}

#[test]
fn p21_interleaved_apps_keyed_by_app() {
    let t = p("p21_two_apps.log");
    let s = series(&t, "m");
    assert_eq!(s.len(), 2);
    assert_eq!(
        s.iter()
            .find(|d| d.group.ends_with(": a"))
            .unwrap()
            .durations_s
            .to_vec(),
        vec![0.001, 0.003]
    );
    assert_eq!(
        s.iter()
            .find(|d| d.group.ends_with(": b"))
            .unwrap()
            .durations_s
            .to_vec(),
        vec![0.002]
    );
}

// ---------------------------------------------------------------- CProfiler edge cases

fn c(name: &str) -> Trace {
    let t = fx(name);
    assert_eq!(t.source.format, "cprofiler-csv", "{name}");
    t
}

#[test]
fn c01_empty_delta_incomplete() {
    let t = c("c01_empty_delta.csv");
    assert_eq!(t.durations.series(0).incomplete, 2);
    assert_eq!(t.durations.series(0).durations_s.to_vec(), vec![0.010]);
    let d = t.diagnostics.iter().find(|d| d.code == "C1").unwrap();
    assert!(d.message.contains("line 3") && d.message.contains("line 4"));
}

#[test]
fn c01_many_incomplete_records_are_counted_and_the_first_100_named() {
    let mut text = String::from("Frequency,1000\nf,10\n");
    for i in 0..150 {
        text.push_str(&format!("g{},\n", i % 3));
    }
    let t =
        tracelens::load::load_bytes(Path::new("run.csv"), text.as_bytes(), &Progress::default())
            .unwrap();
    let d = t.diagnostics.iter().find(|d| d.code == "C1").unwrap();
    assert!(
        d.message.starts_with("150 records without delta"),
        "{}",
        d.message
    );
    assert!(d.message.contains("g0 (line 3)") && d.message.contains("(line 102)"));
    assert!(!d.message.contains("(line 103)") && d.message.ends_with("and 50 more"));
    // One series per id, the incomplete records counted on each.
    let incomplete: Vec<(&str, u64)> = t.durations.iter().map(|d| (d.name, d.incomplete)).collect();
    assert_eq!(incomplete, [("f", 0), ("g0", 50), ("g1", 50), ("g2", 50)]);
}

#[test]
fn c02_garbled_frequency_keeps_ticks() {
    let t = c("c02_no_frequency.csv");
    assert_eq!(durs(&t, "f [ticks]"), vec![10.0]);
    assert!(has_code(&t, "C3"));
}

#[test]
fn c03_zero_frequency_keeps_ticks() {
    let t = c("c03_zero_frequency.csv");
    assert_eq!(durs(&t, "f [ticks]"), vec![10.0]);
}

#[test]
fn c04_comma_in_id_split_at_last() {
    assert_eq!(
        durs(&c("c04_comma_in_id.csv"), "CMap<int,int>::Lookup"),
        vec![0.020]
    );
}

#[test]
fn c05_negative_and_wrapped_excluded() {
    let t = c("c05_negative.csv");
    assert_eq!(durs(&t, "f"), vec![0.004]);
    assert_eq!(t.diagnostics.iter().filter(|d| d.code == "C5").count(), 2);
}

#[test]
fn c06_whitespace_blank_lines_crlf() {
    assert_eq!(durs(&c("c06_whitespace_crlf.csv"), "f"), vec![0.008]);
}

#[test]
fn c07_utf16_bom_non_ascii() {
    assert_eq!(durs(&c("c07_utf16_bom.csv"), "Cäfé::Ünï"), vec![0.5]);
}

#[test]
fn c08_duplicate_frequency_new_segment() {
    let t = c("c08_two_frequencies.csv");
    assert!(has_code(&t, "C8"));
    let s = series(&t, "f");
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].durations_s.to_vec(), vec![0.010]);
    assert_eq!(s[1].durations_s.to_vec(), vec![0.005]);
    assert!(s[1].group.ends_with("#1"));
}

#[test]
fn c09_temp_file_partial_run() {
    let t = c("c09_tmp/4711.profiler");
    assert_eq!(t.source.option("thread"), Some("4711"));
    assert_eq!(series(&t, "g")[0].incomplete, 1);
    assert!(has_code(&t, "C9"));
}

#[test]
fn c10_recursion_magnitudes_kept() {
    let s = Stats::of(&durs(&c("c10_recursion.csv"), "rec"));
    assert_eq!(s.count, 3);
    assert!(close(s.total, 1001.001, 1e-9));
}

// ---------------------------------------------------------------- Logger edge cases

fn l(name: &str) -> Trace {
    let t = fx(name);
    assert_eq!(t.source.format, "logger-csv", "{name}");
    t
}

#[test]
fn l01_out_of_order_sorted() {
    let t = l("l01_out_of_order.csv");
    assert_eq!(calls_of(&t, "1->2"), vec![(0, 2000)]);
    assert_eq!(calls_of(&t, "2->3"), vec![(2000, 1000)]);
}

#[test]
fn l02_truncated_tail_skipped() {
    let t = l("l02_truncated.csv");
    let d = t.diagnostics.iter().find(|d| d.code == "L2").unwrap();
    assert_eq!(d.location, Location::Line(3));
    assert_eq!(t.call_count(), 1);
}

#[test]
fn l03_unpadded_ns_integer_math() {
    assert_eq!(calls_of(&l("l03_unpadded_ns.csv"), "1->2"), vec![(0, 45)]);
}

#[test]
fn l04_bad_ns_skipped() {
    let t = l("l04_bad_ns.csv");
    assert_eq!(t.diagnostics.iter().filter(|d| d.code == "L4").count(), 2);
    assert_eq!(calls_of(&t, "2->4"), vec![(0, 4)]);
}

#[test]
fn l05_cpu_greater_than_wall_flagged() {
    let t = l("l05_cpu_gt_wall.csv");
    assert!(has_code(&t, "L5"));
    assert_eq!(calls_of(&t, "1->2"), vec![(0, 1000)]);
}

#[test]
fn l06_wall_back_in_file_order_sorted_by_wall() {
    let t = l("l06_wall_back.csv");
    assert_eq!(calls_of(&t, "2->1"), vec![(0, 4000)]);
    assert!(has_code(&t, "L6"), "the step back is reported");
    assert!(!has_code(&l("l07_two_pids.csv"), "L6"));
}

#[test]
fn l07_several_pids_grouped() {
    let t = l("l07_two_pids.csv");
    assert_eq!(t.threads.len(), 2);
    assert!(has_code(&t, "L7"));
    assert_eq!(calls_of(&t, "1->2"), vec![(0, 10), (5, 15)]);
}

#[test]
fn l08_single_hit_no_block() {
    let t = l("l08_single_hit.csv");
    assert!(has_code(&t, "L8"));
    assert_eq!(t.call_count(), 1);
    assert_eq!(t.instants.len(), 3);
}

#[test]
fn l09_majority_column_count() {
    let t = l("l09_mixed_columns.csv");
    assert_eq!(t.source.option("columns"), Some("5"));
    assert!(has_code(&t, "L9"));
    assert_eq!(t.call_count(), 2);
}

#[test]
fn l10_header_line_skipped() {
    let t = l("l10_header.csv");
    assert!(has_code(&t, "L10"));
    assert_eq!(t.call_count(), 1);
}

#[test]
fn l11_semicolon_separator() {
    assert_eq!(calls_of(&l("l11_semicolon.csv"), "1->2"), vec![(0, 10)]);
}

#[test]
fn l12_probe_reuse_is_one_block_key() {
    let t = l("l12_probe_reuse.csv");
    assert_eq!(calls_of(&t, "1->1").len(), 2);
}

// ---------------------------------------------------------------- robustness

#[test]
fn garbage_is_rejected_with_one_clear_error() {
    let bytes = b"hello world\nthis is not a trace\n";
    assert!(sniff(bytes, None).is_none());
    let msg = tracelens::formats::legacy::no_format_error().message;
    for name in ["RTL_LOGFILE", "PerfLog", "CProfiler", "Logger"] {
        assert!(msg.contains(name));
    }
}

#[test]
fn truncations_and_garbage_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/legacy");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let progress = Progress::default();
    let mut seed = 0x9e37_79b9_u64;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        for kind in [
            LegacyKind::Rtl,
            LegacyKind::PerfLog,
            LegacyKind::CProfiler,
            LegacyKind::Logger,
        ] {
            for cut in (0..=bytes.len()).step_by(7) {
                let _ = read(kind, &bytes[..cut], &ReadContext::new(None, &progress));
            }
            let mut garbled = bytes.clone();
            for _ in 0..8 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if !garbled.is_empty() {
                    let i = (seed as usize) % garbled.len();
                    garbled[i] = (seed >> 32) as u8;
                }
            }
            if let Ok(t) = read(kind, &garbled, &ReadContext::new(None, &progress)) {
                for d in &t.diagnostics {
                    assert!(
                        matches!(d.location, Location::Line(n) if n >= 1)
                            || d.location == Location::File
                    );
                }
            }
        }
    }
}

#[test]
fn series_and_method_stats() {
    let t = fx("p11_reregistered.log");
    let rows = series_stats(&t);
    let x = rows.iter().find(|r| r.name == "x").unwrap();
    assert_eq!(x.stats.count, 2);
    assert!(close(x.stats.total, 0.003, 1e-12));
    let rt = r("r09_close_deeper.log");
    let outer = method_named(&rt, "outer").unwrap();
    // Every call of `outer` on every lane, in seconds.
    let tps = rt.ticks_per_sec as f64;
    let durs: Vec<f64> = rt
        .threads
        .iter()
        .flat_map(|th| &th.lanes)
        .flat_map(|lane| {
            (0..lane.len())
                .filter(move |&i| lane.method(i) == outer)
                .map(move |i| lane.dur(i) as f64 / tps)
        })
        .collect();
    assert_eq!(Stats::of(&durs).total, 0.020);
}

/// PerfToCsv-style attributes: the marker name's `key=value` pairs become columns of the
/// summary, and its formulas are evaluated on the marker's statistics (seconds).
#[test]
fn perflog_marker_attributes_and_formulas_in_the_summary() {
    let path = format!("{EX}/synthetic/ce_perflog/fsperflog_CEPC_x86_6_0_2915.log");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args(["summary", "--json", &path])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = if v.is_array() { &v[0] } else { &v };
    let durations = file["durations"].as_array().unwrap();
    let w4k = durations
        .iter()
        .find(|d| {
            d["name"].as_str().unwrap().starts_with("Bytes=4096,")
                && d["group"].as_str().unwrap().starts_with("session 0")
        })
        .unwrap();
    let attr = |k: &str| {
        w4k["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["key"] == k)
            .unwrap_or_else(|| panic!("no attribute {k}: {w4k}"))
            .clone()
    };
    assert_eq!(attr("Bytes")["number"], 4096.0);
    assert_eq!(attr("Test")["value"], "Write");
    assert!(attr("Test")["number"].is_null());
    // 4.534 and 4.516 ms: 4096 bytes / mean 4.525 ms, / max, / min.
    let mean_s = w4k["mean_ms"].as_f64().unwrap() / 1e3;
    assert!(close(mean_s * 1e3, 4.525, 0.001), "{mean_s}");
    let bps = attr("Bps AVG")["number"].as_f64().unwrap();
    assert!(close(bps, 4096.0 / mean_s, 1e-6), "{bps}");
    assert_eq!(attr("Bps AVG")["derived"], true);
    let min_bps = attr("Bps MIN")["number"].as_f64().unwrap();
    assert!(close(
        min_bps,
        4096.0 / (w4k["max_ms"].as_f64().unwrap() / 1e3),
        1e-6
    ));
    // `time=%AVG%` is the mean in seconds.
    let m0 = durations
        .iter()
        .find(|d| {
            d["name"]
                .as_str()
                .unwrap()
                .starts_with("Test=CeWriteRecord")
        })
        .unwrap();
    let time = m0["attributes"][1]["number"].as_f64().unwrap();
    assert!(close(time * 1e3, m0["mean_ms"].as_f64().unwrap(), 1e-9));
}

/// Aligning RTL logs: offsets from the headers; an implausible header start is refused with an
/// error naming the log, not a wrapped or overflowing time.
#[test]
fn rtl_alignment_shifts_by_header_start_and_refuses_absurd_offsets() {
    use tracelens::trace::merge::align_by_start as align_rtl;
    let a = load(Path::new(&format!(
        "{EX}/synthetic/rtl_logfile/soffice_4242.log"
    )));
    let b = fx("unopkg_5151.log");
    let merged = align_rtl(&[("a", &a), ("b", &b)]).expect("aligned");
    let main_b = merged
        .threads
        .iter()
        .find(|t| t.name == "b: thread 1")
        .unwrap();
    assert_eq!(main_b.lanes[0].start(0), 1500);
    let dir = tempfile::tempdir().unwrap();
    let far = dir.path().join("far.log");
    std::fs::write(
        &far,
        "opening log file 1e30 seconds past January 1st 1970\n\
         corresponding to 0 ms after timer start\nProcess id is 7\n\
         000000 1 { x (y) ::f\n000005 1 } x (y) ::f\n",
    )
    .unwrap();
    let c = load(&far);
    assert_eq!(c.source.start, None, "1e30 s cannot be a start time");
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.code == "R1" && d.message.contains("not a plausible time"))
    );
    let err = align_rtl(&[("a", &a), ("far", &c)]).unwrap_err();
    assert!(err.to_string().contains("far"), "{err}");
}

/// A glued line whose first record ends in `: ` (R5) but is a message that opens a logical
/// scope, not one that makes an instant: the split must not take the last instant for its
/// label (the fuzzer found an index underflow here; fuzz/regressions/rtl/).
#[test]
fn r05_glued_message_opening_a_logical_scope() {
    let text =
        "Process id is 7\n000010 1 | : { scope : 000012 2 | : hello\nworld\n000013 2 | done\n";
    let progress = Progress::default();
    let ctx = ReadContext::new(None, &progress);
    let t = read(LegacyKind::Rtl, text.as_bytes(), &ctx).expect("read");
    assert!(has_code(&t, "R5"));
    assert_eq!(t.methods.len(), 1);
    assert!(
        t.str(t.methods[0].name).starts_with("scope"),
        "{:?}",
        t.methods[0]
    );
    let labels: Vec<String> = t
        .instants
        .iter()
        .map(|i| t.instants.label(i).to_string())
        .collect();
    assert_eq!(labels, ["hello\nworld", "done"]);
}

/// A PerfLog file's series of one session and app share one group string (a file may register
/// a million markers), also when another app's series came between, and another app's series
/// have their own.
#[test]
fn perflog_series_of_one_app_share_their_group() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("markers.log");
    let mut text = String::from(
        "## PERF ## OSVERSION=[6.0] BUILD=[2915]\n## PERF ## RESOLUTION [1000] TICKS PER SECOND\n",
    );
    for (i, app) in ["a", "a", "b", "a"].iter().enumerate() {
        text += &format!("## PERF ## REGISTERED MARKER [m{i}] AS [{i}] BY APP [{app}]\n");
    }
    std::fs::write(&path, text).unwrap();
    let t = load(&path);
    let group = |name: &str| series(&t, name)[0].group;
    let (a0, a1, b, a3) = (group("m0"), group("m1"), group("m2"), group("m3"));
    assert!(std::ptr::eq(a0, a1) && std::ptr::eq(a0, a3));
    assert!(a0.ends_with(": a") && b.ends_with(": b"), "{a0} {b}");
}
