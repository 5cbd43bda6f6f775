#![no_main]
// cargo fuzz run perf_data: see tracelens::fuzz::Target::PerfData.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::PerfData, data));
