//! A stand-in for a model provider's HTTP API on 127.0.0.1: it answers each request with
//! the next canned reply (status, headers, body, delay) and keeps what it received
//! (headers and JSON body), so a test checks the exact wire format both ways.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
}

#[derive(Default)]
struct Shared {
    replies: Mutex<VecDeque<Canned>>,
    received: Mutex<Vec<Received>>,
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
        let shared = Arc::new(Shared { replies: Mutex::new(replies.into_iter().collect()), ..Shared::default() });
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
    shared.received.lock().unwrap().push(Received { headers, body });
    let canned = shared.replies.lock().unwrap().pop_front().expect("a canned reply for every request");
    tokio::time::sleep(canned.delay).await;
    let mut response = (StatusCode::from_u16(canned.status).unwrap(), canned.body).into_response();
    response.headers_mut().insert("content-type", "application/json".parse().unwrap());
    for (name, value) in canned.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}
