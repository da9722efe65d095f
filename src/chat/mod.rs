//! Players talk as on a vanilla 1.20.1 server: a chat message reaches every player who shows
//! chat, as `<name> message` (vanilla's `chat.type.text`, sent as a system message so that
//! online and offline clients alike show it), and the console's log; a message with a control
//! character or `§`, or longer than 256 characters, disconnects its sender, and so does a flood
//! (vanilla's spam count) unless they are an operator. Everyone else reads "X joined the game"
//! and "X left the game".

pub mod rules;

use bevy_ecs::query::Has;
use rustc_hash::FxHashMap;
use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::event_loop::PacketEvent;
use valence::log::info;
use valence::message::ChatMessageEvent;
use valence::prelude::*;
use valence::protocol::packets::play::client_settings_c2s::ChatMode;
use valence::protocol::packets::play::ClientSettingsC2s;

use crate::access::{Kicked, Operator};
use rules::{check, Refusal, SpamCount};

pub struct ChatPlugin;

impl Plugin for ChatPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            (cool_spam, follow_chat_settings, relay_chat)
                .chain()
                .in_set(crate::schedule::TickSet::Players),
        )
        // After `Update`, so that a player kicked on joining (banned) is seen as such.
        .add_systems(
            PostUpdate,
            announce_comings_and_goings
                .before(UpdateClientsSet)
                .before(FlushPacketsSet),
        );
    }
}

/// A player's spam count.
#[derive(Component, Debug, Default)]
struct Spam(SpamCount);

fn cool_spam(
    mut commands: Commands,
    mut players: Query<(Entity, Option<&mut Spam>), With<Client>>,
) {
    for (entity, spam) in &mut players {
        match spam {
            Some(mut spam) => spam.0.cool(),
            None => {
                commands.entity(entity).insert(Spam::default());
            }
        }
    }
}

/// Disconnects a player with `reason`, as vanilla's `disconnect`.
fn kick(commands: &mut Commands, entity: Entity, client: &mut Client, reason: Text, now: i64) {
    commands
        .entity(entity)
        .insert(crate::access::disconnect(client, reason, now));
}

/// What a player's client shows of chat, as it last said (vanilla's `chatVisibility`). Until a
/// client says, it shows everything, as vanilla assumes (Valence's own default is "hidden").
#[derive(Component, Debug, Clone, Copy)]
struct ChatShown(ChatMode);

fn follow_chat_settings(mut commands: Commands, mut packets: EventReader<PacketEvent>) {
    for packet in packets.iter() {
        if let Some(settings) = packet.decode::<ClientSettingsC2s>() {
            if let Some(mut player) = commands.get_entity(packet.client) {
                player.insert(ChatShown(settings.chat_mode));
            }
        }
    }
}

/// Whether a client shows players' chat (`ChatVisiblity.FULL`; "commands only" shows none).
fn shows_chat(shown: Option<&ChatShown>) -> bool {
    shown.is_none_or(|s| s.0 == ChatMode::Enabled)
}

/// Each message checked as vanilla's `handleChat` checks it, then sent to everyone who shows
/// chat and logged; the sender's spam count rises, and past its limit they are kicked.
fn relay_chat(
    mut commands: Commands,
    mut said: EventReader<ChatMessageEvent>,
    mut senders: Query<(&Username, &mut Spam, Option<&ChatShown>, Has<Operator>), Without<Kicked>>,
    mut clients: Query<(Entity, &mut Client, Option<&ChatShown>)>,
    server: Res<Server>,
) {
    let now = server.current_tick();
    for message in said.iter() {
        let Ok((name, mut spam, settings, op)) = senders.get_mut(message.client) else {
            continue;
        };
        let Ok((_, mut client, _)) = clients.get_mut(message.client) else {
            continue;
        };
        let refusal = match check(&message.message) {
            Err(Refusal::IllegalCharacters) => Some(Text::translate(
                "multiplayer.disconnect.illegal_characters",
                [],
            )),
            Err(Refusal::TooLong) => Some(Text::text(format!(
                "A chat message is at most {} characters",
                rules::LONGEST_MESSAGE
            ))),
            Ok(()) => None,
        };
        if let Some(reason) = refusal {
            kick(&mut commands, message.client, &mut client, reason, now);
            continue;
        }
        if settings.is_some_and(|s| s.0 == ChatMode::Hidden) {
            client
                .send_chat_message(Text::translate("chat.disabled.options", []).color(Color::RED));
            continue;
        }
        info!("<{}> {}", name.0, message.message);
        let line = Text::translate(
            "chat.type.text",
            [
                Text::text(name.0.clone()).insertion(name.0.clone()),
                Text::text(message.message.to_string()),
            ],
        );
        for (_, mut listener, settings) in &mut clients {
            if shows_chat(settings) {
                listener.send_chat_message(line.clone());
            }
        }
        if spam.0.said() && !op {
            let (_, mut client, _) = clients.get_mut(message.client).expect("looked up above");
            kick(
                &mut commands,
                message.client,
                &mut client,
                Text::translate("disconnect.spam", []),
                now,
            );
        }
    }
}

