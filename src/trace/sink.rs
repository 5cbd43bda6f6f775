//! Records handed straight to a consumer instead of being stored: what lets `tracelens profile`
//! walk a trace's records while they are decoded, without keeping any of them.
//!
//! A reader that supports it (the Android data section) splits the threads among rayon workers,
//! asks the [`SinkFactory`] for one [`RecordSink`] per worker, and gives each sink the records of
//! its threads in file order (so each thread's records arrive in that thread's order).

use super::ClockMode;

/// Receives one worker's records.
pub trait RecordSink: Send {
    /// A record of thread `slot` (an index into the `threads` the sink was made for).
    /// `op` = method index << 2 | action (0 enter, 1 exit, 2 unroll; never 3); `t1`, `t2` are the
    /// record's raw 32-bit times as the [`ClockMode`] defines them: `Dual` → thread CPU, wall;
    /// `Wall` → wall, 0; `ThreadCpu` → thread CPU, 0.
    fn record(&mut self, slot: usize, op: u32, t1: u32, t2: u32);
}

/// Makes the sinks of one read.
pub trait SinkFactory: Sync {
    type Sink: RecordSink;

    /// A sink for a worker that gets the records of `threads` (thread indices of the trace).
    /// `method_count` bounds the method indices the records use.
    fn sink(&self, threads: &[u32], clock: ClockMode, method_count: usize) -> Self::Sink;

    /// The most sinks (workers) for `method_count` methods and `calls` calls (half the
    /// records): sinks that hold per-method state limit their number so that state stays
    /// bounded on machines with many cores, and in proportion to the calls.
    fn max_workers(&self, method_count: usize, calls: usize) -> usize {
        let _ = (method_count, calls);
        usize::MAX
    }
}

/// What a read into sinks gives: the builder with everything but the records, and the sinks.
pub(crate) type Streamed<S> = (super::Builder, Vec<S>);
