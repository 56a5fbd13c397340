//! Bit positions checked independently of `isa::fields`: every opcode of
//! every format, and a one-hot value in selected fields, must land where
//! the digest's tables (§2) put them, computed here with plain shifts.

use ctm_backend_r700::isa::*;

fn bits(word: u32, hi: u32, lo: u32) -> u32 {
    (word >> lo) & ((1u64 << (hi - lo + 1)) - 1) as u32
}

#[test]
fn every_opcode_sits_in_its_field() {
    for &op in CfOp::ALL {
        let [_, w1] = encode_cf(&CfInst::Cf(CfGeneral::new(op)));
        assert_eq!(bits(w1, 29, 23), op.code(), "{op}");
        assert_eq!(decode_cf([0, w1]), Ok(CfInst::Cf(CfGeneral::new(op))));
    }
    for &op in CfAluOp::ALL {
        let inst = CfInst::Alu(CfAlu {
            op,
            addr: AluClauseAddr::new(0).unwrap(),
            count: AluSlotCount::ONE,
            kcache: [Kcache::default(); 2],
            alt_const: false,
            whole_quad_mode: false,
            barrier: false,
        });
        let [_, w1] = encode_cf(&inst);
        assert_eq!(bits(w1, 29, 26), op.code(), "{op}");
        assert_eq!(bits(w1, 29, 29), 1, "{op}: bit 29 marks CF_ALU");
    }
    let dst = AluDst::default();
    for &op in Op2::ALL {
        let [_, w1] = encode_alu(
            &AluInst::op2(op, dst, [AluSrc::default(); 2]),
            GroupEnd::Last,
        );
        assert_eq!(bits(w1, 17, 7), op.code(), "{op}");
        assert_eq!(bits(w1, 17, 15), 0, "{op}");
    }
    for &op in Op3::ALL {
        let [_, w1] = encode_alu(
            &AluInst::op3(op, dst, [AluSrc::default(); 3]),
            GroupEnd::Last,
        );
        assert_eq!(bits(w1, 17, 13), op.code(), "{op}");
        assert_ne!(bits(w1, 17, 15), 0, "{op}");
    }
    for &op in TexOp::ALL {
        let [w0, w1, w2, _] = encode_tex(&TexInst {
            op,
            bc_frac_mode: false,
            fetch_whole_quad: false,
            resource_id: 0,
            src_gpr: Gpr::R0,
            src_rel: false,
            alt_const: false,
            dst_gpr: Gpr::R0,
            dst_rel: false,
            dst_sel: [Sel::X; 4],
            lod_bias: LodBias::default(),
            coord_type: [CoordType::Unnormalized; 4],
            offset: [TexOffset::default(); 3],
            sampler_id: SamplerId::default(),
            src_sel: [TexSrcSel::X; 4],
        });
        assert_eq!(bits(w0, 4, 0), op.code(), "{op}");
        assert_eq!((w0 >> 5, w1, w2), (0, 0, 0));
    }
}

#[test]
fn export_and_memory_opcodes() {
    let io = CfAllocIo::default();
    for &op in CfExportOp::ALL {
        let [_, w1] = encode_cf(&CfInst::Export(CfExport {
            op,
            export_type: ExportType::Pixel,
            swizzle: [Sel::Mask; 4],
            io,
        }));
        assert_eq!(bits(w1, 29, 23), op.code());
        assert_eq!(bits(w1, 11, 0), 0o7777, "SEL_X..W are [11:0], 3 bits each");
    }
    for &op in CfMemOp::ALL {
        let [_, w1] = encode_cf(&CfInst::Mem(CfMem {
            op,
            access: MemAccess::WriteInd,
            array_size: ArraySize::new(4095).unwrap(),
            comp_mask: CompMask::new(15).unwrap(),
            io,
        }));
        assert_eq!(bits(w1, 29, 23), op.code());
        assert_eq!(
            bits(w1, 15, 0),
            0xFFFF,
            "ARRAY_SIZE [11:0], COMP_MASK [15:12]"
        );
    }
}

