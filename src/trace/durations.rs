//! Durations without timestamps (PerfLog marker iterations, CProfiler hits), stored by column.
//!
//! A file may hold a million series of one value each, in 14 bytes a line: a series costs its
//! name's bytes plus 28 bytes and 8 per value here, where a struct of a name, a shared group,
//! a small vector and a count cost 72. Readers add series and values in any order through
//! [`DurationsBuilder`]; [`DurationsBuilder::finish`] lays each series' values out together.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::packed_range;

/// One series as the consumers read it.
#[derive(Clone, Copy, Debug)]
pub struct SeriesRef<'a> {
    pub name: &'a str,
    /// Grouping: a session, a run, a file.
    pub group: &'a str,
    /// The durations in seconds (raw ticks when the file gave no rate: the name then says so).
    pub durations_s: &'a [f64],
    /// Started but never finished.
    pub incomplete: u64,
}

/// The names of all series, back to back, with their groups.
#[derive(Clone, Debug, Default)]
struct Names {
    bytes: String,
    /// `ends[s]`: where series `s`'s name ends in `bytes` (4 bytes a series: past 4 GiB of
    /// names, which only a larger file can hold, a new name is empty).
    ends: Vec<u32>,
    groups: Vec<Arc<str>>,
    /// `(first series, group)` of each run of series of one group, in series order: series
    /// are made group after group (a segment's, a file's), so a group is not 4 bytes a series.
    group_runs: Vec<(u32, u32)>,
    /// Counts of unfinished calls; a series past the end has none (most files have none).
    incomplete: Vec<u64>,
}

impl Names {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn name(&self, s: usize) -> &str {
        &self.bytes[packed_range(&self.ends, s)]
    }

    /// The group of series `s`.
    fn group_of(&self, s: usize) -> u32 {
        let run = self.group_runs.partition_point(|r| r.0 as usize <= s);
        run.checked_sub(1).map_or(0, |r| self.group_runs[r].1)
    }

    /// Makes series `s` (the next) of group `g`.
    fn push_group(&mut self, s: usize, g: u32) {
        if self.group_runs.last().is_none_or(|r| r.1 != g) {
            self.group_runs.push((s as u32, g));
        }
    }

    fn incomplete(&self, s: usize) -> u64 {
        self.incomplete.get(s).copied().unwrap_or(0)
    }

    fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.groups.shrink_to_fit();
        self.group_runs.shrink_to_fit();
        self.incomplete.shrink_to_fit();
    }
}

/// The duration series of a trace, in the order they were made. Shared by the traces made
/// from it (a transformed or compensated trace keeps the same series): a clone is a count.
#[derive(Clone, Debug, Default)]
pub struct Durations(Arc<Columns>);

#[derive(Clone, Debug, Default)]
struct Columns {
    names: Names,
    /// `value_ends[s]`: where series `s`'s values end in `values`.
    value_ends: Vec<usize>,
    values: Vec<f64>,
}

impl Durations {
    /// No series: emptied in place when no other trace shares them (nothing is allocated).
    pub(crate) fn clear(&mut self) {
        match Arc::get_mut(&mut self.0) {
            Some(columns) => *columns = Columns::default(),
            None => *self = Self::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.0.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Series `s`; panics when there is no such series, as indexing a slice does.
    pub fn series(&self, s: usize) -> SeriesRef<'_> {
        let c = &*self.0;
        SeriesRef {
            name: c.names.name(s),
            group: &c.names.groups[c.names.group_of(s) as usize],
            durations_s: &c.values[packed_range(&c.value_ends, s)],
            incomplete: c.names.incomplete(s),
        }
    }

    pub fn get(&self, s: usize) -> Option<SeriesRef<'_>> {
        (s < self.len()).then(|| self.series(s))
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = SeriesRef<'_>> + Clone + '_ {
        (0..self.len()).map(|s| self.series(s))
    }

    /// Appends `other`'s series, their groups renamed by `group` (the series of several
    /// files in one trace).
    pub fn extend_regrouped(&mut self, other: &Durations, group: impl Fn(&str) -> String) {
        let n = self.len();
        let (this, other) = (Arc::make_mut(&mut self.0), &*other.0);
        let (names_base, values_base) = (this.names.bytes.len(), this.values.len());
        let groups_base = this.names.groups.len() as u32;
        let (names, o) = (&mut this.names, &other.names);
        // Past 4 GiB of names, the names that do not fit are empty.
        if u32::try_from(names_base + o.bytes.len()).is_ok() {
            names.bytes.push_str(&o.bytes);
            (names.ends).extend(o.ends.iter().map(|&e| e + names_base as u32));
        } else {
            let here = names_base as u32;
            names.ends.extend(o.ends.iter().map(|_| here));
        }
        let renamed = o.groups.iter().map(|g| Arc::from(group(g)));
        names.groups.extend(renamed);
        for &(first, g) in &o.group_runs {
            names.push_group(n + first as usize, g + groups_base);
        }
        if !o.incomplete.is_empty() {
            names.incomplete.resize(n, 0);
            names.incomplete.extend_from_slice(&o.incomplete);
        }
        this.values.extend_from_slice(&other.values);
        let ends = other.value_ends.iter().map(|e| e + values_base);
        this.value_ends.extend(ends);
    }
}

/// The series being read: names and groups as they come, values with their series until
/// [`DurationsBuilder::finish`] sorts them by series.
#[derive(Debug, Default)]
pub struct DurationsBuilder {
    names: Names,
    /// The group index of each distinct group, while reading.
    group_index: FxHashMap<Arc<str>, u32>,
    /// The values in the order they came, and the series of each.
    values: Vec<f64>,
    value_series: Vec<u32>,
    /// Whether `value_series` went down somewhere: if not, the values are in series order.
    out_of_order: bool,
}

impl DurationsBuilder {
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of series `s`.
    pub fn name(&self, s: usize) -> &str {
        self.names.name(s)
    }

