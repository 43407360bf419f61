use super::*;

/// A heap floor that does not move: no corroboration.
const FLAT_FLOOR: u64 = 512 << 20;
const BYTES_PER_INSTANCE: u64 = 24;

type Histogram = Vec<(String, u64, u64)>;

fn class(name: &str, instances: u64) -> (String, u64, u64) {
    (name.to_owned(), instances, instances * BYTES_PER_INSTANCE)
}

fn defaults() -> ClassTrendConfig {
    ClassTrendConfig::default()
}

/// Feeds one observation per interval; returns the trend and the classes selected after each.
fn run(
    config: ClassTrendConfig,
    intervals: usize,
    histogram: impl Fn(usize) -> Histogram,
    floor: impl Fn(usize) -> u64,
) -> (ClassTrend, Vec<Vec<String>>) {
    let mut trend = ClassTrend::new(config).unwrap();
    let mut selections = Vec::new();
    for t in 0..intervals {
        trend.observe(histogram(t), floor(t));
        selections.push(
            trend
                .selected_classes()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        );
    }
    (trend, selections)
}

/// The intervals (0-based) at which the one class of `series` is selected, flat heap floor.
fn selected_at(config: ClassTrendConfig, series: &[u64]) -> Vec<usize> {
    let (_, selections) = run(
        config,
        series.len(),
        |t| vec![class("Item", series[t])],
        |_| FLAT_FLOOR,
    );
    (0..series.len())
        .filter(|&t| !selections[t].is_empty())
        .collect()
}

fn first_selected(config: ClassTrendConfig, series: &[u64]) -> Option<usize> {
    selected_at(config, series).first().copied()
}

fn linear(start: u64, per_interval: u64, intervals: u64) -> Vec<u64> {
    (0..intervals).map(|t| start + per_interval * t).collect()
}

/// Alternating steps from 1000: `up`, then `down`.
fn walk(up: u64, down: u64, intervals: usize) -> Vec<u64> {
    let step = |t: usize, v: u64| if t % 2 == 0 { v + up } else { v - down };
    (0..intervals)
        .scan(1000, |v, t| Some(std::mem::replace(v, step(t, *v))))
        .collect()
}

/// Rises by 400 per interval through interval `last_rise`, then stays.
fn cache(last_rise: u64, intervals: u64) -> Vec<u64> {
    (0..intervals)
        .map(|t| 200 + 400 * t.min(last_rise))
        .collect()
}

/// Deterministic pseudo-random values (xorshift64).
fn noise(seed: u64, count: usize, below: u64) -> Vec<u64> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        })
        .collect()
}

#[test]
fn steady_leak_is_selected_after_exactly_the_required_streak() {
    let leak = linear(1000, 100, 12);
    for required_streak in [3, 5] {
        let config = ClassTrendConfig {
            required_streak,
            ..defaults()
        };
        // Evaluated from the min_values-th value on; qualifies at each interval since.
        let first = config.min_values - 1 + required_streak as usize - 1;
        assert_eq!(selected_at(config, &leak), (first..12).collect::<Vec<_>>());
    }
}

#[test]
fn noisy_leak_up_three_down_two_is_selected_and_up_three_down_three_is_not() {
    let selected = selected_at(defaults(), &walk(300, 200, 40));
    // Once selected, the dips do not break the streak.
    assert_eq!(selected, (selected[0]..40).collect::<Vec<_>>());
    assert_eq!(
        selected_at(defaults(), &walk(300, 300, 40)),
        Vec::<usize>::new()
    );
}

#[test]
fn cache_that_levels_before_the_streak_is_never_selected() {
    // Its last rise is its first evaluation (interval 3); one interval of grace, then flat.
    assert_eq!(selected_at(defaults(), &cache(3, 40)), Vec::<usize>::new());
    // Twin: one that rises through interval 8 is selected from 5, and stops qualifying one
    // interval after its last rise, although its fitted line keeps rising for a while.
    assert_eq!(
        selected_at(defaults(), &cache(8, 40)),
        (5..=9).collect::<Vec<_>>()
    );
}

