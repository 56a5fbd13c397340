//! ALU operand assembly (CTM §3.3.1–§3.3.3): source addresses (temporaries,
//! constants, inline constants, aL-relative), the four source vectors
//! src0, src1, src2 (R, G, B from the RGB address, A from the alpha
//! address) and srcp (the presubtract), then per input: select, swizzle
//! (including 0, ½, 1) and input modifier.

use ctm_backend_x1k::isa::{
    Addressing, AluSource, InputModifier, InputSelect, PresubOp, RgbInput, Swizzle,
};

use super::fault::{Access, FaultKind};
use super::fp::{flush, modify};
use super::prepare::AluPlan;
use super::state::{Group, MAX_GROUP_SIZE};

/// Where one channel of a source vector comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ChanRef {
    /// A temporary channel: offset of its lane array in `Group::regs`.
    Reg(usize),
    /// The same value for every processor (constant, inline constant, swizzle constant).
    Uniform(f32),
    /// Channel of the presubtract vector.
    Srcp(usize),
}

/// The assembled source vectors of one ALU instruction.
pub(crate) struct Sources<'a> {
    /// src0..src2, channels R, G, B, A.
    pub refs: [[ChanRef; 4]; 3],
    /// The presubtract vector's lanes, per channel.
    pub srcp: &'a [[f32; MAX_GROUP_SIZE]; 4],
}

/// Resolve an address plus aL (when relative) into `0..=max` (CTM §3.3.1).
pub(crate) fn relative(
    group: &Group,
    base: u32,
    addressing: Addressing,
    max: u32,
) -> Result<u32, FaultKind> {
    match addressing {
        Addressing::Absolute => Ok(base),
        Addressing::LoopRelative => {
            let al = group.al()?;
            let addr = base as i64 + i64::from(al);
            if (0..=i64::from(max)).contains(&addr) {
                Ok(addr as u32)
            } else {
                Err(FaultKind::RelativeAddressOutOfRange { base, al, max })
            }
        }
    }
}

/// Read-hazard check for temporary channel `idx` (`reg * 4 + ch`): a
/// lookup that writes it must have been waited for (CTM §3.4.2).
pub(crate) fn check_tex_ready(group: &Group, idx: usize, access: Access) -> Result<(), FaultKind> {
    let (seq, slot) = group.sync.tex_pending[idx];
    if seq > group.sync.tex_done {
        Err(FaultKind::TexResultNotReady {
            reg: (idx / 4) as u8,
            channel: (idx % 4) as u8,
            lookup_slot: slot,
            access,
        })
    } else {
        Ok(())
    }
}

/// Resolve channel `ch` of source address `src`.
fn resolve(
    group: &Group,
    src: AluSource,
    ch: usize,
    consts: &[[f32; 4]],
    temp_reads: &mut smallvec::SmallVec<[usize; 12]>,
) -> Result<ChanRef, FaultKind> {
    match src {
        AluSource::Temp(t) => {
            let reg = relative(group, t.reg.get(), t.addressing, 127)?;
            let reg = group.check_temp(reg)?;
            temp_reads.push(reg * 4 + ch);
            Ok(ChanRef::Reg(group.offset(reg, ch)))
        }
        AluSource::Const(c) => {
            let idx = relative(group, c.reg.get(), c.addressing, 255)?;
            Ok(ChanRef::Uniform(consts[idx as usize][ch]))
        }
        AluSource::Inline(k) => Ok(ChanRef::Uniform(k.value())),
    }
}

/// One presubtract (CTM §3.3.2), computed from flushed operands in f64 and
/// rounded once to f32 with denormals flushed (`docs/sim-x1k.md` §2.1).
///
/// The presubtract does not standardise NaN, and a select op with
/// `OMOD_DISABLED` passes its bits on, so the payload is fixed here rather
/// than left to the compiler (Rust leaves the payload of an arithmetic NaN
/// unspecified): a NaN operand comes out as it is (quiet, from the f32 →
/// f64 conversion), src1's before src0's — what x86 returns for `src1 ±
/// src0`. Only ∞ − ∞ makes a new NaN.
#[inline(always)]
pub(crate) fn presub(op: PresubOp, s0: f32, s1: f32) -> f32 {
    let (a, b) = (f64::from(flush(s0)), f64::from(flush(s1)));
    let r = match op {
        PresubOp::Bias => 1.0 - 2.0 * a,
        PresubOp::Sub => b - a,
        PresubOp::Add => b + a,
        PresubOp::Inv => 1.0 - a,
    };
    let two = matches!(op, PresubOp::Sub | PresubOp::Add);
    let r = if two && b.is_nan() {
        b
    } else if a.is_nan() {
        a
    } else {
        r
    };
    flush(r as f32)
}

