//! Operators' boss bars, as vanilla's `bossbar` command keeps them (`CustomBossEvents`): a
//! named bar with a value out of a maximum, a colour, a style, whether it shows, and the
//! players who see it (by UUID, so that one who leaves sees it again when back). Kept in the
//! world save; each bar is a Valence boss bar whose viewers follow who is online.

use std::collections::{BTreeMap, BTreeSet};

use valence::boss_bar::{
    BossBarBundle, BossBarColor, BossBarDivision, BossBarFlags, BossBarHealth, BossBarStyle,
    BossBarTitle, BossBarViewers,
};
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;
use valence::text::IntoText;

use crate::save::{read_world_keys, world_keys, DataFile, SaveApp, WorldKeys};

/// The colours a bar takes, by vanilla's names.
pub const COLORS: [(&str, BossBarColor); 7] = [
    ("pink", BossBarColor::Pink),
    ("blue", BossBarColor::Blue),
    ("red", BossBarColor::Red),
    ("green", BossBarColor::Green),
    ("yellow", BossBarColor::Yellow),
    ("purple", BossBarColor::Purple),
    ("white", BossBarColor::White),
];

/// The styles a bar takes, by vanilla's names.
pub const STYLES: [(&str, BossBarDivision); 5] = [
    ("progress", BossBarDivision::NoDivision),
    ("notched_6", BossBarDivision::SixNotches),
    ("notched_10", BossBarDivision::TenNotches),
    ("notched_12", BossBarDivision::TwelveNotches),
    ("notched_20", BossBarDivision::TwentyNotches),
];

/// One operator's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub name: Text,
    pub color: usize,
    pub style: usize,
    pub value: u32,
    pub max: u32,
    pub visible: bool,
    pub players: BTreeSet<uuid::Uuid>,
}

impl Bar {
    /// Vanilla's new bar: white, unnotched, 0 of 100, shown, to nobody.
    fn new(name: Text) -> Self {
        Self {
            name,
            color: COLORS.len() - 1,
            style: 0,
            value: 0,
            max: 100,
            visible: true,
            players: BTreeSet::new(),
        }
    }

    fn fill(&self) -> f32 {
        (self.value as f32 / self.max.max(1) as f32).clamp(0.0, 1.0)
    }
}

/// The bars by their namespaced id, each with the entity that shows it.
#[derive(Resource, Debug, Default)]
pub struct CustomBars {
    bars: BTreeMap<String, (Bar, Shown)>,
    /// The entities of bars removed, to despawn.
    dropped: Vec<Entity>,
}

/// The Valence boss bar that shows a bar, once spawned.
#[derive(Debug, Default)]
struct Shown {
    entity: Option<Entity>,
    /// New viewers waited a tick for a change of look: they go first next.
    viewers_waited: bool,
}

/// What `bossbar set` changes.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Name(Text),
    Color(usize),
    Style(usize),
    Value(u32),
    Max(u32),
    Visible(bool),
    /// Who sees it: their names and UUIDs.
    Players(Vec<(String, uuid::Uuid)>),
}

/// A bar's id as vanilla keeps it: `minecraft:` unless namespaced.
pub fn bar_id(id: &str) -> String {
    if id.contains(':') {
        id.to_owned()
    } else {
        format!("minecraft:{id}")
    }
}

pub(super) fn register(app: &mut App) {
    app.init_resource::<CustomBars>()
        .add_save_part(|world| world_keys(world.resource::<CustomBars>()))
        .add_load_part(DataFile::World, read_world_keys::<CustomBars>)
        .add_systems(Update, show_bars.in_set(crate::schedule::TickSet::Players));
}

