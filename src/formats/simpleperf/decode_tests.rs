use super::*;
use crate::formats::Progress;
use crate::formats::android::synth::Rng;
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

/// The recording `opts` generates.
fn recording(opts: &SampledOptions) -> Vec<u8> {
    let mut bytes = Vec::new();
    generate(opts, &mut bytes).unwrap();
    bytes
}

/// `bytes` decoded in chunks of `chunk_bytes`.
fn decode_chunked(bytes: &[u8], chunk_bytes: usize) -> Decoded {
    let progress = Progress::default();
    decode_in_chunks(bytes, &ReadContext::new(None, &progress), chunk_bytes).unwrap()
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
    let bytes = recording(&opts);
    let whole = decode_chunked(&bytes, usize::MAX);
    assert_eq!(whole.samples.len(), 5000);
    // One chunk: every stack once.
    let mut pairs = stack_pairs(&whole);
    let n = pairs.len();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), n, "a stack interned twice");
    for chunk_bytes in [1, 1000, 64 << 10] {
        let chunked = decode_chunked(&bytes, chunk_bytes);
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
    let chunk = Split::new(bytes, usize::MAX).next_chunk().unwrap();
    let mut d = Decoder::default();
    let mut pos = chunk.start;
    while pos < chunk.end {
        let size = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let record = &bytes[pos + 4..pos + 4 + size];
        pos += 4 + size;
        d.out.records += 1;
        let Some(RecordData::Sample(s)) = proto::Record::decode(record).unwrap().record_data else {
            assert!(d.other_record(record).is_ok());
            continue;
        };
        d.decoded_sample(&s);
    }
    d.finish()
}

#[test]
fn frames_shared_by_bytes_are_those_read_whole() {
    let shapes = [(0, false), (90, false), (50, true), (100, false)];
    // Callers' addresses fixed while a call lasts (as recorded), and drawn at every sample.
    for ((same_stack_percent, off_cpu), fresh_caller_addresses) in
        shapes.into_iter().flat_map(|s| [(s, false), (s, true)])
    {
        let opts = SampledOptions {
            samples: 4000,
            threads: 4,
            methods: 200,
            off_cpu,
            same_stack_percent,
            fresh_caller_addresses,
            ..SampledOptions::default()
        };
        let bytes = recording(&opts);
        let read = decode_chunked(&bytes, usize::MAX);
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
    let bytes = recording(&opts);
    let chunk = Split::new(&bytes, usize::MAX).next_chunk().unwrap();
    let (mut pos, mut compared) = (chunk.start, 0);
    let mut chain = ReadChain::default();
    while pos < chunk.end {
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

/// Protobuf fields written by hand, for encodings prost does not write.
#[derive(Default)]
struct Wire(Vec<u8>);

impl Wire {
    fn varint(&mut self, field: u32, v: u64) -> &mut Self {
        prost::encoding::encode_varint(u64::from(field << 3), &mut self.0);
        prost::encoding::encode_varint(v, &mut self.0);
        self
    }

    fn bytes(&mut self, field: u32, b: &[u8]) -> &mut Self {
        prost::encoding::encode_varint(u64::from(field << 3 | 2), &mut self.0);
        prost::encoding::encode_varint(b.len() as u64, &mut self.0);
        self.0.extend_from_slice(b);
        self
    }
}

/// A `CallChainEntry` from few values, so that the bytes of one frame often repeat in another
/// and in the fields after the frames (an event count of 1 is written as an execution type of
/// 1 is); now and then with its fields in another order.
fn odd_frame(rng: &mut Rng) -> Vec<u8> {
    let vaddr = [0, 1, 0x7f, 0x80, 0x4000][rng.below(5) as usize];
    let symbol = [-1i64, 0, 1, 200][rng.below(4) as usize];
    let mut w = Wire::default();
    let kind = rng.below(5);
    if rng.chance(100_000) {
        w.varint(3, symbol as u64).varint(1, vaddr);
    } else {
        w.varint(1, vaddr)
            .varint(2, rng.below(2))
            .varint(3, symbol as u64);
    }
    if kind < 4 {
        w.varint(4, kind);
    }
    w.0
}

/// Sample records of few threads whose stacks move as [`odd_frame`]s, in simpleperf's encoding
/// mostly and in others now and then: fields after the frames of changing lengths, fields
/// between the frames, the thread id after them, unknown fields, two samples in a record.
fn odd_recording(seed: u64, samples: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut stacks: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 3];
    let mut out = Vec::from(&super::super::MAGIC[..]);
    out.extend_from_slice(&1u16.to_le_bytes());
    for i in 0..samples {
        let t = rng.below(3) as usize;
        let stack = &mut stacks[t];
        match rng.below(4) {
            0 => {
                let keep = rng.below(stack.len() as u64 + 1) as usize;
                stack.drain(..stack.len() - keep);
                for _ in 0..rng.below(4) {
                    stack.insert(0, odd_frame(&mut rng));
                }
            }
            1 if !stack.is_empty() => stack[0] = odd_frame(&mut rng),
            _ => {}
        }
        let odd = rng.below(20);
        let mut m = Wire::default();
        m.varint(1, 1000 + i as u64);
        if odd != 0 {
            m.varint(2, t as u64);
        }
        for (j, frame) in stack.iter().enumerate() {
            if odd == 1 && j == 1 {
                m.varint(4, 7);
            }
            m.bytes(3, frame);
        }
        if odd == 0 {
            m.varint(2, t as u64);
        }
        m.varint(4, [1, 1, 1, 127, 128, 300, 1 << 20][rng.below(7) as usize]);
        if rng.below(3) > 0 {
            m.varint(5, rng.below(2));
        }
        match odd {
            2 => {
                m.bytes(6, Wire::default().varint(3, 2).0.as_slice());
            }
            3 => {
                m.varint(9, 1);
            }
            _ => {}
        }
        let mut record = Wire::default();
        record.bytes(1, &m.0);
        if odd == 4 {
            record.bytes(1, Wire::default().varint(1, 5).0.as_slice());
        }
        out.extend_from_slice(&(record.0.len() as u32).to_le_bytes());
        out.extend_from_slice(&record.0);
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out
}

#[test]
fn frames_shared_by_bytes_are_those_read_whole_in_any_encoding() {
    for seed in 0..8 {
        let bytes = odd_recording(seed, 5000);
        let read = decode_chunked(&bytes, usize::MAX);
        let by_keys = decode_by_keys(&bytes);
        assert_eq!(read.samples.len(), 5000);
        assert_eq!(flat(&read), flat(&by_keys), "seed {seed}");
        assert_eq!(stack_pairs(&read), stack_pairs(&by_keys), "seed {seed}");
    }
}

#[test]
fn callers_addresses_change_the_bytes_not_the_samples() {
    for same_stack_percent in [0, 90] {
        let recorded = SampledOptions {
            samples: 3000,
            threads: 4,
            methods: 200,
            same_stack_percent,
            ..SampledOptions::default()
        };
        let fresh = SampledOptions {
            fresh_caller_addresses: true,
            ..recorded.clone()
        };
        let (a, b) = (recording(&recorded), recording(&fresh));
        assert_ne!(a, b, "{recorded:?}");
        let (a, b) = (
            decode_chunked(&a, usize::MAX),
            decode_chunked(&b, usize::MAX),
        );
        assert_eq!(flat(&a), flat(&b), "{recorded:?}");
    }
}
