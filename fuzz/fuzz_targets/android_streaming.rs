#![no_main]
// cargo fuzz run android_streaming: see tracelens::fuzz::Target::AndroidStreaming.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::AndroidStreaming, data));
