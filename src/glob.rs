//! Shell-style globs on method names (`*` = any run of characters, `?` = one character), as
//! `gen --slow`, the call-tree transforms and the regression budgets (`diff --fail-on`) use them.
//! A leaf module: the readers (the trace generator) and the analyses both match with it.

/// Whether `pattern` matches all of `text`. Linear in `pattern.len() × text.len()` at worst (the
/// classic one-backtrack-point walk: a later `*` supersedes an earlier one), never exponential.
///
/// Walks bytes unless a `?` may meet a character of several bytes: a `*` cannot stop inside a
/// character and still match, since a literal's UTF-8 bytes only match at character starts.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    if text.is_ascii() || !pattern.contains('?') {
        walk(pattern.as_bytes(), text.as_bytes(), b'*', b'?')
    } else {
        let p: Vec<char> = pattern.chars().collect();
        let t: Vec<char> = text.chars().collect();
        walk(&p, &t, '*', '?')
    }
}

/// [`glob_match`] over units (bytes or characters), `any` and `one` being the wildcards.
fn walk<T: Copy + PartialEq>(p: &[T], t: &[T], any: T, one: T) -> bool {
    let (mut pi, mut ti) = (0, 0);
    // After the last `*`: where in the pattern to resume, and the text position it absorbed up to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == one || (p[pi] != any && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == any {
            star = Some((pi + 1, ti));
            pi += 1;
        } else if let Some((resume, absorbed)) = star {
            pi = resume;
            ti = absorbed + 1;
            star = Some((resume, absorbed + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == any)
}

/// The lines of a rules file (budgets, insight categories) that say something, with their
/// 1-based numbers: a `#` starts a comment, blank lines are skipped, the rest is trimmed.
pub fn rule_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(n, line)| {
        let line = line.split('#').next().unwrap_or("").trim();
        (!line.is_empty()).then_some((n + 1, line))
    })
}

#[cfg(test)]
mod tests {
    use super::glob_match;
    use proptest::prelude::*;

    /// Obviously correct and exponential: try every split at each `*`.
    fn reference(p: &[char], t: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('*', rest)) => (0..=t.len()).any(|k| reference(rest, &t[k..])),
            Some((&c, rest)) => {
                !t.is_empty() && (c == '?' || c == t[0]) && reference(rest, &t[1..])
            }
        }
    }

    #[test]
    fn examples() {
        assert!(glob_match("com.example.*", "com.example.shop.Cart.get"));
        assert!(glob_match("*.onDraw", "android.view.View.onDraw"));
        assert!(!glob_match("*.onDraw", "android.view.View.onDrawX"));
        assert!(glob_match("a?c", "abc"));
        assert!(glob_match("", ""));
        assert!(!glob_match("", "a"));
        assert!(glob_match("**", ""));
    }

    proptest! {
        #[test]
        fn matches_the_reference(p in "[aé*?]{0,7}", t in "[aéb]{0,9}") {
            let (pc, tc): (Vec<char>, Vec<char>) = (p.chars().collect(), t.chars().collect());
            prop_assert_eq!(glob_match(&p, &t), reference(&pc, &tc));
        }
    }
}
