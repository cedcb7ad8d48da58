//! Docs that stay true: every repository file or folder that a doc names exists, and every
//! `crate::` path that a doc names leads to a module and an item of the crate. A failure
//! lists each broken reference as `file:line: `path``, the file relative to the repository
//! root. The rules:
//!
//! - **What is read:** the doc comments (`//!` and `///` lines) of every `.rs` file in the
//!   repository and every Markdown file (ARCHITECTURE.md, README.md, `docs/`, the protocol
//!   READMEs beside the code), leaving out `target/`, hidden folders, the code blocks of doc
//!   comments (doctests), and the two records that name files as they were when written:
//!   CHANGELOG.md and docs/benchmarks.md (dated measurements).
//! - **What is a path:** the text of a code span, each word of a code span that holds a
//!   command (`bash benches/http_syscalls.sh`), each word of a Markdown fenced block (so
//!   ARCHITECTURE.md's layers table, and README's commands), and each Markdown link's
//!   target, after {a,b} alternatives are expanded (`tests/{executor,io}/main.rs` is two
//!   paths; in a fenced block, spaces inside the braces are allowed). A word, with quotes,
//!   brackets and `,;:` taken off its ends, is a path when it is made of path characters
//!   (letters, digits, `_`, `-`, `.`, `/`), does not start with `/` (the OS's files) or name
//!   target/, and either ends in `/` (a folder), or ends in one of [`EXTENSIONS`]
//!   (`Cargo.toml`, `lib.rs`), or starts with a top-level folder of the repository
//!   (`integrations/examples/axum_app`, `.ci/run`). So a placeholder such as x/tests.rs is written
//!   without backticks.
//! - **Where it may be:** a path resolves if it exists relative to the repository root,
//!   `src/`, the doc's own folder, the folder of the doc's module (x/ beside x.rs), any
//!   folder above the doc's own (from `src/runtime/scheduler/forkjoin/`, worker/schedule.rs
//!   is `src/runtime/scheduler/worker/schedule.rs`), or the folder of a path named earlier
//!   in the same paragraph (a Markdown bullet, table, fenced block or paragraph, or a run of
//!   doc lines up to a blank one), or a folder above that one: after `src/par/loops/`, `watched.rs` is
//!   `src/par/loops/watched.rs`.
//! - **Another project's files:** a code span right after a peer crate's name (one of
//!   [`PEERS`]), possessive or with a version, with only other code spans, punctuation,
//!   versions and [`CITATION_WORDS`] between, is that crate's file and is not checked
//!   ("tokio's `tests/tcp_split.rs` and `tests/tcp_into_split.rs`", "rayon-core 1.13.0,
//!   `src/test.rs`").
//! - **Items:** a code span that starts with `crate::` (`crate::runtime::task::id::Id`) must
//!   name a module of `src/` (its longest prefix that is one), then an item defined or
//!   re-exported in that module's file (`fn`, `struct`, `enum`, `trait`, `type`, `const`,
//!   `static`, `mod`, `union`, `macro_rules!`, or a `use` naming it), then members that exist
//!   somewhere in `src/` (`fn name` for a lowercase one, the word for any other).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Extensions that make a lone file name (`Cargo.toml`, `lib.rs`) a path. Not `.svg`: the
/// plots that the scatter-gather example writes are named without a folder; the committed
/// ones are linked (a link's target is always checked).
const EXTENSIONS: &[&str] = &["rs", "md", "toml", "sh", "stderr", "lock"];

/// Markdown files that record the past (dated), whose paths were true when written.
const RECORDS: &[&str] = &["CHANGELOG.md", "docs/benchmarks.md"];

/// Crates whose files filch's docs cite (ported tests, models); "tokio's `x.rs`" is theirs.
const PEERS: &[&str] = &[
    "tokio",
    "rayon",
    "rayon-core",
    "smol",
    "async-executor",
    "async-io",
    "async-task",
    "event-listener",
    "crossbeam",
    "crossbeam-deque",
    "mio",
    "loom",
    "hyper",
    "hyper-util",
    "axum",
    "tonic",
    "quinn",
    "reqwest",
    "criterion",
];

/// One paragraph of docs: its lines, joined by `\n`, and the line number of each.
#[derive(Default)]
struct Paragraph {
    text: String,
    /// The 1-based line of the file where each line of `text` starts.
    lines: Vec<usize>,
    /// A Markdown fenced block: its words are read, not its code spans.
    fenced: bool,
}

