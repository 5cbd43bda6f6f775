//! Bytes sources and loading.
//!
//! A file is memory-mapped read-only (falling back to reading it into memory when mapping fails,
//! e.g. for pipes or special files); readers see `&[u8]` either way. [`load_path`] detects the
//! format and builds the trace; the GUI calls it on a rayon worker with a shared [`Progress`].
//! [`load_mapping`] reads an R8/ProGuard mapping file the same way.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::formats::{self, FormatError, Parsed, Progress, ReadContext, ReleaseInput};
use crate::mapping::{Mapping, MappingLoadError};
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

impl AsRef<[u8]> for Source {
    fn as_ref(&self) -> &[u8] {
        self
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

/// The unit in which a mapped input's pages are given back: the smallest page size, so the
/// pages at either end of a part given back, which may hold bytes still to be read, are kept.
const PAGE: usize = 4096;

impl ReleaseInput for Source {
    fn release(&self, part: &[u8]) {
        let Source::Mapped(map) = self else {
            return;
        };
        let base = map.as_ptr() as usize;
        let start = part.as_ptr() as usize;
        if start < base || start + part.len() > base + map.len() {
            return; // not a piece of this input (e.g. text decoded into a buffer)
        }
        let from = (start - base).next_multiple_of(PAGE);
        let to = (start - base + part.len()) / PAGE * PAGE;
        if to <= from {
            return;
        }
        #[cfg(unix)]
        {
            // SAFETY: the map is private and read-only and nothing ever wrote to it, so its
            // pages are clean copies of the file's: MADV_DONTNEED drops them from this
            // process, and a later read of these addresses (the readers' borrows stay valid)
            // faults the same bytes in again from the file. They differ only if another
            // process rewrote the file meanwhile, the risk already accepted when mapping it.
            #[allow(unsafe_code)]
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
            };
        }
    }
}

/// A `.key` file and its `.data` file, as one input whose parts are given back.
struct Pair<'a>(&'a Source, &'a Source);

impl ReleaseInput for Pair<'_> {
    fn release(&self, part: &[u8]) {
        self.0.release(part);
        self.1.release(part);
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

/// A first look at the trace at `path` before it is read ([`crate::trace::Overview`]), for
/// Android key + data traces (None for other inputs, and when a file cannot be read: the load
/// says why). Reads the key and a sample of the records with plain reads, so that it makes
/// none of the file resident.
pub fn overview_path(path: &Path) -> Option<crate::trace::Overview> {
    fn access(path: &Path) -> Option<(File, u64)> {
        let file = File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        Some((file, len))
    }
    /// One read at `offset` (one system call where the platform has positioned reads).
    fn read_at(file: &mut File, offset: u64, buf: &mut [u8]) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            file.read_exact_at(buf, offset).is_ok()
        }
        #[cfg(not(unix))]
        {
            use std::io::{Seek, SeekFrom};
            file.seek(SeekFrom::Start(offset)).is_ok() && file.read_exact(buf).is_ok()
        }
    }
    use formats::android::overview::{READ_BUDGET, RandomAccess, overview};
    match resolve(path) {
        Input::Single(p) => {
            let (mut file, len) = access(&p)?;
            let read = &mut |at, buf: &mut [u8]| read_at(&mut file, at, buf);
            overview(&mut RandomAccess { len, read }, None, READ_BUDGET)
        }
        Input::Pair { key, data } => {
            let (mut key, key_len) = access(&key)?;
            let (mut data, data_len) = access(&data)?;
            let read_key = &mut |at, buf: &mut [u8]| read_at(&mut key, at, buf);
            let read_data = &mut |at, buf: &mut [u8]| read_at(&mut data, at, buf);
            overview(
                &mut RandomAccess {
                    len: key_len,
                    read: read_key,
                },
                Some(&mut RandomAccess {
                    len: data_len,
                    read: read_data,
                }),
                READ_BUDGET,
            )
        }
    }
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
            let pair = Pair(&key_bytes, &data_bytes);
            let ctx = ReadContext {
                path: Some(key),
                progress,
                input: Some(&pair),
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
                input: Some(&source),
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
            let pair = Pair(&key_bytes, &data_bytes);
            let ctx = ReadContext {
                path: Some(&key),
                progress,
                input: Some(&pair),
            };
            formats::android::read_pair_to_sinks(&key_bytes, &data_bytes, &ctx, factory)
                .map(Some)
                .map_err(format_error(&key))
        }
    }
}

fn read_builder(path: &Path, source: &Source, progress: &Progress) -> Result<Parsed, LoadError> {
    read_with(
        path,
        source,
        Some(source),
        progress,
        formats::read_to_builder,
    )
}

