//! Merge truncated roots: the samples of a sampled profile whose stack does not reach its
//! thread's root (the unwinder stopped early) are attached under the call path by which the
//! thread's complete stacks most often reach their outermost frame.
//!
//! The rule, per thread:
//! 1. Its *root* is the method that most of its samples the unwinder finished (no
//!    `unwinding_result` error) start with; ties go to the smaller method id. A thread without
//!    such a sample is left as it is.
//! 2. A sample is *complete* when the unwinder finished it and its stack starts with the root.
//!    A sample whose stack starts with another method is *truncated*, however the unwinder
//!    ended (a stack the unwinder flagged that still starts with the root is left as it is).
//! 3. A truncated stack whose outermost frame is method `m` is put under the call path from the
//!    root down to `m`'s caller that the thread's complete samples reach `m` by most often
//!    (counting `m`'s outermost frame in each sample). Ties go to the shorter path, then to the
//!    path whose methods, root first, have the smaller ids. When no complete sample of the
//!    thread has `m` on its stack, the truncated stack goes under the root alone.
//!
//! The calls are then made again from the samples ([`crate::trace::sample_calls`]). Samples keep
//! their mark of a stopped unwinder. Applied again, it changes nothing: every stack of a thread
//! it touched now starts at the thread's root.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::trace::sample_calls::with_samples;
use crate::trace::{MethodId, Samples, StackId, StackTable, Trace};

/// `trace` with its truncated stacks attached under their most likely roots (see the module
/// docs); None when the trace has no samples.
pub(super) fn merge_truncated_roots(trace: &Trace) -> Option<Trace> {
    if trace.samples.is_empty() {
        return None;
    }
    let mut samples = Samples::clone(&trace.samples);
    let paths = Paths::new(&samples);
    let mut moved: FxHashMap<(u32, u32), StackId> = FxHashMap::default();
    for (thread, stacks) in stacks_by_thread(&samples).into_iter().enumerate() {
        let table = &mut samples.stacks;
        for (old, new) in attach_thread(table, &samples.frames, &paths, &stacks) {
            moved.insert((thread as u32, old.0), new);
        }
    }
    if moved.is_empty() {
        return Some(trace.clone());
    }
    samples.map_stacks(|t, s| moved.get(&(t.0, s.0)).copied().unwrap_or(s));
    Some(with_samples(trace, samples))
}

/// One stack of a thread, and how many of the thread's samples of it the unwinder finished.
#[derive(Clone, Copy)]
struct ThreadStack {
    stack: StackId,
    finished: u64,
}

/// Per thread, the stacks its samples have (in stack order), each once.
fn stacks_by_thread(samples: &Samples) -> Vec<Vec<ThreadStack>> {
    let mut counts: FxHashMap<(u32, u32), u64> = FxHashMap::default();
    let mut threads = 0;
    for s in samples.iter() {
        if let Some(stack) = s.stack {
            threads = threads.max(s.thread.index() + 1);
            *counts.entry((s.thread.0, stack.0)).or_default() += u64::from(!s.meta.truncated());
        }
    }
    let mut by_thread: Vec<Vec<ThreadStack>> = vec![Vec::new(); threads];
    for ((t, stack), finished) in counts {
        by_thread[t as usize].push(ThreadStack {
            stack: StackId(stack),
            finished,
        });
    }
    for stacks in &mut by_thread {
        stacks.sort_unstable_by_key(|s| s.stack);
    }
    by_thread
}

/// The stacks' call paths by method: stacks with the same methods from the root share one path,
/// whatever their frames' kinds (and wherever the reader interned them).
struct Paths {
    /// Per path: its caller's path ([`Paths::NONE`] at a root), its method, its root's method
    /// and its length.
    parent: Vec<u32>,
    method: Vec<MethodId>,
    root: Vec<MethodId>,
    len: Vec<u32>,
    /// Per stack: its path.
    of_stack: Vec<u32>,
}

impl Paths {
    const NONE: u32 = u32::MAX;

    fn new(samples: &Samples) -> Self {
        let (stacks, frames) = (&samples.stacks, &samples.frames);
        let mut p = Paths {
            parent: Vec::new(),
            method: Vec::new(),
            root: Vec::new(),
            len: Vec::new(),
            of_stack: Vec::with_capacity(stacks.len()),
        };
        let mut ids: FxHashMap<(u32, MethodId), u32> = FxHashMap::default();
        for s in 0..stacks.len() {
            let stack = StackId(s as u32);
            // A stack's caller has a smaller id: its path is known.
            let parent = stacks
                .parent(stack)
                .map_or(Self::NONE, |c| p.of_stack[c.0 as usize]);
            let m = frames.method(stacks.frame(stack));
            let id = *ids.entry((parent, m)).or_insert_with(|| {
                let (root, len) = match parent {
                    Self::NONE => (m, 1),
                    c => (p.root[c as usize], p.len[c as usize] + 1),
                };
                p.parent.push(parent);
                p.method.push(m);
                p.root.push(root);
                p.len.push(len);
                p.method.len() as u32 - 1
            });
            p.of_stack.push(id);
        }
        p
    }

