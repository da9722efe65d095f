//! A sign's text as vanilla 1.20.1 edits it: which side a player faces, whether its text may
//! be edited, and the lines a client sends made into the sign's messages.

use serde_json::Value as Json;
use valence::math::DVec3;
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use crate::blocks::support::horizontal;
use crate::world::block_entities::EMPTY_LINE;

/// How near a player stays to write on a sign: 8 blocks from its corner, squared
/// (`SignBlockEntity.playerIsTooFarAwayToEdit`).
pub const EDIT_REACH_SQUARED: f64 = 64.0;

/// The longest line a client may send (`ServerboundSignUpdatePacket`'s 384 characters).
const LONGEST_LINE: usize = 384;

/// The keys of a text component's style, which a line keeps when it is written over.
const STYLE: [&str; 10] = [
    "color",
    "bold",
    "italic",
    "underlined",
    "strikethrough",
    "obfuscated",
    "clickEvent",
    "hoverEvent",
    "insertion",
    "font",
];

/// The key of a sign's side in its block entity.
fn side(front: bool) -> &'static str {
    if front {
        "front_text"
    } else {
        "back_text"
    }
}

/// A line as a client sent it, as vanilla keeps it: formatting codes (`§` and one of
/// `0-9a-fk-or`) taken out (`ChatFormatting.stripFormatting`), no longer than the packet allows.
pub fn clean_line(raw: &str) -> String {
    let mut line = String::with_capacity(raw.len());
    let mut chars = raw.chars().take(LONGEST_LINE);
    while let Some(c) = chars.next() {
        if c == '§' {
            match chars.clone().next() {
                Some(code) if matches!(code.to_ascii_lowercase(), '0'..='9' | 'a'..='f' | 'k'..='o' | 'r') =>
                {
                    chars.next();
                    continue;
                }
                _ => {}
            }
        }
        line.push(c);
    }
    line
}

