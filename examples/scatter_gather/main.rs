//! The scatter-gather experiments of the WS-LAST paper (Vrba, Halvorsen and Griwodz, "A simple
//! improvement of the work-stealing scheduling algorithm"), scaled to this machine.
//!
//! ```text
//! cargo run --release --example scatter_gather [-- --quick] [--workers N] [--out DIR]
//! ```
//!
//! One coordinator task and `n` worker tasks exchange one message each way per round over
//! capacity-1 channels; each worker spins `w` µs per message (see `workload.rs`). For every
//! configuration the example measures the wall time on 1 worker and on `--workers` workers
//! (default: the available parallelism) for filch under both wake policies, WS-LAST
//! (`WakePolicy::LastWorker`) and WS-CUR (`WakePolicy::CurrentWorker`), and for tokio's
//! multi-thread runtime as a reference, then prints, per experiment, a table of wall time,
//! speedup (1-worker time / all-workers time), ideal time `n·m·w / workers`, and filch's
//! steal attempts, steals and parks per second (`Executor::stats`):
//!
//! - Experiment 3: `n ∈ {16, 50, 250}` × `w ∈ {10, 25, 50, 100, 200, 400, 800}` µs;
//! - Experiment 4: `n` from 2× to 6× the workers at `w = 800` µs (the sawtooth: speedup
//!   dips when `n` is not a multiple of the workers, since a message's work is not split).
//!
//! The number of rounds `m` is chosen per configuration so that the total work `n·m·w` is
//! the same everywhere (the paper's Experiment 1 does the same); each point is the median of
//! three runs (one with `--quick`), the counters are those of the median run. With one
//! worker both policies place every task identically, so filch's 1-worker time is measured
//! once and is the baseline of both.
//!
//! On a shared machine other processes take CPUs away in the middle of a run. The example
//! reads how long its threads waited for a CPU (Linux schedstat), shows it per point
//! (`cpu-wait`), and runs a point again, up to [`DISTURBED_RETRIES`] times, when the wait
//! exceeded [`DISTURBED`] of its wall time.
//!
//! It writes three SVG plots into `--out` (default `target/scatter_gather/`):
//! `speedup_vs_w.svg` (the paper's Figure 5), `speedup_vs_n.svg` (Figure 6) and
//! `steal_rate_vs_w.svg`. `docs/scatter_gather.md` says what to look for in them.

mod plot;
mod workload;

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use filch::WakePolicy;
use indicatif::{ProgressBar, ProgressStyle};

use workload::Params;

/// Experiment 3's worker-task counts.
const EXP3_TASKS: [usize; 3] = [16, 50, 250];
/// Experiment 3's work per message, µs.
const EXP3_WORK_US: [u64; 7] = [10, 25, 50, 100, 200, 400, 800];
/// Experiment 4's work per message, µs.
const EXP4_WORK_US: u64 = 800;
/// A run in which this process waited longer than this share of the wall time for a CPU
/// was disturbed by other processes ([`Sample::cpu_wait`]) ...
const DISTURBED: f64 = 0.05;
/// ... and is run again up to this many times.
const DISTURBED_RETRIES: usize = 3;

const USAGE: &str = "\
usage: scatter_gather [--quick] [--workers N] [--out DIR]

  --quick       a ~10 s run (less work per point, one run per point instead of three)
  --workers N   worker threads to compare against 1 (default: available parallelism)
  --out DIR     where to write the SVG plots (default: target/scatter_gather)
  -h, --help    this text";

/// The command line.
#[derive(Debug)]
struct Options {
    quick: bool,
    workers: usize,
    out: PathBuf,
}

/// Parses the command line by hand: `Ok(None)` means `--help` was asked for.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        quick: false,
        workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
        out: PathBuf::from("target/scatter_gather"),
    };
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--quick" => options.quick = true,
            "--workers" => {
                let v = value("--workers")?;
                options.workers = match v.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("--workers: expected a positive integer, got {v:?}")),
                };
            }
            "--out" => options.out = PathBuf::from(value("--out")?),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Some(options))
}

