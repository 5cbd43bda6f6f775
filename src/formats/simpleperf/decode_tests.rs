use super::*;
use crate::formats::Progress;
use crate::formats::simpleperf::synth::{SampledOptions, generate};

/// Everything of a decoded file that its ids reach, stacks by their frames (the ids of
/// stacks depend on the chunks), for comparing two decodings.
fn flat(d: &Decoded) -> impl PartialEq + std::fmt::Debug {
    let stacks = &d.samples.stacks;
    let samples: Vec<_> = d
        .samples
        .iter()
        .map(|s| {
            let frames: Option<Vec<FrameId>> = s.stack.map(|st| stacks.frames(st).collect());
            (s.thread, s.time, frames, s.weight, s.meta)
        })
        .collect();
    let mut files: Vec<_> = d.files.iter().collect();
    files.sort();
    let mut threads: Vec<_> = d.thread_info.iter().collect();
    threads.sort();
    format!(
        "{samples:?} {:?} {:?} {files:?} {threads:?} {:?} {:?} {:?} {:?} {} {} {:?}",
        d.frames,
        d.tids,
        d.meta,
        d.lost,
        d.max_event_type,
        d.switches,
        d.truncated_stacks,
        d.records,
        &d.diagnostics[..]
    )
}

/// The (caller, frame) pairs of `d`'s stacks.
fn stack_pairs(d: &Decoded) -> Vec<(Option<StackId>, FrameId)> {
    let stacks = &d.samples.stacks;
    (0..stacks.len())
        .map(|i| {
            (
                stacks.parent(StackId(i as u32)),
                stacks.frame(StackId(i as u32)),
            )
        })
        .collect()
}

#[test]
fn chunks_decode_as_one_pass() {
    let opts = SampledOptions {
        samples: 5000,
        threads: 5,
        methods: 300,
        off_cpu: true,
        ..SampledOptions::default()
    };
    let mut bytes = Vec::new();
    generate(&opts, &mut bytes).unwrap();
    let progress = Progress::default();
    let ctx = ReadContext::new(None, &progress);
    let whole = decode_in_chunks(&bytes, &ctx, usize::MAX).unwrap();
    assert_eq!(whole.samples.len(), 5000);
    // One chunk: every stack once.
    let mut pairs = stack_pairs(&whole);
    let n = pairs.len();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), n, "a stack interned twice");
    for chunk_bytes in [1, 1000, 64 << 10] {
        let chunked = decode_in_chunks(&bytes, &ctx, chunk_bytes).unwrap();
        assert_eq!(
            flat(&chunked),
            flat(&whole),
            "chunks of {chunk_bytes} bytes"
        );
    }
}

/// The samples of `bytes` decoded by prost, each stack looked up frame by frame from its
/// keys (no bytes compared), in one pass.
fn decode_by_keys(bytes: &[u8]) -> Decoded {
    let Split { chunks, .. } = split(bytes, usize::MAX);
    let mut d = Decoder::default();
    let mut pos = chunks[0].start;
    while pos < chunks[0].end {
        let size = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let record = &bytes[pos + 4..pos + 4 + size];
        pos += 4 + size;
        d.out.records += 1;
        let Some(RecordData::Sample(s)) = proto::Record::decode(record).unwrap().record_data else {
            assert!(d.other_record(record).is_ok());
            continue;
        };
        let chain: Vec<FrameKey> = s
            .callchain
            .iter()
            .map(|e| {
                FrameKey::new(
                    e.file_id.unwrap_or(0),
                    e.symbol_id.unwrap_or(-1),
                    e.vaddr_in_file.unwrap_or(0),
                    e.execution_type.unwrap_or(0),
                )
            })
            .collect();
        let error = s.unwinding_result.and_then(|u| u.error_code).unwrap_or(0);
        d.add_sample(
            s.thread_id.unwrap_or(0),
            s.time.unwrap_or(0),
            &chain,
            s.event_count.unwrap_or(0),
            s.event_type_id.unwrap_or(0),
            error != 0,
        );
    }
    d.finish()
}

#[test]
fn frames_shared_by_bytes_are_those_read_whole() {
    for (same_stack_percent, off_cpu) in [(0, false), (90, false), (50, true), (100, false)] {
        let opts = SampledOptions {
            samples: 4000,
            threads: 4,
            methods: 200,
            off_cpu,
            same_stack_percent,
            ..SampledOptions::default()
        };
        let mut bytes = Vec::new();
        generate(&opts, &mut bytes).unwrap();
        let progress = Progress::default();
        let ctx = ReadContext::new(None, &progress);
        let read = decode_in_chunks(&bytes, &ctx, usize::MAX).unwrap();
        let by_keys = decode_by_keys(&bytes);
        assert_eq!(flat(&read), flat(&by_keys), "{opts:?}");
        // The same stacks, interned once each.
        assert_eq!(stack_pairs(&read), stack_pairs(&by_keys));
    }
}

#[test]
fn samples_read_in_place_equal_prosts() {
    let opts = SampledOptions {
        samples: 2000,
        threads: 3,
        methods: 100,
        ..SampledOptions::default()
    };
    let mut bytes = Vec::new();
    generate(&opts, &mut bytes).unwrap();
    let Split { chunks, .. } = split(&bytes, usize::MAX);
    let (mut pos, mut compared) = (chunks[0].start, 0);
    let mut chain = ReadChain::default();
    while pos < chunks[0].end {
        let size = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let record = &bytes[pos + 4..pos + 4 + size];
        pos += 4 + size;
        let Some(RecordData::Sample(want)) = proto::Record::decode(record).unwrap().record_data
        else {
            continue;
        };
        let Some((1, value)) = Fields::new(record).next_field().unwrap() else {
            panic!("a sample record starts with field 1");
        };
        let message = value.bytes(1).unwrap();
        let got = SampleFields::read(message, &mut chain, |_| None).expect("simpleperf's encoding");
        assert_eq!(chain.shared(), 0);
        let chain = &chain.keys;
        assert_eq!(got.time, want.time.unwrap_or(0));
        assert_eq!(got.thread_id, want.thread_id.unwrap_or(0));
        assert_eq!(got.event_count, want.event_count.unwrap_or(0));
        assert_eq!(got.event_type, want.event_type_id.unwrap_or(0));
        let truncated = want
            .unwinding_result
            .and_then(|u| u.error_code)
            .unwrap_or(0);
        assert_eq!(got.unwind_error, truncated);
        assert_eq!(chain.len(), want.callchain.len());
        for (k, e) in chain.iter().zip(&want.callchain) {
            assert_eq!(
                k.vaddr,
                if k.symbol_id < 0 {
                    e.vaddr_in_file.unwrap_or(0)
                } else {
                    0
                }
            );
            assert_eq!(k.file_id, e.file_id.unwrap_or(0));
            assert_eq!(k.symbol_id, e.symbol_id.unwrap_or(-1));
        }
        compared += 1;
    }
    assert_eq!(compared, 2000);
}