impl Paragraph {
    fn push(&mut self, line: &str, number: usize) {
        if !self.lines.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(line);
        self.lines.push(number);
    }
}

impl Paragraph {
    fn line_at(&self, offset: usize) -> usize {
        let index = self.text[..offset].matches('\n').count();
        self.lines[index]
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                walk(&path, out);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The paragraphs of a Rust file's doc comments, code blocks left out.
fn rust_paragraphs(text: &str) -> Vec<Paragraph> {
    let mut paragraphs = Vec::new();
    let mut current = Paragraph::default();
    let mut in_code = false;
    let mut flush = |current: &mut Paragraph| {
        if !current.lines.is_empty() {
            paragraphs.push(std::mem::take(current));
        }
    };
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let doc = trimmed
            .strip_prefix("//!")
            .or_else(|| trimmed.strip_prefix("///").filter(|d| !d.starts_with('/')));
        let Some(doc) = doc else {
            in_code = false;
            flush(&mut current);
            continue;
        };
        let doc = doc.trim();
        if doc.starts_with("```") {
            in_code = !in_code;
            flush(&mut current);
            continue;
        }
        if in_code {
            continue;
        }
        if doc.is_empty() || doc.starts_with("- ") || doc.starts_with('#') {
            flush(&mut current);
            if doc.is_empty() {
                continue;
            }
        }
        current.push(doc, index + 1);
    }
    flush(&mut current);
    paragraphs
}

/// The paragraphs of a Markdown file (a bullet, a table or a heading starts one), each
/// fenced block one paragraph of its own.
fn markdown_paragraphs(text: &str) -> Vec<Paragraph> {
    let mut paragraphs = Vec::new();
    let mut current = Paragraph::default();
    let mut in_code = false;
    let mut in_table = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            // A fence ends the paragraph before it, and opens or closes a block.
            if !current.lines.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
            in_code = !in_code;
            current.fenced = in_code;
            in_table = false;
            continue;
        }
        if in_code {
            current.push(line, index + 1);
            continue;
        }
        // A table is one paragraph: its header may name the folder of its rows' files.
        let table_row = trimmed.starts_with('|');
        let starts_block = trimmed.is_empty()
            || trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.starts_with('#')
            || (table_row && !in_table);
        in_table = table_row;
        if starts_block && !current.lines.is_empty() {
            paragraphs.push(std::mem::take(&mut current));
        }
        if !trimmed.is_empty() {
            current.push(trimmed, index + 1);
        }
    }
    if !current.lines.is_empty() {
        paragraphs.push(current);
    }
    paragraphs
}

/// The words of a fenced block that may be paths, with their byte offsets: spaces inside
/// {a, b} alternatives are dropped, so that the group stays one word.
fn fenced_words(text: &str) -> Vec<(usize, String)> {
    let mut words = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        let mut joined = String::new();
        let mut depth = 0usize;
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                ' ' if depth > 0 => continue,
                _ => {}
            }
            joined.push(c);
        }
        for word in joined.split_whitespace() {
            words.push((offset, word.to_string()));
        }
        offset += line.len() + 1;
    }
    words
}

/// The code spans of a paragraph: (byte offset of the span's text, the text).
fn code_spans(text: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find('`') {
        let open = rest + open;
        // A run of backticks opens a span that the same run closes.
        let ticks = text[open..].chars().take_while(|&c| c == '`').count();
        let fence = &text[open..open + ticks];
        let start = open + ticks;
        match text[start..].find(fence) {
            Some(len) => {
                spans.push((start, text[start..start + len].trim()));
                rest = start + len + ticks;
            }
            None => break,
        }
    }
    spans
}

/// The targets of a Markdown paragraph's links that lead into the repository
/// (`[text](docs/par.md)`): (byte offset, target without its `#anchor`).
fn link_targets(text: &str) -> Vec<(usize, &str)> {
    let mut targets = Vec::new();
    for (at, _) in text.match_indices("](") {
        let start = at + 2;
        let Some(len) = text[start..].find(')') else {
            continue;
        };
        let target = text[start..start + len].split('#').next().unwrap().trim();
        if !target.is_empty() && !target.contains(':') {
            targets.push((start, target));
        }
    }
    targets
}

/// {a,b} alternatives expanded (x/{a, b}.rs is x/a.rs and x/b.rs).
fn expand(token: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (token.find('{'), token.find('}')) else {
        return vec![token.to_string()];
    };
    if close < open {
        return vec![token.to_string()];
    }
    token[open + 1..close]
        .split(',')
        .flat_map(|alt| {
            expand(&format!(
                "{}{}{}",
                &token[..open],
                alt.trim(),
                &token[close + 1..]
            ))
        })
        .collect()
}

