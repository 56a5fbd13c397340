//! Exports (EXPORT / EXPORT_DONE of type pixel, position, parameter:
//! `BURST_COUNT` GPRs swizzled to targets `ARRAY_BASE`..) and memory
//! writes (MEM_EXPORT to the scatter buffer, dword addressed) — manual
//! §3.4 L851-950, MEM_EXPORT page L2700-2732; digest §5.9.

use ctm_backend_r700::isa::{CfExport, CfMem, CfMemOp, ExportType, MemAccess, Sel};

use super::fault::FaultKind;
use super::wavefront::{Event, Wave};
use super::{ExportKind, WAVE};

fn gpr_at(w: &Wave<'_>, base: u32, n: u32, rel: bool) -> usize {
    let g = i64::from(base) + i64::from(n) + if rel { i64::from(w.lp.al) } else { 0 };
    if (0..128).contains(&g) { g as usize } else { 0 }
}

fn export_mask(w: &Wave<'_>, wqm: bool, vpm: bool) -> u64 {
    let mut m = w.active;
    if wqm {
        m = Wave::quads(m) & w.lanes;
    }
    if vpm {
        m &= w.valid;
    }
    m
}

/// EXPORT / EXPORT_DONE.
pub fn export(w: &mut Wave<'_>, e: &CfExport) {
    let burst = e.io.burst_count.get();
    w.out.events.push(Event::Export { n: burst });
    let mask = export_mask(w, e.io.flags.whole_quad_mode, e.io.flags.valid_pixel_mode);
    let kind = match e.export_type {
        ExportType::Pixel => ExportKind::Pixel,
        ExportType::Pos => ExportKind::Position,
        ExportType::Param => ExportKind::Parameter,
    };
    for n in 0..burst {
        let g = gpr_at(w, e.io.rw_gpr.get(), n, e.io.rw_rel);
        let target = e.io.array_base.get() + n;
        let mut values = [[0u32; 4]; WAVE];
        for (lane, v) in values.iter_mut().enumerate() {
            *v = std::array::from_fn(|c| w.get(g, c, lane));
        }
        let slot = w
            .out
            .exports
            .entry((kind, target))
            .or_insert_with(|| vec![None; WAVE]);
        for (lane, v) in values.iter().enumerate() {
            if mask >> lane & 1 == 0 {
                continue;
            }
            let mut out = slot[lane].unwrap_or([0; 4]);
            for (o, sel) in out.iter_mut().zip(e.swizzle) {
                match sel {
                    Sel::X => *o = v[0],
                    Sel::Y => *o = v[1],
                    Sel::Z => *o = v[2],
                    Sel::W => *o = v[3],
                    Sel::Zero => *o = 0,
                    Sel::One => *o = 0x3F80_0000,
                    Sel::Mask => {}
                }
            }
            slot[lane] = Some(out);
        }
    }
    let c = &mut w.out.counters;
    c.exports += 1;
    c.export_bytes += u64::from(mask.count_ones()) * 16 * u64::from(burst);
}

/// MEM_EXPORT writes (other memory types fault as unimplemented).
pub fn mem_write(w: &mut Wave<'_>, m: &CfMem) -> Result<(), FaultKind> {
    let burst = m.io.burst_count.get();
    w.out.events.push(Event::Export { n: burst });
    if m.op != CfMemOp::MemExport {
        return Err(FaultKind::Unimplemented {
            what: format!("memory export {}", m.op.mnemonic()),
        });
    }
    let indexed = match m.access {
        MemAccess::Write => false,
        MemAccess::WriteInd => true,
        MemAccess::ImportRead | MemAccess::ImportReadInd => {
            return Err(FaultKind::Unimplemented {
                what: "MEM_EXPORT read (import) types".into(),
            });
        }
    };
    let mask = export_mask(w, m.io.flags.whole_quad_mode, m.io.flags.valid_pixel_mode);
    let es = m.io.elem_size.get() + 1;
    let comp = m.comp_mask.get();
    let size = u64::from(m.array_size.get()) << 6;
    let idx_gpr = gpr_at(w, m.io.index_gpr.get(), 0, false);
    let mut written = 0u64;
    for lane in 0..WAVE {
        if mask >> lane & 1 == 0 {
            continue;
        }
        let index = if indexed {
            u64::from(w.get(idx_gpr, 0, lane))
        } else {
            0
        };
        for b in 0..burst {
            let g = gpr_at(w, m.io.rw_gpr.get(), b, m.io.rw_rel);
            // Per-pixel dword address = clamp(ARRAY_SIZE·64, burst·ES +
            // INDEX + ARRAY_BASE); ARRAY_SIZE 0 ("unused") does not clamp.
            let mut off = u64::from(b) * u64::from(es) + index + u64::from(m.io.array_base.get());
            if size != 0 {
                off = off.min(size);
            }
            for c in 0..es.min(4) {
                if comp >> c & 1 == 1 {
                    let v = w.get(g, c as usize, lane);
                    if let Ok(a) = u32::try_from(off + u64::from(c)) {
                        w.out.mem_writes.push((a, v));
                        written += 1;
                    }
                }
            }
        }
    }
    let c = &mut w.out.counters;
    c.mem_exports += 1;
    c.mem_write_bytes += written * 4;
    Ok(())
}
