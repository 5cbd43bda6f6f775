//! Scaling: every reader, and the mapping resolver, on families of crafted inputs that grow one
//! dimension (methods, threads, nesting depth, unmatched closers, overloads of one obfuscated
//! name), timed at size n and 4n. A linear path grows about 4x; one that looks names up in hash
//! tables grows up to 6x, because each lookup costs more once a table outgrows a cache level (and
//! the TLB's reach): CProfiler's reader measures 5.5x from 0.96 to 3.84 million functions, and
//! 6 to 8x from 120 000 to 480 000 on a loaded machine. A path that is quadratic in that dimension
//! grows 16x. The bound, 10x, is between the two with room for a shared machine.
//!
//! Ratios, not absolute times, and each the least of many runs, because the machine is shared:
//! a family's n and 4n inputs are run in turn five times and each size's fastest run is kept,
//! and a family that grows too much is run five times more (three rounds in all, still keeping
//! each size's fastest) before it fails. The sizes make the 4n run take 50
//! ms or more in release builds, and put the families that look names up in hash tables past
//! the caches at n already (a table that outgrows the caches between n and 4n costs more per
//! lookup, which is not the growth looked for). This is its own test binary with one test, so
//! that no other test runs beside the timings; debug builds skip it.

use std::path::Path;
use std::time::{Duration, Instant};

use tracelens::formats::Progress;
use tracelens::mapping::{Mapping, Resolver};

/// The most a family's time may grow from n to 4n.
const MAX_GROWTH: f64 = 10.0;

/// How many rounds of runs a family gets before it fails.
const ROUNDS: usize = 3;

/// Runs of each size in a round.
const RUNS: usize = 5;

fn timed(run: impl FnOnce()) -> Duration {
    let start = Instant::now();
    run();
    start.elapsed()
}

/// One family: `make(n)` makes an input of size n, `run` processes it.
struct Family {
    name: &'static str,
    n: usize,
    make: fn(usize) -> Vec<u8>,
    run: fn(&[u8]),
}

impl Family {
    /// Times n and 4n; returns the growth and the times, or the failure after
    /// [`ROUNDS`].
    fn check(&self) -> Result<String, String> {
        let (small, large) = ((self.make)(self.n), (self.make)(4 * self.n));
        let (mut t1, mut t4) = (Duration::MAX, Duration::MAX);
        let mut last = String::new();
        for _ in 0..ROUNDS {
            for _ in 0..RUNS {
                t1 = t1.min(timed(|| (self.run)(&small)));
                t4 = t4.min(timed(|| (self.run)(&large)));
            }
            let growth = t4.as_secs_f64() / t1.as_secs_f64().max(1e-6);
            last = format!(
                "{}: n = {} in {:.1} ms, 4n in {:.1} ms: {growth:.2}x",
                self.name,
                self.n,
                t1.as_secs_f64() * 1e3,
                t4.as_secs_f64() * 1e3
            );
            if growth <= MAX_GROWTH {
                return Ok(last);
            }
        }
        Err(last)
    }
}

