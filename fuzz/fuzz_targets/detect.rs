#![no_main]
// cargo fuzz run detect: see tracelens::fuzz::Target::Detect.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Detect, data));
