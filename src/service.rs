//! The listeners beside the game's (the live map, the proxy door) each run on a thread of
//! their own with a single-threaded tokio runtime: the tick never waits on them.

use std::future::Future;

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
