#![no_main]
// cargo fuzz run rtl: see tracelens::fuzz::Target::Rtl.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Rtl, data));
