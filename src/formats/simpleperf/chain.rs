//! A thread's stacks from one sample to the next, compared as the file writes them.
//!
//! A sample's frames are written leaf first, so a sample ends like its thread's previous sample:
//! the callers it shares with it are its last frames, most often in the same bytes (a caller's
//! address is where it made its call), followed by the same event count and type. Reading the
//! frames is most of the cost of a sample, so the reader first compares the whole message with
//! the thread's previous one from their end ([`common_suffix`], eight bytes at a time), then
//! walks the message from its start only until a frame's field starts, inside the bytes they
//! share, where one of the previous sample's frames started, counted back from the end
//! ([`Resync`]). From there on the message is the previous one's bytes from that frame on: a
//! message read from a field's start depends on nothing before it, and in the previous message
//! those bytes were frames, back to back, then fields that are no frame. So they are the same
//! frames (the previous sample's root frames, [`ReadChain::shared`]) and the walk jumps to the
//! fields after them. Only the leading frames are read; those are then compared with the previous
//! sample's by key (another address in a known symbol is the same frame), and only the frames
//! after that are looked up.

use super::decode::FrameKey;
use super::wire::WireError;

/// The frames of the sample being read: those read, and how many root frames it takes from its
/// thread's last sample.
#[derive(Default)]
pub(super) struct ReadChain {
    /// The frames read, leaf first.
    pub(super) keys: Vec<FrameKey>,
    /// Per frame read, leaf first: the offset of its field back from the end of the message.
    starts: Vec<u32>,
    /// The number of root frames that are the thread's last sample's, byte for byte.
    shared: usize,
    /// The offset back from the end of the message where the last frame's field ends.
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

    /// Reads the next frame, whose field starts `start` bytes before the end of the message,
    /// its `CallChainEntry` message `entry` ending `end` bytes before it.
    #[inline(always)]
    pub(super) fn read(&mut self, start: u32, entry: &[u8], end: u32) -> Result<(), WireError> {
        FrameKey::read_onto(entry, &mut self.keys)?;
        self.follows(start);
        self.starts.push(start);
        self.end = Some(end);
        Ok(())
    }

    /// Takes the frames from the field `start` bytes before the end of the message to the end
    /// of `resync`'s frames as the last sample's root frames ([`Resync::shared_from`] said how
    /// many); returns where the fields after them start, back from the end.
    #[inline(always)]
    pub(super) fn take_rest(&mut self, start: u32, shared: usize, resync: &Resync) -> u32 {
        self.follows(start);
        self.shared = shared;
        self.end = Some(resync.last.tail);
        resync.last.tail
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
        if self.end.is_some_and(|end| end != start) {
            self.contiguous = false;
        }
    }
}

/// A thread's last sample as the file wrote it, when its frames were one run of fields.
#[derive(Default)]
pub(super) struct LastSample {
    /// Its `Sample` message.
    message: Vec<u8>,
    /// Per frame, root first: the offset of its field back from the end of the message. Empty
    /// when its frames were not one run, or it had none.
    starts: Vec<u32>,
    /// The offset back from the end of the message of the fields after its frames.
    tail: u32,
}

impl LastSample {
    /// Where the sample `message` can take its root frames from this one, when this one had
    /// `frames` frames and kept where they are.
    #[inline]
    pub(super) fn resync(&self, frames: usize, message: &[u8]) -> Option<Resync<'_>> {
        (!self.starts.is_empty() && self.starts.len() == frames).then(|| Resync {
            last: self,
            common: common_suffix(&self.message, message),
            cursor: frames,
        })
    }

    /// Keeps sample `message`, whose frames were read into `chain` (the shared ones from this
    /// sample), for the next sample to compare with.
    pub(super) fn remember(&mut self, message: &[u8], chain: &ReadChain) {
        let Some(tail) = chain.end.filter(|_| chain.contiguous) else {
            self.forget();
            return;
        };
        // The shared frames are at the same offsets from the end as in this sample.
        self.starts.truncate(chain.shared);
        self.starts.extend(chain.starts.iter().rev());
        self.tail = tail;
        self.message.clear();
        self.message.extend_from_slice(message);
    }

    /// Keeps nothing: the next sample is read whole.
    pub(super) fn forget(&mut self) {
        self.starts.clear();
        self.message.clear();
    }
}

/// The search, along the walk of a sample's message, for where it continues as its thread's
/// last sample.
pub(super) struct Resync<'l> {
    last: &'l LastSample,
    /// The number of bytes the two messages end with in common.
    common: usize,
    /// The last sample's frames (root first) whose fields may still start at or before the
    /// offset of the walk: the walk moves towards the end, the offsets only shrink.
    cursor: usize,
}

impl Resync<'_> {
    /// At a frame's field `start` bytes before the end of the message being read: the number of
    /// root frames of the last sample whose fields are the message's from here on, byte for
    /// byte, if the walk can stop reading frames here.
    #[inline(always)]
    pub(super) fn shared_from(&mut self, start: u32) -> Option<usize> {
        if start as usize > self.common {
            return None;
        }
        let starts = &self.last.starts;
        while self.cursor > 0 && starts[self.cursor - 1] > start {
            self.cursor -= 1;
        }
        (self.cursor > 0 && starts[self.cursor - 1] == start).then_some(self.cursor)
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

    #[test]
    fn resync_stops_only_at_the_last_samples_frames_inside_the_common_bytes() {
        let last = LastSample {
            message: b"..abcdefghij".to_vec(),
            // Root first: fields 2, 5 and 9 bytes before the end; the tail is the last byte.
            starts: vec![2, 5, 9],
            tail: 1,
        };
        assert!(last.resync(2, b"x").is_none(), "another number of frames");
        // The messages end with "efghij" in common: 6 bytes.
        let mut r = last.resync(3, b"zzzzzefghij").unwrap();
        assert_eq!(r.common, 6);
        assert_eq!(r.shared_from(9), None, "outside the common bytes");
        assert_eq!(r.shared_from(6), None, "not where a frame started");
        assert_eq!(r.shared_from(5), Some(2));
        assert_eq!(r.shared_from(3), None);
        assert_eq!(r.shared_from(2), Some(1));
    }
}
