//! Diagnostics: recoverable damage found while reading a file. The file still loads; the GUI
//! lists these and the CLI prints a one-line summary.

use serde::Serialize;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// Where in the input a diagnostic points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    /// Byte offset from the start of the file.
    Offset(u64),
    /// 1-based line number.
    Line(u64),
    /// The file as a whole.
    File,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Offset(o) => write!(f, "byte {o}"),
            Location::Line(l) => write!(f, "line {l}"),
            Location::File => f.write_str("file"),
        }
    }
}

/// One recoverable problem.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A short stable code, e.g. `"unmatched-exit"` or a spec edge-case id such as `"R5"`.
    pub code: String,
    pub location: Location,
    pub message: String,
    /// The offending raw text (a line, or hex bytes), if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
}

impl Diagnostic {
    pub(crate) fn new(
        severity: Severity,
        code: impl Into<String>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            code: code.into(),
            location,
            message: message.into(),
            raw: None,
        }
    }

    pub(crate) fn warning(
        code: impl Into<String>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Warning, code, location, message)
    }

    pub(crate) fn with_raw(mut self, raw: impl Into<String>) -> Self {
        self.raw = Some(raw.into());
        self
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} [{}] at {}: {}",
            self.severity, self.code, self.location, self.message
        )
    }
}

/// Counts per severity, for one-line summaries.
pub fn summarize(diags: &[Diagnostic]) -> String {
    let count = |s| diags.iter().filter(|d| d.severity == s).count();
    format!(
        "{} diagnostics ({} errors, {} warnings, {} info)",
        diags.len(),
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info)
    )
}

/// At most this many diagnostics of one code are kept while a file is read; the others are
/// counted, and [`Diagnostics::into_vec`] ends the list with one diagnostic that says how many
/// were left out. A file of a million bad lines would otherwise hold a million diagnostics
/// (about 200 bytes each for a 2-byte line).
pub const MAX_DIAGNOSTICS_PER_CODE: u64 = 100;

/// Diagnostics as a reader collects them: the first [`MAX_DIAGNOSTICS_PER_CODE`] of each code,
/// and how many there were of each. Reads as the slice of those kept.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    kept: Vec<Diagnostic>,
    /// Per code, in order of first appearance: its first severity and how many were pushed.
    /// Codes are a few dozen fixed strings, so a linear search is enough.
    codes: Vec<(String, Severity, u64)>,
}

impl Diagnostics {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        if let Some((_, _, n)) = self.codes.iter_mut().find(|(c, _, _)| *c == d.code) {
            *n += 1;
            if *n > MAX_DIAGNOSTICS_PER_CODE {
                return;
            }
        } else {
            self.codes.push((d.code.clone(), d.severity, 1));
        }
        self.kept.push(d);
    }

    /// [`Diagnostics::push`] of a diagnostic of `code` that `make` makes only when it is kept:
    /// the others are only counted. A reader that quotes a line in each of a million
    /// diagnostics, to keep 100, reads and copies those 100 lines only.
    pub(crate) fn push_lazy(&mut self, code: &str, make: impl FnOnce() -> Diagnostic) {
        if let Some((_, _, n)) = self.codes.iter_mut().find(|(c, _, _)| c == code)
            && *n >= MAX_DIAGNOSTICS_PER_CODE
        {
            *n += 1;
            return;
        }
        let d = make();
        debug_assert_eq!(d.code, code);
        self.push(d);
    }

    /// Adds `other`'s diagnostics after these, with the counts of those it left out.
    pub(crate) fn append(&mut self, other: Diagnostics) {
        for d in other.kept {
            self.push(d);
        }
        for (code, severity, n) in other.codes {
            let left_out = n.saturating_sub(MAX_DIAGNOSTICS_PER_CODE);
            if left_out == 0 {
                continue;
            }
            match self.codes.iter_mut().find(|(c, _, _)| *c == code) {
                Some((_, _, m)) => *m += left_out,
                None => self.codes.push((code, severity, left_out)),
            }
        }
    }

    /// The kept diagnostics, then per code that had more, one saying how many were left out.
    pub(crate) fn into_vec(self) -> Vec<Diagnostic> {
        let mut out = self.kept;
        for (code, severity, n) in self.codes {
            if n > MAX_DIAGNOSTICS_PER_CODE {
                let left_out = n - MAX_DIAGNOSTICS_PER_CODE;
                out.push(Diagnostic::new(
                    severity,
                    code,
                    Location::File,
                    format!(
                        "{left_out} more diagnostics of this kind (after the first {MAX_DIAGNOSTICS_PER_CODE}) were not kept"
                    ),
                ));
            }
        }
        out
    }
}

impl std::ops::Deref for Diagnostics {
    type Target = [Diagnostic];
    fn deref(&self) -> &[Diagnostic] {
        &self.kept
    }
}

impl Extend<Diagnostic> for Diagnostics {
    fn extend<I: IntoIterator<Item = Diagnostic>>(&mut self, iter: I) {
        for d in iter {
            self.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(code: &str, i: u64) -> Diagnostic {
        Diagnostic::warning(code, Location::Line(i), format!("line {i}"))
    }

    #[test]
    fn each_code_keeps_its_first_diagnostics_and_counts_the_rest() {
        let mut a = Diagnostics::default();
        for i in 0..250 {
            a.push(d("bad-line", i));
            if i % 50 == 0 {
                a.push(d("other", i));
            }
        }
        let mut key = Diagnostics::default();
        for i in 0..130 {
            key.push(d("bad-line", 1000 + i));
            key.push(d("third", i));
        }
        a.append(key);
        assert_eq!(a.len(), 100 + 5 + 100);
        let v = a.into_vec();
        let of = |code: &str| v.iter().filter(|x| x.code == code).collect::<Vec<_>>();
        let bad = of("bad-line");
        assert_eq!(bad.len(), 101);
        assert!(
            bad[..100]
                .iter()
                .enumerate()
                .all(|(i, x)| x.location == Location::Line(i as u64))
        );
        assert_eq!(bad[100].location, Location::File);
        assert!(
            bad[100].message.starts_with("280 more"),
            "{}",
            bad[100].message
        );
        assert_eq!(of("other").len(), 5);
        let third = of("third");
        assert_eq!(third.len(), 101);
        assert!(third[100].message.starts_with("30 more"));
        // The summaries come last, in the order the codes first appeared.
        assert_eq!(v[v.len() - 2].code, "bad-line");
        assert_eq!(v[v.len() - 1].code, "third");
    }

    #[test]
    fn a_lazy_diagnostic_is_made_only_when_kept_and_counts_as_one_pushed() {
        let (mut lazy, mut eager) = (Diagnostics::default(), Diagnostics::default());
        let mut made = 0;
        for i in 0..250 {
            lazy.push_lazy("repeated", || {
                made += 1;
                d("repeated", i)
            });
            eager.push(d("repeated", i));
            if i % 100 == 0 {
                lazy.push(d("other", i));
                eager.push(d("other", i));
            }
        }
        assert_eq!(made, MAX_DIAGNOSTICS_PER_CODE);
        assert_eq!(lazy.into_vec(), eager.into_vec());
    }
}
