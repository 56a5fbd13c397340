//! What each instruction reads and writes, channel by channel: the operand
//! model every analysis of the validator (and the static metrics) shares.
//!
//! ALU sources (CTM §3.3.3): source N is the vector {rgb_addrN.r,
//! rgb_addrN.g, rgb_addrN.b, alpha_addrN.a}; the presubtract result "srcp"
//! is {op(rgb_addr0, rgb_addr1).rgb, op(alpha_addr0, alpha_addr1).a}, where
//! BIAS and INV read only source 0. An input reads the components its
//! swizzle names (0, 0.5, 1 read nothing). Which inputs an op reads follows
//! CTM §3.3.4: DP3/DP4/MIN/MAX read A and B, FRC reads A, SOP nothing, D2A
//! reads A.rg, B.rg and C.b; DP4 also reads the *alpha* unit's inputs A and
//! B as its fourth component. Alpha: MIN/MAX read A, B; FRC and the
//! transcendentals read A; DP reads nothing of its own.
//!
//! Which inputs each op reads, and which coordinates a TEX op reads
//! ([`TexInst::coordinate_channels`]), come from the opcode table
//! (`isa::opcodes`), which the simulator reads too.

use crate::isa::operand::Addressing;
use crate::isa::{
    AddrStackOp, AluInst, AluSource, AluWrites, Channel, FcInst, InputSelect, Inst, PredSel,
    Predicate, PresubOp, Swizzle, TempAddr, TexInst, TexOp, TexOperand, alpha_inputs_read,
};

/// Channel bits: R = 1, G = 2, B = 4, A = 8.
pub(crate) type ChannelMask = u8;

/// A set of temporary-register channels (128 registers × 4 channels).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct RegSet([u64; 8]);

impl RegSet {
    pub(crate) const EMPTY: RegSet = RegSet([0; 8]);

    fn set(&mut self, index: usize) {
        self.0[index / 64] |= 1 << (index % 64);
    }

    /// Add `mask` channels of `addr`; an aL-relative address may be any
    /// register, so it adds those channels of every register.
    pub(crate) fn add(&mut self, addr: TempAddr, mask: ChannelMask) {
        let regs = match addr.addressing {
            Addressing::Absolute => {
                let r = addr.reg.get() as usize;
                r..r + 1
            }
            Addressing::LoopRelative => 0..128,
        };
        for r in regs {
            for c in 0..4 {
                if mask & (1 << c) != 0 {
                    self.set(r * 4 + c);
                }
            }
        }
    }

    pub(crate) fn union(&self, other: &RegSet) -> RegSet {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        out
    }

    pub(crate) fn intersection(&self, other: &RegSet) -> RegSet {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a &= b;
        }
        out
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The first (register, channel) in the set.
    pub(crate) fn first(&self) -> Option<(usize, usize)> {
        self.0
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| {
                let idx = i * 64 + w.trailing_zeros() as usize;
                (idx / 4, idx % 4)
            })
    }
}

/// `rN.c` for a (register, channel) pair.
pub(crate) fn channel_name(reg: usize, channel: usize) -> String {
    let c = ['r', 'g', 'b', 'a'].get(channel).copied().unwrap_or('?');
    format!("r{reg}.{c}")
}

/// The source reads of one ALU/OUT instruction.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct AluReads {
    /// Per source slot: R/G/B channels read through the RGB address word.
    pub rgb: [ChannelMask; 3],
    /// Per source slot: whether `.a` is read through the alpha address word.
    pub alpha: [bool; 3],
    /// The subset of `rgb` read by the RGB presubtract.
    pub presub_rgb: [ChannelMask; 3],
    /// The subset of `alpha` read by the alpha presubtract.
    pub presub_alpha: [bool; 3],
    /// An input the op reads uses swizzle code 7.
    pub undefined_swizzle: bool,
}

/// The component (0..4) a swizzle reads, `None` for constants, and whether
/// it is the undefined code 7.
fn component(s: Swizzle) -> (Option<usize>, bool) {
    match s {
        Swizzle::R => (Some(0), false),
        Swizzle::G => (Some(1), false),
        Swizzle::B => (Some(2), false),
        Swizzle::A => (Some(3), false),
        Swizzle::Zero | Swizzle::Half | Swizzle::One => (None, false),
        Swizzle::Unused => (None, true),
    }
}

