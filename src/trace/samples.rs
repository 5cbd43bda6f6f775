//! Sampled profiles (simpleperf): the samples themselves, beside the calls made from them.
//!
//! A sample is a stack, a thread, a time and a weight (its event count) of one event type. The
//! readers of sampled formats also synthesize calls from the samples, so that every view of
//! calls works on them; this table keeps what calls cannot say: how many samples each thread,
//! stack and method has, per event type, and which stacks the unwinder cut short.
//!
//! Stacks are interned in a prefix table ([`StackTable`], as samply's `stack_table.rs`): a stack
//! is its leaf frame and its caller's stack, so a million samples of a few thousand distinct
//! stacks store each stack a few times at most. A reader may intern parts of a file apart (the
//! simpleperf reader does, per chunk) and so give one stack several ids: stacks are compared by
//! their frames, never by id. A frame ([`Frames`]) is a method and how its code ran
//! ([`ExecKind`]); methods are the trace's.

use super::{MethodId, ThreadId};

/// A stack in [`StackTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackId(pub u32);

/// A frame in [`Frames`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(pub u32);

/// How a frame's code ran (simpleperf's `execution_type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExecKind {
    /// Native code: libraries, AOT-compiled Java, ART's own code away from Java frames.
    #[default]
    Native,
    /// A Java method run by the interpreter.
    Interpreted,
    /// A Java method compiled by the JIT.
    Jit,
    /// ART's own code between Java frames (shown with `--show-art-frames`).
    Art,
}

impl ExecKind {
    /// The name shown for it.
    pub fn name(self) -> &'static str {
        match self {
            ExecKind::Native => "native",
            ExecKind::Interpreted => "interpreted",
            ExecKind::Jit => "jit",
            ExecKind::Art => "art",
        }
    }

    /// Whether it is a Java method (interpreted or JIT-compiled).
    pub fn is_java(self) -> bool {
        matches!(self, ExecKind::Interpreted | ExecKind::Jit)
    }
}

/// The frames of the stacks: per frame, its method and how its code ran.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    method: Vec<MethodId>,
    kind: Vec<ExecKind>,
    /// Per method (by index, up to the largest with a frame): the kind of its first frame.
    method_kind: Vec<Option<ExecKind>>,
}

impl Frames {
    /// Adds a frame and returns its id.
    pub fn push(&mut self, method: MethodId, kind: ExecKind) -> FrameId {
        let id = FrameId(self.method.len() as u32);
        self.method.push(method);
        self.kind.push(kind);
        if self.method_kind.len() <= method.index() {
            self.method_kind.resize(method.index() + 1, None);
        }
        self.method_kind[method.index()].get_or_insert(kind);
        id
    }

    /// How the code of method `m` ran: the kind of its first frame (a symbol is one method
    /// per file, and a file holds code of one kind, so its frames agree); None for a method
    /// without frames.
    pub fn method_kind(&self, m: MethodId) -> Option<ExecKind> {
        self.method_kind.get(m.index()).copied().flatten()
    }

    pub fn len(&self) -> usize {
        self.method.len()
    }

    pub fn is_empty(&self) -> bool {
        self.method.is_empty()
    }

    pub fn method(&self, f: FrameId) -> MethodId {
        self.method[f.0 as usize]
    }

    pub fn kind(&self, f: FrameId) -> ExecKind {
        self.kind[f.0 as usize]
    }
}

/// Stacks as a prefix table: each stack is a frame and the stack of its caller (none for a
/// root frame). A caller's stack is always added before the stacks it calls, so a stack's
/// parent has a smaller id.
#[derive(Clone, Debug, Default)]
pub struct StackTable {
    /// The caller's stack, [`StackTable::ROOT`] for a root frame.
    parent: Vec<u32>,
    frame: Vec<FrameId>,
}

impl StackTable {
    const ROOT: u32 = u32::MAX;

    /// Adds the stack of `frame` called from `parent` (None: a root frame) and returns its id.
    pub fn push(&mut self, parent: Option<StackId>, frame: FrameId) -> StackId {
        let id = StackId(self.parent.len() as u32);
        debug_assert!(parent.is_none_or(|p| p.0 < id.0));
        self.parent.push(parent.map_or(Self::ROOT, |p| p.0));
        self.frame.push(frame);
        id
    }

    /// Makes room for `n` more stacks.
    pub fn reserve(&mut self, n: usize) {
        self.parent.reserve(n);
        self.frame.reserve(n);
    }

