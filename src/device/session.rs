//! One recording on a device: check the package, start the profiler (`am profile start`,
//! `am start-activity --start-profiler` or `simpleperf record`), wait, stop it, wait until the
//! device file stops growing, `adb pull` it, and remove everything written on the device,
//! also when a step fails or the recording is aborted ([`Control`]).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::adb::Adb;
use super::error::RecordError;

/// How another thread ends a recording early. [`Control::stop`] ends the recording phase and
/// keeps the trace (the Stop button, Enter); [`Control::abort`] ends the recording at its next
/// step and keeps nothing. Either way the profiler is stopped and the device file removed.
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    abort: AtomicBool,
    /// Set while an open-ended recording starts and waits for `stop` ([`Control::interrupt`]).
    open_ended: AtomicBool,
}

impl Control {
    /// Ends the recording phase; the trace is pulled.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Ends the recording as soon as it can: the profiler is stopped, nothing is pulled.
    pub fn abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }

    /// Ctrl+C: ends an open-ended recording as [`Control::stop`] does, since that is how such a
    /// recording is ended; anywhere else (a timed recording, waiting, pulling) aborts.
    pub fn interrupt(&self) {
        if self.open_ended.load(Ordering::Relaxed) && !self.stopping() {
            self.stop();
        } else {
            self.abort();
        }
    }

    /// Whether the recording phase should end.
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.aborted()
    }

    fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    /// `Err(Aborted)` once [`Control::abort`] was called.
    fn check(&self) -> Result<(), RecordError> {
        if self.aborted() {
            Err(RecordError::Aborted)
        } else {
            Ok(())
        }
    }

    /// Marks the recording about to start as open-ended (or not), for [`Control::interrupt`].
    fn expect_stop(&self, open_ended: bool) {
        self.open_ended.store(open_ended, Ordering::Relaxed);
    }

    /// Sleeps for `duration` (until stopped when None) or until the recording phase should end.
    fn wait(&self, duration: Option<Duration>) {
        let deadline = duration.map(|d| Instant::now() + d);
        self.expect_stop(deadline.is_none());
        while !self.stopping() && deadline.is_none_or(|d| Instant::now() < d) {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.open_ended.store(false, Ordering::Relaxed);
    }
}

/// What to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every method entry and exit (`am profile start`).
    Method,
    /// Stacks sampled every `interval_us` (`am profile start --sampling`).
    Sampling,
    /// The app started cold with the profiler on (`am start-activity -W -S --start-profiler`),
    /// method tracing, or sampling when an interval is given.
    Startup,
    /// Native and Java stacks sampled by `simpleperf record --app`.
    Simpleperf,
}

/// The clock of method traces (`am … --clock-type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    Wall,
    ThreadCpu,
    Dual,
}

impl Clock {
    fn word(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::ThreadCpu => "thread-cpu",
            Clock::Dual => "dual",
        }
    }
}

/// Where a recording is, for progress displays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Starting,
    /// Profiling; stops at the deadline (if any) or when asked.
    Recording {
        until: Option<Duration>,
    },
    Stopping,
    /// Waiting for the app to finish writing (the file's size so far).
    Writing {
        bytes: u64,
    },
    Pulling,
}

/// A recording to make.
#[derive(Clone, Debug)]
pub struct Recording {
    pub package: String,
    pub mode: Mode,
    /// How long to record; None: until `stop` (method and sampling), after the first frame
    /// (startup), [`DEFAULT_SIMPLEPERF`] (simpleperf).
    pub duration: Option<Duration>,
    /// The sampling interval (sampling mode; startup when given).
    pub interval_us: Option<u32>,
    pub clock: Option<Clock>,
    pub streaming: bool,
    /// Where the trace is written on this computer.
    pub output: PathBuf,
    /// How often the device file's size is read while the app writes it.
    pub poll: Duration,
    /// How long the app may take to write the file after the profiler stopped.
    pub write_timeout: Duration,
}

/// simpleperf needs a duration: this one when none is given.
pub const DEFAULT_SIMPLEPERF: Duration = Duration::from_secs(10);

/// The sampling interval of `--mode sampling` when none is given (Android Studio's).
pub const DEFAULT_INTERVAL_US: u32 = 1000;

impl Recording {
    /// A recording with the defaults.
    pub fn new(package: &str, mode: Mode, output: PathBuf) -> Recording {
        Recording {
            package: package.to_string(),
            mode,
            duration: None,
            interval_us: None,
            clock: None,
            streaming: false,
            output,
            poll: Duration::from_millis(500),
            write_timeout: Duration::from_secs(60),
        }
    }

