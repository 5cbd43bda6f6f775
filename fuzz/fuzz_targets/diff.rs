#![no_main]
// cargo fuzz run diff: see tracelens::fuzz::Target::Diff.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Diff, data));