/// Copy the lanes of `r` into `dst` (one per processor), applying an
/// input modifier.
#[inline]
fn fill(
    dst: &mut [f32],
    group: &Group,
    srcp: &[[f32; MAX_GROUP_SIZE]; 4],
    r: ChanRef,
    m: InputModifier,
) {
    let n = dst.len();
    match r {
        ChanRef::Reg(off) => {
            let src = &group.regs[off..off + n];
            if m == InputModifier::None {
                dst.copy_from_slice(src);
            } else {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = modify(*s, m);
                }
            }
        }
        ChanRef::Uniform(v) => dst.fill(modify(v, m)),
        ChanRef::Srcp(c) => {
            for (d, s) in dst.iter_mut().zip(&srcp[c][..n]) {
                *d = modify(*s, m);
            }
        }
    }
}

impl<'a> Sources<'a> {
    /// Resolve the sources `plan` reads, checking register ranges and aL,
    /// listing the temporary channels read; compute the presubtract
    /// channels it needs into `srcp`.
    pub fn assemble(
        group: &Group,
        plan: &AluPlan,
        consts: &[[f32; 4]],
        temp_reads: &mut smallvec::SmallVec<[usize; 12]>,
        srcp: &'a mut [[f32; MAX_GROUP_SIZE]; 4],
    ) -> Result<Self, FaultKind> {
        let mut refs = [[ChanRef::Uniform(0.0); 4]; 3];
        for (k, row) in refs.iter_mut().enumerate() {
            let need = plan.src_need[k];
            if need == 0 {
                continue;
            }
            for (ch, slot) in row.iter_mut().enumerate() {
                if need & (1 << ch) != 0 {
                    let src = if ch < 3 {
                        plan.inst.rgb.sources[k]
                    } else {
                        plan.inst.alpha.sources[k]
                    };
                    *slot = resolve(group, src, ch, consts, temp_reads)?;
                }
            }
        }
        let n = group.n;
        for ch in 0..4 {
            if plan.srcp_need & (1 << ch) == 0 {
                continue;
            }
            let op = if ch < 3 {
                plan.inst.rgb.presub
            } else {
                plan.inst.alpha.presub
            };
            let mut s0 = [0.0f32; MAX_GROUP_SIZE];
            let mut s1 = [0.0f32; MAX_GROUP_SIZE];
            // Presubtract operands are src0/src1, never srcp itself.
            fill(&mut s0[..n], group, srcp, refs[0][ch], InputModifier::None);
            if matches!(op, PresubOp::Sub | PresubOp::Add) {
                fill(&mut s1[..n], group, srcp, refs[1][ch], InputModifier::None);
            }
            for (l, out) in srcp[ch][..n].iter_mut().enumerate() {
                *out = presub(op, s0[l], s1[l]);
            }
        }
        Ok(Sources { refs, srcp })
    }

    /// The source of channel `ch` of vector `sel`.
    #[inline]
    fn vector(&self, sel: InputSelect, ch: usize) -> ChanRef {
        match sel {
            InputSelect::Src0 => self.refs[0][ch],
            InputSelect::Src1 => self.refs[1][ch],
            InputSelect::Src2 => self.refs[2][ch],
            InputSelect::Srcp => ChanRef::Srcp(ch),
        }
    }

    /// The channel a swizzle selects from vector `sel` (constants as uniforms).
    #[inline]
    fn swizzled(&self, sel: InputSelect, s: Swizzle) -> ChanRef {
        match s {
            Swizzle::R => self.vector(sel, 0),
            Swizzle::G => self.vector(sel, 1),
            Swizzle::B => self.vector(sel, 2),
            Swizzle::A => self.vector(sel, 3),
            Swizzle::Zero => ChanRef::Uniform(0.0),
            Swizzle::Half => ChanRef::Uniform(0.5),
            // `Unused` (code 7) is rejected at preparation for read inputs.
            Swizzle::One | Swizzle::Unused => ChanRef::Uniform(1.0),
        }
    }

    /// Fill `dst` with channel `i` of an RGB input (CTM §3.3.3).
    #[inline]
    pub fn rgb_input(&self, group: &Group, input: &RgbInput, i: usize, dst: &mut [f32]) {
        let r = self.swizzled(input.sel, input.swizzle[i]);
        fill(dst, group, self.srcp, r, input.modifier);
    }

    /// Fill `dst` with an alpha input (select, swizzle, modifier).
    #[inline]
    pub fn alpha_input(
        &self,
        group: &Group,
        sel: InputSelect,
        swizzle: Swizzle,
        modifier: InputModifier,
        dst: &mut [f32],
    ) {
        let r = self.swizzled(sel, swizzle);
        fill(dst, group, self.srcp, r, modifier);
    }
}
