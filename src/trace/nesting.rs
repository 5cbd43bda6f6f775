//! The nesting rules, shared by lane building ([`super::Builder::finish`]) and the event profile
//! ([`crate::analysis::profile::ProfileSinkFactory::finish`]) so both read an event stream the same way
//! (DESIGN.md "Timeline nesting", as perflib):
//! - an exit with an empty stack is *unmatched*: the entry happened before tracing started (the
//!   builder makes a call from the thread's first time, flag `synthesized_entry`);
//! - an exit of a method below the stack top closes the frames above it at that time (diagnostic
//!   `mismatched-exit`); an exit of a method not on the stack is dropped (`exit-not-on-stack`);
//! - calls still open at the end close at the thread's last time (flag `unclosed`);
//! - nesting deeper than [`MAX_DEPTH`] is left out of the model.

use super::{Diagnostic, Location};

/// How an exit record relates to the current stack.
pub(crate) enum ExitKind {
    /// The stack is empty: the entry happened before tracing started.
    Unmatched,
    /// The method is `n` frames below the top (0 = the top itself).
    Matched(usize),
    /// The method is not on the (non-empty) stack.
    NotOnStack,
}

#[inline]
pub(crate) fn classify_exit(
    stack_methods: impl DoubleEndedIterator<Item = u32>,
    empty: bool,
    m: u32,
) -> ExitKind {
    if empty {
        return ExitKind::Unmatched;
    }
    match stack_methods.rev().position(|x| x == m) {
        Some(n) => ExitKind::Matched(n),
        None => ExitKind::NotOnStack,
    }
}

/// The deepest nesting the model keeps: calls whose depth (the lane they would go to) is this or
/// more are left out, with a diagnostic. dmtracedump stops at the same depth (its
/// `MAX_STACK_DEPTH`); the limit bounds the lanes of a thread, and the work of every view and
/// export that follows a call's ancestors (collapsed stacks write each call's whole path).
pub const MAX_DEPTH: usize = 10_000;

/// The lanes a trace keeps at most, over all threads: [`LANE_BUDGET`] or one per
/// [`CALLS_PER_LANE`] calls, whichever is more. A lane costs ≈ 130 bytes whatever it holds
/// (≈ 250 while it is built), and a hostile file can give every call a lane of its own (a thread
/// of exits without entries nests each synthesized caller one level deeper); the budget keeps
/// the lanes' cost within a constant (≈ 8 MB; a trace that is compensated or diffed holds two)
/// plus ≈ 8 bytes per call. Real traces stay far below it (a few thousand lanes). When a trace has more, the deepest threads are cut to a common depth (the largest that
/// fits) and their deeper calls are left out with the `nesting-too-deep` diagnostic, as beyond
/// [`MAX_DEPTH`].
pub const LANE_BUDGET: usize = 1 << 15;
/// See [`LANE_BUDGET`].
pub const CALLS_PER_LANE: usize = 32;

