//! The listeners beside the game's (the live map, the metrics endpoint, the door in front of
//! Valence's listener) each run on a thread of their own with a single-threaded tokio runtime:
//! the tick never waits on them.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

use anyhow::Context;
use valence::log::warn;

/// Runs `serve` on `listener` on a new thread named `name`; `what` names it in the log.
pub fn spawn<F, Fut>(
    name: &str,
    what: &'static str,
    listener: std::net::TcpListener,
    serve: F,
) -> anyhow::Result<()>
where
    F: FnOnce(tokio::net::TcpListener) -> Fut + Send + 'static,
    Fut: Future<Output = ()>,
{
    listener.set_nonblocking(true)?;
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => return warn!("{what} stopped: {e}"),
            };
            runtime.block_on(async move {
                match tokio::net::TcpListener::from_std(listener) {
                    Ok(listener) => serve(listener).await,
                    Err(e) => warn!("{what} stopped: {e}"),
                }
            });
        })
        .with_context(|| format!("cannot start the thread of {what}"))?;
    Ok(())
}

/// How long an HTTP connection may take to send its request headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `app` over HTTP/1 for good, each connection on its own task while it holds one of
/// `places`; one past them is answered 503 with `busy` and closed, without being read.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    places: Arc<Semaphore>,
    busy: &'static str,
) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors, say: wait rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let place = places.clone().try_acquire_owned();
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let Ok(_place) = place else {
                return refuse(stream, busy).await;
            };
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn refuse(mut stream: tokio::net::TcpStream, busy: &str) {
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{busy}",
        busy.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(head.as_bytes())).await;
}