impl AluReads {
    /// Record a read of component `comp` of the vector `sel`.
    fn read(&mut self, a: &AluInst, sel: InputSelect, comp: usize) {
        let presub_slots = |op: PresubOp| match op {
            PresubOp::Bias | PresubOp::Inv => 1,
            PresubOp::Sub | PresubOp::Add => 2,
        };
        match (sel, comp) {
            (InputSelect::Srcp, 3) => {
                for k in 0..presub_slots(a.alpha.presub) {
                    self.alpha[k] = true;
                    self.presub_alpha[k] = true;
                }
            }
            (InputSelect::Srcp, c) => {
                for k in 0..presub_slots(a.rgb.presub) {
                    self.rgb[k] |= 1 << c;
                    self.presub_rgb[k] |= 1 << c;
                }
            }
            (s, 3) => self.alpha[s.code() as usize] = true,
            (s, c) => self.rgb[s.code() as usize] |= 1 << c,
        }
    }

    fn swizzle(&mut self, a: &AluInst, sel: InputSelect, s: Swizzle) {
        let (comp, undefined) = component(s);
        self.undefined_swizzle |= undefined;
        if let Some(c) = comp {
            self.read(a, sel, c);
        }
    }
}

/// The source reads of an ALU/OUT instruction (module doc).
pub(crate) fn alu_reads(a: &AluInst) -> AluReads {
    let mut reads = AluReads::default();
    for (input, positions) in a.rgb.inputs.iter().zip(a.rgb.op.reads()) {
        for (p, s) in input.swizzle.iter().enumerate() {
            if positions & (1 << p) != 0 {
                reads.swizzle(a, input.sel, *s);
            }
        }
    }
    let alpha_read = alpha_inputs_read(a.alpha.op, a.rgb.op);
    for (input, read) in a.alpha.inputs.iter().zip(alpha_read) {
        if read {
            reads.swizzle(a, input.sel, input.swizzle);
        }
    }
    reads
}

/// Every source address an ALU/OUT instruction reads (through either
/// address word), in slot order, RGB word first.
pub(crate) fn alu_sources(a: &AluInst) -> Vec<AluSource> {
    let reads = alu_reads(a);
    let mut out = Vec::new();
    for k in 0..3 {
        if reads.rgb[k] != 0 {
            out.push(a.rgb.sources[k]);
        }
        if reads.alpha[k] {
            out.push(a.alpha.sources[k]);
        }
    }
    out
}

/// Temporaries an ALU/OUT instruction reads (all channels, or only the
/// presubtract's when `presub_only`).
pub(crate) fn alu_temp_reads(a: &AluInst, presub_only: bool) -> RegSet {
    let reads = alu_reads(a);
    let mut set = RegSet::EMPTY;
    for k in 0..3 {
        let (rgb, alpha) = if presub_only {
            (reads.presub_rgb[k], reads.presub_alpha[k])
        } else {
            (reads.rgb[k], reads.alpha[k])
        };
        if let AluSource::Temp(t) = a.rgb.sources[k] {
            set.add(t, rgb);
        }
        if alpha && let AluSource::Temp(t) = a.alpha.sources[k] {
            set.add(t, 8);
        }
    }
    set
}

/// Temporaries an ALU/OUT instruction may write.
pub(crate) fn alu_temp_writes(a: &AluInst) -> RegSet {
    let mut set = RegSet::EMPTY;
    set.add(a.rgb.dest, a.rgb.write_mask.bits() as u8);
    if a.alpha.write_mask.is_on() {
        set.add(a.alpha.dest, 8);
    }
    set
}

/// Predicate bits (R = 1 .. A = 8) an ALU instruction may write.
pub(crate) fn alu_predicate_writes(a: &AluInst) -> ChannelMask {
    match a.writes {
        AluWrites::Predicate(p) => p.rgb_mask.bits() as u8 | ((p.alpha_mask.bit() as u8) << 3),
        AluWrites::Output(_) => 0,
    }
}

/// Predicate bits a predicate select reads for the channels in `mask`.
pub(crate) fn predicate_reads(p: Option<Predicate>, mask: ChannelMask) -> ChannelMask {
    match p.map(|p| p.sel) {
        None => 0,
        Some(PredSel::Rgba) => mask,
        Some(PredSel::Rrrr) if mask != 0 => 1,
        Some(PredSel::Gggg) if mask != 0 => 2,
        Some(PredSel::Bbbb) if mask != 0 => 4,
        Some(PredSel::Aaaa) if mask != 0 => 8,
        Some(_) => 0,
    }
}

