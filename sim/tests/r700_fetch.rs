//! Fetch clauses: every ABI texture format (32_FLOAT, 32_32_FLOAT,
//! 32_32_32_32_FLOAT, 8_8_8_8 UNORM, 16 UINT as float), LD with integer
//! coordinates and offsets, clamp to edge, DST_SEL swizzles and masks,
//! vertex fetch formats, and that fetches run only for the pixels passing
//! their CF instruction's condition.

mod r700_common;

use ctm_backend_r700::isa::*;
use ctm_sim::r700::{Config, Launch, Machine, RegInit, TexFormat, Texture, VertexBuffer};
use r700_common::*;

fn tex_inst(op: TexOp, dst_sel: [Sel; 4], offset: [i32; 3]) -> TexInst {
    TexInst {
        op,
        bc_frac_mode: false,
        fetch_whole_quad: false,
        resource_id: 0,
        src_gpr: gpr(0),
        src_rel: false,
        alt_const: false,
        dst_gpr: gpr(1),
        dst_rel: false,
        dst_sel,
        lod_bias: LodBias::new(0).unwrap(),
        coord_type: [CoordType::Unnormalized; 4],
        offset: offset.map(|o| TexOffset::new(o).unwrap()),
        sampler_id: SamplerId::new(0).unwrap(),
        src_sel: [TexSrcSel::X, TexSrcSel::Y, TexSrcSel::Zero, TexSrcSel::Zero],
    }
}

/// TEX clause then EXPORT_DONE R1.
fn tex_program(t: TexInst) -> Program {
    let mut fetch = CfGeneral::new(CfOp::Tex);
    fetch.addr = 2;
    let mut p = Program {
        cf: vec![CfInst::Cf(fetch), export_done(1, 0, true)],
        ..Program::default()
    };
    p.clauses
        .insert(2, Clause::Fetch(FetchClause::Tex(vec![t])));
    p
}

fn run_tex(t: TexInst, tex: Texture, coords: &[[u32; 4]], r1: [u32; 4]) -> Vec<[u32; 4]> {
    let mut l = Launch::raw(
        tex_program(t),
        coords.len() as u32,
        vec![
            (gpr(0), RegInit::PerElement(coords.to_vec())),
            (gpr(1), RegInit::Const(r1)),
        ],
        &[],
    );
    l.textures.insert(0, tex);
    let r = Machine::new(Config::default()).run(&l);
    assert_eq!(r.faults, vec![]);
    pixel_bits(&r, 0)
}

const XYZW: [Sel; 4] = [Sel::X, Sel::Y, Sel::Z, Sel::W];

#[test]
fn float_formats_fill_missing_channels_with_0_0_1() {
    let c = [v4(1.7, 0.2, 0.0, 0.0)];
    let one = |fmt, words: Vec<u32>| {
        run_tex(
            tex_inst(TexOp::Sample, XYZW, [0; 3]),
            Texture::from_words(2, 1, fmt, &words),
            &c,
            [7; 4],
        )
    };
    let w = |xs: &[f32]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        one(TexFormat::R32Float, w(&[1.0, 2.0]))[0],
        v4(2.0, 0.0, 0.0, 1.0)
    );
    assert_eq!(
        one(TexFormat::Rg32Float, w(&[1.0, 2.0, 3.0, 4.0]))[0],
        v4(3.0, 4.0, 0.0, 1.0)
    );
    assert_eq!(
        one(
            TexFormat::Rgba32Float,
            w(&[0.0, 0.0, 0.0, 0.0, 5.0, 6.0, 7.0, 8.0])
        )[0],
        v4(5.0, 6.0, 7.0, 8.0)
    );
}

#[test]
fn unorm8x4_and_u16_formats() {
    let c = [v4(0.0, 0.0, 0.0, 0.0), v4(1.0, 0.0, 0.0, 0.0)];
    let t = Texture {
        width: 2,
        height: 1,
        format: TexFormat::Rgba8Unorm,
        data: vec![0, 51, 255, 128, 1, 2, 3, 4],
    };
    let r = run_tex(tex_inst(TexOp::Sample, XYZW, [0; 3]), t, &c, [0; 4]);
    assert_eq!(r[0], v4(0.0, 0.2, 1.0, 128.0 / 255.0));
    assert_eq!(r[1], v4(1.0 / 255.0, 2.0 / 255.0, 3.0 / 255.0, 4.0 / 255.0));
    let t = Texture {
        width: 2,
        height: 1,
        format: TexFormat::R16Uint,
        data: vec![0xFF, 0xFF, 7, 0],
    };
    let r = run_tex(tex_inst(TexOp::Sample, XYZW, [0; 3]), t, &c, [0; 4]);
    assert_eq!(r[0], v4(65535.0, 0.0, 0.0, 1.0));
    assert_eq!(r[1], v4(7.0, 0.0, 0.0, 1.0));
}

