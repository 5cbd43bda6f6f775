//! Point events on the threads' timelines: RTL messages and Logger probe hits, 16 bytes each.
//!
//! A file of nothing but probe hits holds one per line: an [`Instant`] keeps a probe's number
//! (its label, "probe N", is made when it is shown) or the index of a text kept with all the
//! others in one buffer, never a string of its own.

use std::fmt;

use super::ThreadId;

/// A point event on a thread's timeline (RTL message, Logger probe hit). Its label is read
/// through the list that holds it ([`Instants::label`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instant {
    /// Axis time in ticks.
    pub time: u64,
    /// A Logger probe id below 2³¹ (the label is `probe {value}`), or [`TEXT`] and the index of
    /// a text in [`Instants`]. A larger probe id is kept as the text of its label.
    value: u32,
    pub thread: ThreadId,
}

/// The bit of [`Instant::value`] that marks a text's index.
const TEXT: u32 = 1 << 31;

impl Instant {
    /// The index of its text, if its label is a text.
    fn text_index(&self) -> Option<u32> {
        (self.value & TEXT != 0).then_some(self.value & !TEXT)
    }
}

/// An instant's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label<'a> {
    /// A Logger probe hit: shown as `probe N`.
    Probe(u64),
    /// A message.
    Text(&'a str),
}

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Probe(p) => write!(f, "probe {p}"),
            Label::Text(t) => f.write_str(t),
        }
    }
}

/// The instants of a trace, in the order the reader added them, and their texts.
#[derive(Clone, Debug, Default)]
pub struct Instants {
    list: Vec<Instant>,
    /// Every text, one after another.
    texts: String,
    /// Where each text ends in `texts`.
    text_ends: Vec<usize>,
}

impl std::ops::Deref for Instants {
    type Target = [Instant];
    fn deref(&self) -> &[Instant] {
        &self.list
    }
}

