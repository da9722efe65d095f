//! The pack module is player-blind: nothing under `src/pack/` may name a player type, a
//! player's component or a query that could return one. Packs pick where to go from their own
//! heading and seeded walk; a pack that arrives at someone's base was passing by.

use std::path::Path;

/// Names that reach for players: their marker and components, their identity, and the
/// modules that hold them.
const FORBIDDEN: &[&str] = &[
    "Client",
    "Username",
    "UniqueId",
    "GameMode",
    "ViewDistance",
    "Inventory",
    "HeldItem",
    "Dead",
    "player",
    "Player",
    "spawning",
    "target",
    "hunt",
];

fn code_lines(path: &Path, out: &mut Vec<(String, usize, String)>) {
    for entry in std::fs::read_dir(path).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            code_lines(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                // Comments may talk about players; code may not touch them.
                let code = line.split("//").next().unwrap_or("");
                out.push((path.display().to_string(), n + 1, code.to_string()));
            }
        }
    }
}

fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

#[test]
fn nothing_under_src_pack_reaches_for_a_player() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pack");
    let mut lines = Vec::new();
    code_lines(&root, &mut lines);
    assert!(lines.len() > 100, "the pack module is where it should be");
    let mut found = Vec::new();
    for (file, n, code) in &lines {
        for word in words(code) {
            if FORBIDDEN
                .iter()
                .any(|f| word == *f || word.contains("player") || word.contains("Player"))
            {
                found.push(format!("{file}:{n}: {}", code.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the pack module reaches for players:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_catches_a_player_query() {
    let sample = "fn peek(q: Query<&Position, With<Client>>) { let p = player_pos; }";
    let hits: Vec<&str> = words(sample)
        .filter(|w| FORBIDDEN.iter().any(|f| w == f) || w.contains("player"))
        .collect();
    assert_eq!(hits, vec!["Client", "player_pos"]);
}
