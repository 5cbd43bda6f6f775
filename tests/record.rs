//! `tracelens record` against the fake `adb` of [`super::fake_adb`]: the command sequence of
//! every mode, the error paths, Ctrl+C, and that nothing is left on the device.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::fake_adb::{Fake, ONE_DEVICE};
use crate::util::tracelens;

/// The arguments of `tracelens record` for the fake's package, writing to its output, with
/// `args` added.
fn record_args(fake: &Fake, args: &[&str]) -> Vec<String> {
    let out_path = fake.output();
    let base = ["--package", "com.example.app", "--no-open", "-o"];
    (base.iter().copied())
        .chain([out_path.to_str().unwrap()])
        .chain(args.iter().copied())
        .map(str::to_owned)
        .collect()
}

/// `tracelens record` for the fake's package, writing to its output, with `args` added.
fn record(fake: &Fake, args: &[&str]) -> Output {
    let full = record_args(fake, args);
    fake.record(&full.iter().map(String::as_str).collect::<Vec<_>>())
}

fn run_ok(fake: &Fake, args: &[&str]) -> String {
    let out = record(fake, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn run_err(fake: &Fake, args: &[&str]) -> String {
    let out = record(fake, args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).unwrap()
}

const S: &str = "-s emulator-5554";

fn lines(l: &[&str]) -> Vec<String> {
    l.iter().map(|s| s.replace("$S", S)).collect()
}

#[test]
fn method_mode_transcript_and_a_file_that_opens() {
    let fake = Fake::new(ONE_DEVICE);
    let stdout = run_ok(&fake, &["--clock", "dual", "--streaming"]);
    assert_eq!(stdout.trim(), fake.output().to_str().unwrap());
    assert_eq!(
        fake.transcript(),
        lines(&[
            "devices -l",
            "$S shell pm path com.example.app",
            "$S shell pidof com.example.app",
            "$S shell am profile start --clock-type dual --streaming com.example.app /data/local/tmp/DEV.trace",
            "$S shell am profile stop com.example.app",
            "$S shell stat -c %s /data/local/tmp/DEV.trace",
            "$S shell stat -c %s /data/local/tmp/DEV.trace",
            "$S pull /data/local/tmp/DEV.trace OUT",
            "$S shell rm -f /data/local/tmp/DEV.trace /data/local/tmp/DEV.trace.pb",
        ])
    );
    let info = tracelens(&["info", fake.output().to_str().unwrap()]);
    assert!(
        info.status.success(),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
}

#[test]
fn sampling_mode_transcript() {
    let fake = Fake::new(ONE_DEVICE);
    run_ok(
        &fake,
        &[
            "--mode",
            "sampling",
            "--interval-us",
            "500",
            "--duration",
            "0.05",
        ],
    );
    let t = fake.transcript();
    assert_eq!(
        t[3],
        format!(
            "{S} shell am profile start --sampling 500 com.example.app /data/local/tmp/DEV.trace"
        )
    );
    assert_eq!(t[4], format!("{S} shell am profile stop com.example.app"));
    assert!(
        t.last()
            .unwrap()
            .contains("rm -f /data/local/tmp/DEV.trace")
    );
}

#[test]
fn startup_mode_transcript() {
    let fake = Fake::new(ONE_DEVICE);
    run_ok(&fake, &["--mode", "startup", "--streaming"]);
    assert_eq!(
        fake.transcript(),
        lines(&[
            "devices -l",
            "$S shell pm path com.example.app",
            "$S shell cmd package resolve-activity --brief com.example.app",
            "$S shell am start-activity -W -S --start-profiler /data/local/tmp/DEV.trace --streaming com.example.app/.MainActivity",
            "$S shell am profile stop com.example.app",
            "$S shell stat -c %s /data/local/tmp/DEV.trace",
            "$S shell stat -c %s /data/local/tmp/DEV.trace",
            "$S pull /data/local/tmp/DEV.trace OUT",
            "$S shell rm -f /data/local/tmp/DEV.trace /data/local/tmp/DEV.trace.pb",
        ])
    );
}

#[test]
fn simpleperf_mode_transcript() {
    let fake = Fake::new(ONE_DEVICE);
    run_ok(&fake, &["--mode", "simpleperf", "--duration", "2"]);
    assert_eq!(
        fake.transcript(),
        lines(&[
            "devices -l",
            "$S shell pm path com.example.app",
            "$S shell simpleperf record --app com.example.app -g --duration 2 -o /data/local/tmp/DEV.perf.data",
            "$S shell simpleperf report-sample --protobuf --show-callchain -i /data/local/tmp/DEV.perf.data -o /data/local/tmp/DEV.perf.data.pb",
            "$S shell stat -c %s /data/local/tmp/DEV.perf.data.pb",
            "$S shell stat -c %s /data/local/tmp/DEV.perf.data.pb",
            "$S pull /data/local/tmp/DEV.perf.data.pb OUT",
            "$S shell rm -f /data/local/tmp/DEV.perf.data /data/local/tmp/DEV.perf.data.pb",
        ])
    );
}

#[test]
fn no_device() {
    let fake = Fake::new("List of devices attached\n\n");
    let err = run_err(&fake, &[]);
    assert!(err.contains("no device found"), "{err}");
    assert_eq!(fake.transcript(), ["devices -l"]);
}

#[test]
fn two_devices_need_a_serial() {
    let two = "List of devices attached\n\
        emulator-5554 device model:Pixel_7 transport_id:1\n\
        R58N123 device model:SM_G991B transport_id:2\n";
    let fake = Fake::new(two);
    let err = run_err(&fake, &[]);
    assert!(
        err.contains("several devices") && err.contains("--serial"),
        "{err}"
    );
    assert!(err.contains("R58N123"), "{err}");
    run_ok(&fake, &["--serial", "R58N123", "--duration", "0.05"]);
    assert!(fake.transcript()[2].starts_with("-s R58N123 shell pm path"));
}

#[test]
fn not_profileable_says_how_and_cleans_up() {
    let fake = Fake::new(ONE_DEVICE);
    fake.flag("not-profileable");
    let err = run_err(&fake, &[]);
    assert!(
        err.contains("Process not debuggable, and not profileable by shell"),
        "{err}"
    );
    assert!(
        err.contains("<profileable android:shell=\"true\"/>"),
        "{err}"
    );
    let t = fake.transcript();
    assert!(!t.iter().any(|l| l.contains(" pull ")));
    assert!(
        t.last()
            .unwrap()
            .contains("shell rm -f /data/local/tmp/DEV.trace"),
        "{t:?}"
    );
    assert!(!fake.output().exists());
}

#[test]
fn package_errors() {
    let fake = Fake::new(ONE_DEVICE);
    fake.flag("not-running");
    assert!(run_err(&fake, &[]).contains("is not running"));
    fake.flag("not-installed");
    assert!(run_err(&fake, &[]).contains("is not installed"));
}

#[test]
fn interrupted_pull_leaves_nothing() {
    let fake = Fake::new(ONE_DEVICE);
    fake.flag("pull-fails");
    let err = run_err(&fake, &["--duration", "0.05"]);
    assert!(
        err.contains("interrupted") && err.contains("connection reset"),
        "{err}"
    );
    assert!(!fake.output().exists(), "a partial local file was left");
    assert!(fake.transcript().last().unwrap().contains("shell rm -f"));
}

#[test]
fn adb_from_the_option_and_a_missing_adb() {
    let fake = Fake::new(ONE_DEVICE);
    let adb = fake.adb();
    let out = Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args([
            "record",
            "--package",
            "com.example.app",
            "--no-open",
            "--duration",
            "0.05",
        ])
        .arg("-o")
        .arg(fake.output())
        .arg("--adb")
        .arg(&adb)
        .env("ADB", "/nonexistent/adb")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let missing = Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args(["record", "--package", "com.example.app", "--no-open"])
        .env("ADB", Path::new("/nonexistent/adb"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("cannot run adb") && err.contains("--adb"),
        "{err}"
    );
}

/// Runs `tracelens record ARGS` for the fake's package (stdin kept open: no Enter), sends it
/// SIGINT once the profiler has started, and collects its output.
fn interrupted_once_started(fake: &Fake, args: &[&str]) -> Output {
    let full = record_args(fake, args);
    let mut child = fake
        .command(&full.iter().map(String::as_str).collect::<Vec<_>>())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !fake
        .transcript()
        .iter()
        .any(|l| l.contains("am profile start"))
    {
        assert!(t0.elapsed().as_secs() < 30, "the profiler never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    // `wait_with_output` would close stdin first, which is Enter for an open-ended recording:
    // holding it open until the process exits keeps the signal the only way the recording ends.
    let stdin = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    out
}

#[test]
fn ctrl_c_during_a_timed_recording_stops_it_and_keeps_nothing() {
    let fake = Fake::new(ONE_DEVICE);
    let out = interrupted_once_started(&fake, &["--duration", "60"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cancelled"), "{err}");
    let t = fake.transcript();
    assert_eq!(
        t[t.len() - 2..],
        lines(&[
            "$S shell am profile stop com.example.app",
            "$S shell rm -f /data/local/tmp/DEV.trace /data/local/tmp/DEV.trace.pb",
        ])
    );
    assert!(!t.iter().any(|l| l.contains(" pull ")), "{t:?}");
    assert!(!fake.output().exists());
}

#[test]
fn ctrl_c_ends_an_open_ended_recording_as_enter_does() {
    let fake = Fake::new(ONE_DEVICE);
    let out = interrupted_once_started(&fake, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("press Enter or Ctrl+C to stop"), "{err}");
    let t = fake.transcript();
    assert_eq!(
        t[t.len() - 2..],
        lines(&[
            "$S pull /data/local/tmp/DEV.trace OUT",
            "$S shell rm -f /data/local/tmp/DEV.trace /data/local/tmp/DEV.trace.pb",
        ])
    );
    assert!(t.contains(&format!("{S} shell am profile stop com.example.app")));
    assert!(fake.output().exists());
}