/// Tells everyone else, in yellow, who joined and who left (`PlayerList.placeNewPlayer`,
/// `remove`). A player kicked as they join (banned) is never announced, coming or going.
fn announce_comings_and_goings(
    mut left: RemovedComponents<Client>,
    mut clients: Query<(Entity, &mut Client, &Username, Has<Kicked>)>,
    mut online: Local<FxHashMap<Entity, String>>,
) {
    let mut news = Vec::new();
    for entity in left.iter() {
        if let Some(name) = online.remove(&entity) {
            news.push((entity, "multiplayer.player.left", name));
        }
    }
    for (entity, client, name, kicked) in &mut clients {
        // `is_added` through `Mut` reads the tick without marking the client changed.
        if client.is_added() && !kicked {
            online.insert(entity, name.0.clone());
            news.push((entity, "multiplayer.player.joined", name.0.clone()));
        }
    }
    for (who, key, name) in news {
        let line = Text::translate(key, [Text::text(name)]).color(Color::YELLOW);
        for (entity, mut client, ..) in &mut clients {
            if entity != who {
                client.send_chat_message(line.clone());
            }
        }
    }
}

/// Everyone who shows chat reads `line`; the log too.
fn tell_everyone(world: &mut World, line: Text) {
    info!("{}", plain(&line));
    let mut clients = world.query::<(&mut Client, Option<&ChatShown>)>();
    for (mut client, shown) in clients.iter_mut(world) {
        if shows_chat(shown) {
            client.send_chat_message(line.clone());
        }
    }
}

/// A line as the log shows it: its translation key and arguments, which is what the server
/// knows of it (the client's language fills it in).
fn plain(line: &Text) -> String {
    serde_json::to_string(line).unwrap_or_default()
}

/// `say`: everyone reads `[sender] message` (`chat.type.announcement`).
pub fn say(world: &mut World, sender: &str, message: &str) -> String {
    let line = Text::translate(
        "chat.type.announcement",
        [
            Text::text(sender.to_owned()),
            Text::text(message.to_owned()),
        ],
    );
    tell_everyone(world, line);
    format!("said={message:?} by={sender}")
}

/// `me`: everyone reads `* sender action` (`chat.type.emote`).
pub fn emote(world: &mut World, sender: &str, action: &str) -> String {
    let line = Text::translate(
        "chat.type.emote",
        [Text::text(sender.to_owned()), Text::text(action.to_owned())],
    );
    tell_everyone(world, line);
    format!("emoted={action:?} by={sender}")
}

/// `msg`: `player` reads "sender whispers to you: message" in grey italics, and a player who
/// sent it "You whisper to player: message" (`commands.message.display.*`).
pub fn whisper(world: &mut World, sender: &str, player: &str, message: &str) -> String {
    let mut clients = world.query::<(&mut Client, &Username)>();
    let mut found = false;
    for (mut client, name) in clients.iter_mut(world) {
        let (key, other) = if name.0 == player {
            found = true;
            ("commands.message.display.incoming", sender)
        } else if name.0 == sender {
            ("commands.message.display.outgoing", player)
        } else {
            continue;
        };
        let line = Text::translate(
            key,
            [Text::text(other.to_owned()), Text::text(message.to_owned())],
        )
        .color(Color::GRAY)
        .italic();
        client.send_chat_message(line);
    }
    if !found {
        return format!("error=\"no player named {player}\"");
    }
    format!("whispered={message:?} to={player} by={sender}")
}

/// What `title` shows a player.
#[derive(Debug, Clone, PartialEq)]
pub enum Title {
    Title(Text),
    Subtitle(Text),
    ActionBar(Text),
    /// Ticks to fade in, stay and fade out.
    Times(i32, i32, i32),
    Clear,
    Reset,
}

/// The client of the player named `player` (as vanilla, in any case).
fn client_named<'w>(world: &'w mut World, player: &str) -> Option<Mut<'w, Client>> {
    let entity = crate::common::body::player_named(world, player)?;
    world.get_mut::<Client>(entity)
}

/// `tellraw`: a text component to one player's chat.
pub fn tellraw(world: &mut World, player: &str, line: Text) -> String {
    let Some(mut client) = client_named(world, player) else {
        return format!("error=\"no player named {player}\"");
    };
    client.send_chat_message(line);
    format!("told={player}")
}

/// `title`: a text on one player's screen, or its timing, cleared or reset.
pub fn title(world: &mut World, player: &str, shown: Title) -> String {
    let Some(mut client) = client_named(world, player) else {
        return format!("error=\"no player named {player}\"");
    };
    let what = match shown {
        Title::Title(text) => {
            client.set_title(text);
            "title"
        }
        Title::Subtitle(text) => {
            client.set_subtitle(text);
            "subtitle"
        }
        Title::ActionBar(text) => {
            client.set_action_bar(text);
            "actionbar"
        }
        Title::Times(fade_in, stay, fade_out) => {
            client.set_title_times(fade_in, stay, fade_out);
            "times"
        }
        Title::Clear => {
            client.clear_title();
            "clear"
        }
        Title::Reset => {
            client.reset_title();
            "reset"
        }
    };
    format!("title={what} player={player}")
}
