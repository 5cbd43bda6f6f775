//! The records of a recording cut into chunks of whole records for the decoder's threads, and
//! the loads that bring the input into the caches ahead of where it is read.

use std::ops::Range;

use super::HEADER_LEN;

/// How far ahead of the record it reads [`Split`] brings the file into the caches.
const TOUCH_AHEAD: usize = 8 << 10;

/// How the stream of records ends.
pub(super) enum End {
    /// With its end record (a size of 0); `pos` is past it.
    Ended { pos: usize },
    /// Inside the record of `size` bytes whose size is at `pos`.
    Cut { pos: usize, size: usize },
    /// Without an end record, after the record that ends at `pos`.
    Unended { pos: usize },
}

/// The records of a file cut into chunks of whole records, as they are reached: a batch of
/// chunks is cut while the batch before it is decoded.
pub(super) struct Split<'b> {
    bytes: &'b [u8],
    chunk_bytes: usize,
    /// The offset of the next record's size.
    pub(super) pos: usize,
    /// The records cut into chunks so far.
    pub(super) records: usize,
    /// How the records end, once reached.
    end: Option<End>,
    ahead: TouchAhead,
}

impl<'b> Split<'b> {
    /// The records of `bytes` from the header on, cut once a chunk holds `chunk_bytes`.
    pub(super) fn new(bytes: &'b [u8], chunk_bytes: usize) -> Self {
        Split {
            bytes,
            chunk_bytes,
            pos: HEADER_LEN,
            records: 0,
            end: None,
            ahead: TouchAhead::from(HEADER_LEN),
        }
    }

    /// The next chunk, None once the records have ended.
    pub(super) fn next_chunk(&mut self) -> Option<Range<usize>> {
        if self.end.is_some() {
            return None;
        }
        let (bytes, start) = (self.bytes, self.pos);
        let mut pos = start;
        // Each size says where the next is: a chain of loads, each a cache miss. Loads of every
        // cache line up to TOUCH_AHEAD bytes further on, which nothing waits for, run beside
        // the chain and have its next sizes in the caches when it gets there.
        let mut ahead = self.ahead;
        let end = loop {
            ahead.up_to(bytes, pos + TOUCH_AHEAD);
            let Some(size) = bytes.get(pos..pos + 4) else {
                break Some(End::Unended { pos });
            };
            let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
            if size == 0 {
                break Some(End::Ended { pos: pos + 4 });
            }
            if bytes.len() - (pos + 4) < size {
                break Some(End::Cut { pos, size });
            }
            pos += 4 + size;
            self.records += 1;
            if pos - start >= self.chunk_bytes {
                break None;
            }
        };
        (self.pos, self.end, self.ahead) = (pos, end, ahead);
        (pos > start).then_some(start..pos)
    }

    /// How the records end, once [`Split::next_chunk`] has said None.
    pub(super) fn end(self) -> End {
        self.ahead.finish();
        self.end.unwrap_or(End::Unended { pos: self.pos })
    }
}

/// Loads of a cache line at a time through the input, ahead of where it is read: loads that
/// nothing waits for, so they run beside the work, whose own loads then find their bytes in
/// the caches.
#[derive(Clone, Copy)]
pub(super) struct TouchAhead {
    /// The cache lines before here are loaded.
    next: usize,
    /// What was loaded, so the loads are not optimized away.
    sum: u8,
}

impl From<usize> for TouchAhead {
    fn from(start: usize) -> Self {
        TouchAhead {
            next: start,
            sum: 0,
        }
    }
}

impl TouchAhead {
    #[inline(always)]
    pub(super) fn up_to(&mut self, bytes: &[u8], end: usize) {
        while self.next < end.min(bytes.len()) {
            self.sum ^= bytes[self.next];
            self.next += 64;
        }
    }

    pub(super) fn finish(self) {
        std::hint::black_box(self.sum);
    }
}
