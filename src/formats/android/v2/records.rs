//! Decoding the records of one block, exactly as each revision's writer encodes them.

use super::leb128::{read_signed, read_unsigned};
use super::packets::{Block, Revision};

/// One record, times in the file's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub tid: u32,
    /// `method | action` (action in the low two bits).
    pub method: u64,
    /// `[wall, cpu]` for dual-clock files; `[time, 0]` for one clock.
    pub times: [u64; 2],
}

/// Where a block's body failed: the records before it were decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockDamage {
    /// Records decoded before the damage.
    pub decoded: u32,
    /// The body ended inside a record (else: bytes were left after the last record).
    pub cut_short: bool,
}

/// Calls `on_record` for each record of `block`, in order.
///
/// - Early revision: the header holds the first record; each later record is the SLEB128
///   difference of its method value from the *first* record's (32-bit), then the ULEB128
///   differences of its times from the *previous* record's (32-bit, wall before CPU).
/// - Later revision: every record is the SLEB128 difference of its method value from the
///   previous record's, then the ULEB128 time differences, all starting from 0 in each block
///   (64-bit, wrapping as the writer's unsigned arithmetic does).
#[inline]
pub(crate) fn decode_block(
    block: &Block,
    revision: Revision,
    clocks: usize,
    mut on_record: impl FnMut(Record),
) -> Result<(), BlockDamage> {
    let body = block.body;
    let mut pos = 0usize;
    let mut decoded = 0u32;
    let cut = |decoded| BlockDamage {
        decoded,
        cut_short: true,
    };
    match (revision, block.first) {
        (Revision::Early, Some(first)) => {
            let mut times = first.times;
            on_record(Record {
                tid: block.tid,
                method: first.method as u64,
                times: times.map(u64::from),
            });
            decoded += 1;
            while decoded < block.count {
                let diff = read_signed(body, &mut pos).ok_or(cut(decoded))?;
                let method = first.method.wrapping_add(diff as u32);
                for t in &mut times[..clocks] {
                    *t = t.wrapping_add(read_unsigned(body, &mut pos).ok_or(cut(decoded))? as u32);
                }
                on_record(Record {
                    tid: block.tid,
                    method: method as u64,
                    times: times.map(u64::from),
                });
                decoded += 1;
            }
        }
        _ => {
            let mut method = 0u64;
            let mut times = [0u64; 2];
            while decoded < block.count {
                method =
                    method.wrapping_add(read_signed(body, &mut pos).ok_or(cut(decoded))? as u64);
                // One or two clocks: a branch that always goes the same way, not a loop.
                times[0] =
                    times[0].wrapping_add(read_unsigned(body, &mut pos).ok_or(cut(decoded))?);
                if clocks == 2 {
                    times[1] =
                        times[1].wrapping_add(read_unsigned(body, &mut pos).ok_or(cut(decoded))?);
                }
                on_record(Record {
                    tid: block.tid,
                    method,
                    times,
                });
                decoded += 1;
            }
        }
    }
    if pos < body.len() {
        return Err(BlockDamage {
            decoded,
            cut_short: false,
        });
    }
    Ok(())
}
