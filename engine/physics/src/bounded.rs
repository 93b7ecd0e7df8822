//! Lists read from a file with a limit on their length, checked before the list is allocated
//! and again as it is read: a few bytes of a compressed save can claim a billion elements, and
//! a list of `u32` written one byte an element grows fourfold in memory.
//!
//! A field opts in with `#[serde(deserialize_with = "bounded::vec::<_, _, Limit>")]`, where
//! `Limit` is a [`Most`] that names the list and its length limit. A list longer than its limit
//! is refused with a message that names it, its length and the limit ("7000000 free block
//! slots, more than the 2097152 a save may hold"). Binary formats such as postcard drop a
//! deserializer's own message, so the last refusal is also kept for this thread, and the
//! reader of the file takes it with [`take_refusal`] to say why.
//!
//! [`Budget`] does the same for a total over many lists (the blocks of every piece together),
//! through [`vec_within`].

use std::cell::{Cell, RefCell};
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A list's limit: its most elements and what it is called in a refusal.
pub trait Most {
    /// The most elements the list may hold.
    const MOST: usize;
    /// What the elements are, in the plural ("free block slots").
    const WHAT: &'static str;
}

/// Declares a [`Most`]: a unit struct that names a list (`"free block slots"`) and its limit.
#[macro_export]
macro_rules! most {
    ($(#[$doc:meta])* $name:ident, $most:expr, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name;
        impl $crate::bounded::Most for $name {
            const MOST: usize = $most;
            const WHAT: &'static str = $what;
        }
    };
}

thread_local! {
    /// The last refusal of a bounded list on this thread.
    static REFUSAL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The last list refused on this thread, if any, and forgets it: the reason a binary
/// deserializer could not keep.
pub fn take_refusal() -> Option<String> {
    REFUSAL.with(|refusal| refusal.borrow_mut().take())
}

/// Forgets any refusal kept on this thread (before reading a file).
pub fn clear_refusal() {
    REFUSAL.with(|refusal| *refusal.borrow_mut() = None);
}

/// Keeps `message` as this thread's last refusal ([`take_refusal`]), for a reader that
/// refuses a list of its own.
pub fn keep_refusal(message: &str) {
    REFUSAL.with(|refusal| *refusal.borrow_mut() = Some(message.to_owned()));
}

fn refuse<E: de::Error>(message: String) -> E {
    keep_refusal(&message);
    E::custom(message)
}

/// How a list of `length` elements of `what` over its limit `most` is refused.
pub fn over_limit(length: usize, what: &str, most: usize) -> String {
    format!("{length} {what}, more than the {most} a save may hold")
}

/// The refusal of `length` elements of `what` over `most`.
fn too_many<E: de::Error>(length: usize, what: &str, most: usize) -> E {
    refuse(over_limit(length, what, most))
}

/// Elements allocated ahead of the ones read: a list claiming more is grown as it is read.
const AHEAD: usize = 4096;

/// Reads a list of at most `L::MOST` elements ([`Most`]).
pub fn vec<'de, D, T, L>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
    L: Most,
{
    deserializer.deserialize_seq(Bounded::<T> {
        most: L::MOST,
        what: L::WHAT,
        budget: None,
        kind: PhantomData,
    })
}

/// A total shared by several lists: each list read through [`vec_within`] spends its length.
#[derive(Debug)]
pub struct Budget {
    left: Cell<usize>,
    most: usize,
    what: &'static str,
}

impl Budget {
    /// A budget of `most` elements of `what`, in all.
    pub fn new(most: usize, what: &'static str) -> Self {
        Self {
            left: Cell::new(most),
            most,
            what,
        }
    }
}

/// A seed that reads a list of at most `most` elements of `what` which also spends `budget`.
pub fn vec_within<'a, T>(
    most: usize,
    what: &'static str,
    budget: &'a Budget,
) -> BoundedSeed<'a, T> {
    BoundedSeed {
        most,
        what,
        budget,
        kind: PhantomData,
    }
}

