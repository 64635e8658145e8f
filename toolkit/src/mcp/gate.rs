//! The gate in front of the SDK: every JSON-RPC message a client sends is checked here
//! first, on stdio and HTTP alike, so that a careless or hostile client gets a precise,
//! short error (or is ignored, where the protocol says so) instead of the SDK's
//! defaults: a session ended by a stray notification, `-32601` with a megabyte method
//! name echoed for a `tools/call` whose `name` is a number, and the like.

use serde_json::{Map, Value, json};

/// What to do with one message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Pass it to the SDK.
    Forward,
    /// Ignore it (a notification or a response before the session started); the reason
    /// is logged.
    Drop(&'static str),
    /// Answer it here with this message (an error, or a `ping`'s result).
    Reply(Value),
}

/// The longest method name or tool name echoed back in an error, in characters.
const ECHO: usize = 64;
/// The per-request metadata key of the protocol version (2026-07-28 and later).
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The revisions whose `ping` result carries `resultType`.
const MODERN: &[&str] = &["2026-07-28"];

/// The state of one connection's gate.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// Whether a request has been passed on: before that, notifications and responses
    /// are ignored (the session has not started; the SDK would end it).
    started: bool,
}

impl Gate {
    /// A gate for a transport where each message stands alone (HTTP): nothing is
    /// ignored for coming first.
    pub(crate) fn started() -> Gate {
        Gate { started: true }
    }

    /// Checks one parsed message.
    pub(crate) fn check(&mut self, message: &Value) -> Verdict {
        let Value::Object(message) = message else {
            return Verdict::Reply(error(&Value::Null, -32600, "Invalid Request: a JSON-RPC message is a JSON object"));
        };
        let id = message.get("id");
        let Some(method) = message.get("method") else {
            // A response (to a request of the server's): never answered, even when it is
            // wrong (answering a response is how two peers start an endless exchange of
            // errors); passed on only when it can answer something.
            if message.contains_key("result") || message.contains_key("error") {
                return match id {
                    Some(Value::String(_) | Value::Number(_)) if self.started => Verdict::Forward,
                    Some(Value::String(_) | Value::Number(_)) => Verdict::Drop("a response before the session started"),
                    _ => Verdict::Drop("a response without an id"),
                };
            }
            return Verdict::Reply(error(&Value::Null, -32600, "Invalid Request: no `method`"));
        };
        let Some(id) = id else {
            // A notification.
            if !self.started {
                return Verdict::Drop("a notification before the session started");
            }
            return Verdict::Forward;
        };
        if !(id.is_string() || id.is_i64()) {
            // A fractional or huge number is not an id the SDK answers to as sent.
            return Verdict::Reply(error(&Value::Null, -32600, "Invalid Request: `id` must be a string or an integer"));
        }
        let Value::String(method) = method else {
            return Verdict::Reply(error(id, -32600, "Invalid Request: `method` must be a string"));
        };
        let verdict = self.request(id, method, message.get("params"));
        if verdict == Verdict::Forward {
            self.started = true;
        }
        verdict
    }

