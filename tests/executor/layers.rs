//! The layers of `src/` (ARCHITECTURE.md, "Layers"): the folders are the layers, and no file
//! imports from a layer above its own; nor do the files import each other in a cycle. Also:
//! `par/` reaches the fork-join core through its door (`runtime/scheduler/forkjoin/mod.rs`)
//! only, and no two private types share a name.
//!
//! The check reads every `.rs` file under `src/`, takes the `crate::…` (and `$crate::…`)
//! and `super::…` paths of its code (comments left out; `super` resolved from the file's
//! module), resolves each to the file of the module it names
//! (a root re-export, such as `crate::spawn`, to the file that defines it), and compares
//! layers. `lib.rs` (it re-exports from every layer), `runtime/mod.rs` (it only declares
//! the runtime's folders) and the white-box tests (the files named tests.rs, which build
//! whole executors through the public API) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, from the bottom up: each a list of module paths (a path covers the modules
/// under it). A module path not listed here is an error, so a new folder needs a row.
const LAYERS: &[(&str, &[&str])] = &[
    ("leaves", &["util"]),
    (
        "runtime leaves",
        &[
            "runtime::coop",
            "runtime::stats",
            "runtime::threads",
            "runtime::tokio_context",
            "runtime::wake_policy",
        ],
    ),
    // Observability shares the tasks' layer: a task's metadata holds its record and
    // writes its worker's poll slot, and the dump reads the tasks' metadata.
    (
        "tasks and their observation",
        &["runtime::task", "runtime::observe"],
    ),
    (
        "sleeping and the two drivers",
        &["runtime::park", "runtime::io", "runtime::time"],
    ),
    ("the driver stack", &["runtime::driver"]),
    ("the scheduler", &["runtime::scheduler"]),
    ("entry points", &["executor"]),
    ("public modules", &["par", "task", "time"]),
    ("IO objects", &["net", "signal", "hyper"]),
    ("servers", &["axum"]),
];

/// The module path of a file under `src/` (`runtime/task/mod.rs` is `runtime::task`).
fn module_of(file: &Path) -> String {
    let mut parts: Vec<String> = file
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// The layer of a module path: the index of the longest prefix listed in [`LAYERS`].
fn layer_of(module: &str) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (index, (_, prefixes)) in LAYERS.iter().enumerate() {
        for prefix in *prefixes {
            let covers = module == *prefix || module.starts_with(&format!("{prefix}::"));
            if covers && best.is_none_or(|(len, _)| prefix.len() > len) {
                best = Some((prefix.len(), index));
            }
        }
    }
    best.map(|(_, index)| index)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments (line comments, doc comments included).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string literal (a URL) is rare in `src/`; good enough here.
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `crate::a::b::…` paths in `code` (identifier segments only).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut segments = Vec::new();
        let mut tail = rest;
        loop {
            let len = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            if len == 0 {
                break;
            }
            segments.push(tail[..len].to_string());
            tail = &tail[len..];
            match tail.strip_prefix("::") {
                Some(next) => tail = next,
                None => break,
            }
        }
        if !segments.is_empty() {
            paths.push(segments);
        }
    }
    paths
}

/// The `super::…` paths in `code`, a file of module `module`, as paths from the crate root
/// (`super` is the module's parent, for a folder's module file as for any other).
fn super_paths(code: &str, module: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().last();
        rest = &rest[at..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            rest = &rest["super::".len()..];
            continue;
        }
        let mut base: Vec<String> = module.split("::").map(str::to_string).collect();
        while let Some(next) = rest.strip_prefix("super::") {
            base.pop();
            rest = next;
        }
        let tail = crate_paths(&format!("crate::{rest}"));
        if let Some(first) = tail.into_iter().next() {
            let mut path = base;
            path.extend(first);
            paths.push(path);
        }
    }
    paths
}

