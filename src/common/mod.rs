//! The shared words of the game, on a floor below every game module: the body facts every
//! module reads ([`body`]), the events several modules send or read ([`events`]), item stacks
//! and an item on the ground as records ([`stacks`]), and the header of a saved entity
//! ([`entity`]). Nothing here acts; the plugins that send, read and act stand above.

pub mod body;
pub mod entity;
pub mod events;
pub mod stacks;
