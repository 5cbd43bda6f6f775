#![no_main]
// cargo fuzz run android_data: see tracelens::fuzz::Target::AndroidData.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::AndroidData, data));
