//! A thread's stacks from one sample to the next, compared as the file writes them.
//!
//! A sample's frames are written leaf first, so a sample ends like its thread's previous sample:
//! the callers it shares with it are its last frames, and most often the same bytes (a caller's
//! address is where it made its call). Reading every field of every frame is most of the cost of
//! a sample, so the reader first finds where each frame's field is ([`RawChain`], no field
//! read), compares the bytes of the callchain with the previous sample's from their end
//! ([`LastRun::same_frames`]), and reads only the frames before the bytes they share.
//! Those frames are then compared with the previous sample's by key (another address in a
//! known symbol is the same frame), and only the frames after that are looked up.

use std::ops::Range;

/// The `CallChainEntry` fields of one `Sample` message, where they are in it.
#[derive(Default)]
pub(super) struct RawChain {
    /// Per frame, leaf first: the offset of its field (its key) and where its message is.
    entries: Vec<Entry>,
    /// Whether the fields are back to back, nothing between them (as simpleperf writes them):
    /// their bytes are then one run, which [`RawChain::run`] gives.
    contiguous: bool,
    /// Per frame, root first: the offset of its field back from the end of the run. Empty when
    /// the fields are not one run.
    starts: Vec<u32>,
}

/// A `CallChainEntry` field in its `Sample` message: offsets of its key, of its message and of
/// its end. A message is at most [`u32::MAX`] bytes (its record's size is a `u32`).
#[derive(Clone, Copy)]
struct Entry {
    field: u32,
    body: u32,
    end: u32,
}

impl RawChain {
    /// Empties it for the next message.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.starts.clear();
        self.contiguous = true;
    }

    /// Adds the next frame: its field at offset `field`, its message at `body`.
    #[inline(always)]
    pub(super) fn push(&mut self, field: usize, body: Range<usize>) {
        if self.entries.last().is_some_and(|e| e.end as usize != field) {
            self.contiguous = false;
        }
        self.entries.push(Entry {
            field: field as u32,
            body: body.start as u32,
            end: body.end as u32,
        });
    }

    /// Marks the fields as not one run (a message read field by field).
    pub(super) fn scattered(&mut self) {
        self.contiguous = false;
    }

    /// Once every field is pushed: the frames' offsets from the end of the run.
    pub(super) fn finish(&mut self) {
        self.starts.clear();
        if let (true, Some(last)) = (self.contiguous, self.entries.last()) {
            let end = last.end;
            self.starts
                .extend(self.entries.iter().rev().map(|e| end - e.field));
        }
    }

    /// The number of frames.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The `CallChainEntry` message of frame `i` (leaf first) of `message`.
    #[inline(always)]
    pub(super) fn entry<'m>(&self, message: &'m [u8], i: usize) -> &'m [u8] {
        let e = self.entries[i];
        &message[e.body as usize..e.end as usize]
    }

    /// The bytes of the frames' fields in `message` when they are one run, and where each
    /// frame's field starts back from its end, root first.
    pub(super) fn run<'m>(&self, message: &'m [u8]) -> Option<(&'m [u8], &[u32])> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        self.contiguous.then(|| {
            (
                &message[first.field as usize..last.end as usize],
                &self.starts[..],
            )
        })
    }
}

/// The callchain fields of a thread's last sample as the file wrote them, when they were one
/// run: the bytes, and where each frame's field starts back from their end, root first.
#[derive(Default)]
pub(super) struct LastRun {
    run: Vec<u8>,
    starts: Vec<u32>,
}

impl LastRun {
    /// How many frames (root first) of a sample whose callchain is the run `run` with frames
    /// starting at `starts` (as [`RawChain::run`] gives them) are the last sample's, byte for
    /// byte: those whose fields start at the same offsets from the end, inside the bytes the
    /// two runs end with. The same bytes at the same offsets are the same fields. `frames` is
    /// the number of frames of the last sample: its bytes count only when they hold them all.
    #[inline]
    pub(super) fn same_frames(&self, frames: usize, run: &[u8], starts: &[u32]) -> usize {
        if self.starts.len() != frames {
            return 0;
        }
        let common = common_suffix(&self.run, run);
        starts
            .iter()
            .zip(&self.starts)
            .take_while(|&(&a, &b)| a == b && a as usize <= common)
            .count()
    }

    /// Keeps the bytes of the sample just added, or forgets the last ones when they are not
    /// one run.
    pub(super) fn remember(&mut self, run: Option<(&[u8], &[u32])>) {
        self.run.clear();
        self.starts.clear();
        if let Some((run, starts)) = run {
            self.run.extend_from_slice(run);
            self.starts.extend_from_slice(starts);
        }
    }
}

/// The number of bytes `a` and `b` end with in common.
#[inline]
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut same = 0;
    // Eight bytes at a time from the end: the bytes at higher addresses are the more
    // significant of a little-endian word, so the first that differs is in its leading zeros.
    for (x, y) in a.rchunks_exact(8).zip(b.rchunks_exact(8)) {
        let (x, y) = (word(x), word(y));
        if x != y {
            return same + ((x ^ y).leading_zeros() / 8) as usize;
        }
        same += 8;
    }
    let (a, b) = (&a[..n - same], &b[..n - same]);
    same + a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

#[inline(always)]
fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().expect("eight bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_suffixes() {
        assert_eq!(common_suffix(b"", b"abc"), 0);
        assert_eq!(common_suffix(b"xbc", b"abc"), 2);
        assert_eq!(common_suffix(b"abc", b"abc"), 3);
        assert_eq!(common_suffix(b"zabc", b"abc"), 3);
        let long: Vec<u8> = (0..40).collect();
        for cut in 0..40 {
            let mut other = long.clone();
            other[cut] ^= 0x80;
            assert_eq!(common_suffix(&long, &other), 39 - cut, "differ at {cut}");
            assert_eq!(common_suffix(&long[cut..], &long), 40 - cut);
        }
    }
}
