//! The toolbox's index of tool names: where each tool sits in the table, by name.
//!
//! A name is looked up at every call, so this is on the call path: one hash of the
//! name, then slots of 8 bytes probed in a row (linear probing, the table at most half
//! full, so a probe reads one or two slots). A slot holds the top 32 bits of its name's
//! hash and the tool's place; the name itself is compared only when those bits match,
//! inline (every tool name is at most 64 bytes). The names are not
//! stored here: the table holds them, and the lookup borrows them from it.
//!
//! The same lookup serves a toolbox of 2 tools and of 100,000 (a scan of a few tools
//! is not cheaper than this), so a call costs the same whatever the toolbox's size.
//!
//! Hashed with foldhash, seeded per process: fast on short keys. A model's name can
//! only be looked up, never added, so the slots' layout is fixed by the program's own
//! names before any call; a crafted name cannot lengthen a probe beyond the longest run
//! of occupied slots.

use std::hash::{BuildHasher, Hasher};

/// A slot's place when it is empty.
const EMPTY: u32 = u32::MAX;

/// One slot: the top half of its name's hash (compared before the name), and the
/// place of the tool (`EMPTY`: none).
#[derive(Clone, Copy)]
struct Slot {
    tag: u32,
    place: u32,
}

const VACANT: Slot = Slot { tag: 0, place: EMPTY };

/// Where each name is, by its hash.
#[derive(Default)]
pub(super) struct NameIndex {
    /// A power of two in length (or empty), at most half full.
    slots: Box<[Slot]>,
    len: usize,
    hasher: foldhash::fast::RandomState,
}

impl NameIndex {
    /// The place of `name`, given each place's name.
    #[inline(always)]
    pub(super) fn find<'a>(&self, name: &str, name_at: impl Fn(usize) -> &'a str) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let hash = self.hash(name);
        let mask = self.slots.len() - 1;
        let tag = (hash >> 32) as u32;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.place == EMPTY {
                return None;
            }
            if slot.tag == tag && same(name_at(slot.place as usize).as_bytes(), name.as_bytes()) {
                return Some(slot.place as usize);
            }
            i = (i + 1) & mask;
        }
    }

    /// Records `name` at `place` (the caller has checked it is not there yet), growing
    /// the slots first when they would be more than half full.
    pub(super) fn insert<'a>(&mut self, name: &str, place: usize, name_at: impl Fn(usize) -> &'a str) {
        let place =
            u32::try_from(place).ok().filter(|&p| p != EMPTY).expect("a toolbox holds fewer than 2^32 - 1 tools");
        if (self.len + 1) * 2 > self.slots.len() {
            let grown = (self.slots.len() * 2).max(8);
            let old = std::mem::replace(&mut self.slots, vec![VACANT; grown].into_boxed_slice());
            for slot in old.iter().filter(|s| s.place != EMPTY) {
                let hash = self.hash(name_at(slot.place as usize));
                self.put(hash, slot.place);
            }
        }
        let hash = self.hash(name);
        self.put(hash, place);
        self.len += 1;
    }

    /// Puts a place in the first empty slot from its hash's.
    fn put(&mut self, hash: u64, place: u32) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i].place != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot { tag: (hash >> 32) as u32, place };
    }

    #[inline]
    fn hash(&self, name: &str) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(name.as_bytes());
        h.finish()
    }
}

/// Whether two names are equal, compared without a call (a call to `memcmp` costs more
/// than comparing a tool name, at most 64 bytes, here): 1 to 3 bytes one by one, 4 to 7
/// in two overlapping loads, longer ones a word at a time and the last word overlapping.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 4 {
        // 0 to 3 bytes: the first, middle and last cover them all.
        return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
    }
    if n < 8 {
        return word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4);
    }
    let mut at = 0;
    while at + 8 < n {
        if word::<8>(a, at) != word::<8>(b, at) {
            return false;
        }
        at += 8;
    }
    word::<8>(a, n - 8) == word::<8>(b, n - 8)
}

/// `N` bytes of `s` from `at`, as one value to compare.
#[inline(always)]
fn word<const N: usize>(s: &[u8], at: usize) -> [u8; N] {
    let mut w = [0; N];
    w.copy_from_slice(&s[at..at + N]);
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn index_of(names: &[String]) -> NameIndex {
        let mut index = NameIndex::default();
        for (place, name) in names.iter().enumerate() {
            index.insert(name, place, |i| &names[i]);
        }
        index
    }

    #[test]
    fn an_empty_index_finds_nothing() {
        let names: Vec<String> = Vec::new();
        assert_eq!(NameIndex::default().find("add", |i| &names[i]), None);
    }

    #[test]
    fn names_of_every_length_are_found_and_near_misses_are_not() {
        // Lengths 1 to 64: each branch of `same`, and names equal in their first and
        // last bytes but not in the middle.
        let names: Vec<String> = (1..=64).map(|n| "a".repeat(n)).collect();
        let index = index_of(&names);
        for (place, name) in names.iter().enumerate() {
            assert_eq!(index.find(name, |i| &names[i]), Some(place), "{name}");
            let mut middle = name.clone().into_bytes();
            let at = middle.len() / 2;
            middle[at] = b'b';
            let middle = String::from_utf8(middle).unwrap();
            assert_eq!(index.find(&middle, |i| &names[i]), None, "{middle}");
        }
        assert_eq!(index.find("", |i| &names[i]), None);
        assert_eq!(index.find(&"a".repeat(65), |i| &names[i]), None);
    }

    #[test]
    fn a_hundred_thousand_names_keep_their_places_as_the_index_grows() {
        let names: Vec<String> = (0..100_000).map(|i| format!("tool_{i}")).collect();
        let index = index_of(&names);
        assert!(index.slots.len() >= 2 * names.len() && index.slots.len() < 4 * names.len() + 8);
        for (place, name) in names.iter().enumerate() {
            assert_eq!(index.find(name, |i| &names[i]), Some(place));
        }
        assert_eq!(index.find("tool_100000", |i| &names[i]), None);
    }

    proptest! {
        /// `same` is `==`: for two strings of one length differing in at most one byte,
        /// anywhere (every branch, every word of the loop, the overlapping last word).
        #[test]
        fn same_is_byte_equality(a in proptest::collection::vec(any::<u8>(), 0..80), at in any::<usize>(), to in any::<u8>()) {
            let mut b = a.clone();
            if !b.is_empty() {
                let at = at % b.len();
                b[at] = to;
            }
            prop_assert_eq!(same(&a, &b), a == b);
            prop_assert!(same(&a, &a));
        }

        /// Against std's map: every name added is found at its place, and any other
        /// string is not found.
        #[test]
        fn agrees_with_a_hash_map(
            names in proptest::collection::hash_set("[a-zA-Z0-9_-]{1,64}", 0..200),
            others in proptest::collection::vec("[a-zA-Z0-9_-]{0,70}", 0..50),
        ) {
            let names: Vec<String> = names.into_iter().collect();
            let index = index_of(&names);
            let map: std::collections::HashMap<&str, usize> =
                names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
            for name in names.iter().chain(&others) {
                prop_assert_eq!(index.find(name, |i| &names[i]), map.get(name.as_str()).copied());
            }
        }
    }
}
