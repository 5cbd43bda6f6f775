//! Test helpers: small traces built through the public [`Builder`], hand-written or random.

pub(crate) use crate::testutil::Rng;
use crate::trace::{Action, Builder, ClockMode, MethodId, Trace};

/// dmtracedump's synthetic `simple.trace` (traces/synthetic/simple.txt): thread-cpu clock,
/// B.foo recursive three deep.
pub(crate) const SIMPLE_TXT: &str = "\
0  1 A.main ()V
2  1  B.foo (I)V
4  1   C.bar ()V
6  1   C.bar ()V
8  1   B.foo (I)V
10 1    B.foo (I)V
14 1    B.foo (I)V
16 1   B.foo (I)V
17 1  B.foo (I)V
18 2 D.run ()V
20 2  C.bar ()V
25 2  C.bar ()V
26 1 A.main ()V
30 2 D.run ()V
";

/// traces/synthetic/simple2.txt.
pub(crate) const SIMPLE2_TXT: &str = "\
0  1 A.main ()V
2  1  B.foo (I)V
9  1   C.bar ()V
12 1   C.bar ()V
13 1  B.foo (I)V
14 1  E.baz ()V
15 1  E.baz ()V
40 1 A.main ()V
";

/// Builds a thread-cpu trace from the synthetic description format: `time thread Class.name sig`,
/// indentation = depth; a line naming the method open at that depth is its exit. Methods and
/// threads are numbered in order of appearance; axis time = CPU time.
pub(crate) fn trace_from_txt(txt: &str) -> Trace {
    let mut b = Builder::new("synthetic");
    b.clock = Some(ClockMode::ThreadCpu);
    let mut methods: Vec<(String, MethodId)> = Vec::new();
    type Stack = Vec<(usize, MethodId)>;
    let mut threads: Vec<(u64, crate::trace::ThreadId, Stack)> = Vec::new();
    for line in txt.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut it = line.split_ascii_whitespace();
        let time: u64 = it.next().unwrap().parse().unwrap();
        let tid: u64 = it.next().unwrap().parse().unwrap();
        let after_tid = line.find(&format!(" {tid} ")).unwrap() + tid.to_string().len() + 2;
        let indent = line[after_tid..].len() - line[after_tid..].trim_start().len();
        let full = it.next().unwrap();
        let sig = it.next().unwrap_or("");
        let key = format!("{full} {sig}");
        let m = match methods.iter().find(|(k, _)| *k == key) {
            Some((_, m)) => *m,
            None => {
                let (class, name) = full.rsplit_once('.').unwrap();
                let raw = 4 * (methods.len() as u64 + 1);
                let m = b.add_method(raw, class, name, sig, None, None);
                methods.push((key, m));
                m
            }
        };
        let ti = match threads.iter().position(|t| t.0 == tid) {
            Some(i) => i,
            None => {
                let id = b.add_thread(tid, &format!("thread-{tid}"));
                threads.push((tid, id, Vec::new()));
                threads.len() - 1
            }
        };
        let (_, id, stack) = &mut threads[ti];
        let action = if stack.last() == Some(&(indent, m)) {
            stack.pop();
            Action::Exit
        } else {
            stack.push((indent, m));
            Action::Enter
        };
        b.events_mut(*id).push(action, m, time, Some(time));
    }
    b.finish()
}

pub(crate) fn simple_trace() -> Trace {
    trace_from_txt(SIMPLE_TXT)
}

/// One thread's events: (action, method, axis time, CPU time).
pub(crate) type Events = Vec<(Action, MethodId, u64, u64)>;

/// A random dual-clock trace: `threads` threads of about `events` events each, six methods,
/// recursion, zero-length calls, unmatched exits at the start and open calls at the end.
pub(crate) fn random_trace(seed: u64, threads: usize, events: usize) -> Trace {
    trace_from_events(&random_events(seed, threads, events))
}

/// The trace of [`random_events`]: methods `pkg.C{i%3}.m{i}`, threads `t{i}` with ids from 1.
pub(crate) fn trace_from_events(threads: &[Events]) -> Trace {
    let mut b = Builder::new("random");
    b.clock = Some(ClockMode::Dual);
    for i in 0..6u64 {
        b.add_method(
            4 * (i + 1),
            &format!("pkg.C{}", i % 3),
            &format!("m{i}"),
            "()V",
            None,
            None,
        );
    }
    for (t, evs) in threads.iter().enumerate() {
        let tid = b.add_thread(t as u64 + 1, &format!("t{t}"));
        let ev = b.events_mut(tid);
        for &(a, m, axis, cpu) in evs {
            ev.push(a, m, axis, Some(cpu));
        }
    }
    b.finish()
}

/// Random events per thread (see [`random_trace`]).
pub(crate) fn random_events(seed: u64, threads: usize, events: usize) -> Vec<Events> {
    let mut rng = Rng::new(seed);
    let methods: Vec<MethodId> = (0..6).map(MethodId).collect();
    let mut out = Vec::new();
    for _ in 0..threads {
        let mut ev = Events::new();
        let mut stack: Vec<MethodId> = Vec::new();
        let (mut axis, mut cpu) = (rng.below(50), rng.below(10));
        // A couple of unmatched exits first.
        for _ in 0..rng.below(3) {
            let m = methods[rng.below(6) as usize];
            axis += rng.below(4);
            ev.push((Action::Exit, m, axis, cpu));
        }
        for _ in 0..events {
            let step = rng.below(6);
            axis += step;
            cpu += rng.below(step + 1);
            if stack.is_empty() || (stack.len() < 12 && rng.below(2) == 0) {
                let m = methods[rng.below(6) as usize];
                stack.push(m);
                ev.push((Action::Enter, m, axis, cpu));
            } else {
                let m = stack.pop().unwrap();
                let action = if rng.below(5) == 0 {
                    Action::Unroll
                } else {
                    Action::Exit
                };
                ev.push((action, m, axis, cpu));
            }
        }
        out.push(ev);
    }
    out
}
