//! The first step of the reader: every record decoded. Samples go to the sample table at once,
//! their stacks interned as they come, keyed by what the file says of each frame (file, symbol,
//! address, execution type); names wait for the files and threads at the end
//! ([`super::build`]).
//!
//! **Samples** are nearly every record: they are walked in place ([`super::wire`]) only up to
//! the frames they share, byte for byte, with their thread's previous sample ([`super::chain`]);
//! the frames read are compared with that sample's by key before anything is looked up, with no
//! allocation per sample. The other records, and a record that is not one plain `Sample`, go
//! through prost.
//!
//! **In parallel.** A pass over the 4-byte record sizes cuts the records into chunks of about
//! [`CHUNK_BYTES`], a batch of chunks while the batch before it is decoded. The chunks are
//! decoded on rayon's threads, a batch at a time, each into tables of its own (frames, stacks,
//! threads, numbered in order of first appearance in the chunk), then appended in file order
//! while the next batch is decoded: each chunk's frames and threads are looked up in, or added
//! to, the tables of the chunks before it, so frame and thread ids are the ones a single pass
//! over the file gives, whatever the number of chunks. A chunk's stack table is appended whole, its ids moved
//! past those before it: a stack is interned **within its chunk** (no two stacks of one chunk are
//! the same frames), and a stack sampled in two chunks has an id in each. Interning across the
//! whole file would look every stack up once more in one table of millions of entries, on one core,
//! with a cache miss a lookup; a chunk's table stays in the caches. Every consumer of stacks
//! (counts, exports, calls) reads a stack by its frames, never by its id.

use std::ops::Range;

use prost::Message;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::chain::{LastSample, MAX_REACH, ReadChain, Resync};
use super::frame::FrameKey;
use super::proto::{self, RecordData};
use super::split::{End, Split, TouchAhead};
use super::wire::{Fields, WireError, varint};
use super::{FORMAT, HEADER_LEN};
use crate::formats::{FormatError, ReadContext, cancelled};
use crate::trace::builder::ThreadCap;
use crate::trace::{
    Diagnostic, Diagnostics, FrameId, Location, MAX_THREADS, Sample, SampleMeta, Samples, Severity,
    StackId, ThreadId,
};

/// The bytes of records a chunk holds (at least; a chunk ends at a record's end). Its tables
/// (about a new stack per 200 bytes of samples in generated recordings) stay in the caches:
/// measured on a 1 GB recording, chunks of 1 to 2 MiB take 30 to 40 % less CPU time than chunks
/// of 32 MiB, for a stack table about 10 % longer than one interned over the whole file.
const CHUNK_BYTES: usize = 2 << 20;

/// How far ahead of the record it decodes a chunk's decoder brings the file into the caches
/// again: a batch of chunks is more than the L2 cache holds.
const DECODE_AHEAD: usize = 2 << 10;

/// The bytes of samples per new stack, and per new frame, that a chunk's tables make room
/// for at its start (generated recordings: a new stack per 200 to 300 bytes).
const BYTES_PER_NEW_STACK: usize = 256;
const BYTES_PER_NEW_FRAME: usize = 1024;

/// The chunks of a batch, per worker thread (see [`decode_in_chunks`]). A batch ends when its
/// last chunk is decoded, the other threads idle meanwhile: with 16 chunks a thread that wait is
/// a few per cent of the decoding (measured on a 1 GB recording, 2 threads: 10 % less wall time
/// than with 4).
const CHUNKS_PER_THREAD: usize = 16;

/// A `Sample` message's fields besides its callchain.
#[derive(Default)]
struct SampleFields {
    time: u64,
    thread_id: i32,
    event_count: u64,
    event_type: u32,
    /// The unwinding result's error code, 0 (`ERROR_NONE`) when it has none.
    unwind_error: u32,
}