/// Reads the R8/ProGuard mapping file at `path` (memory-mapped; the mapping keeps the map).
pub fn load_mapping(path: &Path) -> Result<Mapping, MappingLoadError> {
    let bytes = Source::open(path).map_err(|source| MappingLoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Mapping::parse_bytes(&name, bytes).map_err(|error| MappingLoadError::Parse {
        path: path.to_path_buf(),
        error,
    })
}

/// Parses `bytes` that came from `path` (the path is used for messages and as a hint only).
pub fn load_bytes(path: &Path, bytes: &[u8], progress: &Progress) -> Result<Trace, LoadError> {
    read_with(path, bytes, None, progress, formats::read_bytes)
}

/// Runs a reader on `bytes` from `path` (which `input` takes back as it is read), with the
/// progress's byte total set; errors name `path`.
fn read_with<T>(
    path: &Path,
    bytes: &[u8],
    input: Option<&dyn ReleaseInput>,
    progress: &Progress,
    read: impl FnOnce(&[u8], &ReadContext) -> Result<T, formats::FormatError>,
) -> Result<T, LoadError> {
    progress
        .bytes_total
        .store(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
    let ctx = ReadContext {
        path: Some(path),
        progress,
        input,
    };
    read(bytes, &ctx).map_err(|error| LoadError::Format {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The resident kB of the mapping that starts at `addr`, from `/proc/self/smaps`.
    fn resident_kb(addr: usize) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut lines = smaps.lines();
        while let Some(line) = lines.next() {
            let range = line.split(' ').next().unwrap_or("");
            let Some((start, _)) = range.split_once('-') else {
                continue;
            };
            if usize::from_str_radix(start, 16) != Ok(addr) {
                continue;
            }
            for field in lines.by_ref() {
                if let Some(kb) = field.strip_prefix("Rss:") {
                    return kb.trim().trim_end_matches(" kB").trim().parse().unwrap();
                }
            }
        }
        panic!("no mapping at {addr:#x}");
    }

    #[test]
    fn released_pages_leave_resident_memory_and_read_back_the_same() {
        let content: Vec<u8> = (0..64 * PAGE).map(|i| (i * 7 % 251) as u8).collect();
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &content).unwrap();
        let source = Source::open(file.path()).unwrap();
        assert!(matches!(source, Source::Mapped(_)));
        let addr = source.as_ptr() as usize;
        let sum = |b: &[u8]| b.iter().map(|&x| x as u64).sum::<u64>();
        let whole = sum(&source);
        assert_eq!(resident_kb(addr), 256, "every page read is resident");

        let copy = source[..20 * PAGE].to_vec();
        // Only the whole pages inside the part go: pages 1..=9 of [100, 10 pages + 100).
        source.release(&source[100..10 * PAGE + 100]);
        assert_eq!(resident_kb(addr), 256 - 9 * 4);
        // A part that is not a piece of the map (a copy) is left alone.
        source.release(&copy);
        assert_eq!(resident_kb(addr), 256 - 9 * 4);
        source.release(&source);
        assert_eq!(resident_kb(addr), 0);

        // The bytes read after their release are the file's.
        assert_eq!(sum(&source), whole);
        assert_eq!(&source[..], &content[..]);
    }

    #[test]
    fn a_reader_gives_back_the_input_it_went_through() {
        // A CProfiler file of 2 MB (its lines are read once): once read, less of it is resident
        // than was read; the trace is the one read from a buffer.
        let mut text = String::from("Frequency,1000\n");
        let mut i = 0;
        while text.len() < (2 << 20) + 1000 {
            text.push_str(&format!("F{},{}\n", i % 50, i));
            i += 1;
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &text).unwrap();
        let source = Source::open(file.path()).unwrap();
        let addr = source.as_ptr() as usize;
        let progress = Progress::default();
        let parsed = read_builder(file.path(), &source, &progress).unwrap();
        let resident = resident_kb(addr);
        assert!(
            resident < 1100,
            "{resident} kB of a 2 MB input still resident"
        );
        let trace = parsed.finish();
        let from_buffer = load_bytes(file.path(), text.as_bytes(), &Progress::default()).unwrap();
        let series = |t: &Trace| {
            let d = &t.durations;
            d.iter()
                .map(|s| (s.name.to_string(), s.durations_s.to_vec()))
                .collect::<Vec<_>>()
        };
        assert_eq!(series(&trace), series(&from_buffer));
        assert_eq!(series(&trace).len(), 50);
    }
}