fn load(name: &str, bytes: &[u8]) {
    let trace = tracelens::load::load_bytes(Path::new(name), bytes, &Progress::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    std::hint::black_box(trace);
}

// Android traces

/// A combined v3 dual-clock trace: `threads` key lines, `methods` key lines (`0x{4i}` named
/// `C{i}.m`), and the records as (thread id, method index, action, time).
fn android(threads: usize, methods: usize, records: &[(u16, u32, u32, u32)]) -> Vec<u8> {
    let mut key = String::from("*version\n3\nclock=dual\n*threads\n");
    for t in 1..=threads {
        key.push_str(&format!("{t}\tthread-{t}\n"));
    }
    key.push_str("*methods\n");
    for m in 0..methods {
        key.push_str(&format!(
            "{:#x}\tcom/example/C{m}\tm\t()V\tC.java\n",
            (m + 1) * 4
        ));
    }
    key.push_str("*end\n");
    let mut bytes = key.into_bytes();
    bytes.extend_from_slice(b"SLOW");
    bytes.extend_from_slice(&3u16.to_le_bytes());
    bytes.extend_from_slice(&32u16.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    bytes.extend_from_slice(&14u16.to_le_bytes());
    bytes.extend_from_slice(&[0; 14]);
    for &(tid, method, action, time) in records {
        bytes.extend_from_slice(&tid.to_le_bytes());
        bytes.extend_from_slice(&(((method + 1) * 4) | action).to_le_bytes());
        bytes.extend_from_slice(&time.to_le_bytes());
        bytes.extend_from_slice(&(2 * time).to_le_bytes());
    }
    bytes
}

/// `n` methods in the key, each called once.
fn many_methods(n: usize) -> Vec<u8> {
    let records: Vec<_> = (0..n as u32)
        .flat_map(|m| [(1, m, 0, 2 * m), (1, m, 1, 2 * m + 1)])
        .collect();
    android(1, n, &records)
}

/// `n` threads of 10 calls each, their records interleaved.
fn many_threads(n: usize) -> Vec<u8> {
    let mut records = Vec::new();
    for call in 0..10u32 {
        for t in 1..=n as u16 {
            records.push((t, call, 0, 4 * call));
            records.push((t, call, 1, 4 * call + 2));
        }
    }
    android(n, 10, &records)
}

/// One thread that nests `n` calls deep, then returns.
fn deep_nesting(n: usize) -> Vec<u8> {
    let n = n as u32;
    let enters = (0..n).map(|i| (1, i % 64, 0, i));
    let exits = (0..n).rev().map(|i| (1, i % 64, 1, 2 * n - i));
    android(1, 64, &enters.chain(exits).collect::<Vec<_>>())
}

/// `n` exits of methods never entered, then `n` calls.
fn unmatched_exits(n: usize) -> Vec<u8> {
    let n = n as u32;
    let exits = (0..n).map(|i| (1, i % 64, 1, i));
    let calls = (0..n).flat_map(|i| [(1, i % 64, 0, n + 2 * i), (1, i % 64, 1, n + 2 * i + 1)]);
    android(1, 64, &exits.chain(calls).collect::<Vec<_>>())
}

/// An ART streaming trace: `n` threads and `n` methods defined by packets, each thread calling
/// its own method once.
fn streaming(n: usize) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"SLOW");
    b.extend_from_slice(&0xF3u16.to_le_bytes());
    b.extend_from_slice(&32u16.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes());
    b.extend_from_slice(&14u16.to_le_bytes());
    b.extend_from_slice(&[0; 14]);
    for i in 0..n {
        let tid = (i % 60000 + 1) as u16;
        let id = ((i + 1) * 4) as u32;
        let method = format!("{id:#x}\tcom/example/S{i}\trun\t()V\tS.java\n");
        b.extend_from_slice(&[0, 0, 1]);
        b.extend_from_slice(&(method.len() as u16).to_le_bytes());
        b.extend_from_slice(method.as_bytes());
        let name = format!("worker-{i}");
        b.extend_from_slice(&[0, 0, 2]);
        b.extend_from_slice(&tid.to_le_bytes());
        b.extend_from_slice(&(name.len() as u16).to_le_bytes());
        b.extend_from_slice(name.as_bytes());
        for (action, time) in [(0u32, 2 * i as u32), (1, 2 * i as u32 + 1)] {
            b.extend_from_slice(&tid.to_le_bytes());
            b.extend_from_slice(&(id | action).to_le_bytes());
            b.extend_from_slice(&time.to_le_bytes());
            b.extend_from_slice(&(2 * time).to_le_bytes());
        }
    }
    let summary = "*version\n3\nclock=dual\n*end\n";
    b.extend_from_slice(&[0, 0, 3]);
    b.extend_from_slice(&(summary.len() as u32).to_le_bytes());
    b.extend_from_slice(summary.as_bytes());
    b
}

