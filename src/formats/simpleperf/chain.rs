//! A thread's stacks from one sample to the next, compared as the file writes them.
//!
//! A sample's frames are written leaf first, their fields back to back, so a sample's callchain
//! ends like its thread's previous sample's: the callers it shares with it are its last frames,
//! most often in the same bytes (a caller's address is where it made its call). Reading the
//! frames is most of the cost of a sample, so the reader compares the callchain with the
//! previous one from their end first ([`common_suffix`], 32 bytes at a time), its end taken to
//! be as far from the message's end as the previous one's was (the fields after it, an event
//! count and type, are mostly as long from one sample to the next). Then it walks the message
//! from its start only until a frame's field starts, inside the bytes they share, where one of
//! the previous sample's frames started, counted back from that end ([`Resync`]).
//!
//! From there to that end the message holds the previous sample's bytes from that frame to
//! the end of its frames: a message read from a field's start depends on nothing before it, so
//! they are the same frames, the previous sample's root frames ([`ReadChain::shared`]), and
//! the walk jumps past them to read what follows as any fields. Whether the end was guessed
//! right does not matter for that: the bytes compared are what makes the frames the same.
//! Only the leading frames are read; those are then compared with the previous sample's by
//! key (another address in a known symbol is the same frame), and only the frames after that
//! are looked up.

use super::frame::FrameKey;
use super::wire::WireError;

/// How far back in the input, at most, the frames of a thread's last sample are compared with
/// a new sample's. The decoder gives back the input behind it as it goes
/// ([`crate::formats::ReadContext::done_up_to`]), this far behind the record it reads:
/// reading bytes already given back would fault their pages in again, to stay.
pub(super) const MAX_REACH: usize = 256 << 10;

/// The frames of the sample being read: those read, and how many root frames it takes from its
/// thread's last sample. Offsets are from the start of the message.
#[derive(Default)]
pub(super) struct ReadChain {
    /// The frames read, leaf first.
    pub(super) keys: Vec<FrameKey>,
    /// Per frame read, leaf first: the offset of its field.
    starts: Vec<u32>,
    /// The number of root frames that are the thread's last sample's, byte for byte.
    shared: usize,
    /// Where the first frame's field starts and where the last one's ends.
    first: u32,
    end: Option<u32>,
    /// Whether the frames' fields are back to back, nothing between them (as simpleperf writes
    /// them): only then is the sample kept for the next one to compare with.
    contiguous: bool,
}

impl ReadChain {
    /// Empties it for the next message.
    pub(super) fn clear(&mut self) {
        self.keys.clear();
        self.starts.clear();
        self.shared = 0;
        self.end = None;
        self.contiguous = true;
    }

    /// The number of root frames taken from the thread's last sample.
    pub(super) fn shared(&self) -> usize {
        self.shared
    }

    /// Reads the next frame, whose field starts at offset `start` and ends at `end`, its
    /// `CallChainEntry` message `entry`.
    #[inline(always)]
    pub(super) fn read(&mut self, start: u32, entry: &[u8], end: u32) -> Result<(), WireError> {
        FrameKey::read_onto(entry, &mut self.keys)?;
        self.follows(start);
        self.starts.push(start);
        self.end = Some(end);
        Ok(())
    }

    /// Takes the fields from offset `start` to `end` as the last sample's `shared` root frames
    /// ([`Resync::shared_from`] found them).
    #[inline(always)]
    pub(super) fn take_rest(&mut self, start: u32, shared: usize, end: u32) {
        self.follows(start);
        self.shared = shared;
        self.end = Some(end);
    }

    /// Reads the frames of `entries` (their `CallChainEntry` messages, leaf first), found field
    /// by field: they are not kept for the next sample. Read root first, as a stack is built:
    /// the error is that of the invalid frame nearest the root.
    pub(super) fn read_whole(&mut self, entries: &[&[u8]]) -> Result<(), WireError> {
        self.clear();
        self.contiguous = false;
        for entry in entries.iter().rev() {
            FrameKey::read_onto(entry, &mut self.keys)?;
        }
        self.keys.reverse();
        Ok(())
    }

    fn follows(&mut self, start: u32) {
        match self.end {
            None => self.first = start,
            Some(end) if end != start => self.contiguous = false,
            Some(_) => {}
        }
    }
}

/// A thread's last sample as the file wrote it, when its frames were one run of fields.
#[derive(Default)]
pub(super) struct LastSample<'a> {
    /// The bytes of its frames' fields, in the input (not copied: the input outlives the
    /// decoding).
    chain: &'a [u8],
    /// Per frame, root first: the offset of its field back from the end of `chain`. Empty when
    /// its frames were not one run, or it had none.
    starts: Vec<u32>,
    /// The bytes of its message after its frames.
    tail: u32,
}

