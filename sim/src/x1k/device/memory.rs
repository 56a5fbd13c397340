//! The GPU's 32-bit address space: local (GPU-private) and remote (system)
//! memory, stored sparsely.
//!
//! CTM §2.1.4: "An MC memory address is a 32-bit unsigned integer. The MC
//! distinguishes between local and remote memory by maintaining distinct
//! address ranges for each, within its 32-bit address range. The address
//! mapping is system-dependent and is described in the ATI CTM Device
//! Interface." The simulator's mapping is a [`MemoryMap`]: a list of
//! page-aligned regions, each local or remote. [`MemoryMap::ctm_default`]
//! is the one the host helpers use (`docs/ctm-device.md` §2):
//!
//! | range | kind | size |
//! |---|---|---|
//! | `0x0000_0000 ..= 0x1FFF_FFFF` | local (GPU memory) | 512 MiB |
//! | `0x8000_0000 ..= 0x8FFF_FFFF` | remote (system memory) | 256 MiB |
//!
//! Every other address is unmapped, and touching it is a
//! [`MemoryError`], never a panic. Inside a region, memory is a map of
//! 4 KiB pages created on first write; a page never written reads as zeros.
//! Pages are reference-counted and copied on write, so the MC's read caches
//! ([`super::cache`]) can hold cheap snapshots of them.

use std::collections::BTreeMap;
use std::sync::Arc;

/// Bytes per page (the unit of sparse storage and of the cache model).
pub const PAGE_BYTES: u32 = 4096;

/// One page of memory.
pub type Page = [u8; PAGE_BYTES as usize];

/// Local (GPU-private) or remote (system, host-visible) memory (CTM §2.1.4).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MemoryKind {
    /// Memory accessible only through the MC.
    Local,
    /// Memory accessible by the MC and the host processor.
    Remote,
}

/// One mapped range of the address space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MemoryRegion {
    /// Local or remote.
    pub kind: MemoryKind,
    /// First address (page-aligned).
    pub base: u32,
    /// Size in bytes (a non-zero multiple of [`PAGE_BYTES`]).
    pub size_bytes: u32,
}

impl MemoryRegion {
    /// One past the last address, as a `u64` (a region may end at 2^32).
    pub fn end(&self) -> u64 {
        u64::from(self.base) + u64::from(self.size_bytes)
    }

    fn contains(&self, address: u32) -> bool {
        address >= self.base && u64::from(address) < self.end()
    }
}

/// Why a [`MemoryMap`] cannot be built.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum MapError {
    /// A region's base or size is not a multiple of the page size, or its size is 0.
    #[error("region {base:#010x}+{size_bytes:#x} is not page-aligned or is empty")]
    Unaligned {
        /// The region's base.
        base: u32,
        /// The region's size.
        size_bytes: u32,
    },
    /// A region runs past the end of the 32-bit address space.
    #[error("region {base:#010x}+{size_bytes:#x} runs past 2^32")]
    PastEnd {
        /// The region's base.
        base: u32,
        /// The region's size.
        size_bytes: u32,
    },
    /// Two regions overlap.
    #[error("regions at {first:#010x} and {second:#010x} overlap")]
    Overlap {
        /// The lower region's base.
        first: u32,
        /// The higher region's base.
        second: u32,
    },
}

/// The local and remote ranges of the address space.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MemoryMap {
    regions: Vec<MemoryRegion>,
}

impl MemoryMap {
    /// Base of local memory in the default map.
    pub const LOCAL_BASE: u32 = 0x0000_0000;
    /// Size of local memory in the default map (512 MiB, an X1900's frame buffer).
    pub const LOCAL_BYTES: u32 = 0x2000_0000;
    /// Base of remote (system) memory in the default map.
    pub const REMOTE_BASE: u32 = 0x8000_0000;
    /// Size of remote memory in the default map (256 MiB).
    pub const REMOTE_BYTES: u32 = 0x1000_0000;

    /// The simulator's default mapping (module doc).
    pub fn ctm_default() -> Self {
        MemoryMap {
            regions: vec![
                MemoryRegion {
                    kind: MemoryKind::Local,
                    base: Self::LOCAL_BASE,
                    size_bytes: Self::LOCAL_BYTES,
                },
                MemoryRegion {
                    kind: MemoryKind::Remote,
                    base: Self::REMOTE_BASE,
                    size_bytes: Self::REMOTE_BYTES,
                },
            ],
        }
    }