    /// Adds a series and returns its index.
    pub fn push_series(&mut self, name: &str, group: &Arc<str>) -> usize {
        let s = self.len();
        let g = match self.names.group_runs.last().map(|r| &r.1) {
            Some(&g) if Arc::ptr_eq(&self.names.groups[g as usize], group) => g,
            _ => *self.group_index.entry(group.clone()).or_insert_with(|| {
                self.names.groups.push(group.clone());
                (self.names.groups.len() - 1) as u32
            }),
        };
        let names = &mut self.names;
        match u32::try_from(names.bytes.len() + name.len()) {
            Ok(end) => {
                names.bytes.push_str(name);
                names.ends.push(end);
            }
            Err(_) => names.ends.push(names.ends.last().copied().unwrap_or(0)),
        }
        names.push_group(s, g);
        s
    }

    /// Adds a duration to series `s`.
    pub fn push_value(&mut self, s: usize, seconds: f64) {
        debug_assert!(s < self.len());
        let s = s as u32;
        if self.value_series.last().is_some_and(|&last| last > s) {
            self.out_of_order = true;
        }
        self.value_series.push(s);
        self.values.push(seconds);
    }

    /// How many values were added.
    pub fn value_count(&self) -> usize {
        self.values.len()
    }

    /// The values added from the `from`th on (a segment's ticks, converted when its rate is
    /// known).
    pub fn values_since(&mut self, from: usize) -> &mut [f64] {
        &mut self.values[from..]
    }

    /// Counts an unfinished call of series `s`.
    pub fn add_incomplete(&mut self, s: usize) {
        if self.names.incomplete.len() <= s {
            self.names.incomplete.resize(s + 1, 0);
        }
        self.names.incomplete[s] += 1;
    }

    /// Appends `suffix` (a unit) to the names of the series that got a value from the
    /// `first_value`th on, unless a name already ends with it; those series are all from
    /// `first_series` on (a segment's or a session's, the last ones made).
    pub fn append_to_names_of_values_since(
        &mut self,
        first_series: usize,
        first_value: usize,
        suffix: &str,
    ) {
        let mut pick = Vec::new();
        for &s in &self.value_series[first_value..] {
            let i = s as usize - first_series;
            if pick.len() <= i {
                pick.resize(i + 1, false);
            }
            pick[i] = true;
        }
        self.append_to_names(first_series, suffix, &pick);
    }

    /// Appends `suffix` to the names of the series from `from` on for which `pick` is true
    /// (`pick[s - from]`), unless the name already ends with it. The names from `from` on are
    /// the end of the buffer, so only they are rewritten.
    fn append_to_names(&mut self, from: usize, suffix: &str, pick: &[bool]) {
        let n = self.len();
        if from >= n || !pick.iter().any(|&p| p) {
            return;
        }
        let start = if from == 0 {
            0
        } else {
            self.names.ends[from - 1] as usize
        };
        let tail = self.names.bytes.split_off(start);
        let mut at = 0;
        for s in from..n {
            let end = self.names.ends[s] as usize - start;
            let name = &tail[at..end];
            at = end;
            self.names.bytes.push_str(name);
            let fits = u32::try_from(self.names.bytes.len() + suffix.len()).is_ok();
            if pick.get(s - from).copied().unwrap_or(false) && !name.ends_with(suffix) && fits {
                self.names.bytes.push_str(suffix);
            }
            self.names.ends[s] = self.names.bytes.len() as u32;
        }
    }

