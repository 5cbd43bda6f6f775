//! `--install-desktop` / `--uninstall-desktop` into a temporary XDG_DATA_HOME.

use std::path::Path;
use std::process::Command;

fn run(data_home: &Path, flag: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .arg(flag)
        .env("XDG_DATA_HOME", data_home)
        .env("HOME", data_home)
        .env("XDG_CONFIG_HOME", data_home.join("config"))
        .output()
        .expect("run tracelens")
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok()
}

#[test]
fn install_then_uninstall() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let out = run(home, "--install-desktop");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let desktop = home.join("applications/tracelens.desktop");
    let text = std::fs::read_to_string(&desktop).unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_tracelens"))
        .canonicalize()
        .unwrap();
    assert!(
        text.contains(&format!("Exec={} %F", exe.display())),
        "Exec points at the absolute executable:\n{text}"
    );
    assert!(text.contains("MimeType=application/x-android-method-trace;"));
    let icon = std::fs::read(home.join("icons/hicolor/256x256/apps/tracelens.png")).unwrap();
    assert_eq!(&icon[..8], b"\x89PNG\r\n\x1a\n");
    assert!(home.join("mime/packages/tracelens-mime.xml").exists());

    if have("desktop-file-validate") {
        let v = Command::new("desktop-file-validate")
            .arg(&desktop)
            .output()
            .unwrap();
        assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
    }
    if have("update-mime-database") && have("gio") {
        let trace = home.join("x.trace");
        std::fs::write(&trace, b"*version\n3\n").unwrap();
        let info = Command::new("gio")
            .args(["info", "-a", "standard::content-type"])
            .arg(&trace)
            .env("XDG_DATA_HOME", home)
            .env("XDG_DATA_DIRS", "/usr/share")
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&info.stdout);
        assert!(
            s.contains("application/x-android-method-trace"),
            "gio says: {s}"
        );
    }

    let out = run(home, "--uninstall-desktop");
    assert!(out.status.success());
    assert!(!desktop.exists());
    assert!(
        !home
            .join("icons/hicolor/256x256/apps/tracelens.png")
            .exists()
    );
    assert!(!home.join("mime/packages/tracelens-mime.xml").exists());
}

/// Without the helper tools on PATH, install still writes its files and notes each skipped tool.
#[test]
fn install_without_helper_tools_notes_them() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let out = Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .arg("--install-desktop")
        .env("XDG_DATA_HOME", home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("PATH", home.join("empty-bin"))
        .output()
        .expect("run tracelens");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for tool in [
        "update-mime-database",
        "update-desktop-database",
        "xdg-mime",
    ] {
        assert!(
            stdout.contains(&format!("{tool} not found (skipped)")),
            "{tool} missing from:\n{stdout}"
        );
    }
    assert!(home.join("applications/tracelens.desktop").exists());
    assert!(home.join("mime/packages/tracelens-mime.xml").exists());
}
