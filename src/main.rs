#![deny(unsafe_code)]

fn main() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    malloc_tunables::restart_with_tunables();
    let cli = tracelens::cli::parse_args();
    let code = match tracelens::cli::run(cli) {
        Ok(()) => 0,
        Err(e) => {
            tracelens::cli::print_error(&e);
            e.exit_code()
        }
    };
    if std::env::var_os("TRACELENS_REPORT_PEAK_RSS").is_some() {
        report_peak_rss();
    }
    std::process::exit(code);
}

/// Prints the process's peak resident set size (Linux `VmHWM`) for the benchmark.
fn report_peak_rss() {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:"))
    {
        let kib = line
            .trim_start_matches("VmHWM:")
            .trim()
            .trim_end_matches("kB");
        eprintln!("peak-rss-kib: {}", kib.trim());
    }
}

/// glibc raises its mmap threshold (up to 32 MiB) each time a large block is freed; blocks below
/// the threshold then come from heaps that give memory back to the system only from their top,
/// so a command keeps tens of MB resident that it no longer uses (`profile` of a 14.8 MB trace
/// of methods called once: 151 MB resident for an 89 MB heap peak). A fixed threshold keeps
/// large blocks in their own maps (96 MB).
///
/// Its per-thread cache of freed small blocks (tcache: 7 of each size) is turned off: those
/// blocks stay in use as far as the heap can tell, so a run of freed memory (the calls of
/// 60 000 small threads, freed before the profile's lists are made) is cut into pieces that no
/// large list fits in, and the lists take new memory beside it (a Logger file's `profile`:
/// 184 → 169 MB, at equal time).
///
/// glibc reads these only at start, from the environment, and setting them from inside
/// (`mallopt`) would be an `unsafe` call: so the program starts itself again, once, with the
/// tunables set (an `exec`: same process, arguments and streams).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod malloc_tunables {
    use std::ffi::{OsStr, OsString};

    /// The tunables set, each unless the environment already sets it: the mmap threshold
    /// (glibc's own starting value, kept fixed), and no per-thread cache.
    const TUNABLES: [(&str, &str); 2] = [
        ("glibc.malloc.mmap_threshold", "131072"),
        ("glibc.malloc.tcache_count", "0"),
    ];

    /// The `GLIBC_TUNABLES` value to restart with, or `None` when it already sets them all (the
    /// restarted process, or a user's own choice).
    pub(crate) fn with_tunables(current: Option<&OsStr>) -> Option<OsString> {
        let current = current.filter(|t| !t.is_empty());
        let set = current.map(|t| t.to_string_lossy().into_owned());
        let missing: Vec<String> = (TUNABLES.iter())
            .filter(|(name, _)| !set.as_deref().is_some_and(|t| t.contains(name)))
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        if missing.is_empty() {
            return None;
        }
        let mut value = OsString::from(missing.join(":"));
        if let Some(t) = current {
            value.push(":");
            value.push(t);
        }
        Some(value)
    }

    pub(crate) fn restart_with_tunables() {
        use std::os::unix::process::CommandExt;
        let Some(tunables) = with_tunables(std::env::var_os("GLIBC_TUNABLES").as_deref()) else {
            return;
        };
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let mut cmd = std::process::Command::new(exe);
        if let Some(arg0) = args.next() {
            cmd.arg0(arg0);
        }
        // `exec` returns only when it failed: then the program goes on as it is.
        let _failed = cmd.args(args).env("GLIBC_TUNABLES", tunables).exec();
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_tunables_are_added_once_and_other_tunables_kept() {
            let set = with_tunables(None).unwrap();
            assert_eq!(
                set,
                "glibc.malloc.mmap_threshold=131072:glibc.malloc.tcache_count=0"
            );
            assert_eq!(with_tunables(Some(&set)), None);
            assert_eq!(with_tunables(Some(OsStr::new(""))), Some(set));
            assert_eq!(
                with_tunables(Some(OsStr::new("glibc.malloc.arena_max=2"))).unwrap(),
                "glibc.malloc.mmap_threshold=131072:glibc.malloc.tcache_count=0:glibc.malloc.arena_max=2"
            );
            // A user's own value is kept, and only the other one added.
            let users = OsStr::new("glibc.malloc.mmap_threshold=4096");
            assert_eq!(
                with_tunables(Some(users)).unwrap(),
                "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=4096"
            );
            let both = OsStr::new("glibc.malloc.tcache_count=3:glibc.malloc.mmap_threshold=4096");
            assert_eq!(with_tunables(Some(both)), None);
        }
    }
}
