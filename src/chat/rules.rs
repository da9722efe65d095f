//! Vanilla 1.20.1's limits on what players say: the characters a message may hold, its
//! length, and the spam count that kicks a flood.

/// The longest chat message a client may send (`ServerboundChatPacket`'s 256 characters).
pub const LONGEST_MESSAGE: usize = 256;

/// What each message adds to a player's spam count, which falls by one a tick
/// (`ServerGamePacketListenerImpl.chatSpamTickCount`).
const SPAM_PER_MESSAGE: u32 = 20;

/// The spam count past which a player who is not an operator is kicked: more than ten
/// messages in about a second.
const SPAM_LIMIT: u32 = 200;

/// Why a message is refused, and its sender disconnected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Longer than [`LONGEST_MESSAGE`] (vanilla cannot even decode it).
    TooLong,
    /// A control character or `§` (`multiplayer.disconnect.illegal_characters`).
    IllegalCharacters,
}

/// Whether a chat message may hold `c` (`SharedConstants.isAllowedChatCharacter`): anything
/// but the formatting sign, control characters and DEL.
pub fn allowed(c: char) -> bool {
    c != '§' && c >= ' ' && c != '\u{7f}'
}

/// Checks a message as vanilla's `handleChat` does.
pub fn check(message: &str) -> Result<(), Refusal> {
    if message.chars().count() > LONGEST_MESSAGE {
        return Err(Refusal::TooLong);
    }
    if !message.chars().all(allowed) {
        return Err(Refusal::IllegalCharacters);
    }
    Ok(())
}

/// A player's spam count (`chatSpamTickCount`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SpamCount(u32);

impl SpamCount {
    /// Counts a message; true when the count is now past the limit.
    pub fn said(&mut self) -> bool {
        self.0 += SPAM_PER_MESSAGE;
        self.0 > SPAM_LIMIT
    }

    /// A tick passes.
    pub fn cool(&mut self) {
        self.0 = self.0.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_refused_for_control_characters_the_section_sign_or_length() {
        assert_eq!(check("hello, zombies"), Ok(()));
        assert_eq!(check("ünïcödé and emoji 🧟"), Ok(()));
        assert_eq!(check("§cred"), Err(Refusal::IllegalCharacters));
        assert_eq!(check("bell\u{7}"), Err(Refusal::IllegalCharacters));
        assert_eq!(check("del\u{7f}"), Err(Refusal::IllegalCharacters));
        assert_eq!(check(&"a".repeat(256)), Ok(()));
        assert_eq!(check(&"a".repeat(257)), Err(Refusal::TooLong));
        assert_eq!(check(&"é".repeat(256)), Ok(()), "characters, not bytes");
    }

    #[test]
    fn the_eleventh_message_at_once_is_spam_and_the_count_cools_a_tick_at_a_time() {
        let mut count = SpamCount::default();
        for _ in 0..10 {
            assert!(!count.said());
        }
        assert!(count.said(), "220 is past 200");
        let mut count = SpamCount::default();
        for _ in 0..10 {
            assert!(!count.said());
        }
        for _ in 0..20 {
            count.cool();
        }
        assert!(!count.said(), "a second later: 200, not past the limit");
        assert!(count.said(), "and one more at once is");
        let mut steady = SpamCount::default();
        for _ in 0..1000 {
            assert!(!steady.said(), "a message a second is never spam");
            for _ in 0..20 {
                steady.cool();
            }
        }
    }
}
