//! Malformed key method lines against a port of dmtracedump's reading of them (tracedump.cc
//! `parseMethods`, below): every line of one to four fields drawn from empty fields, names,
//! descriptors, file names, numbers and bytes that are not UTF-8, lines of five to seven fields,
//! and several lines with one name. The names `profile` and `dump` print are the port's, byte
//! for byte, but for the one departure by design: a signature ends at its TAB (dmtracedump prints
//! the rest of the line after it, ART's source file).

use std::path::Path;

use tracelens::analysis::profile::profile;
use tracelens::formats::Progress;
use tracelens::report::profile_text::{Style, render};
use tracelens::trace::raw_text;

/// dmtracedump's `findNextChar`: the offset of `c` in `data[..len]`, or −1.
fn find_next_char(data: &[u8], start: isize, len: isize, c: u8) -> isize {
    if start < 0 || len <= 0 || start as usize >= data.len() {
        return -1;
    }
    let end = (start + len).min(data.len() as isize) as usize;
    data[start as usize..end]
        .iter()
        .position(|&b| b == c)
        .map_or(-1, |p| p as isize)
}

/// What dmtracedump prints for a method line (`id<TAB>...`, no newline): `class.name signature`,
/// or the class alone when its name is NULL; None when it rejects the line.
fn dmtracedump_name(line: &[u8]) -> Option<Vec<u8>> {
    let next = line.len() as isize;
    let tab1 = find_next_char(line, 0, next, b'\t');
    let tab2 = find_next_char(line, tab1 + 1, next - (tab1 + 1), b'\t');
    let tab3 = find_next_char(line, tab1 + tab2 + 2, next - (tab1 + tab2 + 2), b'\t');
    let tab4 = find_next_char(
        line,
        tab1 + tab2 + tab3 + 3,
        next - (tab1 + tab2 + tab3 + 3),
        b'\t',
    );
    let tab5 = find_next_char(
        line,
        tab1 + tab2 + tab3 + tab4 + 4,
        next - (tab1 + tab2 + tab3 + tab4 + 4),
        b'\t',
    );
    if tab1 < 0 {
        return None;
    }
    let at = |a: isize, b: isize| line[a as usize..b as usize].to_vec();
    if tab2 > 0 && tab3 > 0 {
        let tab2 = tab2 + tab1 + 1;
        let tab3 = tab3 + tab2 + 1;
        let signature_end = if tab4 > 0 && tab5 > 0 {
            tab4 + tab3 + 1
        } else {
            next
        };
        let mut name = at(tab1 + 1, tab2);
        name.push(b'.');
        name.extend(at(tab2 + 1, tab3));
        name.push(b' ');
        name.extend(at(tab3 + 1, signature_end));
        Some(name)
    } else {
        Some(at(tab1 + 1, next))
    }
}

/// dmtracedump's name with tracelens' one departure: the signature ends at its TAB.
fn expected(line: &[u8]) -> Vec<u8> {
    let name = dmtracedump_name(line).expect("a line with an id and a TAB");
    let named = {
        let f: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
        f.len() >= 4 && !f[1].is_empty() && !f[2].is_empty()
    };
    if !named {
        return name;
    }
    // `class.name ` then the signature up to its TAB: what dmtracedump prints, cut there.
    let f: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
    let ours = [f[1], b".", f[2], b" ", f[3]].concat();
    assert!(name.starts_with(&ours), "{line:?}");
    ours
}

/// A v3 wall-clock trace whose key has `methods` (`id<TAB>...` lines), thread 1 calling each
/// method in turn, the `i`th for `10 + i` µs.
fn trace(methods: &[Vec<u8>]) -> Vec<u8> {
    let mut b = b"*version\n3\nclock=wall\n*threads\n1\tmain\n*methods\n".to_vec();
    for m in methods {
        b.extend_from_slice(m);
        b.push(b'\n');
    }
    b.extend_from_slice(b"*end\n");
    b.extend_from_slice(&crate::util::v3_data_header(10));
    let mut t = 0u32;
    for i in 0..methods.len() as u32 {
        for (action, dt) in [(0, 0), (1, 10 + i)] {
            t += dt;
            b.extend_from_slice(&1u16.to_le_bytes());
            b.extend_from_slice(&((4 * (i + 1)) | action).to_le_bytes());
            b.extend_from_slice(&t.to_le_bytes());
        }
    }
    b
}

