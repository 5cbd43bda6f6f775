#![no_main]
// cargo fuzz run android_trace: see tracelens::fuzz::Target::AndroidTrace.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::AndroidTrace, data));