// Legacy formats

fn rtl(lines: impl Iterator<Item = String>) -> Vec<u8> {
    let mut s = String::from(
        "opening log file 1000000000.000000 seconds past January 1st 1970\n\
         corresponding to 0 ms after timer start\nProcess id is 42\n",
    );
    for l in lines {
        s.push_str(&l);
        s.push('\n');
    }
    s.into_bytes()
}

/// `n` nested scopes, then `n` closers naming scopes never opened.
fn rtl_unmatched_closers(n: usize) -> Vec<u8> {
    let opens = (0..n).map(|i| format!("{:06} 1 {{ mod (au) open{i}", i));
    let closes = (0..n).map(|i| format!("{:06} 1 }} mod (au) never{i}", n + i));
    rtl(opens.chain(closes))
}

/// `n` nested logical scopes, then `n` logical closers whose labels match none.
fn rtl_unmatched_logical_closers(n: usize) -> Vec<u8> {
    let opens = (0..n).map(|i| format!("{:06} 1 | : {{ label{i}", i));
    let closes = (0..n).map(|i| format!("{:06} 1 | : }} other{i}", n + i));
    rtl(opens.chain(closes))
}

/// `n` nested scopes, a message in the innermost after each open, then the matching closers.
fn rtl_deep_nesting_with_messages(n: usize) -> Vec<u8> {
    let opens = (0..n).flat_map(|i| {
        [
            format!("{:06} 1 {{ mod (au) scope{i}", 2 * i),
            format!(
                "{:06} 1 | mod (au) scope{i} : message {i} : with : colons",
                2 * i + 1
            ),
        ]
    });
    let closes = (0..n)
        .rev()
        .map(|i| format!("{:06} 1 }} mod (au) scope{i}", 4 * n - i));
    rtl(opens.chain(closes))
}

/// `n` threads of 5 scopes each.
fn rtl_many_threads(n: usize) -> Vec<u8> {
    let lines = (0..5).flat_map(move |k| {
        (1..=n).flat_map(move |t| {
            [
                format!("{:06} {t} {{ mod (au) f{k}", 10 * k),
                format!("{:06} {t} }} mod (au) f{k}", 10 * k + 5),
            ]
        })
    });
    rtl(lines)
}

/// `n` markers, each registered and reported 4 times.
fn perflog_many_markers(n: usize) -> Vec<u8> {
    let mut s = String::from(
        "## PERF ## OSVERSION=[6.0] BUILD=[1]\n## PERF ## REGISTERED APP [a] PROCESSID [0x1]\n\
         ## PERF ## RESOLUTION [1000] TICKS PER SECOND\n",
    );
    for m in 1..=n {
        s.push_str(&format!(
            "## PERF ## REGISTERED MARKER [marker {m}] AS [{m}] BY APP [a]\n"
        ));
    }
    for k in 0..4 {
        for m in 1..=n {
            s.push_str(&format!("## PERF ## APP [a] EVT [{m}] DUR [{}]\n", 10 + k));
        }
    }
    s.into_bytes()
}

/// `n` functions, each timed twice.
fn cprofiler_many_functions(n: usize) -> Vec<u8> {
    let mut s = String::from("Frequency,1000000\n");
    for k in 0..2 {
        for f in 0..n {
            s.push_str(&format!("Namespace::Function{f},{}\n", 100 + k));
        }
    }
    s.into_bytes()
}

/// `n` threads of one process, each hitting 4 probes in turn.
fn logger_many_threads(n: usize) -> Vec<u8> {
    let mut s = String::new();
    for p in 0..4u64 {
        for t in 1..=n {
            s.push_str(&format!("1,{t},{p},0,{},0,{}\n", 1000 * p, 2000 * p));
        }
    }
    s.into_bytes()
}

// The mapping resolver

