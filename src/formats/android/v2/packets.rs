//! The framing of ART V2 traces: the 32-byte header, then packets that each start with a type
//! byte (see the module docs of `formats::android::v2` for both revisions' layouts). Every
//! length is checked against the bytes that remain before anything is sliced or looped over.

use super::leb128;
use crate::formats::detect::DATA_MAGIC;

/// Bytes of the file header (magic, version, start time, zero padding).
pub(crate) const HEADER_LEN: usize = 32;

pub(crate) const THREAD_INFO: u8 = 0;
pub(crate) const METHOD_INFO: u8 = 1;
pub(crate) const ENTRIES: u8 = 2;
pub(crate) const SUMMARY: u8 = 3;

/// Which of ART's two V2 encodings a file uses. Nothing in the file names it: see
/// [`detect_revision`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    /// ART's first V2 writer (2024): method ids are indices, a block header holds the block's
    /// first record, u16 record count and size, times in µs.
    Early,
    /// ART's writer from mid-2024 on: `ArtMethod*` ids, u24 count and u32 size, records as
    /// deltas from 0 in each block.
    Later,
}

/// The file header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// As written: 4 or 5, `| 0xF0` when streaming.
    pub raw_version: u16,
    /// The start time as the writer states it (µs or ns, by revision and build).
    pub start_time: u64,
}

impl Header {
    /// Parses the header: `bytes` must start with `SLOW` and a V2 version and hold a whole
    /// header (else what is wrong).
    pub(crate) fn parse(bytes: &[u8]) -> Result<Header, String> {
        let magic = bytes
            .get(..4)
            .map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]));
        if magic != Some(DATA_MAGIC) {
            return Err("expected 'SLOW' at the start".into());
        }
        if bytes.len() < HEADER_LEN {
            return Err(format!(
                "header truncated: {} bytes, an ART V2 header has {HEADER_LEN}",
                bytes.len()
            ));
        }
        let raw_version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if !matches!(raw_version, 4 | 5 | 0xF4 | 0xF5) {
            return Err(format!(
                "data version {raw_version:#x} is not ART V2 (4, 5, 0xF4 or 0xF5)"
            ));
        }
        Ok(Header {
            raw_version,
            start_time: le_u64(&bytes[6..14]),
        })
    }

    /// 4 (one clock) or 5 (dual clock).
    pub(crate) fn version(&self) -> u16 {
        self.raw_version & 0x0F
    }

    pub(crate) fn is_dual(&self) -> bool {
        self.version() == 5
    }

    /// How many times each record carries.
    pub(crate) fn clocks(&self) -> usize {
        if self.is_dual() { 2 } else { 1 }
    }
}

/// A block of one thread's records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block<'a> {
    pub tid: u32,
    /// Records in the block (the first one included, for the early revision).
    pub count: u32,
    /// The early revision's first record, held by the block header.
    pub first: Option<FirstRecord>,
    /// The LEB128-encoded records.
    pub body: &'a [u8],
}

/// The first record of an early-revision block: the method value and the times themselves
/// (`times[0]` the wall time of dual-clock files or the one time, `times[1]` the CPU time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FirstRecord {
    pub method: u32,
    pub times: [u32; 2],
}

impl Block<'_> {
    /// The records the header announces, at most as many as the body can hold (each takes a
    /// byte per number at least): a bound for what to make room for.
    pub(crate) fn announced(&self, dual: bool) -> u64 {
        let per_record = if dual { 3 } else { 2 };
        let first = self.first.is_some() as u64;
        (self.count as u64).min(self.body.len() as u64 / per_record + first)
    }

    /// Whether the body holds as many LEB128 numbers as the header says, ending on the last
    /// byte: cheap (a count of bytes below 0x80) and rarely true of bytes framed wrongly.
    pub(crate) fn is_plausible(&self, clocks: usize) -> bool {
        let per_record = 1 + clocks;
        let encoded = match self.first {
            Some(_) => self.count as usize - 1,
            None => self.count as usize,
        };
        leb128::count_ends(self.body) == encoded * per_record
            && self.body.last().is_none_or(|&b| b < 0x80)
    }
}

/// One packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Packet<'a> {
    Thread {
        tid: u32,
        name: &'a [u8],
    },
    /// `id` is the value records carry for the method (action bits clear): the early
    /// revision's index shifted left by two, the later revision's `ArtMethod*`.
    Method {
        id: u64,
        text: &'a [u8],
    },
    Block(Block<'a>),
    /// The key text `*version` .. `*end`, without threads and methods.
    Summary(&'a [u8]),
}

/// Why the packets stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Damage {
    /// The file ends inside a packet.
    Truncated {
        what: &'static str,
        at: usize,
    },
    UnknownType {
        kind: u8,
        at: usize,
    },
}

/// The packets after the header, each with its offset; stops after the first damage.
pub(crate) struct Packets<'a> {
    bytes: &'a [u8],
    pos: usize,
    revision: Revision,
    clocks: usize,
}

impl<'a> Packets<'a> {
    pub(crate) fn new(bytes: &'a [u8], revision: Revision, clocks: usize) -> Self {
        Packets {
            bytes,
            pos: HEADER_LEN.min(bytes.len()),
            revision,
            clocks,
        }
    }