    /// A custom mapping.
    ///
    /// # Errors
    /// [`MapError`] if a region is empty, not page-aligned, runs past 2^32,
    /// or overlaps another.
    pub fn new(mut regions: Vec<MemoryRegion>) -> Result<Self, MapError> {
        for r in &regions {
            if r.size_bytes == 0
                || !r.base.is_multiple_of(PAGE_BYTES)
                || !r.size_bytes.is_multiple_of(PAGE_BYTES)
            {
                return Err(MapError::Unaligned {
                    base: r.base,
                    size_bytes: r.size_bytes,
                });
            }
            if r.end() > 1 << 32 {
                return Err(MapError::PastEnd {
                    base: r.base,
                    size_bytes: r.size_bytes,
                });
            }
        }
        regions.sort_by_key(|r| r.base);
        for pair in regions.windows(2) {
            if pair[0].end() > u64::from(pair[1].base) {
                return Err(MapError::Overlap {
                    first: pair[0].base,
                    second: pair[1].base,
                });
            }
        }
        Ok(MemoryMap { regions })
    }

    /// The regions, lowest first.
    pub fn regions(&self) -> &[MemoryRegion] {
        &self.regions
    }

    /// The region holding `address`, if any.
    pub fn region_of(&self, address: u32) -> Option<&MemoryRegion> {
        self.regions.iter().find(|r| r.contains(address))
    }

    /// Check that `len_bytes` bytes from `address` lie inside one region.
    ///
    /// # Errors
    /// [`MemoryError::Unmapped`] if `address` is in no region,
    /// [`MemoryError::OutOfRange`] if the access runs past its region's end.
    pub fn check(&self, address: u32, len_bytes: u64) -> Result<MemoryKind, MemoryError> {
        let region = self
            .region_of(address)
            .ok_or(MemoryError::Unmapped { address })?;
        if u64::from(address).saturating_add(len_bytes) > region.end() {
            return Err(MemoryError::OutOfRange {
                address,
                len_bytes,
                region_end: region.end(),
            });
        }
        Ok(region.kind)
    }
}

impl Default for MemoryMap {
    fn default() -> Self {
        Self::ctm_default()
    }
}

/// A failed memory access.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum MemoryError {
    /// The address lies in no local or remote region.
    #[error("address {address:#010x} is not mapped")]
    Unmapped {
        /// The address.
        address: u32,
    },
    /// The access starts inside a region but runs past its end.
    #[error("{len_bytes}-byte access at {address:#010x} runs past the region end {region_end:#x}")]
    OutOfRange {
        /// The first address.
        address: u32,
        /// The access size.
        len_bytes: u64,
        /// One past the region's last address.
        region_end: u64,
    },
    /// A word access at an address that is not a multiple of 4.
    #[error("word access at {address:#010x} is not 4-byte aligned")]
    Misaligned {
        /// The address.
        address: u32,
    },
}

/// Index of the page holding `address`.
pub(crate) const fn page_index(address: u32) -> u32 {
    address / PAGE_BYTES
}

/// Offset of `address` inside its page.
pub(crate) const fn page_offset(address: u32) -> usize {
    (address % PAGE_BYTES) as usize
}

/// The sparse GPU address space.
#[derive(Clone, Debug, Default)]
pub struct GpuMemory {
    map: MemoryMap,
    pages: BTreeMap<u32, Arc<Page>>,
}

impl GpuMemory {
    /// Empty memory with the given map.
    pub fn new(map: MemoryMap) -> Self {
        GpuMemory {
            map,
            pages: BTreeMap::new(),
        }
    }

    /// The address map.
    pub fn map(&self) -> &MemoryMap {
        &self.map
    }

    /// Number of pages that have been written (the sparse footprint).
    pub fn resident_pages(&self) -> usize {
        self.pages.len()
    }

    /// The stored page `index`, if it was ever written (crate-internal:
    /// the caches snapshot pages through it).
    pub(crate) fn page(&self, index: u32) -> Option<&Arc<Page>> {
        self.pages.get(&index)
    }