/// Each thread's lane count under a budget: `depths` unchanged when their sum fits, else each cut
/// to the largest common level `L` with `Σ min(d, L) ≤ budget` (water-filling: shallow threads
/// keep all their lanes), but never below 1: every thread keeps its top lane (a thread costs
/// more than a lane anyway).
pub(crate) fn lane_caps(depths: &[usize], budget: usize) -> Vec<usize> {
    let kept = |level: usize| -> usize { depths.iter().map(|&d| d.min(level)).sum() };
    if kept(usize::MAX) <= budget {
        return depths.to_vec();
    }
    // kept(lo) ≤ budget < kept(hi + 1) throughout.
    let (mut lo, mut hi) = (0, depths.iter().copied().max().unwrap_or(0));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if kept(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    depths.iter().map(|&d| d.min(lo.max(1))).collect()
}

/// How one thread's exit relates to its stack: [`classify_exit`] with a table of how often each
/// method is on the stack (`on_stack`), so an exit of a method that is not on it costs no scan.
/// A scan ends at the frame the exit closes, with every frame above it: its work is paid for by
/// the frames it pops, and the whole walk stays linear in the events however deep the stack.
#[inline]
pub(crate) fn classify_exit_with(
    stack_methods: impl DoubleEndedIterator<Item = u32>,
    top: Option<u32>,
    on_stack: &[u32],
    m: u32,
) -> ExitKind {
    match top {
        None => ExitKind::Unmatched,
        Some(t) if t == m => ExitKind::Matched(0),
        Some(_) if on_stack.get(m as usize).is_none_or(|&n| n == 0) => ExitKind::NotOnStack,
        Some(_) => classify_exit(stack_methods, false, m),
    }
}

/// Counts `m` onto the stack in `on_stack` (grown as needed).
#[inline]
pub(crate) fn count_on(on_stack: &mut Vec<u32>, m: u32) {
    let i = m as usize;
    if i >= on_stack.len() {
        on_stack.resize(i + 1, 0);
    }
    on_stack[i] += 1;
}

/// How often each method is on one thread's stack: a dense table indexed by method (`Vec<u32>`,
/// sized for every method of the trace), or a hash map of the methods on the stack for threads
/// that would each need a dense table of a large trace (threads × methods beyond what a file's
/// size pays for). Walks are generic over it, so the dense one costs no branch.
pub(crate) trait StackCounts {
    fn get(&self, m: u32) -> u32;
    fn add(&mut self, m: u32, by: i32);
}

impl StackCounts for Vec<u32> {
    #[inline(always)]
    fn get(&self, m: u32) -> u32 {
        self[m as usize]
    }
    #[inline(always)]
    fn add(&mut self, m: u32, by: i32) {
        let n = &mut self[m as usize];
        *n = n.wrapping_add_signed(by);
    }
}

/// The sparse table: methods leave it when their count drops to 0.
pub(crate) type SparseCounts = rustc_hash::FxHashMap<u32, u32>;

impl StackCounts for SparseCounts {
    #[inline]
    fn get(&self, m: u32) -> u32 {
        self.get(&m).copied().unwrap_or(0)
    }
    #[inline]
    fn add(&mut self, m: u32, by: i32) {
        let n = self.entry(m).or_insert(0);
        *n = n.wrapping_add_signed(by);
        if *n == 0 {
            self.remove(&m);
        }
    }
}

/// A table of `methods` (a stack's).
pub(crate) fn counts_of<T: StackCounts>(mut table: T, methods: impl Iterator<Item = u32>) -> T {
    methods.for_each(|m| table.add(m, 1));
    table
}

/// The `threads × methods` (over all workers) up to which the threads of a walk over an input
/// of `bytes` get a dense recursion table each: a quarter of its bytes (the tables as large as
/// the file), and at least 4 M entries (16 MB). Beyond it they get [`SparseCounts`].
pub(crate) fn dense_table_limit(bytes: u64) -> usize {
    usize::try_from(bytes / 4)
        .unwrap_or(usize::MAX)
        .max(1 << 22)
}

/// Either table, chosen per thread at run time (its dense table grown as needed).
#[derive(Debug)]
pub(crate) enum OnStack {
    Dense(Vec<u32>),
    Sparse(SparseCounts),
}

impl StackCounts for OnStack {
    #[inline]
    fn get(&self, m: u32) -> u32 {
        match self {
            OnStack::Dense(v) => v.as_slice().get(m as usize).copied().unwrap_or(0),
            OnStack::Sparse(h) => StackCounts::get(h, m),
        }
    }
    #[inline]
    fn add(&mut self, m: u32, by: i32) {
        match self {
            OnStack::Dense(v) => {
                if m as usize >= v.len() {
                    v.resize(m as usize + 1, 0);
                }
                v.add(m, by)
            }
            OnStack::Sparse(h) => h.add(m, by),
        }
    }
}

/// The diagnostics about one thread's event stream.
pub(crate) fn stream_diagnostics(
    raw_id: u64,
    mismatched: u64,
    dropped: u64,
    backwards: u64,
    diags: &mut Vec<Diagnostic>,
) {
    if mismatched > 0 {
        diags.push(Diagnostic::warning(
            "mismatched-exit",
            Location::File,
            format!(
                "thread {raw_id}: {mismatched} exits named a method below the stack top; the frames above were closed there"
            ),
        ));
    }
    if dropped > 0 {
        diags.push(Diagnostic::warning(
            "exit-not-on-stack",
            Location::File,
            format!("thread {raw_id}: {dropped} exits of methods not on the stack were ignored"),
        ));
    }
    if backwards > 0 {
        diags.push(Diagnostic::warning(
            "time-backwards",
            Location::File,
            format!("thread {raw_id}: {backwards} times ran backwards and were clamped"),
        ));
    }
}
