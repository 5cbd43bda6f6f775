//! The categories of main-thread blocking: rules `CATEGORY GLOB`, the glob on `class.method`
//! (`*` and `?`, and one `{a,b}` group of alternatives). The built-in set covers Binder, disk,
//! network, locks, sleeps, layout inflation and class loading; a rules file adds to it:
//!
//! ```text
//! # my own database layer blocks as disk does
//! disk      com.example.db.*.query
//! json      com.google.gson.Gson.{fromJson,toJson}
//! ```
//!
//! The rules are tried in order, the file's before the built-in ones, and the first that
//! matches decides a method's category: a file can move a method to another category.

use crate::glob::{glob_match, rule_lines};

/// The built-in rules, `(category, glob)`, in the order they are tried.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("binder", "android.os.BinderProxy.transact*"),
    (
        "disk",
        "libcore.io.BlockGuardOs.{read,write,open,fsync,pread,pwrite}",
    ),
    ("disk", "android.database.sqlite.SQLite*.*"),
    ("disk", "android.content.SharedPreferences*.commit"),
    // The implementation of the interface above: the one a method trace records.
    ("disk", "android.app.SharedPreferencesImpl*.commit"),
    (
        "network",
        "libcore.io.BlockGuardOs.{connect,recvfrom,sendto}",
    ),
    ("network", "java.net.*"),
    ("lock", "java.lang.Object.wait"),
    ("lock", "sun.misc.Unsafe.park"),
    ("lock", "jdk.internal.misc.Unsafe.park"),
    ("sleep", "java.lang.Thread.sleep"),
    ("inflate", "android.view.LayoutInflater.inflate"),
    ("class-load", "java.lang.ClassLoader.loadClass"),
    ("class-load", "dalvik.system.*ClassLoader.*"),
];

/// Names a category may not take: they are the frame metrics of `insights --fail-on`.
pub const RESERVED: &[&str] = &[
    "frames",
    "janky",
    "frame-p50",
    "frame-p90",
    "frame-p99",
    "frame-max",
    "blocking",
];

/// One rule: the methods whose `class.method` matches one of `globs` are of `category`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub category: String,
    /// The rule's glob as written.
    pub glob: String,
    /// The glob with its `{a,b}` group expanded: plain globs.
    globs: Vec<String>,
}

impl Rule {
    /// A rule; an error says what is wrong with the category name or the glob.
    pub fn new(category: &str, glob: &str) -> Result<Rule, String> {
        let valid_name = !category.is_empty()
            && (category.bytes()).all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !valid_name {
            return Err(format!(
                "'{category}': a category is letters, digits, '-' and '_'"
            ));
        }
        if RESERVED.contains(&category) {
            return Err(format!(
                "'{category}': a frame metric's name, not a category"
            ));
        }
        Ok(Rule {
            category: category.to_string(),
            glob: glob.to_string(),
            globs: expand_alternatives(glob)?,
        })
    }

    fn matches(&self, dotted: &str) -> bool {
        self.globs.iter().any(|g| glob_match(g, dotted))
    }
}

/// `a.{b,c}.d` → `a.b.d`, `a.c.d`: one group of alternatives, not nested.
fn expand_alternatives(glob: &str) -> Result<Vec<String>, String> {
    let Some(open) = glob.find('{') else {
        return match glob.contains('}') {
            true => Err(format!("'{glob}': '}}' without '{{'")),
            false => Ok(vec![glob.to_string()]),
        };
    };
    let close = (glob[open..].find('}').map(|c| open + c))
        .ok_or_else(|| format!("'{glob}': '{{' without '}}'"))?;
    let (head, tail) = (&glob[..open], &glob[close + 1..]);
    let inner = &glob[open + 1..close];
    if inner.contains('{') || tail.contains(['{', '}']) {
        return Err(format!("'{glob}': one group of alternatives at most"));
    }
    Ok(inner
        .split(',')
        .map(|alt| format!("{head}{alt}{tail}"))
        .collect())
}

/// The rules of a `--rules` file: lines `CATEGORY GLOB`, `#` starts a comment, blank lines are
/// ignored. An error names the line (`line N: ...`).
pub fn parse_rules(text: &str) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    for (n, line) in rule_lines(text) {
        let at = |e: String| format!("line {n}: {e}");
        let mut words = line.split_whitespace();
        let (Some(category), Some(glob), None) = (words.next(), words.next(), words.next()) else {
            return Err(at(format!(
                "'{line}': expected CATEGORY GLOB, e.g. 'disk com.example.db.*'"
            )));
        };
        rules.push(Rule::new(category, glob).map_err(at)?);
    }
    Ok(rules)
}

