//! Desktop integration for the current user: a `.desktop` entry (so tracelens appears in the
//! desktop's menu), the icon, and a MIME type for Android `.trace` files with tracelens as its
//! default application, so double-clicking a trace opens it. Everything goes under
//! `$XDG_DATA_HOME` (default `~/.local/share`); `uninstall` removes exactly those files.

use std::path::{Path, PathBuf};
use std::process::Command;

const DESKTOP: &str = include_str!("../assets/tracelens.desktop");
const MIME_XML: &str = include_str!("../assets/tracelens-mime.xml");
const ICON: &[u8] = include_bytes!("../assets/icon.png");
/// The MIME type registered for Android method traces.
pub(crate) const MIME_TYPE: &str = "application/x-android-method-trace";

/// Where the files go.
pub(crate) struct Paths {
    pub desktop: PathBuf,
    pub icon: PathBuf,
    pub mime: PathBuf,
    pub data_home: PathBuf,
}

impl Paths {
    pub(crate) fn for_user() -> Option<Paths> {
        let data_home = match std::env::var_os("XDG_DATA_HOME") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
        };
        Some(Paths {
            desktop: data_home.join("applications/tracelens.desktop"),
            icon: data_home.join("icons/hicolor/256x256/apps/tracelens.png"),
            mime: data_home.join("mime/packages/tracelens-mime.xml"),
            data_home,
        })
    }
}

/// The `.desktop` text with `Exec` pointing at `exe`.
pub(crate) fn desktop_entry(exe: &Path) -> String {
    let path = exe.display().to_string();
    let quoted = if path.contains(' ') {
        format!("\"{path}\"")
    } else {
        path
    };
    DESKTOP.replace("Exec=tracelens %F", &format!("Exec={quoted} %F"))
}

fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, bytes)
}

/// Runs a helper tool if it exists; returns a line describing what happened.
fn refresh(tool: &str, args: &[&str], data_home: &Path) -> String {
    match Command::new(tool)
        .args(args)
        .env("XDG_DATA_HOME", data_home)
        .output()
    {
        Ok(o) if o.status.success() => format!("ran {tool}"),
        Ok(o) => format!(
            "{tool} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(_) => format!("{tool} not found (skipped)"),
    }
}

/// What [`install`] / [`uninstall`] did, one line per file written/removed or tool run
/// (a missing helper tool is a note, not an error).
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub lines: Vec<String>,
}

/// Why installing or uninstalling failed.
#[derive(Debug)]
pub(crate) enum DesktopError {
    /// Neither `XDG_DATA_HOME` nor `HOME` is set.
    NoDataHome,
    /// Writing or removing `path` failed.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl std::fmt::Display for DesktopError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DesktopError::NoDataHome => write!(f, "neither XDG_DATA_HOME nor HOME is set"),
            DesktopError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for DesktopError {}

/// Installs the desktop entry, icon and MIME type for the current user. Returns what was done.
pub(crate) fn install(exe: &Path) -> Result<Report, DesktopError> {
    let p = Paths::for_user().ok_or(DesktopError::NoDataHome)?;
    let mut log = Vec::new();
    for (path, bytes) in [
        (&p.desktop, desktop_entry(exe).into_bytes()),
        (&p.icon, ICON.to_vec()),
        (&p.mime, MIME_XML.as_bytes().to_vec()),
    ] {
        write(path, &bytes).map_err(|error| DesktopError::Io {
            path: path.clone(),
            error,
        })?;
        log.push(format!("wrote {}", path.display()));
    }
    log.extend(refresh_databases(&p));
    log.push(refresh(
        "xdg-mime",
        &["default", "tracelens.desktop", MIME_TYPE],
        &p.data_home,
    ));
    Ok(Report { lines: log })
}

/// Rebuilds the desktop's MIME and application caches under the user's data directory.
fn refresh_databases(p: &Paths) -> [String; 2] {
    let mime_dir = p.data_home.join("mime");
    let apps_dir = p.data_home.join("applications");
    [
        refresh(
            "update-mime-database",
            &[&mime_dir.to_string_lossy()],
            &p.data_home,
        ),
        refresh(
            "update-desktop-database",
            &[&apps_dir.to_string_lossy()],
            &p.data_home,
        ),
    ]
}

/// Removes what [`install`] wrote.
pub(crate) fn uninstall() -> Result<Report, DesktopError> {
    let p = Paths::for_user().ok_or(DesktopError::NoDataHome)?;
    let mut log = Vec::new();
    for path in [&p.desktop, &p.icon, &p.mime] {
        match std::fs::remove_file(path) {
            Ok(()) => log.push(format!("removed {}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                log.push(format!("{} was not installed", path.display()))
            }
            Err(error) => {
                return Err(DesktopError::Io {
                    path: path.clone(),
                    error,
                });
            }
        }
    }
    log.extend(refresh_databases(&p));
    Ok(Report { lines: log })
}