fn grid(w: u32, h: u32) -> Texture {
    let words: Vec<u32> = (0..w * h).map(|k| (k as f32).to_bits()).collect();
    Texture::from_words(w, h, TexFormat::R32Float, &words)
}

#[test]
fn coordinates_floor_and_clamp_to_the_edge() {
    let c: Vec<[u32; 4]> = [
        (-3.0, 0.5),
        (3.99, 2.0),
        (100.0, 100.0),
        (1.0, -0.01),
        (f32::NAN, 1.0),
    ]
    .iter()
    .map(|&(x, y)| v4(x, y, 0.0, 0.0))
    .collect();
    let r = run_tex(
        tex_inst(TexOp::Sample, XYZW, [0; 3]),
        grid(4, 3),
        &c,
        [0; 4],
    );
    let got: Vec<f32> = r.iter().map(|v| f32::from_bits(v[0])).collect();
    // (0,0) (3,2) (3,2) (1,0) (0,1): value = y·4 + x.
    assert_eq!(got, [0.0, 11.0, 11.0, 1.0, 4.0]);
}

#[test]
fn ld_takes_integer_coordinates_and_offsets() {
    let c = [[1, 1, 0, 0], [0, 0, 0, 0], [u32::MAX, 5, 0, 0]];
    let r = run_tex(
        tex_inst(TexOp::Ld, XYZW, [1, -1, 0]),
        grid(4, 3),
        &c,
        [0; 4],
    );
    let got: Vec<f32> = r.iter().map(|v| f32::from_bits(v[0])).collect();
    // (2,0) (1,0 clamped from -1) (0 from -1+1=0, 2 clamped from 4).
    assert_eq!(got, [2.0, 1.0, 8.0]);
}

#[test]
fn normalised_coordinates_scale_by_the_size() {
    let mut t = tex_inst(TexOp::Sample, XYZW, [0; 3]);
    t.coord_type = [CoordType::Normalized; 4];
    let c = [v4(0.5, 0.5, 0.0, 0.0), v4(0.99, 0.0, 0.0, 0.0)];
    let r = run_tex(t, grid(4, 4), &c, [0; 4]);
    assert_eq!(f32::from_bits(r[0][0]), 10.0);
    assert_eq!(f32::from_bits(r[1][0]), 3.0);
}

#[test]
fn dst_sel_swizzles_constants_and_masks() {
    let sel = [Sel::W, Sel::One, Sel::Mask, Sel::X];
    let t = Texture::from_words(
        1,
        1,
        TexFormat::Rgba32Float,
        &[f(1.0), f(2.0), f(3.0), f(4.0)],
    );
    let r = run_tex(
        tex_inst(TexOp::Sample, sel, [0; 3]),
        t,
        &[[0; 4]],
        [9, 9, 9, 9],
    );
    assert_eq!(r[0], [f(4.0), f(1.0), 9, f(1.0)]);
}

#[test]
fn fetch_runs_only_for_pixels_passing_the_condition() {
    // COND_FALSE: no pixel fetches; R1 keeps its value.
    let mut p = tex_program(tex_inst(TexOp::Sample, XYZW, [0; 3]));
    if let CfInst::Cf(c) = &mut p.cf[0] {
        c.cond = CfCond::False;
    }
    let mut l = Launch::raw(p, 4, vec![(gpr(1), RegInit::Const([5; 4]))], &[]);
    l.textures.insert(0, grid(2, 2));
    let r = Machine::new(Config::default()).run(&l);
    assert_eq!(r.faults, vec![]);
    assert_eq!(pixel_bits(&r, 0), vec![[5; 4]; 4]);
    assert_eq!(r.stats.memory["fetch_bytes"], 0);
}

