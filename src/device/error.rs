//! Why a recording failed: one message per cause, saying what to do about it.

use std::path::PathBuf;

/// Why a recording failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(
        "cannot run adb ({}): {source}; install Android's platform-tools, or name adb with --adb PATH or $ADB",
        program.display()
    )]
    AdbMissing {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("no device found: connect one with USB debugging on, or start an emulator{}",
        if unusable.is_empty() { String::new() } else { format!(" (seen but not usable: {})", unusable.join(", ")) })]
    NoDevice { unusable: Vec<String> },
    #[error("several devices are connected; choose one with --serial: {}", .0.join("; "))]
    SeveralDevices(Vec<String>),
    #[error("no device {0} (see `adb devices -l`)")]
    NoSuchDevice(String),
    #[error("device {serial} is {state}{}", if state == "unauthorized" { ": accept the USB debugging prompt on the device" } else { "" })]
    DeviceUnusable { serial: String, state: String },
    #[error("'{0}' is not a package name")]
    BadPackage(String),
    #[error("package {0} is not installed on the device")]
    NotInstalled(String),
    #[error("{0} is not running: start the app first (or record its start with --mode startup)")]
    NotRunning(String),
    #[error(
        "Process not debuggable, and not profileable by shell: {0} cannot be traced. Install a \
         debuggable build, or make the app profileable: add <profileable android:shell=\"true\"/> \
         inside <application> in its AndroidManifest.xml (Android 10 and later)"
    )]
    NotProfileable(String),
    #[error("no launcher activity found for {0} (cmd package resolve-activity)")]
    NoActivity(String),
    #[error("`{command}` failed: {output}")]
    Failed { command: String, output: String },
    #[error("the app wrote no trace to {0} on the device")]
    NothingWritten(String),
    #[error("the recording was cancelled: the profiler was stopped and nothing was kept")]
    Aborted,
    #[error("pulling {device_file} from the device was interrupted: {output}")]
    PullFailed { device_file: String, output: String },
}
