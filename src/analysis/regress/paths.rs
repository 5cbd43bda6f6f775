//! The call paths of a comparison as one shared tree: every path of every run is a node
//! `(parent, method)`, so a row's path is a node id (no per-row list of methods: a comparison of
//! call paths has millions of rows some 20 methods deep).

use std::fmt;
use std::sync::Arc;

use super::GlobalMethods;
use crate::analysis::diff::KeyParts;

/// No parent: a thread's root.
const ROOT: u32 = u32::MAX;

/// The paths of all runs of a comparison: node `i` is `(parent or ROOT, method)`, parents first.
#[derive(Debug, Default)]
pub struct PathTable {
    methods: GlobalMethods,
    nodes: Vec<(u32, u32)>,
    /// Methods on each node's path (1 for a root).
    depths: Vec<u32>,
}

/// The most bytes of names a path shows (JSON `path`, text labels): the innermost methods that
/// fit, at least the call itself. Paths are as deep as the trace, so showing each whole would
/// make the output quadratic in the depth (a 286 KB chain 10 000 calls deep: 3.5 GB of JSON).
pub const PATH_SHOWN_BYTES: usize = 8192;

impl PathTable {
    /// A table of paths over `methods` (nodes added with [`PathTable::push`]).
    pub(crate) fn new(methods: GlobalMethods) -> Self {
        PathTable {
            methods,
            nodes: Vec::new(),
            depths: Vec::new(),
        }
    }

    /// Adds the node `method` below `parent` (None: a root) and returns its id.
    pub(crate) fn push(&mut self, parent: Option<u32>, method: u32) -> u32 {
        debug_assert!(parent.is_none_or(|p| (p as usize) < self.nodes.len()));
        debug_assert!((method as usize) < self.methods.len());
        let depth = parent.map_or(1, |p| self.depths[p as usize].saturating_add(1));
        self.nodes.push((parent.unwrap_or(ROOT), method));
        self.depths.push(depth);
        (self.nodes.len() - 1) as u32
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The methods of node `node`, from the call up to the thread's root.
    fn up(&self, node: u32) -> impl Iterator<Item = KeyParts<'_>> + '_ {
        let mut at = node;
        std::iter::from_fn(move || {
            let &(parent, method) = self.nodes.get(at as usize)?;
            at = parent;
            Some(self.methods.parts(method as usize))
        })
    }
}

/// One path of a [`PathTable`]. Paths are equal when their methods are (also across tables).
#[derive(Clone)]
pub struct PathKey {
    table: Arc<PathTable>,
    node: u32,
}

impl PathKey {
    pub(crate) fn new(table: Arc<PathTable>, node: u32) -> Self {
        assert!((node as usize) < table.len(), "a node of the table");
        PathKey { table, node }
    }

    /// The called method (the path's last).
    pub fn last(&self) -> KeyParts<'_> {
        let (_, method) = self.table.nodes[self.node as usize];
        self.table.methods.parts(method as usize)
    }

    /// The methods from the thread's root down to the call.
    pub fn methods(&self) -> Vec<KeyParts<'_>> {
        let mut v: Vec<KeyParts> = self.table.up(self.node).collect();
        v.reverse();
        v
    }

    /// The number of methods on the path.
    pub fn depth(&self) -> usize {
        self.table.depths[self.node as usize] as usize
    }

    /// The names (`name` of each method) of the innermost methods whose names fit in
    /// `max_bytes` together, from the outermost shown down to the call (which is always shown),
    /// and how many callers above them were left out.
    pub fn innermost(
        &self,
        max_bytes: usize,
        name: impl Fn(&KeyParts) -> String,
    ) -> (Vec<String>, usize) {
        let mut names = Vec::new();
        let mut bytes = 0usize;
        for m in self.table.up(self.node) {
            let n = name(&m);
            bytes = bytes.saturating_add(n.len());
            if bytes > max_bytes && !names.is_empty() {
                break;
            }
            names.push(n);
        }
        let omitted = self.depth() - names.len();
        names.reverse();
        (names, omitted)
    }
}

