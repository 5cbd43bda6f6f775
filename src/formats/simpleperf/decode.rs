//! The first step of the reader: every record decoded, in one pass over the input. Samples go
//! to the sample table at once, their stacks interned as they come, keyed by what the file says
//! of each frame (file, symbol, address, execution type); names wait for the files and threads
//! at the end ([`super::build`]).

use prost::Message;
use rustc_hash::FxHashMap;

use super::proto::{self, CallChainEntry, RecordData};
use super::{FORMAT, HEADER_LEN};
use crate::formats::{FormatError, ReadContext, cancelled};
use crate::trace::builder::ThreadCap;
use crate::trace::{
    Diagnostic, Diagnostics, ExecKind, FrameId, Location, MAX_THREADS, Sample, SampleMeta, Samples,
    Severity, StackId, StackTable, ThreadId,
};

/// A frame as the file gives it. Frames of a known symbol are one frame whatever the address in
/// it; an address without a symbol is a frame of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct FrameKey {
    pub(super) file_id: u32,
    /// -1 (or any negative value) when the function is not known.
    pub(super) symbol_id: i32,
    /// The address in the file when the symbol is not known; 0 otherwise.
    pub(super) vaddr: u64,
    pub(super) kind: ExecKind,
}

impl FrameKey {
    fn of(e: &CallChainEntry) -> Self {
        let symbol_id = e.symbol_id.unwrap_or(-1);
        FrameKey {
            file_id: e.file_id.unwrap_or(0),
            symbol_id,
            vaddr: if symbol_id < 0 {
                e.vaddr_in_file.unwrap_or(0)
            } else {
                0
            },
            kind: match e.execution_type.unwrap_or(0) {
                1 => ExecKind::Interpreted,
                2 => ExecKind::Jit,
                3 => ExecKind::Art,
                _ => ExecKind::Native,
            },
        }
    }
}

/// A thread as the samples name it, and the stack of its last sample (root first): the next
/// sample of a thread mostly shares its caller frames, which are then not looked up again.
#[derive(Default)]
struct ThreadState {
    keys: Vec<FrameKey>,
    stacks: Vec<StackId>,
}

/// What the records say, before names are resolved.
#[derive(Default)]
pub(super) struct Decoded {
    /// Thread ids are those of the sample's thread in [`Decoded::tids`] (by first sample);
    /// times are the file's ns; frames are [`Decoded::frames`].
    pub(super) samples: Samples,
    pub(super) frames: Vec<FrameKey>,
    /// The thread id in the file of each thread of the samples, in order of first sample.
    pub(super) tids: Vec<i32>,
    /// The `Thread` records: (process id, name) by thread id.
    pub(super) thread_info: FxHashMap<i32, (u32, String)>,
    /// The `File` records: (path, symbols) by file id.
    pub(super) files: FxHashMap<u32, (String, Vec<String>)>,
    pub(super) meta: Option<proto::MetaInfo>,
    /// Σ `LostSituation` (samples, lost), when there is one.
    pub(super) lost: Option<(u64, u64)>,
    /// The largest event type id of a sample.
    pub(super) max_event_type: Option<u32>,
    /// Context switches: (thread id in the file, time in ns, scheduled on the CPU).
    pub(super) switches: Vec<(i32, u64, bool)>,
    pub(super) truncated_stacks: u64,
    pub(super) records: u64,
    pub(super) diagnostics: Diagnostics,
}

/// The decoder's state besides what it returns: the interning tables and the threads' last
/// stacks.
#[derive(Default)]
struct Decoder {
    out: Decoded,
    frame_ids: FxHashMap<FrameKey, FrameId>,
    /// Stack ids by (caller stack or [`u32::MAX`], frame).
    stack_ids: FxHashMap<(u32, u32), StackId>,
    thread_ids: FxHashMap<i32, ThreadId>,
    threads: Vec<ThreadState>,
    thread_cap: ThreadCap,
}

/// Records between two looks at the cancel flag.
const CANCEL_CHECK: u64 = 1 << 14;

