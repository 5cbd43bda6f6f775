#![no_main]
// cargo fuzz run cprofiler: see tracelens::fuzz::Target::CProfiler.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::CProfiler, data));