impl SampleFields {
    /// Reads a `Sample` message as simpleperf writes it (one-byte keys, varints, the frames'
    /// messages back to back), its frames into `chain`. At the first frame, `resync` is asked
    /// with the thread id read so far where the message may continue as that thread's last
    /// sample; from there on the frames are that sample's root frames, not read
    /// ([`super::chain`]). None for any other message, and for any error:
    /// [`SampleFields::read_whole`] reads it again.
    #[inline(always)]
    fn read<'l>(
        message: &[u8],
        chain: &mut ReadChain,
        resync: impl FnOnce(i32) -> Option<Resync<'l>>,
    ) -> Option<Self> {
        chain.clear();
        // Offsets in the message are u32.
        u32::try_from(message.len()).ok()?;
        let mut s = SampleFields::default();
        let mut find = Some(resync);
        let (mut resync, mut resync_tid) = (None, 0);
        let mut rest = message;
        // The offset in the message of what is left of it.
        let at = |rest: &[u8]| (message.len() - rest.len()) as u32;
        while let Some((&key, after)) = rest.split_first() {
            let start = at(rest);
            rest = after;
            match key {
                0x1a => {
                    if let Some(find) = find.take() {
                        resync = find(s.thread_id);
                        resync_tid = s.thread_id;
                    }
                    // A frame after the shared ones, which were the last sample's root frames.
                    if chain.shared() > 0 {
                        return None;
                    }
                    if let Some(r) = &mut resync
                        && let Some(shared) = r.shared_from(start)
                    {
                        chain.take_rest(start, shared, r.end());
                        rest = &message[r.end() as usize..];
                        continue;
                    }
                    let entry = length_delimited(&mut rest).ok()?;
                    chain.read(start, entry, at(rest)).ok()?;
                }
                0x08 => s.time = varint(&mut rest).ok()?,
                0x10 => s.thread_id = varint(&mut rest).ok()? as i32,
                0x20 => s.event_count = varint(&mut rest).ok()?,
                0x28 => s.event_type = varint(&mut rest).ok()? as u32,
                0x32 => {
                    let result = length_delimited(&mut rest).ok()?;
                    s.read_unwinding_result(result).ok()?;
                }
                _ => return None,
            }
        }
        // The shared frames are those of the thread whose last sample they matched.
        (chain.shared() == 0 || resync_tid == s.thread_id).then_some(s)
    }

    /// [`SampleFields::read`] of any message, every frame read, its errors those of reading
    /// every field and then the frames root first (the first invalid frame from the root
    /// is the one reported).
    #[cold]
    fn read_whole(message: &[u8], chain: &mut ReadChain) -> Result<Self, WireError> {
        let mut s = SampleFields::default();
        let mut entries = Vec::new();
        let mut fields = Fields::new(message);
        while let Some((field, value)) = fields.next_field()? {
            match field {
                1 => s.time = value.varint(1)?,
                2 => s.thread_id = value.varint(2)? as i32,
                3 => entries.push(value.bytes(3)?),
                4 => s.event_count = value.varint(4)?,
                5 => s.event_type = value.varint(5)? as u32,
                6 => s.read_unwinding_result(value.bytes(6)?)?,
                _ => {}
            }
        }
        chain.read_whole(&entries)?;
        Ok(s)
    }

    /// Reads an `UnwindingResult` message. One given twice is merged: a later error code
    /// replaces an earlier.
    fn read_unwinding_result(&mut self, message: &[u8]) -> Result<(), WireError> {
        let mut result = Fields::new(message);
        while let Some((field, value)) = result.next_field()? {
            if field == 3 {
                self.unwind_error = value.varint(3)? as u32;
            } else if field <= 2 {
                value.varint(field)?;
            }
        }
        Ok(())
    }
}

/// Reads a length and that many bytes at the start of `buf`, and moves `buf` past them.
#[inline(always)]
fn length_delimited<'a>(buf: &mut &'a [u8]) -> Result<&'a [u8], WireError> {
    let len = varint(buf)?;
    let len = usize::try_from(len).map_err(|_| WireError::Truncated)?;
    let bytes = buf.get(..len).ok_or(WireError::Truncated)?;
    *buf = &buf[len..];
    Ok(bytes)
}

/// A thread as the samples name it, and the stack of its last sample (root first): the next
/// sample of a thread mostly shares its caller frames, which are then not read or looked up
/// again.
#[derive(Default)]
struct ThreadState<'a> {
    keys: Vec<FrameKey>,
    /// The stack of each frame of `keys` (that of frames `0..=i`).
    stacks: Vec<StackId>,
    /// The last sample as the file wrote it.
    last: LastSample<'a>,
}

impl ThreadState<'_> {
    /// Where sample `message` of this thread may continue as its last sample.
    fn resync(&self, message: &[u8]) -> Option<Resync<'_>> {
        self.last.resync(self.keys.len(), message)
    }
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