impl<'a> LastSample<'a> {
    /// Where the sample `message`, further on in the same input, can take its root frames from
    /// this one, when this one had `frames` frames and kept where they are, and is at most
    /// [`MAX_REACH`] bytes back.
    #[inline]
    pub(super) fn resync(&self, frames: usize, message: &[u8]) -> Option<Resync<'_>> {
        if self.starts.is_empty() || self.starts.len() != frames {
            return None;
        }
        // Both are slices of the input: the distance of their addresses is that of their offsets.
        let back = (message.as_ptr() as usize).wrapping_sub(self.chain.as_ptr() as usize);
        if back > MAX_REACH {
            return None;
        }
        let end = message.len().checked_sub(self.tail as usize)?;
        Some(Resync {
            starts: &self.starts,
            end: end as u32,
            common: common_suffix(self.chain, &message[..end]),
            cursor: frames,
        })
    }

    /// Keeps sample `message`, whose frames were read into `chain` (the shared ones from this
    /// sample), for the next sample to compare with.
    pub(super) fn remember(&mut self, message: &'a [u8], chain: &ReadChain) {
        let Some(end) = chain.end.filter(|_| chain.contiguous) else {
            self.forget();
            return;
        };
        // The shared frames are as far from the end of the frames as in this sample.
        self.starts.truncate(chain.shared);
        self.starts
            .extend(chain.starts.iter().rev().map(|&start| end - start));
        self.tail = message.len() as u32 - end;
        self.chain = &message[chain.first as usize..end as usize];
    }

    /// Keeps nothing: the next sample is read whole.
    pub(super) fn forget(&mut self) {
        self.starts.clear();
        self.chain = &[];
    }
}

/// The search, along the walk of a sample's message, for where it continues as its thread's
/// last sample.
pub(super) struct Resync<'l> {
    /// The last sample's [`LastSample::starts`].
    starts: &'l [u32],
    /// Where the message's frames end if they end as far from its end as the last sample's.
    end: u32,
    /// The number of bytes the message before `end` and the last sample's frames end with in
    /// common.
    common: usize,
    /// The last sample's frames (root first) whose fields may still start at or before the
    /// offset of the walk: the walk moves towards the end, the offsets only shrink.
    cursor: usize,
}

impl Resync<'_> {
    /// At a frame's field at offset `start` of the message: the number of root frames of the
    /// last sample whose fields are the message's from here to [`Resync::end`], byte for
    /// byte, if the walk can jump there.
    #[inline(always)]
    pub(super) fn shared_from(&mut self, start: u32) -> Option<usize> {
        let before_end = self.end.checked_sub(start)?;
        if before_end as usize > self.common {
            return None;
        }
        let starts = self.starts;
        while self.cursor > 0 && starts[self.cursor - 1] > before_end {
            self.cursor -= 1;
        }
        (self.cursor > 0 && starts[self.cursor - 1] == before_end).then_some(self.cursor)
    }

    /// Where the frames [`Resync::shared_from`] finds end in the message.
    pub(super) fn end(&self) -> u32 {
        self.end
    }
}

/// The number of bytes `a` and `b` end with in common.
#[inline]
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    // 32 bytes at a time from the end while they are the same (compared as vectors), then the
    // block that differs eight bytes at a time: the bytes at higher addresses are the more
    // significant of a little-endian word, so the first that differs is in its leading zeros.
    let mut same = 0;
    for (x, y) in a.rchunks_exact(32).zip(b.rchunks_exact(32)) {
        let (x, y): (&[u8; 32], &[u8; 32]) = (x.try_into().expect("32"), y.try_into().expect("32"));
        if x != y {
            break;
        }
        same += 32;
    }
    let (a, b) = (&a[..n - same], &b[..n - same]);
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

    #[test]
    fn resync_stops_only_at_the_last_samples_frames_inside_the_common_bytes() {
        let last = LastSample {
            chain: b"abcdefghij",
            // Root first: fields 1, 4 and 8 bytes before the end of the frames.
            starts: vec![1, 4, 8],
            // Two bytes after them in the message.
            tail: 2,
        };
        assert!(last.resync(2, b"x").is_none(), "another number of frames");
        assert!(
            last.resync(3, b"x").is_none(),
            "shorter than the last one's tail"
        );
        // The frames end 2 bytes before the end of the message: with "defghij" before it, they
        // end with 5 bytes in common ("fghij").
        let mut r = last.resync(3, b"zzzzzdXfghij--").unwrap();
        assert_eq!((r.end(), r.common), (12, 5));
        assert_eq!(r.shared_from(4), None, "outside the common bytes");
        assert_eq!(r.shared_from(7), None, "not where a frame started");
        assert_eq!(r.shared_from(8), Some(2));
        assert_eq!(r.shared_from(10), None);
        assert_eq!(r.shared_from(11), Some(1));
        assert_eq!(r.shared_from(12), None, "at the end");
    }
}