    fn root_of(&self, s: StackId) -> MethodId {
        self.root[self.of_stack[s.0 as usize] as usize]
    }

    /// The methods of `path`, root first.
    fn methods(&self, path: u32) -> Vec<MethodId> {
        let caller = |&p: &u32| Some(self.parent[p as usize]).filter(|&c| c != Self::NONE);
        let mut out: Vec<MethodId> = std::iter::successors(Some(path), caller)
            .map(|p| self.method[p as usize])
            .collect();
        out.reverse();
        out
    }
}

/// A call path by which complete samples reach a method: how many do, and one stack of it.
struct Candidate {
    path: u32,
    samples: u64,
    stack: StackId,
}

impl Candidate {
    /// Whether `self` is more likely than `other` (more samples, then shorter, then smaller
    /// method ids from the root).
    fn beats(&self, other: &Candidate, paths: &Paths) -> bool {
        let (a, b) = (self.path as usize, other.path as usize);
        (self.samples, std::cmp::Reverse(paths.len[a]))
            .cmp(&(other.samples, std::cmp::Reverse(paths.len[b])))
            .then_with(|| paths.methods(other.path).cmp(&paths.methods(self.path)))
            .is_gt()
    }
}

/// The rule of the module docs on one thread's stacks: the truncated stacks with the stacks
/// they become (pushed to `table`).
fn attach_thread(
    table: &mut StackTable,
    frames: &crate::trace::Frames,
    paths: &Paths,
    stacks: &[ThreadStack],
) -> Vec<(StackId, StackId)> {
    let mut roots: FxHashMap<MethodId, u64> = FxHashMap::default();
    for s in stacks.iter().filter(|s| s.finished > 0) {
        *roots.entry(paths.root_of(s.stack)).or_default() += s.finished;
    }
    let Some(root) = roots
        .into_iter()
        .max_by_key(|&(m, n)| (n, std::cmp::Reverse(m)))
        .map(|(m, _)| m)
    else {
        return Vec::new();
    };
    let truncated: Vec<StackId> = stacks
        .iter()
        .map(|s| s.stack)
        .filter(|&s| paths.root_of(s) != root)
        .collect();
    if truncated.is_empty() {
        return Vec::new();
    }
    let wanted: FxHashSet<MethodId> = truncated.iter().map(|&s| paths.root_of(s)).collect();
    // Per wanted method, the call paths complete samples reach it by.
    let mut reached: FxHashMap<MethodId, FxHashMap<u32, Candidate>> = FxHashMap::default();
    let mut root_stack = None;
    let mut chain: Vec<StackId> = Vec::new();
    let mut seen: Vec<MethodId> = Vec::new();
    for s in stacks
        .iter()
        .filter(|s| s.finished > 0 && paths.root_of(s.stack) == root)
    {
        chain.clear();
        chain.extend(std::iter::successors(Some(s.stack), |&c| table.parent(c)));
        chain.reverse();
        root_stack.get_or_insert(chain[0]);
        seen.clear();
        for k in 1..chain.len() {
            let m = frames.method(table.frame(chain[k]));
            if !wanted.contains(&m) || seen.contains(&m) {
                continue;
            }
            seen.push(m);
            let caller = chain[k - 1];
            let path = paths.of_stack[caller.0 as usize];
            reached
                .entry(m)
                .or_default()
                .entry(path)
                .or_insert(Candidate {
                    path,
                    samples: 0,
                    stack: caller,
                })
                .samples += s.finished;
        }
    }
    let Some(root_stack) = root_stack else {
        return Vec::new();
    };
    let under: FxHashMap<MethodId, StackId> = wanted
        .iter()
        .map(|&m| {
            let best = reached.get(&m).and_then(|c| {
                c.values()
                    .reduce(|best, c| if c.beats(best, paths) { c } else { best })
            });
            (m, best.map_or(root_stack, |c| c.stack))
        })
        .collect();
    let mut memo: FxHashMap<StackId, StackId> = FxHashMap::default();
    truncated
        .into_iter()
        .map(|s| {
            let at = under.get(&paths.root_of(s)).copied().unwrap_or(root_stack);
            (s, graft(table, s, at, &mut memo))
        })
        .collect()
}

/// The stack of `s`'s frames called from `under` (pushed to `table`); `memo` holds the stacks
/// already grafted under the same place, so that shared callers are pushed once.
fn graft(
    table: &mut StackTable,
    s: StackId,
    under: StackId,
    memo: &mut FxHashMap<StackId, StackId>,
) -> StackId {
    let mut chain = Vec::new();
    let mut base = under;
    let mut at = Some(s);
    while let Some(c) = at {
        if let Some(&done) = memo.get(&c) {
            base = done;
            break;
        }
        chain.push(c);
        at = table.parent(c);
    }
    for &c in chain.iter().rev() {
        base = table.push(Some(base), table.frame(c));
        memo.insert(c, base);
    }
    base
}
