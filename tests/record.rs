//! `tracelens record` against a fake `adb` (a shell script written here) that logs its command
//! lines and serves a trace for `pull`: the command sequence of every mode, the error paths,
//! and that nothing is left on the device.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::util::tracelens;

const FAKE_ADB: &str = r#"#!/bin/sh
# A fake adb: logs its arguments, answers from the files beside it.
dir="$(dirname "$0")"
echo "$*" >> "$dir/log"
[ "$1" = "-s" ] && shift 2
case "$1" in
  devices) cat "$dir/devices"; exit 0 ;;
  pull)
    if [ -e "$dir/pull-fails" ]; then
      head -c 10 "$dir/served" > "$3"
      echo "adb: error: failed to copy '$2' to '$3': connection reset" >&2
      exit 1
    fi
    cp "$dir/served" "$3"; exit 0 ;;
  shell) shift; cmd="$*" ;;
esac
case "$cmd" in
  "pm path "*) [ -e "$dir/not-installed" ] || echo "package:/data/app/base.apk" ;;
  "pidof "*) [ -e "$dir/not-running" ] || echo 4242 ;;
  "am profile start"*|"am start-activity"*|"simpleperf record"*)
    if [ -e "$dir/not-profileable" ]; then
      echo "java.lang.SecurityException: Process not debuggable, and not profileable by shell"
      exit 1
    fi
    case "$cmd" in "am start-activity"*) printf 'Status: ok\nLaunchState: COLD\nComplete\n' ;; esac ;;
  "cmd package resolve-activity"*)
    printf 'priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n'
    printf 'com.example.app/.MainActivity\n' ;;
  "stat -c %s "*) wc -c < "$dir/served" ;;
esac
exit 0
"#;

const ONE_DEVICE: &str = "List of devices attached\n\
    emulator-5554          device product:sdk model:Pixel_7 device:emu64 transport_id:1\n\n";

/// A directory with the fake adb, its device list and the trace it serves.
struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    fn new(devices: &str) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let adb = dir.path().join("adb");
        std::fs::write(&adb, FAKE_ADB).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&adb, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("devices"), devices).unwrap();
        let served = dir.path().join("served");
        let out = tracelens(&["gen", "--records", "200", "-o", served.to_str().unwrap()]);
        assert!(out.status.success());
        Fake { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn flag(&self, name: &str) {
        std::fs::write(self.path(name), "").unwrap();
    }

    /// `tracelens record` with this adb first on PATH, stdin closed (Enter at once).
    fn record(&self, args: &[&str]) -> Output {
        let path = format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new(env!("CARGO_BIN_EXE_tracelens"))
            .arg("record")
            .args(args)
            .env("PATH", path)
            .env_remove("ADB")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn output(&self) -> PathBuf {
        self.path("out.trace")
    }

    /// The logged command lines, the device file's timestamp and the output path replaced.
    fn transcript(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.path("log")).unwrap_or_default();
        let stamp = regex::Regex::new(r"tracelens-com\.example\.app-\d+").unwrap();
        log.lines()
            .map(|l| {
                let l = l.replace(self.output().to_str().unwrap(), "OUT");
                stamp.replace_all(&l, "DEV").into_owned()
            })
            .collect()
    }
}

/// `tracelens record` for the fake's package, writing to its output, with `args` added.
fn record(fake: &Fake, args: &[&str]) -> Output {
    let out_path = fake.output();
    let mut full = vec![
        "--package",
        "com.example.app",
        "--no-open",
        "-o",
        out_path.to_str().unwrap(),
    ];
    full.extend_from_slice(args);
    fake.record(&full)
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
    let adb = fake.path("adb");
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
