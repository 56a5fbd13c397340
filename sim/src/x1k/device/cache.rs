//! The MC's caches, modelled just enough that the invalidate and flush
//! commands matter (CTM §2.1.4, §2.2.2).
//!
//! The guide names seven caches: instruction, float/int/bool constant and
//! input read caches, the output write cache and the conditional output
//! cache (read and written by the CO). Each is a [`Cache`]. The model
//! (`docs/ctm-device.md` §5):
//!
//! * **Granule**: a whole 4 KiB page (real lines are smaller; the page keeps
//!   the model cheap, since pages are reference-counted and copied on write).
//! * **Capacity**: unbounded; nothing is ever evicted. So a read cache keeps
//!   returning the data it first saw until it is invalidated, and a write
//!   cache keeps its data from memory until it is flushed. A real cache
//!   would sometimes hide a missing invalidate or flush by evicting; the
//!   model never does, so such a driver bug always shows.
//! * **Fill**: `start_program` fills each read cache with the pages of every
//!   client the program can read (its extent), those not already held. While
//!   the array runs, memory does not change (outputs are applied after the
//!   run), so filling up front equals filling on first touch.
//! * **Reads** hit the held page, or fall through to memory.
//! * **Writes** (output and conditional caches) allocate the page (fetching
//!   it), update the held copy and mark the bytes dirty; memory is not
//!   touched.
//! * **Flush** writes the dirty bytes back; the conditional cache keeps
//!   the pages (clean), the output cache, which nothing reads, drops them.
//! * **Invalidate** drops every page, dirty bytes included: their data is
//!   lost (a driver flushes before it invalidates).
//!
//! Host accesses ([`super::memory::GpuMemory`] directly) bypass the caches,
//! as the host's view of memory does.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::memory::{GpuMemory, MemoryError, PAGE_BYTES, Page, page_index, page_offset};

const DIRTY_WORDS: usize = PAGE_BYTES as usize / 64;

#[derive(Clone, Debug)]
struct CachedPage {
    data: Arc<Page>,
    /// One bit per byte written since the last flush.
    dirty: Option<Box<[u64; DIRTY_WORDS]>>,
}

/// What a flush does with the pages it wrote back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum AfterFlush {
    /// Keep them, clean: the conditional output cache, which is also read.
    Keep,
    /// Drop them: the output cache, which nothing reads, so dropping only
    /// saves memory (a later write re-fetches the page, flushed data and all).
    Release,
}

/// What a cache did, for statistics.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct CacheStats {
    /// Pages fetched from memory.
    pub page_fills: u64,
    /// Invalidate commands received.
    pub invalidations: u64,
    /// Flush commands received.
    pub flushes: u64,
    /// Bytes written back to memory by flushes.
    pub bytes_written_back: u64,
    /// Dirty bytes dropped by an invalidate.
    pub dirty_bytes_discarded: u64,
}

/// One MC cache (module doc).
#[derive(Clone, Debug)]
pub struct Cache {
    pages: BTreeMap<u32, CachedPage>,
    zero: Arc<Page>,
    stats: CacheStats,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            pages: BTreeMap::new(),
            zero: Arc::new([0; PAGE_BYTES as usize]),
            stats: CacheStats::default(),
        }
    }
}

impl Cache {
    /// Statistics so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Pages held.
    pub fn resident_pages(&self) -> usize {
        self.pages.len()
    }

    /// Bytes written but not yet flushed.
    pub fn dirty_bytes(&self) -> u64 {
        self.pages
            .values()
            .filter_map(|p| p.dirty.as_ref())
            .map(|d| d.iter().map(|w| u64::from(w.count_ones())).sum::<u64>())
            .sum()
    }

    fn fill_page(&mut self, memory: &GpuMemory, index: u32) -> &mut CachedPage {
        let zero = &self.zero;
        let stats = &mut self.stats;
        self.pages.entry(index).or_insert_with(|| {
            stats.page_fills += 1;
            CachedPage {
                data: memory.page(index).cloned().unwrap_or_else(|| zero.clone()),
                dirty: None,
            }
        })
    }

    /// Hold every mapped page that `len_bytes` bytes from `start` touch
    /// (wrapping at 2^32), fetching those not yet held.
    pub(crate) fn fill_range(&mut self, memory: &GpuMemory, start: u32, len_bytes: u64) {
        if len_bytes == 0 {
            return;
        }
        let first = u64::from(page_index(start));
        let last = (u64::from(start) + len_bytes - 1) / u64::from(PAGE_BYTES);
        let total_pages = 1u64 << 20;
        let count = (last - first + 1).min(total_pages);
        for k in 0..count {
            let index = ((first + k) % total_pages) as u32;
            if memory.page_mapped(index) {
                self.fill_page(memory, index);
            }
        }
    }

    /// Read through the cache: held pages answer, others fall through to memory.
    ///
    /// # Errors
    /// [`MemoryError`] if the range is unmapped or crosses a region end.
    pub(crate) fn read(
        &self,
        memory: &GpuMemory,
        address: u32,
        buf: &mut [u8],
    ) -> Result<(), MemoryError> {
        memory.map().check(address, buf.len() as u64)?;
        let mut done = 0usize;
        while done < buf.len() {
            let at = address + done as u32;
            let off = page_offset(at);
            let n = (PAGE_BYTES as usize - off).min(buf.len() - done);
            match self.pages.get(&page_index(at)) {
                Some(page) => buf[done..done + n].copy_from_slice(&page.data[off..off + n]),
                None => {
                    memory.read_bytes(at, &mut buf[done..done + n])?;
                }
            }
            done += n;
        }
        Ok(())
    }

