//! Which hooks act on one call, in which order ([`Plan`]).

use crate::hook::Hook;

/// The hooks that act on one call, from the three scopes, in the order they run, each
/// matched against the tool's name once: by priority (highest first), then scope
/// (global, toolbox, agent), then registration order.
///
/// The usual case, hooks from one scope only (already in order), borrows that list and
/// marks the matching hooks in a bit mask: nothing is copied or allocated. Hooks from
/// several scopes are merged into a list of references.
pub(crate) struct Plan<'a> {
    order: Order<'a>,
    pub(crate) before: bool,
    pub(crate) after: bool,
    pub(crate) error: bool,
    /// An after hook reads the typed output: the tool keeps it.
    pub(crate) raw: bool,
    /// Every hook here finishes without waiting (so a tool that never waits can run the
    /// whole pipeline with no future).
    sync: bool,
}

/// The iterator of [`Plan::iter`].
pub(crate) enum Iter<'p, 'a> {
    One(&'a [Hook], u64),
    Merged(std::slice::Iter<'p, &'a Hook>),
}

impl<'a> Iterator for Iter<'_, 'a> {
    type Item = &'a Hook;

    #[inline]
    fn next(&mut self) -> Option<&'a Hook> {
        match self {
            Iter::One(list, bits) => {
                if *bits == 0 {
                    return None;
                }
                let i = bits.trailing_zeros() as usize;
                *bits &= *bits - 1;
                list.get(i)
            }
            Iter::Merged(hooks) => hooks.next().copied(),
        }
    }
}

enum Order<'a> {
    /// One scope's hooks; bit `i` set when hook `i` acts on this call (up to 64 hooks).
    One(&'a [Hook], u64),
    /// Several scopes' hooks, merged, matching ones only.
    Merged(Vec<&'a Hook>),
}

impl<'a> Plan<'a> {
    /// The plan for a call of `tool`; `None` when no hook acts on it.
    pub(crate) fn new(lists: [&'a [Hook]; 3], tool: &str) -> Option<Self> {
        let mut plan =
            Plan { order: Order::One(&[], 0), before: false, after: false, error: false, raw: false, sync: true };
        match lists {
            // The usual case: hooks in one scope only, already in order.
            [only, [], []] | [[], only, []] | [[], [], only] if only.len() <= 64 => {
                let mut mask = 0u64;
                for (i, hook) in only.iter().enumerate() {
                    if hook.filter.matches(tool) {
                        mask |= 1 << i;
                        plan.note(hook);
                    }
                }
                if mask == 0 {
                    return None;
                }
                plan.order = Order::One(only, mask);
            }
            _ => {
                let mut merged = Vec::new();
                let mut at = [0usize; 3];
                loop {
                    let mut best: Option<(usize, &'a Hook)> = None;
                    for (i, list) in lists.iter().enumerate() {
                        if let Some(h) = list.get(at[i])
                            && best.is_none_or(|(_, b)| h.priority > b.priority)
                        {
                            best = Some((i, h));
                        }
                    }
                    let Some((i, hook)) = best else { break };
                    at[i] += 1;
                    if hook.filter.matches(tool) {
                        plan.note(hook);
                        merged.push(hook);
                    }
                }
                if merged.is_empty() {
                    return None;
                }
                plan.order = Order::Merged(merged);
            }
        }
        Some(plan)
    }

    #[inline]
    fn note(&mut self, hook: &Hook) {
        self.before |= hook.before.is_some();
        self.after |= hook.after.is_some();
        self.error |= hook.error.is_some();
        self.raw |= hook.reads_raw && hook.after.is_some();
        self.sync &= hook.is_sync();
    }

    /// The hooks, in order.
    #[inline]
    pub(crate) fn iter(&self) -> Iter<'_, 'a> {
        match &self.order {
            Order::One(list, mask) => Iter::One(list, *mask),
            Order::Merged(hooks) => Iter::Merged(hooks.iter()),
        }
    }

    /// What [`Plan::new`] finds for `tool` among one list of hooks (at most 64), kept so
    /// that later calls of the same tool need not match the hooks again.
    pub(crate) fn matching(list: &[Hook], tool: &str) -> Option<Matched> {
        if list.len() > 64 {
            return None;
        }
        let plan = Plan::new([list, &[], &[]], tool);
        Some(match plan {
            Some(Plan { order: Order::One(_, mask), before, after, error, raw, sync }) => {
                Matched { mask, before, after, error, raw, sync }
            }
            _ => Matched { mask: 0, before: false, after: false, error: false, raw: false, sync: true },
        })
    }

    /// The plan of one list of hooks from what [`Plan::matching`] found for the tool.
    #[inline]
    pub(crate) fn matched(list: &'a [Hook], m: Matched) -> Option<Self> {
        let Matched { mask, before, after, error, raw, sync } = m;
        (mask != 0).then_some(Plan { order: Order::One(list, mask), before, after, error, raw, sync })
    }

    /// Whether every hook finishes without waiting.
    pub(crate) fn is_sync(&self) -> bool {
        self.sync
    }
}

/// Which hooks of one list act on one tool (a [`Plan`] without its list).
#[derive(Clone, Copy)]
pub(crate) struct Matched {
    mask: u64,
    before: bool,
    after: bool,
    error: bool,
    raw: bool,
    sync: bool,
}
