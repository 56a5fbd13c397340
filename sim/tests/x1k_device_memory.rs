//! The sparse GPU address space (CTM §2.1.4): the default local/remote map,
//! byte and word access, sparse pages, and typed errors for unmapped,
//! out-of-range and misaligned accesses.

use ctm_sim::x1k::device::memory::{
    GpuMemory, MapError, MemoryError, MemoryKind, MemoryMap, MemoryRegion,
};

#[test]
fn default_map() {
    let map = MemoryMap::ctm_default();
    assert_eq!(map.region_of(0).map(|r| r.kind), Some(MemoryKind::Local));
    assert_eq!(
        map.region_of(0x1FFF_FFFF).map(|r| r.kind),
        Some(MemoryKind::Local)
    );
    assert_eq!(map.region_of(0x2000_0000), None);
    assert_eq!(map.region_of(0x7FFF_FFFF), None);
    assert_eq!(
        map.region_of(0x8000_0000).map(|r| r.kind),
        Some(MemoryKind::Remote)
    );
    assert_eq!(
        map.region_of(0x8FFF_FFFF).map(|r| r.kind),
        Some(MemoryKind::Remote)
    );
    assert_eq!(map.region_of(0x9000_0000), None);
    assert_eq!(map.region_of(0xFFFF_FFFF), None);
}

#[test]
fn sparse_reads_and_writes() {
    let mut mem = GpuMemory::new(MemoryMap::ctm_default());
    assert_eq!(
        mem.read_u32(0x1234_5678).unwrap(),
        0,
        "never written reads 0"
    );
    assert_eq!(mem.resident_pages(), 0);
    mem.write_u32(0x1000_0000, 0xDEAD_BEEF).unwrap();
    mem.write_u8(0x8000_0003, 0xAB).unwrap();
    assert_eq!(mem.resident_pages(), 2);
    assert_eq!(mem.read_u8(0x1000_0000).unwrap(), 0xEF, "little-endian");
    assert_eq!(mem.read_u32(0x8000_0000).unwrap(), 0xAB00_0000);
    // A write across a page boundary.
    mem.write_bytes(0xFFE, &[1, 2, 3, 4]).unwrap();
    assert_eq!(mem.read_u32(0x1000).unwrap() & 0xFFFF, 0x0403);
    assert_eq!(
        mem.read_words(0xFFC, 2).unwrap(),
        [0x0201_0000, 0x0000_0403]
    );
    assert_eq!(mem.write_bytes(0x10, &[1]).unwrap(), MemoryKind::Local);
}

#[test]
fn errors_are_typed() {
    let mut mem = GpuMemory::new(MemoryMap::ctm_default());
    assert_eq!(
        mem.read_u32(0x4000_0000),
        Err(MemoryError::Unmapped {
            address: 0x4000_0000
        })
    );
    assert_eq!(
        mem.write_u32(0x1FFF_FFFE & !3, 1),
        Ok(()),
        "last word of local memory"
    );
    assert_eq!(
        mem.write_bytes(0x1FFF_FFFE, &[0; 4]),
        Err(MemoryError::OutOfRange {
            address: 0x1FFF_FFFE,
            len_bytes: 4,
            region_end: 0x2000_0000
        })
    );
    assert_eq!(
        mem.read_u32(0x102),
        Err(MemoryError::Misaligned { address: 0x102 })
    );
    assert_eq!(
        mem.write_words(0x8000_0001, &[1]),
        Err(MemoryError::Misaligned {
            address: 0x8000_0001
        })
    );
    let mut big = vec![0u8; 8];
    assert!(mem.read_bytes(0x8FFF_FFFC, &mut big).is_err());
    // A failed write writes nothing.
    assert_eq!(mem.read_u32(0x1FFF_FFFC).unwrap(), 1);
}

#[test]
fn custom_maps_are_validated() {
    let region = |kind, base, size_bytes| MemoryRegion {
        kind,
        base,
        size_bytes,
    };
    assert!(MemoryMap::new(vec![region(MemoryKind::Local, 0, 0x1000)]).is_ok());
    assert_eq!(
        MemoryMap::new(vec![region(MemoryKind::Local, 0x10, 0x1000)]),
        Err(MapError::Unaligned {
            base: 0x10,
            size_bytes: 0x1000
        })
    );
    assert!(matches!(
        MemoryMap::new(vec![region(MemoryKind::Local, 0, 0)]),
        Err(MapError::Unaligned { .. })
    ));
    assert_eq!(
        MemoryMap::new(vec![region(MemoryKind::Remote, 0xFFFF_F000, 0x2000)]),
        Err(MapError::PastEnd {
            base: 0xFFFF_F000,
            size_bytes: 0x2000
        })
    );
    assert_eq!(
        MemoryMap::new(vec![
            region(MemoryKind::Remote, 0x2000, 0x2000),
            region(MemoryKind::Local, 0, 0x3000),
        ]),
        Err(MapError::Overlap {
            first: 0,
            second: 0x2000
        })
    );
    // A region may end exactly at 2^32.
    let top = MemoryMap::new(vec![region(MemoryKind::Remote, 0xFFFF_F000, 0x1000)]).unwrap();
    let mut mem = GpuMemory::new(top);
    mem.write_u32(0xFFFF_FFFC, 7).unwrap();
    assert_eq!(mem.read_u32(0xFFFF_FFFC).unwrap(), 7);
    assert!(mem.write_bytes(0xFFFF_FFFC, &[0; 5]).is_err());
}