    /// Records on the device `adb` is bound to, reporting each step; `control` ends it early.
    /// Returns the local file.
    pub fn run(
        &self,
        adb: &Adb,
        control: &Control,
        on_step: &mut dyn FnMut(Step),
    ) -> Result<PathBuf, RecordError> {
        let pkg = &self.package;
        let valid = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_';
        if pkg.is_empty() || !pkg.chars().all(valid) {
            return Err(RecordError::BadPackage(pkg.clone()));
        }
        let (ok, out) = adb.shell(&format!("pm path {pkg}"))?;
        if !ok || !out.contains("package:") {
            return Err(RecordError::NotInstalled(pkg.clone()));
        }
        let device_file = self.device_file();
        let report = format!("{device_file}.pb");
        let result = self.record_and_pull(adb, &device_file, &report, control, on_step);
        // Nothing stays on the device, whatever happened.
        let _ = adb.shell(&format!("rm -f {device_file} {report}"));
        result
    }

    /// The file the profiler writes on the device.
    fn device_file(&self) -> String {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let ext = if self.mode == Mode::Simpleperf {
            "perf.data"
        } else {
            "trace"
        };
        format!("/data/local/tmp/tracelens-{}-{secs}.{ext}", self.package)
    }

    fn record_and_pull(
        &self,
        adb: &Adb,
        device_file: &str,
        report: &str,
        control: &Control,
        on_step: &mut dyn FnMut(Step),
    ) -> Result<PathBuf, RecordError> {
        let pkg = &self.package;
        on_step(Step::Starting);
        let pulled = match self.mode {
            Mode::Method | Mode::Sampling => {
                let (_, pid) = adb.shell(&format!("pidof {pkg}"))?;
                if pid.trim().is_empty() {
                    return Err(RecordError::NotRunning(pkg.clone()));
                }
                let mut cmd = "am profile start".to_string();
                if self.mode == Mode::Sampling {
                    let n = self.interval_us.unwrap_or(DEFAULT_INTERVAL_US);
                    cmd.push_str(&format!(" --sampling {n}"));
                }
                self.push_clock_and_streaming(&mut cmd);
                cmd.push_str(&format!(" {pkg} {device_file}"));
                // Ctrl+C from here on ends an open-ended recording as Enter does: the start
                // may be under way when it comes, and the user has been told Ctrl+C stops.
                control.expect_stop(self.duration.is_none());
                self.start(adb, &cmd)?;
                on_step(Step::Recording {
                    until: self.duration,
                });
                control.wait(self.duration);
                self.stop_profiler(adb, on_step)?;
                device_file
            }
            Mode::Startup => {
                let activity = launcher_activity(adb, pkg)?;
                let mut cmd = format!("am start-activity -W -S --start-profiler {device_file}");
                if let Some(n) = self.interval_us {
                    cmd.push_str(&format!(" --sampling {n}"));
                }
                if self.streaming {
                    cmd.push_str(" --streaming");
                }
                cmd.push_str(&format!(" {activity}"));
                self.start(adb, &cmd)?;
                on_step(Step::Recording {
                    until: self.duration,
                });
                if self.duration.is_some() {
                    control.wait(self.duration);
                }
                self.stop_profiler(adb, on_step)?;
                device_file
            }
            Mode::Simpleperf => {
                let secs = self.duration.unwrap_or(DEFAULT_SIMPLEPERF).as_secs_f64();
                on_step(Step::Recording {
                    until: Some(self.duration.unwrap_or(DEFAULT_SIMPLEPERF)),
                });
                let cmd =
                    format!("simpleperf record --app {pkg} -g --duration {secs} -o {device_file}");
                self.simpleperf_record(adb, &cmd, control)?;
                on_step(Step::Stopping);
                control.check()?;
                let convert = format!(
                    "simpleperf report-sample --protobuf --show-callchain -i {device_file} -o {report}"
                );
                match adb.shell(&convert)? {
                    (true, _) => report,
                    (false, _) => device_file,
                }
            }
        };
        control.check()?;
        self.wait_until_written(adb, pulled, control, on_step)?;
        on_step(Step::Pulling);
        let local = self.pull(adb, pulled)?;
        if control.aborted() {
            let _ = std::fs::remove_file(&local);
            return Err(RecordError::Aborted);
        }
        Ok(local)
    }

    fn push_clock_and_streaming(&self, cmd: &mut String) {
        if let Some(c) = self.clock {
            cmd.push_str(&format!(" --clock-type {}", c.word()));
        }
        if self.streaming {
            cmd.push_str(" --streaming");
        }
    }

