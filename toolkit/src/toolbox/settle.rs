//! A call after its synchronous start: how it ended, or what is left of it to await.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Instant, SystemTime};

use futures_util::future::BoxFuture;

use crate::call::Output;
use crate::error::ToolError;
use crate::exec::{Finished, Guard};

/// When a recorded call started: the wall clock for its record, the monotonic clock for
/// its duration.
pub(super) type StartedAt = (SystemTime, Instant);

/// When an observed call started, for its record (`None` when no sink wants one).
pub(super) type Clock = Option<StartedAt>;

/// How a [`Begun`] call ends: at once, or once what is left is awaited. Written so that
/// the `Begun` is gone before the await: `match begun { Done(e) => e, Waiting(rest) =>
/// rest.await }` keeps the matched value alive across the await, and the future of
/// `Toolbox::call` grows from 184 bytes to 288 (it is moved before it is polled: about
/// 35 instructions a call, `benches/instructions.sh`).
macro_rules! settled {
    ($begun:expr) => {
        'ended: {
            let rest = match $begun {
                $crate::toolbox::settle::Begun::Done(ended) => break 'ended ended,
                $crate::toolbox::settle::Begun::Waiting(rest) => rest,
            };
            rest.await
        }
    };
}
pub(super) use settled;

/// A call once started: how it ended, or what is left to await.
pub(super) enum Begun<'a> {
    Done(Ended),
    Waiting(Settle<'a>),
}

/// How a call ended, before its result is made.
pub(super) enum Ended {
    /// No sink wants its record: the output, or the error.
    Plain(Result<Output, ToolError>),
    /// Its record is to be made (see [`Toolbox::conclude`](super::Toolbox::conclude)): how it ended, and when it
    /// started.
    Recorded(Finished, StartedAt),
}

impl Ended {
    /// A call that ended, recorded when it was timed (`clock`, for a sink).
    #[inline]
    pub(super) fn of(finished: Finished, clock: Clock) -> Self {
        match clock {
            Some(clock) => Ended::Recorded(finished, clock),
            None => Ended::Plain(finished.result),
        }
    }
}

/// What is left of a call after its synchronous start: one hand-written future, so the
/// future of `Toolbox::call` stays small (it is moved before it is polled).
pub(super) enum Settle<'a> {
    /// The tool's own future, under its guard.
    Running(Guard<'a>),
    /// The hooked call.
    Hooked(BoxFuture<'a, Finished>),
    /// An observed call (span, records) or one global hooks act on.
    Observed(BoxFuture<'a, Ended>),
}

impl Future for Settle<'_> {
    type Output = Ended;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Every variant is `Unpin` (the futures inside are boxed).
        match self.get_mut() {
            Settle::Running(guard) => Pin::new(guard).poll(cx).map(Ended::Plain),
            Settle::Hooked(hooked) => hooked.as_mut().poll(cx).map(|f| Ended::Plain(f.result)),
            Settle::Observed(observed) => observed.as_mut().poll(cx),
        }
    }
}
