//! Pass 1 of the data decoder: per chunk of the record area, the records of each thread (and
//! the runs of consecutive records of one thread, and for thread-CPU-only traces the CPU advance
//! inside the chunk); then the thread table, with every chunk's local thread slots mapped onto
//! the trace's threads.

use super::wraps::{TimeSpans, say_where_times_wrap};
use super::*;

/// What pass 1 learns about one chunk.
#[derive(Default)]
pub(super) struct ChunkCount {
    /// Thread ids in order of first appearance in the chunk.
    pub(super) tids: Vec<u16>,
    /// Records per entry of `tids`.
    pub(super) counts: Vec<u32>,
    /// Thread-CPU only: the first and last time1 per entry of `tids`.
    pub(super) first_t1: Vec<u32>,
    pub(super) last_t1: Vec<u32>,
    /// Thread-CPU only: CPU advance inside the chunk, not counting each thread's first record.
    pub(super) internal_advance: u64,
    pub(super) invalid: u64,
    pub(super) first_invalid: Option<usize>,
    /// The span of the valid records' raw times on each clock.
    pub(super) times: TimeSpans,
    /// The chunk as runs of consecutive records of one thread id (None: too many runs to be
    /// worth keeping). A worker of [`decode_to_sinks`] skips other threads' runs unread.
    pub(super) runs: Option<Vec<Run>>,
}

/// Records `start..end` of a chunk, all of thread id `tid`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Run {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) tid: u16,
}

/// Pass 1 over one chunk: thread ids in order of appearance, records per thread, the runs, the
/// span of the times (`T2`: of the second time too) and (`SYNTH`) the CPU advance inside the
/// chunk.
pub(super) fn count_chunk<const TB: usize, const T2: bool, const RS: usize, const SYNTH: bool>(
    chunk: &[u8],
    rs: usize,
) -> ChunkCount {
    let mut c = ChunkCount::default();
    let mut slots = vec![NONE; if TB == 1 { 256 } else { 65536 }];
    // Records come in runs of one thread (a VM writes each thread's records in bursts). Without
    // times to follow, a run's valid records are counted at its end: no per-record
    // read-modify-write of a counter in memory.
    let max_runs = chunk.len() / rs / 8;
    let mut runs = Some(Vec::new());
    let mut run = Run {
        start: 0,
        end: 0,
        tid: 0,
    };
    let mut valid = 0u32;
    let mut end_run = |c: &mut ChunkCount, slots: &mut [u32], run: Run, valid: u32| {
        if run.end == run.start {
            return;
        }
        if !SYNTH && valid > 0 {
            let s = c.slot_of::<SYNTH>(slots, run.tid, 0);
            c.counts[s] += valid;
        }
        match &mut runs {
            Some(v) if v.len() < max_runs => v.push(run),
            _ => runs = None,
        }
    };
    each_record::<RS>(chunk, rs, |i, r| {
        let rec = decode_record(r, TB, T2);
        if rec.tid != run.tid {
            run.end = i as u32;
            end_run(&mut c, &mut slots, run, valid);
            (run.start, run.tid, valid) = (i as u32, rec.tid, 0);
        }
        if rec.op & 3 == 3 {
            c.invalid += 1;
            c.first_invalid.get_or_insert(i);
            return;
        }
        valid += 1;
        c.times.add(rec.time1, rec.time2);
        if SYNTH {
            let s = c.slot_of::<SYNTH>(&mut slots, rec.tid, rec.time1);
            c.counts[s] += 1;
            if c.counts[s] > 1 {
                c.internal_advance += rec.time1.wrapping_sub(c.last_t1[s]) as u64;
                c.last_t1[s] = rec.time1;
            }
        }
    });
    run.end = (chunk.len() / rs) as u32;
    end_run(&mut c, &mut slots, run, valid);
    c.runs = runs;
    c
}

