//! The HTML report (`--html`) drawn by a real browser: Debian's `chromium`, headless, which
//! `scripts/setup.sh` installs. A machine without it fails these tests with a message saying
//! so; they never skip.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::heapgrowth;

/// The browser: `HEAPGROWTH_CHROMIUM` if set, else `chromium` on `PATH`.
pub fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("HEAPGROWTH_CHROMIUM") {
        return PathBuf::from(path);
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromium"))
            .find(|path| path.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "the HTML report tests need Debian's chromium (headless) and found none on PATH: \
             run scripts/setup.sh (apt-get install chromium), or set HEAPGROWTH_CHROMIUM"
        )
    })
}

/// Where the browser tests leave their pages and screenshots: `target/tmp/html-report/`.
pub fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Headless Chromium on `page` with `args` (`--dump-dom`, `--screenshot=...`), in a profile of
/// its own (tests run at the same time); returns stdout.
pub fn headless(page: &Path, args: &[&str]) -> String {
    let profile = tempdir(&format!(
        "chromium-profile-{}-{}",
        std::process::id(),
        page.file_stem().unwrap().to_string_lossy()
    ));
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The page drew without errors: the script sets `data-rendered="true"` and writes every error
/// it catches into `data-errors`.
pub fn assert_drawn_without_errors(dom: &str) {
    let body = &dom[dom.find("<body").expect("a body")..];
    let body = &body[..body.find('>').unwrap()];
    assert!(
        body.contains("data-errors=\"\""),
        "the page's script reported errors: {body}"
    );
    assert!(
        body.contains("data-rendered=\"true\""),
        "the page was not drawn: {body}"
    );
}

/// The markup of the element that starts at `start` in `dom`, up to its closing `</tag>` (no
/// element of the same tag nested inside it, as for the chart's `<g>` series).
fn element<'a>(dom: &'a str, start: &str, tag: &str) -> &'a str {
    let from = dom
        .find(start)
        .unwrap_or_else(|| panic!("{start} in {dom}"));
    let close = format!("</{tag}>");
    let to = from + dom[from..].find(&close).unwrap();
    &dom[from..to]
}

#[test]
fn the_html_report_of_a_leak_and_a_bound_draws_in_chromium() {
    let dir = artifacts();
    let page = dir.join("leak-and-bound.html");
    let json_file = dir.join("leak-and-bound.json");
    let output = heapgrowth(
        &["corpus.leaks.StaticListLeak", "corpus.clean.ModuloKeyMap"],
        &[
            "--html",
            page.to_str().unwrap(),
            "--format",
            "json",
            "--output",
            json_file.to_str().unwrap(),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    let leak = &document["scenarios"][0];
    let snapshots = leak["snapshots"].as_u64().unwrap() as usize;
    assert_eq!(
        leak["growing"][0]["history"].as_array().unwrap().len(),
        snapshots
    );
    let confirmation = leak["growing"][0]["confirmed"]["snapshots"]
        .as_u64()
        .unwrap() as usize;

    let dom = headless(&page, &["--dump-dom"]);
    std::fs::write(dir.join("leak-and-bound.dom.html"), &dom).unwrap();
    assert_drawn_without_errors(&dom);

    // The leak: verdict, path (as the text report writes it), chart, stacks.
    assert!(
        dom.contains("data-verdict=\"growing\"") && dom.contains(">GROWING</span>"),
        "{dom}"
    );
    let node = element(&dom, "<article class=\"node growing\"", "article");
    assert!(
        node.contains(
            "<summary>╰→STATIC_FIELD StaticListLeak.items -&gt; instance of java.util.ArrayList \
             (1 objects)  ← grows</summary>"
        ),
        "{node}"
    );
    assert!(node.contains("<summary>GcRoot(Class) ("), "{node}");
    for measure in ["objects", "references", "bytes"] {
        let series = element(node, &format!("data-measure=\"{measure}\""), "g");
        assert_eq!(
            series.matches("class=\"point ").count(),
            snapshots,
            "{measure}: one point per snapshot: {series}"
        );
        assert_eq!(
            series.matches("class=\"point confirmation\"").count(),
            confirmation,
            "{measure}: the confirmation snapshots are marked: {series}"
        );
    }
    assert!(
        node.contains("Confirmed: a new high at each of 3 snapshots from loop 31 to loop 1000"),
        "{node}"
    );
    assert!(node.contains("Retained size: "), "{node}");
    assert!(
        node.contains(
            "1000 objects (504 new): ARRAY_ENTRY ArrayList.[x] -&gt; instance of corpus.app.Item"
        ),
        "{node}"
    );
    assert!(node.contains("4 call(s) to add()"), "{node}");
    let look = element(node, "<li class=\"look-here\"", "li");
    assert!(
        look.contains("at corpus.leaks.StaticListLeak.run(StaticListLeak.java:")
            && look.ends_with("   ← look here"),
        "{look}"
    );

    // The bound: clean, and its leveled-off path in its own section with a small chart.
    let clean = element(
        &dom,
        "<section class=\"scenario\" id=\"scenario-1\"",
        "main",
    );
    assert!(
        clean.contains("data-verdict=\"clean\"") && clean.contains(">CLEAN</span>"),
        "{clean}"
    );
    assert!(!clean.contains("node growing"), "{clean}");
    let leveled = element(clean, "<article class=\"node leveled-off\"", "article");
    assert!(leveled.contains("Leveled off after loop "), "{leveled}");
    assert!(leveled.contains("<svg class=\"chart small\""), "{leveled}");
    let bound_snapshots = document["scenarios"][1]["leveled_off"][0]["history"]
        .as_array()
        .unwrap()
        .len();
    let series = element(leveled, "data-measure=\"objects\"", "g");
    assert_eq!(series.matches("class=\"point ").count(), bound_snapshots);

    // Screenshots, wide and narrow, kept as artifacts.
    for (name, size) in [("wide", "1100,2600"), ("narrow", "420,3600")] {
        let png = dir.join(format!("leak-and-bound-{name}.png"));
        let _ = std::fs::remove_file(&png);
        headless(
            &page,
            &[
                &format!("--screenshot={}", png.display()),
                &format!("--window-size={size}"),
            ],
        );
        let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
        assert!(bytes.starts_with(b"\x89PNG"), "{} is a PNG", png.display());
    }
}

#[test]
fn html_to_a_missing_directory_is_refused_before_the_jvm_starts() {
    let output = heapgrowth(
        &["corpus.leaks.StaticListLeak"],
        &["--html", "/nonexistent-dir/report.html"],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim(),
        "heapgrowth: --html /nonexistent-dir/report.html: directory /nonexistent-dir does not exist"
    );
}
