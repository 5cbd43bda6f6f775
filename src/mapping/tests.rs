//! Tests of the reader and of resolving names.

use super::*;

const SAMPLE: &str = "\
# compiler: R8
# compiler_version: 8.5.35
# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}
com.example.Main -> a:
# {\"id\":\"sourceFile\",\"fileName\":\"Main.kt\"}
    java.lang.String name -> a
    1:3:void run(int):10:12 -> a
    4:4:void com.example.Util.log(int):5:5 -> b
    4:4:void run(long):20 -> b
    5:6:void run(long):21:22 -> b
    7:7:void test(java.lang.Object):50:50 -> c
      # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"()V\"}
    8:9:void test(java.lang.Object):52:53 -> c
    10:10:void other(java.lang.Object) -> c
com.example.Util -> b:
# {\"id\":\"sourceFile\",\"fileName\":\"Util.java\"}
    void log(int) -> a
    void log(com.example.Main) -> a
";

#[test]
fn reads_classes_members_and_metadata() {
    let m = Mapping::parse_str("mapping.txt", SAMPLE).unwrap();
    assert_eq!(m.class_count(), 2);
    assert_eq!(m.method_count(), 9);
    assert_eq!(m.field_count(), 1);
    assert_eq!(m.version(), Some("2.2"));
    let header: Vec<_> = m.header().collect();
    assert_eq!(
        header,
        vec![("compiler", "R8"), ("compiler_version", "8.5.35")]
    );
    let c = m.class_by_obfuscated("a").unwrap();
    assert_eq!(c.original(), "com.example.Main");
    assert_eq!(c.source_file(), Some("Main.kt"));
    assert_eq!(
        c.fields().collect::<Vec<_>>(),
        vec![("java.lang.String", "name", "a")]
    );
    let ms: Vec<_> = c.methods().collect();
    assert_eq!(ms[0].line().obf_range, Some((1, 3)));
    assert_eq!(ms[0].line().orig_range, Some((10, 12)));
    assert_eq!(ms[1].original_parts(), (Some("com.example.Util"), "log"));
    assert!(ms[1].line().flags.contains(MemberFlags::INLINED));
    assert!(!ms[2].line().flags.contains(MemberFlags::INLINED));
    assert_eq!(ms[2].line().orig_range, Some((20, 20)));
    assert_eq!(ms[4].residual(), Some("()V"));
    assert_eq!(
        m.class_by_original("com.example.Util")
            .unwrap()
            .obfuscated(),
        "b"
    );
}

#[test]
fn resolves_overloads_inline_frames_and_residual_signatures() {
    let m = Mapping::parse_str("mapping.txt", SAMPLE).unwrap();
    let r = |c, n, s| {
        let r = resolve(&m, c, n, s);
        (format!("{} {} {}", r.class, r.name, r.signature), r.outcome)
    };
    assert_eq!(
        r("a", "a", "(I)V"),
        ("com.example.Main run (I)V".into(), Outcome::Resolved)
    );
    // The inlined frame has the same descriptor; the outer frame wins.
    assert_eq!(
        r("a", "b", "(J)V"),
        ("com.example.Main run (J)V".into(), Outcome::Resolved)
    );
    // The residual signature is what the trace shows; the original is printed.
    assert_eq!(
        r("a", "c", "()V"),
        (
            "com.example.Main test (Ljava/lang/Object;)V".into(),
            Outcome::Resolved
        )
    );
    // The method's second range has no residual signature of its own.
    assert_eq!(
        r("a", "c", "(Ljava/lang/Object;)V"),
        (
            "com.example.Main other (Ljava/lang/Object;)V".into(),
            Outcome::Resolved
        )
    );
    // Slash style, and obfuscated class names inside the descriptor.
    assert_eq!(
        r("b", "a", "(La;)V"),
        (
            "com.example.Util log (Lcom/example/Main;)V".into(),
            Outcome::Resolved
        )
    );
    assert_eq!(
        r("b", "a", "(I)V"),
        ("com.example.Util log (I)V".into(), Outcome::Resolved)
    );
    // No descriptor: both overloads are candidates with one name.
    let (text, o) = r("b", "a", "");
    assert_eq!(
        (text.as_str(), o),
        ("com.example.Util log ", Outcome::Ambiguous)
    );
    // A descriptor that matches nothing: the name is shown, the types are mapped.
    assert_eq!(
        r("b", "a", "(Lb;)V"),
        (
            "com.example.Util log (Lcom/example/Util;)V".into(),
            Outcome::DescriptorMismatch
        )
    );
    assert_eq!(
        r("b", "zz", "()V"),
        ("com.example.Util zz ()V".into(), Outcome::NameNotMapped)
    );
    assert_eq!(
        r("android/os/Handler", "post", "(La;)Z"),
        (
            "android/os/Handler post (Lcom/example/Main;)Z".into(),
            Outcome::ClassNotMapped
        )
    );
}

