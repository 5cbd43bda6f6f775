#![no_main]
// cargo fuzz run android_v2: see tracelens::fuzz::Target::AndroidV2.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::AndroidV2, data));
