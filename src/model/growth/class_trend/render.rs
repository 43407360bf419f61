//! The rows of a class trend as a fixed-width text table, for `watch`'s output and the reports.

use super::rows::{MeasureTrend, TrendRow};

/// The rows as a fixed-width text table: a header, then two lines per class (instances, bytes).
/// The class column is as wide as the longest name, so names are never cut.
pub fn render_trend_rows(rows: &[TrendRow]) -> Vec<String> {
    render_rows(
        rows,
        &[
            ("instances", |row| &row.instances),
            ("bytes", |row| &row.bytes),
        ],
    )
}

/// The rows of a trend of sample counts ([`ClassTrendConfig::old_object_samples`]) as the same
/// table with one line per class, its measure named `samples`: the bytes are all 0.
///
/// [`ClassTrendConfig::old_object_samples`]: super::ClassTrendConfig::old_object_samples
pub fn render_sample_trend_rows(rows: &[TrendRow]) -> Vec<String> {
    render_rows(rows, &[("samples", |row| &row.instances)])
}

type MeasureOf = fn(&TrendRow) -> &MeasureTrend;

fn render_rows(rows: &[TrendRow], measures: &[(&str, MeasureOf)]) -> Vec<String> {
    let width = rows
        .iter()
        .map(|row| row.class.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let line = |cells: [&str; 10]| {
        let [class, measure, values, first, last, slope, start, end, growth, rest] = cells;
        let line = format!(
            "{class:<width$}  {measure:<9}  {values:>6}  {first:>12}  {last:>12}  {slope:>12}  \
             {start:>14}  {end:>14}  {growth:>8}  {rest}"
        );
        line.trim_end().to_owned()
    };
    let mut lines = vec![line([
        "class",
        "measure",
        "values",
        "first",
        "last",
        "slope/int",
        "fitted start",
        "fitted end",
        "growth",
        "streak  heap floor",
    ])];
    for row in rows {
        let state = format!(
            "{:<6}  {}",
            format!("{}/{}", row.streak, row.required_streak),
            if row.heap_floor_corroborated {
                "rose"
            } else {
                "-"
            }
        );
        for (index, (measure, of)) in measures.iter().enumerate() {
            let (class, rest) = match index {
                0 => (row.class.as_str(), state.as_str()),
                _ => ("", ""),
            };
            let trend = of(row);
            let number = |value: Option<&u64>| value.map_or(String::new(), u64::to_string);
            let growth = trend
                .relative_growth
                .map_or("from 0".to_owned(), |g| format!("{:+.1}%", g * 100.0));
            lines.push(line([
                class,
                measure,
                &trend.values.len().to_string(),
                &number(trend.values.first()),
                &number(trend.values.last()),
                &format!("{:+.1}", trend.slope_per_interval),
                &format!("{:.1}", trend.fitted_start),
                &format!("{:.1}", trend.fitted_end),
                &growth,
                rest,
            ]));
        }
    }
    lines
}