/// Keeps each bar's Valence boss bar as the bar is: spawned and despawned with it, its look,
/// and its viewers the online players it is shown to.
fn show_bars(
    mut commands: Commands,
    mut bars: ResMut<CustomBars>,
    mut shown: Query<(
        &mut BossBarTitle,
        &mut BossBarHealth,
        &mut BossBarStyle,
        &mut BossBarViewers,
    )>,
    clients: Query<(Entity, &UniqueId), With<Client>>,
) {
    let bars = &mut *bars;
    // Despawned, a bar leaves every screen it was on.
    for entity in bars.dropped.drain(..) {
        commands.entity(entity).insert(Despawned);
    }
    for (bar, shown_by) in bars.bars.values_mut() {
        let Some(entity) = shown_by.entity else {
            let bundle = BossBarBundle::new(
                bar.name.clone(),
                COLORS[bar.color].1,
                STYLES[bar.style].1,
                BossBarFlags::new(),
            );
            shown_by.entity = Some(commands.spawn(bundle).id());
            continue;
        };
        let Ok((mut title, mut health, mut style, mut viewers)) = shown.get_mut(entity) else {
            continue;
        };
        let seeing: BTreeSet<Entity> = clients
            .iter()
            .filter(|(_, id)| bar.visible && bar.players.contains(&id.0))
            .map(|(entity, _)| entity)
            .collect();
        // Valence sends a change to every viewer, new ones too, before it adds the bar to
        // their screens, and a client sent a change to a bar it lacks fails: a tick changes
        // the bar's look or adds viewers, never both, taking turns when both wait.
        let (color, division) = (COLORS[bar.color].1, STYLES[bar.style].1);
        let restyled = style.color != color || style.division != division;
        let relooked = title.0 != bar.name || health.0 != bar.fill() || restyled;
        let joining = !seeing.is_subset(&viewers.viewers);
        if relooked && !(joining && shown_by.viewers_waited) {
            shown_by.viewers_waited = joining;
            if title.0 != bar.name {
                title.0 = bar.name.clone();
            }
            if health.0 != bar.fill() {
                health.0 = bar.fill();
            }
            if restyled {
                *style = BossBarStyle { color, division };
            }
            // Those who leave may go now.
            let staying: BTreeSet<Entity> =
                viewers.viewers.intersection(&seeing).copied().collect();
            if viewers.viewers != staying {
                viewers.viewers = staying;
            }
            continue;
        }
        shown_by.viewers_waited = false;
        if viewers.viewers != seeing {
            viewers.viewers = seeing;
        }
    }
}

impl CustomBars {
    /// `bossbar add`.
    pub fn add(&mut self, id: &str, name: Text) -> String {
        let id = bar_id(id);
        if self.bars.contains_key(&id) {
            return format!("error=\"A bossbar already exists with the ID '{id}'\"");
        }
        self.bars
            .insert(id.clone(), (Bar::new(name), Shown::default()));
        format!("bossbar={id} created=true")
    }

    /// `bossbar remove`.
    pub fn remove(&mut self, id: &str) -> String {
        let id = bar_id(id);
        match self.bars.remove(&id) {
            Some((_, shown)) => {
                self.dropped.extend(shown.entity);
                format!("bossbar={id} removed=true")
            }
            None => no_bar(&id),
        }
    }

    /// `bossbar list`.
    pub fn list(&self) -> String {
        let ids: Vec<&str> = self.bars.keys().map(String::as_str).collect();
        format!("bossbars={} ids={}", ids.len(), ids.join(","))
    }

    /// `bossbar set`.
    pub fn set(&mut self, id: &str, change: Change) -> String {
        let id = bar_id(id);
        let Some((bar, _)) = self.bars.get_mut(&id) else {
            return no_bar(&id);
        };
        let (what, value) = match change {
            Change::Name(name) => {
                bar.name = name;
                ("name", "-".into())
            }
            Change::Color(color) => {
                bar.color = color;
                ("color", COLORS[color].0.to_owned())
            }
            Change::Style(style) => {
                bar.style = style;
                ("style", STYLES[style].0.to_owned())
            }
            Change::Value(value) => {
                bar.value = value;
                ("value", value.to_string())
            }
            Change::Max(max) => {
                bar.max = max;
                ("max", max.to_string())
            }
            Change::Visible(visible) => {
                bar.visible = visible;
                ("visible", visible.to_string())
            }
            Change::Players(players) => {
                bar.players = players.iter().map(|(_, uuid)| *uuid).collect();
                let names: Vec<&str> = players.iter().map(|(name, _)| name.as_str()).collect();
                let count = bar.players.len();
                return format!(
                    "bossbar={id} set=players count={count} names={}",
                    names.join(",")
                );
            }
        };
        format!("bossbar={id} set={what} value={value}")
    }

    /// `bossbar get`: `value`, `max`, `visible` or `players` (how many).
    pub fn get(&self, id: &str, what: &str) -> String {
        let id = bar_id(id);
        let Some((bar, _)) = self.bars.get(&id) else {
            return no_bar(&id);
        };
        let value = match what {
            "value" => bar.value.to_string(),
            "max" => bar.max.to_string(),
            "visible" => bar.visible.to_string(),
            _ => bar.players.len().to_string(),
        };
        format!("bossbar={id} {what}={value}")
    }
}

fn no_bar(id: &str) -> String {
    format!("error=\"No bossbar exists with the ID '{id}'\"")
}

