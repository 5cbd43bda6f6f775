//! Bytes sources and loading.
//!
//! A file is memory-mapped read-only (falling back to reading it into memory when mapping fails,
//! e.g. for pipes or special files); readers see `&[u8]` either way. [`load_path`] detects the
//! format and builds the trace; the GUI calls it on a rayon worker with a shared [`Progress`].

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::formats::{self, FormatError, Progress, ReadContext};
use crate::trace::Trace;

/// The bytes of an input file.
pub enum Source {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Source {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Source::Mapped(m) => m,
            Source::Owned(v) => v,
        }
    }
}

impl Source {
    /// Opens `path` read-only: a memory map, or a plain read when mapping is not possible.
    pub fn open(path: &Path) -> std::io::Result<Source> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only and private to this process. Another process truncating
            // or rewriting the file while it is mapped could change the bytes under us (or fault
            // on truncation); that is the accepted risk of every mmap-based reader, and readers
            // treat the bytes as untrusted input in any case.
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                return Ok(Source::Mapped(map));
            }
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(Source::Owned(bytes))
    }
}

/// Why a file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {error}", path.display())]
    Format { path: PathBuf, error: FormatError },
}

/// Reads and parses the file at `path`.
pub fn load_path(path: &Path, progress: &Progress) -> Result<Trace, LoadError> {
    let source = Source::open(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_bytes(path, &source, progress)
}

/// Parses `bytes` that came from `path` (the path is used for messages and as a hint only).
pub fn load_bytes(path: &Path, bytes: &[u8], progress: &Progress) -> Result<Trace, LoadError> {
    progress
        .bytes_total
        .store(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
    let ctx = ReadContext {
        path: Some(path),
        progress,
    };
    formats::read_bytes(bytes, &ctx).map_err(|error| LoadError::Format {
        path: path.to_path_buf(),
        error,
    })
}
