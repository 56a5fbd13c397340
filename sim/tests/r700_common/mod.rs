//! Helpers shared by the R700 simulator tests: fixture loading, program
//! building from typed instructions, launches and result access.
#![allow(dead_code)]

use ctm_backend_r700::isa::{
    AluClause, AluClauseAddr, AluDst, AluGroup, AluInst, AluSlotCount, AluSrc, ArrayBase,
    BurstCount, CfAllocIo, CfAlu, CfAluOp, CfExport, CfExportOp, CfFlags, CfInst, Chan, Clause,
    ExportType, Gpr, Kcache, Program, Sel, decode_program,
};
use ctm_sim::r700::{Config, ExportKind, Launch, Machine, RegInit, RunResult};

/// Read a `.hex` fixture (one qword of 8 hex bytes per line, `#` comments).
pub fn hex_bytes(text: &str) -> Vec<u8> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split_whitespace())
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

/// Decode a fixture from `sim/tests/fixtures/r700/NAME.hex` or the
/// backend's LLVM fixtures.
pub fn fixture(name: &str) -> Program {
    let here = format!(
        "{}/tests/fixtures/r700/{name}.hex",
        env!("CARGO_MANIFEST_DIR")
    );
    let there = format!(
        "{}/../backend-r700/tests/fixtures/llvm/{name}.hex",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&here)
        .or_else(|_| std::fs::read_to_string(&there))
        .unwrap_or_else(|_| panic!("fixture {name}"));
    decode_program(&hex_bytes(&text)).expect("fixture decodes")
}

pub fn gpr(n: u32) -> Gpr {
    Gpr::new(n).expect("gpr")
}

pub fn dst(g: u32, c: Chan) -> AluDst {
    AluDst {
        gpr: gpr(g),
        rel: false,
        chan: c,
    }
}

pub fn src(g: u32, c: Chan) -> AluSrc {
    AluSrc::gpr(gpr(g), c)
}

/// `EXPORT_DONE` of pixel `array_base` from `rw`, xyzw, with END_OF_PROGRAM.
pub fn export_done(rw: u32, array_base: u32, eop: bool) -> CfInst {
    CfInst::Export(CfExport {
        op: CfExportOp::ExportDone,
        export_type: ExportType::Pixel,
        swizzle: [Sel::X, Sel::Y, Sel::Z, Sel::W],
        io: CfAllocIo {
            array_base: ArrayBase::new(array_base).expect("base"),
            rw_gpr: gpr(rw),
            burst_count: BurstCount::ONE,
            flags: CfFlags {
                end_of_program: eop,
                ..CfFlags::default()
            },
            ..CfAllocIo::default()
        },
    })
}

/// A CF ALU instruction of `op` for a clause at `addr` of `slots` slots,
/// kcache set 0 locking cb0 constants 0-31.
pub fn cf_alu(op: CfAluOp, addr: u32, slots: u32) -> CfInst {
    CfInst::Alu(CfAlu {
        op,
        addr: AluClauseAddr::new(addr).expect("addr"),
        count: AluSlotCount::new(slots.max(1)).expect("count"),
        kcache: [
            Kcache {
                mode: ctm_backend_r700::isa::KcacheMode::Lock2,
                bank: ctm_backend_r700::isa::KcacheBank::new(0).expect("bank"),
                line: 0,
            },
            Kcache::default(),
        ],
        alt_const: false,
        whole_quad_mode: false,
        barrier: false,
    })
}

/// A program: `cf` then ALU clauses laid out after it in order (clause i
/// of `clauses` is started by the CF instruction whose ALU addr is a
/// placeholder `i`: this function patches addresses and counts).
pub fn program(mut cf: Vec<CfInst>, clauses: Vec<Vec<AluGroup>>) -> Program {
    let mut addr = cf.len() as u32;
    let mut out = Program::default();
    let mut addrs = Vec::new();
    for groups in clauses {
        let c = AluClause { groups };
        let slots = c.slots() as u32;
        addrs.push((addr, slots));
        out.clauses.insert(addr, Clause::Alu(c));
        addr += slots;
    }
    for inst in &mut cf {
        if let CfInst::Alu(a) = inst {
            let (at, slots) = addrs[a.addr.get() as usize];
            a.addr = AluClauseAddr::new(at).expect("addr");
            a.count = AluSlotCount::new(slots).expect("count");
        }
    }
    out.cf = cf;
    out
}

/// One group of `insts` with literals.
pub fn group(insts: &[AluInst], literals: &[u32]) -> AluGroup {
    AluGroup::with_literals(insts, literals)
}

/// Run `program` on `n` elements with per-element registers and cb0.
pub fn run_raw(
    program: Program,
    n: u32,
    regs: Vec<(u32, Vec<[u32; 4]>)>,
    consts: &[(u32, [u32; 4])],
) -> RunResult {
    let regs = regs
        .into_iter()
        .map(|(g, v)| (gpr(g), RegInit::PerElement(v)))
        .collect();
    let launch = Launch::raw(program, n, regs, consts);
    Machine::new(Config::default()).run(&launch)
}

/// Pixel export `index` as f32 rows.
pub fn pixels(r: &RunResult, index: u32) -> Vec<[f32; 4]> {
    r.export_f32(ExportKind::Pixel, index)
}

/// Pixel export `index` as raw dwords.
pub fn pixel_bits(r: &RunResult, index: u32) -> Vec<[u32; 4]> {
    r.exports
        .get(&(ExportKind::Pixel, index))
        .map(|v| v.iter().map(|e| e.unwrap_or([0; 4])).collect())
        .unwrap_or_default()
}

pub fn f(x: f32) -> u32 {
    x.to_bits()
}

pub fn v4(x: f32, y: f32, z: f32, w: f32) -> [u32; 4] {
    [x.to_bits(), y.to_bits(), z.to_bits(), w.to_bits()]
}

/// Tolerance of spec §7.
pub fn close(g: f32, r: f32, tol: f32) -> bool {
    (g.is_nan() && r.is_nan()) || g == r || (g - r).abs() <= tol * r.abs().max(1.0)
}
