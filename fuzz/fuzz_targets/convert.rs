#![no_main]
// cargo fuzz run convert: see tracelens::fuzz::Target::Convert.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Convert, data));
