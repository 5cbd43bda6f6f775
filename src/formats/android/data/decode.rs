//! Pass 2 of the data decoder into the model: every chunk decodes its records straight into its
//! own disjoint slices of the exact-size per-thread event columns.

use super::*;

/// Pass 2 state of one chunk.
pub(super) struct Fill<'a, 'o> {
    pub(super) rs: usize,
    pub(super) lookup: &'a crate::formats::android::MethodLookup,
    pub(super) unknown_id: u32,
    /// Thread-CPU axis: each local thread's previous time1, and the global clock.
    pub(super) prev: Vec<Option<u32>>,
    pub(super) clock: u64,
    pub(super) out: &'a mut ChunkOut<'o>,
}

impl Fill<'_, '_> {
    /// Decodes `chunk` into the output slices; returns the count and first index of records
    /// with unknown method ids.
    pub(super) fn run<const TB: usize, const T2: bool, const SYNTH: bool>(
        &mut self,
        chunk: &[u8],
        cc: &ChunkCount,
    ) -> Unknown {
        let mut slot = vec![NONE; if TB == 1 { 256 } else { 65536 }];
        for (s, &tid) in cc.tids.iter().enumerate() {
            slot[tid as usize] = s as u32;
        }
        let mut cursor = vec![0usize; cc.tids.len()];
        let (mut unknown, mut first_unknown) = (0u64, None);
        let out = &mut *self.out;
        for (i, r) in chunk.chunks_exact(self.rs).enumerate() {
            let rec = decode_record(r, TB, T2);
            let action = rec.op & 3;
            if action == 3 {
                continue;
            }
            let s = slot[rec.tid as usize] as usize;
            let Some(k) = cursor.get_mut(s) else { continue };
            let j = *k;
            *k += 1;
            let mut m = self.lookup.get(rec.op & !3);
            if m == NONE {
                unknown += 1;
                first_unknown.get_or_insert(i);
                m = self.unknown_id;
            }
            if let Some(o) = out.ops[s].get_mut(j) {
                *o = m << 2 | action;
            }
            if let Some(t) = out.t1[s].get_mut(j) {
                *t = rec.time1;
            }
            if T2 && let Some(t) = out.t2[s].get_mut(j) {
                *t = rec.time2;
            }
            if SYNTH {
                if let Some(p) = self.prev[s] {
                    self.clock += rec.time1.wrapping_sub(p) as u64;
                }
                self.prev[s] = Some(rec.time1);
                if let Some(t) = out.axis[s].get_mut(j) {
                    *t = self.clock;
                }
            }
        }
        (unknown, first_unknown)
    }
}

/// Where pass 2 of one chunk writes.
pub(super) struct ChunkOut<'a> {
    pub(super) ops: Vec<&'a mut [u32]>,
    pub(super) t1: Vec<&'a mut [u32]>,
    pub(super) t2: Vec<&'a mut [u32]>,
    pub(super) axis: Vec<&'a mut [u64]>,
}

/// Splits each thread's array into the consecutive pieces each chunk writes.
pub(super) fn split<'a, T>(
    arrays: &'a mut [Vec<T>],
    chunks: &[ChunkCount],
    thread_of_local: &[Vec<u32>],
) -> Vec<Vec<&'a mut [T]>> {
    let mut rests: Vec<&'a mut [T]> = arrays.iter_mut().map(|v| v.as_mut_slice()).collect();
    let mut out = Vec::with_capacity(chunks.len());
    for (c, chunk) in chunks.iter().enumerate() {
        let mut mine = Vec::with_capacity(chunk.tids.len());
        for (s, &n) in chunk.counts.iter().enumerate() {
            let g = thread_of_local[c][s] as usize;
            if rests.get(g).is_none_or(|r| r.len() < n as usize) {
                mine.push(<&mut [T]>::default());
                continue;
            }
            let rest = std::mem::take(&mut rests[g]);
            let (a, b) = rest.split_at_mut(n as usize);
            rests[g] = b;
            mine.push(a);
        }
        out.push(mine);
    }
    out
}

