//! The HTML report: one self-contained page per run, which opens from a CI artifact with no
//! network and no other file.
//!
//! The page's data is the JSON report ([`to_json`]) itself, embedded in a
//! `<script type="application/json">`; a small script of ours (`html.js`, inline) draws it: the
//! verdict and timings of each scenario, each growing node's path as a collapsible tree with an
//! SVG chart of its measures at every snapshot, its children and stacks, then what leveled off
//! and what was ignored. So the page says nothing the JSON does not, and no second renderer of
//! the facts can drift from the text and JSON reports: the step and stack texts come from the
//! JSON, as the text report writes them.
//!
//! The script catches its own errors (`window.onerror` and a `try` around the drawing) and
//! writes them into the body's `data-errors` attribute, and sets `data-rendered="true"` once
//! the page is drawn: the browser test checks both.

use super::json::to_json_compact_for_html;
#[cfg(doc)]
use super::to_json;
use super::ScenarioReport;

/// The drawing script, inline in every page (plain JavaScript, no library, no build step).
const SCRIPT: &str = include_str!("html.js");
/// The page's styles, inline.
const STYLE: &str = include_str!("html.css");

/// The page for `reports`.
pub fn render_html(reports: &[ScenarioReport]) -> String {
    let title = match reports {
        [one] => format!("heapgrowth: {}", one.scenario),
        _ => format!("heapgrowth: {} scenarios", reports.len()),
    };
    format!(
        "<!DOCTYPE html>\n\
         <html lang=\"en\">\n\
         <head>\n\
         <meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n\
         <style>\n{STYLE}</style>\n\
         </head>\n\
         <body data-rendered=\"false\" data-errors=\"\">\n\
         <main id=\"report\"><p>{noscript}</p></main>\n\
         <script type=\"application/json\" id=\"heapgrowth-data\">\n{data}\n</script>\n\
         <script>\n{SCRIPT}</script>\n\
         </body>\n\
         </html>\n",
        title = escape_html(&crate::line::escape_line(&title)),
        noscript = "This report is drawn by the script in the page: allow JavaScript, or read \
                    the JSON in the page's source.",
        data = to_json_compact_for_html(reports),
    )
}

/// Text for HTML content and attribute values (the report page's and `index.html`'s).
pub(super) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::{to_json, Timings};

    fn data_of(page: &str) -> &str {
        let start = page.find("id=\"heapgrowth-data\">").unwrap() + "id=\"heapgrowth-data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        &page[start..end]
    }

    #[test]
    fn the_pages_data_is_the_json_report_and_nothing_in_it_can_close_the_script() {
        let hostile = "</script><script>alert(1)</script><!--";
        let report = ScenarioReport {
            timings: Timings {
                dump: vec![5, 6],
                ..Timings::default()
            },
            ..ScenarioReport::failed(hostile, format!("error {hostile}"))
        };
        let page = render_html(std::slice::from_ref(&report));
        let data = data_of(&page);
        assert!(!data.contains('<'), "{data}");
        let parsed: serde_json::Value = serde_json::from_str(data).unwrap();
        let json: serde_json::Value = serde_json::from_str(&to_json(&[report])).unwrap();
        assert_eq!(parsed, json);
        assert_eq!(parsed["scenarios"][0]["scenario"], hostile);
        // The title is escaped too, and nothing is loaded from elsewhere.
        assert!(
            page.contains("<title>heapgrowth: &lt;/script&gt;"),
            "{page}"
        );
        for outside in [
            "src=",
            "href=",
            "url(",
            "@import",
            "fetch(",
            "XMLHttpRequest",
        ] {
            assert!(!page.contains(outside), "{outside} in the page");
        }
        // The one address in the page is SVG's namespace, which is never loaded.
        let addresses: Vec<&str> = page.matches("http").collect();
        assert_eq!(
            addresses.len(),
            page.matches("\"http://www.w3.org/2000/svg\"").count(),
            "an address other than SVG's namespace"
        );
    }

    #[test]
    fn a_page_of_several_scenarios_names_how_many() {
        let reports = [
            ScenarioReport::failed("a.A", "x".into()),
            ScenarioReport::failed("b.B", "y".into()),
        ];
        let page = render_html(&reports);
        assert!(page.contains("<title>heapgrowth: 2 scenarios</title>"));
        assert!(page.starts_with("<!DOCTYPE html>\n"));
        assert!(page.contains("data-errors=\"\""));
    }
}