/// An executor configuration compared on every point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Runtime {
    /// filch, `WakePolicy::LastWorker`.
    WsLast,
    /// filch, `WakePolicy::CurrentWorker`.
    WsCur,
    /// tokio's multi-thread runtime.
    Tokio,
}

impl Runtime {
    const ALL: [Runtime; 3] = [Runtime::WsLast, Runtime::WsCur, Runtime::Tokio];

    /// The name used in tables and plot legends.
    fn label(self) -> &'static str {
        match self {
            Runtime::WsLast => "WS-LAST",
            Runtime::WsCur => "WS-CUR",
            Runtime::Tokio => "tokio",
        }
    }
}

/// Rates of filch's counters over one run, per second of wall time.
#[derive(Clone, Copy, Debug, Default)]
struct Rates {
    steal_attempts: f64,
    steals: f64,
    parks: f64,
}

/// One measured point: a configuration on one runtime.
#[derive(Clone, Debug)]
struct Row {
    params: Params,
    runtime: Runtime,
    /// Median wall time on all workers.
    wall: Duration,
    /// Median wall time on one worker.
    base: Duration,
    /// filch's counters of the median run; `None` for tokio.
    rates: Option<Rates>,
    /// The larger CPU wait (see [`Sample::cpu_wait`]) of the two median runs.
    cpu_wait: Option<f64>,
}

impl Row {
    fn speedup(&self) -> f64 {
        self.base.as_secs_f64() / self.wall.as_secs_f64()
    }
}

/// Every executor of the comparison, built once and reused for every point.
struct Executors {
    filch_one: filch::Executor,
    last: filch::Executor,
    cur: filch::Executor,
    tokio_one: tokio::runtime::Runtime,
    tokio: tokio::runtime::Runtime,
}

impl Executors {
    fn new(workers: usize) -> std::io::Result<Executors> {
        let filch = |n, policy| {
            filch::Executor::builder()
                .worker_threads(n)
                .wake_policy(policy)
                .build()
        };
        let tokio = |n| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(n)
                .build()
        };
        Ok(Executors {
            filch_one: filch(1, WakePolicy::LastWorker)?,
            last: filch(workers, WakePolicy::LastWorker)?,
            cur: filch(workers, WakePolicy::CurrentWorker)?,
            tokio_one: tokio(1)?,
            tokio: tokio(workers)?,
        })
    }
}

/// One timed run.
#[derive(Clone, Copy, Debug)]
struct Sample {
    wall: Duration,
    /// filch's counters over the run; `None` for tokio.
    rates: Option<Rates>,
    /// The share of the wall time this process's threads spent runnable but waiting for a
    /// CPU (other processes had them); `None` where Linux's schedstat is not available.
    cpu_wait: Option<f64>,
}

/// Nanoseconds this process's threads have spent runnable but waiting for a CPU, summed
/// over its live threads (field 2 of Linux's `/proc/self/task/*/schedstat`).
fn run_queue_wait_ns() -> Option<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(entry.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    }
    Some(total)
}

/// Times `run`, with the CPU wait over it and, for filch, the change of `ex`'s counters.
fn sample(
    ex: Option<&filch::Executor>,
    run: impl FnOnce() -> Result<Duration, workload::WorkloadError>,
) -> Result<Sample, Box<dyn Error>> {
    let before = ex.map(|ex| ex.stats().total());
    let wait_before = run_queue_wait_ns();
    let wall = run()?;
    let wait_after = run_queue_wait_ns();
    let secs = wall.as_secs_f64();
    let rates = ex.zip(before).map(|(ex, before)| {
        let after = ex.stats().total();
        let per_second = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs;
        Rates {
            steal_attempts: per_second(after.steal_attempts, before.steal_attempts),
            steals: per_second(after.steals, before.steals),
            parks: per_second(after.parks, before.parks),
        }
    });
    let cpu_wait = wait_before
        .zip(wait_after)
        .map(|(b, a)| a.saturating_sub(b) as f64 * 1e-9 / secs);
    Ok(Sample {
        wall,
        rates,
        cpu_wait,
    })
}

