//! Bytes sources and loading.
//!
//! A file is memory-mapped read-only (falling back to reading it into memory when mapping fails,
//! e.g. for pipes or special files); readers see `&[u8]` either way. [`load_path`] detects the
//! format and builds the trace; the GUI calls it on a rayon worker with a shared [`Progress`].

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::formats::{self, FormatError, Parsed, Progress, ReadContext};
use crate::trace::Trace;

/// The bytes of an input file.
pub(crate) enum Source {
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
    pub(crate) fn open(path: &Path) -> std::io::Result<Source> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only and private to this process. Another process truncating
            // or rewriting the file while it is mapped could change the bytes under us (or fault
            // on truncation); that is the accepted risk of every mmap-based reader, and readers
            // treat the bytes as untrusted input in any case.
            #[allow(unsafe_code)]
            let mapped = unsafe { memmap2::Mmap::map(&file) };
            if let Ok(map) = mapped {
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

/// What a path names once Traceview's opening rules are applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Input {
    /// One file holding the whole trace.
    Single(PathBuf),
    /// An Android `.key` + `.data` pair.
    Pair { key: PathBuf, data: PathBuf },
}

impl Input {
    /// The path named in messages.
    pub(crate) fn display_path(&self) -> &Path {
        match self {
            Input::Single(p) => p,
            Input::Pair { key, .. } => key,
        }
    }
}

fn with_ext(path: &Path, ext: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// Finds the files behind `path` (formats/android.md §2.2): a path that does not exist is retried
/// as `<path>.trace`, then as `<path>.key` + `<path>.data`; an existing `.key` with no data
/// section, or a `.data` without a key, is paired with its sibling of the same base name.
pub(crate) fn resolve(path: &Path) -> Input {
    if !path.exists() {
        let trace = with_ext(path, ".trace");
        if trace.is_file() {
            return Input::Single(trace);
        }
        let (key, data) = (with_ext(path, ".key"), with_ext(path, ".data"));
        if key.is_file() && data.is_file() {
            return Input::Pair { key, data };
        }
        return Input::Single(path.to_path_buf());
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let sibling = |e: &str| path.with_extension(e);
    match ext {
        "key" if sibling("data").is_file() && !key_has_data(path) => Input::Pair {
            key: path.to_path_buf(),
            data: sibling("data"),
        },
        "data" if sibling("key").is_file() => Input::Pair {
            key: sibling("key"),
            data: path.to_path_buf(),
        },
        _ => Input::Single(path.to_path_buf()),
    }
}

/// Whether the key file at `path` is followed by its own data section.
fn key_has_data(path: &Path) -> bool {
    match Source::open(path) {
        Ok(bytes) => formats::android::parse_key(&bytes, "android-trace", 0)
            .is_ok_and(|k| k.end_offset < bytes.len()),
        Err(_) => false,
    }
}

fn open(path: &Path) -> Result<Source, LoadError> {
    Source::open(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads and parses the file at `path` (or the `.key` + `.data` pair it names; see [`resolve`]).
/// The input is released before the lanes are built, so it does not add to peak memory.
pub fn load_path(path: &Path, progress: &Progress) -> Result<Trace, LoadError> {
    load_parsed(path, progress).map(|parsed| {
        progress.set_phase(Progress::BUILDING);
        parsed.finish()
    })
}

/// [`load_path`] up to the parsed events: an Android trace's lanes are not built yet (see
/// [`Parsed`]), so a caller that needs no lanes can skip them. The input is already released.
pub fn load_parsed(path: &Path, progress: &Progress) -> Result<Parsed, LoadError> {
    let input = resolve(path);
    let builder = match &input {
        Input::Single(p) => {
            let source = open(p)?;
            read_builder(p, &source, progress)?
        }
        Input::Pair { key, data } => {
            let key_bytes = open(key)?;
            let data_bytes = open(data)?;
            progress.bytes_total.store(
                (key_bytes.len() + data_bytes.len()) as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
            let ctx = ReadContext {
                path: Some(key),
                progress,
            };
            formats::android::read_pair(&key_bytes, &data_bytes, &ctx)
                .map(Parsed::Unfinished)
                .map_err(|error| LoadError::Format {
                    path: key.clone(),
                    error,
                })?
        }
    };
    Ok(builder)
}

/// Reads the Android trace at `path` (as [`load_path`] finds it) handing its records to sinks
/// made by `factory` instead of storing them (see [`crate::trace::SinkFactory`]). `Ok(None)` when
/// the input is not an Android trace whose records can be streamed (other formats, ART streaming
/// traces, unreadable files): [`load_parsed`] reads those, and reports their errors.
pub fn load_to_sinks<F: crate::trace::SinkFactory>(
    path: &Path,
    progress: &Progress,
    factory: &F,
) -> Result<Option<crate::trace::Streamed<F::Sink>>, LoadError> {
    let format_error = |p: &Path| {
        let p = p.to_path_buf();
        move |error| LoadError::Format { path: p, error }
    };
    match resolve(path) {
        Input::Single(p) => {
            let Ok(source) = Source::open(&p) else {
                return Ok(None);
            };
            progress
                .bytes_total
                .store(source.len() as u64, std::sync::atomic::Ordering::Relaxed);
            let ctx = ReadContext {
                path: Some(&p),
                progress,
            };
            formats::android::read_to_sinks(&source, &ctx, factory).map_err(format_error(&p))
        }
        Input::Pair { key, data } => {
            let key_bytes = open(&key)?;
            let data_bytes = open(&data)?;
            progress.bytes_total.store(
                (key_bytes.len() + data_bytes.len()) as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
            let ctx = ReadContext {
                path: Some(&key),
                progress,
            };
            formats::android::read_pair_to_sinks(&key_bytes, &data_bytes, &ctx, factory)
                .map(Some)
                .map_err(format_error(&key))
        }
    }
}

fn read_builder(path: &Path, bytes: &[u8], progress: &Progress) -> Result<Parsed, LoadError> {
    read_with(path, bytes, progress, formats::read_to_builder)
}

/// Parses `bytes` that came from `path` (the path is used for messages and as a hint only).
pub fn load_bytes(path: &Path, bytes: &[u8], progress: &Progress) -> Result<Trace, LoadError> {
    read_with(path, bytes, progress, formats::read_bytes)
}

/// Runs a reader on `bytes` from `path`, with the progress's byte total set; errors name `path`.
fn read_with<T>(
    path: &Path,
    bytes: &[u8],
    progress: &Progress,
    read: impl FnOnce(&[u8], &ReadContext) -> Result<T, formats::FormatError>,
) -> Result<T, LoadError> {
    progress
        .bytes_total
        .store(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
    let ctx = ReadContext {
        path: Some(path),
        progress,
    };
    read(bytes, &ctx).map_err(|error| LoadError::Format {
        path: path.to_path_buf(),
        error,
    })
}
