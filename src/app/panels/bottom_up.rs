//! The bottom-up panel: every method with time, then its callers (computed when a row is first
//! opened, see [`BottomUpTree`]), in the tree table of [`super::call_tree`].

use eframe::egui;

use super::call_tree::{CallTreeState, Rows, tree_table_ui};
use crate::analysis::calltree::{BottomUpTree, NodeId, TreeKind};
use crate::app::context::PanelCtx;
use crate::trace::MethodId;

impl Rows for &mut BottomUpTree {
    fn kind(&self) -> TreeKind {
        TreeKind::BottomUp
    }
    fn fingerprint(&self) -> (usize, u64, TreeKind) {
        let top = self.top_down();
        (top.len(), top.inclusive(NodeId::ROOT), TreeKind::BottomUp)
    }
    fn node_count(&self) -> usize {
        self.len()
    }
    fn kids(&mut self, n: NodeId) -> Vec<NodeId> {
        self.expand(n).to_vec()
    }
    fn method(&self, n: NodeId) -> Option<MethodId> {
        BottomUpTree::method(self, n)
    }
    fn depth(&self, n: NodeId) -> u32 {
        BottomUpTree::depth(self, n)
    }
    fn inclusive(&self, n: NodeId) -> u64 {
        BottomUpTree::inclusive(self, n)
    }
    fn exclusive(&self, n: NodeId) -> u64 {
        BottomUpTree::exclusive(self, n)
    }
    fn calls(&self, n: NodeId) -> u64 {
        BottomUpTree::calls(self, n)
    }
    fn has_children(&self, n: NodeId) -> bool {
        BottomUpTree::has_children(self, n)
    }
}

/// Shows a bottom-up `tree`: methods, then their callers.
pub fn ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    state: &mut CallTreeState,
    tree: &mut BottomUpTree,
) {
    let mut rows = tree;
    tree_table_ui(ui, ctx, &mut rows, state);
}
