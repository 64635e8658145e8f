//! What a hook sees of the call it governs: [`CallInfo`], the event contexts
//! ([`BeforeCall`], [`AfterCall`], [`ErrorCall`]), and the call's [`Extensions`].

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use super::decision::Approval;
use crate::call::Output;
use crate::context::State;
use crate::error::{ErrorKind, ToolError};
use crate::parts::Part;
use crate::spec::ToolSpec;

/// A typed map that lives for one call and is shared by that call's before, after and
/// error hooks (and its retries): a before hook stores a start time or a cache key, the
/// after hook of the *same* call reads it. Concurrent calls never see each other's.
///
/// ```
/// let mut ext = toolkit::hook::Extensions::default();
/// ext.insert(42_u32);
/// assert_eq!(ext.get::<u32>(), Some(&42));
/// ```
#[derive(Default)]
pub struct Extensions {
    map: Option<HashMap<TypeId, Box<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions").field("len", &self.map.as_ref().map_or(0, |m| m.len())).finish()
    }
}

impl Extensions {
    /// Stores a value, returning the previous one of its type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        self.map
            .get_or_insert_with(Default::default)
            .insert(TypeId::of::<T>(), Box::new(value))
            .and_then(|old| old.downcast().ok().map(|b| *b))
    }

    /// The value of type `T`.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map.as_ref()?.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// The value of type `T`, mutably.
    pub fn get_mut<T: Send + Sync + 'static>(&mut self) -> Option<&mut T> {
        self.map.as_mut()?.get_mut(&TypeId::of::<T>())?.downcast_mut()
    }

    /// Removes and returns the value of type `T`.
    #[inline]
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> Option<T> {
        // The map is usually empty (`None`): that answer is inlined, the lookup is not.
        match &mut self.map {
            None => None,
            Some(map) => take(map),
        }
    }
}

#[inline(never)]
fn take<T: Send + Sync + 'static>(map: &mut HashMap<TypeId, Box<dyn Any + Send + Sync>>) -> Option<T> {
    map.remove(&TypeId::of::<T>()).and_then(|b| b.downcast().ok().map(|b| *b))
}

/// The arguments of a call as hooks see them: the tool's typed struct, or a JSON object,
/// converted on demand so that both views stay consistent. A conversion that fails
/// (typed arguments that cannot be encoded, or JSON a hook wrote that no longer fits the
/// tool) is kept for [`take_error`](ArgsSlot::take_error) and ends the call.
pub(crate) trait ArgsSlot: Send {
    /// The JSON view (an empty scratch object if the typed arguments cannot be encoded).
    /// `raw` is the model's text, parsed again if the tool already took the struct.
    fn json(&mut self, raw: &str) -> &mut Map<String, Value>;
    /// The JSON view for reading only (the typed struct stays valid beside it).
    fn json_ref(&mut self, raw: &str) -> &Map<String, Value>;
    /// The typed view, if the tool has one.
    fn typed(&mut self) -> Option<&mut dyn Any>;
    /// An error a conversion ran into.
    fn take_error(&mut self) -> Option<ToolError>;
    /// The arguments as JSON text.
    fn to_json_string(&mut self, raw: &str) -> String;
}

/// What every hook context knows about its call.
pub struct CallInfo<'a> {
    pub(crate) call_id: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) raw: &'a str,
    pub(crate) spec: Option<&'a ToolSpec>,
    pub(crate) state: &'a State,
    pub(crate) attempt: u32,
    /// The call's scope: its labels, run, decisions and progress are read from it when
    /// asked (copying each out at every hooked call cost about 60 instructions a call,
    /// `benches/instructions.sh`).
    pub(crate) scope: &'a super::Scope,
}

