//! Search that finds calls, driven through the real app: type a query, the calls appear (the
//! same as the search core finds, counted against a walk of every lane), Enter / Shift+Enter walk
//! them on the timeline, the list selects a call, the filter switch is on the tab's state.

use eframe::egui;
use egui_kittest::kittest::Queryable;
use tracelens::analysis::search::{MAX_HITS, Query, search};
use tracelens::trace::MethodId;

use crate::gui_util::{H, harness, ready, step_until, wait_loaded};

/// A method of the sample with several calls on more than one depth or thread, and a query
/// that matches exactly it (class and name, the name anchored).
fn target(h: &H) -> (MethodId, String, usize) {
    let doc = ready(h.state(), 0);
    let t = &doc.trace;
    let count = |m: MethodId| -> usize {
        t.threads
            .iter()
            .flat_map(|th| &th.lanes)
            .map(|l| (0..l.len()).filter(|&i| l.method(i) == m).count())
            .sum()
    };
    let m = doc
        .ranked()
        .iter()
        .copied()
        .find(|&m| (5..200).contains(&count(m)))
        .expect("a method with 5 to 200 calls");
    let meth = &t.methods[m.index()];
    let (class, name) = (t.str(meth.class), t.str(meth.name));
    let query = format!(
        "class:/^{}$/ name:/^{}$/ sig:{}",
        regex_escape(class),
        regex_escape(name),
        t.str(meth.signature)
    );
    (m, query, count(m))
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// Opens the search bar with Ctrl+Shift+F and types `query` into it.
fn type_query(h: &mut H, query: &str) {
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::F,
    );
    h.step();
    h.step();
    h.event(egui::Event::Text(query.to_string()));
    h.step();
}

fn visible(h: &H) -> (f64, f64) {
    h.state().tabs[0]
        .view
        .timeline
        .range
        .expect("a range is shown")
}

#[test]
fn a_query_finds_the_calls_and_enter_walks_them() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    let (m, query, n_calls) = target(&h);
    type_query(&mut h, &query);
    assert!(h.state().tabs[0].view.search.open);
    assert_eq!(h.state().tabs[0].view.search.query, query);
    let generation = ready(h.state(), 0).generation;
    step_until(&mut h, "the calls found", |app| {
        app.tabs[0].view.search.found(generation).is_some()
    });
    let found = h.state().tabs[0].view.search.found(generation).unwrap();
    assert_eq!(
        found.hits.len(),
        n_calls,
        "every call of the method, no other"
    );
    assert!(found.hits.iter().all(|c| c.method == m));
    assert_eq!(found.methods.len(), 1);
    let core = search(
        &ready(h.state(), 0).trace,
        None,
        &Query::parse(&query).unwrap(),
        MAX_HITS,
    );
    assert_eq!(found.hits, core.hits);
    h.get_by_label_contains(&format!("{n_calls} calls in 1 method"));

    // Enter (the field keeps the focus): the first call, then the next; Shift+Enter: back.
    let span = |k: usize| (found.hits[k].start as f64, found.hits[k].end as f64);
    for (key_mods, want) in [
        (egui::Modifiers::NONE, 0),
        (egui::Modifiers::NONE, 1),
        (egui::Modifiers::NONE, 2),
        (egui::Modifiers::SHIFT, 1),
    ] {
        h.key_press_modifiers(key_mods, egui::Key::Enter);
        h.step();
        h.step();
        let view = &h.state().tabs[0].view;
        assert_eq!(view.search.cursor, Some(want));
        let (a, b) = visible(&h);
        let (s, e) = span(want);
        assert!(
            a <= s && e <= b,
            "call {want} ({s}..{e}) inside the range {a}..{b}"
        );
        assert!(
            b - a < (e - s) * 3.0,
            "zoomed to the call, not the whole trace"
        );
        assert_eq!(h.state().tabs[0].view.selected, Some(m));
    }
    h.get_by_label_contains(&format!("2 of {n_calls} calls"));

    // The list: a click on the fourth row (time order) goes to that call.
    h.get_by_label("Calls found").click();
    h.step();
    // The list's time order is made in the background: wait for its rows (a busy machine may
    // take several frames).
    let name = ready(h.state(), 0).trace.method_full_name(m);
    let t0 = std::time::Instant::now();
    while h.query_all_by_label(&name).nth(3).is_none() {
        assert!(t0.elapsed().as_secs() < 60, "the list's rows never came");
        std::thread::sleep(std::time::Duration::from_millis(5));
        h.step();
    }
    h.query_all_by_label(&name)
        .nth(3)
        .expect("rows of the list")
        .click();
    h.step();
    h.step();
    assert_eq!(h.state().tabs[0].view.search.cursor, Some(3));
    let (a, b) = visible(&h);
    let (s, e) = span(3);
    assert!(a <= s && e <= b);

    // Filter: switched on the tab (what it greys is tested on the shared colour predicate).
    h.get_by_label("Filter").click();
    h.step();
    assert!(h.state().tabs[0].view.search.filter);
}

#[test]
fn a_bad_regex_says_why_and_finds_nothing() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    type_query(&mut h, "name:/a(/");
    let generation = ready(h.state(), 0).generation;
    step_until(&mut h, "the query checked", |app| {
        !app.tabs[0].view.search.busy(generation)
    });
    h.step();
    h.get_by_label_contains("not a valid regular expression");
    assert!(h.state().tabs[0].view.search.found(generation).is_none());
}
