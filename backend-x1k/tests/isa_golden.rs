//! Generated golden tests: one instruction per opcode and per enumeration
//! value. Each is checked three ways: (1) the value's code sits at the bit
//! position the fact sheet gives, computed here with plain shifts
//! (independently of `isa::fields`); (2) decode/encode and parse/format
//! round-trip; (3) the (words, text) pairs are pinned by an insta snapshot,
//! the golden file.

use std::fmt::Write as _;

use ctm_backend_x1k::isa::*;

struct Golden {
    lines: String,
    count: usize,
}

impl Golden {
    fn new() -> Self {
        Golden {
            lines: String::new(),
            count: 0,
        }
    }

    /// `inst` must carry `code` in `word` bits `shift..shift+width`.
    fn check(&mut self, label: &str, inst: Inst, word: usize, shift: u32, width: u32, code: u32) {
        let words = encode(&inst);
        let mask = (1u32 << width) - 1;
        assert_eq!(
            (words[word] >> shift) & mask,
            code,
            "{label}: word {word} bits {}:{shift}",
            shift + width - 1
        );
        assert_eq!(decode(&words), Ok(inst), "{label}: decode");
        let text = format_inst(&inst);
        assert_eq!(parse_inst(&text), Ok(inst), "{label}: parse `{text}`");
        let hex: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
        let _ = writeln!(self.lines, "{label:<28} {}  {text}", hex.join(" "));
        self.count += 1;
    }
}

fn temp(n: u32) -> TempAddr {
    TempAddr::absolute(n).unwrap()
}

/// `r1.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; r1.a = mad(s0.a, s1.a, s2.a)` with s0=r0 s1=c1 s2=1.0.
fn base_alu() -> AluInst {
    let rgb_in = |sel| RgbInput {
        sel,
        swizzle: [Swizzle::R, Swizzle::G, Swizzle::B],
        modifier: InputModifier::None,
    };
    let alpha_in = |sel| AlphaInput {
        sel,
        swizzle: Swizzle::A,
        modifier: InputModifier::None,
    };
    let sources = [
        AluSource::Temp(temp(0)),
        AluSource::Const(ConstAddr {
            reg: ConstReg::new(1).unwrap(),
            addressing: Addressing::Absolute,
        }),
        AluSource::Inline(InlineConst::new(0x38).unwrap()),
    ];
    AluInst {
        rgb: RgbHalf {
            inputs: [
                rgb_in(InputSelect::Src0),
                rgb_in(InputSelect::Src1),
                rgb_in(InputSelect::Src2),
            ],
            sources,
            dest: temp(1),
            write_mask: RgbMask::RGB,
            ..RgbHalf::default()
        },
        alpha: AlphaHalf {
            inputs: [
                alpha_in(InputSelect::Src0),
                alpha_in(InputSelect::Src1),
                alpha_in(InputSelect::Src2),
            ],
            sources,
            dest: temp(1),
            write_mask: AlphaMask::On,
            ..AlphaHalf::default()
        },
        ..AluInst::default()
    }
}

fn base_fc() -> FcInst {
    FcInst {
        jump_func: 0xFF,
        jump_addr: SlotIndex::new(5).unwrap(),
        ..FcInst::default()
    }
}

fn base_tex() -> TexInst {
    TexInst {
        op: TexOp::Ld,
        src: TexOperand {
            addr: temp(2),
            swizzle: [Channel::R, Channel::G, Channel::B, Channel::A],
        },
        dst: temp(3),
        rgb_write_mask: RgbMask::RGB,
        alpha_write_mask: AlphaMask::On,
        ..TexInst::default()
    }
}