impl fmt::Debug for CallInfo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallInfo")
            .field("call_id", &self.call_id)
            .field("tool", &self.tool)
            .field("raw", &self.raw)
            .field("spec", &self.spec.map(|s| &s.name))
            .field("agent", &self.agent())
            .field("task", &self.task())
            .field("session", &self.session())
            .field("attempt", &self.attempt)
            .field("run", &self.run())
            .field("decision", &self.decision())
            .finish_non_exhaustive()
    }
}

impl<'a> CallInfo<'a> {
    /// The call's id (`tool_call_id`).
    pub fn call_id(&self) -> &'a str {
        self.call_id
    }

    /// The tool name the model used.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The tool's spec (`None` when the model named a tool that does not exist).
    pub fn spec(&self) -> Option<&'a ToolSpec> {
        self.spec
    }

    /// The agent label of the call's [`Scope`](crate::hook::Scope).
    pub fn agent(&self) -> Option<&'a str> {
        self.scope.agent.as_deref()
    }

    /// The task label.
    pub fn task(&self) -> Option<&'a str> {
        self.scope.task.as_deref()
    }

    /// The session label.
    pub fn session(&self) -> Option<&'a str> {
        self.scope.session.as_deref()
    }

    /// 1 for the first run, 2 for the first retry, and so on.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The run the call belongs to ([`Scope::with_run`](crate::Scope::with_run); agents
    /// set it).
    pub fn run(&self) -> Option<&'a str> {
        self.scope.run.as_deref()
    }

    /// The call's idempotency key: the same for this call in every attempt, process and
    /// replay (see [`CallContext::idempotency_key`](crate::CallContext::idempotency_key)).
    pub fn idempotency_key(&self) -> String {
        crate::digest::idempotency_key(self.run(), self.call_id, self.raw)
    }

    /// The decision this call was resumed with, when a paused run was resumed with one
    /// for it ([`Agent::resume`](crate::agent::Agent::resume)). The pipeline applies it
    /// where a hook defers the call; a hook reads it to know the call was decided on.
    pub fn decision(&self) -> Option<&'a Approval> {
        self.decided().map(|d| &d.approval)
    }

    /// The decision this call was resumed with, with what it was made for.
    pub(crate) fn decided(&self) -> Option<&'a super::decision::Decided> {
        self.scope.decision(self.call_id)
    }

    /// Where the call's progress reports go.
    pub(crate) fn progress(&self) -> Option<&'a crate::progress::ProgressTo> {
        self.scope.progress.as_ref()
    }

    /// The toolbox's shared state.
    pub fn state(&self) -> &'a State {
        self.state
    }
}

/// What every hook context shares: the call's facts (through `Deref` to [`CallInfo`])
/// and its extension map.
macro_rules! context_common {
    ($context:ident) => {
        impl<'a> $context<'a> {
            /// The call's extension map.
            pub fn extensions(&self) -> &Extensions {
                self.ext
            }

            /// The call's extension map, mutably.
            pub fn extensions_mut(&mut self) -> &mut Extensions {
                self.ext
            }
        }

        impl<'a> std::ops::Deref for $context<'a> {
            type Target = CallInfo<'a>;
            fn deref(&self) -> &CallInfo<'a> {
                self.info
            }
        }
    };
}

/// What a before hook sees: the call, its arguments (JSON or typed view), and the
/// call's [`Extensions`].
pub struct BeforeCall<'a> {
    pub(crate) info: &'a CallInfo<'a>,
    pub(crate) args: &'a mut (dyn ArgsSlot + 'a),
    pub(crate) ext: &'a mut Extensions,
    pub(crate) touched: bool,
}

impl<'a> BeforeCall<'a> {
    /// The arguments as a JSON object (after earlier hooks' rewrites).
    pub fn arguments(&mut self) -> &Map<String, Value> {
        self.args.json_ref(self.info.raw)
    }

    /// The arguments as a JSON object, to rewrite in place. The tool (and typed hooks)
    /// see the rewrite; if it no longer fits the tool's parameters, the call fails with
    /// the same error a model would get.
    pub fn arguments_mut(&mut self) -> &mut Map<String, Value> {
        self.touched = true;
        self.args.json(self.info.raw)
    }

