//! The protobuf wire format, read in place: the fields of a message one by one, with no
//! allocation. The reader walks the `Sample` messages with it (they are nearly every record,
//! and a message per frame is what made a general decoder slow); prost decodes the rest.
//!
//! It accepts what prost accepts and refuses what prost refuses for the fields it reads: a
//! varint of more than 10 bytes, a length past the message's end, a known field with the wrong
//! wire type. Unknown fields are skipped, groups included.

use std::fmt;

/// Why a message could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WireError {
    /// The message ends inside a field.
    Truncated,
    /// A varint longer than 10 bytes, or one that does not fit in 64 bits.
    BadVarint,
    /// A key with field number 0, a wire type 6 or 7, or an unmatched end of group.
    BadKey,
    /// A field the reader knows, with another wire type than its schema's.
    WrongWireType { field: u32 },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated => f.write_str("the message ends inside a field"),
            WireError::BadVarint => f.write_str("invalid varint"),
            WireError::BadKey => f.write_str("invalid field key"),
            WireError::WrongWireType { field } => {
                write!(f, "field {field} has the wrong wire type")
            }
        }
    }
}

/// A field's value as the wire gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Value<'a> {
    Varint(u64),
    /// A length-delimited field: a string, bytes or a message.
    Bytes(&'a [u8]),
    /// A fixed-width field (32 or 64 bits) or a group, which the reader never needs.
    Other,
}

impl<'a> Value<'a> {
    /// The value of varint field `field`.
    #[inline]
    pub(super) fn varint(self, field: u32) -> Result<u64, WireError> {
        match self {
            Value::Varint(v) => Ok(v),
            _ => Err(WireError::WrongWireType { field }),
        }
    }

    /// The bytes of length-delimited field `field`.
    #[inline]
    pub(super) fn bytes(self, field: u32) -> Result<&'a [u8], WireError> {
        match self {
            Value::Bytes(b) => Ok(b),
            _ => Err(WireError::WrongWireType { field }),
        }
    }
}

/// The fields of one message, in order.
pub(super) struct Fields<'a> {
    rest: &'a [u8],
}

/// Groups nested deeper than this in an unknown field make the message invalid (prost's
/// recursion limit).
const MAX_GROUP_DEPTH: u32 = 100;

impl<'a> Fields<'a> {
    pub(super) fn new(message: &'a [u8]) -> Self {
        Fields { rest: message }
    }

    /// The next field's number and value; None at the end of the message.
    #[inline(always)]
    pub(super) fn next_field(&mut self) -> Result<Option<(u32, Value<'a>)>, WireError> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let (field, wire_type) = self.key()?;
        self.value(field, wire_type, 0).map(|v| Some((field, v)))
    }

    #[inline]
    fn key(&mut self) -> Result<(u32, u8), WireError> {
        let key = varint(&mut self.rest)?;
        let field = u32::try_from(key >> 3).map_err(|_| WireError::BadKey)?;
        if field == 0 {
            return Err(WireError::BadKey);
        }
        Ok((field, (key & 7) as u8))
    }

    #[inline]
    fn value(&mut self, field: u32, wire_type: u8, depth: u32) -> Result<Value<'a>, WireError> {
        match wire_type {
            0 => varint(&mut self.rest).map(Value::Varint),
            2 => {
                let len = varint(&mut self.rest)?;
                let len = usize::try_from(len).map_err(|_| WireError::Truncated)?;
                let bytes = self.rest.get(..len).ok_or(WireError::Truncated)?;
                self.rest = &self.rest[len..];
                Ok(Value::Bytes(bytes))
            }
            1 => self.skip(8),
            5 => self.skip(4),
            3 => self.skip_group(field, depth),
            _ => Err(WireError::BadKey),
        }
    }

    fn skip(&mut self, n: usize) -> Result<Value<'a>, WireError> {
        self.rest = self.rest.get(n..).ok_or(WireError::Truncated)?;
        Ok(Value::Other)
    }

    /// Skips the fields of group `field` up to its end-of-group key.
    fn skip_group(&mut self, field: u32, depth: u32) -> Result<Value<'a>, WireError> {
        if depth >= MAX_GROUP_DEPTH {
            return Err(WireError::BadKey);
        }
        loop {
            if self.rest.is_empty() {
                return Err(WireError::Truncated);
            }
            let (inner, wire_type) = self.key()?;
            if wire_type == 4 {
                return if inner == field {
                    Ok(Value::Other)
                } else {
                    Err(WireError::BadKey)
                };
            }
            self.value(inner, wire_type, depth + 1)?;
        }
    }
}