/// Whether a word of a code span is a repository path, by the rules of the module doc.
fn is_path(word: &str, top_level: &BTreeSet<String>) -> bool {
    let path_chars = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    if !path_chars || word.starts_with('/') || (word.contains("..") && !word.starts_with("../")) {
        return false;
    }
    let segments: Vec<&str> = word.trim_end_matches('/').split('/').collect();
    if segments.iter().any(|s| s.is_empty()) || segments[0] == "target" {
        return false;
    }
    let last = segments[segments.len() - 1];
    let extension = last
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext));
    let first_is_top = segments.len() > 1 && top_level.contains(segments[0]);
    word.ends_with('/') || extension || first_is_top
}

/// Words that may stand between a peer crate's name and the paths of its files that follow
/// ("tokio's own tests (tokio 1.54.1, `a.rs` and `b.rs`)").
const CITATION_WORDS: &[&str] = &["and", "or", "own", "tests", "test", "of", "from", "s"];

/// Whether the text before `offset` cites a peer crate's files: the crate's name,
/// possessive or with a version, followed only by other code spans, punctuation, versions
/// and [`CITATION_WORDS`].
fn cites_a_peer(text: &str, offset: usize) -> bool {
    // The code span's opening backtick is the byte before `offset`.
    let before = &text[..offset.saturating_sub(1)];
    PEERS.iter().any(|peer| {
        before.match_indices(peer).any(|(at, _)| {
            let boundary = before[..at]
                .chars()
                .last()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
            let after = &before[at + peer.len()..];
            let cited = after.starts_with("'s")
                || after
                    .strip_prefix(' ')
                    .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()));
            boundary && cited && only_citation_words(after)
        })
    })
}

