//! Names that keep the bytes they were read from.
//!
//! A trace's key names methods in bytes that are nearly always UTF-8. The model holds text, so a
//! byte that is not part of valid UTF-8 is held as one private-use character, U+10FF80 + (byte −
//! 0x80), instead of U+FFFD: the reports that must print a name's bytes as they were (dmtracedump's
//! profile prints them raw) write them back with [`to_bytes`], and everything else reads ordinary
//! text. Those 128 characters are encoded in UTF-8 as `F4 8F BE xx` and `F4 8F BF xx`; a name
//! that holds one of them as real text has each of its four bytes escaped the same way, so the
//! way back is exact for any input.
//!
//! ```
//! use tracelens::trace::raw_text::{from_bytes, to_bytes};
//!
//! let raw = b"caf\xe9.run";
//! let text = from_bytes(raw);
//! assert_ne!(text, "caf\u{fffd}.run");
//! assert_eq!(&*to_bytes(&text), raw);
//! assert_eq!(from_bytes(b"plain"), "plain");
//! ```

use std::borrow::Cow;

/// The character that stands for byte 0x80: byte `b` is `ESCAPE_BASE + (b - 0x80)`.
const ESCAPE_BASE: u32 = 0x10_FF80;

/// The first two bytes of every escape character in UTF-8.
const ESCAPE_LEAD: [u8; 2] = [0xF4, 0x8F];

fn escape(b: u8) -> char {
    debug_assert!(b >= 0x80);
    char::from_u32(ESCAPE_BASE + u32::from(b - 0x80)).expect("U+10FF80..=U+10FFFF are chars")
}

fn unescape(c: char) -> Option<u8> {
    let n = u32::from(c).checked_sub(ESCAPE_BASE)?;
    u8::try_from(n + 0x80).ok()
}

/// Whether UTF-8 `bytes` may hold an escape character (they hold the lead bytes of one).
fn may_hold_escapes(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, &ESCAPE_LEAD).is_some()
}

/// `bytes` as text: valid UTF-8 as it is (borrowed), every other byte as its escape character.
pub fn from_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes)
        && !may_hold_escapes(bytes)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if unescape(c).is_some() {
                let mut utf8 = [0u8; 4];
                out.extend(c.encode_utf8(&mut utf8).bytes().map(escape));
            } else {
                out.push(c);
            }
        }
        out.extend(chunk.invalid().iter().map(|&b| escape(b)));
    }
    Cow::Owned(out)
}

/// The bytes `text` was read from by [`from_bytes`] (its UTF-8 when it holds no escapes).
pub fn to_bytes(text: &str) -> Cow<'_, [u8]> {
    if !may_hold_escapes(text.as_bytes()) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match unescape(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// A writer that writes text made by [`from_bytes`] as the bytes it was read from: each write
/// is taken as whole UTF-8 text (as `write!` hands over its pieces) and written through
/// [`to_bytes`]; bytes that are not UTF-8 pass unchanged.
pub struct RawBytes<W>(pub W);

impl<W: std::io::Write> std::io::Write for RawBytes<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(&to_bytes(text)).map(|()| buf.len()),
            Err(_) => self.0.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_string_comes_back() {
        let cases: [&[u8]; 8] = [
            b"",
            b"plain ascii",
            "é and ü".as_bytes(),
            b"\xff\xfe\x80",
            b"half \xe2\x82 of a euro",
            // An escape character written as real text.
            "\u{10ff80}\u{10ffff}x".as_bytes(),
            b"\xf4\x8f\xbe",
            b"\xf4\x8f\xbe\x80\xf4",
        ];
        for raw in cases {
            let text = from_bytes(raw);
            assert_eq!(&*to_bytes(&text), raw, "{raw:?}");
        }
        // Every single byte and every pair of bytes.
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let raw = [a, b'x', b, a];
                assert_eq!(&*to_bytes(&from_bytes(&raw)), raw);
            }
        }
    }

    #[test]
    fn valid_text_is_borrowed_both_ways() {
        assert!(matches!(
            from_bytes("a/B.run ()V".as_bytes()),
            Cow::Borrowed(_)
        ));
        assert!(matches!(to_bytes("a/B.run ()V"), Cow::Borrowed(_)));
        assert!(matches!(from_bytes(b"\xff"), Cow::Owned(_)));
    }

    #[test]
    fn raw_bytes_writes_escapes_as_their_bytes() {
        use std::io::Write;
        let name = from_bytes(b"caf\xe9.run");
        let mut out = RawBytes(Vec::new());
        write!(out, "<{name}> {}", 7).unwrap();
        assert_eq!(out.0, b"<caf\xe9.run> 7");
    }
}
