//! A frame as a `CallChainEntry` message gives it, read in place.

use super::wire::{Fields, WireError, varint};
use crate::trace::ExecKind;

/// A frame as the file gives it. Frames of a known symbol are one frame whatever the address in
/// it; an address without a symbol is a frame of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct FrameKey {
    /// The address in the file when the symbol is not known; 0 otherwise.
    pub(super) vaddr: u64,
    pub(super) file_id: u32,
    /// -1 (or any negative value) when the function is not known.
    pub(super) symbol_id: i32,
    /// The [`ExecKind`], in a whole word: a key is three words and no padding. A copy of a key
    /// with padding moved the padding in overlapping pieces, and the loads of the copy that
    /// followed waited for them (`perf annotate`: the decoder's hottest instruction on a random
    /// walk).
    kind: u64,
}

impl FrameKey {
    /// Adds the frame of a `CallChainEntry` message to `chain`. The key is pushed from
    /// registers: a key returned by value goes through the stack, its fields stored one by one
    /// and then copied whole, and the copy waits for the stores on every frame.
    #[inline(always)]
    pub(super) fn read_onto(entry: &[u8], chain: &mut Vec<FrameKey>) -> Result<(), WireError> {
        // The fields as simpleperf writes them: one-byte keys of varints. Anything else is
        // read again field by field.
        let (mut vaddr, mut file_id, mut symbol_id, mut kind) = (0, 0, -1, 0);
        let mut rest = entry;
        while let Some((&key, after)) = rest.split_first() {
            rest = after;
            let value = match key {
                0x08 | 0x10 | 0x18 | 0x20 => varint(&mut rest)?,
                _ => return Self::read_any(entry).map(|key| chain.push(key)),
            };
            // Casts as prost's: a uint32 or int32 field keeps the low 32 bits.
            match key {
                0x08 => vaddr = value,
                0x10 => file_id = value as u32,
                0x18 => symbol_id = value as i32,
                _ => kind = value as i32,
            }
        }
        chain.push(Self::new(file_id, symbol_id, vaddr, kind));
        Ok(())
    }

    /// The frame of any valid `CallChainEntry` message: fields in any order and encoding,
    /// unknown ones ([`FrameKey::read_onto`] reads simpleperf's encoding).
    #[cold]
    fn read_any(entry: &[u8]) -> Result<Self, WireError> {
        let (mut vaddr, mut file_id, mut symbol_id, mut kind) = (0, 0, -1, 0);
        let mut fields = Fields::new(entry);
        while let Some((field, value)) = fields.next_field()? {
            match field {
                1 => vaddr = value.varint(1)?,
                2 => file_id = value.varint(2)? as u32,
                3 => symbol_id = value.varint(3)? as i32,
                4 => kind = value.varint(4)? as i32,
                _ => {}
            }
        }
        Ok(Self::new(file_id, symbol_id, vaddr, kind))
    }

    /// The frame of a `CallChainEntry`'s fields (`kind` its `execution_type`).
    #[inline(always)]
    pub(super) fn new(file_id: u32, symbol_id: i32, vaddr: u64, kind: i32) -> Self {
        let kind = match kind {
            1 => ExecKind::Interpreted,
            2 => ExecKind::Jit,
            3 => ExecKind::Art,
            _ => ExecKind::Native,
        };
        Self::of(file_id, symbol_id, vaddr, kind)
    }

    /// The frame at `vaddr` in symbol `symbol_id` (negative: not known) of file `file_id`.
    #[inline(always)]
    pub(super) fn of(file_id: u32, symbol_id: i32, vaddr: u64, kind: ExecKind) -> Self {
        FrameKey {
            vaddr: if symbol_id < 0 { vaddr } else { 0 },
            file_id,
            symbol_id,
            kind: kind as u64,
        }
    }

    pub(super) fn kind(&self) -> ExecKind {
        [ExecKind::Interpreted, ExecKind::Jit, ExecKind::Art]
            .into_iter()
            .find(|&k| k as u64 == self.kind)
            .unwrap_or(ExecKind::Native)
    }
}