#[test]
fn golden_enumerations() {
    let mut g = Golden::new();

    for op in RgbOp::ALL {
        let mut a = base_alu();
        a.rgb.op = *op;
        g.check(&format!("RGB_OP {op}"), Inst::Alu(a), 5, 0, 4, op.code());
    }
    for op in AlphaOp::ALL {
        let mut a = base_alu();
        a.alpha.op = *op;
        g.check(&format!("ALPHA_OP {op}"), Inst::Alu(a), 4, 0, 4, op.code());
    }
    for op in PresubOp::ALL {
        let mut a = base_alu();
        a.rgb.presub = *op;
        g.check(
            &format!("RGB SRCP_OP {op}"),
            Inst::Alu(a),
            1,
            30,
            2,
            op.code(),
        );
        let mut a = base_alu();
        a.alpha.presub = *op;
        g.check(
            &format!("ALPHA SRCP_OP {op}"),
            Inst::Alu(a),
            2,
            30,
            2,
            op.code(),
        );
    }
    // Input selects: RGB A/B in word 3 (1:0, 14:13), C in word 5 (13:12);
    // alpha A/B in word 4 (13:12, 20:19), C in word 5 (26:25).
    let rgb_sel_pos = [(3, 0), (3, 13), (5, 12)];
    let alpha_sel_pos = [(4, 12), (4, 19), (5, 25)];
    for sel in InputSelect::ALL {
        for (i, ((rw, rs), (aw, as_))) in rgb_sel_pos.into_iter().zip(alpha_sel_pos).enumerate() {
            let mut a = base_alu();
            a.rgb.inputs[i].sel = *sel;
            g.check(
                &format!("RGB_SEL_{} {sel}", ["A", "B", "C"][i]),
                Inst::Alu(a),
                rw,
                rs,
                2,
                sel.code(),
            );
            let mut a = base_alu();
            a.alpha.inputs[i].sel = *sel;
            g.check(
                &format!("ALPHA_SEL_{} {sel}", ["A", "B", "C"][i]),
                Inst::Alu(a),
                aw,
                as_,
                2,
                sel.code(),
            );
        }
    }
    // Swizzles: RED/GREEN/BLUE_SWIZ_A word 3 bits 4:2, 7:5, 10:8; ALPHA_SWIZ_C word 5 29:27.
    for swz in Swizzle::ALL {
        for (ch, shift) in [(0, 2), (1, 5), (2, 8)] {
            let mut a = base_alu();
            a.rgb.inputs[0].swizzle[ch] = *swz;
            g.check(
                &format!("{}_SWIZ_A {swz}", ["RED", "GREEN", "BLUE"][ch]),
                Inst::Alu(a),
                3,
                shift,
                3,
                swz.code(),
            );
        }
        let mut a = base_alu();
        a.rgb.inputs[2].swizzle[1] = *swz;
        g.check(
            &format!("GREEN_SWIZ_C {swz}"),
            Inst::Alu(a),
            5,
            17,
            3,
            swz.code(),
        );
        let mut a = base_alu();
        a.alpha.inputs[1].swizzle = *swz;
        g.check(
            &format!("ALPHA_SWIZ_B {swz}"),
            Inst::Alu(a),
            4,
            21,
            3,
            swz.code(),
        );
        let mut a = base_alu();
        a.alpha.inputs[2].swizzle = *swz;
        g.check(
            &format!("ALPHA_SWIZ_C {swz}"),
            Inst::Alu(a),
            5,
            27,
            3,
            swz.code(),
        );
    }
    for m in InputModifier::ALL {
        for (i, (w, s)) in [(3, 11), (3, 24), (5, 23)].into_iter().enumerate() {
            let mut a = base_alu();
            a.rgb.inputs[i].modifier = *m;
            g.check(
                &format!("RGB_MOD_{} {m}", ["A", "B", "C"][i]),
                Inst::Alu(a),
                w,
                s,
                2,
                m.code(),
            );
        }
        for (i, (w, s)) in [(4, 17), (4, 24), (5, 30)].into_iter().enumerate() {
            let mut a = base_alu();
            a.alpha.inputs[i].modifier = *m;
            g.check(
                &format!("ALPHA_MOD_{} {m}", ["A", "B", "C"][i]),
                Inst::Alu(a),
                w,
                s,
                2,
                m.code(),
            );
        }
    }
    for omod in OutputModifier::ALL {
        let mut a = base_alu();
        a.rgb.omod = *omod;
        g.check(
            &format!("RGB OMOD {omod}"),
            Inst::Alu(a),
            3,
            26,
            3,
            omod.code(),
        );
        let mut a = base_alu();
        a.alpha.omod = *omod;
        g.check(
            &format!("ALPHA OMOD {omod}"),
            Inst::Alu(a),
            4,
            26,
            3,
            omod.code(),
        );
    }
    for op in CompareOp::ALL {
        let mut a = base_alu();
        a.writes = AluWrites::Predicate(PredicateWrites {
            rgb_mask: RgbMask::new(1).unwrap(),
            rgb_op: *op,
            ..Default::default()
        });
        g.check(
            &format!("RGB TARGET pred {op}"),
            Inst::Alu(a),
            3,
            29,
            2,
            op.code(),
        );
        let mut a = base_alu();
        a.writes = AluWrites::Predicate(PredicateWrites {
            alpha_mask: AlphaMask::On,
            alpha_op: *op,
            ..Default::default()
        });
        g.check(
            &format!("ALPHA TARGET pred {op}"),
            Inst::Alu(a),
            4,
            29,
            2,
            op.code(),
        );
        for sel in AluResultSel::ALL {
            let mut a = base_alu();
            a.alu_result = Some(AluResult { sel: *sel, op: *op });
            g.check(
                &format!("ALU_RESULT_OP {sel}{op}"),
                Inst::Alu(a),
                0,
                23,
                2,
                op.code(),
            );
            g.check(
                &format!("ALU_RESULT_SEL {sel}{op}"),
                Inst::Alu(a),
                0,
                21,
                1,
                sel.code(),
            );
            g.check(&format!("ALU_WMASK {sel}{op}"), Inst::Alu(a), 3, 31, 1, 1);
        }
    }
    for t in RenderTarget::ALL {
        let mut a = base_alu();
        a.writes = AluWrites::Output(OutputWrites {
            rgb_mask: RgbMask::RGB,
            rgb_target: *t,
            ..Default::default()
        });
        g.check(
            &format!("RGB TARGET out {t}"),
            Inst::Alu(a),
            3,
            29,
            2,
            t.code(),
        );
        g.check(&format!("TYPE out {t}"), Inst::Alu(a), 0, 0, 2, 1);
        let mut a = base_alu();
        a.writes = AluWrites::Output(OutputWrites {
            alpha_mask: AlphaMask::On,
            alpha_target: *t,
            ..Default::default()
        });
        g.check(
            &format!("ALPHA TARGET out {t}"),
            Inst::Alu(a),
            4,
            29,
            2,
            t.code(),
        );
    }
    for sel in PredSel::ALL {
        for invert in [false, true] {
            let p = Some(Predicate { sel: *sel, invert });
            let mut a = base_alu();
            a.rgb.predicate = p;
            g.check(
                &format!("RGB_PRED_SEL {sel} inv={invert}"),
                Inst::Alu(a),
                0,
                3,
                3,
                sel.code(),
            );
            g.check(
                &format!("RGB_PRED_INV {sel} inv={invert}"),
                Inst::Alu(a),
                0,
                6,
                1,
                u32::from(invert),
            );
            let mut a = base_alu();
            a.alpha.predicate = p;
            g.check(
                &format!("ALPHA_PRED_SEL {sel} inv={invert}"),
                Inst::Alu(a),
                0,
                25,
                3,
                sel.code(),
            );
            g.check(
                &format!("ALPHA_PRED_INV {sel} inv={invert}"),
                Inst::Alu(a),
                0,
                22,
                1,
                u32::from(invert),
            );
            let mut t = base_tex();
            t.alpha_predicate = p;
            g.check(
                &format!("TEX ALPHA_PRED_SEL {sel}"),
                Inst::Tex(t),
                0,
                25,
                3,
                sel.code(),
            );
        }
    }
    for op in FcOp::ALL {
        let f = FcInst {
            op: *op,
            ..base_fc()
        };
        g.check(&format!("FC OP {op}"), Inst::Fc(f), 2, 0, 3, op.code());
    }
    for op in AddrStackOp::ALL {
        let f = FcInst {
            a_op: *op,
            ..base_fc()
        };
        g.check(&format!("FC A_OP {op}"), Inst::Fc(f), 2, 6, 2, op.code());
    }
    for op in BranchOp::ALL {
        let f = FcInst {
            b_op0: *op,
            ..base_fc()
        };
        g.check(&format!("FC B_OP0 {op}"), Inst::Fc(f), 2, 24, 2, op.code());
        let f = FcInst {
            b_op1: *op,
            ..base_fc()
        };
        g.check(&format!("FC B_OP1 {op}"), Inst::Fc(f), 2, 26, 2, op.code());
    }
    for ch in Channel::ALL {
        for invert in [false, true] {
            let f = FcInst {
                predicate: Some(FcPredicate {
                    channel: *ch,
                    invert,
                }),
                ..base_fc()
            };
            g.check(
                &format!("FC RGB_PRED_SEL {ch} inv={invert}"),
                Inst::Fc(f),
                0,
                3,
                3,
                2 + ch.code(),
            );
        }
        for (i, shift) in [8, 10, 12, 14].into_iter().enumerate() {
            let mut t = base_tex();
            t.src.swizzle[i] = *ch;
            g.check(
                &format!("TEX SRC_{}_SWIZ {ch}", ["S", "T", "R", "Q"][i]),
                Inst::Tex(t),
                2,
                shift,
                2,
                ch.code(),
            );
        }
        for (i, shift) in [24, 26, 28, 30].into_iter().enumerate() {
            let mut t = base_tex();
            t.dst_swizzle[i] = *ch;
            g.check(
                &format!("TEX DST_{}_SWIZ {ch}", ["R", "G", "B", "A"][i]),
                Inst::Tex(t),
                2,
                shift,
                2,
                ch.code(),
            );
        }
    }
    let gradient = |n: u32, ch: Channel| TexOperand {
        addr: temp(n),
        swizzle: [ch; 4],
    };
    for op in [
        TexOp::Nop,
        TexOp::Ld,
        TexOp::TexKill,
        TexOp::Proj,
        TexOp::LodBias,
        TexOp::Lod,
        TexOp::Dxdy {
            dx: gradient(4, Channel::G),
            dy: gradient(5, Channel::B),
        },
        TexOp::LdUncached,
    ] {
        let t = TexInst { op, ..base_tex() };
        g.check(
            &format!("TEX INST {}", op.opcode()),
            Inst::Tex(t),
            1,
            22,
            3,
            op.opcode().code(),
        );
    }
    assert_eq!(TexOpcode::COUNT, 8, "every TEX opcode is listed above");

    // Scalar fields at their extremes.
    let f = FcInst {
        b_pop_cnt: BranchPopCount::new(31).unwrap(),
        bool_addr: BoolConstId::new(31).unwrap(),
        int_addr: IntConstId::new(31).unwrap(),
        jump_addr: SlotIndex::new(511).unwrap(),
        jump_addressing: JumpAddressing::Global,
        ..base_fc()
    };
    g.check("FC B_POP_CNT 31", Inst::Fc(f), 2, 16, 5, 31);
    g.check("FC BOOL_ADDR 31", Inst::Fc(f), 3, 0, 5, 31);
    g.check("FC INT_ADDR 31", Inst::Fc(f), 3, 8, 5, 31);
    g.check("FC JUMP_ADDR 511", Inst::Fc(f), 3, 16, 9, 511);
    g.check("FC JUMP_GLOBAL", Inst::Fc(f), 3, 31, 1, 1);
    let mut t = base_tex();
    t.tex_id = TexId::new(15).unwrap();
    t.dst = TempAddr::relative(127).unwrap();
    g.check("TEX TEX_ID 15", Inst::Tex(t), 1, 16, 4, 15);
    g.check("TEX DST_ADDR 127", Inst::Tex(t), 2, 16, 7, 127);
    g.check("TEX DST_ADDR_REL", Inst::Tex(t), 2, 23, 1, 1);
    let t = TexInst {
        op: TexOp::Dxdy {
            dx: gradient(0, Channel::R),
            dy: TexOperand {
                addr: TempAddr::relative(9).unwrap(),
                swizzle: [Channel::R; 4],
            },
        },
        ..base_tex()
    };
    // x1k-encoding.md §14 item 1: DY_ADDR_REL is bit 23 (not Mesa's bit 17).
    g.check("TEX DY_ADDR_REL (bit 23)", Inst::Tex(t), 3, 23, 1, 1);
    g.check("TEX DY_ADDR 9", Inst::Tex(t), 3, 16, 7, 9);
    let mut a = base_alu();
    a.rgb.sources[2] = AluSource::Const(ConstAddr {
        reg: ConstReg::new(200).unwrap(),
        addressing: Addressing::LoopRelative,
    });
    g.check(
        "ADDR2 c[200+aL]",
        Inst::Alu(a),
        1,
        20,
        10,
        200 | 1 << 8 | 1 << 9,
    );
    let mut a = base_alu();
    a.alpha.sources[1] = AluSource::Temp(TempAddr::relative(127).unwrap());
    g.check(
        "ALPHA ADDR1 r[127+aL]",
        Inst::Alu(a),
        2,
        10,
        10,
        127 | 1 << 9,
    );
    let mut a = base_alu();
    a.rgb.sources[0] = AluSource::Inline(InlineConst::new(0x7F).unwrap());
    g.check("ADDR0 inline 480", Inst::Alu(a), 1, 0, 10, 0xFF);
    let mut a = base_alu();
    a.rgb.dest = TempAddr::relative(127).unwrap();
    a.alpha.dest = TempAddr::relative(126).unwrap();
    g.check("RGB_ADDRD r[127+aL]", Inst::Alu(a), 5, 4, 8, 127 | 1 << 7);
    g.check("ALPHA_ADDRD r[126+aL]", Inst::Alu(a), 4, 4, 8, 126 | 1 << 7);
    let mut a = base_alu();
    a.writes = AluWrites::Output(OutputWrites {
        w: AlphaMask::On,
        ..Default::default()
    });
    g.check("W_OMASK", Inst::Alu(a), 4, 31, 1, 1);

    assert!(g.count > 300, "generated {} golden cases", g.count);
    insta::assert_snapshot!(g.lines);
}