#[test]
fn selected_fields() {
    // CF_WORD1: POP_COUNT [2:0], CF_CONST [7:3], COND [9:8], COUNT [12:10],
    // CALL_COUNT [18:13], COUNT_3 19, EOP 21, VPM 22, WQM 30, BARRIER 31.
    let mut c = CfGeneral::new(CfOp::Tex);
    c.pop_count = PopCount::new(5).unwrap();
    c.cf_const = CfConst::new(17).unwrap();
    c.cond = CfCond::NotBool;
    c.count = FetchCount::new(16).unwrap();
    c.call_count = CallCount::new(33).unwrap();
    c.flags = CfFlags {
        end_of_program: true,
        valid_pixel_mode: true,
        whole_quad_mode: true,
        barrier: true,
    };
    let [_, w1] = encode_cf(&CfInst::Cf(c));
    assert_eq!(bits(w1, 2, 0), 5);
    assert_eq!(bits(w1, 7, 3), 17);
    assert_eq!(bits(w1, 9, 8), 3);
    assert_eq!(bits(w1, 12, 10), 7);
    assert_eq!(bits(w1, 18, 13), 33);
    assert_eq!(bits(w1, 19, 19), 1);
    assert_eq!(bits(w1, 20, 20), 0);
    assert_eq!(w1 & (1 << 21 | 1 << 22 | 1 << 30 | 1 << 31), 0xC060_0000);

    // CF_ALU: ADDR [21:0], BANK0 [25:22], BANK1 [29:26], MODE0 [31:30];
    // MODE1 [1:0], ADDR0 [9:2], ADDR1 [17:10], COUNT [24:18], ALT_CONST 25.
    let inst = CfInst::Alu(CfAlu {
        op: CfAluOp::Alu,
        addr: AluClauseAddr::new(0x2A_AAAA).unwrap(),
        count: AluSlotCount::new(128).unwrap(),
        kcache: [
            Kcache {
                mode: KcacheMode::LockLoopIndex,
                bank: KcacheBank::new(9).unwrap(),
                line: 0x81,
            },
            Kcache {
                mode: KcacheMode::Lock1,
                bank: KcacheBank::new(6).unwrap(),
                line: 0x7E,
            },
        ],
        alt_const: true,
        whole_quad_mode: false,
        barrier: false,
    });
    let [w0, w1] = encode_cf(&inst);
    assert_eq!(bits(w0, 21, 0), 0x2A_AAAA);
    assert_eq!(
        (bits(w0, 25, 22), bits(w0, 29, 26), bits(w0, 31, 30)),
        (9, 6, 3)
    );
    assert_eq!(
        (bits(w1, 1, 0), bits(w1, 9, 2), bits(w1, 17, 10)),
        (1, 0x81, 0x7E)
    );
    assert_eq!((bits(w1, 24, 18), bits(w1, 25, 25)), (127, 1));

    // ALU: SRC1_SEL [21:13] (not printed in the manual's table), kcache
    // bank 1 at 160, cfile at 256, DST_GPR [27:21], DST_ELEM [30:29].
    let src = [
        AluSrc::new(AluSrcSel::Kcache1(KcacheIndex::new(5).unwrap()), Chan::W),
        AluSrc::new(AluSrcSel::Cfile(255), Chan::Y),
    ];
    let dst = AluDst {
        gpr: Gpr::new(99).unwrap(),
        rel: false,
        chan: Chan::Z,
    };
    let [w0, w1] = encode_alu(&AluInst::op2(Op2::Mul, dst, src), GroupEnd::More);
    assert_eq!((bits(w0, 8, 0), bits(w0, 11, 10)), (165, 3));
    assert_eq!((bits(w0, 21, 13), bits(w0, 24, 23)), (511, 1));
    assert_eq!(
        (bits(w1, 27, 21), bits(w1, 30, 29), bits(w1, 4, 4)),
        (99, 2, 1)
    );
    assert_eq!(bits(w0, 31, 31), 0);
}

/// The example words of the LLVM fixtures, decoded field by field by hand
/// (`docs/isa-r700.md` §5 walks through them).
#[test]
fn hand_decoded_llvm_words() {
    // EXPORT_DONE PIXEL0 R1.xyzw with ELEM_SIZE 3, EOP, BARRIER.
    let CfInst::Export(e) = decode_cf([0xC000_8000, 0x9420_0688]).unwrap() else {
        panic!("not an export");
    };
    assert_eq!(e.op, CfExportOp::ExportDone);
    assert_eq!((e.io.rw_gpr.get(), e.io.elem_size.get()), (1, 3));
    assert_eq!(e.swizzle, [Sel::X, Sel::Y, Sel::Z, Sel::W]);
    assert!(e.io.flags.end_of_program && e.io.flags.barrier);
    // VTX FETCH R1.xyzw from R1.x, FMT_32_32_32_32_FLOAT, SCALED, signed,
    // NO_ZERO, NO_INDEX_OFFSET, MEGA_FETCH_COUNT 16, MEGA_FETCH.
    let VtxClauseInst::Fetch(v) =
        decode_vtx_clause_inst([0x4001_0040, 0xE8CD_1001, 0x0008_0000, 0]).unwrap()
    else {
        panic!("not a fetch");
    };
    assert_eq!(v.format.data_format, DataFormat::F32_32_32_32Float);
    assert_eq!(v.fetch_type, FetchType::NoIndexOffset);
    assert_eq!((v.mega_fetch_count.get(), v.mega_fetch), (16, true));
    // TEX SAMPLE with OFFSET (-2, 3, 0) and source swizzle YXZW.
    let t = decode_tex([0x0000_0110, 0x000D_1000, 0x6810_007E, 0]).unwrap();
    assert_eq!(t.offset.map(|o| o.get()), [-2, 3, 0]);
    assert_eq!(t.src_sel[..2], [TexSrcSel::Y, TexSrcSel::X]);
}