impl Instants {
    /// The label of `i`, an instant of this list.
    pub fn label(&self, i: &Instant) -> Label<'_> {
        match i.text_index() {
            None => Label::Probe(u64::from(i.value)),
            Some(k) => Label::Text(self.text(u64::from(k))),
        }
    }

    fn text(&self, k: u64) -> &str {
        let k = usize::try_from(k).unwrap_or(usize::MAX);
        match self.text_ends.get(k) {
            Some(&end) => {
                let start = k.checked_sub(1).map_or(0, |p| self.text_ends[p]);
                &self.texts[start..end]
            }
            None => "",
        }
    }

    /// Room for `n` more instants.
    pub fn reserve(&mut self, n: usize) {
        self.list.reserve(n);
    }

    /// Drops the room kept for more instants and texts.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.list.shrink_to_fit();
        self.texts.shrink_to_fit();
        self.text_ends.shrink_to_fit();
    }

    /// Adds a Logger probe hit.
    pub fn push_probe(&mut self, thread: ThreadId, time: u64, probe: u64) {
        match u32::try_from(probe).ok().filter(|&p| p & TEXT == 0) {
            Some(value) => self.list.push(Instant {
                time,
                value,
                thread,
            }),
            None => self.push_text(thread, time, &Label::Probe(probe).to_string()),
        }
    }

    /// Adds a message.
    pub fn push_text(&mut self, thread: ThreadId, time: u64, text: &str) {
        let value = self.add_text(text);
        self.list.push(Instant {
            time,
            value,
            thread,
        });
    }

    /// Adds `text` and returns its [`Instant::value`]. Past 2³¹ texts (32 GiB of instants), a
    /// new one is the empty text.
    fn add_text(&mut self, text: &str) -> u32 {
        match u32::try_from(self.text_ends.len())
            .ok()
            .filter(|&k| k & TEXT == 0)
        {
            Some(k) => {
                self.texts.push_str(text);
                self.text_ends.push(self.texts.len());
                TEXT | k
            }
            None => TEXT | self.empty_text(),
        }
    }

    /// The index of an empty text (the first, made at the first instant: the list is full).
    #[cold]
    fn empty_text(&self) -> u32 {
        (0..self.text_ends.len())
            .find(|&k| self.text(k as u64).is_empty())
            .map_or(0, |k| k as u32)
    }

    /// Replaces the label of instant `i` (of this list) with `text`.
    pub(crate) fn set_text(&mut self, i: usize, text: &str) {
        let value = self.add_text(text);
        if let Some(inst) = self.list.get_mut(i) {
            inst.value = value;
        }
    }

    /// Appends `more` to the text of instant `i` (of this list): in place when its text is the
    /// last one added, else as a new text (so a text is copied at most once per instant added
    /// after it).
    pub(crate) fn append_text(&mut self, i: usize, more: &str) {
        let Some(&inst) = self.list.get(i) else {
            return;
        };
        let last = self.text_ends.len() as u64;
        if inst.text_index().is_some_and(|k| u64::from(k) + 1 == last) {
            self.texts.push_str(more);
            if let Some(end) = self.text_ends.last_mut() {
                *end = self.texts.len();
            }
            return;
        }
        let text = format!("{}{more}", self.label(&inst));
        self.set_text(i, &text);
    }

    /// A copy with each instant's time mapped by `time` (the texts shared as they are).
    pub(crate) fn map_times(&self, time: impl Fn(u64) -> u64) -> Instants {
        Instants {
            list: (self.list.iter())
                .map(|i| Instant {
                    time: time(i.time),
                    ..*i
                })
                .collect(),
            ..self.clone_texts()
        }
    }

    fn clone_texts(&self) -> Instants {
        Instants {
            list: Vec::new(),
            texts: self.texts.clone(),
            text_ends: self.text_ends.clone(),
        }
    }

    /// Appends the instants of `other`, their threads shifted by `thread_base` and their times
    /// by `offset` ticks.
    pub(crate) fn extend_shifted(&mut self, other: &Instants, thread_base: u32, offset: u64) {
        let text_base = self.text_ends.len();
        let byte_base = self.texts.len();
        self.texts.push_str(&other.texts);
        (self.text_ends).extend(other.text_ends.iter().map(|&e| e + byte_base));
        // Past 2³¹ texts, the texts beyond are the empty one.
        let full = u32::try_from(self.text_ends.len()).map_or(true, |n| n & TEXT != 0);
        let empty = if full { self.empty_text() } else { 0 };
        self.list.extend(other.list.iter().map(|i| Instant {
            time: i.time + offset,
            value: match i.text_index() {
                None => i.value,
                Some(k) => match u32::try_from(k as usize + text_base) {
                    Ok(k) if k & TEXT == 0 => TEXT | k,
                    _ => TEXT | empty,
                },
            },
            thread: ThreadId(i.thread.0 + thread_base),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(l: &Instants) -> Vec<String> {
        l.iter().map(|i| l.label(i).to_string()).collect()
    }

    #[test]
    fn labels_are_probes_or_texts_and_texts_grow_in_place_or_once_copied() {
        assert_eq!(std::mem::size_of::<Instant>(), 16);
        let mut l = Instants::default();
        l.push_text(ThreadId(0), 5, "");
        l.push_probe(ThreadId(1), 6, u64::MAX);
        l.push_text(ThreadId(0), 7, "b");
        l.set_text(0, "a");
        l.append_text(2, "\nb2");
        l.append_text(2, "\nb3");
        l.append_text(0, "\na2");
        l.append_text(1, "!");
        assert_eq!(
            labels(&l),
            [
                "a\na2",
                format!("probe {}!", u64::MAX).as_str(),
                "b\nb2\nb3"
            ]
        );
        // "", "probe 18446744073709551615" (2³¹ or more: kept as its label), "b", "a" (set),
        // "b\nb2" (copied once, then grown), "a\na2", "probe …!".
        assert_eq!(l.text_ends.len(), 7);
        let mut p = Instants::default();
        p.push_probe(ThreadId(1), 8, (1 << 31) - 1);
        p.push_probe(ThreadId(1), 9, 1 << 31);
        assert_eq!(p.text_ends.len(), 1);
        assert_eq!(labels(&p), ["probe 2147483647", "probe 2147483648"]);

        let mut m = Instants::default();
        m.push_text(ThreadId(0), 1, "x");
        m.extend_shifted(&l, 3, 100);
        assert_eq!(labels(&m)[1..], labels(&l)[..]);
        let moved: Vec<(u32, u64)> = m.iter().map(|i| (i.thread.0, i.time)).collect();
        assert_eq!(moved, [(0, 1), (3, 105), (4, 106), (3, 107)]);
        let scaled = m.map_times(|t| t * 2);
        assert_eq!(labels(&scaled), labels(&m));
        assert_eq!(scaled[3].time, 214);
    }
}
