//! The hardware-verified worked example of `x1k-encoding.md` §9 (two slots
//! from `buhman/r500` `drm/texture.fs.inc`): decodes to the documented
//! fields, re-encodes to the same words, and disassembles stably.

use ctm_backend_x1k::isa::{
    AlphaMask, AlphaOp, AluSource, AluWrites, Channel, InputSelect, Inst, RenderTarget, RgbMask,
    RgbOp, Swizzle, TexOp, decode, decode_program, encode, encode_program, format_program,
    parse_program,
};

const SLOT0: [u32; 6] = [0x0000_7807, 0x0240_0000, 0xE400_F400, 0, 0, 0];
const SLOT1: [u32; 6] = [
    0x0007_8005,
    0x0802_0000,
    0x0802_0000,
    0x0044_0220,
    0x0060_C003,
    0x0000_0005,
];

#[test]
fn slot0_tex_ld_acquire() {
    let Inst::Tex(t) = decode(&SLOT0).expect("slot 0 decodes") else {
        panic!("slot 0 is TEX")
    };
    assert_eq!(t.op, TexOp::Ld);
    assert_eq!(t.tex_id.get(), 0);
    assert!(t.sem_wait && t.sem_acquire);
    assert_eq!(t.rgb_write_mask, RgbMask::RGB);
    assert_eq!(t.alpha_write_mask, AlphaMask::On);
    assert_eq!(t.src.addr.reg.get(), 0);
    assert_eq!(
        t.src.swizzle,
        [Channel::R, Channel::G, Channel::A, Channel::A]
    );
    assert_eq!(t.dst.reg.get(), 0);
    assert_eq!(
        t.dst_swizzle,
        [Channel::R, Channel::G, Channel::B, Channel::A]
    );
    assert!(!t.alu_wait && !t.unscaled && !t.ignore_uncovered);
    assert_eq!(encode(&Inst::Tex(t)), SLOT0);
}

#[test]
fn slot1_out_max() {
    let Inst::Alu(a) = decode(&SLOT1).expect("slot 1 decodes") else {
        panic!("slot 1 is ALU/OUT")
    };
    let AluWrites::Output(o) = a.writes else {
        panic!("slot 1 is OUT")
    };
    assert_eq!(o.rgb_mask, RgbMask::RGB);
    assert_eq!(o.alpha_mask, AlphaMask::On);
    assert_eq!(o.rgb_target, RenderTarget::A);
    assert!(a.sem_wait);
    assert_eq!(a.rgb.op, RgbOp::Max);
    assert_eq!(a.alpha.op, AlphaOp::Max);
    assert_eq!(a.rgb.write_mask, RgbMask::NONE);
    assert_eq!(a.rgb.sources[0], AluSource::Temp(Default::default()));
    assert_eq!(a.rgb.sources[1], AluSource::UNUSED);
    assert_eq!(a.rgb.sources[2], AluSource::UNUSED);
    assert_eq!(a.alpha.sources, a.rgb.sources);
    for input in &a.rgb.inputs[..2] {
        assert_eq!(input.sel, InputSelect::Src0);
        assert_eq!(input.swizzle, [Swizzle::R, Swizzle::G, Swizzle::B]);
    }
    for input in &a.alpha.inputs[..2] {
        assert_eq!(input.sel, InputSelect::Src0);
        assert_eq!(input.swizzle, Swizzle::A);
    }
    assert_eq!(encode(&Inst::Alu(a)), SLOT1);
}

#[test]
fn program_round_trip_and_snapshot() {
    let words: Vec<u32> = SLOT0.iter().chain(&SLOT1).copied().collect();
    let program = decode_program(&words).expect("program decodes");
    assert_eq!(encode_program(&program), words);
    let text = format_program(&program);
    insta::assert_snapshot!(text);
    assert_eq!(parse_program(&text).expect("disassembly parses"), program);
}
