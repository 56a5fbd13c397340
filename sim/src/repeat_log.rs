//! A list that stores blocks repeated back to back once, with a count
//! ([`RepeatLog`]): the simulators' timing records (the R700's clause
//! events per wavefront, the X1K's issue segments per batch), so that a
//! run's memory follows the program's shape, not the iterations it runs —
//! a loop's iterations record the same items again and again. The cycle
//! models read the items back in order through [`RepeatLog::cursor`],
//! exactly as they were pushed.

/// Longest block (in items) that [`EventLog::push`] looks for a repeat of.
/// A loop iteration is a few items (its ALU and fetch clauses, its CF
/// instructions, an inner loop's repeat item), so short blocks suffice;
/// each push compares at most this many candidate blocks, by their last
/// item first.
const MAX_BLOCK: usize = 8;

/// One stored item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item<T> {
    /// One pushed item.
    One(T),
    /// The `len` items just before this one, expanded, occur `times` more
    /// times here.
    Repeat { len: u32, times: u32 },
}

/// Items in push order, compressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepeatLog<T> {
    items: Vec<Item<T>>,
    pushed: u64,
}

impl<T> Default for RepeatLog<T> {
    fn default() -> Self {
        RepeatLog {
            items: Vec::new(),
            pushed: 0,
        }
    }
}

impl<T: Copy + Eq> FromIterator<T> for RepeatLog<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut log = RepeatLog::new();
        for x in iter {
            log.push(x);
        }
        log
    }
}

impl<T: Copy + Eq> RepeatLog<T> {
    /// An empty log.
    pub fn new() -> RepeatLog<T> {
        RepeatLog::default()
    }

    /// Appends `item`. The items before it are final (only the last may
    /// still change, [`RepeatLog::last_mut`]), so they are compressed
    /// first.
    pub fn push(&mut self, item: T) {
        self.compress();
        self.items.push(Item::One(item));
        self.pushed += 1;
    }

    /// The last item, while nothing has been pushed after it (the R700's
    /// ALU clause event gets its group count when the clause ends).
    pub fn last_mut(&mut self) -> Option<&mut T> {
        match self.items.last_mut() {
            Some(Item::One(e)) => Some(e),
            _ => None,
        }
    }

    /// Items pushed.
    pub fn len(&self) -> u64 {
        self.pushed
    }

    /// `true` if nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Items stored (for tests and memory estimates).
    pub fn stored_items(&self) -> usize {
        self.items.len()
    }

    /// Reads the items from the first, in push order.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            frames: vec![Frame {
                start: 0,
                end: self.items.len(),
                pos: 0,
                left: 1,
            }],
        }
    }

    /// All items, expanded.
    pub fn to_vec(&self) -> Vec<T> {
        let mut c = self.cursor();
        std::iter::from_fn(|| c.next(self)).collect()
    }

    /// Collapses a repeated block at the end of the items, as long as one
    /// is found: `B R(len B, t) B` → `B R(t + 1)` and `B B` → `B R(1)`.
    fn compress(&mut self) {
        while self.compress_once() {}
    }

    fn compress_once(&mut self) -> bool {
        let n = self.items.len();
        for len in 1..=MAX_BLOCK.min(n / 2) {
            let block = n - len..n;
            // `... B R(len, t) B`: one more repetition.
            if n > 2 * len
                && let Item::Repeat { len: l, times } = self.items[n - len - 1]
                && l as usize == len
                && self.items[n - 1] == self.items[n - len - 2]
                && self.items[block.clone()] == self.items[n - 2 * len - 1..n - len - 1]
            {
                self.items.truncate(n - len);
                self.items[n - len - 1] = Item::Repeat {
                    len: l,
                    times: times + 1,
                };
                return true;
            }
            // `... B B`: the second copy becomes a repeat of the first,
            // if every repeat inside B stays inside B (then equal items
            // expand equally).
            if self.items[n - 1] == self.items[n - 1 - len]
                && self.items[block.clone()] == self.items[n - 2 * len..n - len]
                && self_contained(&self.items[n - 2 * len..n - len])
            {
                self.items.truncate(n - len);
                self.items.push(Item::Repeat {
                    len: len as u32,
                    times: 1,
                });
                return true;
            }
        }
        false
    }
}

