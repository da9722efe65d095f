//! The map's HTTP side, on its own thread and runtime: the page, `/api/state` (JSON),
//! `/api/terrain` (tiles changed since a version) and `/events` (the state as server-sent
//! events). Read-only, GET only; unknown paths are 404. Each connection holds one of
//! `max_connections` places for as long as it is open, and one past them is answered 503 and
//! closed; a connection that does not send its request headers in time is dropped. The tick
//! only ever swaps in a new snapshot and queues tile updates, so a slow or stalled browser costs
//! it nothing, and what such browsers can hold is bounded by the places.

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::extract::{Query, State as Extract};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tokio::sync::{watch, Semaphore};
use tokio_stream::wrappers::WatchStream;
use tokio_stream::StreamExt;

use super::snapshot::State;
use super::tiles::{TileUpdate, Tiles};

const PAGE: &str = include_str!("page.html");

/// The tick's end of the map: where snapshots and tile updates go.
pub(super) struct Feed {
    pub state: watch::Sender<Arc<State>>,
    pub tiles: flume::Sender<TileUpdate>,
}

#[derive(Clone)]
struct Shared {
    state: watch::Receiver<Arc<State>>,
    tiles: Arc<Mutex<Tiles>>,
    updates: flume::Receiver<TileUpdate>,
}

impl Shared {
    /// Takes in the tile updates queued since the last request.
    fn tiles(&self) -> std::sync::MutexGuard<'_, Tiles> {
        let mut tiles = self.tiles.lock().unwrap_or_else(|p| p.into_inner());
        for update in self.updates.try_iter() {
            tiles.apply(update);
        }
        tiles
    }
}

/// Binds the map's address (port 0 picks one) and serves it from a thread of its own.
pub(super) fn start(
    address: SocketAddr,
    max_connections: u32,
) -> anyhow::Result<(Feed, SocketAddr)> {
    let listener =
        TcpListener::bind(address).with_context(|| format!("cannot listen on {address}"))?;
    let bound = listener.local_addr()?;
    let (state_tx, state_rx) = watch::channel(Arc::new(State::default()));
    let (tiles_tx, tiles_rx) = flume::unbounded();
    let shared = Shared {
        state: state_rx,
        tiles: Arc::default(),
        updates: tiles_rx,
    };
    let app = Router::new()
        .route("/", get(page))
        .route("/api/state", get(state))
        .route("/api/terrain", get(terrain))
        .route("/events", get(events))
        .with_state(shared.clone());
    let places = Arc::new(Semaphore::new(max_connections as usize));
    crate::service::spawn("map", "the map", listener, move |listener| async move {
        // Tiles pile up while nobody looks: fold them in every few seconds.
        let idle = shared.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                drop(idle.tiles());
            }
        });
        crate::service::serve_http(listener, app, places, "too many map connections\n").await
    })?;
    Ok((
        Feed {
            state: state_tx,
            tiles: tiles_tx,
        },
        bound,
    ))
}

async fn page() -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-cache")], Html(PAGE))
}

async fn state(Extract(shared): Extract<Shared>) -> Response {
    let state = shared.state.borrow().clone();
    match serde_json::to_string(&*state) {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

#[derive(serde::Deserialize)]
struct Since {
    #[serde(default)]
    since: u64,
}

async fn terrain(Extract(shared): Extract<Shared>, Query(q): Query<Since>) -> impl IntoResponse {
    Json(shared.tiles().since(q.since))
}

/// The state every time the tick publishes one.
async fn events(Extract(shared): Extract<Shared>) -> Response {
    let stream = WatchStream::new(shared.state.clone()).map(|state| {
        Ok::<_, Infallible>(
            Event::default()
                .json_data(&*state)
                .unwrap_or_else(|_| Event::default().comment("unserialisable")),
        )
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
