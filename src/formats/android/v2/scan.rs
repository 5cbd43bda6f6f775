//! One walk over a V2 file: the packets in order, the names and the summary kept (as pieces of
//! the input), the blocks found ([`walk`]); then their records decoded, in one pass handed to a
//! callback ([`scan`]) or in parts side by side ([`decode_blocks`]); damage turned into
//! diagnostics in file order ([`Walk::finish`]).

use super::packets::{Block, Damage, Header, Packet, Packets, Revision, detect_revision};
use super::records::{BlockDamage, Record, decode_block};
use super::{FORMAT_V2, Unit};
use crate::formats::android::key::{Key, summary_packet};
use crate::formats::{FormatError, ReadContext};
use crate::trace::{Diagnostic, Diagnostics, Location, Severity};

/// What a walk finds besides the records.
#[derive(Debug)]
pub(crate) struct Scan<'a> {
    pub header: Header,
    pub revision: Revision,
    /// Thread packets, the first of each thread id, in file order.
    pub threads: Vec<(u32, &'a [u8])>,
    /// Method packets in file order: the value records carry, and the line
    /// `class\tname\tsignature\tsource\n`.
    pub methods: Vec<(u64, &'a [u8])>,
    pub summary: Option<Key<'a>>,
    pub diagnostics: Diagnostics,
    pub record_count: u64,
    /// The largest first time (wall time when the file has one) of any record (later
    /// revision only).
    pub max_first_time: u64,
    /// Whether every time is a whole multiple of 1000 (later revision only).
    pub whole_thousands: bool,
}

impl Scan<'_> {
    /// The version the summary states (else the header's, without the streaming bits).
    pub(crate) fn key_version(&self) -> u32 {
        self.summary
            .as_ref()
            .map_or(self.header.version() as u32, |s| s.version)
    }

    /// The unit of the file's times (see the module docs): the early revision counts µs; the
    /// later one ns, unless its summary says `elapsed-time-nsec` with a value at least 500 times
    /// the latest wall time of a record, which only µs records under an elapsed time in ns give.
    pub(crate) fn unit(&self, wall_in_records: bool) -> Unit {
        if self.revision == Revision::Early {
            return Unit::Micros;
        }
        let stated = self
            .summary
            .as_ref()
            .and_then(|s| s.option("elapsed-time-nsec"));
        match stated.and_then(|e| e.trim().parse::<u64>().ok()) {
            Some(elapsed)
                if wall_in_records
                    && self.max_first_time > 0
                    && elapsed / 500 >= self.max_first_time =>
            {
                Unit::Micros
            }
            _ => Unit::Nanos,
        }
    }
}

/// A file's header and revision: what a walk needs to know first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Framing {
    pub header: Header,
    pub revision: Revision,
}

impl Framing {
    pub(crate) fn of(bytes: &[u8]) -> Result<Framing, FormatError> {
        let header = Header::parse(bytes)
            .map_err(|msg| FormatError::new(FORMAT_V2, Location::Offset(0), msg))?;
        Ok(Framing {
            header,
            revision: detect_revision(bytes),
        })
    }
}

/// A block found by the walk: where its packet starts and ends, and the block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found<'a> {
    pub at: usize,
    pub end: usize,
    pub block: Block<'a>,
}

/// The packets of a file with the blocks found but not decoded: their records can then be
/// decoded in one pass ([`scan`]) or in parts, side by side ([`decode_blocks`] on each).
pub(crate) struct Walk<'a> {
    /// Everything but what the records tell (their count, times and damage).
    pub scan: Scan<'a>,
    pub blocks: Vec<Found<'a>>,
    /// The packets' own diagnostics, each with the number of blocks before it (so that the
    /// blocks' damage lands in file order among them).
    notes: Vec<(usize, Diagnostic)>,
}

/// What tells a later-revision file's unit: the latest first time (the wall time when there
/// are two) and whether every time is a whole thousand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimeFacts {
    pub max_first: u64,
    pub whole_thousands: bool,
}

impl Default for TimeFacts {
    fn default() -> Self {
        TimeFacts {
            max_first: 0,
            whole_thousands: true,
        }
    }
}

