//! Loading an R8 mapping (not a test: it prints numbers). Usage:
//!
//! ```text
//! cargo bench --bench mapping                    # generates a realistic 50 MB mapping
//! cargo bench --bench mapping -- mapping.txt     # a mapping of your own
//! ```
//!
//! Reading is timed from the file (memory-mapped, page cache warm), best of 5; then resolving
//! 100 000 obfuscated methods taken from the mapping.

use std::time::{Duration, Instant};

use tracelens::mapping::{Outcome, obfuscate::synthetic_mapping, resolve};

fn main() {
    let arg = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = match arg {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let t0 = Instant::now();
            let text = synthetic_mapping(50 << 20, 42);
            let p = dir.path().join("mapping.txt");
            std::fs::write(&p, &text).expect("write the mapping");
            println!(
                "generated {:.1} MB, {} lines in {:.0} ms",
                text.len() as f64 / 1e6,
                text.lines().count(),
                t0.elapsed().as_secs_f64() * 1e3
            );
            p
        }
    };
    let size = std::fs::metadata(&path).expect("mapping").len();
    let _ = std::fs::read(&path); // warm the page cache
    let mut best = Duration::MAX;
    let mut mapping = None;
    for _ in 0..5 {
        drop(mapping.take());
        let t0 = Instant::now();
        let m = tracelens::load::load_mapping(&path).expect("load the mapping");
        best = best.min(t0.elapsed());
        mapping = Some(m);
    }
    let m = mapping.expect("loaded");
    println!(
        "load {}: {:.1} MB, {} lines, {} classes, {} methods, {} fields: {:.0} ms ({:.0} MB/s)",
        path.display(),
        size as f64 / 1e6,
        m.line_count(),
        m.class_count(),
        m.method_count(),
        m.field_count(),
        best.as_secs_f64() * 1e3,
        size as f64 / 1e6 / best.as_secs_f64()
    );
    // Resolve methods as a trace would name them.
    let mut queries = Vec::new();
    'outer: for c in m.classes() {
        for x in c.methods() {
            let sig = x.residual().map_or_else(|| x.descriptor(), str::to_string);
            queries.push((
                c.obfuscated().replace('.', "/"),
                x.obfuscated().to_string(),
                sig,
            ));
            if queries.len() == 100_000 {
                break 'outer;
            }
        }
    }
    let t0 = Instant::now();
    let mut resolved = 0;
    for (c, n, s) in &queries {
        if resolve(&m, c, n, s).outcome == Outcome::Resolved {
            resolved += 1;
        }
    }
    println!(
        "resolve {} methods: {:.0} ms ({resolved} resolved uniquely)",
        queries.len(),
        t0.elapsed().as_secs_f64() * 1e3
    );
}