    fn request(&self, id: &Value, method: &str, params: Option<&Value>) -> Verdict {
        if method.chars().count() > 128 {
            return Verdict::Reply(error(id, -32601, &format!("Method not found: `{}…`", cut(method))));
        }
        let params = match params {
            None | Some(Value::Null) => None,
            Some(Value::Object(params)) => Some(params),
            // JSON-RPC: params are structured; MCP: an object.
            Some(Value::Array(_)) => return invalid(id, &format!("`{method}` takes its params as an object")),
            Some(_) => return Verdict::Reply(error(id, -32600, "Invalid Request: `params` must be an object")),
        };
        if let Some(meta) = params.and_then(|p| p.get("_meta"))
            && !meta.is_object()
        {
            return invalid(id, "`_meta` must be an object");
        }
        match method {
            "tools/call" => tools_call(id, params),
            "tools/list" => match params.and_then(|p| p.get("cursor")) {
                None | Some(Value::Null | Value::String(_)) => Verdict::Forward,
                Some(_) => invalid(id, "`cursor` must be a string (the `nextCursor` of an earlier page)"),
            },
            "initialize" => initialize(id, params),
            "ping" => {
                let version =
                    params.and_then(|p| p.get("_meta")).and_then(|m| m.get(VERSION_KEY)).and_then(Value::as_str);
                match version {
                    // A modern `ping` result is `{resultType: "complete"}`.
                    Some(v) if MODERN.contains(&v) => {
                        Verdict::Reply(json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete"}}))
                    }
                    _ => Verdict::Forward,
                }
            }
            _ => Verdict::Forward,
        }
    }
}

fn tools_call(id: &Value, params: Option<&Map<String, Value>>) -> Verdict {
    let Some(params) = params else {
        return invalid(id, "`tools/call` needs params: {\"name\": the tool's name, \"arguments\": an object}");
    };
    match params.get("name") {
        Some(Value::String(name)) if !name.is_empty() => {}
        Some(Value::String(_)) => return invalid(id, "`name` is empty: give the name of a tool from `tools/list`"),
        None => return invalid(id, "`tools/call` needs `name`: the name of a tool from `tools/list`"),
        Some(other) => {
            return invalid(id, &format!("`name` must be a string (the name of a tool), not {}", kind(other)));
        }
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => Verdict::Forward,
        Some(other) => {
            invalid(id, &format!("`arguments` must be an object of the tool's parameters, not {}", kind(other)))
        }
    }
}

fn initialize(id: &Value, params: Option<&Map<String, Value>>) -> Verdict {
    let Some(params) = params else {
        return invalid(id, "`initialize` needs params: protocolVersion, capabilities and clientInfo");
    };
    match params.get("protocolVersion") {
        Some(Value::String(_)) => {}
        None => return invalid(id, "`initialize` needs `protocolVersion`: a string such as \"2025-11-25\""),
        Some(other) => {
            return invalid(
                id,
                &format!("`protocolVersion` must be a string such as \"2025-11-25\", not {}", kind(other)),
            );
        }
    }
    for field in ["capabilities", "clientInfo"] {
        if let Some(value) = params.get(field)
            && !value.is_object()
        {
            return invalid(id, &format!("`{field}` must be an object"));
        }
    }
    Verdict::Forward
}

fn invalid(id: &Value, message: &str) -> Verdict {
    Verdict::Reply(error(id, -32602, &format!("Invalid params: {message}")))
}

/// A JSON-RPC error response.
pub(crate) fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The first [`ECHO`] characters of `text`.
fn cut(text: &str) -> &str {
    text.char_indices().nth(ECHO).map_or(text, |(at, _)| &text[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: Verdict) -> i64 {
        match v {
            Verdict::Reply(reply) => reply["error"]["code"].as_i64().unwrap_or(0),
            other => panic!("not a reply: {other:?}"),
        }
    }

    #[test]
    fn notifications_and_responses_before_the_first_request_are_dropped() {
        let mut gate = Gate::default();
        for early in [
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
            json!({"jsonrpc": "2.0", "method": "initialize", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 5, "result": {}}),
        ] {
            assert!(matches!(gate.check(&early), Verdict::Drop(_)), "{early}");
        }
        let init =
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}});
        assert_eq!(gate.check(&init), Verdict::Forward);
        assert_eq!(gate.check(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})), Verdict::Forward);
    }

    #[test]
    fn bad_params_of_known_methods_are_invalid_params() {
        let mut gate = Gate::started();
        let call = |params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        for params in [
            json!({}),
            json!({"name": 123}),
            json!({"name": null}),
            json!({"name": "a", "arguments": "x"}),
            json!({"name": "a", "arguments": [1]}),
            json!({"name": "a", "arguments": 3}),
        ] {
            assert_eq!(code(gate.check(&call(params.clone()))), -32602, "{params}");
        }
        assert_eq!(code(gate.check(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}))), -32602);
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": 5}});
        assert_eq!(code(gate.check(&list)), -32602);
        let meta = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": "x"}});
        let Verdict::Reply(reply) = gate.check(&meta) else { panic!() };
        assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (json!(3), json!(-32602)));
        let init = json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": 2025}});
        assert_eq!(code(gate.check(&init)), -32602);
    }

    #[test]
    fn a_huge_method_name_is_echoed_cut() {
        let mut gate = Gate::started();
        let Verdict::Reply(reply) = gate.check(&json!({"jsonrpc": "2.0", "id": 1, "method": "x".repeat(1 << 20)}))
        else {
            panic!()
        };
        assert_eq!(reply["error"]["code"], -32601);
        assert!(reply["error"]["message"].as_str().unwrap().len() < 100);
    }
}
