//! State a built-in carries from its before hook to its after or error hook of the
//! *same* call, through the call's [`Extensions`]. Keyed by the hook instance, so two
//! instances of one built-in on one call (two caches, two breakers) keep theirs apart.

use crate::hook::Extensions;

/// Values of type `T`, one per hook instance.
pub(crate) struct Carried<T>(Vec<(usize, T)>);

impl<T: Send + Sync + 'static> Carried<T> {
    /// Leaves `value` for the instance `owner`.
    pub(crate) fn put(ext: &mut Extensions, owner: usize, value: T) {
        match ext.get_mut::<Carried<T>>() {
            Some(carried) => {
                carried.0.retain(|(o, _)| *o != owner);
                carried.0.push((owner, value));
            }
            None => {
                ext.insert(Carried(vec![(owner, value)]));
            }
        }
    }

    /// Takes what the instance `owner` left, if anything.
    pub(crate) fn take(ext: &mut Extensions, owner: usize) -> Option<T> {
        let carried = ext.get_mut::<Carried<T>>()?;
        let at = carried.0.iter().position(|(o, _)| *o == owner)?;
        Some(carried.0.swap_remove(at).1)
    }
}

/// The identity of a hook instance: the address of its shared state.
pub(crate) fn owner<T>(shared: &std::sync::Arc<T>) -> usize {
    std::sync::Arc::as_ptr(shared) as *const () as usize
}
