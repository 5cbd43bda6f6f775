//! `TRACELENS_TIMING=1`: phase marks on stderr, each with the milliseconds since the first mark
//! (for benchmark notes; nothing is printed otherwise).

use std::sync::OnceLock;
use std::time::Instant;

static ENABLED: OnceLock<bool> = OnceLock::new();
static START: OnceLock<Instant> = OnceLock::new();

/// Prints `what` and the time since the first mark, when `TRACELENS_TIMING` is set.
pub(crate) fn mark(what: &str) {
    if !*ENABLED.get_or_init(|| std::env::var_os("TRACELENS_TIMING").is_some()) {
        return;
    }
    let ms = START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3;
    eprintln!("timing: {what:<28} {ms:>8.1} ms");
}
