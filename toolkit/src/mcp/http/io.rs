//! The socket and the bytes: the listener, and a request body read within the limit.

use http_body_util::BodyExt;
use hyper::body::{Bytes, Incoming};
use tokio::net::TcpListener;

use super::MAX_BODY;

/// How much more of a body past [`MAX_BODY`] is read (and dropped) before answering 413,
/// so a client still sending it reads the answer rather than a reset connection.
const DRAIN: usize = 64 << 20;

/// The body, when it is at most [`MAX_BODY`]; `None` when it is larger (or breaks off:
/// there is nothing to answer then). Past the limit nothing more is kept, but up to
/// [`DRAIN`] more is read and dropped, so the client finishes sending and reads the 413.
pub(super) async fn read_body(mut body: Incoming) -> Option<Bytes> {
    let mut kept = Vec::new();
    let mut over = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.ok()?.into_data() else { continue };
        if over == 0 && kept.len() + data.len() <= MAX_BODY {
            kept.extend_from_slice(&data);
        } else {
            over += data.len();
            if over > DRAIN {
                break;
            }
        }
    }
    (over == 0).then(|| Bytes::from(kept))
}

/// A listener on the first of `addr`'s addresses that binds, with a listen queue of
/// 4,096 (the system's cap applies): tokio's default of 1,024 overflows under a storm of
/// reconnecting clients, and a dropped handshake costs the client a second (the SYN
/// retransmission), well-behaved or not.
pub(super) async fn listen(addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<TcpListener> {
    let mut last = None;
    for addr in tokio::net::lookup_host(addr).await? {
        let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
        // As `TcpListener::bind` does: a restarted server can bind at once.
        #[cfg(unix)]
        socket.set_reuseaddr(true)?;
        match socket.bind(addr).and_then(|()| socket.listen(4096)) {
            Ok(listener) => return Ok(listener),
            Err(error) => last = Some(error),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to bind")))
}