/// The rules in the order they are tried, and the categories they name, numbered.
#[derive(Clone, Debug)]
pub struct RuleSet {
    rules: Vec<(Rule, u16)>,
    categories: Vec<String>,
}

impl Default for RuleSet {
    /// The built-in rules alone.
    fn default() -> Self {
        RuleSet::new(Vec::new())
    }
}

impl RuleSet {
    /// `extra` (tried first), then the built-in rules.
    pub fn new(extra: Vec<Rule>) -> RuleSet {
        let built_in = BUILT_IN
            .iter()
            .map(|&(c, g)| Rule::new(c, g).unwrap_or_else(|e| unreachable!("built-in rule: {e}")));
        let mut categories: Vec<String> = Vec::new();
        let mut rules = Vec::new();
        for rule in extra.into_iter().chain(built_in) {
            let index = match categories.iter().position(|c| *c == rule.category) {
                Some(i) => i,
                None => {
                    categories.push(rule.category.clone());
                    categories.len() - 1
                }
            };
            rules.push((rule, index as u16));
        }
        RuleSet { rules, categories }
    }

    /// The categories, by number.
    pub fn categories(&self) -> &[String] {
        &self.categories
    }

    /// The category (number) of the method named `dotted` (`class.method`), if any.
    pub fn category_of(&self, dotted: &str) -> Option<u16> {
        (self.rules.iter())
            .find(|(rule, _)| rule.matches(dotted))
            .map(|&(_, c)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_categories() {
        let set = RuleSet::default();
        let cat = |name: &str| {
            set.category_of(name)
                .map(|c| set.categories()[c as usize].clone())
        };
        assert_eq!(
            cat("android.os.BinderProxy.transact").as_deref(),
            Some("binder")
        );
        assert_eq!(
            cat("android.os.BinderProxy.transactNative").as_deref(),
            Some("binder")
        );
        assert_eq!(
            cat("libcore.io.BlockGuardOs.fsync").as_deref(),
            Some("disk")
        );
        assert_eq!(
            cat("libcore.io.BlockGuardOs.sendto").as_deref(),
            Some("network")
        );
        assert_eq!(cat("libcore.io.BlockGuardOs.stat"), None);
        assert_eq!(
            cat("android.database.sqlite.SQLiteDatabase.query").as_deref(),
            Some("disk")
        );
        assert_eq!(
            cat("android.app.SharedPreferencesImpl$EditorImpl.commit").as_deref(),
            Some("disk")
        );
        assert_eq!(cat("java.net.Socket.connect").as_deref(), Some("network"));
        assert_eq!(
            cat("jdk.internal.misc.Unsafe.park").as_deref(),
            Some("lock")
        );
        assert_eq!(cat("java.lang.Thread.sleep").as_deref(), Some("sleep"));
        assert_eq!(
            cat("android.view.LayoutInflater.inflate").as_deref(),
            Some("inflate")
        );
        assert_eq!(
            cat("dalvik.system.PathClassLoader.findClass").as_deref(),
            Some("class-load")
        );
        assert_eq!(cat("android.view.View.draw"), None);
    }

    #[test]
    fn a_file_adds_rules_tried_first() {
        let extra = parse_rules(
            "# mine\n\njson com.google.gson.Gson.{fromJson,toJson}\n\
                                 net java.net.URL.openConnection  # moved\n",
        )
        .unwrap();
        let set = RuleSet::new(extra);
        let cat = |name: &str| {
            set.category_of(name)
                .map(|c| set.categories()[c as usize].clone())
        };
        assert_eq!(cat("com.google.gson.Gson.toJson").as_deref(), Some("json"));
        assert_eq!(
            cat("com.google.gson.Gson.fromJson").as_deref(),
            Some("json")
        );
        assert_eq!(cat("com.google.gson.Gson.other"), None);
        assert_eq!(cat("java.net.URL.openConnection").as_deref(), Some("net"));
        assert_eq!(cat("java.net.URL.openStream").as_deref(), Some("network"));
    }

    #[test]
    fn bad_rules_name_their_line() {
        for (text, line) in [
            ("disk a.b\nonlyone\n", 2),
            ("x y z\n", 1),
            ("janky a.b\n", 1),
            ("ok a.{b,c\n", 1),
            ("ok a.{b,{c}}\n", 1),
            ("b@d a.b\n", 1),
        ] {
            let e = parse_rules(text).unwrap_err();
            assert!(e.starts_with(&format!("line {line}:")), "{text:?}: {e}");
        }
    }
}
