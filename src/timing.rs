//! `TRACELENS_TIMING=1`: phase marks on stderr, each with the milliseconds since the first mark,
//! the resident memory and its peak so far (for benchmark notes; nothing is printed otherwise).
//! With `TRACELENS_TIMING=alloc`, each mark also allocates and frees a block of `MARK_BYTES + n`
//! bytes (mark `n`), so that a log of every allocation (`scripts/malloc-trace/`) can be cut at
//! the marks.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

static ENABLED: OnceLock<Option<bool>> = OnceLock::new();
static START: OnceLock<Instant> = OnceLock::new();
static MARKS: AtomicUsize = AtomicUsize::new(0);

/// The size of mark 0's block (see the module's text).
pub const MARK_BYTES: usize = 7_770_000;

/// Prints `what` and the time since the first mark, when `TRACELENS_TIMING` is set.
pub(crate) fn mark(what: &str) {
    let Some(alloc) =
        *ENABLED.get_or_init(|| std::env::var_os("TRACELENS_TIMING").map(|v| v == "alloc"))
    else {
        return;
    };
    let ms = START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3;
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
