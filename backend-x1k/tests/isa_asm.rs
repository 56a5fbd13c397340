//! The assembly syntax: a hand-written program assembles, disassembles to a
//! stable snapshot and back; direct operands are allocated to source slots;
//! errors carry line and column.

use ctm_backend_x1k::isa::asm::AsmErrorKind;
use ctm_backend_x1k::isa::*;

const PROGRAM: &str = "\
# A texture lookup, some math, a branch on the ALU result, a loop and the output.
  0: tex r0.rgba = ld(t0, r0.rgaa) acquire sem_wait
  1: alu r1.rgb = mad(s0.rgb, s1.rrr, -s2.rgb) x2 sat ; r1.a = rcp(s1.a) ; s0=r0 s1=c3 s2=r2|_ sem_wait
  2: alu p.r<0 = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r1 s1=c0 alu_result=r<0
  3: fc jump 5 func=!alu b_op0=incr b_op1=incr alu_wait
  4: alu r2.rgb = max(sp.rgb, s0.000) srcp=inv pred=!p.rrrr ; r2.a = max(sp.a, s0.0) srcp=sub ; s0=r1 s1=0.5
  5: fc endloop 4 func=always int=i1 jump_any ignore_uncovered
  6: tex r3.rg = dxdy(t15, r[2+aL].xyzw, r4.xxxx, r5.yyyy).abgr unscaled
  7: out o0.rgb = max(s0.rgb, s0.rgb) omod_off ; o0.a, w = max(s0.a, s0.a) omod_off ; s0=r1 sem_wait
";

#[test]
fn hand_written_program() {
    let program = parse_program(PROGRAM).expect("program assembles");
    assert_eq!(program.len(), 8);
    let text = format_program(&program);
    insta::assert_snapshot!(text);
    assert_eq!(parse_program(&text), Ok(program.clone()));
    let words = encode_program(&program);
    assert_eq!(decode_program(&words), Ok(program));
    // A slot that does not decode is shown field by field, with the error.
    let mut words = words;
    words.extend([0x0000_0202, 0x10, 0x0000_FF00, 0x0005_0000, 0, 0]);
    words.extend([0x0000_7807, 0x0240_0001, 0xE400_F400, 0, 0]);
    insta::assert_snapshot!(
        "hand_written_program_disassemble_words",
        asm::disassemble_words(&words)
    );
}

#[test]
fn direct_operands_are_allocated() {
    let direct =
        parse_inst("alu r1.rgb = mad(r0.rgb, c3.rrr, 1.0) ; r1.a = mad(r0.a, c3.a, 2.0)").unwrap();
    let explicit =
        parse_inst("alu r1.rgb = mad(s0.rgb, s1.rrr, s2.rgb) ; r1.a = mad(s0.a, s1.a, s2.a) ; s0=r0 s1=c3 s2=1.0|2.0")
            .unwrap();
    assert_eq!(direct, explicit);
    // Reuse: the same register in two inputs takes one slot; an input
    // reading only `.a` needs only the alpha address, so r6 shares slot 0.
    let reuse = parse_inst("alu r2.rgb = mad(r5.rgb, r5.bgr, r6.aaa) ; r2.a = rcp(r6.a)").unwrap();
    assert_eq!(
        format_inst(&reuse),
        "alu r2.rgb = mad(s0.rgb, s0.bgr, s0.aaa) ; r2.a = rcp(s0.a) ; s0=r5|r6"
    );
    // Four different registers in the RGB address word do not fit.
    let err = parse_inst("alu r0.rgb = mad(r1.rgb, r2.rgb, r3.rgb) ; r0.a = mad(r4.r, r1.r, r1.r)")
        .unwrap_err();
    assert_eq!(err.kind, AsmErrorKind::NoFreeSource("r4.r".to_string()));
    assert_eq!(err.column, 55);
}

