//! Naming methods in a transform so that it survives reloading: by name, never by id.
//!
//! A *method pattern* is matched against each method of a trace:
//! - with a `*` (any run of characters, dots included) or `?` (one character), it is a glob over
//!   `class.name`, or over `class.name signature` when the pattern holds a space;
//! - otherwise, with a space, it is exactly `class.name signature` (one method);
//! - otherwise it is exactly `class.name` (every signature of that name).
//!
//! A *package glob* (`android.*`, `com.example.**`) is a glob over `class.name`; one without a
//! wildcard names a package or class prefix: `android` means `android.*`.

use crate::glob::glob_match;
use crate::trace::{MethodId, Trace};

fn is_glob(p: &str) -> bool {
    p.contains(['*', '?'])
}

/// The methods a pattern names, as a per-method mask (indexed by [`MethodId`]).
pub(crate) fn method_mask(trace: &Trace, pattern: &str) -> Vec<bool> {
    let pattern = pattern.trim();
    let full = pattern.contains(' ');
    let glob = is_glob(pattern);
    (0..trace.methods.len())
        .map(|i| {
            let id = MethodId(i as u32);
            let name = if full {
                trace.method_full_name(id)
            } else {
                trace.method_short_name(id)
            };
            if glob {
                glob_match(pattern, &name)
            } else {
                name == pattern
            }
        })
        .collect()
}

/// The methods any of the package globs names.
pub(crate) fn package_mask(trace: &Trace, globs: &[String]) -> Vec<bool> {
    // (glob, the exact name a glob without wildcard also names)
    let globs: Vec<(String, Option<&str>)> = globs
        .iter()
        .map(|g| {
            let g = g.trim();
            if is_glob(g) {
                (g.to_string(), None)
            } else {
                let g = g.trim_end_matches('.');
                (format!("{g}.*"), Some(g))
            }
        })
        .collect();
    (0..trace.methods.len())
        .map(|i| {
            let name = trace.method_short_name(MethodId(i as u32));
            globs
                .iter()
                .any(|(g, exact)| *exact == Some(name.as_str()) || glob_match(g, &name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious exponential matcher.
    fn slow(p: &[u8], t: &[u8]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some(b'*') => (0..=t.len()).any(|k| slow(&p[1..], &t[k..])),
            Some(&c) => !t.is_empty() && (c == b'?' || c == t[0]) && slow(&p[1..], &t[1..]),
        }
    }

    #[test]
    fn glob_matches_the_slow_matcher() {
        let alphabet = [b'a', b'b', b'.', b'*', b'?'];
        let mut rng = crate::analysis::testutil::Rng::new(7);
        for _ in 0..20_000 {
            let pl = rng.below(7) as usize;
            let tl = rng.below(9) as usize;
            let p: Vec<u8> = (0..pl).map(|_| alphabet[rng.below(5) as usize]).collect();
            let t: Vec<u8> = (0..tl).map(|_| alphabet[rng.below(3) as usize]).collect();
            let (ps, ts) = (String::from_utf8(p).unwrap(), String::from_utf8(t).unwrap());
            assert_eq!(
                glob_match(&ps, &ts),
                slow(ps.as_bytes(), ts.as_bytes()),
                "{ps:?} {ts:?}"
            );
        }
        assert!(glob_match("android.*", "android.view.View.draw"));
        assert!(!glob_match("android.*", "androidx.core.A.b"));
    }

    #[test]
    fn patterns_name_methods_by_name_signature_or_glob() {
        let t = crate::analysis::testutil::simple_trace();
        let ids = |m: Vec<bool>| -> Vec<usize> { (0..m.len()).filter(|&i| m[i]).collect() };
        let foo = ids(method_mask(&t, "B.foo"));
        assert_eq!(foo.len(), 1);
        assert_eq!(t.method_short_name(MethodId(foo[0] as u32)), "B.foo");
        assert_eq!(ids(method_mask(&t, "B.foo (I)V")), foo);
        assert!(ids(method_mask(&t, "B.foo ()V")).is_empty());
        assert_eq!(ids(method_mask(&t, "C.*")).len(), 1);
        assert_eq!(ids(method_mask(&t, "*")).len(), t.methods.len());
        assert_eq!(ids(package_mask(&t, &["C".into()])).len(), 1);
        assert_eq!(ids(package_mask(&t, &["C".into(), "D.*".into()])).len(), 2);
        assert_eq!(ids(package_mask(&t, &["B.foo".into()])), foo);
        assert!(ids(package_mask(&t, &["B.fo".into()])).is_empty());
    }
}
