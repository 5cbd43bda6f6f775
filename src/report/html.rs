//! dmtracedump's `-h` HTML profile page: the text report inside `<pre>` blocks with anchors and
//! links between methods, and collapsible class and method-name sections. Rendered by the same
//! code as the text report ([`super::profile_text`]) so the two cannot drift apart.

use crate::analysis::profile::Profile;
use crate::trace::Trace;

use super::profile_text::{Style, render};

/// The HTML page; `sortable_url` is the base URL of `sortable.js` (dmtracedump's `-s`).
pub fn profile_html(trace: &Trace, profile: &Profile, sortable_url: Option<&str>) -> String {
    render(
        trace,
        profile,
        &Style::Html {
            sortable_url: sortable_url.map(str::to_string),
        },
    )
}