    /// The tool's own argument struct (`Args<read_file>`), to read or rewrite; `None`
    /// when `A` is not this tool's struct (or the tool was defined at run time).
    pub fn typed<A: Any>(&mut self) -> Option<&mut A> {
        self.touched = true;
        self.args.typed()?.downcast_mut()
    }

    /// Runs `f` with the call's outcome when the call ends, however it ends: the tool
    /// answered or failed, a later before hook blocked it, a cache answered it, or the
    /// call was cancelled (its future dropped: `f` gets [`Outcome::Cancelled`]). A hook
    /// that takes a resource here (a lock, a trial slot) releases it there, at once,
    /// rather than waiting for it to expire. `f` runs on the task that ends the call; it
    /// should not block (spawn the work if it must wait, as a store write does).
    ///
    /// [`Outcome::Cancelled`]: crate::Outcome::Cancelled
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use toolkit::prelude::*;
    /// use toolkit::{Decision, Hook, Outcome};
    ///
    /// /// Add two integers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let ended = Arc::new(Mutex::new(Vec::new()));
    /// let seen = Arc::clone(&ended);
    /// let watch = Hook::before("watch", move |call| {
    ///     let seen = Arc::clone(&seen);
    ///     call.on_end(move |outcome| seen.lock().unwrap().push(outcome));
    ///     Decision::Continue
    /// });
    /// let deny = Hook::before("deny", |_| Decision::Block("no".into())).priority(-1);
    /// let tools = toolbox![add].with_hook(watch).with_hook(deny);
    /// tools.call(ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#)).await;
    /// assert_eq!(*ended.lock().unwrap(), [Outcome::Blocked]);
    /// # }
    /// ```
    pub fn on_end(&mut self, f: impl FnOnce(crate::record::Outcome) + Send + Sync + 'static) {
        match self.ext.get_mut::<CallEnds>() {
            Some(ends) => ends.0.push(Box::new(f)),
            None => {
                self.ext.insert(CallEnds(vec![Box::new(f)]));
            }
        }
    }
}

context_common!(BeforeCall);

/// What runs when a call ends ([`BeforeCall::on_end`]). Dropped without being told the
/// outcome (the call's future was dropped), it reports the call as cancelled.
pub(crate) struct CallEnds(Vec<Box<dyn FnOnce(crate::record::Outcome) + Send + Sync>>);

impl CallEnds {
    /// Tells every watcher the call's outcome.
    pub(crate) fn ended(mut self, outcome: crate::record::Outcome) {
        for f in std::mem::take(&mut self.0) {
            f(outcome);
        }
    }
}

impl Drop for CallEnds {
    fn drop(&mut self) {
        for f in std::mem::take(&mut self.0) {
            f(crate::record::Outcome::Cancelled);
        }
    }
}

/// What an after hook sees: the output (raw and model-visible), the arguments the tool
/// ran with, and the call's [`Extensions`].
pub struct AfterCall<'a> {
    pub(crate) info: &'a CallInfo<'a>,
    pub(crate) output: &'a Output,
    pub(crate) rewrite: &'a mut Rewrite,
    pub(crate) args: Option<&'a mut (dyn ArgsSlot + 'a)>,
    pub(crate) ext: &'a mut Extensions,
    pub(crate) cached: bool,
    pub(crate) touched: bool,
}

impl<'a> AfterCall<'a> {
    /// The text the model will see (after earlier hooks' rewrites).
    pub fn text(&self) -> &str {
        self.rewrite.text.as_deref().unwrap_or(self.output.as_str())
    }

    /// Replaces the text the model will see.
    pub fn set_text(&mut self, text: impl Into<String>) {
        self.touched = true;
        self.rewrite.text = Some(text.into());
    }

