#![no_main]
// cargo fuzz run transforms: see tracelens::fuzz::Target::Transforms.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Transforms, data));
