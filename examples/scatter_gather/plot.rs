//! The SVG plots of the scatter-gather example (plotters, SVG backend).
//!
//! - `speedup_vs_w.svg`: speedup against work per message, one panel per task count, one
//!   line per runtime, with the ideal speedup (the worker count) dashed: the paper's Figure 5.
//! - `speedup_vs_n.svg`: speedup against the number of tasks at w = 800 µs, with the best
//!   speedup any schedule of whole messages can reach dashed: the paper's Figure 6.
//! - `steal_rate_vs_w.svg`: filch's steal attempts per second against work per message, one
//!   panel per task count, log scale.

use std::error::Error;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::{Row, Runtime, EXP3_TASKS, EXP4_WORK_US};

const FONT: &str = "sans-serif";
const GREY: RGBColor = RGBColor(120, 120, 120);

/// The line colour of each runtime.
fn colour(runtime: Runtime) -> RGBColor {
    match runtime {
        Runtime::WsLast => RGBColor(31, 119, 180),
        Runtime::WsCur => RGBColor(214, 39, 40),
        Runtime::Tokio => RGBColor(44, 160, 44),
    }
}

/// The legend entry of each runtime.
fn legend(runtime: Runtime) -> &'static str {
    match runtime {
        Runtime::WsLast => "filch WS-LAST (LastWorker)",
        Runtime::WsCur => "filch WS-CUR (CurrentWorker)",
        Runtime::Tokio => "tokio multi-thread",
    }
}

/// The points `(x, y)` of `runtime` among `rows` that pass `keep`, in row order.
fn series(
    rows: &[Row],
    runtime: Runtime,
    keep: impl Fn(&Row) -> bool,
    xy: impl Fn(&Row) -> Option<(f64, f64)>,
) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r.runtime == runtime && keep(r))
        .filter_map(xy)
        .collect()
}

fn work_us(row: &Row) -> f64 {
    row.params.work.as_secs_f64() * 1e6
}

/// The measured work-per-message values, ascending: the x axis's tick marks.
fn work_ticks(rows: &[Row]) -> Vec<f64> {
    let mut ticks: Vec<f64> = rows.iter().map(work_us).collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    ticks
}

/// Work-per-message axis: log scale over the measured range with a little room.
fn work_range(rows: &[Row]) -> (f64, f64) {
    let (lo, hi) = rows
        .iter()
        .map(work_us)
        .fold((f64::MAX, 0.0f64), |(lo, hi), w| (lo.min(w), hi.max(w)));
    if hi <= 0.0 {
        (1.0, 1000.0)
    } else {
        (lo / 1.3, hi * 1.3)
    }
}

/// Figure 5: speedup vs work per message, one panel per task count.
pub(crate) fn speedup_vs_work(
    out: &Path,
    rows: &[Row],
    workers: usize,
) -> Result<PathBuf, Box<dyn Error>> {
    let path = out.join("speedup_vs_w.svg");
    draw_speedup_vs_work(&path, rows, workers)?;
    Ok(path)
}