/// The decoder of a run of records of input `'a`: what it returns, and its interning tables
/// and the threads' last stacks. Readers of other layouts of the same samples (perf.data) fill
/// one too, through [`Decoder::add_sample`] and `out`.
#[derive(Default)]
pub(super) struct Decoder<'a> {
    pub(super) out: Decoded,
    ids: Interner,
    thread_ids: FxHashMap<i32, ThreadId>,
    threads: Vec<ThreadState<'a>>,
    thread_cap: ThreadCap,
    /// The frames of the sample being read.
    chain: ReadChain,
}

/// The ids of the frames and stacks of [`Decoded::frames`] and [`Decoded::samples`]' stacks.
#[derive(Default)]
struct Interner {
    frame_ids: FxHashMap<FrameKey, FrameId>,
    /// Stack ids by (caller stack or [`u32::MAX`], frame).
    stack_ids: FxHashMap<(u32, u32), StackId>,
}

impl Interner {
    /// Makes room for the frames and stacks of about `bytes` bytes of samples.
    fn reserve_for(&mut self, bytes: usize) {
        self.frame_ids.reserve(bytes / BYTES_PER_NEW_FRAME);
        self.stack_ids.reserve(bytes / BYTES_PER_NEW_STACK);
    }

    fn frame(&mut self, out: &mut Decoded, key: FrameKey) -> FrameId {
        // Most frames are known: looked up by reference, the key is not moved into an entry
        // first (3 % less time on a generated random walk).
        if let Some(&id) = self.frame_ids.get(&key) {
            return id;
        }
        let id = FrameId(out.frames.len() as u32);
        out.frames.push(key);
        self.frame_ids.insert(key, id);
        id
    }

    fn stack(&mut self, out: &mut Decoded, parent: Option<StackId>, frame: FrameId) -> StackId {
        let table = &mut out.samples.stacks;
        *self
            .stack_ids
            .entry((parent.map_or(u32::MAX, |p| p.0), frame.0))
            .or_insert_with(|| table.push(parent, frame))
    }

    /// Keeps the first `same` frames of `state` (root first) and adds `rest` after them.
    fn extend_stack(
        &mut self,
        out: &mut Decoded,
        state: &mut ThreadState,
        same: usize,
        rest: impl Iterator<Item = FrameKey>,
    ) {
        state.keys.truncate(same);
        state.stacks.truncate(same);
        for key in rest {
            let frame = self.frame(out, key);
            let stack = self.stack(out, state.stacks.last().copied(), frame);
            state.keys.push(key);
            state.stacks.push(stack);
        }
    }
}

/// Why a record was skipped.
enum BadRecord {
    Wire(WireError),
    Prost(prost::DecodeError),
}

impl From<WireError> for BadRecord {
    fn from(e: WireError) -> Self {
        BadRecord::Wire(e)
    }
}

impl std::fmt::Display for BadRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadRecord::Wire(e) => e.fmt(f),
            BadRecord::Prost(e) => e.fmt(f),
        }
    }
}

/// Records between two looks at the cancel flag.
const CANCEL_CHECK: u64 = 1 << 14;

/// Decodes every record of `bytes` (header checked by the caller).
pub(super) fn decode(bytes: &[u8], ctx: &ReadContext) -> Result<Decoded, FormatError> {
    decode_in_chunks(bytes, ctx, CHUNK_BYTES)
}