    /// Lays each series' values out together, in the order they came.
    pub fn finish(self) -> Durations {
        let mut names = self.names;
        names.shrink_to_fit();
        let n = names.len();
        let mut value_ends = vec![0usize; n];
        for &s in &self.value_series {
            value_ends[s as usize] += 1;
        }
        let mut end = 0;
        for e in &mut value_ends {
            end += *e;
            *e = end;
        }
        let values = if !self.out_of_order {
            let mut values = self.values;
            values.shrink_to_fit();
            values
        } else {
            // A stable counting sort: each value goes after the earlier ones of its series.
            let mut next: Vec<usize> = Vec::with_capacity(n);
            next.push(0);
            next.extend_from_slice(&value_ends[..n.saturating_sub(1)]);
            let mut sorted = vec![0.0; self.values.len()];
            for (&s, &v) in self.value_series.iter().zip(&self.values) {
                let at = &mut next[s as usize];
                sorted[*at] = v;
                *at += 1;
            }
            sorted
        };
        Durations(Arc::new(Columns {
            names,
            value_ends,
            values,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obviously right layout: one list per series.
    fn reference(ops: &[(usize, Option<f64>)], n: usize) -> Vec<(Vec<f64>, u64)> {
        let mut out = vec![(Vec::new(), 0); n];
        for &(s, v) in ops {
            match v {
                Some(v) => out[s].0.push(v),
                None => out[s].1 += 1,
            }
        }
        out
    }

    #[test]
    fn series_read_back_as_written_in_any_order() {
        let groups: [Arc<str>; 2] = ["run a".into(), "run b".into()];
        for case in 0..64u64 {
            let n = (case % 7) as usize + 1;
            let mut b = DurationsBuilder::default();
            for s in 0..n {
                b.push_series(&format!("f{s}{}", "x".repeat(s)), &groups[s % 3 / 2]);
            }
            // A reproducible mix: in order, reversed, or scattered, with some incomplete.
            let mut ops = Vec::new();
            for k in 0..(case as usize % 11) * 3 {
                let s = match case % 3 {
                    0 => k * n / ((case as usize % 11) * 3).max(1),
                    1 => n - 1 - (k % n),
                    _ => (k * 7 + case as usize) % n,
                };
                let v = (k % 5 != 4).then_some(k as f64 * 0.5);
                ops.push((s.min(n - 1), v));
            }
            for &(s, v) in &ops {
                match v {
                    Some(v) => b.push_value(s, v),
                    None => b.add_incomplete(s),
                }
            }
            let d = b.finish();
            let want = reference(&ops, n);
            assert_eq!(d.len(), n);
            for (s, (values, incomplete)) in want.iter().enumerate() {
                let got = d.series(s);
                assert_eq!(got.durations_s, &values[..], "case {case} series {s}");
                assert_eq!(got.incomplete, *incomplete);
                assert_eq!(got.name, format!("f{s}{}", "x".repeat(s)));
                assert_eq!(got.group, &*groups[s % 3 / 2]);
            }
            assert!(d.get(n).is_none());
        }
    }

    #[test]
    fn a_suffix_rewrites_only_the_picked_names_of_the_tail() {
        let g: Arc<str> = "g".into();
        let mut b = DurationsBuilder::default();
        for name in ["a", "bb", "c [ticks]", "ddd", "e"] {
            b.push_series(name, &g);
        }
        b.append_to_names(2, " [ticks]", &[true, true, false]);
        b.append_to_names(1, " [ticks]", &[false, false, false, true]);
        let names: Vec<String> = (0..b.len()).map(|s| b.name(s).to_string()).collect();
        assert_eq!(names, ["a", "bb", "c [ticks]", "ddd [ticks]", "e [ticks]"]);
    }

    #[test]
    fn files_appended_keep_their_series_and_take_new_groups() {
        let mut one = DurationsBuilder::default();
        let g: Arc<str> = "file".into();
        one.push_series("x", &g);
        one.push_series("y", &g);
        one.push_value(1, 2.0);
        one.push_value(0, 1.0);
        one.add_incomplete(1);
        let one = one.finish();
        let mut all = Durations::default();
        all.extend_regrouped(&one, |g| format!("a: {g}"));
        all.extend_regrouped(&one, |g| format!("b: {g}"));
        let got: Vec<(String, String, Vec<f64>, u64)> = all
            .iter()
            .map(|s| {
                let (n, g) = (s.name.to_string(), s.group.to_string());
                (n, g, s.durations_s.to_vec(), s.incomplete)
            })
            .collect();
        let row = |n: &str, g: &str, v: f64, i| (n.to_string(), g.to_string(), vec![v], i);
        assert_eq!(
            got,
            [
                row("x", "a: file", 1.0, 0),
                row("y", "a: file", 2.0, 1),
                row("x", "b: file", 1.0, 0),
                row("y", "b: file", 2.0, 1),
            ]
        );
    }
}
