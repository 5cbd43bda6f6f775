#![deny(unsafe_code)]

fn main() {
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
        eprintln!("tracelens: peak-rss-kib: {}", kib.trim());
    }
}
