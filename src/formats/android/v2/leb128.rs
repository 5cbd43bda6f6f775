//! LEB128 numbers as ART writes them (`libartbase/base/leb128.h`): seven bits a byte, least
//! significant group first, the high bit set on every byte but the last. Decoding is checked:
//! a number that runs past the end of its slice, or has more than ten bytes, is `None`.

/// The most bytes a 64-bit number takes.
const MAX_BYTES: usize = 10;

/// A number of two bytes at `bytes[pos..]` (the most common length of a time delta): its
/// value, or None when it is longer or cut.
#[inline(always)]
fn two_bytes(bytes: &[u8], pos: usize, first: u8) -> Option<u64> {
    let second = *bytes.get(pos + 1)?;
    (second < 0x80).then_some((first & 0x7F) as u64 | (second as u64) << 7)
}

/// Decodes an unsigned number at `bytes[*pos..]`, moving `pos` past it. Bits past the 64th are
/// dropped (ART never writes them).
#[inline(always)]
pub(crate) fn read_unsigned(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let first = *bytes.get(*pos)?;
    if first < 0x80 {
        *pos += 1;
        return Some(first as u64);
    }
    if let Some(value) = two_bytes(bytes, *pos, first) {
        *pos += 2;
        return Some(value);
    }
    let mut value = 0u64;
    for (i, &b) in bytes.get(*pos..)?.iter().take(MAX_BYTES).enumerate() {
        value |= ((b & 0x7F) as u64).wrapping_shl(7 * i as u32);
        if b < 0x80 {
            *pos += i + 1;
            return Some(value);
        }
    }
    None
}

/// Decodes a signed number at `bytes[*pos..]` (the last byte's bit 6 is the sign), moving
/// `pos` past it.
#[inline(always)]
pub(crate) fn read_signed(bytes: &[u8], pos: &mut usize) -> Option<i64> {
    let first = *bytes.get(*pos)?;
    if first < 0x80 {
        *pos += 1;
        // Sign-extend the seven bits.
        return Some(((first << 1) as i8 >> 1) as i64);
    }
    if let Some(value) = two_bytes(bytes, *pos, first) {
        *pos += 2;
        // Sign-extend the fourteen bits.
        return Some(((value << 50) as i64) >> 50);
    }
    let mut value = 0u64;
    for (i, &b) in bytes.get(*pos..)?.iter().take(MAX_BYTES).enumerate() {
        let shift = 7 * i as u32;
        value |= ((b & 0x7F) as u64).wrapping_shl(shift);
        if b < 0x80 {
            *pos += i + 1;
            let bits = shift + 7;
            if bits < 64 && b & 0x40 != 0 {
                value |= u64::MAX << bits;
            }
            return Some(value as i64);
        }
    }
    None
}

/// Appends `value` unsigned.
pub(crate) fn write_unsigned(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let b = (value & 0x7F) as u8;
        value >>= 7;
        if value == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends `value` signed.
pub(crate) fn write_signed(out: &mut Vec<u8>, mut value: i64) {
    loop {
        let b = (value & 0x7F) as u8;
        value >>= 7;
        let done = (value == 0 && b & 0x40 == 0) || (value == -1 && b & 0x40 != 0);
        if done {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// How many numbers end in `bytes`: a number ends at each byte without the high bit. Lets the
/// framing check a block's record count without decoding it.
pub(crate) fn count_ends(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b < 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edges() {
        for v in [
            0u64,
            1,
            63,
            64,
            127,
            128,
            300,
            1 << 32,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            write_unsigned(&mut out, v);
            let mut pos = 0;
            assert_eq!(read_unsigned(&out, &mut pos), Some(v));
            assert_eq!(pos, out.len());
        }
        for v in [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            -65,
            1 << 40,
            -(1 << 40),
            i64::MIN,
            i64::MAX,
        ] {
            let mut out = Vec::new();
            write_signed(&mut out, v);
            let mut pos = 0;
            assert_eq!(read_signed(&out, &mut pos), Some(v), "{v}");
            assert_eq!(pos, out.len());
        }
    }

    #[test]
    fn the_two_byte_path_and_the_loop_agree() {
        // Numbers of every length, with and without 8 bytes after their start.
        let mut values: Vec<u64> = (0..64).map(|b| 1u64 << b).collect();
        values.extend(values.clone().iter().map(|v| v - 1));
        values.extend([0x0123_4567_89AB_CDEF, u64::MAX / 3, 1000, 999_999_000]);
        for &v in &values {
            for tail in [0usize, 9] {
                let mut out = Vec::new();
                write_unsigned(&mut out, v);
                write_signed(&mut out, v as i64);
                write_signed(&mut out, (v as i64).wrapping_neg());
                out.resize(out.len() + tail, 0);
                let mut pos = 0;
                assert_eq!(read_unsigned(&out, &mut pos), Some(v));
                assert_eq!(read_signed(&out, &mut pos), Some(v as i64));
                assert_eq!(read_signed(&out, &mut pos), Some((v as i64).wrapping_neg()));
                assert_eq!(pos, out.len() - tail);
            }
        }
    }

    #[test]
    fn known_encodings() {
        // leb128.h's examples: 624485 unsigned, -123456 signed.
        let mut pos = 0;
        assert_eq!(read_unsigned(&[0xE5, 0x8E, 0x26], &mut pos), Some(624485));
        pos = 0;
        assert_eq!(read_signed(&[0xC0, 0xBB, 0x78], &mut pos), Some(-123456));
    }

    #[test]
    fn damaged_numbers_are_none() {
        let mut pos = 0;
        assert_eq!(read_unsigned(&[0x80, 0x80], &mut pos), None);
        assert_eq!(read_signed(&[0xFF], &mut pos), None);
        assert_eq!(read_unsigned(&[0xFF; 11], &mut pos), None);
        assert_eq!(read_unsigned(&[], &mut pos), None);
        assert_eq!(pos, 0);
        assert_eq!(count_ends(&[0x80, 0x01, 0x05, 0xFF]), 2);
    }
}
