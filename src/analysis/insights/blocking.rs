//! Main-thread blocking: per category and per `class.method`, the calls, the total of the
//! outermost activations (a call inside another of the same row or category counts once), the
//! longest call, and the part of the outermost activations inside janky frames.

use serde::Serialize;

use super::Micros;
use super::roles::Roles;
use crate::trace::MethodId;

/// One method of a category.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockingRow {
    pub category: String,
    /// `class.method`.
    pub name: String,
    pub calls: u64,
    /// Wall time of the outermost activations, µs.
    pub total_us: u64,
    /// The longest call, µs.
    pub max_us: u64,
    /// The part of `total_us` inside janky frames, µs.
    pub in_janky_frames_us: u64,
    /// The trace's methods of this name (overloads).
    #[serde(skip)]
    pub methods: Vec<MethodId>,
}

/// One category, its methods together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CategoryRow {
    pub category: String,
    pub calls: u64,
    pub total_us: u64,
    pub max_us: u64,
    pub in_janky_frames_us: u64,
}

/// The sums of one row or category, in ticks.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    calls: u64,
    total: u64,
    max: u64,
    in_janky: u64,
    /// Calls open now.
    open: u32,
}

impl Tally {
    /// A call of `dur` ticks entered; whether it is an outermost activation.
    fn enter(&mut self, dur: u64, in_janky_frame: bool) -> bool {
        self.calls += 1;
        self.max = self.max.max(dur);
        self.open += 1;
        let outermost = self.open == 1;
        if outermost {
            self.total += dur;
            if in_janky_frame {
                self.in_janky += dur;
            }
        }
        outermost
    }

    /// A call left; whether it was an outermost activation.
    fn exit(&mut self) -> bool {
        self.open = self.open.saturating_sub(1);
        self.open == 0
    }
}

/// Which tally an open outermost activation belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Of {
    Row(u32),
    Category(u16),
}

/// Collects the blocking calls of one thread's walk.
pub(super) struct BlockingTally {
    rows: Vec<Tally>,
    categories: Vec<Tally>,
    /// The outermost activations open now, outermost first: a janky frame that closes inside
    /// them adds its time to theirs.
    open: Vec<Of>,
}

impl BlockingTally {
    pub(super) fn new(categories: usize) -> Self {
        BlockingTally {
            rows: Vec::new(),
            categories: vec![Tally::default(); categories],
            open: Vec::new(),
        }
    }

    fn tally(&mut self, of: Of) -> &mut Tally {
        match of {
            Of::Row(r) => {
                let r = r as usize;
                if r >= self.rows.len() {
                    self.rows.resize(r + 1, Tally::default());
                }
                &mut self.rows[r]
            }
            Of::Category(c) => &mut self.categories[c as usize],
        }
    }

    /// A call of `row` in `category` entered, `dur` ticks long.
    pub(super) fn enter(&mut self, row: u32, category: u16, dur: u64, in_janky: bool) {
        for of in [Of::Category(category), Of::Row(row)] {
            if self.tally(of).enter(dur, in_janky) {
                self.open.push(of);
            }
        }
    }

    /// A call of `row` in `category` left.
    pub(super) fn exit(&mut self, row: u32, category: u16) {
        for of in [Of::Row(row), Of::Category(category)] {
            if self.tally(of).exit()
                && let Some(at) = self.open.iter().rposition(|&o| o == of)
            {
                self.open.remove(at);
            }
        }
    }

    /// A janky frame of `ticks` closed inside the open activations.
    pub(super) fn janky_frame_closed(&mut self, ticks: u64) {
        for i in 0..self.open.len() {
            let of = self.open[i];
            self.tally(of).in_janky += ticks;
        }
    }

    /// The rows, by category in rule order, then by total time, longest first.
    pub(super) fn rows(
        &self,
        roles: &Roles,
        categories: &[String],
        micros: Micros,
    ) -> Vec<BlockingRow> {
        let us = |t| micros.of(t);
        let mut rows: Vec<(u16, BlockingRow)> = (roles.rows().iter().enumerate())
            .filter_map(|(r, key)| {
                let t = self.rows.get(r).filter(|t| t.calls > 0)?;
                let row = BlockingRow {
                    category: categories[key.category as usize].clone(),
                    name: key.name.clone(),
                    calls: t.calls,
                    total_us: us(t.total),
                    max_us: us(t.max),
                    in_janky_frames_us: us(t.in_janky),
                    methods: key.methods.clone(),
                };
                Some((key.category, row))
            })
            .collect();
        rows.sort_by(|(ca, a), (cb, b)| {
            (ca.cmp(cb))
                .then(b.total_us.cmp(&a.total_us))
                .then(a.name.cmp(&b.name))
        });
        rows.into_iter().map(|(_, row)| row).collect()
    }

    /// The categories with calls, in rule order.
    pub(super) fn categories(&self, names: &[String], micros: Micros) -> Vec<CategoryRow> {
        (self.categories.iter().zip(names))
            .filter(|(t, _)| t.calls > 0)
            .map(|(t, name)| CategoryRow {
                category: name.clone(),
                calls: t.calls,
                total_us: micros.of(t.total),
                max_us: micros.of(t.max),
                in_janky_frames_us: micros.of(t.in_janky),
            })
            .collect()
    }
}