/// The sample with the median wall time (the upper median for an even count); the paper
/// also reports the other quantities of the median run as they are.
fn median(mut samples: Vec<Sample>) -> Sample {
    samples.sort_by_key(|s| s.wall);
    samples[samples.len() / 2]
}

/// One run of executor `which` (in the order of [`measure`]'s samples).
fn measure_one(ex: &Executors, which: usize, params: Params) -> Result<Sample, Box<dyn Error>> {
    let filch = |ex| sample(Some(ex), || workload::run_filch(ex, params));
    let tokio = |rt| sample(None, || workload::run_tokio(rt, params));
    match which {
        0 => filch(&ex.filch_one),
        1 => filch(&ex.last),
        2 => filch(&ex.cur),
        3 => tokio(&ex.tokio_one),
        _ => tokio(&ex.tokio),
    }
}

/// Measures one configuration on every runtime: `reps` rounds of the five runs, interleaved
/// so that a noisy moment hits all of them alike.
fn measure(
    ex: &Executors,
    params: Params,
    reps: usize,
    bar: &ProgressBar,
    label: &str,
    retries: &mut usize,
) -> Result<Vec<Row>, Box<dyn Error>> {
    bar.set_message(label.to_owned());
    let mut samples: [Vec<Sample>; 5] = Default::default();
    for _ in 0..reps {
        for (i, runs) in samples.iter_mut().enumerate() {
            // A run that other processes disturbed is run again, a few times at most.
            let mut run = measure_one(ex, i, params)?;
            for _ in 0..DISTURBED_RETRIES {
                if run.cpu_wait.is_none_or(|w| w <= DISTURBED) {
                    break;
                }
                bar.set_message(format!("{label} (re-running a disturbed run)"));
                *retries += 1;
                run = measure_one(ex, i, params)?;
            }
            runs.push(run);
            bar.inc(1);
        }
    }
    let [one, last, cur, tokio_one, tokio] = samples.map(median);
    let row = |runtime, all: Sample, one: Sample| Row {
        params,
        runtime,
        wall: all.wall,
        base: one.wall,
        rates: all.rates,
        cpu_wait: all.cpu_wait.zip(one.cpu_wait).map(|(a, b)| a.max(b)),
    };
    Ok(vec![
        row(Runtime::WsLast, last, one),
        row(Runtime::WsCur, cur, one),
        row(Runtime::Tokio, tokio, tokio_one),
    ])
}

/// Formats a rate with a k/M suffix.
fn rate(value: f64) -> String {
    if value >= 1e6 {
        format!("{:.2}M", value / 1e6)
    } else if value >= 1e3 {
        format!("{:.1}k", value / 1e3)
    } else {
        format!("{value:.0}")
    }
}

