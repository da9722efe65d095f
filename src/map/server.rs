//! The map's HTTP side, on its own thread and runtime: the page, `/api/state` (JSON),
//! `/api/terrain` (tiles changed since a version) and `/events` (the state as server-sent
//! events). Read-only, GET only; unknown paths are 404; past `max_connections` requests at once
//! the answer is 503. The tick only ever swaps in a new snapshot and queues tile updates, so a
//! slow or stalled browser costs it nothing.

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::extract::{Query, Request, State as Extract};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tokio::sync::{watch, Semaphore};
use tokio_stream::wrappers::WatchStream;
use tokio_stream::StreamExt;
use valence::log::warn;

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
    connections: Arc<Semaphore>,
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
    let listener = TcpListener::bind(address)
        .with_context(|| format!("cannot serve the map on {address} (is the port taken?)"))?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    let (state_tx, state_rx) = watch::channel(Arc::new(State::default()));
    let (tiles_tx, tiles_rx) = flume::unbounded();
    let shared = Shared {
        state: state_rx,
        tiles: Arc::default(),
        updates: tiles_rx,
        connections: Arc::new(Semaphore::new(max_connections as usize)),
    };
    // An event stream takes its place itself, for as long as it lives.
    let app = Router::new()
        .route("/", get(page))
        .route("/api/state", get(state))
        .route("/api/terrain", get(terrain))
        .layer(middleware::from_fn_with_state(shared.clone(), limit))
        .route("/events", get(events))
        .with_state(shared.clone());
    std::thread::Builder::new()
        .name("map".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => return warn!("the map stopped: {e}"),
            };
            runtime.block_on(async move {
                // Tiles pile up while nobody looks: fold them in every few seconds.
                let idle = shared.clone();
                tokio::spawn(async move {
                    loop {
                        tokio::time::sleep(Duration::from_secs(5)).await;
                        drop(idle.tiles());
                    }
                });
                let served = match tokio::net::TcpListener::from_std(listener) {
                    Ok(listener) => axum::serve(listener, app).await,
                    Err(e) => Err(e),
                };
                if let Err(e) = served {
                    warn!("the map stopped: {e}");
                }
            });
        })
        .context("cannot start the map's thread")?;
    Ok((
        Feed {
            state: state_tx,
            tiles: tiles_tx,
        },
        bound,
    ))
}

/// At most `max_connections` requests at once, event streams included.
async fn limit(Extract(shared): Extract<Shared>, request: Request, next: Next) -> Response {
    match shared.connections.clone().try_acquire_owned() {
        Ok(_permit) => next.run(request).await,
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "too many map connections\n",
        )
            .into_response(),
    }
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

/// The state every time the tick publishes one; a stream holds a connection permit for as
/// long as it lives.
async fn events(Extract(shared): Extract<Shared>) -> Response {
    let Ok(permit) = shared.connections.clone().try_acquire_owned() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "too many map connections\n",
        )
            .into_response();
    };
    let stream = WatchStream::new(shared.state.clone()).map(move |state| {
        let _held = &permit;
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