#[test]
fn churn_around_a_level_never_qualifies_and_a_leak_under_the_same_noise_does() {
    let noises: Vec<Vec<u64>> = (0..20).map(|c| noise(c + 1, 300, 1200)).collect();
    let churn = |t: usize| -> Histogram {
        (0..20)
            .map(|c| class(&format!("Churn{c}"), 4400 + noises[c][t]))
            .collect()
    };
    let (_, selections) = run(defaults(), 300, churn, |_| FLAT_FLOOR);
    assert!(selections.iter().all(Vec::is_empty));

    let leak = |t: usize| -> Histogram {
        let grown = 150 * t as u64;
        (0..20)
            .map(|c| class(&format!("Leak{c}"), 4400 + noises[c][t] + grown))
            .collect()
    };
    let config = ClassTrendConfig {
        max_selected: 20,
        ..defaults()
    };
    let (_, selections) = run(config, 300, leak, |_| FLAT_FLOOR);
    for c in 0..20 {
        let name = format!("Leak{c}");
        assert!(
            selections.iter().any(|s| s.contains(&name)),
            "{name} never selected"
        );
    }
}

#[test]
fn growth_under_the_relative_floor_of_a_huge_class_never_qualifies() {
    // 29 000 over a full ring of 30 is 2.9 % of a million.
    assert_eq!(
        selected_at(defaults(), &linear(1_000_000, 1_000, 60)),
        Vec::<usize>::new()
    );
    // 180 000 over four values is 18 %.
    assert_eq!(
        first_selected(defaults(), &linear(1_000_000, 60_000, 60)),
        Some(5)
    );
}

#[test]
fn growth_under_the_absolute_floor_of_a_small_class_never_qualifies() {
    // 3 per interval: 87 over a full ring, under 100 (though 58 % of the class).
    assert_eq!(
        selected_at(defaults(), &linear(150, 3, 60)),
        Vec::<usize>::new()
    );
    // 5 per interval reaches 100 once the ring spans 21 values (interval 20).
    assert_eq!(first_selected(defaults(), &linear(150, 5, 60)), Some(22));
}

#[test]
fn a_heap_floor_that_rises_with_the_class_lowers_the_required_streak() {
    // The class gains 2 400 bytes per interval.
    let leak = |t: usize| vec![class("Item", 1000 + 100 * t as u64)];
    let first = |floor_per_interval: u64| {
        let floor = |t: usize| FLAT_FLOOR + floor_per_interval * t as u64;
        let (_, selections) = run(defaults(), 12, leak, floor);
        selections.iter().position(|s| !s.is_empty())
    };
    assert_eq!(first(2_000), Some(4)); // at least half of the class's rise: a streak of 2
    assert_eq!(first(1_000), Some(5)); // less than half: 3
    assert_eq!(first(0), Some(5));
}

#[test]
fn the_class_cap_drops_classes_that_do_not_rise_and_keeps_leaks_and_young_classes() {
    let config = ClassTrendConfig {
        max_tracked: 4,
        ..defaults()
    };
    let tracked = |trend: &ClassTrend, name: &str| !trend.rows([name]).is_empty();
    let histogram = |t: usize| {
        let mut h = vec![
            class("Leak", 1000 + 100 * t as u64),
            class("Creep", 5000 + 10 * t as u64), // rises, under the floors
            class("Flat", 5000),
        ];
        match t {
            0..=3 => h.push(class("Falling", 5000 - 200 * t as u64)), // gone from 4 on
            _ => h.extend((4..=t.min(6)).map(|n| class(&format!("New{n}"), 500))),
        }
        h
    };
    let (trend, _) = run(config.clone(), 5, histogram, |_| FLAT_FLOOR);
    // Full at interval 4: the falling class was the furthest from qualifying.
    assert!(!tracked(&trend, "Falling") && tracked(&trend, "Flat") && tracked(&trend, "New4"));
    let (trend, _) = run(config.clone(), 7, histogram, |_| FLAT_FLOOR);
    // Interval 5 dropped the flat one for New5; at 6 nothing could go: New6 waits.
    assert!(!tracked(&trend, "Flat") && tracked(&trend, "New5") && !tracked(&trend, "New6"));
    assert!(tracked(&trend, "Creep") && tracked(&trend, "Leak"));
    assert_eq!(trend.selected_classes(), ["Leak"]);
    let (trend, _) = run(config, 8, histogram, |_| FLAT_FLOOR);
    // New4 has four flat values at 7: it makes room for New6, never tracked, rather than for
    // Flat, larger but dropped before.
    assert!(!tracked(&trend, "New4") && tracked(&trend, "New6") && tracked(&trend, "Creep"));
}