/// The messages of one side of `sign`.
fn messages(sign: &Compound, front: bool) -> Vec<String> {
    match sign.get(side(front)) {
        Some(Value::Compound(text)) => match text.get("messages") {
            Some(Value::List(List::String(lines))) => lines.clone(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Whether a message is plain text a player may write over (`SignBlock.hasEditableText`: an
/// empty line, or a component whose own content is literal text, not a translation, a score
/// or a selector).
fn plain(message: &str) -> bool {
    match serde_json::from_str::<Json>(message) {
        Ok(Json::String(_)) => true,
        Ok(Json::Object(component)) => component.contains_key("text"),
        Ok(Json::Array(parts)) => parts.first().is_some_and(|first| {
            first.is_string() || first.as_object().is_some_and(|c| c.contains_key("text"))
        }),
        _ => false,
    }
}

/// Whether `sign` is waxed, so that no one may edit it.
pub fn waxed(sign: &Compound) -> bool {
    matches!(sign.get("is_waxed"), Some(Value::Byte(b)) if *b != 0)
}

/// Whether a player may write on a side of `sign`: it is not waxed and all its text is plain.
pub fn editable(sign: &Compound, front: bool) -> bool {
    !waxed(sign) && messages(sign, front).iter().all(|m| plain(m))
}

/// `sign` with one side's text set to `lines`, each a literal text keeping the style its line
/// had (`SignBlockEntity.setMessages`); the side's filtered text, which would differ, goes.
pub fn written(mut sign: Compound, front: bool, lines: &[String; 4]) -> Compound {
    let old = messages(&sign, front);
    let mut text = match sign.remove(side(front)) {
        Some(Value::Compound(text)) => text,
        _ => Compound::new(),
    };
    let lines = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut component = serde_json::Map::new();
            component.insert("text".into(), Json::String(line.clone()));
            let before = old.get(i).map_or(EMPTY_LINE, String::as_str);
            if let Ok(Json::Object(style)) = serde_json::from_str::<Json>(before) {
                for key in STYLE {
                    if let Some(v) = style.get(key) {
                        component.insert(key.into(), v.clone());
                    }
                }
            }
            Json::Object(component).to_string()
        })
        .collect();
    text.insert("messages", List::String(lines));
    text.remove("filtered_messages");
    if !text.contains_key("color") {
        text.insert("color", "black");
    }
    if !text.contains_key("has_glowing_text") {
        text.insert("has_glowing_text", false);
    }
    sign.insert(side(front), text);
    sign
}

/// Whether a player standing at `player` sees the front of the sign `state` at `at`
/// (`SignBlockEntity.isFacingFrontText`): the sign's turn and the way from its middle to the
/// player are at most a quarter turn apart.
pub fn faces_front(state: BlockState, at: BlockPos, player: DVec3) -> bool {
    let (turn, centre) = if let Some(r) = state.get(PropName::Rotation) {
        (f64::from(r.to_u16().unwrap_or(0)) * 22.5, (0.5, 0.5))
    } else {
        let facing = state.get(PropName::Facing).and_then(horizontal);
        let hanging = state.to_kind().to_str().ends_with("_hanging_sign");
        // A wall sign's board lies against its wall (`WallSignBlock.AABBS`).
        let (turn, centre) = match facing {
            Some(Direction::South) => (0.0, (0.5, 1.0 / 16.0)),
            Some(Direction::West) => (90.0, (15.0 / 16.0, 0.5)),
            Some(Direction::North) => (180.0, (0.5, 15.0 / 16.0)),
            _ => (270.0, (1.0 / 16.0, 0.5)),
        };
        (turn, if hanging { (0.5, 0.5) } else { centre })
    };
    let dx = player.x - (at.x as f64 + centre.0);
    let dz = player.z - (at.z as f64 + centre.1);
    let towards = dz.atan2(dx).to_degrees() - 90.0;
    let apart = (towards - turn).rem_euclid(360.0);
    apart.min(360.0 - apart) <= 90.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::block_entities::blank_sign;

    fn lines(sign: &Compound, front: bool) -> Vec<String> {
        messages(sign, front)
    }

    #[test]
    fn lines_lose_formatting_codes_and_what_is_too_long() {
        assert_eq!(clean_line("§cRed§R and §§plain §x"), "Red and §§plain §x");
        assert_eq!(clean_line(&"x".repeat(500)).len(), 384);
        assert_eq!(clean_line("Ünïcode ok"), "Ünïcode ok");
    }

    #[test]
    fn written_lines_become_literal_text_on_their_side_keeping_their_style() {
        let sign = blank_sign();
        let text = [
            "Keep".to_owned(),
            "\"out\"".into(),
            String::new(),
            "4".into(),
        ];
        let sign = written(sign, true, &text);
        let front = lines(&sign, true);
        assert_eq!(front[0], r#"{"text":"Keep"}"#);
        assert_eq!(front[1], r#"{"text":"\"out\""}"#);
        assert_eq!(front[2], EMPTY_LINE);
        assert_eq!(
            lines(&sign, false),
            vec![EMPTY_LINE.to_owned(); 4],
            "back as it was"
        );
        assert!(editable(&sign, true));

        let mut red = sign.clone();
        if let Some(Value::Compound(t)) = red.get_mut("front_text") {
            t.insert(
                "messages",
                List::String(vec![r#"{"text":"a","color":"red"}"#.into(); 4]),
            );
        }
        let again = written(red, true, &text);
        let first: Json = serde_json::from_str(&lines(&again, true)[0]).unwrap();
        assert_eq!(first, serde_json::json!({"text": "Keep", "color": "red"}));
    }

    #[test]
    fn a_waxed_sign_or_one_with_a_translation_is_not_edited() {
        let mut sign = blank_sign();
        assert!(editable(&sign, true) && editable(&sign, false));
        if let Some(Value::Compound(t)) = sign.get_mut("back_text") {
            t.insert(
                "messages",
                List::String(vec![r#"{"translate":"block.minecraft.stone"}"#.into(); 4]),
            );
        }
        assert!(editable(&sign, true) && !editable(&sign, false));
        sign.insert("is_waxed", true);
        assert!(waxed(&sign) && !editable(&sign, true));
        assert!(plain(r#""just a string""#) && plain(r#"[{"text":"a"},"b"]"#));
    }

    #[test]
    fn the_front_is_the_side_the_sign_was_turned_to() {
        let at = BlockPos::new(10, 64, 10);
        // Placed by a player looking south: turned half round, its front to the north.
        let standing = BlockState::OAK_SIGN.set(PropName::Rotation, PropValue::_8);
        assert!(faces_front(standing, at, DVec3::new(10.5, 64.0, 7.0)));
        assert!(!faces_front(standing, at, DVec3::new(10.5, 64.0, 14.0)));
        // On a wall, facing east: its front to the east.
        let wall = BlockState::OAK_WALL_SIGN.set(PropName::Facing, PropValue::East);
        assert!(faces_front(wall, at, DVec3::new(13.0, 64.0, 10.5)));
        assert!(!faces_front(wall, at, DVec3::new(8.0, 64.0, 10.5)));
    }
}