    /// Where the next packet starts.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    fn packet(&self, at: usize) -> Result<(Packet<'a>, usize), Damage> {
        let rest = &self.bytes[at..];
        let kind = rest[0];
        let truncated = |what| Damage::Truncated { what, at };
        // `fixed` header bytes (type byte included), then `len` bytes.
        let with_len = |fixed: usize, len: usize, what| {
            let end = fixed.checked_add(len).filter(|&e| e <= rest.len());
            end.map(|end| (&rest[fixed..end], end))
                .ok_or(truncated(what))
        };
        match (kind, self.revision) {
            (THREAD_INFO, _) => {
                let h = rest.get(..7).ok_or(truncated("thread packet"))?;
                let (name, end) = with_len(7, le_u16(&h[5..]) as usize, "thread packet")?;
                let tid = le_u32(&h[1..]);
                Ok((Packet::Thread { tid, name }, end))
            }
            (METHOD_INFO, Revision::Early) => {
                let h = rest.get(..7).ok_or(truncated("method packet"))?;
                let (text, end) = with_len(7, le_u16(&h[5..]) as usize, "method packet")?;
                let id = (le_u32(&h[1..]) as u64) << 2;
                Ok((Packet::Method { id, text }, end))
            }
            (METHOD_INFO, Revision::Later) => {
                let h = rest.get(..11).ok_or(truncated("method packet"))?;
                let (text, end) = with_len(11, le_u16(&h[9..]) as usize, "method packet")?;
                Ok((
                    Packet::Method {
                        id: le_u64(&h[1..]),
                        text,
                    },
                    end,
                ))
            }
            (ENTRIES, Revision::Early) => {
                let fixed = 13 + 4 * self.clocks;
                let h = rest.get(..fixed).ok_or(truncated("block header"))?;
                let mut times = [0u32; 2];
                // The header holds the CPU time before the wall time; records the reverse.
                match self.clocks {
                    2 => times = [le_u32(&h[13..]), le_u32(&h[9..])],
                    _ => times[0] = le_u32(&h[9..]),
                }
                let count = le_u16(&h[fixed - 4..]) as u32 + 1;
                let (body, end) = with_len(fixed, le_u16(&h[fixed - 2..]) as usize, "block")?;
                let first = Some(FirstRecord {
                    method: le_u32(&h[5..]),
                    times,
                });
                let tid = le_u32(&h[1..]);
                Ok((
                    Packet::Block(Block {
                        tid,
                        count,
                        first,
                        body,
                    }),
                    end,
                ))
            }
            (ENTRIES, Revision::Later) => {
                let h = rest.get(..12).ok_or(truncated("block header"))?;
                let count = u32::from_le_bytes([h[5], h[6], h[7], 0]);
                let (body, end) = with_len(12, le_u32(&h[8..]) as usize, "block")?;
                let tid = le_u32(&h[1..]);
                let block = Block {
                    tid,
                    count,
                    first: None,
                    body,
                };
                Ok((Packet::Block(block), end))
            }
            (SUMMARY, _) => {
                let h = rest.get(..3).ok_or(truncated("summary packet"))?;
                let (text, end) = with_len(3, le_u16(&h[1..]) as usize, "summary packet")?;
                Ok((Packet::Summary(text), end))
            }
            (kind, _) => Err(Damage::UnknownType { kind, at }),
        }
    }
}

impl<'a> Iterator for Packets<'a> {
    type Item = Result<(usize, Packet<'a>), Damage>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let at = self.pos;
        match self.packet(at) {
            Ok((p, len)) => {
                self.pos = at + len;
                Some(Ok((at, p)))
            }
            Err(d) => {
                self.pos = self.bytes.len();
                Some(Err(d))
            }
        }
    }
}

/// How much of a file [`detect_revision`] frames both ways before it decides.
pub(crate) const DETECT_WINDOW: usize = 1 << 20;

/// Tells the revision from the framing, as nothing in the file names it. Each revision frames
/// the first [`DETECT_WINDOW`] bytes (or the whole file) until a packet is implausible: an
/// unknown type, a packet running past the end, a method line not ending in a newline, a
/// summary not starting with `*version`, or a block whose body does not hold the LEB128
/// numbers its header counts ([`Block::is_plausible`]). The revision that frames everything
/// wins; when both do, or neither, the one that got further; a tie goes to the later revision,
/// the one current ART writes.
pub fn detect_revision(bytes: &[u8]) -> Revision {
    let Ok(header) = Header::parse(bytes) else {
        return Revision::Later;
    };
    let window = &bytes[..bytes.len().min(DETECT_WINDOW)];
    let reach = |revision| plausible_reach(window, revision, header.clocks());
    let (early, later) = (reach(Revision::Early), reach(Revision::Later));
    if early > later {
        Revision::Early
    } else {
        Revision::Later
    }
}

/// How far `revision` frames `bytes` plausibly, in bytes (a packet cut by the end of a window
/// counts as framed: the window may end anywhere).
fn plausible_reach(bytes: &[u8], revision: Revision, clocks: usize) -> usize {
    let mut packets = Packets::new(bytes, revision, clocks);
    let mut reach = packets.position();
    while let Some(p) = packets.next() {
        let plausible = match p {
            Ok((_, Packet::Thread { .. })) => true,
            Ok((_, Packet::Method { text, .. })) => text.last() == Some(&b'\n'),
            Ok((_, Packet::Block(b))) => b.is_plausible(clocks),
            Ok((_, Packet::Summary(text))) => text.starts_with(b"*version"),
            Err(Damage::Truncated { .. }) => bytes.len() == DETECT_WINDOW,
            Err(Damage::UnknownType { .. }) => false,
        };
        if !plausible {
            break;
        }
        reach = packets.position();
    }
    reach
}

pub(crate) fn le_u16(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

pub(crate) fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

pub(crate) fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}
