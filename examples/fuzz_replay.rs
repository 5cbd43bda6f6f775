//! Replays files through a fuzz target's entry point on stable, timing each:
//! `cargo run --release --example fuzz_replay -- TARGET FILE...` (TARGET as in `fuzz/fuzz_targets/`).

use std::time::Instant;

use tracelens::fuzz::{Target, run};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    let Some(target) = Target::from_name(&name) else {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!(
            "usage: fuzz_replay TARGET FILE...; targets: {}",
            names.join(" ")
        );
        std::process::exit(2);
    };
    for file in args {
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let t0 = Instant::now();
        run(target, &bytes);
        println!("{file}: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
}
