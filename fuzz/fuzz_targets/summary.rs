#![no_main]
// cargo fuzz run summary: see tracelens::fuzz::Target::Summary.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Summary, data));
