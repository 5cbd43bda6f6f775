//! Tests of [`super`]: key order, matching, the runs' order by string ranks.

use super::*;

fn key(c: &str, n: &str) -> MethodKey {
    MethodKey {
        class: c.into(),
        name: Some(n.into()),
        signature: "()V".into(),
    }
}

fn t(incl: u64, excl: u64, calls: u32) -> Totals {
    Totals {
        inclusive: incl,
        exclusive: excl,
        calls,
        recursive_calls: 0,
    }
}

/// [`MethodNames`]' keys are [`MethodKey::of`]'s, read from the trace's own string table; the
/// reader's `(unknown)` placeholder is the pseudo-method; tables of equal keys are equal.
#[test]
fn method_names_are_the_traces_keys() {
    let mut b = crate::trace::Builder::new("test");
    b.add_method(4, "a.C", "m", "()V", None, None);
    b.add_method(8, "a.C", "n", "()V", None, None);
    b.add_method(12, "b.D", "m", "(I)V", None, None);
    b.add_method(16, MethodKey::UNKNOWN_CLASS, "", "", None, None);
    let trace = b.finish();
    let names = MethodNames::of(&trace);
    assert_eq!(names.len(), 4);
    let k: Vec<MethodKey> = (0..4).map(|m| names.key(m)).collect();
    for (m, key) in k.iter().enumerate() {
        assert_eq!(*key, MethodKey::of(&trace, MethodId(m as u32)));
    }
    assert_eq!(k[0], MethodKey::new("a.C", "m", "()V"));
    assert_eq!(k[3], MethodKey::pseudo(MethodKey::UNKNOWN_CLASS));
    assert!(Arc::ptr_eq(&names.strings, &trace.strings));
    // Reading the trace's own method table, the names are the same.
    let shared = MethodNames::sharing(&trace);
    assert!(matches!(shared.ids, NameIds::Table(_)));
    assert_eq!(shared, names);
    assert_eq!(
        shared.all_ids().collect::<Vec<_>>(),
        names.all_ids().collect::<Vec<_>>()
    );
    assert_eq!(MethodNames::from_keys(&k), names);
    assert_ne!(MethodNames::from_keys(&k[..3]), names);
    let mut other = k.clone();
    other.swap(0, 1);
    assert_ne!(MethodNames::from_keys(&other), names);
}

#[test]
fn rows_are_matched_by_key_and_signed() {
    let a = RunTotals::sorted(
        Clock::Cpu,
        vec![
            (key("A", "x"), t(10, 4, 1)),
            (key("B", "y"), t(20, 8, 2)),
            (key("D", "z"), t(1, 1, 1)),
        ],
    );
    let b = RunTotals::sorted(
        Clock::Cpu,
        vec![
            (key("B", "y"), t(5, 2, 1)),
            (key("A", "x"), t(30, 4, 1)),
            (key("E", "w"), t(2, 2, 1)),
        ],
    );
    let d = TraceDiff::new(a, b);
    let names: Vec<String> = d.rows().map(|r| r.key.dotted()).collect();
    assert_eq!(names, vec!["B.y", "A.x", "D.z", "E.w"]);
    let by = d.row(0);
    assert_eq!(by.d_inclusive(), Some(-15));
    assert_eq!(by.d_exclusive(), Some(-6));
    assert_eq!(by.d_calls(), Some(-1));
    assert_eq!(by.inclusive_ratio(), Some(25.0));
    assert_eq!(d.row(1).d_inclusive(), Some(20));
    assert_eq!(d.only_a().count(), 1);
    assert_eq!(d.only_b().next().unwrap().key.dotted(), "E.w");
    assert_eq!(d.row(3).d_inclusive(), None);
}

#[test]
fn permute_matches_indexing() {
    // Every permutation of 0..6 against `order.map(|i| items[i])`.
    fn all(n: u32) -> Vec<Vec<u32>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in all(n - 1) {
            for at in 0..=p.len() {
                let mut q = p.clone();
                q.insert(at, n - 1);
                out.push(q);
            }
        }
        out
    }
    for n in 0..=6 {
        for order in all(n) {
            let items: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
            let want: Vec<String> = order.iter().map(|&i| items[i as usize].clone()).collect();
            let (mut got, mut o) = (items, order.clone());
            permute(&mut got, &mut o);
            assert_eq!(got, want, "{order:?}");
        }
    }
}