impl TimeFacts {
    /// Adds a record's times (`times[..clocks]`).
    #[inline]
    pub(crate) fn add(&mut self, times: &[u64]) {
        if let Some(&first) = times.first() {
            self.max_first = self.max_first.max(first);
        }
        if self.whole_thousands {
            self.whole_thousands = times.iter().all(|t| t % 1000 == 0);
        }
    }

    /// Adds a column of first times and one of other times.
    pub(crate) fn add_columns(&mut self, first: &[u64], other: &[u64]) {
        self.max_first = first.iter().copied().fold(self.max_first, u64::max);
        if self.whole_thousands {
            self.whole_thousands = first.iter().chain(other).all(|t| t % 1000 == 0);
        }
    }

    pub(crate) fn then(self, other: TimeFacts) -> TimeFacts {
        TimeFacts {
            max_first: self.max_first.max(other.max_first),
            whole_thousands: self.whole_thousands && other.whole_thousands,
        }
    }
}

/// What decoding some blocks found besides the records.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    pub record_count: u64,
    /// See [`Scan::max_first_time`] and [`Scan::whole_thousands`] (later revision only, and
    /// only when asked to track them).
    pub times: TimeFacts,
    /// Damaged blocks: (index in [`Walk::blocks`], damage).
    damage: Vec<(usize, BlockDamage)>,
    /// Whether the decoding stopped because the load was cancelled.
    pub cancelled: bool,
}

impl Decoded {
    /// These and then `later`'s (the blocks after these).
    pub(crate) fn then(mut self, later: Decoded) -> Decoded {
        self.record_count += later.record_count;
        self.times = self.times.then(later.times);
        self.damage.extend(later.damage);
        self.cancelled |= later.cancelled;
        self
    }
}

/// Walks the packets of a V2 file framed as `framing` says, finding the blocks without
/// decoding them.
pub(crate) fn walk(bytes: &[u8], framing: Framing) -> Walk<'_> {
    let Framing { header, revision } = framing;
    let mut w = Walk {
        scan: Scan {
            header,
            revision,
            threads: Vec::new(),
            methods: Vec::new(),
            summary: None,
            diagnostics: Diagnostics::default(),
            record_count: 0,
            max_first_time: 0,
            whole_thousands: true,
        },
        blocks: Vec::new(),
        notes: Vec::new(),
    };
    let mut named_threads = rustc_hash::FxHashSet::default();
    let mut packets = Packets::new(bytes, revision, header.clocks());
    while let Some(packet) = packets.next() {
        let (at, packet) = match packet {
            Ok(p) => p,
            Err(Damage::Truncated { what, at }) => {
                w.note(Diagnostic::warning(
                    "truncated",
                    Location::Offset(at as u64),
                    format!("file truncated inside a {what}; everything before it was read"),
                ));
                break;
            }
            Err(Damage::UnknownType { kind, at }) => {
                w.note(Diagnostic::new(
                    Severity::Error,
                    "unknown-packet",
                    Location::Offset(at as u64),
                    format!("unknown packet type {kind}; the rest of the file was skipped"),
                ));
                break;
            }
        };
        match packet {
            Packet::Thread { tid, name } => {
                if named_threads.insert(tid) {
                    w.scan.threads.push((tid, name));
                }
            }
            Packet::Method { id, text } => w.scan.methods.push((id, text)),
            Packet::Summary(text) => {
                let mut diagnostics = Diagnostics::default();
                if let Some(k) = summary_packet(text, FORMAT_V2, (at + 3) as u64, &mut diagnostics)
                {
                    w.scan.summary = Some(k);
                }
                for d in diagnostics.into_vec() {
                    w.note(d);
                }
            }
            Packet::Block(block) => w.blocks.push(Found {
                at,
                end: packets.position(),
                block,
            }),
        }
    }
    w
}

impl<'a> Walk<'a> {
    fn note(&mut self, d: Diagnostic) {
        self.notes.push((self.blocks.len(), d));
    }

