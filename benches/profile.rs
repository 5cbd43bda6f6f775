//! Profile engine benchmark: `cargo bench --bench profile [-- FILE]`.
//!
//! With a FILE, loads it and times the profile of each clock and the text report. Without, builds
//! a synthetic dual-clock trace of about 5 million calls (10 million records: depth around 20,
//! 4 threads, 5000 methods, a sparse call graph) with `trace::Builder` and times the same.

use std::time::Instant;

use tracelens::analysis::profile::{Detail, profile, profiles};
use tracelens::report::profile_text::{Style, render};
use tracelens::trace::{Action, Builder, Clock, ClockMode, MethodId, Trace};

fn synthetic(records: usize, threads: usize, methods: u32) -> Trace {
    let mut b = Builder::new("bench");
    b.clock = Some(ClockMode::Dual);
    for m in 0..methods {
        b.add_method(
            m as u64 * 4,
            &format!("com/example/C{}", m / 8),
            &format!("m{m}"),
            "()V",
            None,
            None,
        );
    }
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for t in 0..threads {
        let tid = b.add_thread(t as u64 + 1, &format!("thread-{t}"));
        let ev = b.events_mut(tid);
        let (mut wall, mut cpu) = (1000u64, 0u64);
        let mut stack: Vec<u32> = Vec::new();
        for _ in 0..records / threads {
            let r = next();
            wall += 1 + (r & 7);
            cpu += (r >> 3) & 3;
            // Drift towards depth 20; callees come from a small per-caller set (sparse graph).
            let enter =
                stack.is_empty() || (stack.len() < 40 && (r >> 8) % 40 >= stack.len() as u64);
            if enter {
                let caller = stack.last().copied().unwrap_or(0);
                let m = (caller.wrapping_mul(31) + ((r >> 16) % 6) as u32 * 97 + 1) % methods;
                stack.push(m);
                ev.push(Action::Enter, MethodId(m), wall, Some(cpu));
            } else {
                let m = stack.pop().unwrap_or(0);
                ev.push(Action::Exit, MethodId(m), wall, Some(cpu));
            }
        }
    }
    b.finish()
}

fn time<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let v = f();
    println!(
        "{label:<28} {:>9.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    v
}

fn main() {
    let file = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let trace = match &file {
        Some(path) => time("load", || {
            tracelens::load::load_path(path.as_ref(), &Default::default()).expect("load the trace")
        }),
        None => time("build synthetic trace", || synthetic(10_000_000, 4, 5000)),
    };
    println!(
        "{} calls, {} threads, {} methods, {} rayon threads",
        trace.call_count(),
        trace.threads.len(),
        trace.methods.len(),
        rayon::current_num_threads()
    );
    for clock in trace.clocks() {
        for run in 0..3 {
            let p = time(&format!("profile {clock:?} (run {run})"), || {
                profile(&trace, clock)
            });
            if run == 0 {
                let edges: usize = (0..p.methods.len() as u32)
                    .map(|m| {
                        let e = p.edges(Some(MethodId(m)));
                        e.children().len() + e.recursive_children().len()
                    })
                    .sum();
                let rec: u64 = p.methods.iter().map(|m| u64::from(m.recursive_calls)).sum();
                println!("{edges} child edges, {rec} recursive calls");
            }
            if run == 2 {
                time(&format!("render text {clock:?}"), || {
                    render(&trace, &p, &Style::Text).len()
                });
            }
        }
    }
    if trace.clocks().len() == 2 {
        for run in 0..3 {
            time(&format!("both clocks, one walk ({run})"), || {
                profiles(&trace, &trace.clocks(), Detail::Edges, |p| p)
            });
        }
    }
    let _ = Clock::Cpu;
}
