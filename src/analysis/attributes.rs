//! Marker attributes in the CETK convention (formats/legacy.md §2.5): a PerfLog marker name such
//! as `Bytes=4096,Bps AVG=%Bytes%/%AVG%,Test=Write` is a list of `key=value` attributes, split on
//! `,` only where the next segment contains `=` (so `Test=CMap<int,int>` stays whole). Values may
//! hold PerfToCsv macros, evaluated like PerfToCsv's formula cells: `%AVG%`, `%MIN%`, `%MAX%` =
//! that marker's mean, minimum and maximum duration in seconds, `%COUNT%` = its number of
//! iterations, `%Key%` = the numeric value of attribute `Key`; combined with `+ - * /` and
//! parentheses (`%Bytes%/%AVG%` = bytes per second).

use serde::Serialize;

use super::stats::Stats;

/// One `key=value` attribute of a marker name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attribute {
    pub key: String,
    /// The text after `=`, as written.
    pub value: String,
    /// The value of a macro formula, or of a plain number; None for text or an invalid formula.
    pub number: Option<f64>,
    /// True when the value is a formula (contains `%`).
    pub derived: bool,
}

/// Splits a marker name into `(key, value)` pairs; empty when the name has no `=`. A leading
/// segment without `=` (a plain title) is not an attribute.
pub(crate) fn split(name: &str) -> Vec<(String, String)> {
    let mut segments: Vec<String> = Vec::new();
    for seg in name.split(',') {
        match segments.last_mut() {
            Some(last) if !seg.contains('=') => {
                last.push(',');
                last.push_str(seg);
            }
            _ => segments.push(seg.to_string()),
        }
    }
    segments
        .iter()
        .filter_map(|s| s.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

/// The attributes of marker `name` with their formulas evaluated against `stats` (seconds).
pub(crate) fn attributes(name: &str, stats: &Stats) -> Vec<Attribute> {
    let pairs = split(name);
    let plain = |key: &str| -> Option<f64> {
        pairs
            .iter()
            .find(|(k, v)| k == key && !v.contains('%'))
            .and_then(|(_, v)| v.parse::<f64>().ok())
    };
    let var = |m: &str| -> Option<f64> {
        match m {
            "AVG" => Some(stats.mean),
            "MIN" => Some(stats.min),
            "MAX" => Some(stats.max),
            "COUNT" => Some(stats.count as f64),
            key => plain(key),
        }
    };
    pairs
        .iter()
        .map(|(k, v)| {
            let derived = v.contains('%');
            let number = if derived {
                eval(v, &var).filter(|x| x.is_finite())
            } else {
                v.parse::<f64>().ok()
            };
            Attribute {
                key: k.clone(),
                value: v.clone(),
                number,
                derived,
            }
        })
        .collect()
}

/// Evaluates `expr` (numbers, `%NAME%` macros, `+ - * /`, parentheses); None when it does not
/// parse or a macro is unknown (stats of an empty series count as unknown: no `/0` surprises).
pub(crate) fn eval(expr: &str, var: &dyn Fn(&str) -> Option<f64>) -> Option<f64> {
    let mut p = Parser {
        s: expr.as_bytes(),
        i: 0,
        var,
        depth: 0,
    };
    let v = p.expr()?;
    p.skip_ws();
    (p.i == p.s.len()).then_some(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    var: &'a dyn Fn(&str) -> Option<f64>,
    /// Nesting of parentheses and unary minus: bounded, so hostile input cannot overflow the
    /// stack.
    depth: u32,
}

/// Deeper formulas are refused.
const MAX_DEPTH: u32 = 64;

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.i).copied()
    }

    fn expr(&mut self) -> Option<f64> {
        let mut v = self.term()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.i += 1;
            let r = self.term()?;
            v = if op == b'+' { v + r } else { v - r };
        }
        Some(v)
    }

    fn term(&mut self) -> Option<f64> {
        let mut v = self.factor()?;
        while let Some(op @ (b'*' | b'/')) = self.peek() {
            self.i += 1;
            let r = self.factor()?;
            v = if op == b'*' {
                v * r
            } else if r == 0.0 {
                return None;
            } else {
                v / r
            };
        }
        Some(v)
    }

    fn factor(&mut self) -> Option<f64> {
        self.depth += 1;
        let v = if self.depth > MAX_DEPTH {
            None
        } else {
            self.atom()
        };
        self.depth -= 1;
        v
    }

    fn atom(&mut self) -> Option<f64> {
        match self.peek()? {
            b'-' => {
                self.i += 1;
                Some(-self.factor()?)
            }
            b'(' => {
                self.i += 1;
                let v = self.expr()?;
                (self.peek()? == b')').then(|| self.i += 1)?;
                Some(v)
            }
            b'%' => {
                let start = self.i + 1;
                let len = self.s[start..].iter().position(|&c| c == b'%')?;
                self.i = start + len + 1;
                let name = std::str::from_utf8(&self.s[start..start + len]).ok()?;
                (self.var)(name.trim())
            }
            c if c.is_ascii_digit() || c == b'.' => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E'))
                {
                    self.i += 1;
                }
                std::str::from_utf8(&self.s[start..self.i])
                    .ok()?
                    .parse()
                    .ok()
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_only_before_segments_with_equals() {
        assert_eq!(
            split("Test=CeWriteRecord - Write 100 records,time=%AVG%"),
            vec![
                ("Test".into(), "CeWriteRecord - Write 100 records".into()),
                ("time".into(), "%AVG%".into())
            ]
        );
        assert_eq!(
            split("Test=CMap<int,int>::Lookup,n=3"),
            vec![
                ("Test".into(), "CMap<int,int>::Lookup".into()),
                ("n".into(), "3".into())
            ]
        );
        assert!(split("CPU: fsperflog").is_empty());
        assert_eq!(split("Title,a=1"), vec![("a".into(), "1".into())]);
    }

    #[test]
    fn formulas_follow_perftocsv_macros() {
        let st = Stats::of(&[0.004534, 0.004516]);
        let a = attributes(
            "Bytes=4096,Bps AVG=%Bytes%/%AVG%,Bps MIN=%Bytes%/%MAX%,Bps MAX=%Bytes%/%MIN%,Test=Write",
            &st,
        );
        let get = |k: &str| a.iter().find(|x| x.key == k).unwrap();
        assert_eq!(get("Bytes").number, Some(4096.0));
        assert!(!get("Bytes").derived);
        let avg = get("Bps AVG").number.unwrap();
        assert!((avg - 4096.0 / 0.004525).abs() < 1e-6, "{avg}");
        assert!((get("Bps MIN").number.unwrap() - 4096.0 / 0.004534).abs() < 1e-6);
        assert!((get("Bps MAX").number.unwrap() - 4096.0 / 0.004516).abs() < 1e-6);
        assert_eq!(get("Test").number, None);
        assert!(get("Bps AVG").derived);
    }

    #[test]
    fn evaluator_precedence_parentheses_and_failures() {
        let var = |m: &str| (m == "X").then_some(4.0);
        assert_eq!(eval("1 + 2 * 3", &var), Some(7.0));
        assert_eq!(eval("(1 + 2) * 3", &var), Some(9.0));
        assert_eq!(eval("-%X% / 2 - 1", &var), Some(-3.0));
        assert_eq!(eval("1.5e3", &var), Some(1500.0));
        assert_eq!(eval("%Y%", &var), None, "unknown macro");
        assert_eq!(eval("1 / 0", &var), None);
        assert_eq!(eval("(1", &var), None);
        assert_eq!(eval("1 2", &var), None);
        assert_eq!(eval("%X", &var), None, "unterminated macro");
        assert_eq!(eval("", &var), None);
        // Hostile nesting is refused, not a stack overflow.
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert_eq!(eval(&deep, &var), None);
        assert_eq!(eval(&"-".repeat(100_000), &var), None);
        let ok = format!("{}1{}", "(".repeat(20), ")".repeat(20));
        assert_eq!(eval(&ok, &var), Some(1.0));
    }
}
