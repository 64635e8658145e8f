//! Every form of `timeout` the `#[tool]` and `#[hook]` docs list compiles: a positive
//! number (decimals allowed) and `ms`, `s`/`sec`/`secs`, `m`/`min`/`mins` or `h`, with
//! or without a space.
use toolkit::prelude::*;

macro_rules! timed {
    ($($name:ident = $timeout:literal),* $(,)?) => {$(
        /// Wait.
        #[tool(timeout = $timeout)]
        async fn $name() {}
    )*};
}

timed!(
    millis = "500ms",
    seconds = "10s",
    decimal = "1.5s",
    sec = "10 sec",
    secs = "3secs",
    minutes = "2m",
    min = "2 min",
    mins = "5mins",
    hours = "1h",
);

#[hook(before, timeout = "250 ms")]
async fn guard(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let tools = toolbox![millis, seconds, decimal, sec, secs, minutes, min, mins, hours];
    let _ = (tools, hooks![guard]);
}
