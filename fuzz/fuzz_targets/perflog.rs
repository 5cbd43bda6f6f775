#![no_main]
// cargo fuzz run perflog: see tracelens::fuzz::Target::PerfLog.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::PerfLog, data));