/// Tripwire (style §7): the size of `Inst` is part of the simulator's and
/// scheduler's memory budget; a change should be deliberate.
#[test]
fn inst_size() {
    assert_eq!(std::mem::size_of::<Inst>(), 72);
}

#[test]
fn inline_constant_table() {
    let cases: [(u8, f32); 11] = [
        (0x30, 0.5),
        (0x38, 1.0),
        (0x40, 2.0),
        (0x48, 4.0),
        (0x78, 256.0),
        (0x7F, 480.0),
        (0x08, 1.0 / 64.0),
        (0x01, 1.0 / 512.0),
        (0x02, 1.0 / 256.0),
        (0x04, 1.0 / 128.0),
        (0x00, 1.0 / 1024.0),
    ];
    for (code, value) in cases {
        assert_eq!(inline_constant_value(code), value, "code {code:#04x}");
    }
    let mut allowed = 0;
    for code in 0u8..128 {
        let value = inline_constant_value(code);
        match inline_constant_code(value) {
            Some(c) => {
                assert_eq!(c, code);
                allowed += 1;
            }
            // ctm's rule: exponent-field-0 codes are never chosen (docs/isa-x1k.md).
            None => assert_eq!(code >> 3, 0, "code {code:#04x} should be allowed"),
        }
    }
    assert_eq!(allowed, 120);
}