/// Whether `gap` holds nothing but code spans, punctuation, versions and
/// [`CITATION_WORDS`].
fn only_citation_words(gap: &str) -> bool {
    let mut outside = String::new();
    for (index, piece) in gap.split('`').enumerate() {
        if index % 2 == 0 {
            outside.push_str(piece);
            outside.push(' ');
        }
    }
    outside
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '(' | ')' | '\''))
        .filter(|word| !word.is_empty())
        .all(|word| {
            CITATION_WORDS.contains(&word) || word.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
}

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

/// Whether `word` occurs in `text` as a whole identifier right after `prefix`.
fn has_word_after(text: &str, prefix: &str, word: &str) -> bool {
    let needle = format!("{prefix}{word}");
    text.match_indices(&needle).any(|(at, _)| {
        let before_ok = text[..at]
            .chars()
            .last()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let after_ok = text[at + needle.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        before_ok && after_ok
    })
}

/// Whether a module's file defines or re-exports `item`.
fn defines(code: &str, item: &str) -> bool {
    const KINDS: &[&str] = &[
        "fn ",
        "struct ",
        "enum ",
        "trait ",
        "type ",
        "const ",
        "static ",
        "mod ",
        "union ",
        "macro_rules! ",
    ];
    KINDS.iter().any(|kind| has_word_after(code, kind, item))
        || code
            .split(';')
            .filter(|statement| statement.contains("use "))
            .any(|statement| has_word_after(statement, "", item))
}

/// Why a `crate::` path names nothing, if it does not.
fn check_crate_path(
    path: &str,
    modules: &BTreeMap<String, String>,
    all_code: &str,
) -> Option<String> {
    let path = path.trim_end_matches("()").trim_end_matches("::");
    let path = path.split('<').next().unwrap();
    let segments: Vec<&str> = path.split("::").skip(1).collect();
    if segments
        .iter()
        .any(|s| s.is_empty() || !s.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        return None;
    }
    let module_len = (0..=segments.len())
        .rev()
        .find(|&n| modules.contains_key(&segments[..n].join("::")))
        .unwrap();
    let rest = &segments[module_len..];
    // A path that ends at a module names that module.
    let (item, members) = rest.split_first()?;
    let module = segments[..module_len].join("::");
    if !defines(&modules[&module], item) {
        return Some(format!("no `{item}` in module `crate::{module}`"));
    }
    for member in members {
        let found = if member.starts_with(|c: char| c.is_lowercase()) {
            has_word_after(all_code, "fn ", member)
        } else {
            has_word_after(all_code, "", member)
        };
        if !found {
            return Some(format!("no `{member}` in `src/`"));
        }
    }
    None
}

#[test]
fn every_path_and_crate_item_a_doc_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let top_level: BTreeSet<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .filter(|name| name != "target" && name != ".git")
        .collect();

    let mut files = Vec::new();
    walk(root, &mut files);
    files.sort();
    // The crate's modules and their code, for the `crate::` paths.
    let mut modules = BTreeMap::new();
    let mut all_code = String::new();
    for file in files.iter().filter(|f| f.starts_with(&src)) {
        if file.extension().is_some_and(|e| e == "rs") {
            let code = std::fs::read_to_string(file).unwrap();
            all_code.push_str(&code);
            modules.insert(module_of(file.strip_prefix(&src).unwrap()), code);
        }
    }

    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let relative = file.strip_prefix(root).unwrap();
        let shown = relative.to_string_lossy().to_string();
        if RECORDS.contains(&shown.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let paragraphs = if shown.ends_with(".md") {
            markdown_paragraphs(&text)
        } else {
            rust_paragraphs(&text)
        };
        // The bases every path of this file may be relative to.
        let folder = file.parent().unwrap();
        let mut bases: Vec<PathBuf> = vec![root.to_path_buf(), src.clone()];
        let stem = file.file_stem().unwrap().to_string_lossy();
        if shown.ends_with(".rs") && !["mod", "lib", "main"].contains(&stem.as_ref()) {
            bases.push(folder.join(stem.as_ref()));
        }
        bases.extend(
            folder
                .ancestors()
                .take_while(|a| a.starts_with(root))
                .map(Path::to_path_buf),
        );
        for paragraph in &paragraphs {
            // The paragraph's paths, in order: the folders of those found are bases for
            // the ones after them.
            let mut paths: Vec<(usize, String)> = Vec::new();
            // (offset, text) of each code span, or of each word of a fenced block.
            let spans: Vec<(usize, String)> = if paragraph.fenced {
                fenced_words(&paragraph.text)
            } else {
                code_spans(&paragraph.text)
                    .into_iter()
                    .map(|(offset, span)| (offset, span.to_string()))
                    .collect()
            };
            for (offset, span) in spans {
                if span.starts_with("crate::") && !paragraph.fenced {
                    checked += 1;
                    if let Some(why) = check_crate_path(&span, &modules, &all_code) {
                        let line = paragraph.line_at(offset);
                        broken.push(format!("{shown}:{line}: `{span}` ({why})"));
                    }
                    continue;
                }
                let mut words = Vec::new();
                for expanded in expand(&span) {
                    for word in expanded.split_whitespace() {
                        let word = word.trim_matches(|c: char| {
                            matches!(c, '"' | '\'' | '(' | ')' | '[' | ']' | ';' | ',' | ':')
                        });
                        if is_path(word, &top_level) {
                            words.push((offset, word.to_string()));
                        }
                    }
                }
                if !words.is_empty() && !cites_a_peer(&paragraph.text, offset) {
                    paths.extend(words);
                }
            }
            if shown.ends_with(".md") {
                for (offset, target) in link_targets(&paragraph.text) {
                    paths.push((offset, target.to_string()));
                }
                paths.sort_by_key(|(offset, _)| *offset);
            }
            let mut context: Vec<PathBuf> = Vec::new();
            for (offset, path) in paths {
                checked += 1;
                let folder_only = path.ends_with('/');
                let found = bases
                    .iter()
                    .chain(&context)
                    .map(|base| base.join(&path))
                    .find(|p| if folder_only { p.is_dir() } else { p.exists() });
                let Some(found) = found else {
                    let line = paragraph.line_at(offset);
                    broken.push(format!("{shown}:{line}: `{path}`"));
                    continue;
                };
                let dir = if found.is_dir() {
                    found
                } else {
                    found.parent().unwrap().to_path_buf()
                };
                context.extend(
                    dir.ancestors()
                        .take_while(|a| a.starts_with(root) && *a != root)
                        .map(Path::to_path_buf),
                );
            }
        }
    }
    broken.dedup();
    assert!(
        broken.is_empty(),
        "{} doc references name no file, folder or item of the repository \
         (rules: tests/executor/doc_paths.rs):\n{}",
        broken.len(),
        broken.join("\n")
    );
    // The check reads what it should: the docs name hundreds of paths.
    assert!(checked > 300, "only {checked} references checked");
}