/// See [`vec_within`].
#[derive(Debug)]
pub struct BoundedSeed<'a, T> {
    most: usize,
    what: &'static str,
    budget: &'a Budget,
    kind: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for BoundedSeed<'_, T> {
    type Value = Vec<T>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(Bounded::<T> {
            most: self.most,
            what: self.what,
            budget: Some(self.budget),
            kind: PhantomData,
        })
    }
}

struct Bounded<'a, T> {
    most: usize,
    what: &'static str,
    budget: Option<&'a Budget>,
    kind: PhantomData<T>,
}

impl<'a, T> Bounded<'a, T> {
    /// Spends `length` elements of the list (and of its budget), or refuses.
    fn check<E: de::Error>(&self, length: usize) -> Result<(), E> {
        if length > self.most {
            return Err(too_many(length, self.what, self.most));
        }
        if let Some(budget) = self.budget {
            if length > budget.left.get() {
                let spent = budget.most - budget.left.get() + length;
                return Err(too_many(spent, budget.what, budget.most));
            }
        }
        Ok(())
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Bounded<'_, T> {
    type Value = Vec<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(formatter, "a list of at most {} {}", self.most, self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let claimed = seq.size_hint().unwrap_or(0);
        self.check(claimed)?;
        let mut list = Vec::with_capacity(claimed.min(AHEAD));
        while let Some(element) = seq.next_element()? {
            self.check(list.len() + 1)?;
            list.push(element);
        }
        if let Some(budget) = self.budget {
            budget.left.set(budget.left.get() - list.len());
        }
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Three;
    impl Most for Three {
        const MOST: usize = 3;
        const WHAT: &'static str = "numbers";
    }

    #[derive(Debug, Deserialize)]
    struct Numbers {
        #[serde(deserialize_with = "vec::<_, _, Three>")]
        numbers: Vec<u32>,
    }

    #[test]
    fn a_list_over_its_limit_is_refused_by_name_before_it_is_read() {
        let fits: Numbers = postcard::from_bytes(&[3, 1, 2, 3]).expect("three numbers");
        assert_eq!(fits.numbers, [1, 2, 3]);
        clear_refusal();
        // A claim of 2^28 numbers with none after it: postcard sees too few bytes and hides
        // the claim; the list is read one by one and ends short, nothing allocated.
        let claim = postcard::to_stdvec(&(1u32 << 28)).unwrap();
        assert!(postcard::from_bytes::<Numbers>(&claim).is_err());
        // Four numbers claimed and there: refused on the claim.
        assert!(postcard::from_bytes::<Numbers>(&[4, 1, 2, 3, 4]).is_err());
        let refusal = take_refusal().expect("the reason is kept");
        assert_eq!(refusal, "4 numbers, more than the 3 a save may hold");
        assert_eq!(take_refusal(), None, "taken once");
        let json: Result<Numbers, _> = serde_json::from_str(r#"{"numbers": [1, 2, 3, 4]}"#);
        let error = json.expect_err("four numbers").to_string();
        assert!(error.contains("4 numbers, more than the 3"), "{error}");
    }

    #[test]
    fn a_budget_is_spent_across_lists() {
        let budget = Budget::new(5, "blocks in all");
        let mut first = postcard::Deserializer::from_bytes(&[3, 1, 2, 3]);
        let read: Vec<u32> = vec_within(4, "blocks", &budget)
            .deserialize(&mut first)
            .expect("three of five");
        assert_eq!(read.len(), 3);
        let mut second = postcard::Deserializer::from_bytes(&[3, 1, 2, 3]);
        let over = vec_within::<u32>(4, "blocks", &budget).deserialize(&mut second);
        assert!(over.is_err());
        assert_eq!(
            take_refusal().as_deref(),
            Some("6 blocks in all, more than the 5 a save may hold")
        );
    }
}
