//! The class and method-name sections of the report: named rows grouped by class or by method
//! name, groups by exclusive time, each group's methods under it.

use std::fmt::Write;

use super::numbers::{push_right, push_shares_and_calls};
use super::write::{SPILL_BYTES, Spill};
use super::{LINE_BYTES, Printer};
use crate::report::html::{escape, html_field};

impl Printer<'_> {
    /// Groups named rows by `key` (class or method name), ordered like dmtracedump's
    /// `createClassList` / `createUniqueMethodList`; each group's rows sorted by exclusive time.
    /// The rows of all groups in one list, and where each group ends in it (a file of a million
    /// method names has a million groups): 4 bytes a row and a group, and 8 a row while sorted.
    fn groups(&self, by_class: bool) -> (Vec<u32>, Vec<u32>) {
        // (key, row) in one integer, sorted: by key, then row (the exclusive sort below is
        // stable, and ties only rows of equal id).
        let mut named: Vec<u64> = (0..self.rows.len())
            .map(|r| (r, self.rows.get(r)))
            .filter(|(_, row)| row.named)
            .map(|(r, row)| {
                let key = if by_class {
                    row.rank().class
                } else {
                    row.rank().name
                };
                u64::from(key) << 32 | r as u64
            })
            .collect();
        named.sort_unstable();
        let same_key = |a: &u64, b: &u64| a >> 32 == b >> 32;
        let mut ends = Vec::with_capacity(named.chunk_by(same_key).count());
        let mut end = 0u32;
        for g in named.chunk_by(same_key) {
            end += g.len() as u32;
            ends.push(end);
        }
        let mut rows: Vec<u32> = named.iter().map(|&x| x as u32).collect();
        drop(named);
        let mut start = 0;
        for &end in &ends {
            self.sort_by_exclusive(&mut rows[start..end as usize]);
            start = end as usize;
        }
        (rows, ends)
    }

    pub(super) fn class_profiles(&mut self, spill: &mut Spill) {
        self.section("class");
        let groups = self.groups(true);
        if groups.1.is_empty() {
            self.out.push_str("\nNo classes.\n");
            if self.html {
                self.out.push_str("<br><br>\n");
            }
            return;
        }
        self.out.push_str(
            "\nExclusive elapsed time for each class, summed over all the methods\nin the class.\n\n",
        );
        self.grouped_section(groups, true, spill);
    }

    pub(super) fn method_profiles(&mut self, spill: &mut Spill) {
        let groups = self.groups(false);
        if groups.1.is_empty() {
            return;
        }
        self.section("method");
        self.out.push_str(
            "\nExclusive elapsed time for each method, summed over all the classes\n\
             that contain a method with the same name.\n\n",
        );
        self.grouped_section(groups, false, spill);
    }

    /// The class section (`by_class`) or the method-name section.
    fn grouped_section(
        &mut self,
        (rows, ends): (Vec<u32>, Vec<u32>),
        by_class: bool,
        spill: &mut Spill,
    ) {
        if !spill.is_some() {
            self.out
                .reserve((self.rows.len() + 2 * ends.len() + 8) * LINE_BYTES);
        }
        if self.html {
            self.out.push_str("<br><br>\n");
        }
        let title = if by_class { "Class" } else { "Method" };
        if self.html {
            let _ = writeln!(
                self.out,
                "<div class=\"header\"><span class=\"parent\">&nbsp;</span>&nbsp;&nbsp;&nbsp;\
                 Cycles %/total Cumul.% &nbsp;Calls+Recur&nbsp; {title}</div>"
            );
        } else {
            let _ = writeln!(self.out, "   Cycles %/total Cumul.%  Calls+Recur  {title}");
        }
        // Groups in order by their number (where they end in `rows`), the calls summed when a
        // group is printed. The exclusive times: each group's, read at every comparison of the
        // sort, unless there are many groups and most are of one row (a file of a million
        // method names has a million), whose time is read from the row, the others' kept by
        // group (8 bytes a group and its end, where a group of its range and sum took 16).
        let group_rows = |g: u32| {
            let start = g.checked_sub(1).map_or(0, |p| ends[p as usize]);
            &rows[start as usize..ends[g as usize] as usize]
        };
        let exclusive_of = |rows: &[u32]| -> u64 {
            (rows.iter())
                .map(|&r| self.rows.numbers(r as usize).exclusive)
                .fold(0, u64::wrapping_add)
        };
        let count = ends.len() as u32;
        let several = |g: &u32| group_rows(*g).len() > 1;
        let (each, summed): (Vec<u64>, Vec<(u32, u64)>) =
            match ends.len() <= 1 << 16 || 4 * (0..count).filter(several).count() > ends.len() {
                true => (
                    (0..count).map(|g| exclusive_of(group_rows(g))).collect(),
                    Vec::new(),
                ),
                false => (
                    Vec::new(),
                    ((0..count).filter(several))
                        .map(|g| (g, exclusive_of(group_rows(g))))
                        .collect(),
                ),
            };
        let exclusive = |g: u32| match each.get(g as usize) {
            Some(&e) => e,
            None => match summed.binary_search_by_key(&g, |s| s.0) {
                Ok(i) => summed[i].1,
                Err(_) => exclusive_of(group_rows(g)),
            },
        };
        let mut groups: Vec<u32> = (0..ends.len() as u32).collect();
        // The group number as the last tie break makes the unstable sort (no buffer of half the
        // groups) give the stable order.
        groups.sort_unstable_by(|&a, &b| {
            let (fa, fb) = (
                self.rows.get(group_rows(a)[0] as usize),
                self.rows.get(group_rows(b)[0] as usize),
            );
            exclusive(b)
                .cmp(&exclusive(a))
                .then(fa.rank().class.cmp(&fb.rank().class))
                .then_with(|| fa.id().cmp(&fb.id()))
                .then(a.cmp(&b))
        });
        let letter = if by_class { 'd' } else { 'e' };
        let mut sum = 0.0f64;
        for (ii, &g) in groups.iter().enumerate() {
            let group_exclusive = exclusive(g);
            if group_exclusive == 0 {
                break;
            }
            sum += group_exclusive as f64;
            let per = 100.0 * group_exclusive as f64 / self.total;
            let sum_per = 100.0 * sum / self.total;
            let first = self.rows.get(group_rows(g)[0] as usize);
            let calls = group_rows(g).iter().fold([0u64; 2], |[c, r], &row| {
                let p = self.rows.get(row as usize).profile;
                [c + u64::from(p.calls), r + u64::from(p.recursive_calls)]
            });
            let group_name = if by_class {
                first.class()
            } else {
                first.name().unwrap_or("")
            };
            if self.html {
                let _ = write!(
                    self.out,
                    "<div class=\"link\" onClick=\"javascript:toggle('{letter}{ii}')\" \
                     onMouseOver=\"javascript:onMouseOver(this)\" \
                     onMouseOut=\"javascript:onMouseOut(this)\"><span class=\"parent\" \
                     id=\"x{letter}{ii}\">+</span>"
                );
                let mut s = String::new();
                html_field(&mut s, &group_exclusive.to_string(), 9);
                s.push(' ');
                html_shares_and_calls(&mut s, per, sum_per, calls, " ");
                s.push(' ');
                s.push_str(&escape(group_name));
                self.out.push_str(&s);
                let _ = write!(
                    self.out,
                    "</div>\n<div class=\"parent\" id=\"{letter}{ii}\">\n"
                );
            } else {
                // `{:9} {per:7.1} {sum_per:7.1} {:6}+{:<6} {group_name}`, by hand.
                let out = &mut self.out;
                out.push_str("---------------------------------------------\n");
                push_right(out, group_exclusive, 9);
                out.push(' ');
                push_shares_and_calls(out, per, sum_per, calls);
                out.push(' ');
                out.push_str(group_name);
                out.push('\n');
            }
            let group_exclusive = group_exclusive as f64;
            let mut sum_methods = 0.0f64;
            for &r in group_rows(g) {
                let r = r as usize;
                let row = self.rows.get(r);
                let p = row.profile;
                let per = 100.0 * p.exclusive as f64 / group_exclusive;
                sum_methods += p.exclusive as f64;
                let sum_per = 100.0 * sum_methods / group_exclusive;
                let idx = self.index[r];
                let name = row.name().unwrap_or("");
                if self.html {
                    let mut s =
                        String::from("<div class=\"leaf\"><span class=\"leaf\">&nbsp;</span>");
                    html_field(&mut s, &p.exclusive.to_string(), 9);
                    s.push_str("&nbsp;");
                    html_field(&mut s, &p.inclusive.to_string(), 9);
                    s.push_str("&nbsp;");
                    let calls = [p.calls.into(), p.recursive_calls.into()];
                    html_shares_and_calls(&mut s, per, sum_per, calls, "&nbsp;");
                    s.push_str("&nbsp;");
                    let _ = write!(s, "<a href=\"#m{idx}\">[{idx}]</a>&nbsp;");
                    if by_class {
                        let _ = write!(s, "{}&nbsp;{}", escape(name), escape(row.signature()));
                    } else {
                        let _ = write!(
                            s,
                            "{}.{}&nbsp;{}",
                            escape(row.class()),
                            escape(name),
                            escape(row.signature())
                        );
                    }
                    s.push_str("</div>\n");
                    self.out.push_str(&s);
                } else {
                    // `{:9} {:9} {per:7.1} {sum_per:7.1} {:6}+{:<6} [{idx}] `, integers by hand.
                    let out = &mut self.out;
                    push_right(out, p.exclusive, 9);
                    out.push(' ');
                    push_right(out, p.inclusive, 9);
                    out.push(' ');
                    push_shares_and_calls(
                        out,
                        per,
                        sum_per,
                        [p.calls.into(), p.recursive_calls.into()],
                    );
                    out.push_str(" [");
                    out.push_str(itoa::Buffer::new().format(idx));
                    out.push_str("] ");
                    if !by_class {
                        out.push_str(row.class());
                        out.push('.');
                    }
                    out.push_str(name);
                    out.push(' ');
                    out.push_str(row.signature());
                    out.push('\n');
                }
                // A class may hold a million methods.
                spill.take(&mut self.out, SPILL_BYTES);
            }
            if self.html {
                self.out.push_str("</div>\n");
            }
            spill.take(&mut self.out, SPILL_BYTES);
        }
    }
}

/// The HTML of [`super::numbers::push_shares_and_calls`]: the shares of the total and the
/// running sum, and the calls, as fixed-width fields separated by `sep`.
fn html_shares_and_calls(s: &mut String, per: f64, sum_per: f64, calls: [u64; 2], sep: &str) {
    html_field(s, &format!("{per:.1}"), 7);
    s.push_str(sep);
    html_field(s, &format!("{sum_per:.1}"), 7);
    s.push_str(sep);
    html_field(s, &calls[0].to_string(), 6);
    s.push('+');
    html_field(s, &calls[1].to_string(), -6);
}
