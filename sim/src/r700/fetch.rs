//! Fetch clauses: texture fetch (SAMPLE, SAMPLE_L/LB/LZ and LD on 2-D
//! textures: point sampling, clamp to edge, unnormalised or normalised
//! coordinates, the ABI's formats), vertex fetch (32-bit and 8_8_8_8
//! formats) and scatter memory reads (manual §5-7, digest §5.9). Fetch
//! instructions are not predicated: the clause runs for the lanes passing
//! its CF instruction's condition (L2097).

use ctm_backend_r700::isa::{
    CoordType, DataFormat, FormatComp, MemRdOp, NumFormat, Sel, TexInst, TexOp, TexSrcSel,
    VtxClauseInst, VtxDst,
};

use super::cf::Stop;
use super::fault::{FaultKind, FaultLoc};
use super::wavefront::Wave;
use super::{TexFormat, Texture, WAVE};

const ONE: u32 = 0x3F80_0000;

fn swizzle(v: [u32; 4], sel: Sel, one: u32) -> Option<u32> {
    match sel {
        Sel::X => Some(v[0]),
        Sel::Y => Some(v[1]),
        Sel::Z => Some(v[2]),
        Sel::W => Some(v[3]),
        Sel::Zero => Some(0),
        Sel::One => Some(one),
        Sel::Mask => None,
    }
}

fn gpr_index(w: &Wave<'_>, base: u32, rel: bool) -> usize {
    let g = i64::from(base) + if rel { i64::from(w.lp.al) } else { 0 };
    // Relative out of range: GPR0 (L946, L1346).
    if (0..128).contains(&g) { g as usize } else { 0 }
}

/// Read one texel of `t` at integer (x, y), clamped to the edge.
fn texel(t: &Texture, x: i64, y: i64) -> [u32; 4] {
    let w = i64::from(t.width.max(1));
    let h = i64::from(t.height.max(1));
    let (x, y) = (x.clamp(0, w - 1), y.clamp(0, h - 1));
    let bytes = t.format.bytes();
    let at = ((y * w + x) as usize) * bytes;
    let Some(d) = t.data.get(at..at + bytes) else {
        return [0, 0, 0, ONE];
    };
    let dw = |i: usize| u32::from_le_bytes([d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]]);
    match t.format {
        TexFormat::R32Float => [dw(0), 0, 0, ONE],
        TexFormat::Rg32Float => [dw(0), dw(1), 0, ONE],
        TexFormat::Rgba32Float => [dw(0), dw(1), dw(2), dw(3)],
        TexFormat::Rgba8Unorm => d[..4]
            .iter()
            .map(|&b| (f32::from(b) / 255.0).to_bits())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap_or([0; 4]),
        TexFormat::R16Uint => [
            f32::from(u16::from_le_bytes([d[0], d[1]])).to_bits(),
            0,
            0,
            ONE,
        ],
    }
}

fn coord(c: f32) -> i64 {
    if c.is_nan() {
        0
    } else {
        c.floor().clamp(-1.0e9, 1.0e9) as i64
    }
}

