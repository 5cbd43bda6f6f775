//! A fake `adb` (a shell script written into a temporary directory) that logs its command
//! lines, answers the shell commands a recording uses, and serves a generated trace for `pull`:
//! shared by the `tracelens record` tests and the record dialog's kittest.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::util::tracelens;

/// The script: `log` gets each command line; `devices` is what `adb devices -l` prints, `served`
/// what `pull` copies; flag files (`not-installed`, `not-running`, `not-profileable`,
/// `pull-fails`) make those steps fail as a device does.
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
  "pm list packages -3") printf 'package:com.example.other\npackage:com.example.app\n' ;;
  "cmd package resolve-activity"*)
    printf 'priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n'
    printf 'com.example.app/.MainActivity\n' ;;
  "stat -c %s "*) wc -c < "$dir/served" ;;
esac
exit 0
"#;

/// `adb devices -l` with one emulator.
pub const ONE_DEVICE: &str = "List of devices attached\n\
    emulator-5554          device product:sdk model:Pixel_7 device:emu64 transport_id:1\n\n";

/// A directory with the fake adb, its device list and the trace it serves.
pub struct Fake {
    pub dir: tempfile::TempDir,
}

impl Fake {
    pub fn new(devices: &str) -> Fake {
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

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn flag(&self, name: &str) {
        std::fs::write(self.path(name), "").unwrap();
    }

    /// `tracelens record ARGS` with this adb first on PATH, not started yet.
    pub fn command(&self, args: &[&str]) -> Command {
        let path = format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new(env!("CARGO_BIN_EXE_tracelens"));
        command
            .arg("record")
            .args(args)
            .env("PATH", path)
            .env_remove("ADB");
        command
    }

    /// `tracelens record` with this adb first on PATH, stdin closed (Enter at once).
    pub fn record(&self, args: &[&str]) -> Output {
        self.command(args).stdin(Stdio::null()).output().unwrap()
    }

    /// The fake adb program.
    pub fn adb(&self) -> PathBuf {
        self.path("adb")
    }

    pub fn output(&self) -> PathBuf {
        self.path("out.trace")
    }

    /// The logged command lines, the device file's timestamp and the output path replaced.
    pub fn transcript(&self) -> Vec<String> {
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