/// Reads a varint at the start of `buf` and moves `buf` past it.
#[inline(always)]
pub(super) fn varint(buf: &mut &[u8]) -> Result<u64, WireError> {
    // Most values here (field keys, small ids) fit in one byte.
    if let Some((&b, rest)) = buf.split_first()
        && b < 0x80
    {
        *buf = rest;
        return Ok(u64::from(b));
    }
    if let Some(word) = buf.first_chunk::<8>() {
        let word = u64::from_le_bytes(*word);
        // The high bit of each byte that ends a varint, at most 8 bytes long.
        let stops = !word & 0x8080_8080_8080_8080;
        if stops != 0 {
            // The bits of the varint's bytes, their continuation bits cleared.
            let bits = word & (stops ^ (stops - 1)) & 0x7f7f_7f7f_7f7f_7f7f;
            *buf = &buf[(stops.trailing_zeros() / 8 + 1) as usize..];
            return Ok(compress_7bit_groups(bits));
        }
    }
    varint_bytewise(buf)
}

/// The value of up to eight 7-bit groups, one in each byte of `bits` (least significant
/// first, the high bit of each byte clear), packed side by side.
#[inline(always)]
fn compress_7bit_groups(bits: u64) -> u64 {
    // Pairs of groups into 14 bits per 16, then 28 per 32, then 56.
    let x = (bits & 0x007f_007f_007f_007f) | ((bits & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

/// [`varint`] a byte at a time: within 8 bytes of the end of `buf`, and for varints of 9 or
/// 10 bytes.
#[inline]
fn varint_bytewise(buf: &mut &[u8]) -> Result<u64, WireError> {
    let mut value = 0u64;
    for (i, &b) in buf.iter().take(10).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            // A tenth byte holds the 64th bit alone.
            if i == 9 && b > 1 {
                return Err(WireError::BadVarint);
            }
            *buf = &buf[i + 1..];
            return Ok(value);
        }
    }
    Err(if buf.len() < 10 {
        WireError::Truncated
    } else {
        WireError::BadVarint
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_read_as_prost_writes_them() {
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            u64::from(u32::MAX),
            u64::MAX,
            (-5i64) as u64,
        ] {
            let mut buf = Vec::new();
            prost::encoding::encode_varint(v, &mut buf);
            let mut s = &buf[..];
            assert_eq!(varint(&mut s), Ok(v));
            assert!(s.is_empty());
            assert!(varint(&mut &buf[..buf.len() - 1]).is_err());
        }
        assert_eq!(varint(&mut &[0xff; 11][..]), Err(WireError::BadVarint));
        assert_eq!(varint(&mut &[0x80][..]), Err(WireError::Truncated));
    }

    #[test]
    fn varints_of_every_length_read_the_same_with_any_bytes_after_them() {
        // Values of 1 to 10 bytes, each followed by 0 to 9 bytes that are not part of it (with
        // their high bit set or clear): read eight bytes at once, or a byte at a time near the end.
        let mut values: Vec<u64> = (0..64).map(|bits| (1u64 << bits) - 1).collect();
        values.extend((0..64).map(|bits| 1u64 << bits));
        values.extend([
            0x1234_5678_9abc_def0,
            0x8080_8080_8080_8080,
            300,
            16_383,
            16_384,
        ]);
        for v in values {
            for after in 0..10 {
                for filler in [0x00u8, 0x7f, 0x80, 0xff] {
                    let mut buf = Vec::new();
                    prost::encoding::encode_varint(v, &mut buf);
                    let len = buf.len();
                    buf.extend(std::iter::repeat_n(filler, after));
                    let mut s = &buf[..];
                    assert_eq!(varint(&mut s), Ok(v), "{v:#x} then {after} x {filler:#x}");
                    assert_eq!(s.len(), after);
                    let mut cut = &buf[..len - 1];
                    assert!(varint(&mut cut).is_err());
                }
            }
        }
        // Nine bytes of continuation then a tenth over 1: more than 64 bits.
        let mut long = vec![0xff; 9];
        long.extend([0x02, 0x00, 0x00]);
        assert_eq!(varint(&mut &long[..]), Err(WireError::BadVarint));
    }

    #[test]
    fn fields_skip_what_they_do_not_know() {
        // field 1 varint 5; field 2 fixed64; field 3 group holding field 1 varint; field 4 bytes.
        let msg = [
            0x08, 5, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b, 0x08, 1, 0x1c, 0x22, 2, b'h', b'i',
        ];
        let mut f = Fields::new(&msg);
        assert_eq!(f.next_field(), Ok(Some((1, Value::Varint(5)))));
        assert_eq!(f.next_field(), Ok(Some((2, Value::Other))));
        assert_eq!(f.next_field(), Ok(Some((3, Value::Other))));
        assert_eq!(f.next_field(), Ok(Some((4, Value::Bytes(b"hi")))));
        assert_eq!(f.next_field(), Ok(None));
        // A length past the end, a field number 0.
        assert!(Fields::new(&[0x22, 5, b'h']).next_field().is_err());
        assert!(Fields::new(&[0x00, 1]).next_field().is_err());
    }
}
