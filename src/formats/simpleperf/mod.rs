//! simpleperf's sampled profiles: the protobuf that `simpleperf report-sample --protobuf`
//! writes and Android Studio saves as a "Callstack Sample" `.trace`.
//!
//! | bytes           | what                                                             |
//! |-----------------|------------------------------------------------------------------|
//! | 10              | the magic `SIMPLEPERF`                                           |
//! | 2               | version, little-endian u16 (1)                                   |
//! | 4 + n, repeated | a record: its size n as a little-endian u32, then a `Record` message of n bytes |
//! | 4               | a size of 0: the end                                             |
//!
//! The messages are those of simpleperf's `cmd_report_sample.proto` ([`proto`]): `Sample` (a
//! time in ns, a thread, a stack leaf first, an event count and type), `LostSituation`, `File`
//! (a path and its symbol table), `Thread`, `MetaInfo` and `ContextSwitch`. Files and threads
//! come after the samples that name them, so names are resolved once every record is read
//! ([`build`]).
//!
//! The model: a method is a symbol as the file writes it (`name`) in the file it came from
//! (`class`: the library, dex, oat or apk path). An address without a symbol reads
//! `libfoo.so+0x1a2b` (the file's base name and the address in it): no name is invented. The
//! samples go to the trace's sample table ([`crate::trace::Samples`]); calls are synthesized
//! from them so that every view of calls works (see [`build`] for the rule and its times).
//!
//! The input is untrusted: every size is checked against the bytes that remain before anything
//! is allocated for it, a damaged record is skipped with a diagnostic, a truncated tail keeps
//! what came before it.
//!
//! The `perf.data` that `simpleperf record` (and Linux `perf record`) writes is read into the
//! same samples by [`perf_data`].

mod build;
mod chain;
mod decode;
mod frame;
pub mod perf_data;
pub mod proto;
mod split;
pub mod synth;
mod wire;
pub mod writer;

use crate::formats::{FormatError, ReadContext};
use crate::trace::{Builder, Location};

/// The format's name in the model and in messages.
pub const FORMAT: &str = "simpleperf";

/// The file's first bytes.
pub const MAGIC: &[u8; 10] = b"SIMPLEPERF";

/// The first bytes of a `perf.data` file, which `simpleperf record` and `perf record` write.
pub const PERF_DATA_MAGIC: &[u8; 8] = b"PERFILE2";

/// Magic and version.
const HEADER_LEN: usize = MAGIC.len() + 2;

/// Whether `bytes` start like a simpleperf protobuf.
pub(crate) fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Reads a report-sample protobuf into a builder: the samples in its sample table, the calls
/// made from them as each thread's events.
pub fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Builder, FormatError> {
    let version = check_header(bytes)?;
    let decoded = decode::decode(bytes, ctx)?;
    Ok(build::build(
        decoded,
        FORMAT,
        Some(version),
        bytes.len() as u64,
    ))
}

/// The first step of [`read`] alone, for benchmarks: every record decoded and the stacks
/// interned, no names resolved and no calls made. Returns the number of samples.
pub fn decode_samples(bytes: &[u8], ctx: &ReadContext) -> Result<usize, FormatError> {
    check_header(bytes)?;
    Ok(decode::decode(bytes, ctx)?.samples.len())
}

/// The version in the header.
fn check_header(bytes: &[u8]) -> Result<u16, FormatError> {
    match bytes.get(MAGIC.len()..HEADER_LEN) {
        Some(v) if bytes.starts_with(MAGIC) => Ok(u16::from_le_bytes([v[0], v[1]])),
        _ => Err(FormatError::new(
            FORMAT,
            Location::Offset(0),
            "expected 'SIMPLEPERF' and a 2-byte version at the start",
        )),
    }
}

#[cfg(test)]
mod tests;
