//! The Prometheus endpoint (`[metrics]`): each plugin registers the families it keeps up to
//! date with [`register`], and `GET /metrics` encodes them all in the OpenMetrics text format
//! on a thread of its own. Metrics are atomics shared with the registry, so the tick only
//! ever stores numbers; a scrape never waits on it.

use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, RwLock};

use anyhow::Context;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Metric, Registry};
use tokio::sync::Semaphore;
use valence::prelude::*;

/// Every family the server exports, shared with the endpoint.
#[derive(Resource, Clone, Default)]
pub struct Exported(Arc<RwLock<Registry>>);

impl Exported {
    /// The exposition as a scrape sees it.
    pub fn encode(&self) -> String {
        let registry = self.0.read().unwrap_or_else(|p| p.into_inner());
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &registry);
        text
    }
}

/// Registers `metric` under `name` (with its unit, without `_total`: counters get it when
/// encoded) for the endpoint. Plugins call this from `build`.
pub fn register(app: &mut App, name: &str, help: &str, metric: impl Metric) {
    let exported = app.world.get_resource_or_insert_with(Exported::default);
    exported
        .0
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .register(name, help, metric);
}

/// A histogram of seconds from a millisecond to half a minute, for durations of ticks, chunk
/// loads and saves.
pub fn seconds_histogram() -> Histogram {
    Histogram::new([
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    ])
}

const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Binds `address` (port 0 picks one) and serves `/metrics` from a thread of its own, at most
/// `max_connections` connections at once; returns the address bound.
pub fn start(
    address: SocketAddr,
    max_connections: u32,
    exported: Exported,
) -> anyhow::Result<SocketAddr> {
    let listener =
        TcpListener::bind(address).with_context(|| format!("cannot listen on {address}"))?;
    let bound = listener.local_addr()?;
    let app = Router::new()
        .route("/metrics", get(scrape))
        .with_state(exported);
    let places = Arc::new(Semaphore::new(max_connections as usize));
    crate::service::spawn(
        "metrics",
        "the metrics endpoint",
        listener,
        move |listener| {
            crate::service::serve_http(listener, app, places, "too many metrics connections\n")
        },
    )?;
    Ok(bound)
}

async fn scrape(State(exported): State<Exported>) -> Response {
    let text = exported.encode();
    if text.is_empty() {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}
