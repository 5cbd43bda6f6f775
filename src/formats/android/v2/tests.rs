//! Tests of the V2 reader over files made by [`super::writer`] and by hand.

use super::leb128::{write_signed, write_unsigned};
use super::packets::{Revision, detect_revision};
use super::writer::{V2Layout, reencode};
use crate::formats::android::writer::{Event, Layout, MethodDef, TraceSpec, write_trace};
use crate::formats::{Progress, ReadContext};
use crate::trace::{Action, Builder, ClockMode, Trace};

const ALL: [V2Layout; 4] = [
    V2Layout {
        revision: Revision::Early,
        streaming: false,
    },
    V2Layout {
        revision: Revision::Early,
        streaming: true,
    },
    V2Layout {
        revision: Revision::Later,
        streaming: false,
    },
    V2Layout {
        revision: Revision::Later,
        streaming: true,
    },
];

fn v1_spec(clock: ClockMode) -> TraceSpec {
    let mut s = TraceSpec::new(Layout::Streaming, clock);
    s.threads = vec![(1, "main".into()), (7, "worker".into())];
    s.methods = (0..3)
        .map(|i| MethodDef {
            id: i << 2,
            class: format!("com.ex.C{i}"),
            name: "m".into(),
            signature: "()V".into(),
            source_file: Some("C.java".into()),
            line: None,
        })
        .collect();
    let e = |tid, m: u32, action, time1, time2| Event {
        tid,
        method_id: m << 2,
        action,
        time1,
        time2,
    };
    s.events = vec![
        e(1, 2, Action::Exit, 0, 100),
        e(1, 0, Action::Enter, 2, 102),
        e(7, 1, Action::Enter, 0, 103),
        e(1, 0, Action::Enter, 5, 106),
        e(1, 0, Action::Unroll, 9, 110),
        e(7, 1, Action::Exit, 6, 115),
        e(1, 9, Action::Enter, 12, 120),
        e(1, 9, Action::Exit, 13, 121),
    ];
    s
}

fn read(bytes: &[u8]) -> Builder {
    let p = Progress::default();
    super::read(bytes, &ReadContext::new(None, &p)).expect("readable")
}

fn codes(b: &Builder) -> Vec<String> {
    b.diagnostics.iter().map(|d| d.code.clone()).collect()
}

/// A call as (thread name, class, start, end, CPU start and duration).
type Call = (String, String, u64, u64, Option<(u64, u64)>);