/// In the world save as vanilla's `level.dat` keeps them: `CustomBossEvents`, by id, each
/// with its `Name` (JSON text), `Color`, `Overlay`, `Value`, `Max`, `Visible` and `Players`.
impl WorldKeys for CustomBars {
    fn save(&self, root: &mut Compound) {
        let mut events = Compound::new();
        for (id, (bar, _)) in &self.bars {
            let mut c = Compound::new();
            c.insert("Name", serde_json::to_string(&bar.name).unwrap_or_default());
            c.insert("Color", COLORS[bar.color].0);
            c.insert("Overlay", STYLES[bar.style].0);
            c.insert("Value", bar.value as i32);
            c.insert("Max", bar.max as i32);
            c.insert("Visible", bar.visible);
            let players = bar.players.iter().map(|u| uuid_ints(*u).to_vec()).collect();
            c.insert("Players", Value::List(List::IntArray(players)));
            events.insert(id.clone(), c);
        }
        root.insert("CustomBossEvents", events);
    }

    fn load(&mut self, root: &Compound) {
        let Some(Value::Compound(events)) = root.get("CustomBossEvents") else {
            return;
        };
        for (id, event) in events {
            let Value::Compound(c) = event else {
                continue;
            };
            let text = |key: &str| match c.get(key) {
                Some(Value::String(s)) => Some(s.as_str()),
                _ => None,
            };
            let int = |key: &str| match c.get(key) {
                Some(Value::Int(v)) => Some((*v).max(0) as u32),
                _ => None,
            };
            let name = text("Name")
                .and_then(|json| serde_json::from_str::<Text>(json).ok())
                .unwrap_or_else(|| id.clone().into_text());
            let mut bar = Bar::new(name);
            bar.color = text("Color")
                .and_then(|n| COLORS.iter().position(|(name, _)| *name == n))
                .unwrap_or(bar.color);
            bar.style = text("Overlay")
                .and_then(|n| STYLES.iter().position(|(name, _)| *name == n))
                .unwrap_or(bar.style);
            bar.value = int("Value").unwrap_or(bar.value);
            bar.max = int("Max").filter(|m| *m > 0).unwrap_or(bar.max);
            bar.visible = !matches!(c.get("Visible"), Some(Value::Byte(0)));
            if let Some(Value::List(List::IntArray(players))) = c.get("Players") {
                bar.players = players
                    .iter()
                    .filter_map(|ints| <[i32; 4]>::try_from(ints.as_slice()).ok())
                    .map(ints_uuid)
                    .collect();
            }
            self.bars.insert(id.clone(), (bar, Shown::default()));
        }
    }
}

/// A UUID as vanilla's four ints, most significant first.
fn uuid_ints(uuid: uuid::Uuid) -> [i32; 4] {
    let v = uuid.as_u128();
    [
        (v >> 96) as i32,
        (v >> 64) as i32,
        (v >> 32) as i32,
        v as i32,
    ]
}

fn ints_uuid(ints: [i32; 4]) -> uuid::Uuid {
    let v = ints
        .iter()
        .fold(0u128, |acc, &i| (acc << 32) | i as u32 as u128);
    uuid::Uuid::from_u128(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_round_trip_as_vanillas_custom_boss_events() {
        let mut bars = CustomBars::default();
        assert!(bars
            .add("siege", "The siege".into_text())
            .contains("created=true"));
        assert!(bars
            .add("minecraft:siege", "again".into_text())
            .contains("already exists"));
        let alex = uuid::Uuid::from_u128(0x853c80ef_3c37_49fd_aa49_938b674adae6);
        bars.set("siege", Change::Players(vec![("Alex".into(), alex)]));
        bars.set("siege", Change::Value(30));
        bars.set("siege", Change::Color(2));
        bars.set("siege", Change::Style(2));
        bars.set("siege", Change::Visible(false));
        assert_eq!(
            bars.get("siege", "value"),
            "bossbar=minecraft:siege value=30"
        );
        let mut root = Compound::new();
        bars.save(&mut root);
        let mut back = CustomBars::default();
        back.load(&root);
        assert_eq!(
            back.bars["minecraft:siege"].0,
            bars.bars["minecraft:siege"].0
        );
        assert_eq!(ints_uuid(uuid_ints(alex)), alex);
        assert_eq!(bars.list(), "bossbars=1 ids=minecraft:siege");
        assert!(bars.remove("siege").contains("removed=true"));
        assert!(bars.remove("siege").contains("No bossbar"));
    }
}
