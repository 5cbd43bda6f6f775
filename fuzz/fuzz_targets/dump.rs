#![no_main]
// cargo fuzz run dump: see tracelens::fuzz::Target::Dump.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Dump, data));
