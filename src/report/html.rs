//! dmtracedump's `-h` HTML page around the profile report: the page header with its script and
//! style, the table of contents, HTML escaping and `&nbsp;` padding. The report itself is written
//! by [`super::profile_text`], which adds anchors and links between methods when its style is
//! HTML, so text and HTML cannot drift apart.

/// dmtracedump's `htmlHeader` with the `sortable.js` base URL.
pub(crate) fn html_header(sortable_url: Option<&str>) -> String {
    format!(
        "<html>\n<head>\n<script type=\"text/javascript\" src=\"{}sortable.js\"></script>\n{}",
        sortable_url.unwrap_or("(null)"),
        HTML_HEAD_REST
    )
}

pub(crate) const HTML_HEAD_REST: &str = "<script langugage=\"javascript\">
function toggle(item) {
    obj=document.getElementById(item);
    visible=(obj.style.display!=\"none\" && obj.style.display!=\"\");
    key=document.getElementById(\"x\" + item);
    if (visible) {
        obj.style.display=\"none\";
        key.innerHTML=\"+\";
    } else {
        obj.style.display=\"block\";
        key.innerHTML=\"-\";
    }
}
function onMouseOver(obj) {
    obj.style.background=\"lightblue\";
}
function onMouseOut(obj) {
    obj.style.background=\"white\";
}
</script>
<style type=\"text/css\">
div { font-family: courier; font-size: 13 }
div.parent { margin-left: 15; display: none }
div.leaf { margin-left: 10 }
div.header { margin-left: 10 }
div.link { margin-left: 10; cursor: move }
span.parent { padding-right: 10; }
span.leaf { padding-right: 10; }
a img { border: 0;}
table.sortable th { border-width: 0px 1px 1px 1px; background-color: #ccc;}
a { text-decoration: none; }
a:hover { text-decoration: underline; }
table.sortable th, table.sortable td { text-align: left;}table.sortable tr.odd td { background-color: #ddd; }
table.sortable tr.even td { background-color: #fff; }
</style>
</head><body>

";

/// `<`, `>` and `&` as HTML entities.
pub(crate) fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['<', '>', '&']) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out.into()
}

/// dmtracedump's `printHtmlField`: pads `text` to `width` with `&nbsp;` (leading; trailing when
/// `width` is negative).
pub(crate) fn html_field(out: &mut String, text: &str, width: i32) {
    let pad = (width.unsigned_abs() as usize).saturating_sub(text.len());
    if width < 0 {
        out.push_str(text);
    }
    for _ in 0..pad {
        out.push_str("&nbsp;");
    }
    if width >= 0 {
        out.push_str(text);
    }
}

/// The table of contents after the header.
pub(crate) const TABLE_OF_CONTENTS: &str = "<a name=\"contents\"></a>\n<h2>Table of Contents</h2>\n<ul>\n  \
             <li><a href=\"#exclusive\">Exclusive profile</a></li>\n  \
             <li><a href=\"#inclusive\">Inclusive profile</a></li>\n  \
             <li><a href=\"#class\">Class/method profile</a></li>\n  \
             <li><a href=\"#method\">Method/class profile</a></li>\n</ul>\n\n";