#[test]
fn different_names_on_one_obfuscated_name_show_all_candidates() {
    let m = Mapping::parse_str(
        "m",
        "com.example.A -> a.a:\n    void first() -> a\n    void second() -> a\n    void third(int) -> a\n",
    )
    .unwrap();
    let r = resolve(&m, "a/a", "a", "");
    assert_eq!(r.outcome, Outcome::Ambiguous);
    assert_eq!(r.class, "com/example/A");
    assert_eq!(r.name, "first | second | third");
    let r = resolve(&m, "a.a", "a", "()V");
    assert_eq!(r.outcome, Outcome::Ambiguous);
    assert_eq!(
        (&*r.class, &*r.name, &*r.signature),
        ("com.example.A", "first | second", "()V")
    );
    let r = resolve(&m, "a.a", "a", "(I)V");
    assert_eq!((&*r.name, r.outcome), ("third", Outcome::Resolved));
}

#[test]
fn bad_lines_are_errors_with_their_line_number() {
    let cases: &[(&str, usize)] = &[
        ("    void a() -> b\n", 1),
        ("com.A -> a:\n    void a( -> b\n", 2),
        ("com.A -> a:\n\n    x:y:void a() -> b\n", 3),
        ("com.A -> a:\n    5:4:void a() -> b\n", 2),
        ("com.A -> a:\n    1:2:void a():x -> b\n", 2),
        ("com.A -> a:\n    void a()\n", 2),
        ("com.A -> a:\ncom.B -> a:\n", 2),
        ("com.A -> :\n", 1),
        ("com A -> a:\n", 1),
        ("com.A -> a:\n    int -> b\n", 2),
        ("com.A -> a:\n    1:2:int x -> b\n", 2),
        ("com.A -> a:\n    void a() -> b c\n", 2),
        ("com.A -> a:\n    1:99999999999:void a() -> b\n", 2),
    ];
    for (text, line) in cases {
        let e = Mapping::parse_str("m", text).unwrap_err();
        assert_eq!(e.line, *line, "{text:?}: {e}");
    }
    let e = Mapping::parse_bytes("m", b"com.A -> a:\n    void \xff() -> b\n".to_vec()).unwrap_err();
    assert_eq!(e.line, 2);
}

#[test]
fn comments_blank_lines_and_crlf_are_accepted() {
    let m = Mapping::parse_str(
        "m",
        "# just a comment\r\n\r\ncom.A -> a:\r\n# {not json\r\n    void b() -> c\r\n# {\"id\":\"unknown.thing\"}\r\n",
    )
    .unwrap();
    assert_eq!(m.method_count(), 1);
    assert_eq!(m.other_metadata_count(), 2);
    assert_eq!(resolve(&m, "a", "c", "()V").name, "b");
}

#[test]
fn garbage_never_panics() {
    use proptest::prelude::*;
    let mut runner = proptest::test_runner::TestRunner::default();
    runner
        .run(&proptest::collection::vec(any::<u8>(), 0..200), |bytes| {
            let _ = Mapping::parse_bytes("m", bytes);
            Ok(())
        })
        .unwrap();
    runner
        .run(&"[a-c .:>()\\-#{}\"0-9\n]{0,200}", |text| {
            if let Ok(m) = Mapping::parse_str("m", &text) {
                for c in m.classes() {
                    for x in c.methods() {
                        let _ = resolve(&m, c.obfuscated(), x.obfuscated(), "(La;)V");
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}
