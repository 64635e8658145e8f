//! The arguments of a hooked call, as hooks see them: the tool's own struct, or its JSON
//! view, converted on demand so both stay consistent. Compiled once: the struct is
//! boxed, and encoding or decoding it goes through the tool's [`Runnable`].

use std::any::Any;

use serde_json::{Map, Value};

use super::guard::guarded;
use super::runnable::{Parsed, Runnable};
use crate::error::{ErrorKind, ToolError};
use crate::hook::ArgsSlot;
use crate::limits::Limits;

/// What a [`Slot`] holds: the arguments in the form the last hook left them.
enum Held {
    /// As parsed (the usual state; typed hooks use the struct in place).
    Ready(Parsed),
    /// The struct and its JSON, for hooks that only read the JSON view.
    Viewed(Box<dyn Any + Send>, Map<String, Value>),
    /// JSON a hook asked to rewrite (it becomes the struct again when needed).
    Json(Map<String, Value>),
    /// JSON that cannot become the struct, or a struct that cannot become JSON.
    Broken(Map<String, Value>, ToolError),
    /// The tool took the arguments; the JSON they were, if a hook may have changed them
    /// (`None`: the model's own text).
    Taken(Option<Map<String, Value>>),
}

/// The arguments of one hooked call.
pub(crate) struct Slot<'t> {
    tool: &'t dyn Runnable,
    state: Held,
    /// A hook had write access.
    dirty: bool,
    /// After or error hooks may read the arguments once the tool has taken them.
    keep: bool,
    /// What to go back to if the running hook fails open (see [`Slot::arm_undo`]).
    undo: Undo,
}

/// The arguments as they were before the running hook first asked to change them.
enum Undo {
    /// The running hook cannot fail open: nothing to keep.
    Off,
    /// It can, and has not asked to change them yet.
    Armed,
    /// It asked: the state before (typed arguments kept as their JSON), and `dirty`
    /// (boxed: the slot stays small on the usual path).
    Saved(Box<(Held, bool)>),
}

impl<'t> Slot<'t> {
    pub(crate) fn new(tool: &'t dyn Runnable, args: Parsed, keep: bool) -> Self {
        Slot { tool, state: Held::Ready(args), dirty: false, keep, undo: Undo::Off }
    }

    /// The next hook fails open (`on_failure = continue`): if it fails after changing
    /// the arguments, [`undo`](Slot::undo) puts them back. Nothing is copied unless it
    /// asks to change them.
    #[inline]
    pub(crate) fn arm_undo(&mut self) {
        self.undo = Undo::Armed;
    }

    /// The hook finished: what was kept to undo it is dropped.
    #[inline]
    pub(crate) fn disarm(&mut self) {
        self.undo = Undo::Off;
    }

    /// The hook failed open: the arguments go back to what they were before it.
    pub(crate) fn undo(&mut self) {
        if let Undo::Saved(saved) = std::mem::replace(&mut self.undo, Undo::Off) {
            (self.state, self.dirty) = *saved;
        }
    }

    /// Before the first write of an armed hook: keep the state to go back to.
    #[cold]
    fn save(&mut self) {
        let dirty = self.dirty;
        let saved = match &self.state {
            Held::Ready(Parsed::Json(m)) => Held::Ready(Parsed::Json(m.clone())),
            Held::Ready(Parsed::Typed(a)) => {
                // The struct is not `Clone`: kept as its JSON, which becomes the struct
                // again before the tool runs.
                let tool = self.tool;
                match guarded("", || tool.encode(&**a).map_err(unshowable)) {
                    Ok(map) => Held::Json(map),
                    Err(e) => Held::Broken(Map::new(), e),
                }
            }
            Held::Viewed(_, m) | Held::Json(m) => Held::Json(m.clone()),
            Held::Broken(m, e) => Held::Broken(m.clone(), e.clone()),
            Held::Taken(m) => Held::Taken(m.clone()),
        };
        self.undo = Undo::Saved(Box::new((saved, dirty)));
    }

    #[inline]
    fn before_write(&mut self) {
        if let Undo::Armed = self.undo {
            self.save();
        }
    }

