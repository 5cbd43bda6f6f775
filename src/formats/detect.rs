//! Format sniffing by content, never by file name.
//!
//! | first bytes                         | what it is                                     |
//! |-------------------------------------|------------------------------------------------|
//! | `*version`                          | Android key text (a combined `.trace` or a `.key`) |
//! | `SLOW`, u16 version 1..=3           | Android data section alone (a `.data` file)    |
//! | `SLOW`, u16 version 0xF1..=0xF3     | ART streaming trace                            |
//! | `SLOW`, u16 version 4, 5, 0xF4, 0xF5 | ART "format V2" (not supported yet)           |
//! | `SW64`                              | Dalvik's never-shipped 64-bit variant           |
//! | `SIMPLEPERF`                        | simpleperf's report-sample protobuf (`formats::simpleperf`) |
//! | `PERFILE2`                          | a `perf.data` recording (`formats::simpleperf::perf_data`) |
//!
//! Anything else is [`Detected::Unknown`]; the legacy text formats are sniffed by
//! `formats::legacy` (see `formats::read_bytes`).

/// The data magic "SLOW" as a little-endian u32.
pub(crate) const DATA_MAGIC: u32 = 0x574F_4C53;
/// Dalvik's 64-bit data magic "SW64".
pub(crate) const DATA_MAGIC_64: u32 = 0x3436_5753;

/// What the first bytes of a file say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Detected {
    /// Android key text: a combined `.trace`, or a `.key` of a pair.
    AndroidKey,
    /// An Android data section without a key (a `.data` of a pair); `version` is 1..=3.
    AndroidData {
        version: u16,
    },
    /// An ART streaming trace; `version` is the raw header version (0xF1..=0xF3).
    AndroidStreaming {
        version: u16,
    },
    /// ART format V2 (version 4/5, or 0xF4/0xF5 streaming).
    AndroidV2 {
        version: u16,
    },
    /// `SLOW` with a version no reader knows.
    AndroidUnknownVersion {
        version: u16,
    },
    /// Dalvik's 64-bit `SW64` data.
    AndroidSw64,
    /// simpleperf's report-sample protobuf.
    Simpleperf,
    /// A `perf.data` recording (Linux perf's or simpleperf's).
    PerfData,
    Unknown,
}

impl Detected {
    pub(crate) fn is_android(self) -> bool {
        !matches!(
            self,
            Detected::Unknown | Detected::Simpleperf | Detected::PerfData
        )
    }
}

/// Sniffs the format of `bytes`.
pub(crate) fn detect(bytes: &[u8]) -> Detected {
    if bytes.starts_with(b"*version") {
        return Detected::AndroidKey;
    }
    if crate::formats::simpleperf::sniff(bytes) {
        return Detected::Simpleperf;
    }
    if bytes.starts_with(crate::formats::simpleperf::PERF_DATA_MAGIC) {
        return Detected::PerfData;
    }
    if bytes.len() >= 4 {
        let magic = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        if magic == DATA_MAGIC_64 {
            return Detected::AndroidSw64;
        }
        if magic == DATA_MAGIC {
            let version = match bytes.get(4..6) {
                Some(v) => u16::from_le_bytes([v[0], v[1]]),
                None => return Detected::AndroidUnknownVersion { version: 0 },
            };
            return match version {
                1..=3 => Detected::AndroidData { version },
                0xF1..=0xF3 => Detected::AndroidStreaming { version },
                4 | 5 | 0xF4 | 0xF5 => Detected::AndroidV2 { version },
                _ => Detected::AndroidUnknownVersion { version },
            };
        }
    }
    Detected::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow(version: u16) -> Vec<u8> {
        let mut v = b"SLOW".to_vec();
        v.extend_from_slice(&version.to_le_bytes());
        v
    }

    #[test]
    fn sniffs_android_variants() {
        assert_eq!(detect(b"*version\n3\n"), Detected::AndroidKey);
        assert_eq!(detect(&slow(3)), Detected::AndroidData { version: 3 });
        assert_eq!(
            detect(&slow(0xF3)),
            Detected::AndroidStreaming { version: 0xF3 }
        );
        assert_eq!(detect(&slow(5)), Detected::AndroidV2 { version: 5 });
        assert_eq!(detect(&slow(0xF4)), Detected::AndroidV2 { version: 0xF4 });
        assert_eq!(
            detect(&slow(9)),
            Detected::AndroidUnknownVersion { version: 9 }
        );
        assert_eq!(detect(b"SW64\x03\x00"), Detected::AndroidSw64);
        assert_eq!(
            detect(b"SLOW"),
            Detected::AndroidUnknownVersion { version: 0 }
        );
        assert_eq!(detect(b"SIMPLEPERF\x01\x00"), Detected::Simpleperf);
        assert_eq!(detect(b"12 34 { foo"), Detected::Unknown);
        assert_eq!(detect(b""), Detected::Unknown);
    }
}