#[test]
fn a_class_that_grows_in_bytes_only_qualifies_through_its_bytes() {
    // Arrays that lengthen: as many instances, more bytes every interval.
    let array = |bytes_per_interval: u64| {
        move |t: usize| {
            vec![(
                "[B".to_owned(),
                1000,
                (1 << 20) + bytes_per_interval * t as u64,
            )]
        }
    };
    let (trend, selections) = run(defaults(), 8, array(100 << 10), |_| FLAT_FLOOR);
    assert_eq!(selections.iter().position(|s| !s.is_empty()), Some(5));
    let row = &trend.selected_rows()[0];
    assert!(row.bytes.qualifies && !row.instances.qualifies);
    // 4 KiB per interval: 116 KiB over a full ring, under 15 % of 1 MiB.
    let (_, selections) = run(defaults(), 60, array(4 << 10), |_| FLAT_FLOOR);
    assert!(selections.iter().all(Vec::is_empty));
}

#[test]
fn a_class_that_disappears_is_dropped_after_a_ring_of_zeros() {
    let config = ClassTrendConfig {
        ring_len: 5,
        ..defaults()
    };
    let histogram = |t: usize| {
        if t < 3 {
            vec![class("Gone", 5000)]
        } else {
            vec![]
        }
    };
    let (trend, _) = run(config.clone(), 7, histogram, |_| FLAT_FLOOR);
    assert_eq!(trend.rows(["Gone"])[0].instances.values, [5000, 0, 0, 0, 0]);
    let (trend, _) = run(config, 8, histogram, |_| FLAT_FLOOR);
    assert_eq!(trend.tracked_classes(), 0);
}

#[test]
fn at_most_max_selected_classes_are_selected_strongest_in_bytes_first() {
    let by_bytes = |t: usize| -> Histogram {
        let instances = 1000 + 100 * t as u64;
        (1..=7)
            .map(|k| (format!("C{k}"), instances, instances * 16 * k))
            .collect()
    };
    let (trend, _) = run(defaults(), 6, by_bytes, |_| FLAT_FLOOR);
    assert_eq!(trend.selected_classes(), ["C7", "C6", "C5", "C4", "C3"]);
    // A source without bytes (JFR samples): by instances per interval.
    let by_instances = |t: usize| -> Histogram {
        (1..=7)
            .map(|k| (format!("C{k}"), 1000 + 100 * k * t as u64, 0))
            .collect()
    };
    let (trend, _) = run(defaults(), 6, by_instances, |_| FLAT_FLOOR);
    assert_eq!(trend.selected_classes(), ["C7", "C6", "C5", "C4", "C3"]);
}

#[test]
fn two_flat_intervals_reset_the_streak_and_one_is_tolerated() {
    // Rises through interval 3 (its first evaluation), stays `flat` intervals, rises again.
    let series = |flat: u64| -> Vec<u64> {
        (0..14)
            .map(|t: u64| 1000 + 100 * (t.min(3) + t.saturating_sub(3 + flat)))
            .collect()
    };
    assert_eq!(first_selected(defaults(), &series(1)), Some(5)); // 3, 4 (grace), 5
    assert_eq!(first_selected(defaults(), &series(2)), Some(8)); // 5 resets: 6, 7, 8
    let strict = ClassTrendConfig {
        rising_window: 1,
        ..defaults()
    };
    assert_eq!(first_selected(strict, &series(1)), Some(7)); // 4 resets: 5, 6, 7
}

#[test]
fn a_class_that_appears_late_starts_its_ring_when_it_appears() {
    let late = |from: usize, values: fn(u64) -> u64| {
        move |t: usize| {
            let mut h = vec![class("Steady", 5000)];
            if t >= from {
                h.push(class("Late", values((t - from) as u64)));
            }
            h
        }
    };
    let (_, selections) = run(defaults(), 30, late(10, |t| 1000 + 100 * t), |_| FLAT_FLOOR);
    assert_eq!(selections.iter().position(|s| s == &["Late"]), Some(10 + 5));
    // Twin: one that appears with many instances and keeps them is no step up from zero.
    let (_, selections) = run(defaults(), 30, late(10, |_| 50_000), |_| FLAT_FLOOR);
    assert!(selections.iter().all(Vec::is_empty));
}

#[test]
fn a_class_with_fewer_than_min_values_is_not_evaluated() {
    for min_values in [4, 3] {
        let config = ClassTrendConfig {
            min_values,
            ..defaults()
        };
        let mut trend = ClassTrend::new(config).unwrap();
        for t in 0..3 {
            trend.observe([class("Item", 1000 * 10u64.pow(t))], FLAT_FLOOR);
        }
        let row = &trend.rows(["Item"])[0];
        assert_eq!(
            (row.evaluated, row.streak),
            (min_values == 3, (min_values == 3) as u32)
        );
    }
}