    /// The scan, once `decoded` tells what the records of every block found.
    pub(crate) fn finish(self, decoded: Decoded) -> Scan<'a> {
        let Walk {
            mut scan,
            blocks,
            notes,
        } = self;
        scan.record_count = decoded.record_count;
        scan.max_first_time = decoded.times.max_first;
        scan.whole_thousands = decoded.times.whole_thousands;
        let bad_blocks = decoded.damage.len();
        let mut damage = decoded.damage.into_iter().peekable();
        let mut push_damage_before = |scan: &mut Scan, index: usize| {
            while let Some((i, d)) = damage.next_if(|&(i, _)| i < index) {
                let Found { at, block, .. } = blocks[i];
                scan.diagnostics.push_lazy("bad-block", || {
                    let what = if d.cut_short {
                        format!(
                            "ends inside record {} of {}; the records before it were read",
                            d.decoded + 1,
                            block.count
                        )
                    } else {
                        format!("has bytes left after its {} records", block.count)
                    };
                    Diagnostic::warning(
                        "bad-block",
                        Location::Offset(at as u64),
                        format!("the block of thread {} {what}", block.tid),
                    )
                });
            }
        };
        for (before, note) in notes {
            push_damage_before(&mut scan, before);
            scan.diagnostics.push(note);
        }
        push_damage_before(&mut scan, usize::MAX);
        if bad_blocks > 1 {
            scan.diagnostics.push(Diagnostic::new(
                Severity::Info,
                "bad-blocks",
                Location::File,
                format!("{bad_blocks} blocks were damaged"),
            ));
        }
        if scan.summary.is_none() {
            scan.diagnostics.push(Diagnostic::warning(
                "no-summary",
                Location::File,
                "no summary packet (trace not stopped cleanly?); the clock is guessed from the version",
            ));
        }
        scan
    }
}

/// Decodes `blocks` (the walk's blocks from index `first` on) in order, calling `on_record`
/// for every record, and with `track_times` the [`TimeFacts`] of a later-revision file's
/// records (a caller that keeps the times may find them faster from its columns); with a
/// `ctx`, gives back the input behind each block, checks for a cancelled load and counts the
/// records in its progress.
pub(crate) fn decode_blocks(
    bytes: &[u8],
    blocks: &[Found],
    first: usize,
    framing: Framing,
    ctx: Option<&ReadContext>,
    track_times: bool,
    mut on_record: impl FnMut(Record),
) -> Decoded {
    let clocks = framing.header.clocks();
    // The early revision's unit is known; the later one's is told by the times.
    let track = track_times && framing.revision == Revision::Later;
    let mut d = Decoded::default();
    let mut released = blocks.first().map_or(0, |f| f.at);
    let mut unreported = 0u64;
    for (i, found) in blocks.iter().enumerate() {
        let times = &mut d.times;
        let mut count = 0u64;
        let result = decode_block(&found.block, framing.revision, clocks, |r| {
            count += 1;
            if track {
                times.add(&r.times[..clocks]);
            }
            on_record(r);
        });
        d.record_count += count;
        if let Err(damage) = result {
            d.damage.push((first + i, damage));
        }
        if let Some(ctx) = ctx {
            ctx.done_up_to(bytes, found.end, &mut released);
            unreported += count;
            if unreported >= PROGRESS_STEP {
                ctx.progress.add_records(unreported);
                unreported = 0;
                if ctx.progress.is_cancelled() {
                    d.cancelled = true;
                    break;
                }
            }
        }
    }
    if let Some(ctx) = ctx {
        ctx.progress.add_records(unreported);
    }
    d
}

/// Records decoded between two progress reports (and checks for a cancelled load).
const PROGRESS_STEP: u64 = 1 << 16;

/// Walks a V2 file framed as `framing` says, calling `on_record` for every record in file
/// order. With a `ctx`, the input behind the walk is given back to it.
pub(crate) fn scan<'a>(
    bytes: &'a [u8],
    framing: Framing,
    on_record: impl FnMut(Record),
    ctx: Option<&ReadContext>,
) -> Result<Scan<'a>, FormatError> {
    let w = walk(bytes, framing);
    let decoded = decode_blocks(bytes, &w.blocks, 0, framing, ctx, true, on_record);
    Ok(w.finish(decoded))
}
