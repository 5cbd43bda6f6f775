//! One walk over a V2 file: the packets in order, every block's records handed to a callback,
//! the names and the summary kept (as pieces of the input), damage turned into diagnostics.

use super::packets::{Damage, Header, Packet, Packets, Revision, detect_revision};
use super::records::{Record, decode_block};
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

/// Walks a V2 file framed as `framing` says, calling `on_record` for every record in file
/// order. With a `ctx`, the input behind the walk is given back to it.
pub(crate) fn scan<'a>(
    bytes: &'a [u8],
    framing: Framing,
    mut on_record: impl FnMut(Record),
    ctx: Option<&ReadContext>,
) -> Result<Scan<'a>, FormatError> {
    let Framing { header, revision } = framing;
    let clocks = header.clocks();
    let mut s = Scan {
        header,
        revision,
        threads: Vec::new(),
        methods: Vec::new(),
        summary: None,
        diagnostics: Diagnostics::default(),
        record_count: 0,
        max_first_time: 0,
        whole_thousands: true,
    };
    let mut named_threads = rustc_hash::FxHashSet::default();
    let mut bad_blocks = 0u64;
    let mut released = 0;
    let mut packets = Packets::new(bytes, revision, clocks);
    while let Some(packet) = packets.next() {
        if let Some(ctx) = ctx {
            ctx.done_up_to(bytes, packets.position(), &mut released);
        }
        let (at, packet) = match packet {
            Ok(p) => p,
            Err(Damage::Truncated { what, at }) => {
                s.diagnostics.push(Diagnostic::warning(
                    "truncated",
                    Location::Offset(at as u64),
                    format!("file truncated inside a {what}; everything before it was read"),
                ));
                break;
            }
            Err(Damage::UnknownType { kind, at }) => {
                s.diagnostics.push(Diagnostic::new(
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
                    s.threads.push((tid, name));
                }
            }
            Packet::Method { id, text } => s.methods.push((id, text)),
            Packet::Summary(text) => {
                if let Some(k) =
                    summary_packet(text, FORMAT_V2, (at + 3) as u64, &mut s.diagnostics)
                {
                    s.summary = Some(k);
                }
            }
            Packet::Block(block) => {
                let (max, whole) = (&mut s.max_first_time, &mut s.whole_thousands);
                // The early revision's unit is known; the later one's is told by the times.
                let later = revision == Revision::Later;
                let mut count = 0u64;
                let result = decode_block(&block, revision, clocks, |r| {
                    count += 1;
                    if later {
                        *max = (*max).max(r.times[0]);
                        if *whole {
                            *whole = r.times[..clocks].iter().all(|t| t % 1000 == 0);
                        }
                    }
                    on_record(r);
                });
                s.record_count += count;
                if let Err(damage) = result {
                    bad_blocks += 1;
                    s.diagnostics.push_lazy("bad-block", || {
                        let what = if damage.cut_short {
                            format!(
                                "ends inside record {} of {}; the records before it were read",
                                damage.decoded + 1,
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
            }
        }
    }
    if bad_blocks > 1 {
        s.diagnostics.push(Diagnostic::new(
            Severity::Info,
            "bad-blocks",
            Location::File,
            format!("{bad_blocks} blocks were damaged"),
        ));
    }
    if s.summary.is_none() {
        s.diagnostics.push(Diagnostic::warning(
            "no-summary",
            Location::File,
            "no summary packet (trace not stopped cleanly?); the clock is guessed from the version",
        ));
    }
    Ok(s)
}