/// Run a TEX clause for the lanes in `mask`.
pub fn tex_clause(
    w: &mut Wave<'_>,
    pc: u32,
    addr: u32,
    insts: &[TexInst],
    mask: u64,
) -> Result<(), Stop> {
    for (i, t) in insts.iter().enumerate() {
        let loc = FaultLoc::Fetch {
            cf: pc,
            clause: addr,
            inst: i as u32,
        };
        let ld = match t.op {
            TexOp::Ld => true,
            TexOp::Sample | TexOp::SampleL | TexOp::SampleLb | TexOp::SampleLz => false,
            other => {
                return Err(w
                    .fault(
                        loc,
                        FaultKind::Unimplemented {
                            what: format!("texture instruction {}", other.mnemonic()),
                        },
                    )
                    .into());
            }
        };
        let Some(tex) = w.launch.textures.get(&t.resource_id) else {
            return Err(w
                .fault(
                    loc,
                    FaultKind::MissingResource {
                        what: format!("texture resource {}", t.resource_id),
                    },
                )
                .into());
        };
        let m = if t.fetch_whole_quad {
            Wave::quads(mask) & w.lanes
        } else {
            mask
        };
        let src = gpr_index(w, t.src_gpr.get(), t.src_rel);
        let dst = gpr_index(w, t.dst_gpr.get(), t.dst_rel);
        let size = [tex.width, tex.height];
        let mut results = [[0u32; 4]; WAVE];
        for (lane, r) in results.iter_mut().enumerate() {
            if m >> lane & 1 == 0 {
                continue;
            }
            let mut xy = [0i64; 2];
            for (k, p) in xy.iter_mut().enumerate() {
                let bits = match t.src_sel[k] {
                    TexSrcSel::X => w.get(src, 0, lane),
                    TexSrcSel::Y => w.get(src, 1, lane),
                    TexSrcSel::Z => w.get(src, 2, lane),
                    TexSrcSel::W => w.get(src, 3, lane),
                    TexSrcSel::Zero => 0,
                    TexSrcSel::One => {
                        if ld {
                            1
                        } else {
                            ONE
                        }
                    }
                };
                let off = i64::from(t.offset[k].get());
                *p = if ld {
                    i64::from(bits as i32) + off
                } else {
                    let mut c = f32::from_bits(bits);
                    if t.coord_type[k] == CoordType::Normalized {
                        c *= size[k] as f32;
                    }
                    coord(c) + off
                };
            }
            *r = texel(tex, xy[0], xy[1]);
        }
        for (lane, r) in results.iter().enumerate() {
            if m >> lane & 1 == 0 {
                continue;
            }
            for c in 0..4 {
                if let Some(v) = swizzle(*r, t.dst_sel[c], ONE) {
                    w.set(dst, c, lane, v);
                }
            }
        }
        let cnt = &mut w.out.counters;
        cnt.tex_insts += 1;
        cnt.fetch_bytes += u64::from(m.count_ones()) * tex.format.bytes() as u64;
    }
    Ok(())
}

/// Decode `n` components of a vertex/memory format at `data[at..]`.
fn decode_vertex(
    data: &[u8],
    at: usize,
    fmt: DataFormat,
    num: NumFormat,
    comp: FormatComp,
) -> Option<[u32; 4]> {
    let (n, bytes_per, float) = match fmt {
        DataFormat::F32 => (1, 4, false),
        DataFormat::F32Float => (1, 4, true),
        DataFormat::F32_32 => (2, 4, false),
        DataFormat::F32_32Float => (2, 4, true),
        DataFormat::F32_32_32 => (3, 4, false),
        DataFormat::F32_32_32Float => (3, 4, true),
        DataFormat::F32_32_32_32 => (4, 4, false),
        DataFormat::F32_32_32_32Float => (4, 4, true),
        DataFormat::F8_8_8_8 => (4, 1, false),
        _ => return None,
    };
    let int_one = num == NumFormat::Int;
    let mut out = [0, 0, 0, if float || !int_one { ONE } else { 1 }];
    for (c, o) in out.iter_mut().enumerate().take(n) {
        let p = at + c * bytes_per;
        let raw = match data.get(p..p + bytes_per) {
            Some(b) if bytes_per == 4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            Some(b) => u32::from(b[0]),
            None => 0,
        };
        *o = if float {
            raw
        } else {
            let signed = comp == FormatComp::Signed;
            let bits = 8 * bytes_per as u32;
            let sval = if signed && bits < 32 {
                ((raw << (32 - bits)) as i32 >> (32 - bits)) as f64
            } else if signed {
                f64::from(raw as i32)
            } else {
                f64::from(raw)
            };
            match num {
                NumFormat::Int => {
                    if signed && bits < 32 {
                        sval as i32 as u32
                    } else {
                        raw
                    }
                }
                NumFormat::Scaled => (sval as f32).to_bits(),
                NumFormat::Norm => {
                    let max = if signed {
                        f64::from((1u64 << (bits - 1)) as u32) - 1.0
                    } else {
                        ((1u64 << bits) - 1) as f64
                    };
                    ((sval / max).max(-1.0) as f32).to_bits()
                }
            }
        };
    }
    Some(out)
}

