//! What each method is to the insights (a frame, a blocking category's row, a startup phase),
//! decided the first time a walk meets the method and remembered by method id.

use rustc_hash::FxHashMap;

use super::RuleSet;
use super::startup::PhaseKind;
use crate::trace::{MethodId, Trace};

/// The class and method name of `Choreographer.doFrame` (any signature).
const FRAME_CLASS: &str = "android.view.Choreographer";
const FRAME_METHOD: &str = "doFrame";

/// What a method is to the insights.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Role {
    /// `Choreographer.doFrame`.
    pub frame: bool,
    pub phase: Option<PhaseKind>,
    /// The blocking row of `class.method` and its category.
    blocking: Option<(u32, u16)>,
}

impl Role {
    /// The blocking row and category, if the method is a blocking one.
    pub fn blocking(self) -> Option<(u32, u16)> {
        self.blocking
    }
}

/// A blocking row: a category and a `class.method` name, with the methods (overloads) that
/// share it.
#[derive(Clone, Debug)]
pub(super) struct RowKey {
    pub category: u16,
    pub name: String,
    pub methods: Vec<MethodId>,
}

/// The roles of the methods met so far.
pub(super) struct Roles<'a> {
    trace: &'a Trace,
    rules: &'a RuleSet,
    /// Per method: its index in `roles` (0: a method that is none of these), or `UNSEEN`.
    memo: Vec<u32>,
    roles: Vec<Role>,
    rows: Vec<RowKey>,
    row_of: FxHashMap<(u16, String), u32>,
}

const UNSEEN: u32 = u32::MAX;

impl<'a> Roles<'a> {
    pub(super) fn new(trace: &'a Trace, rules: &'a RuleSet) -> Self {
        Roles {
            trace,
            rules,
            memo: vec![UNSEEN; trace.methods.len()],
            roles: vec![Role::default()],
            rows: Vec::new(),
            row_of: FxHashMap::default(),
        }
    }

    /// The role of `method`.
    #[inline]
    pub(super) fn of(&mut self, method: MethodId) -> Role {
        let Some(&at) = self.memo.get(method.index()) else {
            return Role::default();
        };
        if at != UNSEEN {
            return self.roles[at as usize];
        }
        let role = self.decide(method);
        let at = if role == Role::default() {
            0
        } else {
            self.roles.push(role);
            self.roles.len() as u32 - 1
        };
        self.memo[method.index()] = at;
        role
    }

    fn decide(&mut self, method: MethodId) -> Role {
        let dotted = super::dotted_name(self.trace, method);
        let (class, name) = dotted.rsplit_once('.').unwrap_or(("", &dotted));
        let blocking = self.rules.category_of(&dotted).map(|category| {
            let next = self.rows.len() as u32;
            let row = *self
                .row_of
                .entry((category, dotted.clone()))
                .or_insert(next);
            if row == next {
                self.rows.push(RowKey {
                    category,
                    name: dotted.clone(),
                    methods: Vec::new(),
                });
            }
            self.rows[row as usize].methods.push(method);
            (row, category)
        });
        Role {
            frame: class == FRAME_CLASS && name == FRAME_METHOD,
            phase: PhaseKind::of(&dotted),
            blocking,
        }
    }

    /// Whether `method` is anything to the insights (cheaper than comparing its role).
    #[inline]
    pub(super) fn is_of_interest(&mut self, method: MethodId) -> bool {
        match self.memo.get(method.index()) {
            Some(&UNSEEN) => self.of(method) != Role::default(),
            Some(&at) => at != 0,
            None => false,
        }
    }

    /// The blocking rows met, by row number.
    pub(super) fn rows(&self) -> &[RowKey] {
        &self.rows
    }
}