fn draw_speedup_vs_work(path: &Path, rows: &[Row], workers: usize) -> Result<(), Box<dyn Error>> {
    let root = SVGBackend::new(path, (1200, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        &format!("Scatter-gather: speedup on {workers} workers over 1 worker vs work per message"),
        (FONT, 22),
    )?;
    let (x_lo, x_hi) = work_range(rows);
    let y_hi = rows.iter().map(Row::speedup).fold(workers as f64, f64::max) * 1.15;
    let panels = root.split_evenly((1, EXP3_TASKS.len()));
    for (i, (panel, &tasks)) in panels.iter().zip(&EXP3_TASKS).enumerate() {
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("n = {tasks} tasks"), (FONT, 18))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(50)
            .build_cartesian_2d(
                (x_lo..x_hi).log_scale().with_key_points(work_ticks(rows)),
                0.0..y_hi,
            )?;
        chart
            .configure_mesh()
            .light_line_style(RGBColor(235, 235, 235))
            .x_desc("work per message w (µs, log scale)")
            .y_desc("speedup (1-worker time / time)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
        chart
            .draw_series(DashedLineSeries::new(
                [(x_lo, workers as f64), (x_hi, workers as f64)],
                6,
                4,
                GREY.stroke_width(1),
            ))?
            .label(format!("ideal ({workers})"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], GREY));
        for runtime in Runtime::ALL {
            let points = series(
                rows,
                runtime,
                |r| r.params.tasks == tasks,
                |r| Some((work_us(r), r.speedup())),
            );
            let c = colour(runtime);
            chart
                .draw_series(LineSeries::new(points, c.stroke_width(2)).point_size(3))?
                .label(legend(runtime))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], c.stroke_width(2)));
        }
        // One legend is enough: the panels share their series.
        if i > 0 {
            continue;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font((FONT, 12))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// Figure 6: speedup vs number of tasks at w = 800 µs.
pub(crate) fn speedup_vs_tasks(
    out: &Path,
    rows: &[Row],
    workers: usize,
) -> Result<PathBuf, Box<dyn Error>> {
    let path = out.join("speedup_vs_n.svg");
    draw_speedup_vs_tasks(&path, rows, workers)?;
    Ok(path)
}

fn draw_speedup_vs_tasks(path: &Path, rows: &[Row], workers: usize) -> Result<(), Box<dyn Error>> {
    let root = SVGBackend::new(path, (900, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let tasks = |r: &Row| r.params.tasks as f64;
    let x_lo = rows.iter().map(tasks).fold(f64::MAX, f64::min).min(1e9);
    let x_hi = rows.iter().map(tasks).fold(0.0, f64::max).max(x_lo + 1.0);
    let y_hi = rows.iter().map(Row::speedup).fold(workers as f64, f64::max) * 1.15;
    let mut chart = ChartBuilder::on(&root)
    .caption(
        format!(
            "Scatter-gather: speedup on {workers} workers vs number of tasks (w = {EXP4_WORK_US} µs)"
        ),
        (FONT, 20),
    )
    .margin(15)
    .x_label_area_size(45)
    .y_label_area_size(55)
    .build_cartesian_2d((x_lo - 0.5)..(x_hi + 0.5), 0.0..y_hi)?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .x_desc("number of worker tasks n")
        .y_desc("speedup (1-worker time / time)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.1}"))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .draw()?;
    // The best a schedule of whole messages can do: n / ceil(n / workers).
    let mut ns: Vec<usize> = rows.iter().map(|r| r.params.tasks).collect();
    ns.dedup();
    let bound: Vec<(f64, f64)> = ns
        .iter()
        .map(|&n| (n as f64, n as f64 / n.div_ceil(workers) as f64))
        .collect();
    chart
        .draw_series(DashedLineSeries::new(bound, 6, 4, GREY.stroke_width(1)))?
        .label("best possible: n / ceil(n / workers)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], GREY));
    for runtime in Runtime::ALL {
        let c = colour(runtime);
        let points = series(rows, runtime, |_| true, |r| Some((tasks(r), r.speedup())));
        chart
            .draw_series(LineSeries::new(points, c.stroke_width(2)).point_size(3))?
            .label(legend(runtime))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// filch's steal attempts per second vs work per message, one panel per task count.
pub(crate) fn steal_rate_vs_work(
    out: &Path,
    rows: &[Row],
    workers: usize,
) -> Result<PathBuf, Box<dyn Error>> {
    let path = out.join("steal_rate_vs_w.svg");
    draw_steal_rate_vs_work(&path, rows, workers)?;
    Ok(path)
}

fn draw_steal_rate_vs_work(
    path: &Path,
    rows: &[Row],
    workers: usize,
) -> Result<(), Box<dyn Error>> {
    let root = SVGBackend::new(path, (1200, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
    &format!("Scatter-gather on {workers} workers: filch steal attempts per second vs work per message"),
    (FONT, 22),
)?;
    let (x_lo, x_hi) = work_range(rows);
    // Zero rates cannot go on a log axis: plot them at 1/s.
    let attempts = |r: &Row| {
        r.rates
            .map(|rates| (work_us(r), rates.steal_attempts.max(1.0)))
    };
    let (y_lo, y_hi) = rows
        .iter()
        .filter_map(attempts)
        .fold((f64::MAX, 1.0f64), |(lo, hi), (_, y)| {
            (lo.min(y), hi.max(y))
        });
    let (y_lo, y_hi) = ((y_lo.min(y_hi) / 2.0).max(0.5), y_hi * 2.0);
    let panels = root.split_evenly((1, EXP3_TASKS.len()));
    for (i, (panel, &tasks)) in panels.iter().zip(&EXP3_TASKS).enumerate() {
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("n = {tasks} tasks"), (FONT, 18))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (x_lo..x_hi).log_scale().with_key_points(work_ticks(rows)),
                (y_lo..y_hi).log_scale(),
            )?;
        chart
            .configure_mesh()
            .light_line_style(RGBColor(235, 235, 235))
            .x_desc("work per message w (µs, log scale)")
            .y_desc("steal attempts / s (log scale)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| crate::rate(*y))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
        for runtime in [Runtime::WsLast, Runtime::WsCur] {
            let c = colour(runtime);
            let points = series(rows, runtime, |r| r.params.tasks == tasks, attempts);
            chart
                .draw_series(LineSeries::new(points, c.stroke_width(2)).point_size(3))?
                .label(legend(runtime))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], c.stroke_width(2)));
        }
        // One legend is enough: the panels share their series.
        if i > 0 {
            continue;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FONT, 12))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