/// `true` if each repeat item of `block` repeats only items of `block`.
fn self_contained<T>(block: &[Item<T>]) -> bool {
    block.iter().enumerate().all(|(k, item)| match item {
        Item::One(_) => true,
        Item::Repeat { len, .. } => *len as usize <= k,
    })
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    start: usize,
    end: usize,
    pos: usize,
    left: u32,
}

/// A reading position in a [`RepeatLog`] (the log is passed to
/// [`Cursor::next`], so that many cursors can read many logs).
#[derive(Clone, Debug)]
pub struct Cursor {
    frames: Vec<Frame>,
}

impl Cursor {
    /// The next item of `log`, or `None` at its end.
    pub fn next<T: Copy>(&mut self, log: &RepeatLog<T>) -> Option<T> {
        loop {
            let top = self.frames.last_mut()?;
            if top.pos == top.end {
                if top.left > 1 {
                    top.left -= 1;
                    top.pos = top.start;
                } else {
                    self.frames.pop();
                }
                continue;
            }
            let i = top.pos;
            top.pos += 1;
            match log.items.get(i)? {
                Item::One(e) => return Some(*e),
                Item::Repeat { len, times } => {
                    let start = i.checked_sub(*len as usize)?;
                    self.frames.push(Frame {
                        start,
                        end: i,
                        pos: start,
                        left: *times,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r700::wavefront::Event;
    use proptest::prelude::*;

    fn event(k: u8) -> Event {
        match k % 5 {
            0 => Event::Cf,
            1 => Event::Alu {
                groups: u32::from(k / 5),
            },
            2 => Event::Tex { n: 1 },
            3 => Event::Vtx { n: 2 },
            _ => Event::Export { n: 1 },
        }
    }

    fn log_of(events: &[Event]) -> RepeatLog<Event> {
        events.iter().copied().collect()
    }

    #[test]
    fn a_loop_of_a_million_iterations_is_a_few_items() {
        let mut events = vec![Event::Cf, Event::Tex { n: 2 }];
        for _ in 0..1_000_000 {
            events.extend([Event::Alu { groups: 3 }, Event::Cf]);
        }
        events.extend([Event::Alu { groups: 1 }, Event::Export { n: 1 }]);
        let log = log_of(&events);
        assert!(log.stored_items() <= 8, "{} items", log.stored_items());
        assert_eq!(log.len(), events.len() as u64);
        assert_eq!(log.to_vec(), events);
    }

    #[test]
    fn nested_loops_collapse_at_both_levels() {
        let mut events = Vec::new();
        for _ in 0..1000 {
            events.push(Event::Alu { groups: 2 });
            for _ in 0..500 {
                events.extend([Event::Alu { groups: 5 }, Event::Cf]);
            }
            events.push(Event::Cf);
        }
        // The last outer iteration is collapsed by the next push only.
        let log = log_of(&events);
        assert!(log.stored_items() <= 11, "{} items", log.stored_items());
        assert_eq!(log.to_vec(), events);
    }

    #[test]
    fn the_last_event_stays_mutable_until_the_next_push() {
        let mut log = log_of(&[Event::Alu { groups: 0 }, Event::Alu { groups: 0 }]);
        if let Some(Event::Alu { groups }) = log.last_mut() {
            *groups = 7;
        }
        log.push(Event::Cf);
        assert_eq!(
            log.to_vec(),
            [
                Event::Alu { groups: 0 },
                Event::Alu { groups: 7 },
                Event::Cf
            ]
        );
    }

    proptest! {
        /// Whatever is pushed reads back the same, in order: random
        /// sequences built from repeated random blocks (nested), so that
        /// compression happens in every shape.
        #[test]
        fn reads_back_what_was_pushed(
            parts in proptest::collection::vec(
                (proptest::collection::vec(0u8..12, 1..6), 1usize..6, 1usize..4),
                0..12,
            )
        ) {
            let mut events = Vec::new();
            for (block, inner, outer) in &parts {
                for _ in 0..*outer {
                    for _ in 0..*inner {
                        events.extend(block.iter().map(|&k| event(k)));
                    }
                    events.push(event(block[0].wrapping_add(1)));
                }
            }
            let log = log_of(&events);
            prop_assert_eq!(log.len(), events.len() as u64);
            prop_assert_eq!(log.to_vec(), events);
        }
    }
}
