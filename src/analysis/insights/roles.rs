//! What each method is to the insights (a frame, a blocking category's row, a startup phase),
//! decided for every method of the trace up front, so that reading a call's role is a plain
//! index by method id, from any thread.

use rayon::prelude::*;
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
    /// Ascending.
    pub methods: Vec<MethodId>,
}

/// The roles of all the trace's methods.
pub(super) struct Roles {
    /// Per method: its index in `roles`; 0 for a method that is none of these (the table a scan
    /// of every call reads, so it holds no more than that).
    role_at: Vec<u32>,
    /// The distinct roles, `Role::default()` first.
    roles: Vec<Role>,
    rows: Vec<RowKey>,
}

/// What the rules say of one method, before its blocking row is numbered.
#[derive(Default)]
struct Judged {
    frame: bool,
    phase: Option<PhaseKind>,
    /// The category and the `class.method` name of its row.
    blocking: Option<(u16, String)>,
}

impl Roles {
    /// Runs the rules on every method (in parallel: the globs cost far more than a lookup),
    /// then numbers the blocking rows in method order.
    pub(super) fn new(trace: &Trace, rules: &RuleSet) -> Self {
        let judged: Vec<Judged> = (0..trace.methods.len())
            .into_par_iter()
            .map(|m| judge(trace, rules, MethodId(m as u32)))
            .collect();
        let mut out = Roles {
            role_at: vec![0; judged.len()],
            roles: vec![Role::default()],
            rows: Vec::new(),
        };
        let mut row_of: FxHashMap<(u16, String), u32> = FxHashMap::default();
        for (m, judged) in judged.into_iter().enumerate() {
            let blocking = judged.blocking.map(|(category, name)| {
                let next = out.rows.len() as u32;
                let row = *row_of.entry((category, name.clone())).or_insert(next);
                if row == next {
                    out.rows.push(RowKey {
                        category,
                        name,
                        methods: Vec::new(),
                    });
                }
                out.rows[row as usize].methods.push(MethodId(m as u32));
                (row, category)
            });
            let role = Role {
                frame: judged.frame,
                phase: judged.phase,
                blocking,
            };
            if role != Role::default() {
                out.role_at[m] = out.roles.len() as u32;
                out.roles.push(role);
            }
        }
        out
    }

    /// The role of `method`.
    #[inline]
    pub(super) fn of(&self, method: MethodId) -> Role {
        match self.role_at.get(method.index()) {
            Some(&at) => self.roles[at as usize],
            None => Role::default(),
        }
    }

    /// Whether `method` is anything to the insights (cheaper than comparing its role).
    #[inline]
    pub(super) fn is_of_interest(&self, method: MethodId) -> bool {
        self.role_at.get(method.index()).is_some_and(|&at| at != 0)
    }

    /// The blocking rows, by row number.
    pub(super) fn rows(&self) -> &[RowKey] {
        &self.rows
    }
}

/// What `method` is, by its `class.method` name.
fn judge(trace: &Trace, rules: &RuleSet, method: MethodId) -> Judged {
    let dotted = super::dotted_name(trace, method);
    let (class, name) = dotted.rsplit_once('.').unwrap_or(("", &dotted));
    Judged {
        frame: class == FRAME_CLASS && name == FRAME_METHOD,
        phase: PhaseKind::of(&dotted),
        blocking: rules.category_of(&dotted).map(|c| (c, dotted)),
    }
}