impl ChunkCount {
    /// The local slot of thread id `tid` (`slots`: tid → slot), made on its first record (`t1`:
    /// that record's time).
    pub(super) fn slot_of<const SYNTH: bool>(
        &mut self,
        slots: &mut [u32],
        tid: u16,
        t1: u32,
    ) -> usize {
        let s = &mut slots[tid as usize];
        if *s == NONE {
            *s = self.tids.len() as u32;
            self.tids.push(tid);
            self.counts.push(0);
            if SYNTH {
                self.first_t1.push(t1);
                self.last_t1.push(t1);
            }
        }
        *s as usize
    }
}

/// Records naming method ids missing from the key: how many, and the index of the first.
pub(super) type Unknown = (u64, Option<usize>);

/// What the counting pass learns: the chunks of the record area and, per chunk, the records of
/// each thread; the thread table is complete afterwards.
pub(super) struct ThreadCounts<'a> {
    pub(super) record_size: usize,
    /// Bytes of a record's thread id (1 or 2).
    pub(super) tid_bytes: usize,
    /// File offset of the first record.
    pub(super) area_offset: u64,
    pub(super) chunk_records: usize,
    pub(super) chunks: Vec<&'a [u8]>,
    pub(super) counts: Vec<ChunkCount>,
    /// Per chunk: the trace thread of each of its local thread slots.
    pub(super) thread_of_local: Vec<Vec<u32>>,
    /// Records per trace thread.
    pub(super) totals: Vec<usize>,
}

/// Pass 1 over a data section's record area: its chunks and what each holds.
pub(crate) struct RecordCounts<'a> {
    pub(super) chunk_records: usize,
    pub(super) chunks: Vec<&'a [u8]>,
    pub(super) counts: Vec<ChunkCount>,
}

/// Pass 1 over `data`'s records (`synth`: also the CPU advance of each chunk), in parallel. It
/// needs the data header only, not the key, so it can run beside the key's parsing.
pub(crate) fn count_records<'a>(
    data: &'a [u8],
    header: &DataHeader,
    synth: bool,
    ctx: &ReadContext,
) -> Result<RecordCounts<'a>, FormatError> {
    let rs = header.record_size as usize;
    let (area, _) = record_area(data, header);
    let n = area.len() / rs;
    let tb = header.tid_bytes();
    let threads = rayon::current_num_threads().max(1);
    let chunk_records = (n / (threads * 4)).max(1 << 16);
    let chunks: Vec<&[u8]> = area.chunks(chunk_records * rs).collect();
    let progress = ctx.progress;
    let counts: Vec<ChunkCount> = chunks
        .par_iter()
        .map(|chunk| {
            if progress.is_cancelled() {
                return ChunkCount::default();
            }
            macro_rules! run {
                ($tb:literal, $t2:literal, $rs:literal) => {
                    if synth {
                        count_chunk::<$tb, $t2, $rs, true>(chunk, rs)
                    } else {
                        count_chunk::<$tb, $t2, $rs, false>(chunk, rs)
                    }
                };
            }
            let count = by_layout!(tb, header.has_time2(), rs, run);
            // Pass 2 reads the chunk again, but much later for most of it: holding every page
            // of the file until then would add the whole file to the peak beside the model.
            ctx.done_with(chunk);
            count
        })
        .collect();
    if progress.is_cancelled() {
        return Err(cancelled(FORMAT_TRACE));
    }
    Ok(RecordCounts {
        chunk_records,
        chunks,
        counts,
    })
}