/// Decodes every record of `bytes` (header checked by the caller).
pub(super) fn decode(bytes: &[u8], ctx: &ReadContext) -> Result<Decoded, FormatError> {
    let mut d = Decoder::default();
    let mut pos = HEADER_LEN;
    let mut released = 0;
    let mut reported = pos;
    let mut ended = false;
    let mut cut = false;
    while let Some(size) = bytes.get(pos..pos + 4) {
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        if size == 0 {
            ended = true;
            pos += 4;
            break;
        }
        let body = pos + 4;
        let Some(record) = bytes.get(body..).and_then(|rest| rest.get(..size)) else {
            d.out.diagnostics.push(Diagnostic::warning(
                "truncated",
                Location::Offset(pos as u64),
                format!(
                    "the file ends inside a record of {size} bytes ({} bytes left): the records before it are kept",
                    bytes.len() - body
                ),
            ));
            pos = bytes.len();
            cut = true;
            break;
        };
        match proto::Record::decode(record) {
            Ok(r) => d.record(r),
            Err(e) => d.out.diagnostics.push_lazy("bad-record", || {
                Diagnostic::warning(
                    "bad-record",
                    Location::Offset(pos as u64),
                    format!("a record of {size} bytes is not a valid Record message ({e}); it was skipped"),
                )
            }),
        }
        d.out.records += 1;
        pos = body + size;
        if d.out.records % CANCEL_CHECK == 0 {
            if ctx.progress.is_cancelled() {
                return Err(cancelled(FORMAT));
            }
            ctx.progress.add_bytes((pos - reported) as u64);
            ctx.progress.add_records(CANCEL_CHECK);
            reported = pos;
        }
        ctx.done_up_to(bytes, pos, &mut released);
    }
    if !ended && !cut {
        d.out.diagnostics.push(Diagnostic::warning(
            "truncated",
            Location::Offset(pos as u64),
            "the file ends without its end record (a size of 0): it may have been cut short",
        ));
    } else if ended && pos < bytes.len() {
        d.out.diagnostics.push(Diagnostic::new(
            Severity::Info,
            "after-end",
            Location::Offset(pos as u64),
            format!(
                "{} bytes after the end record were not read",
                bytes.len() - pos
            ),
        ));
    }
    ctx.progress.add_bytes(pos.saturating_sub(reported) as u64);
    if let Some(diag) = d.thread_cap.diagnostic("samples") {
        d.out.diagnostics.push(diag);
    }
    Ok(d.out)
}

impl Decoder {
    fn record(&mut self, r: proto::Record) {
        let Some(data) = r.record_data else {
            return;
        };
        match data {
            RecordData::Sample(s) => self.sample(s),
            RecordData::Lost(l) => {
                let (samples, lost) = self.out.lost.get_or_insert((0, 0));
                *samples = samples.saturating_add(l.sample_count.unwrap_or(0));
                *lost = lost.saturating_add(l.lost_count.unwrap_or(0));
            }
            RecordData::File(f) => {
                let id = f.id.unwrap_or(0);
                let path = f.path.unwrap_or_default();
                self.out.files.entry(id).or_insert((path, f.symbol));
            }
            RecordData::Thread(t) => {
                let tid = t.thread_id.unwrap_or(0) as i32;
                let info = (t.process_id.unwrap_or(0), t.thread_name.unwrap_or_default());
                self.out.thread_info.insert(tid, info);
            }
            RecordData::MetaInfo(m) => self.out.meta = Some(m),
            RecordData::ContextSwitch(c) => {
                let tid = c.thread_id.unwrap_or(0) as i32;
                let on = c.switch_on.unwrap_or(false);
                self.out.switches.push((tid, c.time.unwrap_or(0), on));
            }
        }
    }

    /// The thread of a sample of thread `tid`, None past [`MAX_THREADS`] threads.
    fn thread(&mut self, tid: i32) -> Option<ThreadId> {
        if let Some(&t) = self.thread_ids.get(&tid) {
            return Some(t);
        }
        if !self.thread_cap.admits(self.out.tids.len(), || false) {
            return None;
        }
        debug_assert!(self.out.tids.len() < MAX_THREADS);
        let t = ThreadId(self.out.tids.len() as u32);
        self.thread_ids.insert(tid, t);
        self.out.tids.push(tid);
        self.threads.push(ThreadState::default());
        Some(t)
    }

    fn sample(&mut self, s: proto::Sample) {
        let Some(thread) = self.thread(s.thread_id.unwrap_or(0)) else {
            return;
        };
        let stack = self.stack(thread, &s.callchain);
        let event_type = s.event_type_id.unwrap_or(0);
        self.out.max_event_type = self.out.max_event_type.max(Some(event_type));
        let truncated = s
            .unwinding_result
            .is_some_and(|u| u.error_code.unwrap_or(0) != 0);
        self.out.truncated_stacks += u64::from(truncated);
        let clamped = event_type.min(u32::from(SampleMeta::MAX_EVENT_TYPE)) as u16;
        self.out.samples.push(Sample {
            thread,
            time: s.time.unwrap_or(0),
            stack,
            weight: s.event_count.unwrap_or(0),
            meta: SampleMeta::new(clamped, truncated),
        });
    }

    /// The stack of `chain` (leaf first) on `thread`: the frames it shares at its root with the
    /// thread's previous sample are that sample's stacks; the rest are looked up or added.
    fn stack(&mut self, thread: ThreadId, chain: &[CallChainEntry]) -> Option<StackId> {
        let state = &mut self.threads[thread.index()];
        let shared = chain
            .iter()
            .rev()
            .zip(&state.keys)
            .take_while(|(e, k)| FrameKey::of(e) == **k)
            .count();
        state.keys.truncate(shared);
        state.stacks.truncate(shared);
        for e in chain.iter().rev().skip(shared) {
            let key = FrameKey::of(e);
            let frames = &mut self.out.frames;
            let frame = *self.frame_ids.entry(key).or_insert_with(|| {
                frames.push(key);
                FrameId(frames.len() as u32 - 1)
            });
            let parent = state.stacks.last().copied();
            let table: &mut StackTable = &mut self.out.samples.stacks;
            let stack = *self
                .stack_ids
                .entry((parent.map_or(u32::MAX, |p| p.0), frame.0))
                .or_insert_with(|| table.push(parent, frame));
            state.keys.push(key);
            state.stacks.push(stack);
        }
        state.stacks.last().copied()
    }
}