#[test]
fn equal_keys_keep_their_order() {
    let r = RunTotals::sorted(
        Clock::Wall,
        vec![
            (key("A", "x"), t(5, 1, 1)),
            (key("A", "x"), t(5, 2, 1)),
            (key("B", "y"), t(9, 0, 1)),
            (key("A", "x"), t(5, 3, 1)),
        ],
    );
    let got: Vec<(String, u64)> = r
        .entries()
        .map(|(k, t)| (k.dotted(), t.exclusive))
        .collect();
    let want = [("B.y", 0), ("A.x", 1), ("A.x", 2), ("A.x", 3)];
    assert_eq!(got, want.map(|(k, e)| (k.to_string(), e)));
}

#[test]
fn ties_follow_dmtracedump() {
    let top = MethodKey::pseudo(MethodKey::TOPLEVEL_CLASS);
    let unk = MethodKey::pseudo(MethodKey::UNKNOWN_CLASS);
    let r = RunTotals::sorted(
        Clock::Wall,
        vec![
            (key("B", "a"), t(0, 0, 0)),
            (unk.clone(), t(0, 0, 0)),
            (key("A", "b"), t(0, 0, 0)),
            (top.clone(), t(0, 0, 0)),
        ],
    );
    let order: Vec<String> = r.entries().map(|m| m.0.dotted()).collect();
    assert_eq!(
        order,
        vec!["(toplevel).(null)", "(unknown).(null)", "A.b", "B.a"]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// A trace's run is ordered by ranks of its strings; the same keys of their own, ordered
    /// by their texts (the obviously correct way), give the same run: the pseudo-methods,
    /// the `(unknown)` placeholder, empty names and classes that sort next to the pseudo
    /// classes included, with many ties of time.
    #[test]
    fn ranked_order_is_the_text_order(
        methods in proptest::collection::vec((0..5usize, 0..4usize, 0..3usize, 0..3u64), 0..40),
        top in 0..3u64,
    ) {
        const CLASSES: [&str; 5] = ["(unknown)", "(toplevel)", "a.B", "(toplevel", "(u"];
        const NAMES: [&str; 4] = ["", "m", "(null)", "n"];
        const SIGS: [&str; 3] = ["", "()V", "(I)V"];
        let mut b = crate::trace::Builder::new("test");
        for (i, &(c, n, s, _)) in methods.iter().enumerate() {
            b.add_method(4 * (i as u64 + 1), CLASSES[c], NAMES[n], SIGS[s], None, None);
        }
        let trace = b.finish();
        let time = |inclusive| MethodProfile { inclusive, ..MethodProfile::EMPTY };
        let profile = Profile {
            clock: Clock::Wall,
            total_time: 5,
            methods: methods.iter().map(|m| time(m.3)).collect(),
            toplevel: time(top),
            edge_lists: Default::default(),
        };
        let ranked = RunTotals::from_profile(&trace, profile);
        // The entries as `from_profile` makes them, in the same first order.
        let mut own = vec![(MethodKey::pseudo(MethodKey::TOPLEVEL_CLASS), Totals::from(&time(top)))];
        for (i, m) in methods.iter().enumerate() {
            own.push((MethodKey::of(&trace, MethodId(i as u32)), Totals::from(&time(m.3))));
        }
        if !own.iter().any(|(k, _)| k.name.is_none() && &*k.class == MethodKey::UNKNOWN_CLASS) {
            own.push((MethodKey::pseudo(MethodKey::UNKNOWN_CLASS), Totals::default()));
        }
        let by_text = RunTotals::sorted(Clock::Wall, own);
        let got: Vec<(MethodKey, Totals)> = ranked.entries().map(|(k, t)| (k.into(), t)).collect();
        let want: Vec<(MethodKey, Totals)> = by_text.entries().map(|(k, t)| (k.into(), t)).collect();
        proptest::prop_assert_eq!(got, want);
    }
}