/// The first decoding steps shared by [`decode`] and [`decode_to_sinks`]: the truncation
/// diagnostic, pass 1 (unless `pass1` is given: it must be [`count_records`]' result for this
/// section and `synth`) and the thread table (threads missing from the key are added, with a
/// diagnostic).
pub(super) fn count_section<'a>(
    b: &mut Builder,
    tables: &mut Tables,
    section: &Section<'a>,
    synth: bool,
    ctx: &ReadContext,
    pass1: Option<RecordCounts<'a>>,
) -> Result<ThreadCounts<'a>, FormatError> {
    let (data, data_offset, header) = (section.data, section.offset, section.header);
    let rs = header.record_size as usize;
    let (area, partial) = record_area(data, header);
    let area_offset = data_offset + (header.offset_to_data as u64).min(data.len() as u64);
    let n = area.len() / rs;
    b.source.record_count = n as u64;
    if let Some(p) = partial {
        let missing = if (header.offset_to_data as usize) > data.len() {
            "the records start beyond the end of the file".to_string()
        } else {
            format!(
                "{} trailing bytes are less than one {rs}-byte record",
                data.len() - p
            )
        };
        b.diag(Diagnostic::warning(
            "truncated",
            Location::Offset(data_offset + p as u64),
            format!("file truncated: {missing}; {n} whole records read"),
        ));
    }
    let tb = header.tid_bytes();
    let RecordCounts {
        chunk_records,
        chunks,
        counts,
    } = match pass1 {
        Some(p) => p,
        None => count_records(data, header, synth, ctx)?,
    };

    let mut thread_of_local: Vec<Vec<u32>> = Vec::with_capacity(counts.len());
    let mut unnamed = 0u64;
    for c in &counts {
        let mut locals = Vec::with_capacity(c.tids.len());
        for &tid in &c.tids {
            let slot = &mut tables.thread_of_tid[tid as usize];
            if *slot == NONE {
                *slot = b.add_thread(tid as u64, &format!("thread {tid}")).0;
                unnamed += 1;
            }
            locals.push(*slot);
        }
        thread_of_local.push(locals);
    }
    let spans = counts
        .iter()
        .fold(TimeSpans::default(), |a, c| a.merge(c.times));
    let read_as_wrapping = [true, section.has_t2()];
    if (0..2).any(|clock| read_as_wrapping[clock] && spans.may_wrap(clock)) {
        say_where_times_wrap(b, section, area, area_offset, read_as_wrapping);
    }
    if unnamed > 0 {
        b.diag(Diagnostic::new(
            Severity::Info,
            "thread-not-in-key",
            Location::File,
            format!("{unnamed} thread ids occur in records but not in the key's *threads"),
        ));
    }
    let mut totals = vec![0usize; b.thread_count()];
    for (c, locals) in counts.iter().zip(&thread_of_local) {
        for (&n, &g) in c.counts.iter().zip(locals) {
            totals[g as usize] += n as usize;
        }
    }
    Ok(ThreadCounts {
        record_size: rs,
        tid_bytes: tb,
        area_offset,
        chunk_records,
        chunks,
        counts,
        thread_of_local,
        totals,
    })
}

/// The last decoding step shared by [`decode`] and [`decode_to_sinks`]: the `(unknown)` method
/// when records named ids missing from the key (`unknown`: count and index of the first such
/// record), and the diagnostics for those and for records with the invalid action 3.
pub(super) fn unknown_and_invalid(b: &mut Builder, counted: &ThreadCounts, unknown: Unknown) {
    let (rs, area_offset) = (counted.record_size, counted.area_offset);
    if unknown.0 > 0 {
        crate::formats::android::add_unknown_method(
            b,
            Location::Offset(area_offset + (unknown.1.unwrap_or(0) * rs) as u64),
            format!(
                "{} records name method ids missing from the key; they count as (unknown)",
                unknown.0
            ),
        );
    }
    let invalid: u64 = counted.counts.iter().map(|c| c.invalid).sum();
    if invalid > 0 {
        let first = counted
            .counts
            .iter()
            .enumerate()
            .find_map(|(ci, c)| c.first_invalid.map(|i| ci * counted.chunk_records + i))
            .unwrap_or(0);
        b.diag(Diagnostic::warning(
            "invalid-action",
            Location::Offset(area_offset + (first * rs) as u64),
            format!("{invalid} records have the invalid action 3 and were skipped"),
        ));
    }
}

/// Sums per-part counts of unknown-method records: (total, index of the first).
pub(super) fn sum_unknown(parts: impl IntoIterator<Item = Unknown>) -> Unknown {
    parts.into_iter().fold((0, None), |(n, first), (k, f)| {
        let first = match (first, f) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (n + k, first)
    })
}
