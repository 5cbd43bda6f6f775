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