/// The table of one experiment, one line per point and runtime.
fn table(title: &str, rows: &[Row], workers: usize) -> String {
    let mut out = format!("\n{title}\n");
    let _ = writeln!(
        out,
        "{:>4} {:>6} {:>6}  {:<8} {:>9} {:>8} {:>9} {:>7} {:>12} {:>9} {:>9} {:>9}",
        "n",
        "w(µs)",
        "m",
        "policy",
        "wall(ms)",
        "speedup",
        "ideal(ms)",
        "×ideal",
        "steal-att/s",
        "steals/s",
        "parks/s",
        "cpu-wait"
    );
    for row in rows {
        let ideal = row.params.ideal(workers);
        let (attempts, steals, parks) = match row.rates {
            Some(r) => (rate(r.steal_attempts), rate(r.steals), rate(r.parks)),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let cpu_wait = row
            .cpu_wait
            .map_or_else(|| "-".into(), |w| format!("{:.1}%", w * 100.0));
        let _ = writeln!(
            out,
            "{:>4} {:>6} {:>6}  {:<8} {:>9.1} {:>8.2} {:>9.1} {:>7.3} {:>12} {:>9} {:>9} {:>9}",
            row.params.tasks,
            row.params.work.as_micros(),
            row.params.rounds,
            row.runtime.label(),
            row.wall.as_secs_f64() * 1e3,
            row.speedup(),
            ideal.as_secs_f64() * 1e3,
            row.wall.as_secs_f64() / ideal.as_secs_f64(),
            attempts,
            steals,
            parks,
            cpu_wait
        );
    }
    out
}

fn run(options: &Options) -> Result<(), Box<dyn Error>> {
    // Total work per point and runs per point: the default run takes about a minute on two
    // cores, `--quick` about ten seconds.
    let (budget, reps) = if options.quick {
        (Duration::from_millis(40), 1)
    } else {
        (Duration::from_millis(150), 3)
    };
    // Before the minute of measurements, so that a bad --out fails at once.
    std::fs::create_dir_all(&options.out)
        .map_err(|e| format!("cannot create {}: {e}", options.out.display()))?;
    let workers = options.workers;
    let point = |tasks: usize, work_us: u64| {
        let work = Duration::from_micros(work_us);
        Params::new(tasks, Params::rounds_for(tasks, work, budget), work)
    };
    let exp3: Vec<Params> = EXP3_TASKS
        .iter()
        .flat_map(|&n| EXP3_WORK_US.iter().map(move |&w| (n, w)))
        .map(|(n, w)| point(n, w))
        .collect();
    let exp4: Vec<Params> = (2 * workers..=6 * workers)
        .map(|n| point(n, EXP4_WORK_US))
        .collect();

    println!(
        "scatter-gather (WS-LAST paper, Experiments 3 and 4): {workers} workers vs 1, \
         filch {} + tokio, ~{} ms of work per point, median of {reps}",
        Runtime::ALL[..2]
            .iter()
            .map(|r| r.label())
            .collect::<Vec<_>>()
            .join("/"),
        budget.as_millis()
    );
    let ex = Executors::new(workers)?;
    // Warm up every executor (thread start-up, first allocations) outside the timings.
    let warm = Params::new(8, 20, Duration::from_micros(20));
    workload::run_filch(&ex.filch_one, warm)?;
    workload::run_filch(&ex.last, warm)?;
    workload::run_filch(&ex.cur, warm)?;
    workload::run_tokio(&ex.tokio_one, warm)?;
    workload::run_tokio(&ex.tokio, warm)?;

    let runs = (exp3.len() + exp4.len()) * reps * 5;
    let bar = ProgressBar::new(runs as u64);
    bar.set_style(ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs  {msg}",
    )?);
    let mut retries = 0;
    let mut rows3 = Vec::new();
    for &params in &exp3 {
        let label = format!("exp 3: n={} w={}µs", params.tasks, params.work.as_micros());
        rows3.extend(measure(&ex, params, reps, &bar, &label, &mut retries)?);
    }
    let mut rows4 = Vec::new();
    for &params in &exp4 {
        let label = format!("exp 4: n={}", params.tasks);
        rows4.extend(measure(&ex, params, reps, &bar, &label, &mut retries)?);
    }
    bar.finish_and_clear();

    print!(
        "{}",
        table(
            &format!("Experiment 3: speedup on {workers} workers vs work per message"),
            &rows3,
            workers
        )
    );
    print!(
        "{}",
        table(
            &format!(
                "Experiment 4: speedup on {workers} workers vs number of tasks (w = {EXP4_WORK_US} µs)"
            ),
            &rows4,
            workers
        )
    );

    let written = [
        plot::speedup_vs_work(&options.out, &rows3, workers)?,
        plot::speedup_vs_tasks(&options.out, &rows4, workers)?,
        plot::steal_rate_vs_work(&options.out, &rows3, workers)?,
    ];
    println!(
        "\n×ideal = wall / ideal, ideal = n·m·w / {workers}. cpu-wait: the share of the run in \
         which this process's threads waited for a CPU that another process had; above a few \
         percent, that point measures the machine's load more than the executor \
         ({retries} disturbed runs were re-run, up to {DISTURBED_RETRIES} times each)."
    );
    for path in written {
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("scatter_gather: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("scatter_gather: {why}");
            ExitCode::FAILURE
        }
    }
}
