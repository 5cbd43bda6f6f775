#![no_main]
// cargo fuzz run simpleperf: see tracelens::fuzz::Target::Simpleperf.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Simpleperf, data));