fn channel_bit(c: Channel) -> ChannelMask {
    1 << c.code()
}

fn operand_channels(op: &TexOperand, positions: &[usize]) -> ChannelMask {
    positions
        .iter()
        .fold(0, |m, &p| m | channel_bit(op.swizzle[p]))
}

/// Whether a TEX op writes its destination (NOP and TEXKILL do not: the
/// opcode table's `samples`).
pub(crate) fn tex_writes_dest(op: &TexOp) -> bool {
    op.opcode().facts().samples
}

/// Whether a TEX op reads a texture (its `TEX_ID` names a CTM input).
pub(crate) fn tex_reads_texture(op: &TexOp) -> bool {
    tex_writes_dest(op)
}

/// Temporaries a TEX instruction reads (coordinates and gradients).
pub(crate) fn tex_temp_reads(t: &TexInst) -> RegSet {
    let mut set = RegSet::EMPTY;
    set.add(t.src.addr, t.coordinate_channels());
    if let TexOp::Dxdy { dx, dy } = &t.op {
        set.add(dx.addr, operand_channels(dx, &[0, 1]));
        set.add(dy.addr, operand_channels(dy, &[0, 1]));
    }
    set
}

/// The destination channels of a TEX instruction.
pub(crate) fn tex_dest_mask(t: &TexInst) -> ChannelMask {
    if tex_writes_dest(&t.op) {
        t.rgb_write_mask.bits() as u8 | ((t.alpha_write_mask.bit() as u8) << 3)
    } else {
        0
    }
}

/// Predicate bits a TEX instruction reads (CTM §3.3.6: RGB results by
/// `RGB_PRED_SEL`, alpha by `ALPHA_PRED_SEL`).
pub(crate) fn tex_predicate_reads(t: &TexInst) -> ChannelMask {
    predicate_reads(t.rgb_predicate, t.rgb_write_mask.bits() as u8)
        | predicate_reads(t.alpha_predicate, (t.alpha_write_mask.bit() as u8) << 3)
}

/// What an FC instruction's `JUMP_FUNC` depends on (CTM §3.5.3: bit
/// `alu << 2 | predicate << 1 | boolean`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JumpInputs {
    pub alu_result: bool,
    pub predicate: bool,
    pub boolean: bool,
}

pub(crate) fn jump_inputs(f: &FcInst) -> JumpInputs {
    let func = f.jump_func;
    JumpInputs {
        alu_result: (func >> 4) != (func & 0x0F),
        predicate: ((func & 0xCC) >> 2) != (func & 0x33),
        boolean: ((func & 0xAA) >> 1) != (func & 0x55),
    }
}

/// Whether an instruction uses aL-relative addressing anywhere.
pub(crate) fn uses_relative(inst: &Inst) -> bool {
    let rel_temp = |t: &TempAddr| t.addressing == Addressing::LoopRelative;
    let rel_source = |s: &AluSource| match s {
        AluSource::Temp(t) => rel_temp(t),
        AluSource::Const(c) => c.addressing == Addressing::LoopRelative,
        AluSource::Inline(_) => false,
    };
    match inst {
        Inst::Alu(a) => {
            (!a.rgb.write_mask.is_empty() && rel_temp(&a.rgb.dest))
                || (a.alpha.write_mask.is_on() && rel_temp(&a.alpha.dest))
                || alu_sources(a).iter().any(rel_source)
        }
        Inst::Tex(t) => {
            let gradients = match &t.op {
                TexOp::Dxdy { dx, dy } => rel_temp(&dx.addr) || rel_temp(&dy.addr),
                _ => false,
            };
            (tex_writes_dest(&t.op) && rel_temp(&t.dst))
                || (!tex_temp_reads(t).is_empty() && rel_temp(&t.src.addr))
                || gradients
        }
        Inst::Fc(_) => false,
    }
}

/// Whether an FC instruction needs full flow-control mode (CTM §3.5: loops
/// and subroutine calls).
pub(crate) fn needs_full_mode(f: &FcInst) -> bool {
    f.op != crate::isa::FcOp::Jump || f.a_op != AddrStackOp::None
}
