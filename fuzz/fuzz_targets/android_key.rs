#![no_main]
// cargo fuzz run android_key: see tracelens::fuzz::Target::AndroidKey.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::AndroidKey, data));
