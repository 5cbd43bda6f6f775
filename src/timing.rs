//! `TRACELENS_TIMING=1`: phase marks on stderr, each with the milliseconds since the first mark,
//! the resident memory and its peak so far (for benchmark notes; nothing is printed otherwise).
//! With `TRACELENS_TIMING=alloc`, each mark also allocates and frees a block of `MARK_BYTES + n`
//! bytes (mark `n`), so that a log of every allocation (`scripts/malloc-trace/`) can be cut at
//! the marks.
//!
//! The window adds these lines, all counted from [`start`] (called first thing when the command
//! line is parsed, so "since the process started"): `timing: first-paint MS` (the first frame
//! that shows trace data: the threads' activity, or the timeline), `timing: timeline MS` (the
//! first frame whose timeline draws calls), `timing: interactive MS` (the first frame with the
//! table and the timeline complete), `timing: first-frame MS` (the window's first frame, whatever
//! it shows) and, once per frame, `timing: frame MS` (the CPU time of the frame's UI work, on the
//! UI thread's CPU clock, so that it does not count the time the thread waited for a core; the
//! wall time where there is no such clock), `timing: frame-wall MS` (its wall time)
//! and `timing: whole-frame MS` (the previous frame's UI work, tessellation and rendering, as
//! eframe measures it).
//! `scripts/frame-timing.sh` reads them.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

static ENABLED: OnceLock<Option<bool>> = OnceLock::new();
static START: OnceLock<Instant> = OnceLock::new();
static MARKS: AtomicUsize = AtomicUsize::new(0);

/// The size of mark 0's block (see the module's text).
pub const MARK_BYTES: usize = 7_770_000;

/// Sets the origin of every timing line (the first mark sets it otherwise).
pub(crate) fn start() {
    START.get_or_init(Instant::now);
}

/// Whether `TRACELENS_TIMING` is set, and whether to `alloc`.
fn enabled() -> Option<bool> {
    *ENABLED.get_or_init(|| std::env::var_os("TRACELENS_TIMING").map(|v| v == "alloc"))
}

/// Milliseconds since [`start`].
fn since_start() -> f64 {
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
}

/// A milestone of the window seen by the user (`first-paint`, `interactive`): printed once per
/// process, the first time it is reached.
pub(crate) fn milestone(name: &'static str) {
    static SEEN: std::sync::Mutex<Vec<&str>> = std::sync::Mutex::new(Vec::new());
    if enabled().is_none() {
        return;
    }
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.contains(&name) {
        seen.push(name);
        eprintln!("timing: {name} {:.1}", since_start());
    }
}

/// The times of one frame's UI work: started by [`FrameClock::start`] (None unless the timing
/// lines are on), printed by [`FrameClock::end`].
pub(crate) struct FrameClock {
    wall: Instant,
    cpu_ns: Option<u64>,
}

impl FrameClock {
    pub(crate) fn start() -> Option<Self> {
        enabled()?;
        Some(Self {
            wall: Instant::now(),
            cpu_ns: thread_cpu_ns(),
        })
    }

    /// Prints the frame's CPU time (its wall time where the CPU time cannot be read) and its
    /// wall time.
    pub(crate) fn end(self) {
        let wall = self.wall.elapsed().as_secs_f64() * 1e3;
        let cpu = (self.cpu_ns.zip(thread_cpu_ns())).map(|(a, b)| b.saturating_sub(a) as f64 / 1e6);
        eprintln!("timing: frame {:.2}", cpu.unwrap_or(wall));
        eprintln!("timing: frame-wall {wall:.2}");
    }
}

/// The CPU time of the calling thread so far, in nanoseconds (None where it cannot be read).
fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Some(u64::try_from(t.tv_sec).ok()? * 1_000_000_000 + u64::try_from(t.tv_nsec).ok()?)
    }
    #[cfg(not(unix))]
    None
}

/// The previous frame took `ms` in all: UI work, tessellation and rendering (eframe's measure).
pub(crate) fn whole_frame(ms: f64) {
    if enabled().is_some() {
        eprintln!("timing: whole-frame {ms:.2}");
    }
}

/// Prints `what` and the time since the first mark, when `TRACELENS_TIMING` is set.
pub(crate) fn mark(what: &str) {
    let Some(alloc) = enabled() else {
        return;
    };
    let ms = since_start();
    let n = MARKS.fetch_add(1, Ordering::Relaxed);
    if alloc {
        std::hint::black_box(Vec::<u8>::with_capacity(MARK_BYTES + n));
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name));
        line.map_or("", |l| l[name.len()..].trim()).to_string()
    };
    let (rss, peak) = (field("VmRSS:"), field("VmHWM:"));
    eprintln!(
        "tracelens: timing: {what:<28} {ms:>8.1} ms  rss {rss:>10}  peak {peak:>10}  mark {n}"
    );
}