    /// Whether page `index` lies in a mapped region.
    pub(crate) fn page_mapped(&self, index: u32) -> bool {
        self.map.region_of(index.wrapping_mul(PAGE_BYTES)).is_some()
    }

    /// Read `buf.len()` bytes from `address`.
    ///
    /// # Errors
    /// [`MemoryError`] if any byte is unmapped or the access crosses a region end.
    pub fn read_bytes(&self, address: u32, buf: &mut [u8]) -> Result<MemoryKind, MemoryError> {
        let kind = self.map.check(address, buf.len() as u64)?;
        let mut done = 0usize;
        while done < buf.len() {
            // `check` guarantees no overflow past the region (hence past 2^32).
            let at = address + done as u32;
            let off = page_offset(at);
            let n = (PAGE_BYTES as usize - off).min(buf.len() - done);
            match self.pages.get(&page_index(at)) {
                Some(page) => buf[done..done + n].copy_from_slice(&page[off..off + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
        }
        Ok(kind)
    }

    /// Write `bytes` at `address`.
    ///
    /// # Errors
    /// [`MemoryError`] if any byte is unmapped or the access crosses a region
    /// end; nothing is written then.
    pub fn write_bytes(&mut self, address: u32, bytes: &[u8]) -> Result<MemoryKind, MemoryError> {
        let kind = self.map.check(address, bytes.len() as u64)?;
        let mut done = 0usize;
        while done < bytes.len() {
            let at = address + done as u32;
            let off = page_offset(at);
            let n = (PAGE_BYTES as usize - off).min(bytes.len() - done);
            let page = self
                .pages
                .entry(page_index(at))
                .or_insert_with(|| Arc::new([0; PAGE_BYTES as usize]));
            Arc::make_mut(page)[off..off + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
        }
        Ok(kind)
    }

    /// Read one byte.
    ///
    /// # Errors
    /// [`MemoryError::Unmapped`].
    pub fn read_u8(&self, address: u32) -> Result<u8, MemoryError> {
        let mut b = [0u8];
        self.read_bytes(address, &mut b)?;
        Ok(b[0])
    }

    /// Write one byte.
    ///
    /// # Errors
    /// [`MemoryError::Unmapped`].
    pub fn write_u8(&mut self, address: u32, value: u8) -> Result<(), MemoryError> {
        self.write_bytes(address, &[value]).map(|_| ())
    }

    /// Read a little-endian 32-bit word at a 4-byte-aligned address.
    ///
    /// # Errors
    /// [`MemoryError::Misaligned`], or an unmapped/out-of-range access.
    pub fn read_u32(&self, address: u32) -> Result<u32, MemoryError> {
        if !address.is_multiple_of(4) {
            return Err(MemoryError::Misaligned { address });
        }
        let mut b = [0u8; 4];
        self.read_bytes(address, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Write a little-endian 32-bit word at a 4-byte-aligned address.
    ///
    /// # Errors
    /// [`MemoryError::Misaligned`], or an unmapped/out-of-range access.
    pub fn write_u32(&mut self, address: u32, value: u32) -> Result<(), MemoryError> {
        if !address.is_multiple_of(4) {
            return Err(MemoryError::Misaligned { address });
        }
        self.write_bytes(address, &value.to_le_bytes()).map(|_| ())
    }

    /// Write consecutive little-endian words from a 4-byte-aligned address.
    ///
    /// # Errors
    /// As [`GpuMemory::write_u32`]; nothing is written on error.
    pub fn write_words(&mut self, address: u32, words: &[u32]) -> Result<(), MemoryError> {
        if !address.is_multiple_of(4) {
            return Err(MemoryError::Misaligned { address });
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_bytes(address, &bytes).map(|_| ())
    }

    /// Read `count` consecutive little-endian words from a 4-byte-aligned address.
    ///
    /// # Errors
    /// As [`GpuMemory::read_u32`].
    pub fn read_words(&self, address: u32, count: u32) -> Result<Vec<u32>, MemoryError> {
        if !address.is_multiple_of(4) {
            return Err(MemoryError::Misaligned { address });
        }
        let mut bytes = vec![0u8; count as usize * 4];
        self.read_bytes(address, &mut bytes)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}