    /// Write into the cache (write-allocate), marking the bytes dirty.
    ///
    /// # Errors
    /// [`MemoryError`] if the range is unmapped or crosses a region end;
    /// nothing is written then.
    pub(crate) fn write(
        &mut self,
        memory: &GpuMemory,
        address: u32,
        bytes: &[u8],
    ) -> Result<(), MemoryError> {
        memory.map().check(address, bytes.len() as u64)?;
        let mut done = 0usize;
        while done < bytes.len() {
            let at = address + done as u32;
            let off = page_offset(at);
            let n = (PAGE_BYTES as usize - off).min(bytes.len() - done);
            let page = self.fill_page(memory, page_index(at));
            Arc::make_mut(&mut page.data)[off..off + n].copy_from_slice(&bytes[done..done + n]);
            let dirty = page.dirty.get_or_insert_with(|| Box::new([0; DIRTY_WORDS]));
            for b in off..off + n {
                dirty[b / 64] |= 1 << (b % 64);
            }
            done += n;
        }
        Ok(())
    }

    /// Write every dirty byte back to memory; the pages stay held (clean)
    /// or are released, per `after`.
    ///
    /// # Errors
    /// [`MemoryError`] only if the memory map changed since the write.
    pub(crate) fn flush(
        &mut self,
        memory: &mut GpuMemory,
        after: AfterFlush,
    ) -> Result<(), MemoryError> {
        self.stats.flushes += 1;
        for (&index, page) in &mut self.pages {
            let Some(dirty) = page.dirty.take() else {
                continue;
            };
            let base = index.wrapping_mul(PAGE_BYTES);
            let mut b = 0usize;
            while b < PAGE_BYTES as usize {
                if dirty[b / 64] & (1 << (b % 64)) == 0 {
                    b += 1;
                    continue;
                }
                let start = b;
                while b < PAGE_BYTES as usize && dirty[b / 64] & (1 << (b % 64)) != 0 {
                    b += 1;
                }
                memory.write_bytes(base + start as u32, &page.data[start..b])?;
                self.stats.bytes_written_back += (b - start) as u64;
            }
        }
        if after == AfterFlush::Release {
            self.pages.clear();
        }
        Ok(())
    }

    /// Drop every page; dirty data is lost.
    pub(crate) fn invalidate(&mut self) {
        self.stats.invalidations += 1;
        self.stats.dirty_bytes_discarded += self.dirty_bytes();
        self.pages.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x1k::device::memory::MemoryMap;

    #[test]
    fn stale_until_invalidated() {
        let mut mem = GpuMemory::new(MemoryMap::ctm_default());
        mem.write_u32(0x1000, 7).unwrap();
        let mut cache = Cache::default();
        cache.fill_range(&mem, 0x1000, 4);
        mem.write_u32(0x1000, 8).unwrap();
        let mut b = [0u8; 4];
        cache.read(&mem, 0x1000, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 7);
        cache.invalidate();
        cache.read(&mem, 0x1000, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 8);
    }

    #[test]
    fn writes_reach_memory_on_flush_only() {
        let mut mem = GpuMemory::new(MemoryMap::ctm_default());
        mem.write_u32(0x2000, 0xAAAA_AAAA).unwrap();
        let mut cache = Cache::default();
        cache.write(&mem, 0x2001, &[0x55]).unwrap();
        assert_eq!(mem.read_u32(0x2000).unwrap(), 0xAAAA_AAAA);
        let mut b = [0u8; 4];
        cache.read(&mem, 0x2000, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 0xAAAA_55AA);
        // Memory changes under the held page; only the dirty byte is written back.
        mem.write_u32(0x2000, 0x1111_1111).unwrap();
        cache.flush(&mut mem, AfterFlush::Keep).unwrap();
        assert_eq!(mem.read_u32(0x2000).unwrap(), 0x1111_5511);
        assert_eq!(cache.stats().bytes_written_back, 1);
        assert_eq!(cache.dirty_bytes(), 0);
    }

    #[test]
    fn invalidate_discards_dirty_data() {
        let mut mem = GpuMemory::new(MemoryMap::ctm_default());
        let mut cache = Cache::default();
        cache.write(&mem, 0x3000, &[1, 2, 3]).unwrap();
        cache.invalidate();
        cache.flush(&mut mem, AfterFlush::Keep).unwrap();
        assert_eq!(mem.read_u32(0x3000).unwrap(), 0);
        assert_eq!(cache.stats().dirty_bytes_discarded, 3);
    }

    #[test]
    fn unmapped_is_an_error() {
        let mem = GpuMemory::new(MemoryMap::ctm_default());
        let mut cache = Cache::default();
        assert!(cache.write(&mem, 0x4000_0000, &[1]).is_err());
        let mut b = [0u8; 1];
        assert!(cache.read(&mem, 0x4000_0000, &mut b).is_err());
    }
}