    /// Appends the stacks of `other`, their frames renamed by `frame`; returns the offset of
    /// their ids here (stack `s` of `other` is `s + offset` here).
    pub fn append(&mut self, other: &StackTable, frame: impl Fn(FrameId) -> FrameId) -> u32 {
        let offset = self.parent.len() as u32;
        let moved = |p: u32| if p == Self::ROOT { p } else { p + offset };
        self.parent.extend(other.parent.iter().map(|&p| moved(p)));
        self.frame.extend(other.frame.iter().map(|&f| frame(f)));
        offset
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The leaf frame of `s`.
    pub fn frame(&self, s: StackId) -> FrameId {
        self.frame[s.0 as usize]
    }

    /// The stack of the caller of `s`'s leaf, None at a root frame.
    pub fn parent(&self, s: StackId) -> Option<StackId> {
        let p = self.parent[s.0 as usize];
        (p != Self::ROOT).then_some(StackId(p))
    }

    /// The frames of `s`, leaf first.
    pub fn frames(&self, s: StackId) -> impl Iterator<Item = FrameId> + '_ {
        std::iter::successors(Some(s), |&s| self.parent(s)).map(|s| self.frame(s))
    }
}

/// What a sample says besides its thread, time, stack and weight: its event type and whether
/// its stack was cut short, in two bytes. The event type is the low 15 bits; the top bit is set
/// when the unwinder stopped before the stack's root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleMeta(u16);

impl SampleMeta {
    const TRUNCATED: u16 = 1 << 15;
    /// The largest event type index a sample can name.
    pub const MAX_EVENT_TYPE: u16 = Self::TRUNCATED - 1;

    /// `event_type` must be at most [`SampleMeta::MAX_EVENT_TYPE`].
    pub fn new(event_type: u16, truncated: bool) -> Self {
        debug_assert!(event_type <= Self::MAX_EVENT_TYPE);
        let t = if truncated { Self::TRUNCATED } else { 0 };
        SampleMeta((event_type & Self::MAX_EVENT_TYPE) | t)
    }

    /// The index of the sample's event type in [`Samples::event_types`].
    pub fn event_type(self) -> usize {
        usize::from(self.0 & Self::MAX_EVENT_TYPE)
    }

    /// Whether the unwinder stopped before the root of the stack.
    pub fn truncated(self) -> bool {
        self.0 & Self::TRUNCATED != 0
    }
}

/// An event type samples were taken of (`cpu-cycles`, `cpu-clock`, `sched:sched_switch`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventType {
    pub name: String,
    /// Its samples are taken when a thread leaves the CPU (`--trace-offcpu`): they count time
    /// off the CPU, apart from the on-CPU samples.
    pub off_cpu: bool,
}

/// A thread scheduled on or off the CPU (recorded with `--trace-offcpu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextSwitch {
    pub thread: ThreadId,
    /// Axis time, ticks.
    pub time: u64,
    /// True when the thread is scheduled on the CPU, false when it leaves it.
    pub on_cpu: bool,
}

/// One sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub thread: ThreadId,
    /// Axis time, ticks.
    pub time: u64,
    /// None for a sample without frames.
    pub stack: Option<StackId>,
    /// Its event count.
    pub weight: u64,
    pub meta: SampleMeta,
}

/// The samples of a sampled profile, in file order, with their stacks. Empty for method traces.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    thread: Vec<ThreadId>,
    time: Vec<u64>,
    /// [`Samples::NO_STACK`] for a sample without frames.
    stack: Vec<u32>,
    weight: Vec<u64>,
    meta: Vec<SampleMeta>,
    pub stacks: StackTable,
    pub frames: Frames,
    pub event_types: Vec<EventType>,
    pub context_switches: Vec<ContextSwitch>,
    /// Samples the recorder lost, as the file states it (None: it does not say).
    pub lost: Option<u64>,
}

impl Samples {
    const NO_STACK: u32 = u32::MAX;

    #[inline]
    pub fn push(&mut self, s: Sample) {
        self.thread.push(s.thread);
        self.time.push(s.time);
        self.stack.push(s.stack.map_or(Self::NO_STACK, |s| s.0));
        self.weight.push(s.weight);
        self.meta.push(s.meta);
    }

    /// Appends the samples of `other` (not its stacks, frames or event types), their threads
    /// renamed by `thread` and their stacks `stack_offset` further on (where
    /// [`StackTable::append`] put `other`'s stacks).
    pub(crate) fn append_samples(
        &mut self,
        other: &Samples,
        thread: impl Fn(ThreadId) -> ThreadId,
        stack_offset: u32,
    ) {
        self.thread.extend(other.thread.iter().map(|&t| thread(t)));
        self.time.extend_from_slice(&other.time);
        let moved = |s: u32| {
            if s == Self::NO_STACK {
                s
            } else {
                s + stack_offset
            }
        };
        self.stack.extend(other.stack.iter().map(|&s| moved(s)));
        self.weight.extend_from_slice(&other.weight);
        self.meta.extend_from_slice(&other.meta);
    }