#[test]
fn scaling_every_count_keeps_every_verdict() {
    let churn: Vec<u64> = noise(7, 60, 1200).iter().map(|n| 4400 + n).collect();
    let series = [
        linear(1000, 100, 60),
        walk(300, 200, 60),
        walk(300, 300, 60),
        cache(3, 60),
        cache(8, 60),
        churn,
        linear(1_000_000, 1_000, 60),
        linear(1_000_000, 60_000, 60),
    ];
    for values in &series {
        for floor_per_interval in [0, 10_000] {
            let verdicts = |scale: u64| {
                let histogram = |t: usize| vec![class("Item", values[t] * scale)];
                let floor = |t: usize| (FLAT_FLOOR + floor_per_interval * t as u64) * scale;
                let (trend, selections) = run(defaults(), values.len(), histogram, floor);
                let streak = trend.rows(["Item"])[0].streak;
                (
                    selections.iter().map(Vec::is_empty).collect::<Vec<_>>(),
                    streak,
                )
            };
            let unscaled = verdicts(1);
            for scale in [2, 7, 1000] {
                assert_eq!(verdicts(scale), unscaled, "{values:?} times {scale}");
            }
        }
    }
}

#[test]
fn rows_render_as_a_fixed_width_table_and_serialize_every_value() {
    let leak = |t: usize| vec![class("com.example.Item", 1000 + 100 * t as u64)];
    let (trend, _) = run(defaults(), 6, leak, |_| FLAT_FLOOR);
    let rows = trend.selected_rows();
    assert_eq!(
        render_trend_rows(&rows),
        [
            "class             measure    values         first          last     slope/int  \
             \x20 fitted start      fitted end    growth  streak  heap floor",
            "com.example.Item  instances       6          1000          1500        +100.0  \
             \x20       1000.0          1500.0    +50.0%  3/3     -",
            "                  bytes           6         24000         36000       +2400.0  \
             \x20      24000.0         36000.0    +50.0%",
        ]
    );
    let json = serde_json::to_value(&rows[0]).unwrap();
    assert_eq!(
        json["instances"]["values"],
        serde_json::json!([1000, 1100, 1200, 1300, 1400, 1500])
    );
    assert_eq!(json["instances"]["qualifies"], true);
    assert_eq!(json["bytes"]["qualifies"], false); // 12 000 bytes, under 64 KiB
    assert_eq!(json["heap_floor_corroborated"], false);
    assert_eq!(json["selected"], true);
}

#[test]
fn rows_of_one_class_from_several_loaders_are_summed() {
    let mut trend = ClassTrend::new(defaults()).unwrap();
    trend.observe([class("Item", 600), class("Item", 700)], FLAT_FLOOR);
    assert_eq!(trend.rows(["Item", "Absent"])[0].instances.values, [1300]);
    assert_eq!(trend.rows(["Item", "Absent"]).len(), 1);
}

#[test]
fn a_config_that_cannot_work_is_refused() {
    assert!(ClassTrend::new(defaults()).is_ok());
    for config in [
        ClassTrendConfig {
            min_values: 1,
            ..defaults()
        },
        ClassTrendConfig {
            ring_len: 3,
            ..defaults()
        },
        ClassTrendConfig {
            corroborated_streak: 4,
            ..defaults()
        },
        ClassTrendConfig {
            relative_floor: f64::NAN,
            ..defaults()
        },
    ] {
        assert!(ClassTrend::new(config).is_err());
    }
}

/// What the trend has not decided on: a class tracked fewer than four values while at its high
/// so far (a leak that reached the floor late), or one qualifying short of the streak; not one
/// below its first value (noise that touched the floor once), nor one evaluated and flat.
#[test]
fn undecided_classes_are_those_still_rising_toward_a_verdict() {
    let undecided = |series: &[u64]| {
        let mut trend = ClassTrend::new(ClassTrendConfig::old_object_samples()).unwrap();
        for &samples in series {
            trend.observe([("byte[]", samples, 0)], 0);
        }
        !trend.undecided_rows().is_empty()
    };
    assert!(undecided(&[8]));
    assert!(undecided(&[8, 12]));
    assert!(undecided(&[8, 8, 8]));
    assert!(!undecided(&[8, 5]));
    assert!(!undecided(&[8, 12, 9]));
    // Evaluated from the fourth value: flat is decided, rising is on its streak until the
    // third qualifying value selects it.
    assert!(!undecided(&[8, 8, 8, 8]));
    assert!(undecided(&[10, 20, 30, 40]));
    assert!(undecided(&[10, 20, 30, 40, 50]));
    assert!(!undecided(&[10, 20, 30, 40, 50, 60]));
    // Untracked (below the floor of 8), nothing to decide.
    assert!(!undecided(&[3, 5, 7]));
}
