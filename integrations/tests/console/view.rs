//! The console's side of the test: [`Console`] installs console-subscriber's layer as the
//! global subscriber, serves its gRPC endpoint on an ephemeral port and watches it with a
//! `console-api` client over TCP, as `tokio-console` does (on a thread of its own, in a tokio
//! runtime of its own, with no subscriber there), into a [`View`]; [`Console::check`] waits
//! until every [`Expect`]ation holds (or fails after two minutes, saying what is missing).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use console_api::async_ops::{self, AsyncOp};
use console_api::field::{Name, Value};
use console_api::instrument::instrument_client::InstrumentClient;
use console_api::instrument::{InstrumentRequest, Update};
use console_api::resources::{self, PollOp, Resource};
use console_api::tasks::{self, Task};
use console_api::{Field, Location};
use tracing_subscriber::layer::SubscriberExt;

/// console-subscriber's server and a client watching its updates.
pub struct Console {
    view: Arc<(Mutex<View>, Condvar)>,
}

impl Console {
    /// Installs the layer as the process's global subscriber, starts its server, and
    /// returns once a client watches its updates (console-subscriber keeps poll ops only
    /// while somebody watches).
    pub fn start() -> Console {
        let (layer, server) = console_subscriber::ConsoleLayer::builder()
            .publish_interval(Duration::from_millis(20))
            .retention(Duration::from_secs(3600))
            .build();
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .expect("the test binary's only global subscriber");
        let view = Arc::new((Mutex::new(View::default()), Condvar::new()));
        let (watching, watched) = mpsc::channel();
        let shared = Arc::clone(&view);
        std::thread::Builder::new()
            .name("console-side".into())
            .spawn(move || {
                // The server and the client emit no trace into the subscriber under test.
                let _quiet =
                    tracing::subscriber::set_default(tracing::subscriber::NoSubscriber::default());
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async move {
                    let incoming = tonic::transport::server::TcpIncoming::bind(SocketAddr::from((
                        [127, 0, 0, 1],
                        0,
                    )))
                    .unwrap();
                    let addr = incoming.local_addr().unwrap();
                    let parts = server.into_parts();
                    tokio::spawn(parts.aggregator.run());
                    tokio::spawn(
                        tonic::transport::Server::builder()
                            .add_service(parts.instrument_server)
                            .serve_with_incoming(incoming),
                    );
                    let mut client = InstrumentClient::connect(format!("http://{addr}"))
                        .await
                        .expect("the console's gRPC endpoint answers");
                    let mut updates = client
                        .watch_updates(InstrumentRequest {})
                        .await
                        .unwrap()
                        .into_inner();
                    let mut first = true;
                    while let Some(update) = updates.message().await.unwrap() {
                        shared.0.lock().unwrap().apply(update);
                        shared.1.notify_all();
                        if std::mem::take(&mut first) {
                            watching.send(()).unwrap();
                        }
                    }
                });
            })
            .unwrap();
        watched.recv().expect("the client watches the console");
        Console { view }
    }

    /// Waits until the console's view holds `expect`, then runs its assertions; fails after
    /// two minutes (a watchdog, not a time bound on filch: the facts come within a few
    /// publish intervals) saying what is missing.
    pub fn check(&self, expect: &Expect) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let (view, updated) = &*self.view;
        let mut view = view.lock().unwrap();
        while !expect.missing(&view).is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "after two minutes the console still lacks {:#?}\nit has: {}",
                expect.missing(&view),
                view.summary(),
            );
            view = updated.wait_timeout(view, left).unwrap().0;
        }
        expect.assert(&view);
    }
}

/// What the console has said so far (the latest stats of each id).
#[derive(Default)]
pub struct View {
    tasks: HashMap<u64, Task>,
    task_stats: HashMap<u64, tasks::Stats>,
    resources: HashMap<u64, Resource>,
    resource_stats: HashMap<u64, resources::Stats>,
    poll_ops: Vec<PollOp>,
    async_ops: HashMap<u64, AsyncOp>,
    async_op_stats: HashMap<u64, async_ops::Stats>,
}

fn id(id: &Option<console_api::Id>) -> u64 {
    id.as_ref().expect("an id").id
}

fn text(value: &Value) -> String {
    match value {
        Value::DebugVal(s) | Value::StrVal(s) => s.clone(),
        Value::U64Val(n) => n.to_string(),
        Value::I64Val(n) => n.to_string(),
        Value::BoolVal(b) => b.to_string(),
    }
}

