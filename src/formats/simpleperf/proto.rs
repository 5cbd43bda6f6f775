//! The messages of simpleperf's `cmd_report_sample.proto` (package `simpleperf_report_proto`),
//! written out by hand for `prost`'s derive: no `protoc` and no build script. Field numbers and
//! types follow the schema; fields the reader does not use are still declared, so that a
//! message written by the generator ([`super::synth`]) carries them.

/// One record of the file: exactly one of its fields is set.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Record {
    #[prost(oneof = "RecordData", tags = "1, 2, 3, 4, 5, 6")]
    pub record_data: Option<RecordData>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum RecordData {
    #[prost(message, tag = "1")]
    Sample(Sample),
    #[prost(message, tag = "2")]
    Lost(LostSituation),
    #[prost(message, tag = "3")]
    File(File),
    #[prost(message, tag = "4")]
    Thread(Thread),
    #[prost(message, tag = "5")]
    MetaInfo(MetaInfo),
    #[prost(message, tag = "6")]
    ContextSwitch(ContextSwitch),
}

/// A stack sampled on one thread.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    /// Monotonic clock, ns.
    #[prost(uint64, optional, tag = "1")]
    pub time: Option<u64>,
    #[prost(int32, optional, tag = "2")]
    pub thread_id: Option<i32>,
    /// Leaf first: `callchain[0]` is where the thread was when it was sampled.
    #[prost(message, repeated, tag = "3")]
    pub callchain: Vec<CallChainEntry>,
    /// Events of the sample's type since the thread's previous sample of that type.
    #[prost(uint64, optional, tag = "4")]
    pub event_count: Option<u64>,
    /// An index into [`MetaInfo::event_type`].
    #[prost(uint32, optional, tag = "5")]
    pub event_type_id: Option<u32>,
    /// Present when the unwinder stopped early: the stack lacks its root frames.
    #[prost(message, optional, tag = "6")]
    pub unwinding_result: Option<UnwindingResult>,
}

/// One frame of a sample's stack.
#[derive(Clone, Copy, PartialEq, Eq, Hash, prost::Message)]
pub struct CallChainEntry {
    #[prost(uint64, optional, tag = "1")]
    pub vaddr_in_file: Option<u64>,
    /// The [`File::id`] of the file holding the instruction.
    #[prost(uint32, optional, tag = "2")]
    pub file_id: Option<u32>,
    /// An index into that file's [`File::symbol`], or -1 when the function is not known.
    #[prost(int32, optional, tag = "3")]
    pub symbol_id: Option<i32>,
    /// [`ExecutionType`] as written.
    #[prost(enumeration = "ExecutionType", optional, tag = "4")]
    pub execution_type: Option<i32>,
}

/// How a frame's code ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum ExecutionType {
    NativeMethod = 0,
    InterpretedJvmMethod = 1,
    JitJvmMethod = 2,
    ArtMethod = 3,
}

/// Why the unwinder stopped.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct UnwindingResult {
    #[prost(uint32, optional, tag = "1")]
    pub raw_error_code: Option<u32>,
    #[prost(uint64, optional, tag = "2")]
    pub error_addr: Option<u64>,
    /// 0 (`ERROR_NONE`) when the stack is whole.
    #[prost(uint32, optional, tag = "3")]
    pub error_code: Option<u32>,
}

/// Samples the kernel dropped.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct LostSituation {
    #[prost(uint64, optional, tag = "1")]
    pub sample_count: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub lost_count: Option<u64>,
}

/// A library, dex or apk file and its symbol table.
#[derive(Clone, PartialEq, prost::Message)]
pub struct File {
    #[prost(uint32, optional, tag = "1")]
    pub id: Option<u32>,
    #[prost(string, optional, tag = "2")]
    pub path: Option<String>,
    #[prost(string, repeated, tag = "3")]
    pub symbol: Vec<String>,
    #[prost(string, repeated, tag = "4")]
    pub mangled_symbol: Vec<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Thread {
    #[prost(uint32, optional, tag = "1")]
    pub thread_id: Option<u32>,
    #[prost(uint32, optional, tag = "2")]
    pub process_id: Option<u32>,
    #[prost(string, optional, tag = "3")]
    pub thread_name: Option<String>,
}

/// What was recorded, and where.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MetaInfo {
    #[prost(string, repeated, tag = "1")]
    pub event_type: Vec<String>,
    #[prost(string, optional, tag = "2")]
    pub app_package_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub app_type: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub android_sdk_version: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub android_build_type: Option<String>,
    /// Recorded with `--trace-offcpu`: context switches follow.
    #[prost(bool, optional, tag = "6")]
    pub trace_offcpu: Option<bool>,
}

/// A thread scheduled on (`switch_on`) or off the CPU.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct ContextSwitch {
    #[prost(bool, optional, tag = "1")]
    pub switch_on: Option<bool>,
    /// Monotonic clock, ns.
    #[prost(uint64, optional, tag = "2")]
    pub time: Option<u64>,
    #[prost(uint32, optional, tag = "3")]
    pub thread_id: Option<u32>,
}
