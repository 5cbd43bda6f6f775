use super::*;
use crate::analysis::testutil::random_trace;

fn sample_session(trace: &Trace) -> Session {
    let th = &trace.threads[0];
    let lane = &th.lanes[1];
    let m = lane.method(2);
    Session {
        trace: Some(TraceInfo {
            name: "run.trace".into(),
            bytes: 1234,
        }),
        clock: Some("wall".into()),
        visible: Some(TickSpan {
            start_tick: 60,
            end_tick: 90,
        }),
        selected_method: Some(trace.method_full_name(MethodId(3))),
        search: SearchSetting {
            query: "class:C1 -name:/m4/".into(),
            filter: true,
        },
        bookmarks: vec![
            Bookmark {
                note: "slow part".into(),
                target: BookmarkTarget::Range {
                    start_tick: 70,
                    end_tick: 80,
                },
            },
            Bookmark {
                note: "this call".into(),
                target: BookmarkTarget::Call {
                    thread_id: th.raw_id,
                    thread_name: th.name.clone(),
                    depth: 1,
                    start_tick: lane.start(2),
                    method: trace.method_full_name(m),
                },
            },
        ],
        color_rules: vec![ColorRule {
            pattern: "pkg.C2.*".into(),
            color: "#ff0080".into(),
        }],
        transforms: vec![serde_json::json!({"kind": "merge", "method": "pkg.C2.*"})],
        ..Session::default()
    }
}

#[test]
fn round_trip_through_a_file_and_resolve() {
    let trace = random_trace(11, 2, 300);
    let s = sample_session(&trace);
    let dir = tempfile::tempdir().unwrap();
    let path = sidecar_path(&dir.path().join("run.trace"));
    assert_eq!(path.file_name().unwrap(), "run.trace.tracelens.json");
    s.write(&path).unwrap();
    let back = Session::read(&path).unwrap();
    assert_eq!(back, s);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"format\": \"tracelens-session\""));
    assert!(text.contains("\"version\": 1"));
    assert!(text.contains("\"kind\": \"call\""));

    let r = back.resolve(&trace, Some(1234));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.clock_index, Some(1)); // dual: cpu, wall
    assert_eq!(r.visible, Some((60, 90)));
    assert_eq!(r.selected, Some(MethodId(3)));
    assert_eq!(r.bookmarks.len(), 2);
    let call = r.bookmarks[1].call.unwrap();
    assert_eq!((call.thread, call.depth, call.index), (ThreadId(0), 1, 2));
    let lane = &trace.threads[0].lanes[1];
    assert_eq!(r.bookmarks[1].span, (lane.start(2), lane.end(2)));
    assert_eq!(
        r.transforms,
        vec![crate::analysis::transform::Transform::Merge {
            method: "pkg.C2.*".into()
        }]
    );
    // A kind from a later version stops the stack there, with a warning.
    let mut later = back.clone();
    later
        .transforms
        .insert(0, serde_json::json!({"kind": "future", "x": 1}));
    let r2 = later.resolve(&trace, Some(1234));
    assert!(r2.transforms.is_empty());
    assert!(
        r2.warnings
            .iter()
            .any(|w| w.contains("transform 1 of 2 not understood")),
        "{:?}",
        r2.warnings
    );
    // Colour rules recolour exactly the methods the glob matches.
    let colors = rule_colors(&trace, &r.color_rules);
    for m in 0..trace.methods.len() as u32 {
        let name = trace.method_full_name(MethodId(m));
        let want = name.starts_with("pkg.C2.").then_some([0xff, 0x00, 0x80]);
        assert_eq!(colors[m as usize], want, "{name}");
    }
}

#[test]
fn numbers_outside_the_trace_are_clamped_or_dropped() {
    let trace = random_trace(12, 1, 200);
    let (a, b) = trace.axis_range().unwrap();
    let mut s = sample_session(&trace);
    s.visible = Some(TickSpan {
        start_tick: 0,
        end_tick: u64::MAX,
    });
    s.clock = Some("sundial".into());
    s.selected_method = Some("no.Such.method ()V".into());
    s.bookmarks.push(Bookmark {
        note: "gone".into(),
        target: BookmarkTarget::Call {
            thread_id: 999,
            thread_name: "nobody".into(),
            depth: u32::MAX,
            start_tick: u64::MAX,
            method: "x".into(),
        },
    });
    s.bookmarks.push(Bookmark {
        note: "after the end".into(),
        target: BookmarkTarget::Range {
            start_tick: b + 10,
            end_tick: b + 20,
        },
    });
    s.color_rules.push(ColorRule {
        pattern: "*".into(),
        color: "red".into(),
    });
    let r = s.resolve(&trace, Some(99));
    assert_eq!(r.visible, Some((a, b)));
    assert_eq!(r.clock_index, None);
    assert_eq!(r.selected, None);
    assert_eq!(r.bookmarks.len(), 2);
    assert_eq!(r.color_rules.len(), 1);
    // size, clock, range, method, two bookmarks, one colour rule
    assert_eq!(r.warnings.len(), 7, "{:?}", r.warnings);
}

#[test]
fn bad_files_give_clear_errors() {
    let cases: [(&[u8], &str); 7] = [
        (b"", "not JSON"),
        (b"\x00\xff garbage", "not JSON"),
        (br#"{"format":"speedscope"}"#, "not a tracelens session"),
        (br#"[1,2]"#, "not a tracelens session"),
        (br#"{"format":"tracelens-session","version":2}"#, "newer tracelens"),
        (br#"{"format":"tracelens-session","version":-1}"#, "broken session"),
        (
            br#"{"format":"tracelens-session","version":1,"visible":{"start_tick":-5,"end_tick":1}}"#,
            "broken session",
        ),
    ];
    for (bytes, want) in cases {
        let e = Session::parse(bytes, "x.tracelens.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.tracelens.json: "), "{e}");
        assert!(e.contains(want), "{e} lacks {want}");
    }
    // The minimal session.
    let s = Session::parse(br#"{"format":"tracelens-session","version":1}"#, "m").unwrap();
    assert_eq!(s, Session::default());
    let dir = tempfile::tempdir().unwrap();
    let e = Session::read(&dir.path().join("missing.json")).unwrap_err();
    assert!(e.to_string().contains("cannot read"), "{e}");
}

#[test]
fn globs_and_colours() {
    let re = glob_regex("a.b?c*").unwrap();
    assert!(re.is_match("a.bXcYYY"));
    assert!(!re.is_match("aXbXc"));
    assert!(!re.is_match("za.bXc"));
    assert!(glob_regex("").is_none());
    assert_eq!(parse_color("#0a0B0c"), Some([10, 11, 12]));
    for bad in ["", "#12345", "#1234567", "123456", "#gg0000", "#ééé"] {
        assert_eq!(parse_color(bad), None, "{bad}");
    }
    assert_eq!(format_color([1, 2, 255]), "#0102ff");
}