/// Decodes the records of `data` (a data section starting at file offset `data_offset`) into
/// `b`'s threads.
pub(crate) fn decode(
    b: &mut Builder,
    mut tables: Tables,
    section: Section,
    ctx: &ReadContext,
) -> Result<(), FormatError> {
    let (has_t2, clock) = (section.has_t2(), section.clock);
    let synth = clock == ClockMode::ThreadCpu;
    let counted = count_section(b, &mut tables, &section, synth, ctx, None)?;
    let ThreadCounts {
        record_size: rs,
        tid_bytes: tb,
        chunk_records,
        ref chunks,
        ref counts,
        ref thread_of_local,
        ref totals,
        ..
    } = counted;
    let thread_count = b.thread_count();
    let progress = ctx.progress;
    // Thread-CPU axis: the global clock at each chunk's start and each thread's previous time1.
    let mut chunk_clock = vec![0u64; counts.len()];
    let mut chunk_prev: Vec<Vec<Option<u32>>> = Vec::new();
    if synth {
        let mut last: Vec<Option<u32>> = vec![None; thread_count];
        let mut clock = 0u64;
        for (ci, (c, locals)) in counts.iter().zip(thread_of_local).enumerate() {
            chunk_clock[ci] = clock;
            let mut prevs = Vec::with_capacity(locals.len());
            for (s, &g) in locals.iter().enumerate() {
                let prev = last[g as usize];
                prevs.push(prev);
                if let Some(p) = prev {
                    clock += c.first_t1[s].wrapping_sub(p) as u64;
                }
                last[g as usize] = Some(c.last_t1[s]);
            }
            clock += c.internal_advance;
            chunk_prev.push(prevs);
        }
    }

    let mut ops: Vec<Vec<u32>> = totals.iter().map(|&n| vec![0; n]).collect();
    let mut t1s: Vec<Vec<u32>> = totals.iter().map(|&n| vec![0; n]).collect();
    let mut t2s: Vec<Vec<u32>> = if has_t2 {
        totals.iter().map(|&n| vec![0; n]).collect()
    } else {
        vec![Vec::new(); thread_count]
    };
    let mut axis: Vec<Vec<u64>> = if synth {
        totals.iter().map(|&n| vec![0; n]).collect()
    } else {
        vec![Vec::new(); thread_count]
    };
    let unknown_id = b.methods.len() as u32;
    let lookup = &tables.methods;

    let outs: Vec<ChunkOut> = {
        let zero = |v: &ChunkCount| ChunkCount {
            tids: v.tids.clone(),
            counts: vec![0; v.counts.len()],
            ..ChunkCount::default()
        };
        let zeros: Vec<ChunkCount> = counts.iter().map(zero).collect();
        let ops_s = split(&mut ops, counts, thread_of_local);
        let t1_s = split(&mut t1s, counts, thread_of_local);
        let t2_s = split(
            &mut t2s,
            if has_t2 { counts } else { &zeros },
            thread_of_local,
        );
        let ax_s = split(
            &mut axis,
            if synth { counts } else { &zeros },
            thread_of_local,
        );
        ops_s
            .into_iter()
            .zip(t1_s)
            .zip(t2_s)
            .zip(ax_s)
            .map(|(((ops, t1), t2), axis)| ChunkOut { ops, t1, t2, axis })
            .collect()
    };

    // Pass 2: fill.
    let unknown: Vec<Unknown> = chunks
        .par_iter()
        .zip(outs)
        .zip(counts.par_iter())
        .enumerate()
        .map(|(ci, ((chunk, mut out), cc))| {
            if progress.is_cancelled() {
                return (0, None);
            }
            let mut fill = Fill {
                rs,
                lookup,
                unknown_id,
                prev: if synth {
                    chunk_prev[ci].clone()
                } else {
                    Vec::new()
                },
                clock: chunk_clock[ci],
                out: &mut out,
            };
            let (unknown, first) = match (tb, has_t2, synth) {
                (1, _, false) => fill.run::<1, false, false>(chunk, cc),
                (1, _, true) => fill.run::<1, false, true>(chunk, cc),
                (_, false, false) => fill.run::<2, false, false>(chunk, cc),
                (_, false, true) => fill.run::<2, false, true>(chunk, cc),
                (_, true, false) => fill.run::<2, true, false>(chunk, cc),
                (_, true, true) => fill.run::<2, true, true>(chunk, cc),
            };
            progress.add_bytes(chunk.len() as u64);
            progress.add_records((chunk.len() / rs) as u64);
            ctx.done_with(chunk);
            (unknown, first.map(|i| ci * chunk_records + i))
        })
        .collect();
    if progress.is_cancelled() {
        return Err(cancelled(FORMAT_TRACE));
    }

    let unknown = sum_unknown(unknown);
    unknown_and_invalid(b, &counted, unknown);

    for (g, ((ops, t1), (t2, ax))) in ops
        .into_iter()
        .zip(t1s)
        .zip(t2s.into_iter().zip(axis))
        .enumerate()
    {
        let ev = b.events_mut(ThreadId(g as u32));
        ev.ops = ops;
        match clock {
            ClockMode::Dual => {
                ev.cpu = Some(Times::U32Wrapping(t1));
                ev.axis = Times::U32Wrapping(t2);
            }
            ClockMode::Wall => ev.axis = Times::U32Wrapping(t1),
            ClockMode::ThreadCpu => {
                ev.cpu = Some(Times::U32Wrapping(t1));
                ev.axis = Times::U64(ax);
            }
        }
    }
    Ok(())
}
