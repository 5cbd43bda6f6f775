//! Pass 2 of the data decoder into record sinks: workers each own a set of threads and hand
//! those threads' records to their sink as they are decoded (other threads' runs are skipped
//! unread); nothing is stored.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

/// Decodes the records of `data` into sinks instead of `b`'s threads, storing none of them: the
/// threads are balanced over the rayon workers by their record counts, and each worker reads its
/// threads' runs of records and hands them to its own sink in file order. `b` gets what
/// [`decode`] gives it except the events: the thread table, the record count, the `(unknown)`
/// method and the same diagnostics. `pass1`: [`count_records`]' result for `section` (without
/// `synth`), if it was made already.
pub(crate) fn decode_to_sinks<'a, F: SinkFactory>(
    b: &mut Builder,
    mut tables: Tables,
    section: Section<'a>,
    ctx: &ReadContext,
    factory: &F,
    pass1: Option<RecordCounts<'a>>,
) -> Result<Vec<F::Sink>, FormatError> {
    let counted = count_section(b, &mut tables, &section, false, ctx, pass1)?;
    crate::timing::mark("records counted");
    let (has_t2, clock) = (section.has_t2(), section.clock);
    let threads: Vec<u32> = (0..counted.totals.len() as u32)
        .filter(|&g| counted.totals[g as usize] > 0)
        .collect();
    let unknown_id = b.methods.len() as u32;
    let method_count = b.methods.len() + 1;
    let workers = rayon::current_num_threads()
        .min(factory.max_workers(method_count, counted.totals.iter().sum::<usize>() / 2))
        .max(1);
    let bins = crate::par::balance(threads, |&g| counted.totals[g as usize], workers);
    // Each worker's table: thread id in the records → its slot, or NONE.
    let tid_count = if counted.tid_bytes == 1 { 256 } else { 65536 };
    let mut slot_of_tid = vec![vec![NONE; tid_count]; bins.len()];
    let mut owner = vec![(NONE, NONE); counted.totals.len()];
    for (w, bin) in bins.iter().enumerate() {
        for (slot, &g) in bin.iter().enumerate() {
            owner[g as usize] = (w as u32, slot as u32);
        }
    }
    for (tid, &g) in tables.thread_of_tid.iter().take(tid_count).enumerate() {
        if let Some(&(w, slot)) = owner.get(g as usize)
            && w != NONE
        {
            slot_of_tid[w as usize][tid] = slot;
        }
    }
    let lookup = &tables.methods;
    let progress = ctx.progress;
    let scan = SinkScan {
        chunks: &counted.chunks,
        counts: &counted.counts,
        rs: counted.record_size,
        chunk_records: counted.chunk_records,
        lookup,
        unknown_id,
        passed: &(0..counted.chunks.len())
            .map(|_| AtomicUsize::new(0))
            .collect::<Vec<_>>(),
        workers: bins.len(),
    };
    let results: Vec<(F::Sink, Unknown)> = bins
        .par_iter()
        .zip(slot_of_tid)
        .enumerate()
        .map(|(w, (threads, slots))| {
            let mut sink = factory.sink(threads, clock, method_count);
            // One worker reports progress (every worker goes through every chunk).
            let report = (w == 0).then_some(progress);
            macro_rules! run {
                ($tb:literal, $t2:literal, $rs:literal) => {
                    scan.run::<$tb, $t2, $rs, _>(&slots, &mut sink, ctx, report)
                };
            }
            let unknown = by_layout!(counted.tid_bytes, has_t2, counted.record_size, run);
            crate::timing::mark("worker walked its threads");
            (sink, unknown)
        })
        .collect();
    if progress.is_cancelled() {
        return Err(cancelled(FORMAT_TRACE));
    }
    let (sinks, unknown): (Vec<F::Sink>, Vec<Unknown>) = results.into_iter().unzip();
    unknown_and_invalid(b, &counted, sum_unknown(unknown));
    Ok(sinks)
}

/// One worker's scan of the record area for [`decode_to_sinks`].
pub(super) struct SinkScan<'a> {
    pub(super) chunks: &'a [&'a [u8]],
    pub(super) counts: &'a [ChunkCount],
    pub(super) rs: usize,
    pub(super) chunk_records: usize,
    pub(super) lookup: &'a crate::formats::android::MethodLookup,
    pub(super) unknown_id: u32,
    /// How many workers went through each chunk: the last one gives its input back.
    pub(super) passed: &'a [AtomicUsize],
    pub(super) workers: usize,
}

impl SinkScan<'_> {
    /// Hands the records of the threads in `slot_of_tid` to `sink`; returns the count and first
    /// index of those records that name method ids missing from the key.
    pub(super) fn run<const TB: usize, const T2: bool, const RS: usize, S: RecordSink>(
        &self,
        slot_of_tid: &[u32],
        sink: &mut S,
        ctx: &ReadContext,
        report: Option<&crate::formats::Progress>,
    ) -> Unknown {
        let progress = ctx.progress;
        let mut unknown = (0u64, None);
        let slot_of = |tid: usize| slot_of_tid.get(tid).copied().unwrap_or(NONE);
        for (ci, (chunk, counted)) in self.chunks.iter().zip(self.counts).enumerate() {
            if progress.is_cancelled() {
                break;
            }
            let base = ci * self.chunk_records;
            match &counted.runs {
                // Other threads' runs are skipped unread.
                Some(runs) => {
                    for run in runs {
                        let slot = slot_of(run.tid as usize);
                        if slot == NONE {
                            continue;
                        }
                        let (start, end) = (run.start as usize, run.end as usize);
                        let records = &chunk[start * self.rs..end * self.rs];
                        each_record::<RS>(records, self.rs, |i, r| {
                            self.deliver::<TB, T2, S>(sink, &mut unknown, base + start + i, slot, r)
                        });
                    }
                }
                None => each_record::<RS>(chunk, self.rs, |i, r| {
                    let tid = if TB == 1 {
                        r[0] as usize
                    } else {
                        u16::from_le_bytes([r[0], r[1]]) as usize
                    };
                    let slot = slot_of(tid);
                    if slot != NONE {
                        self.deliver::<TB, T2, S>(sink, &mut unknown, base + i, slot, r);
                    }
                }),
            }
            if let Some(p) = report {
                p.add_bytes(chunk.len() as u64);
                p.add_records((chunk.len() / self.rs) as u64);
            }
            if self.passed[ci].fetch_add(1, Ordering::Relaxed) + 1 == self.workers {
                ctx.done_with(chunk);
            }
        }
        unknown
    }

    /// Hands record `index` (of the whole area), of thread `slot`, to `sink`, counting it in
    /// `unknown` if its method id is missing from the key.
    #[inline(always)]
    pub(super) fn deliver<const TB: usize, const T2: bool, S: RecordSink>(
        &self,
        sink: &mut S,
        unknown: &mut Unknown,
        index: usize,
        slot: u32,
        r: &[u8],
    ) {
        let rec = decode_record(r, TB, T2);
        let action = rec.op & 3;
        if action == 3 {
            return;
        }
        let mut m = self.lookup.get(rec.op & !3);
        if m == NONE {
            unknown.0 += 1;
            unknown.1.get_or_insert(index);
            m = self.unknown_id;
        }
        sink.record(slot as usize, m << 2 | action, rec.time1, rec.time2);
    }
}