    /// The text the model will see, to edit in place.
    pub fn text_mut(&mut self) -> &mut String {
        self.touched = true;
        let output = self.output;
        self.rewrite.text.get_or_insert_with(|| output.as_str().to_owned())
    }

    /// The parts the model will see besides the text (images, audio, files, links), after
    /// earlier hooks' rewrites. Empty for most tools.
    pub fn parts(&self) -> &[Part] {
        self.rewrite.parts.as_deref().unwrap_or(self.output.parts())
    }

    /// Replaces the parts (an empty list removes them). A part a hook adds is not checked
    /// against its MIME type: the hook vouches for it.
    pub fn set_parts(&mut self, parts: Vec<Part>) {
        self.touched = true;
        self.rewrite.parts = Some(parts);
    }

    /// The parts, to edit in place (shared bytes: copying the list copies no bytes).
    pub fn parts_mut(&mut self) -> &mut Vec<Part> {
        self.touched = true;
        let output = self.output;
        self.rewrite.parts.get_or_insert_with(|| output.parts().to_vec())
    }

    /// The output as the tool (or a before hook's `Return`) produced it; never altered.
    pub fn output(&self) -> &'a Output {
        self.output
    }

    /// The tool's raw typed return value (`Forecast`, not its JSON), when the tool
    /// returned a typed value of type `T` in this call and a hook acting on the call
    /// declared that it reads it ([`Hook::reading_raw`](crate::hook::Hook::reading_raw);
    /// a `#[hook(after)]` with a `raw` parameter does). `None` otherwise, and for a
    /// `Return`ed (cached) output.
    pub fn raw<T: Any>(&self) -> Option<&'a T> {
        self.output.raw()
    }

    /// Whether the output came from a before hook's `Return` (a cache hit).
    pub fn is_cached(&self) -> bool {
        self.cached
    }

    /// The arguments the tool ran with, as JSON (`None` for a run-time tool's call that
    /// never parsed).
    pub fn arguments(&mut self) -> Option<&Map<String, Value>> {
        Some(self.args.as_mut()?.json_ref(self.info.raw))
    }
}

context_common!(AfterCall);

/// What after hooks changed of an output: its text, its parts (`None`: unchanged).
#[derive(Clone, Default)]
pub(crate) struct Rewrite {
    pub(crate) text: Option<String>,
    pub(crate) parts: Option<Vec<Part>>,
}

impl Rewrite {
    /// The output with the changes made.
    #[inline]
    pub(crate) fn apply(self, output: &mut Output) {
        if let Some(text) = self.text {
            output.set_text(text);
        }
        if let Some(parts) = self.parts {
            output.set_parts(parts);
        }
    }
}

/// What an error hook sees: the failure, the arguments (when they parsed), and the
/// call's [`Extensions`].
pub struct ErrorCall<'a> {
    pub(crate) info: &'a CallInfo<'a>,
    pub(crate) error: &'a ToolError,
    pub(crate) args: Option<&'a mut (dyn ArgsSlot + 'a)>,
    pub(crate) ext: &'a mut Extensions,
}

impl<'a> ErrorCall<'a> {
    /// The failure (its `message` is what the model would see).
    pub fn error(&self) -> &'a ToolError {
        self.error
    }

    /// The failure's kind.
    pub fn kind(&self) -> ErrorKind {
        self.error.kind
    }

    /// Whether the tool may be run again safely (declared `read_only` or `idempotent`):
    /// only then is [`Recovery::Retry`](crate::hook::Recovery::Retry) honoured.
    pub fn retryable(&self) -> bool {
        self.info.spec.is_some_and(|s| s.annotations.repeatable())
    }

    /// The arguments as JSON, when they parsed.
    pub fn arguments(&mut self) -> Option<&Map<String, Value>> {
        Some(self.args.as_mut()?.json_ref(self.info.raw))
    }
}

context_common!(ErrorCall);