    /// Runs a command that starts profiling; its output says whether the app may be profiled.
    fn start(&self, adb: &Adb, cmd: &str) -> Result<(), RecordError> {
        let (ok, out) = adb.shell(cmd)?;
        self.started(cmd, ok, &out)
    }

    /// `simpleperf record`, which runs for its duration on the device: a stop or an abort
    /// interrupts it (SIGINT, after which simpleperf writes what it recorded).
    fn simpleperf_record(
        &self,
        adb: &Adb,
        cmd: &str,
        control: &Control,
    ) -> Result<(), RecordError> {
        let mut child = adb.spawn_shell(cmd, Stdio::piped())?;
        let mut interrupted = false;
        while child.try_wait().ok().flatten().is_none() {
            if control.stopping() && !interrupted {
                let _ = adb.shell("pkill -l SIGINT simpleperf");
                interrupted = true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child
            .wait_with_output()
            .map_err(|source| RecordError::AdbMissing {
                program: adb.program().to_path_buf(),
                source,
            })?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        self.started(cmd, out.status.success() || interrupted, &text)
    }

    /// Whether a start command's result (`ok`, its output) lets the recording go on.
    fn started(&self, cmd: &str, ok: bool, out: &str) -> Result<(), RecordError> {
        let lower = out.to_ascii_lowercase();
        if lower.contains("not debuggable") || lower.contains("not profileable") {
            return Err(RecordError::NotProfileable(self.package.clone()));
        }
        if !ok || out.contains("Error") || out.contains("Exception") {
            return Err(RecordError::Failed {
                command: cmd.to_string(),
                output: out.trim().to_string(),
            });
        }
        Ok(())
    }

    fn stop_profiler(&self, adb: &Adb, on_step: &mut dyn FnMut(Step)) -> Result<(), RecordError> {
        on_step(Step::Stopping);
        let cmd = format!("am profile stop {}", self.package);
        match adb.shell(&cmd)? {
            (true, _) => Ok(()),
            (false, output) => Err(RecordError::Failed {
                command: cmd,
                output: output.trim().to_string(),
            }),
        }
    }

    /// Waits until the device file has a size that two reads in a row agree on: the app
    /// writes a method trace after the profiler stops, and closes it when done.
    fn wait_until_written(
        &self,
        adb: &Adb,
        device_file: &str,
        control: &Control,
        on_step: &mut dyn FnMut(Step),
    ) -> Result<(), RecordError> {
        let deadline = Instant::now() + self.write_timeout;
        let mut last = None;
        loop {
            control.check()?;
            let (_, out) = adb.shell(&format!("stat -c %s {device_file}"))?;
            let size = out.trim().parse::<u64>().ok().filter(|&s| s > 0);
            if let Some(bytes) = size {
                if last == size {
                    return Ok(());
                }
                on_step(Step::Writing { bytes });
            }
            last = size;
            if Instant::now() >= deadline {
                return Err(RecordError::NothingWritten(device_file.to_string()));
            }
            std::thread::sleep(self.poll);
        }
    }

    /// `adb pull`; a failed or empty pull leaves no local file.
    fn pull(&self, adb: &Adb, device_file: &str) -> Result<PathBuf, RecordError> {
        let local = self.output.to_string_lossy().into_owned();
        let out = adb.run(&["pull", device_file, &local])?;
        let size = std::fs::metadata(&self.output).map_or(0, |m| m.len());
        if !out.status.success() || size == 0 {
            let _ = std::fs::remove_file(&self.output);
            let mut output = String::from_utf8_lossy(&out.stderr).trim().to_string();
            if output.is_empty() {
                output = format!("{local} is empty");
            }
            return Err(RecordError::PullFailed {
                device_file: device_file.to_string(),
                output,
            });
        }
        Ok(self.output.clone())
    }
}

/// The component of the package's launcher activity: the last line of
/// `cmd package resolve-activity --brief PKG` (`pkg/.Activity`).
fn launcher_activity(adb: &Adb, pkg: &str) -> Result<String, RecordError> {
    let (_, out) = adb.shell(&format!("cmd package resolve-activity --brief {pkg}"))?;
    out.lines()
        .map(str::trim)
        .rfind(|l| l.contains('/') && !l.contains(' '))
        .map(str::to_string)
        .ok_or_else(|| RecordError::NoActivity(pkg.to_string()))
}

/// The default local file: `PKG-SECONDS.trace` (or `.simpleperf.pb`) in `dir`.
pub fn default_output(dir: &Path, package: &str, mode: Mode) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let ext = if mode == Mode::Simpleperf {
        "simpleperf.pb"
    } else {
        "trace"
    };
    dir.join(format!("{package}-{secs}.{ext}"))
}