/// Run a VTX/VTX_TC clause (vertex fetches and memory reads) for `mask`.
pub fn vtx_clause(
    w: &mut Wave<'_>,
    pc: u32,
    addr: u32,
    insts: &[VtxClauseInst],
    mask: u64,
) -> Result<(), Stop> {
    for (i, inst) in insts.iter().enumerate() {
        let loc = FaultLoc::Fetch {
            cf: pc,
            clause: addr,
            inst: i as u32,
        };
        let unimpl = |w: &Wave<'_>, what: String| -> Stop {
            w.fault(loc, FaultKind::Unimplemented { what }).into()
        };
        match inst {
            VtxClauseInst::Fetch(v) => {
                let VtxDst::Gpr { gpr, rel } = v.dst else {
                    return Err(unimpl(w, "vertex fetch SEMANTIC".into()));
                };
                if v.use_const_fields {
                    return Err(unimpl(w, "vertex fetch USE_CONST_FIELDS".into()));
                }
                let Some(buf) = w.launch.vertex_buffers.get(&v.buffer_id) else {
                    return Err(w
                        .fault(
                            loc,
                            FaultKind::MissingResource {
                                what: format!("vertex buffer {}", v.buffer_id),
                            },
                        )
                        .into());
                };
                let src = gpr_index(w, v.src_gpr.get(), v.src_rel);
                let dst = gpr_index(w, gpr.get(), rel);
                let f = v.format;
                let mut results = [[0u32; 4]; WAVE];
                for (lane, r) in results.iter_mut().enumerate() {
                    if mask >> lane & 1 == 0 {
                        continue;
                    }
                    let index = w.get(src, v.src_sel_x.index(), lane);
                    let at = u64::from(index) * u64::from(buf.stride) + u64::from(v.offset);
                    let Some(val) = decode_vertex(
                        &buf.data,
                        usize::try_from(at).unwrap_or(usize::MAX / 2),
                        f.data_format,
                        f.num_format,
                        f.format_comp,
                    ) else {
                        return Err(unimpl(
                            w,
                            format!("vertex fetch format {}", f.data_format.mnemonic()),
                        ));
                    };
                    *r = val;
                }
                for (lane, r) in results.iter().enumerate() {
                    if mask >> lane & 1 == 1 {
                        for c in 0..4 {
                            if let Some(x) = swizzle(*r, v.dst_sel[c], ONE) {
                                w.set(dst, c, lane, x);
                            }
                        }
                    }
                }
                let cnt = &mut w.out.counters;
                cnt.vtx_insts += 1;
                cnt.fetch_bytes += u64::from(mask.count_ones()) * 16;
            }
            VtxClauseInst::MemRead(m) => {
                if m.op != MemRdOp::Scatter {
                    return Err(unimpl(w, format!("memory read {}", m.op.mnemonic())));
                }
                let src = gpr_index(w, m.src_gpr.get(), m.src_rel);
                let dst = gpr_index(w, m.dst_gpr.get(), m.dst_rel);
                let dwords = m.elem_size.get() as u64 + 1;
                for lane in 0..WAVE {
                    if mask >> lane & 1 == 0 {
                        continue;
                    }
                    let index = if m.indexed {
                        u64::from(w.get(src, m.src_sel_x.index(), lane))
                    } else {
                        0
                    };
                    // Scatter: dword address ARRAY_BASE + SRC_GPR (L2202-2207).
                    let base = u64::from(m.array_base.get()) + index;
                    let mut v = [0u32; 4];
                    for (c, x) in v.iter_mut().enumerate().take(dwords as usize) {
                        *x = w
                            .launch
                            .memory
                            .get((base + c as u64) as usize)
                            .copied()
                            .unwrap_or(0);
                    }
                    for c in 0..4 {
                        if let Some(x) = swizzle(v, m.dst_sel[c], ONE) {
                            w.set(dst, c, lane, x);
                        }
                    }
                }
                let cnt = &mut w.out.counters;
                cnt.vtx_insts += 1;
                cnt.fetch_bytes += u64::from(mask.count_ones()) * dwords * 4;
            }
        }
    }
    Ok(())
}