/// A mapping whose class `a` has `n` members all renamed to `a`, each with its own parameter.
fn overloads(n: usize) -> Vec<u8> {
    let mut s = String::from("com.example.Big -> a:\n");
    for i in 0..n {
        s.push_str(&format!("    void method{i}(com.example.P{i}) -> a\n"));
    }
    for i in 0..n {
        s.push_str(&format!("com.example.P{i} -> p{i}:\n"));
    }
    s.into_bytes()
}

fn parse(mapping: &[u8]) -> Mapping {
    Mapping::parse_str("mapping.txt", std::str::from_utf8(mapping).unwrap()).unwrap()
}

/// The mapping of [`overloads`] read, and one method of the class resolved.
fn resolve_one_of_many_overloads(mapping: &[u8]) {
    let m = parse(mapping);
    let r = Resolver::new(&m).resolve("a", "a", "(Lp7;)V");
    assert_eq!(r.name, "method7");
}

/// The mapping of [`overloads`] read, and every overload resolved, as a trace naming them all.
fn resolve_every_overload(mapping: &[u8]) {
    let m = parse(mapping);
    let mut resolver = Resolver::new(&m);
    let n = m.method_count();
    for i in 0..n {
        let sig = format!("(Lp{i};)V");
        std::hint::black_box(resolver.resolve("a", "a", &sig));
    }
}

/// A mapping of one class with `n` members renamed to `a` but none with the trace's descriptor:
/// every member is a candidate the name lists.
fn resolve_mismatching_descriptor(mapping: &[u8]) {
    let m = parse(mapping);
    let mut resolver = Resolver::new(&m);
    for _ in 0..100 {
        std::hint::black_box(resolver.resolve("a", "a", "(IIII)J"));
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timings: run with --release")]
fn every_reader_and_the_resolver_grow_linearly() {
    let bytes = |name, n, make: fn(usize) -> Vec<u8>| Family {
        name,
        n,
        make,
        run: |b: &[u8]| load("scaling", b),
    };
    let mut failures = Vec::new();
    let mut report = |r: Result<String, String>| match r {
        Ok(line) => eprintln!("{line}"),
        Err(line) => {
            eprintln!("{line}: TOO MUCH");
            failures.push(line);
        }
    };
    for family in [
        bytes("android key: many methods", 50_000, many_methods),
        bytes("android data: many threads", 15_000, many_threads),
        bytes("android data: deep nesting", 100_000, deep_nesting),
        bytes("android data: unmatched exits", 100_000, unmatched_exits),
        bytes(
            "android streaming: many threads and methods",
            30_000,
            streaming,
        ),
        bytes("rtl: unmatched closers", 20_000, rtl_unmatched_closers),
        bytes(
            "rtl: unmatched logical closers",
            40_000,
            rtl_unmatched_logical_closers,
        ),
        bytes(
            "rtl: deep nesting with messages",
            20_000,
            rtl_deep_nesting_with_messages,
        ),
        bytes("rtl: many threads", 5_000, rtl_many_threads),
        bytes("perflog: many markers", 20_000, perflog_many_markers),
        bytes(
            "cprofiler: many functions",
            240_000,
            cprofiler_many_functions,
        ),
        bytes("logger: many threads", 10_000, logger_many_threads),
    ] {
        report(family.check());
    }
    for family in [
        Family {
            name: "mapping: one method of many overloads",
            n: 50_000,
            make: overloads,
            run: resolve_one_of_many_overloads,
        },
        Family {
            name: "mapping: every one of many overloads",
            n: 20_000,
            make: overloads,
            run: resolve_every_overload,
        },
        Family {
            name: "mapping: a descriptor no overload has",
            n: 20_000,
            make: overloads,
            run: resolve_mismatching_descriptor,
        },
    ] {
        report(family.check());
    }
    assert!(
        failures.is_empty(),
        "grew more than {MAX_GROWTH}x: {failures:#?}"
    );
}