/// The names of the exclusive section of `tracelens profile`, in its order (the name after the
/// `[n] `), as bytes.
fn profile_names(bytes: &[u8]) -> Vec<Vec<u8>> {
    let trace = tracelens::load::load_bytes(Path::new("k.trace"), bytes, &Progress::default())
        .expect("loads");
    let p = profile(&trace, trace.primary_clock());
    let text = render(&trace, &p, &Style::Text);
    let text = raw_text::to_bytes(&text).into_owned();
    let start = text
        .windows(7)
        .position(|w| w == b"Method\n")
        .expect("the exclusive section")
        + 7;
    text[start..]
        .split(|&b| b == b'\n')
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let at = l.windows(2).position(|w| w == b"] ").expect("[n] ") + 2;
            l[at..].to_vec()
        })
        .collect()
}

/// The names of `tracelens dump`'s enter records, in file order.
fn dump_names(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    tracelens::report::dump::dump(bytes, &mut out).expect("dumps");
    out.split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b" 1 ent"))
        // ` 1 ent         0 ...`: tid, action, time, depth flag and three dots.
        .map(|l| l[20..].to_vec())
        .collect()
}

const FIELDS: [&[u8]; 8] = [
    b"",
    b"A",
    b"main",
    b"(I)V",
    b"A.java",
    b"12",
    b"caf\xe9\xff",
    "é".as_bytes(),
];

fn line(id: usize, fields: &[&[u8]]) -> Vec<u8> {
    let mut l = format!("{:#x}", 4 * id).into_bytes();
    for f in fields {
        l.push(b'\t');
        l.extend_from_slice(f);
    }
    l
}

/// Every combination of one to four fields, then longer lines.
fn malformed_lines() -> Vec<Vec<&'static [u8]>> {
    let mut all: Vec<Vec<&[u8]>> = vec![Vec::new()];
    let mut lines = Vec::new();
    for _ in 0..4 {
        all = all
            .iter()
            .flat_map(|prefix| {
                FIELDS.iter().map(move |f| {
                    let mut l = prefix.clone();
                    l.push(*f);
                    l
                })
            })
            .collect();
        lines.extend(all.iter().cloned());
    }
    for extra in [
        &[b"A.java" as &[u8], b"12"][..],
        &[b"", b"12"],
        &[b"A.java", b""],
        &[b"(null)", b"-1", b"more"],
        &[b"A.java", b"12", b"x", b"y"],
    ] {
        for head in [
            &[b"A" as &[u8], b"main", b"(I)V"][..],
            &[b"A", b"main", b""],
        ] {
            lines.push(head.iter().chain(extra).copied().collect());
        }
    }
    lines
}

#[test]
fn key_lines_print_as_dmtracedump_reads_them() {
    let lines = malformed_lines();
    let mut checked = 0;
    for fields in &lines {
        let key_line = line(1, fields);
        let want = expected(&key_line);
        let bytes = trace(std::slice::from_ref(&key_line));
        assert_eq!(
            profile_names(&bytes),
            vec![want.clone()],
            "profile of {:?}",
            String::from_utf8_lossy(&key_line)
        );
        assert_eq!(
            dump_names(&bytes),
            vec![want],
            "dump of {:?}",
            String::from_utf8_lossy(&key_line)
        );
        checked += 1;
    }
    assert!(checked > 4000, "{checked} lines");
}

/// Lines that name one method alike (class, name and signature) are separate methods, each
/// printed with its own bytes; in the exclusive section, the longest first.
#[test]
fn duplicate_names_and_raw_bytes_print_each_method() {
    let lines: Vec<Vec<u8>> = vec![
        line(1, &[b"A", b"run", b"()V"]),
        line(2, &[b"A", b"run", b"()V"]),
        line(3, &[b"B\xff", b"run", b"()V"]),
        line(4, &[b"B\xfe", b"run", b"()V"]),
        line(5, &[b"A", b"run"]),
    ];
    let names = profile_names(&trace(&lines));
    let want: Vec<Vec<u8>> = [4, 3, 2, 1, 0]
        .iter()
        .map(|&i| expected(&lines[i]))
        .collect();
    assert_eq!(names, want);
}
