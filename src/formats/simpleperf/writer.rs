//! Writes report-sample protobufs: the container (magic, version, sized records, end) around
//! [`proto::Record`]s. Used by the generator and by tests.

use std::io::{self, Write};

use prost::Message;

use super::MAGIC;
use super::proto::{self, RecordData};

/// Writes records of a report-sample protobuf to `out`, counting the bytes written.
pub struct RecordWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    pub bytes: u64,
    pub records: u64,
}

impl<W: Write> RecordWriter<W> {
    /// Writes the header (magic and version 1).
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(MAGIC)?;
        out.write_all(&1u16.to_le_bytes())?;
        Ok(RecordWriter {
            out,
            buf: Vec::new(),
            bytes: MAGIC.len() as u64 + 2,
            records: 0,
        })
    }

    /// Writes one record.
    pub fn write(&mut self, data: RecordData) -> io::Result<()> {
        self.buf.clear();
        proto::Record {
            record_data: Some(data),
        }
        .encode(&mut self.buf)
        .map_err(io::Error::other)?;
        let size = u32::try_from(self.buf.len()).map_err(io::Error::other)?;
        self.out.write_all(&size.to_le_bytes())?;
        self.out.write_all(&self.buf)?;
        self.bytes += 4 + self.buf.len() as u64;
        self.records += 1;
        Ok(())
    }

    /// Writes the end record (a size of 0) and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&0u32.to_le_bytes())?;
        self.bytes += 4;
        Ok(self.out)
    }
}
