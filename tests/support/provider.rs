//! A stand-in for a model provider's HTTP API on 127.0.0.1: it answers each request with
//! the next canned reply (status, headers, body, delay) and keeps what it received
//! (headers, JSON body, arrival time), so a test checks the exact wire format both ways.
//! It can also refuse a request the way a provider does (a 400 naming what is missing),
//! and [`hanging_up`] is a server that closes connections without answering.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

/// One canned reply.
#[derive(Clone)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    pub delay: Duration,
}

/// A 200 with a JSON body.
pub fn ok(body: Value) -> Canned {
    Canned { status: 200, headers: vec![], body: body.to_string(), delay: Duration::ZERO }
}

/// Another status with a JSON body.
pub fn status(status: u16, body: Value) -> Canned {
    Canned { status, headers: vec![], body: body.to_string(), delay: Duration::ZERO }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Value,
    pub at: Instant,
}

/// A provider's check of a request: `Err(message)` refuses it with a 400.
pub type Check = Box<dyn Fn(&Value) -> Result<(), String> + Send + Sync>;

#[derive(Default)]
struct Shared {
    replies: Mutex<VecDeque<Canned>>,
    received: Mutex<Vec<Received>>,
    check: Option<Check>,
}

/// The running server.
pub struct Provider {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    shared: Arc<Shared>,
}

impl Provider {
    /// Serves `path` (for example `/v1/messages`) with `replies`, in order.
    pub async fn start(path: &str, replies: impl IntoIterator<Item = Canned>) -> Provider {
        Self::serve(path, replies, None).await
    }

    /// Serves `path` with `replies`, but refuses (400, in Gemini's error shape, the
    /// message `check` gives) every request `check` does not pass, as a provider that
    /// validates the conversation does; a refused request uses no canned reply.
    pub async fn start_checked(
        path: &str,
        replies: impl IntoIterator<Item = Canned>,
        check: impl Fn(&Value) -> Result<(), String> + Send + Sync + 'static,
    ) -> Provider {
        Self::serve(path, replies, Some(Box::new(check))).await
    }

    async fn serve(path: &str, replies: impl IntoIterator<Item = Canned>, check: Option<Check>) -> Provider {
        let shared =
            Arc::new(Shared { replies: Mutex::new(replies.into_iter().collect()), check, ..Shared::default() });
        let app = Router::new().route(path, post(handle)).with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Provider { base_url: format!("http://{addr}"), shared }
    }

    /// Every request so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }
}

async fn handle(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).expect("the client sends JSON");
    let refused = shared.check.as_ref().and_then(|check| check(&body).err());
    shared.received.lock().unwrap().push(Received { headers, body, at: Instant::now() });
    if let Some(message) = refused {
        let error = serde_json::json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}});
        return (StatusCode::BAD_REQUEST, [("content-type", "application/json")], error.to_string()).into_response();
    }
    let canned = shared.replies.lock().unwrap().pop_front().expect("a canned reply for every request");
    tokio::time::sleep(canned.delay).await;
    let mut response = (StatusCode::from_u16(canned.status).unwrap(), canned.body).into_response();
    response.headers_mut().insert("content-type", "application/json".parse().unwrap());
    for (name, value) in canned.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}

/// A server on 127.0.0.1 that reads each request whole and, for the first `times`,
/// closes the connection without a word (as a proxy or an overloaded server that drops
/// it does); later requests get `then`. Its base URL, and the count of requests read.
pub async fn hanging_up(times: usize, then: Canned) -> (String, Arc<AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (seen, then) = (Arc::clone(&seen), then.clone());
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                loop {
                    // One request: its head, then as many bytes as its content-length says.
                    let head_end = loop {
                        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                        let mut piece = [0u8; 4096];
                        match socket.read(&mut piece).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buffer.extend_from_slice(&piece[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    while buffer.len() < head_end + length {
                        let mut piece = [0u8; 4096];
                        match socket.read(&mut piece).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buffer.extend_from_slice(&piece[..n]),
                        }
                    }
                    buffer.drain(..head_end + length);
                    if seen.fetch_add(1, Ordering::SeqCst) < times {
                        return; // the socket is dropped: closed, no response
                    }
                    let reply = format!(
                        "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
                        then.status,
                        then.body.len(),
                        then.body
                    );
                    if socket.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (format!("http://{addr}"), count)
}