    /// Makes room for `n` more samples.
    pub fn reserve(&mut self, n: usize) {
        self.thread.reserve(n);
        self.time.reserve(n);
        self.stack.reserve(n);
        self.weight.reserve(n);
        self.meta.reserve(n);
    }

    pub fn len(&self) -> usize {
        self.thread.len()
    }

    pub fn is_empty(&self) -> bool {
        self.thread.is_empty()
    }

    /// The `i`-th sample.
    pub fn get(&self, i: usize) -> Sample {
        let stack = self.stack[i];
        Sample {
            thread: self.thread[i],
            time: self.time[i],
            stack: (stack != Self::NO_STACK).then_some(StackId(stack)),
            weight: self.weight[i],
            meta: self.meta[i],
        }
    }

    /// Every sample, in file order.
    pub fn iter(&self) -> impl Iterator<Item = Sample> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The sample times, in file order.
    pub fn times(&self) -> &[u64] {
        &self.time
    }

    /// The sample threads, in file order.
    pub fn threads(&self) -> &[ThreadId] {
        &self.thread
    }

    /// Moves every time by `f` (the reader converts the file's clock to axis ticks at the end).
    pub(crate) fn map_times(&mut self, f: impl Fn(u64) -> u64) {
        for t in &mut self.time {
            *t = f(*t);
        }
        for c in &mut self.context_switches {
            c.time = f(c.time);
        }
    }

    /// Renumbers the threads by `f` (the reader orders its threads once they are all known).
    pub(crate) fn map_threads(&mut self, f: impl Fn(ThreadId) -> ThreadId) {
        for t in &mut self.thread {
            *t = f(*t);
        }
    }

    /// Gives each sample with a stack the stack `f(its thread, its stack)` (a transform that
    /// rewrites stacks; new stacks are pushed to [`Samples::stacks`] first).
    pub(crate) fn map_stacks(&mut self, mut f: impl FnMut(ThreadId, StackId) -> StackId) {
        for (s, &t) in self.stack.iter_mut().zip(&self.thread) {
            if *s != Self::NO_STACK {
                *s = f(t, StackId(*s)).0;
            }
        }
    }

    /// Whether a sample of `meta` counts time off the CPU (its event type's samples are taken
    /// as a thread leaves the CPU).
    pub fn is_off_cpu(&self, meta: SampleMeta) -> bool {
        self.event_types
            .get(meta.event_type())
            .is_some_and(|e| e.off_cpu)
    }

    /// The method of each frame of `stack`, root first, in `out` (cleared first).
    pub fn methods_root_first(&self, stack: Option<StackId>, out: &mut Vec<MethodId>) {
        out.clear();
        if let Some(s) = stack {
            out.extend(self.stacks.frames(s).map(|f| self.frames.method(f)));
        }
        out.reverse();
    }

    /// Drops the room kept for more samples.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.thread.shrink_to_fit();
        self.time.shrink_to_fit();
        self.stack.shrink_to_fit();
        self.weight.shrink_to_fit();
        self.meta.shrink_to_fit();
    }

    /// Heap bytes of the table.
    pub fn heap_bytes(&self) -> usize {
        self.len() * (4 + 8 + 4 + 8 + 2) + self.stacks.len() * 8 + self.frames.len() * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_meta_round_trips() {
        for (e, t) in [
            (0, false),
            (0, true),
            (7, true),
            (SampleMeta::MAX_EVENT_TYPE, false),
        ] {
            let m = SampleMeta::new(e, t);
            assert_eq!((m.event_type(), m.truncated()), (usize::from(e), t));
        }
    }

    #[test]
    fn stacks_walk_leaf_to_root() {
        let mut frames = Frames::default();
        let (a, b) = (
            frames.push(MethodId(0), ExecKind::Native),
            frames.push(MethodId(1), ExecKind::Jit),
        );
        let mut t = StackTable::default();
        let root = t.push(None, a);
        let leaf = t.push(Some(root), b);
        assert_eq!(t.frames(leaf).collect::<Vec<_>>(), vec![b, a]);
        assert_eq!(frames.method_kind(MethodId(1)), Some(ExecKind::Jit));
        assert_eq!(frames.method_kind(MethodId(2)), None);
        let mut s = Samples {
            stacks: t,
            frames,
            ..Samples::default()
        };
        s.push(Sample {
            thread: ThreadId(0),
            time: 5,
            stack: Some(leaf),
            weight: 10,
            meta: SampleMeta::new(0, false),
        });
        let mut path = Vec::new();
        s.methods_root_first(s.get(0).stack, &mut path);
        assert_eq!(path, vec![MethodId(0), MethodId(1)]);
    }
}
