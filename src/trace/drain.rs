//! Reading a thread's event columns once, front to back, while giving their memory back.
//!
//! The lanes a thread's events become take about as many bytes as the events (24 bytes a
//! call against 12 bytes a record on two clocks). Freed only when its thread is done, a large
//! thread's events and lanes would be held together, and the peak of a load would be the
//! decoded events of every thread plus the lanes of the threads being built. A [`Drain`] cuts
//! a column into pieces and drops each piece once it has been read, so a thread's memory moves
//! from its events to its lanes as it is built.

/// The bytes of one piece: above glibc's largest dynamic mmap threshold (32 MiB on 64-bit
/// targets), so every piece is a mapping of its own, returned to the system when dropped,
/// whatever pieces were freed before (a freed mapping below that size raises the threshold,
/// and pieces of that size would then come from, and be freed back into, the heap).
const PIECE_BYTES: usize = 36 << 20;

/// A column read once, front to back, whose memory is given back a piece at a time as the
/// reading passes it. A column of one piece or less is read in place; a longer one is cut
/// from its end (each piece copied out, the column then truncated and shrunk), so cutting it
/// needs one piece more than the column.
pub(crate) struct Drain<T> {
    /// The pieces still to read, the next one last.
    rest: Vec<Vec<T>>,
    current: std::vec::IntoIter<T>,
}

impl<T: Copy> Drain<T> {
    pub(crate) fn new(column: Vec<T>) -> Self {
        Self::with_piece(column, PIECE_BYTES / size_of::<T>().max(1))
    }

    fn with_piece(mut column: Vec<T>, piece: usize) -> Self {
        let piece = piece.max(1);
        let mut rest = Vec::with_capacity(column.len().div_ceil(piece));
        while column.len() > piece {
            let at = (column.len() - 1) / piece * piece;
            rest.push(column[at..].to_vec());
            column.truncate(at);
            column.shrink_to_fit();
        }
        rest.push(column);
        Self {
            rest,
            current: Vec::new().into_iter(),
        }
    }
}

impl<T> Iterator for Drain<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(x) = self.current.next() {
                return Some(x);
            }
            // Replacing the finished piece drops it.
            self.current = self.rest.pop()?.into_iter();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drain_yields_the_column_in_order_for_any_piece_size() {
        for len in [0usize, 1, 2, 7, 8, 9, 64, 65, 1000] {
            let column: Vec<u32> = (0..len as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            for piece in [1usize, 2, 3, 8, 64, 10_000] {
                let read: Vec<u32> = Drain::with_piece(column.clone(), piece).collect();
                assert_eq!(read, column, "len {len}, piece {piece}");
            }
        }
    }

    #[test]
    fn a_long_column_is_cut_into_pieces_of_the_given_size() {
        let d = Drain::with_piece((0..10u64).collect(), 4);
        let sizes: Vec<usize> = d.rest.iter().rev().map(Vec::len).collect();
        assert_eq!(sizes, [4, 4, 2]);
        // Every piece but the first is a copy at its exact size, the first shrunk to it.
        assert!(d.rest.iter().all(|p| p.capacity() == p.len()));
    }
}