fn decode_in_chunks(
    bytes: &[u8],
    ctx: &ReadContext,
    chunk_bytes: usize,
) -> Result<Decoded, FormatError> {
    let mut split = Split::new(bytes, chunk_bytes);
    let mut d = Decoder::default();
    // A batch of chunks at a time. While one batch is decoded, the one before it is appended and
    // the one after it cut, on the same threads: those are the parts that can only go in file
    // order, and they would leave the other threads idle. The chunks' own tables wait beside
    // the file's for two batches at most.
    let batch = CHUNKS_PER_THREAD * rayon::current_num_threads();
    let cut = |split: &mut Split| -> Vec<Range<usize>> {
        std::iter::from_fn(|| split.next_chunk())
            .take(batch)
            .collect()
    };
    let mut chunks = cut(&mut split);
    // Room for the samples of the file's records if they are as long as the first batch's: only
    // what is filled becomes resident.
    let per_record = (split.pos - HEADER_LEN) / split.records.max(1);
    d.out
        .samples
        .reserve(bytes.len() / per_record.max(1) + split.records);
    let mut decoded: Vec<Decoder> = Vec::new();
    while !chunks.is_empty() {
        let (next, cut_next) = rayon::join(
            || {
                chunks
                    .par_iter()
                    .map(|range| Decoder::chunk(bytes, range.clone(), ctx))
                    .collect::<Result<Vec<_>, _>>()
            },
            || {
                for done in decoded.drain(..) {
                    d.append(done);
                }
                cut(&mut split)
            },
        );
        decoded = next?;
        chunks = cut_next;
    }
    for done in decoded {
        d.append(done);
    }
    // The chunks reported their records' bytes; the end record or the cut tail remain.
    let tail = match split.end() {
        End::Ended { pos } => {
            if pos < bytes.len() {
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
            4
        }
        End::Cut { pos, size } => {
            d.out.diagnostics.push(Diagnostic::warning(
                "truncated",
                Location::Offset(pos as u64),
                format!(
                    "the file ends inside a record of {size} bytes ({} bytes left): the records before it are kept",
                    bytes.len() - (pos + 4)
                ),
            ));
            bytes.len() - pos
        }
        End::Unended { pos } => {
            d.out.diagnostics.push(Diagnostic::warning(
                "truncated",
                Location::Offset(pos as u64),
                "the file ends without its end record (a size of 0): it may have been cut short",
            ));
            0
        }
    };
    ctx.progress.add_bytes(tail as u64);
    Ok(d.finish())
}

impl<'a> Decoder<'a> {
    /// Decodes the records of `bytes[range]`, whole records.
    fn chunk(bytes: &'a [u8], range: Range<usize>, ctx: &ReadContext) -> Result<Self, FormatError> {
        let mut d = Decoder::default();
        d.ids.reserve_for(range.len());
        let (mut pos, mut released, mut reported) = (range.start, range.start, range.start);
        let mut ahead = TouchAhead::from(range.start);
        while pos < range.end {
            ahead.up_to(bytes, (pos + DECODE_AHEAD).min(range.end));
            let size = &bytes[pos..pos + 4];
            let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
            let body = pos + 4;
            if let Err(e) = d.record(&bytes[body..body + size]) {
                d.out.diagnostics.push_lazy("bad-record", || {
                    Diagnostic::warning(
                        "bad-record",
                        Location::Offset(pos as u64),
                        format!("a record of {size} bytes is not a valid Record message ({e}); it was skipped"),
                    )
                });
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
            // The input a thread's last sample may still be compared from is kept.
            ctx.done_up_to(
                bytes,
                pos.saturating_sub(MAX_REACH).max(released),
                &mut released,
            );
        }
        ctx.progress.add_bytes((pos - reported) as u64);
        // The thread states that could read the input kept behind are dropped with the chunk.
        ctx.done_with(&bytes[released..pos]);
        ahead.finish();
        // What only decoding needs goes before the chunk waits for those before it.
        d.ids = Interner::default();
        d.thread_ids = FxHashMap::default();
        d.threads = Vec::new();
        Ok(d)
    }

    /// Decodes one record: a plain `Sample` in place, anything else through prost.
    fn record(&mut self, record: &'a [u8]) -> Result<(), BadRecord> {
        // A record that is one `Sample` field, as simpleperf writes them.
        if let Some((&0x0a, mut rest)) = record.split_first()
            && let Ok(sample) = length_delimited(&mut rest)
            && rest.is_empty()
        {
            return Ok(self.sample(sample)?);
        }
        let mut fields = Fields::new(record);
        let mut sample = None;
        let mut plain = true;
        while let Some((field, value)) = fields.next_field()? {
            match field {
                1 if sample.is_none() => sample = Some(value.bytes(1)?),
                1..=6 => {
                    value.bytes(field)?;
                    plain = false;
                }
                _ => {}
            }
        }
        match sample {
            Some(sample) if plain => Ok(self.sample(sample)?),
            _ => self.other_record(record),
        }
    }

    /// A record that is not one plain `Sample`: several of the record's fields set (the last
    /// one counts, two samples merge), or another message.
    fn other_record(&mut self, record: &[u8]) -> Result<(), BadRecord> {
        let r = proto::Record::decode(record).map_err(BadRecord::Prost)?;
        let Some(data) = r.record_data else {
            return Ok(());
        };
        match data {
            RecordData::Sample(s) => self.decoded_sample(&s),
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
        Ok(())
    }

    /// Adds a sample that prost decoded.
    fn decoded_sample(&mut self, s: &proto::Sample) {
        let chain: Vec<FrameKey> = s
            .callchain
            .iter()
            .map(|e| {
                FrameKey::new(
                    e.file_id.unwrap_or(0),
                    e.symbol_id.unwrap_or(-1),
                    e.vaddr_in_file.unwrap_or(0),
                    e.execution_type.unwrap_or(0),
                )
            })
            .collect();
        let unwind_error = s.unwinding_result.and_then(|u| u.error_code).unwrap_or(0);
        self.add_sample(
            s.thread_id.unwrap_or(0),
            s.time.unwrap_or(0),
            &chain,
            s.event_count.unwrap_or(0),
            s.event_type_id.unwrap_or(0),
            unwind_error != 0,
        );
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

    /// Adds sample `message`: only the frames before those it shares with its thread's last
    /// sample, byte for byte, are read, and only those that are not that sample's by key are
    /// looked up ([`super::chain`]).
    fn sample(&mut self, message: &'a [u8]) -> Result<(), WireError> {
        let (s, known) = self.read_sample(message)?;
        let Some(thread) = known.or_else(|| self.thread(s.thread_id)) else {
            return Ok(());
        };
        let state = &mut self.threads[thread.index()];
        let chain = &self.chain;
        let shared = chain.shared();
        let read = chain.keys.iter().rev().copied();
        let same = shared
            + state.keys[shared..]
                .iter()
                .zip(read.clone())
                .take_while(|&(&a, b)| a == b)
                .count();
        self.ids
            .extend_stack(&mut self.out, state, same, read.skip(same - shared));
        state.last.remember(message, chain);
        let stack = state.stacks.last().copied();
        self.push_sample(
            thread,
            s.time,
            stack,
            s.event_count,
            s.event_type,
            s.unwind_error != 0,
        );
        Ok(())
    }

    /// Reads sample `message`, its frames into `self.chain`; and its thread when it is known.
    /// Nothing changes before the whole message is read: a frame may be invalid.
    #[inline(always)]
    fn read_sample(
        &mut self,
        message: &[u8],
    ) -> Result<(SampleFields, Option<ThreadId>), WireError> {
        let (thread_ids, threads) = (&self.thread_ids, &self.threads);
        let mut looked_up = None;
        let fast = SampleFields::read(message, &mut self.chain, |tid| {
            let thread = thread_ids.get(&tid).copied();
            looked_up = Some((tid, thread));
            threads[thread?.index()].resync(message)
        });
        let s = match fast {
            Some(s) => s,
            None => SampleFields::read_whole(message, &mut self.chain)?,
        };
        let thread = match looked_up {
            Some((tid, thread)) if tid == s.thread_id => thread,
            _ => thread_ids.get(&s.thread_id).copied(),
        };
        Ok((s, thread))
    }

    /// Adds a sample of thread `tid` at `time` (the file's ns) whose frames are `chain`, leaf
    /// first, of weight `event_count` and of event type `event_type` (a file's id, clamped here);
    /// `truncated`: the unwinder stopped before the stack's root.
    pub(super) fn add_sample(
        &mut self,
        tid: i32,
        time: u64,
        chain: &[FrameKey],
        event_count: u64,
        event_type: u32,
        truncated: bool,
    ) {
        if let Some(thread) = self.thread(tid) {
            let stack = self.stack(thread, chain);
            self.push_sample(thread, time, stack, event_count, event_type, truncated);
        }
    }

    /// Adds a sample of `thread` (see [`Decoder::add_sample`]).
    fn push_sample(
        &mut self,
        thread: ThreadId,
        time: u64,
        stack: Option<StackId>,
        event_count: u64,
        event_type: u32,
        truncated: bool,
    ) {
        let clamped = event_type.min(u32::from(SampleMeta::MAX_EVENT_TYPE)) as u16;
        self.push(
            Sample {
                thread,
                time,
                stack,
                weight: event_count,
                meta: SampleMeta::new(clamped, truncated),
            },
            event_type,
        );
    }

    /// What was decoded, once every record is: the thread cap's diagnostic added.
    pub(super) fn finish(mut self) -> Decoded {
        if let Some(diag) = self.thread_cap.diagnostic("samples") {
            self.out.diagnostics.push(diag);
        }
        self.out
    }

    /// Adds a sample whose event type in the file is `event_type` (before clamping).
    fn push(&mut self, sample: Sample, event_type: u32) {
        self.out.max_event_type = self.out.max_event_type.max(Some(event_type));
        self.out.truncated_stacks += u64::from(sample.meta.truncated());
        self.out.samples.push(sample);
    }

    /// The stack of `chain` (leaf first) on `thread`: the frames it shares at its root with the
    /// thread's previous sample are that sample's stacks; the rest are looked up or added.
    fn stack(&mut self, thread: ThreadId, chain: &[FrameKey]) -> Option<StackId> {
        let state = &mut self.threads[thread.index()];
        let same = chain
            .iter()
            .rev()
            .zip(&state.keys)
            .take_while(|(a, b)| a == b)
            .count();
        let rest = chain[..chain.len() - same].iter().rev().copied();
        self.ids.extend_stack(&mut self.out, state, same, rest);
        state.last.forget();
        state.stacks.last().copied()
    }

    /// Appends the records of `next`, the chunk that follows those read so far: its frames and
    /// threads looked up in these tables or added to them, in its order; its stacks after these.
    fn append(&mut self, next: Decoder) {
        let Decoder {
            out, thread_cap, ..
        } = next;
        let frames: Vec<FrameId> = out
            .frames
            .iter()
            .map(|&k| self.ids.frame(&mut self.out, k))
            .collect();
        let base = self
            .out
            .samples
            .stacks
            .append(&out.samples.stacks, |f| frames[f.0 as usize]);
        if self.out.tids.len() + out.tids.len() <= MAX_THREADS {
            // No thread can be refused: the chunk's threads are asked for in the order of
            // their first samples, as in one pass, and its samples' columns are appended whole.
            let threads: Vec<ThreadId> = out
                .tids
                .iter()
                .map(|&t| self.thread(t).expect("fewer threads than the cap"))
                .collect();
            self.out
                .samples
                .append_samples(&out.samples, |t| threads[t.index()], base);
            self.out.truncated_stacks += out.truncated_stacks;
        } else {
            self.append_samples_capped(&out, base);
        }
        self.finish_append(out, &thread_cap);
    }

    /// Appends the samples of chunk `out`, whose stacks are `base` further here, when the
    /// thread cap may refuse some of its threads.
    fn append_samples_capped(&mut self, out: &Decoded, base: u32) {
        let stack = |s: StackId| StackId(s.0 + base);
        // A thread the cap refuses is asked for again at each of its samples, which each count
        // as left out, as in one pass.
        let mut threads: Vec<Option<ThreadId>> = vec![None; out.tids.len()];
        self.out.samples.reserve(out.samples.len());
        for s in out.samples.iter() {
            let local = s.thread.index();
            let thread = match threads[local] {
                Some(t) => t,
                None => match self.thread(out.tids[local]) {
                    Some(t) => *threads[local].insert(t),
                    None => continue,
                },
            };
            let sample = Sample {
                thread,
                stack: s.stack.map(stack),
                ..s
            };
            self.push(sample, s.meta.event_type() as u32);
        }
    }

    /// Appends what chunk `out` says besides its samples, frames and stacks.
    fn finish_append(&mut self, out: Decoded, thread_cap: &ThreadCap) {
        // Event types past the clamp keep the largest id the chunk saw.
        self.out.max_event_type = self.out.max_event_type.max(out.max_event_type);
        self.thread_cap.add(thread_cap);
        let o = &mut self.out;
        for (id, file) in out.files {
            o.files.entry(id).or_insert(file);
        }
        o.thread_info.extend(out.thread_info);
        if out.meta.is_some() {
            o.meta = out.meta;
        }
        if let Some((samples, lost)) = out.lost {
            let (s, l) = o.lost.get_or_insert((0, 0));
            *s = s.saturating_add(samples);
            *l = l.saturating_add(lost);
        }
        o.switches.extend(out.switches);
        o.records += out.records;
        o.diagnostics.append(out.diagnostics);
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
