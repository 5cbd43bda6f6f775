//! `--install-desktop` / `--uninstall-desktop` into a temporary XDG_DATA_HOME.

use std::path::Path;
use std::process::Command;

fn run(data_home: &Path, flag: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .arg(flag)
        .env("XDG_DATA_HOME", data_home)
        .env("HOME", data_home)
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