fn field<'a>(fields: &'a [Field], name: &str) -> Option<&'a Value> {
    fields.iter().find_map(|f| match (&f.name, &f.value) {
        (Some(Name::StrName(n)), Some(value)) if n == name => Some(value),
        _ => None,
    })
}

fn at(location: &Option<Location>, file: &str, line: u32) -> bool {
    location
        .as_ref()
        .is_some_and(|l| l.file.as_deref() == Some(file) && l.line == Some(line))
}

/// A task as the console shows it.
pub struct TaskView<'a> {
    pub task: &'a Task,
    pub stats: tasks::Stats,
}

impl TaskView<'_> {
    pub fn polls(&self) -> u64 {
        self.stats.poll_stats.as_ref().map_or(0, |p| p.polls)
    }

    fn field(&self, name: &str) -> Option<String> {
        field(&self.task.fields, name).map(text)
    }
}

impl View {
    fn apply(&mut self, update: Update) {
        if let Some(tasks) = update.task_update {
            for task in tasks.new_tasks {
                self.tasks.insert(id(&task.id), task);
            }
            self.task_stats.extend(tasks.stats_update);
        }
        if let Some(resources) = update.resource_update {
            for resource in resources.new_resources {
                self.resources.insert(id(&resource.id), resource);
            }
            self.resource_stats.extend(resources.stats_update);
            self.poll_ops.extend(resources.new_poll_ops);
        }
        if let Some(ops) = update.async_op_update {
            for op in ops.new_async_ops {
                self.async_ops.insert(id(&op.id), op);
            }
            self.async_op_stats.extend(ops.stats_update);
        }
    }

    fn tasks(&self) -> impl Iterator<Item = TaskView<'_>> {
        self.tasks.iter().map(|(id, task)| TaskView {
            task,
            stats: self.task_stats.get(id).cloned().unwrap_or_default(),
        })
    }

    fn named(&self, name: &str) -> Option<TaskView<'_>> {
        self.tasks()
            .find(|t| t.field("task.name").as_deref() == Some(name))
    }

    /// A parallel call's `pieces_taken` attribute.
    fn pieces_taken(&self, resource: u64) -> Option<u64> {
        let stats = self.resource_stats.get(&resource)?;
        stats.attributes.iter().find_map(|a| {
            let f = a.field.as_ref()?;
            match (&f.name, &f.value) {
                (Some(Name::StrName(n)), Some(Value::U64Val(v))) if n == "pieces_taken" => Some(*v),
                _ => None,
            }
        })
    }

    fn summary(&self) -> String {
        let tasks: Vec<_> = self
            .tasks()
            .map(|t| {
                format!(
                    "{:?}/{:?} polls {} dropped {}",
                    t.field("task.name"),
                    t.field("kind"),
                    t.polls(),
                    t.stats.dropped_at.is_some()
                )
            })
            .collect();
        let resources: Vec<_> = self.resources.values().map(|r| &r.concrete_type).collect();
        let ops: Vec<_> = self.async_ops.values().map(|o| &o.source).collect();
        format!(
            "tasks {tasks:#?}\nresources {resources:?}\nasync ops {ops:?}\npoll ops {}",
            self.poll_ops.len()
        )
    }
}