/// The calls of every thread, sorted.
fn calls(t: &Trace) -> Vec<Call> {
    let mut out = Vec::new();
    for th in &t.threads {
        for lane in &th.lanes {
            for i in 0..lane.len() {
                let class = t.str(t.method(lane.method(i)).class).to_string();
                out.push((
                    th.name.clone(),
                    class,
                    lane.start(i),
                    lane.end(i),
                    lane.cpu(i),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_layout_reads_as_its_v1_original() {
    let p = Progress::default();
    for clock in [ClockMode::Dual, ClockMode::Wall, ClockMode::ThreadCpu] {
        let v1 = write_trace(&v1_spec(clock));
        let want = crate::formats::android::read(&v1, &ReadContext::new(None, &p)).unwrap();
        let want = calls(&want.finish());
        for layout in ALL {
            let v2 = reencode(&v1, layout).unwrap();
            assert_eq!(detect_revision(&v2), layout.revision, "{layout:?}");
            let b = read(&v2);
            assert_eq!(b.clock, Some(clock), "{layout:?}");
            assert_eq!(b.ticks_per_sec, 1_000_000);
            assert_eq!(b.source.record_count, 8);
            assert!(codes(&b).contains(&"unknown-method".to_string()));
            assert_eq!(calls(&b.finish()), want, "{layout:?} {clock:?}");
        }
    }
}

/// A hand-made later-revision file.
#[derive(Default)]
struct Later {
    out: Vec<u8>,
}

impl Later {
    fn new(version: u16, start: u64) -> Self {
        let mut out = vec![0u8; 32];
        out[..4].copy_from_slice(b"SLOW");
        out[4..6].copy_from_slice(&version.to_le_bytes());
        out[6..14].copy_from_slice(&start.to_le_bytes());
        Later { out }
    }
    fn thread(mut self, tid: u32, name: &str) -> Self {
        self.out.push(0);
        self.out.extend_from_slice(&tid.to_le_bytes());
        self.out
            .extend_from_slice(&(name.len() as u16).to_le_bytes());
        self.out.extend_from_slice(name.as_bytes());
        self
    }
    fn method(mut self, id: u64, line: &str) -> Self {
        self.out.push(1);
        self.out.extend_from_slice(&id.to_le_bytes());
        self.out
            .extend_from_slice(&(line.len() as u16).to_le_bytes());
        self.out.extend_from_slice(line.as_bytes());
        self
    }
    /// Records `(method value, times)`.
    fn block(mut self, tid: u32, records: &[(u64, &[u64])]) -> Self {
        let mut body = Vec::new();
        let (mut pm, mut pt) = (0u64, [0u64; 2]);
        for (m, times) in records {
            write_signed(&mut body, m.wrapping_sub(pm) as i64);
            for (i, t) in times.iter().enumerate() {
                write_unsigned(&mut body, t.wrapping_sub(pt[i]));
                pt[i] = *t;
            }
            pm = *m;
        }
        self.out.push(2);
        self.out.extend_from_slice(&tid.to_le_bytes());
        self.out
            .extend_from_slice(&(records.len() as u32).to_le_bytes()[..3]);
        self.out
            .extend_from_slice(&(body.len() as u32).to_le_bytes());
        self.out.extend_from_slice(&body);
        self
    }
    fn summary(mut self, text: &str) -> Self {
        self.out.push(3);
        self.out
            .extend_from_slice(&(text.len() as u16).to_le_bytes());
        self.out.extend_from_slice(text.as_bytes());
        self
    }
}

const PTR: u64 = 0x7a1c_0040_1230;

fn ns_file(t: [u64; 2]) -> Vec<u8> {
    Later::new(0xF4, 5_000_000_000)
        .method(PTR, "a.B\trun\t()V\tB.java\n")
        .block(70_000, &[(PTR, &[t[0]]), (PTR | 1, &[t[1]])])
        .thread(70_000, "RenderThread")
        .summary("*version\n4\nclock=wall\nelapsed-time-nsec=9000\nvm=art\n*end\n")
        .out
}

#[test]
fn nanosecond_times_keep_their_resolution() {
    let b = read(&ns_file([1_500, 4_250]));
    assert_eq!(b.ticks_per_sec, 1_000_000_000);
    assert_eq!(b.source.stated_elapsed_us, Some(9));
    assert_eq!(b.source.start.unwrap().epoch_us, 5_000_000);
    let t = b.finish();
    assert_eq!(t.methods[0].raw_id, PTR);
    // A thread id above 16 bits, named by a packet that comes after its records.
    assert_eq!(t.threads[0].raw_id, 70_000);
    assert_eq!(t.threads[0].name, "RenderThread");
    let c = calls(&t);
    assert_eq!(c[0].1, "a.B");
    assert_eq!((c[0].2, c[0].3), (1_500, 4_250));
}

#[test]
fn whole_microseconds_become_microsecond_ticks() {
    let b = read(&ns_file([2_000, 7_000]));
    assert_eq!(b.ticks_per_sec, 1_000_000);
    let c = calls(&b.finish());
    assert_eq!((c[0].2, c[0].3), (2, 7));
}

#[test]
fn microsecond_records_under_a_nanosecond_elapsed_time_are_microseconds() {
    let bytes = Later::new(4, 0)
        .method(PTR, "a.B\trun\t()V\tB.java\n")
        .block(3, &[(PTR, &[10]), (PTR | 1, &[30])])
        .summary("*version\n4\nclock=wall\nelapsed-time-nsec=31000\n*end\n")
        .out;
    let b = read(&bytes);
    assert_eq!(b.ticks_per_sec, 1_000_000);
    let c = calls(&b.finish());
    assert_eq!((c[0].2, c[0].3), (10, 30));
}

#[test]
fn revision_detection_on_ambiguous_inputs() {
    // Nothing but a header, or thread packets and a summary: both framings hold; the later
    // revision wins the tie.
    let empty = Later::new(5, 0).out;
    assert_eq!(detect_revision(&empty), Revision::Later);
    let shared = Later::new(5, 0)
        .thread(1, "main")
        .summary("*version\n5\n*end\n")
        .out;
    assert_eq!(detect_revision(&shared), Revision::Later);
    assert!(!codes(&read(&shared)).contains(&"truncated".into()));
    // One method packet decides.
    let later = Later::new(5, 0).method(PTR, "a.B\tm\t()V\tB.java\n").out;
    assert_eq!(detect_revision(&later), Revision::Later);
    let early = {
        let v1 = write_trace(&v1_spec(ClockMode::Dual));
        reencode(&v1, ALL[1]).unwrap()
    };
    assert_eq!(detect_revision(&early), Revision::Early);
    // A block alone: its LEB128 count decides (the early framing reads the same bytes as a
    // header holding the first record, and its body no longer holds whole numbers).
    let block = Later::new(4, 0)
        .block(9, &[(PTR, &[1]), (PTR | 1, &[2]), (PTR, &[3])])
        .out;
    assert_eq!(detect_revision(&block), Revision::Later);
}

#[test]
fn damaged_files_give_diagnostics_not_panics() {
    let v1 = write_trace(&v1_spec(ClockMode::Dual));
    for layout in ALL {
        let v2 = reencode(&v1, layout).unwrap();
        for cut in 0..v2.len() {
            let p = Progress::default();
            let _ = super::read(&v2[..cut], &ReadContext::new(None, &p)).map(Builder::finish);
        }
        for at in 32..v2.len() {
            let mut bad = v2.clone();
            bad[at] ^= 0xA5;
            let p = Progress::default();
            let _ = super::read(&bad, &ReadContext::new(None, &p)).map(Builder::finish);
        }
    }
    let truncated = &ns_file([1, 2])[..60];
    assert!(codes(&read(truncated)).contains(&"truncated".into()));
    let mut unknown = Later::new(4, 0).thread(1, "main").out;
    unknown.push(9);
    assert!(codes(&read(&unknown)).contains(&"unknown-packet".into()));
    // A block whose header counts three records where its body holds two.
    let mut short = Later::new(4, 0)
        .block(1, &[(PTR, &[1]), (PTR | 1, &[2])])
        .out;
    short[32 + 5] = 3;
    let b = read(&short);
    assert!(codes(&b).contains(&"bad-block".into()), "{:?}", codes(&b));
    assert_eq!(b.source.record_count, 2);
    let header = super::read(
        b"SLOW\x05\x00",
        &ReadContext::new(None, &Progress::default()),
    );
    assert!(header.is_err());
}

#[test]
fn no_summary_still_reads() {
    let bytes = Later::new(0xF5, 0)
        .method(PTR, "a.B\trun\t()V\tB.java\n")
        .thread(4, "main")
        .block(4, &[(PTR, &[1000, 1000]), (PTR | 1, &[9000, 3000])])
        .out;
    let b = read(&bytes);
    assert!(codes(&b).contains(&"no-summary".into()));
    assert_eq!(b.clock, Some(ClockMode::Dual));
    let c = calls(&b.finish());
    assert_eq!((c[0].2, c[0].3, c[0].4), (1, 9, Some((1, 2))));
}
