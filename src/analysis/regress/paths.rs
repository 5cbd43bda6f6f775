//! The call paths of a comparison as one shared tree: every path of every run is a node
//! `(parent, method)`, so a row's path is a node id (no per-row list of methods: a comparison of
//! call paths has millions of rows some 20 methods deep).

use std::fmt;
use std::sync::Arc;

use crate::analysis::diff::MethodKey;

/// No parent: a thread's root.
const ROOT: u32 = u32::MAX;

/// The paths of all runs of a comparison: node `i` is `(parent or ROOT, method)`, parents first.
#[derive(Debug, Default)]
pub struct PathTable {
    methods: Vec<MethodKey>,
    nodes: Vec<(u32, u32)>,
}

impl PathTable {
    /// A table of paths over `methods` (nodes added with [`PathTable::push`]).
    pub(crate) fn new(methods: Vec<MethodKey>) -> Self {
        PathTable {
            methods,
            nodes: Vec::new(),
        }
    }

    /// Adds the node `method` below `parent` (None: a root) and returns its id.
    pub(crate) fn push(&mut self, parent: Option<u32>, method: u32) -> u32 {
        debug_assert!(parent.is_none_or(|p| (p as usize) < self.nodes.len()));
        debug_assert!((method as usize) < self.methods.len());
        self.nodes.push((parent.unwrap_or(ROOT), method));
        (self.nodes.len() - 1) as u32
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The methods of node `node`, from the call up to the thread's root.
    fn up(&self, node: u32) -> impl Iterator<Item = &MethodKey> + '_ {
        let mut at = node;
        std::iter::from_fn(move || {
            let &(parent, method) = self.nodes.get(at as usize)?;
            at = parent;
            Some(&self.methods[method as usize])
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
    pub fn last(&self) -> &MethodKey {
        let (_, method) = self.table.nodes[self.node as usize];
        &self.table.methods[method as usize]
    }

    /// The methods from the thread's root down to the call.
    pub fn methods(&self) -> Vec<&MethodKey> {
        let mut v: Vec<&MethodKey> = self.table.up(self.node).collect();
        v.reverse();
        v
    }

    /// The number of methods on the path.
    pub fn depth(&self) -> usize {
        self.table.up(self.node).count()
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

    fn key(class: &str, name: &str) -> MethodKey {
        MethodKey {
            class: class.to_string(),
            name: Some(name.to_string()),
            signature: "()V".to_string(),
        }
    }

    #[test]
    fn paths_walk_their_parents_and_compare_by_methods() {
        let (a, b, c) = (key("A", "a"), key("B", "b"), key("C", "c"));
        let mut t = PathTable::new(vec![a.clone(), b.clone(), c.clone()]);
        let ra = t.push(None, 0);
        let ab = t.push(Some(ra), 1);
        let abc = t.push(Some(ab), 2);
        let rb = t.push(None, 1);
        let bc = t.push(Some(rb), 2);
        let t = Arc::new(t);
        let p = |n| PathKey::new(t.clone(), n);
        assert_eq!(p(abc).methods(), vec![&a, &b, &c]);
        assert_eq!(p(abc).depth(), 3);
        assert_eq!(p(abc).last(), &c);
        assert_eq!(p(bc).methods(), vec![&b, &c]);
        assert_eq!(p(ra).methods(), vec![&a]);
        assert_ne!(p(abc), p(bc));
        assert_eq!(p(abc), p(abc));
        // The same path in another table (methods in another order) is equal; a prefix is not.
        let mut u = PathTable::new(vec![c.clone(), b.clone(), a.clone()]);
        let ua = u.push(None, 2);
        let uab = u.push(Some(ua), 1);
        let uabc = u.push(Some(uab), 0);
        let u = Arc::new(u);
        assert_eq!(PathKey::new(u.clone(), uabc), p(abc));
        assert_ne!(PathKey::new(u.clone(), uab), p(abc));
        assert_ne!(PathKey::new(u.clone(), uabc), p(ab));
        assert_eq!(format!("{:?}", p(ab)), format!("{:?}", [&a, &b]));
    }
}