type TaskCheck = Box<dyn Fn(&TaskView<'_>)>;

/// A file and line.
type At = (&'static str, u32);

/// What the console must show.
#[derive(Default)]
pub struct Expect {
    /// Name (or none), kind, file, line, and the checks of its stats.
    tasks: Vec<(
        Option<&'static str>,
        &'static str,
        &'static str,
        u32,
        TaskCheck,
    )>,
    /// Concrete type, location, the name of a task that polled it.
    resources: Vec<(&'static str, Option<At>, &'static str)>,
    /// Source, location of its resource (a `ParallelCall` with its `pieces_taken`), the name
    /// of the task it belongs to.
    async_ops: Vec<(&'static str, Option<At>, &'static str)>,
}

impl Expect {
    /// A task named `name` of kind `kind`, spawned at `file:line`, completed (so dropped),
    /// whose view passes `check`.
    pub fn task(
        &mut self,
        name: &'static str,
        kind: &'static str,
        file: &'static str,
        line: u32,
        check: impl Fn(&TaskView<'_>) + 'static,
    ) {
        self.tasks
            .push((Some(name), kind, file, line, Box::new(check)));
    }

    /// A task with no name, of kind `kind`, spawned at `file:line`, completed.
    pub fn unnamed_task(&mut self, kind: &'static str, file: &'static str, line: u32) {
        self.tasks.push((None, kind, file, line, Box::new(|_| {})));
    }

    /// A resource of `concrete_type` (at `location`, where given) with a poll op made by
    /// the task named `task`.
    pub fn resource(
        &mut self,
        concrete_type: &'static str,
        location: Option<At>,
        task: &'static str,
    ) {
        self.resources.push((concrete_type, location, task));
    }

    /// An async op `source` (whose resource is at `location`, where given) of the task
    /// named `task`.
    pub fn async_op(&mut self, source: &'static str, location: Option<At>, task: &'static str) {
        self.async_ops.push((source, location, task));
    }

    fn find_task<'v>(
        view: &'v View,
        name: Option<&str>,
        kind: &str,
        file: &str,
        line: u32,
    ) -> Option<TaskView<'v>> {
        view.tasks().find(|t| {
            t.field("task.name").as_deref().filter(|n| !n.is_empty()) == name
                && t.field("kind").as_deref() == Some(kind)
                && at(&t.task.location, file, line)
        })
    }

    /// What does not hold yet.
    fn missing(&self, view: &View) -> Vec<String> {
        let mut missing = Vec::new();
        for (name, kind, file, line, _) in &self.tasks {
            match Expect::find_task(view, *name, kind, file, *line) {
                None => missing.push(format!("task {name:?} of kind {kind} at {file}:{line}")),
                Some(t) if t.stats.dropped_at.is_none() => {
                    missing.push(format!("task {name:?} reported dropped"));
                }
                Some(_) => {}
            }
        }
        for (concrete_type, location, task) in &self.resources {
            let polled = view.named(task).is_some_and(|t| {
                let task_id = id(&t.task.id);
                view.resources.values().any(|r| {
                    r.concrete_type == *concrete_type
                        && location.is_none_or(|(file, line)| at(&r.location, file, line))
                        && view.poll_ops.iter().any(|op| {
                            id(&op.resource_id) == id(&r.id)
                                && op.task_id.as_ref().map(|i| i.id) == Some(task_id)
                        })
                })
            });
            if !polled {
                missing.push(format!(
                    "resource {concrete_type} at {location:?} polled by {task}"
                ));
            }
        }
        for (source, location, task) in &self.async_ops {
            let found = view.named(task).is_some_and(|t| {
                let task_id = id(&t.task.id);
                view.async_ops.iter().any(|(op_id, op)| {
                    op.source == *source
                        && view
                            .async_op_stats
                            .get(op_id)
                            .and_then(|s| s.task_id.as_ref())
                            .map(|i| i.id)
                            == Some(task_id)
                        && view.resources.get(&id(&op.resource_id)).is_some_and(|r| {
                            r.concrete_type == "ParallelCall"
                                && location.is_none_or(|(file, line)| at(&r.location, file, line))
                                && view.pieces_taken(id(&r.id)).is_some()
                        })
                })
            });
            if !found {
                missing.push(format!("async op {source} at {location:?} of {task}"));
            }
        }
        missing
    }

    /// The checks that need the whole view: each task's own, and its busy time inside its
    /// life on the subscriber's clock.
    fn assert(&self, view: &View) {
        for (name, kind, file, line, check) in &self.tasks {
            let task = Expect::find_task(view, *name, kind, file, *line).unwrap();
            let life = duration(&task.stats.created_at, &task.stats.dropped_at);
            let busy = task
                .stats
                .poll_stats
                .as_ref()
                .and_then(|p| p.busy_time)
                .map_or(Duration::ZERO, |d| {
                    Duration::new(d.seconds as u64, d.nanos as u32)
                });
            assert!(task.polls() >= 1, "task {name:?} was polled");
            assert!(
                busy <= life,
                "task {name:?}: busy {busy:?} fits in its life {life:?}"
            );
            check(&task);
        }
    }
}

/// `to - from`.
fn duration(
    from: &Option<prost_types::Timestamp>,
    to: &Option<prost_types::Timestamp>,
) -> Duration {
    let (from, to) = (from.as_ref().unwrap(), to.as_ref().unwrap());
    let nanos = |t: &prost_types::Timestamp| t.seconds as i128 * 1_000_000_000 + t.nanos as i128;
    Duration::from_nanos((nanos(to) - nanos(from)) as u64)
}