#[test]
fn unsupported_texture_instructions_fault_by_name() {
    let mut l = Launch::raw(
        tex_program(tex_inst(TexOp::SampleC, XYZW, [0; 3])),
        1,
        vec![],
        &[],
    );
    l.textures.insert(0, grid(2, 2));
    let r = Machine::new(Config::default()).run(&l);
    assert!(
        r.faults[0].to_string().contains("SAMPLE_C"),
        "{}",
        r.faults[0]
    );
}

fn vtx(format: DataFormat, num: NumFormat, comp: FormatComp, offset: u16) -> Program {
    let v = VtxInst {
        dst: VtxDst::Gpr {
            gpr: gpr(1),
            rel: false,
        },
        fetch_type: FetchType::NoIndexOffset,
        fetch_whole_quad: false,
        buffer_id: 3,
        src_gpr: gpr(0),
        src_rel: false,
        src_sel_x: Chan::Y,
        mega_fetch_count: MegaFetchCount::new(15).unwrap(),
        dst_sel: XYZW,
        use_const_fields: false,
        format: FetchFormat {
            data_format: format,
            num_format: num,
            format_comp: comp,
            srf_mode: SrfMode::NoZero,
        },
        offset,
        endian_swap: EndianSwap::None,
        const_buf_no_stride: false,
        mega_fetch: true,
        alt_const: false,
    };
    let mut fetch = CfGeneral::new(CfOp::Vtx);
    fetch.addr = 2;
    let mut p = Program {
        cf: vec![CfInst::Cf(fetch), export_done(1, 0, true)],
        ..Program::default()
    };
    p.clauses.insert(
        2,
        Clause::Fetch(FetchClause::Vtx(vec![VtxClauseInst::Fetch(v)])),
    );
    p
}

#[test]
fn vertex_fetch_formats() {
    let data: Vec<u8> = (0u8..64).collect();
    let run = |p: Program| {
        let idx = vec![[0, 1, 0, 0], [0, 2, 0, 0]];
        let mut l = Launch::raw(p, 2, vec![(gpr(0), RegInit::PerElement(idx))], &[]);
        l.vertex_buffers.insert(
            3,
            VertexBuffer {
                stride: 16,
                data: data.clone(),
            },
        );
        let r = Machine::new(Config::default()).run(&l);
        assert_eq!(r.faults, vec![]);
        pixel_bits(&r, 0)
    };
    let dw = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    // 32_32 INT: raw dwords at index·16 + 4, then (0, 1).
    let r = run(vtx(
        DataFormat::F32_32,
        NumFormat::Int,
        FormatComp::Unsigned,
        4,
    ));
    assert_eq!(r[0], [dw(20), dw(24), 0, 1]);
    assert_eq!(r[1], [dw(36), dw(40), 0, 1]);
    // 8_8_8_8 UNORM and SCALED, SIGNED NORM.
    let r = run(vtx(
        DataFormat::F8_8_8_8,
        NumFormat::Norm,
        FormatComp::Unsigned,
        0,
    ));
    assert_eq!(
        r[0],
        v4(16.0 / 255.0, 17.0 / 255.0, 18.0 / 255.0, 19.0 / 255.0)
    );
    let r = run(vtx(
        DataFormat::F8_8_8_8,
        NumFormat::Scaled,
        FormatComp::Unsigned,
        0,
    ));
    assert_eq!(r[1], v4(32.0, 33.0, 34.0, 35.0));
    let r = run(vtx(
        DataFormat::F8_8_8_8,
        NumFormat::Norm,
        FormatComp::Signed,
        0,
    ));
    assert_eq!(
        r[0],
        v4(16.0 / 127.0, 17.0 / 127.0, 18.0 / 127.0, 19.0 / 127.0)
    );
    // Past the buffer: zeros.
    let r = run(vtx(
        DataFormat::F32Float,
        NumFormat::Norm,
        FormatComp::Unsigned,
        40,
    ));
    assert_eq!(r[1][0], 0);
    // An unmodelled format faults by name.
    let p = vtx(DataFormat::F5_6_5, NumFormat::Norm, FormatComp::Unsigned, 0);
    let mut l = Launch::raw(p, 1, vec![], &[]);
    l.vertex_buffers.insert(
        3,
        VertexBuffer {
            stride: 16,
            data: data.clone(),
        },
    );
    let r = Machine::new(Config::default()).run(&l);
    assert!(r.faults[0].to_string().contains("5_6_5"), "{}", r.faults[0]);
}
