//! Range-checked command parameter values (CTM §2.2): input and output
//! indices, heights, the domain, the output write mask. Each type can only
//! hold a value its parameter field can encode, so encoding a command is
//! total.

use std::fmt;

/// A program input, 0..=15 (`set_inp_fmt` parameter 0, bits 3:0).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct InputId(u8);

impl InputId {
    /// Number of inputs (CTM §2.1.4: "up to 16 distinct program inputs").
    pub const COUNT: usize = 16;

    /// `Some` for 0..=15.
    pub const fn new(index: u8) -> Option<Self> {
        if (index as usize) < Self::COUNT {
            Some(InputId(index))
        } else {
            None
        }
    }

    /// The index.
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// A program output, 0..=3 (`set_out_fmt` parameter 0, bits 1:0).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct OutputId(u8);

impl OutputId {
    /// Number of outputs (CTM §2.1.4: "up to 4 distinct program outputs").
    pub const COUNT: usize = 4;

    /// `Some` for 0..=3.
    pub const fn new(index: u8) -> Option<Self> {
        if (index as usize) < Self::COUNT {
            Some(OutputId(index))
        } else {
            None
        }
    }

    /// The index.
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// A height parameter, 0..=8191 (bits 12:0).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Height(u16);

impl Height {
    /// The largest height the field holds.
    pub const MAX: u32 = 0x1FFF;

    /// `Some` for 0..=8191.
    pub const fn new(rows: u32) -> Option<Self> {
        if rows <= Self::MAX {
            Some(Height(rows as u16))
        } else {
            None
        }
    }

    /// The row count.
    pub const fn get(self) -> u32 {
        self.0 as u32
    }
}

/// The per-channel output write mask (`set_out_mask`, bits 3:0; bit c =
/// channel c).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ChannelMask(u8);

impl ChannelMask {
    /// All four channels.
    pub const ALL: ChannelMask = ChannelMask(0xF);

    /// `Some` for 0..=15.
    pub const fn new(bits: u8) -> Option<Self> {
        if bits <= 0xF {
            Some(ChannelMask(bits))
        } else {
            None
        }
    }

    /// The mask bits.
    pub const fn bits(self) -> u8 {
        self.0
    }
}

impl Default for ChannelMask {
    fn default() -> Self {
        ChannelMask::ALL
    }
}

/// The execution domain {(i, j) | i0 ≤ i ≤ i1, j0 ≤ j ≤ j1} (CTM §2.1.2;
/// `set_domain`, each bound 12 bits). A domain with i1 < i0 or j1 < j0 is
/// empty.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Domain {
    i0: u16,
    j0: u16,
    i1: u16,
    j1: u16,
}

impl Domain {
    /// The largest bound (bits 11:0).
    pub const MAX_INDEX: u32 = 0xFFF;

    /// `Some` if every bound is at most 4095.
    pub const fn new(i0: u32, j0: u32, i1: u32, j1: u32) -> Option<Self> {
        if i0 > Self::MAX_INDEX
            || j0 > Self::MAX_INDEX
            || i1 > Self::MAX_INDEX
            || j1 > Self::MAX_INDEX
        {
            return None;
        }
        Some(Domain {
            i0: i0 as u16,
            j0: j0 as u16,
            i1: i1 as u16,
            j1: j1 as u16,
        })
    }

    /// The domain `0 ≤ i < width, 0 ≤ j < height`; `None` if empty or larger than 4096².
    pub const fn sized(width: u32, height: u32) -> Option<Self> {
        if width == 0 || height == 0 {
            return None;
        }
        Self::new(0, 0, width - 1, height - 1)
    }

    /// (i0, j0, i1, j1).
    pub const fn bounds(self) -> (u32, u32, u32, u32) {
        (
            self.i0 as u32,
            self.j0 as u32,
            self.i1 as u32,
            self.j1 as u32,
        )
    }

    /// Number of index pairs.
    pub const fn len(self) -> u64 {
        if self.i1 < self.i0 || self.j1 < self.j0 {
            0
        } else {
            (self.i1 as u64 - self.i0 as u64 + 1) * (self.j1 as u64 - self.j0 as u64 + 1)
        }
    }

    /// Whether the domain has no index pair.
    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The index pairs in row-major order (j outer, i inner): the order in
    /// which the PE schedules them.
    pub fn pairs(self) -> impl Iterator<Item = (u32, u32)> {
        let (i0, j0, i1, j1) = self.bounds();
        (j0..=j1).flat_map(move |j| (i0..=i1).map(move |i| (i, j)))
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})-({}, {})", self.i0, self.j0, self.i1, self.j1)
    }
}

/// Whether performance counters are enabled (`init_perf_counters` bit 0).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum PerfCounterMode {
    /// 0: disabled; the other counter commands have no effect.
    #[default]
    Disabled,
    /// 1: enabled.
    Enabled,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert!(InputId::new(15).is_some() && InputId::new(16).is_none());
        assert!(OutputId::new(3).is_some() && OutputId::new(4).is_none());
        assert!(Height::new(8191).is_some() && Height::new(8192).is_none());
        assert!(ChannelMask::new(15).is_some() && ChannelMask::new(16).is_none());
        assert!(Domain::new(0, 0, 4095, 4095).is_some());
        assert!(Domain::new(0, 0, 4096, 0).is_none());
    }

    #[test]
    fn domain_order_and_size() {
        let d = Domain::new(1, 5, 2, 6).unwrap();
        assert_eq!(
            d.pairs().collect::<Vec<_>>(),
            [(1, 5), (2, 5), (1, 6), (2, 6)]
        );
        assert_eq!(d.len(), 4);
        assert!(Domain::new(3, 0, 2, 0).unwrap().is_empty());
        assert_eq!(Domain::new(3, 0, 2, 0).unwrap().pairs().count(), 0);
    }
}