#[test]
fn errors_have_line_and_column() {
    let err = parse_program("  0: fc jump 0 func=never\n  1: alu r0.rgb = foo(s0.rgb) ; _ = mad()")
        .unwrap_err();
    assert_eq!((err.line, err.column), (2, 19));
    assert_eq!(
        err.kind,
        AsmErrorKind::Unknown {
            what: "RGB opcode",
            found: "foo".to_string()
        }
    );
    assert_eq!(err.to_string(), "2:19: unknown RGB opcode `foo`");

    let err = parse_program("  0: fc jump 0\n  2: fc jump 0").unwrap_err();
    assert_eq!(
        err.kind,
        AsmErrorKind::SlotMismatch {
            expected: 1,
            found: 2
        }
    );
    assert_eq!((err.line, err.column), (2, 3));

    let err = parse_inst("tex r0.rgba = ld(t16, r0.rgba)").unwrap_err();
    assert_eq!(
        err.kind,
        AsmErrorKind::OutOfRange {
            what: "texture id",
            value: 16,
            max: 15
        }
    );
    assert_eq!(err.column, 19);

    let err = parse_inst("alu r128.rgb = mad(s0.rgb, s0.rgb, s0.rgb) ; _ = mad(s0.r, s0.r, s0.r)")
        .unwrap_err();
    assert_eq!(
        err.kind,
        AsmErrorKind::OutOfRange {
            what: "temporary register",
            value: 128,
            max: 127
        }
    );

    let err = parse_inst("alu r0.rgb = mad(0.3, s0.rgb, s0.rgb) ; _ = mad(s0.r, s0.r, s0.r)")
        .unwrap_err();
    assert!(matches!(err.kind, AsmErrorKind::NotInlineConstant(v) if (v - 0.3).abs() < 1e-9));

    let err = parse_inst("alu o0.rgb = max(s0.rgb, s0.rgb) ; _ = max(s0.a, s0.a)").unwrap_err();
    assert!(matches!(err.kind, AsmErrorKind::NotAllowed { .. }));

    let err = parse_inst("fc jump 3 pred=p.rgba").unwrap_err();
    assert!(matches!(err.kind, AsmErrorKind::NotAllowed { .. }));

    let err = parse_inst("alu r0.rgb = mad(s0.rgb) ; _ = mad(s0.r, s0.r, s0.r)").unwrap_err();
    assert_eq!(
        err.kind,
        AsmErrorKind::InputCount {
            op: "mad",
            found: 1,
            min: 3,
            max: 3
        }
    );

    let err = parse_inst("alu r0.gr = max(s0.rgb, s0.rgb) ; _ = max(s0.r, s0.r)").unwrap_err();
    assert!(matches!(err.kind, AsmErrorKind::Expected(_)));

    let err = parse_inst("tex r0.rgba = ld(t0, r0.rgba) sem_wait sem_wait").unwrap_err();
    assert_eq!(err.kind, AsmErrorKind::Duplicate("texture item"));
}

#[test]
fn synonyms_and_comments() {
    let a = parse_inst("tex r0.xyzw = ld(t0, r1.xyzw) # comment").unwrap();
    let b = parse_inst("tex r0.rgba = ld(t0, r1.rgba)").unwrap();
    assert_eq!(a, b);
    // A one-letter RGB swizzle replicates.
    let a = parse_inst("alu r0.rgb = max(c2.x, c2.x) ; _ = max(s0.r, s0.r)").unwrap();
    let b = parse_inst("alu r0.rgb = max(s0.rrr, s0.rrr) ; _ = max(s0.r, s0.r) ; s0=c2|_").unwrap();
    assert_eq!(a, b);
    // A bare `_` is the all-default half.
    assert_eq!(
        parse_inst("alu r0.rgb = frc(s0.rgb) ; _"),
        parse_inst("alu r0.rgb = frc(s0.rgb) ; _ = mad(s0.r, s0.r, s0.r)")
    );
    assert_eq!(format_inst(&parse_inst("alu _ ; _").unwrap()), "alu _ ; _");
    // Numeric jump functions.
    assert_eq!(
        parse_inst("fc jump 1 func=0xaa"),
        parse_inst("fc jump 1 func=b")
    );
    assert_eq!(
        parse_inst("fc jump 1 func=170"),
        parse_inst("fc jump 1 func=b")
    );
}

/// One OUT instruction writing a temporary and a render target (CTM §3.2:
/// the temporary write masks are effective for OUTPUT; §3.3.6): word 0
/// carries `RGB_WMASK`/`ALPHA_WMASK` and `RGB_OMASK`/`ALPHA_OMASK`, word 5
/// `RGB_ADDRD`, word 4 `ALPHA_ADDRD` and the alpha `TARGET`, word 3 the
/// RGB `TARGET`; the listing names both destinations, register first.
#[test]
fn an_out_instruction_writes_a_register_and_a_target() {
    use ctm_backend_x1k::isa::fields::UsCmnInst;
    let text = "out r5.rg, o2.rg = mad(s0.rg0, s0.rg0, s0.000) ; r6.a, o3.a = rcp(s0.a) ; s0=r0";
    let inst = parse_inst(text).expect("assembles");
    assert_eq!(format_inst(&inst), text);
    let words = encode(&inst);
    assert_eq!(decode(&words), Ok(inst));
    let cmn = UsCmnInst(words[0]);
    assert_eq!(cmn.get(UsCmnInst::TYPE), 1, "OUT");
    assert_eq!(cmn.get(UsCmnInst::RGB_WMASK), 0b011);
    assert_eq!(cmn.get(UsCmnInst::ALPHA_WMASK), 1);
    assert_eq!(cmn.get(UsCmnInst::RGB_OMASK), 0b011);
    assert_eq!(cmn.get(UsCmnInst::ALPHA_OMASK), 1);
    let Inst::Alu(a) = inst else {
        panic!("an ALU/OUT instruction")
    };
    assert_eq!(a.rgb.dest.reg.get(), 5);
    assert_eq!(a.alpha.dest.reg.get(), 6);
    let AluWrites::Output(o) = a.writes else {
        panic!("an OUT instruction")
    };
    assert_eq!(
        (o.rgb_target, o.alpha_target),
        (RenderTarget::C, RenderTarget::D)
    );
    // An ALU instruction has no output destination.
    assert!(parse_inst("alu r5.rg, o2.rg = mad(s0.rg0, s0.rg0, s0.000) ; _ ; s0=r0").is_err());
}
