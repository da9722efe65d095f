//! horde's modules stand in layers: a module names another's items (a `use crate::x`, a
//! `crate::x::...` path, a doc link) only when that module stands on a lower floor. Read from
//! the source, each `crate::` reference of each top-level module under `src/`; an edge that
//! points sideways or up fails, named with the file and line it is on, and so does a module
//! the floors below do not place. `lib.rs` wires every module on top; the test harnesses
//! (`fuzz`, `headless`) drive the whole server from above it.
//!
//! The README's Layout section draws the same floors. A new concern goes on the lowest floor
//! that has everything it uses; what two modules of one floor would share goes down, into
//! `common` (shared words), `blocks` (vanilla's block facts) or `schedule` (the tick's stages).
//!
//! Needs nothing but the standard library, so it can also be run on another tree:
//! `rustc --edition 2021 --test tests/layers.rs -o layers && (cd OTHER && ./layers)`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The floors, lowest first. `lib` is the crate root (`lib.rs`).
const FLOORS: &[(&str, &[&str])] = &[
    (
        "foundations: no game",
        &["schedule", "random", "grid", "service", "scratch"],
    ),
    (
        "vanilla's facts and the game's shared words",
        &["files", "blocks", "combat", "common", "metrics"],
    ),
    ("vanilla's light", &["light"]),
    ("configuration", &["config"]),
    ("the server: world and status", &["world", "status"]),
    ("the server: clock and who may join", &["time", "access"]),
    ("the server: weather", &["weather"]),
    (
        "the save: its files, the autosave, the interface each plugin saves through",
        &["save"],
    ),
    ("the game: players", &["player", "chat", "show"]),
    ("the game: zombies", &["zombie"]),
    (
        "the game: what zombies and players set off",
        &[
            "items", "menu", "sleep", "sign", "noise", "daylight", "pack", "hunt",
        ],
    ),
    (
        "the game: what builds on those",
        &["building", "experience", "spawning"],
    ),
    ("around the game: the live map", &["map"]),
    ("the operator's console", &["console"]),
    ("wiring", &["lib"]),
    ("harnesses", &["fuzz", "headless"]),
];

/// A reference from one module to another, where it is written.
#[derive(Debug)]
struct Edge {
    from: String,
    to: String,
    at: String,
}

/// The top-level modules under `src`, each with its files.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut found = BTreeMap::new();
    for entry in fs::read_dir(src).expect("src/ is readable") {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let mut files = Vec::new();
            rust_files(&path, &mut files);
            found.insert(name, files);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "main" {
            found.insert(name, vec![path]);
        }
    }
    found
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The first names of the paths written after each `crate::` in `text`, with their lines: `x`
/// for `crate::x::y`, and `x`, `y` for `crate::{x::a, y}`.
fn crate_references(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find("crate::") {
        let start = from + i;
        from = start + "crate::".len();
        // `pub(crate)`, `in crate::x` and `$crate::` are not references to another module.
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'$') {
            continue;
        }
        let line = text[..start].matches('\n').count() + 1;
        let rest = &text[from..];
        let names = if let Some(group) = rest.strip_prefix('{') {
            top_level_names(group)
        } else {
            vec![leading_name(rest)]
        };
        found.extend(
            names
                .into_iter()
                .filter(|n| !n.is_empty())
                .map(|n| (n, line)),
        );
    }
    found
}

fn leading_name(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The first name of each entry of a `{...}` group (its text after the opening brace).
fn top_level_names(group: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth = 0;
    let mut at_entry = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_entry = true,
            c if at_entry && !c.is_whitespace() => {
                at_entry = false;
                if depth == 0 {
                    names.push(leading_name(&group[i..]));
                }
            }
            _ => {}
        }
    }
    names
}

/// Every reference of one module to another; the crate root's items count as `lib`.
fn edges(src: &Path) -> Vec<Edge> {
    let modules = modules(src);
    let mut edges = Vec::new();
    for (module, files) in &modules {
        if module == "lib" {
            continue;
        }
        for file in files {
            let text = fs::read_to_string(file).unwrap();
            for (name, line) in crate_references(&text) {
                let to = if modules.contains_key(&name) && name != "lib" {
                    name
                } else {
                    "lib".to_string()
                };
                if &to != module {
                    edges.push(Edge {
                        from: module.clone(),
                        to,
                        at: format!(
                            "{}:{line}",
                            file.strip_prefix(src).unwrap_or(file).display()
                        ),
                    });
                }
            }
        }
    }
    edges
}

fn floor_of(module: &str) -> Option<usize> {
    FLOORS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// What is wrong with the tree at `src`: unplaced modules, and edges that do not point down.
fn violations(src: &Path) -> Vec<String> {
    let mut wrong = Vec::new();
    for module in modules(src).keys() {
        if floor_of(module).is_none() {
            wrong.push(format!(
                "src/{module} stands on no floor: add it to FLOORS here and to the README's Layout"
            ));
        }
    }
    for edge in edges(src) {
        let (Some(from), Some(to)) = (floor_of(&edge.from), floor_of(&edge.to)) else {
            continue;
        };
        if to >= from {
            let how = if to == from { "beside it" } else { "above it" };
            wrong.push(format!(
                "{} reaches {how} to {} at src/{} ({:?} is on floor {from}, {:?} on {to})",
                edge.from, edge.to, edge.at, FLOORS[from].0, FLOORS[to].0
            ));
        }
    }
    wrong
}

fn src() -> PathBuf {
    Path::new(option_env!("CARGO_MANIFEST_DIR").unwrap_or(".")).join("src")
}

#[test]
fn every_module_reaches_only_down() {
    let wrong = violations(&src());
    assert!(
        wrong.is_empty(),
        "{} references break the layers:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_floor_module_exists() {
    let modules = modules(&src());
    for (floor, names) in FLOORS {
        for name in *names {
            assert!(
                *name == "lib" || modules.contains_key(*name),
                "{name} (floor {floor:?}) is not a module under src/"
            );
        }
    }
}

#[test]
fn references_are_read_as_written() {
    let text = "use crate::world::{Overworld, Voxels};\n\
                use crate::{daylight, hunt::Hunts, pack::{self, Packs}};\n\
                pub(crate) fn f() {}\n\
                /// See [`crate::zombie::Body`].\n\
                let x = crate::config::Config::default();\n\
                pub(in crate::zombie) until: u64,\n";
    let names: Vec<_> = crate_references(text)
        .into_iter()
        .map(|(n, line)| format!("{n}@{line}"))
        .collect();
    assert_eq!(
        names,
        [
            "world@1",
            "daylight@2",
            "hunt@2",
            "pack@2",
            "zombie@4",
            "config@5",
            "zombie@6"
        ]
    );
}

#[test]
fn an_edge_up_is_caught() {
    let dir = std::env::temp_dir().join(format!("horde-layers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("player")).unwrap();
    fs::create_dir_all(dir.join("zombie")).unwrap();
    fs::write(dir.join("lib.rs"), "pub mod player;\npub mod zombie;\n").unwrap();
    fs::write(dir.join("player/mod.rs"), "use crate::zombie::Zombie;\n").unwrap();
    fs::write(dir.join("zombie/mod.rs"), "use crate::player::Dead;\n").unwrap();
    fs::write(dir.join("mystery.rs"), "").unwrap();
    let wrong = violations(&dir);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(wrong.len(), 2, "{wrong:#?}");
    assert!(wrong[0].starts_with("src/mystery stands on no floor"));
    assert!(wrong[1].starts_with("player reaches above it to zombie at src/player/mod.rs:1"));
}