    /// Takes the arguments out for the tool (after `take_error` said they are well
    /// formed).
    pub(crate) fn take(&mut self) -> Option<Parsed> {
        match std::mem::replace(&mut self.state, Held::Taken(None)) {
            Held::Viewed(a, map) => {
                self.state = Held::Taken(Some(map));
                Some(Parsed::Typed(a))
            }
            Held::Ready(Parsed::Typed(a)) => {
                // Hooks rewrote them and later hooks may read them: keep their JSON.
                if self.dirty && self.keep {
                    let tool = self.tool;
                    self.state = Held::Taken(guarded("", || Ok(tool.encode(&*a).ok())).ok().flatten());
                }
                Some(Parsed::Typed(a))
            }
            Held::Ready(Parsed::Json(map)) => {
                if self.dirty && self.keep {
                    self.state = Held::Taken(Some(map.clone()));
                }
                Some(Parsed::Json(map))
            }
            other => {
                self.state = other;
                None
            }
        }
    }

    /// The struct again, from the JSON a hook read (kept beside it) or wrote (parsed).
    #[cold]
    fn make_typed(&mut self) {
        self.decode_json();
        if let Held::Viewed(..) = self.state
            && let Held::Viewed(a, _) = std::mem::replace(&mut self.state, Held::Taken(None))
        {
            self.state = Held::Ready(Parsed::Typed(a));
        }
    }

    /// JSON a hook wrote, checked as the model's JSON would be (so a rewrite into
    /// something invalid gets the same message; the size limit is the model's only).
    fn decode_json(&mut self) {
        if let Held::Json(map) = &mut self.state {
            let map = std::mem::take(map);
            let tool = self.tool;
            let text = serde_json::to_string(&map).unwrap_or_default();
            let parsed = guarded(&tool.spec().name, || tool.parse(&text, &Limits::UNLIMITED));
            self.state = match parsed {
                Ok(args) => Held::Ready(args),
                Err(e) => Held::Broken(map, e),
            };
        }
    }

    /// Makes sure the state holds JSON; `write` when a hook is about to change it (the
    /// struct is then stale and dropped).
    fn ensure_json(&mut self, raw: &str, write: bool) -> &mut Map<String, Value> {
        let state = std::mem::replace(&mut self.state, Held::Taken(None));
        self.state = match state {
            Held::Ready(Parsed::Typed(a)) => {
                let tool = self.tool;
                match guarded(&tool.spec().name, || tool.encode(&*a).map_err(unshowable)) {
                    Ok(map) if write => Held::Json(map),
                    Ok(map) => Held::Viewed(a, map),
                    Err(e) => Held::Broken(Map::new(), e),
                }
            }
            Held::Viewed(_, map) if write => Held::Json(map),
            Held::Taken(None) => Held::Taken(Some(serde_json::from_str(raw).unwrap_or_default())),
            other => other,
        };
        match &mut self.state {
            Held::Ready(Parsed::Json(m))
            | Held::Viewed(_, m)
            | Held::Json(m)
            | Held::Broken(m, _)
            | Held::Taken(Some(m)) => m,
            Held::Ready(Parsed::Typed(_)) | Held::Taken(None) => unreachable!("just made to hold JSON"),
        }
    }
}

#[cold]
fn unshowable(why: String) -> ToolError {
    ToolError::new(ErrorKind::Unavailable, "this tool's arguments could not be shown to a hook").with_detail(why)
}

impl ArgsSlot for Slot<'_> {
    fn json(&mut self, raw: &str) -> &mut Map<String, Value> {
        self.before_write();
        self.dirty = true;
        self.ensure_json(raw, true)
    }

    fn json_ref(&mut self, raw: &str) -> &Map<String, Value> {
        self.ensure_json(raw, false)
    }

    fn typed(&mut self) -> Option<&mut dyn Any> {
        self.before_write();
        self.dirty = true;
        if !matches!(self.state, Held::Ready(_)) {
            self.make_typed();
        }
        match &mut self.state {
            Held::Ready(Parsed::Typed(a)) => Some(&mut **a),
            _ => None,
        }
    }

    fn take_error(&mut self) -> Option<ToolError> {
        // The JSON a hook wrote must still fit the tool before it runs.
        if let Held::Ready(_) | Held::Viewed(..) = self.state {
            return None;
        }
        self.decode_json();
        match &self.state {
            Held::Broken(_, e) => Some(e.clone()),
            _ => None,
        }
    }

    fn to_json_string(&mut self, raw: &str) -> String {
        match &mut self.state {
            Held::Ready(Parsed::Typed(a)) => {
                let tool = self.tool;
                guarded("", || Ok(tool.encode(&**a).map(|m| Value::Object(m).to_string()).unwrap_or_default()))
                    .unwrap_or_default()
            }
            Held::Ready(Parsed::Json(m))
            | Held::Viewed(_, m)
            | Held::Json(m)
            | Held::Broken(m, _)
            | Held::Taken(Some(m)) => Value::Object(m.clone()).to_string(),
            Held::Taken(None) => raw.to_owned(),
        }
    }
}
