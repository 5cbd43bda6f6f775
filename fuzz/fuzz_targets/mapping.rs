#![no_main]
// cargo fuzz run mapping: see tracelens::fuzz::Target::Mapping.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Mapping, data));
