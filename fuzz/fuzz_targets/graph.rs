#![no_main]
// cargo fuzz run graph: see tracelens::fuzz::Target::Graph.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Graph, data));