#[test]
fn no_file_imports_from_a_layer_above_its_own_and_no_imports_form_a_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files
        .iter()
        .map(|f| (module_of(f.strip_prefix(&src).unwrap()), f.clone()))
        .collect();
    // The root's re-exports: `pub use a::b::{x, y};` lines of lib.rs.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for statement in code_of(&lib).split(';') {
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let path = statement[at + "pub use ".len()..].trim();
        let (base, names) = match path.find('{') {
            Some(open) => (
                path[..open].trim_end_matches("::").to_string(),
                path[open + 1..path.len() - 1].to_string(),
            ),
            None => match path.rsplit_once("::") {
                Some((base, name)) => (base.to_string(), name.to_string()),
                None => continue,
            },
        };
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            reexports.insert(name.to_string(), base.clone());
        }
    }
    let mut violations = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &modules {
        // `runtime/mod.rs` only wires its folders together.
        let exempt = module.is_empty()
            || module == "runtime"
            || module == "tests"
            || module.ends_with("::tests");
        if exempt {
            continue;
        }
        let Some(layer) = layer_of(module) else {
            violations.push(format!("{module}: in no layer (add it to LAYERS)"));
            continue;
        };
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut paths = crate_paths(&code);
        paths.extend(super_paths(&code, module));
        for mut path in paths {
            if path.len() == 1 {
                match reexports.get(&path[0]) {
                    Some(base) => path = base.split("::").map(str::to_string).collect(),
                    None => continue,
                }
            }
            // The longest prefix of the path that is a module of its own file.
            let target = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|m| modules.contains_key(m));
            let Some(target) = target else { continue };
            if &target == module || module.starts_with(&format!("{target}::")) {
                // Itself, or a parent folder's `mod.rs` (the items it wires).
                continue;
            }
            edges
                .entry(module.clone())
                .or_default()
                .insert(target.clone());
            match layer_of(&target) {
                Some(target_layer) if target_layer > layer => violations.push(format!(
                    "{module} ({}) imports {target} ({})",
                    LAYERS[layer].0, LAYERS[target_layer].0
                )),
                Some(_) => {}
                None => violations.push(format!("{target}: in no layer (add it to LAYERS)")),
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports that climb a layer:\n{}",
        violations.join("\n")
    );
    // No cycle between files: a depth-first search for a back edge.
    fn visit(
        module: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, bool>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(module) {
            Some(true) => return None,
            Some(false) => {
                let from = stack.iter().position(|m| m == module).unwrap();
                let mut cycle = stack[from..].to_vec();
                cycle.push(module.to_string());
                return Some(cycle);
            }
            None => {}
        }
        state.insert(module.to_string(), false);
        stack.push(module.to_string());
        for next in edges.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, state, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        state.insert(module.to_string(), true);
        None
    }
    let mut state = BTreeMap::new();
    for module in edges.keys() {
        if let Some(cycle) = visit(module, &edges, &mut state, &mut Vec::new()) {
            panic!("the imports form a cycle: {}", cycle.join(" -> "));
        }
    }
}

/// `par/` reaches the fork-join core through its door only (`runtime/scheduler/forkjoin/mod.rs`,
/// which declares or re-exports what `par/` uses): no path from a file under `par/` names a
/// file behind it (`forkjoin::thread::…`, or `thread::…` inside a `forkjoin::{…}` group).
#[test]
fn par_reaches_the_fork_join_core_through_its_door_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut behind = Vec::new();
    rust_files(&src.join("runtime/scheduler/forkjoin"), &mut behind);
    let behind: BTreeSet<String> = behind
        .iter()
        .map(|f| module_of(f.strip_prefix(&src).unwrap()))
        .filter_map(|m| m.rsplit("::").next().map(str::to_string))
        .filter(|name| name != "forkjoin")
        .collect();
    assert!(
        behind.contains("thread"),
        "the check found no file behind the door"
    );
    let mut files = Vec::new();
    rust_files(&src.join("par"), &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut rest = code.as_str();
        while let Some(at) = rest.find("forkjoin::") {
            rest = &rest[at + "forkjoin::".len()..];
            // The names this path reaches: one segment, or a `{…}` group's first segments.
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(str::trim)
                    .filter(|name| name.contains("::"))
                    .filter_map(|name| name.split("::").next())
                    .collect(),
                None => {
                    let len = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if rest[len..].starts_with("::") {
                        vec![&rest[..len]]
                    } else {
                        Vec::new()
                    }
                }
            };
            for name in names {
                if behind.contains(name) {
                    violations.push(format!(
                        "{}: forkjoin::{name}::…",
                        file.strip_prefix(&src).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(
        violations.is_empty(),
        "par/ reaches behind the fork-join door (import from forkjoin/mod.rs):\n{}",
        violations.join("\n")
    );
}

/// No two private types of `src/` share a name (a `struct`, `enum`, `type` or `trait` at a
/// file's top level that is not `pub`, or only `pub(crate)`/`pub(super)`): a name then says
/// which one is meant. Public types follow rayon's module layout (an `Iter` per source), and a
/// file may define one name twice under two `cfg`s.
#[test]
fn no_two_private_types_share_a_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        let module = module_of(file.strip_prefix(&src).unwrap());
        if name == "tests.rs" || module.ends_with("loom_model") || module.ends_with("::tests") {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for line in code.lines() {
            // Top level only: associated types and items in blocks are indented.
            let rest = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub(super) "))
                .unwrap_or(line);
            if rest.starts_with("pub ") {
                continue;
            }
            let Some(after) = ["struct ", "enum ", "type ", "trait "]
                .iter()
                .find_map(|kw| rest.strip_prefix(kw))
            else {
                continue;
            };
            let ident: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !ident.is_empty() {
                seen.entry(ident)
                    .or_default()
                    .insert(file.strip_prefix(&src).unwrap().display().to_string());
            }
        }
    }
    let twice: Vec<String> = seen
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(name, files)| {
            format!(
                "{name}: {}",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    assert!(
        twice.is_empty(),
        "private types defined twice:\n{}",
        twice.join("\n")
    );
}
