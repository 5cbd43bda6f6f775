//! `tracelens dump FILE`: the record listing of `dmtracedump -o FILE`, byte for byte.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::load::{Input, Source, resolve};
use crate::report::dump::{DumpError, dump, dump_pair};

/// Arguments of `tracelens dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The trace: a `.trace` file, an ART streaming trace, a `.key` or `.data` of a pair, or the
    /// pair's base name.
    pub file: PathBuf,
}

/// Prints the dump; returns the exit code (1 with one line on stderr if the file is unreadable).
pub fn run(args: &DumpArgs) -> i32 {
    let input = resolve(&args.file);
    let shown = input.display_path().to_path_buf();
    let open = |p: &std::path::Path| {
        Source::open(p).map_err(|e| eprintln!("{}: cannot read: {e}", p.display()))
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &input {
        Input::Single(p) => match open(p) {
            Ok(bytes) => dump(&bytes, &mut out),
            Err(()) => return 1,
        },
        Input::Pair { key, data } => match (open(key), open(data)) {
            (Ok(k), Ok(d)) => dump_pair(&k, &d, &mut out),
            _ => return 1,
        },
    };
    let _ = out.flush();
    match result {
        Ok(()) => 0,
        // `tracelens dump f | head` is not an error.
        Err(DumpError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("{}: {e}", shown.display());
            1
        }
    }
}