impl PartialEq for PathKey {
    fn eq(&self, other: &Self) -> bool {
        if Arc::ptr_eq(&self.table, &other.table) {
            // Within one table a path is one node.
            return self.node == other.node;
        }
        self.table.up(self.node).eq(other.table.up(other.node))
    }
}

impl Eq for PathKey {}

impl fmt::Debug for PathKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.methods()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::diff::MethodKey;

    fn parts<'a>(v: &[&'a MethodKey]) -> Vec<KeyParts<'a>> {
        v.iter().map(|k| k.parts()).collect()
    }

    fn key(class: &str, name: &str) -> MethodKey {
        MethodKey::new(class, name, "()V")
    }

    #[test]
    fn paths_walk_their_parents_and_compare_by_methods() {
        let (a, b, c) = (key("A", "a"), key("B", "b"), key("C", "c"));
        let mut t = PathTable::new(GlobalMethods::from_keys(&[a.clone(), b.clone(), c.clone()]));
        let ra = t.push(None, 0);
        let ab = t.push(Some(ra), 1);
        let abc = t.push(Some(ab), 2);
        let rb = t.push(None, 1);
        let bc = t.push(Some(rb), 2);
        let t = Arc::new(t);
        let p = |n| PathKey::new(t.clone(), n);
        assert_eq!(p(abc).methods(), parts(&[&a, &b, &c]));
        assert_eq!(p(abc).depth(), 3);
        assert_eq!(p(abc).last(), c.parts());
        assert_eq!(p(bc).methods(), parts(&[&b, &c]));
        assert_eq!(p(ra).methods(), parts(&[&a]));
        assert_ne!(p(abc), p(bc));
        assert_eq!(p(abc), p(abc));
        // The same path in another table (methods in another order) is equal; a prefix is not.
        let mut u = PathTable::new(GlobalMethods::from_keys(&[c.clone(), b.clone(), a.clone()]));
        let ua = u.push(None, 2);
        let uab = u.push(Some(ua), 1);
        let uabc = u.push(Some(uab), 0);
        let u = Arc::new(u);
        assert_eq!(PathKey::new(u.clone(), uabc), p(abc));
        assert_ne!(PathKey::new(u.clone(), uab), p(abc));
        assert_ne!(PathKey::new(u.clone(), uabc), p(ab));
        assert_eq!(format!("{:?}", p(ab)), format!("{:?}", parts(&[&a, &b])));
    }

    /// Against the whole path: the shown names are its longest suffix that fits (at least
    /// one), and the omitted count is the rest.
    #[test]
    fn innermost_names_are_the_longest_suffix_that_fits() {
        let methods: Vec<MethodKey> = (0..7).map(|i| key(&"C".repeat(i * 3 + 1), "m")).collect();
        let mut t = PathTable::new(GlobalMethods::from_keys(&methods));
        let mut node = None;
        let mut nodes = Vec::new();
        for i in 0..60u32 {
            node = Some(t.push(node, (i * 5) % 7));
            nodes.push(node.unwrap());
        }
        let t = Arc::new(t);
        for &n in &nodes {
            let p = PathKey::new(t.clone(), n);
            let all: Vec<String> = p.methods().iter().map(|k| k.full()).collect();
            assert_eq!(p.depth(), all.len());
            for max in [0usize, 5, 17, 40, 200, 10_000] {
                let (names, omitted) = p.innermost(max, |k| k.full());
                let mut keep = 0;
                let mut bytes = 0;
                for name in all.iter().rev() {
                    bytes += name.len();
                    if bytes > max && keep > 0 {
                        break;
                    }
                    keep += 1;
                }
                assert_eq!(names[..], all[all.len() - keep..], "{n} {max}");
                assert_eq!(omitted, all.len() - keep);
            }
        }
    }
}
