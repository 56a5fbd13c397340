//! The Conditional Operation Unit (CTM §2.1.3, §2.2.3): conditional
//! execution at the PE, conditional output at the DPP, the conditional
//! buffer's reads and writes through its cache, and every test code.

mod x1k_device_support;

use ctm_sim::x1k::device::command::{FlushTarget, InvalidateTarget};
use ctm_sim::x1k::device::host::{read_texels, write_texels};
use ctm_sim::x1k::device::{
    BaseAddress, Client, Command, CondLocation, CondTest, CondWrite, DataFormat, Device, Domain,
    ExecError, Height, OutputId, Surface, SurfaceFormat, Tiling,
};
use ctm_sim::x1k::interface::ElementResult;
use x1k_device_support::{FnArray, image, image_with, target0};

const CODE: u32 = 0x1000;
const COND: u32 = 0x0004_0000;
const OUT: u32 = 0x0010_0000;
const W: u32 = 4;
const H: u32 = 3;

fn cond_surface(format: DataFormat) -> Surface {
    Surface {
        base: BaseAddress::new(COND).unwrap(),
        format: SurfaceFormat::new(16, Tiling::Linear, format).unwrap(),
        height: Some(H),
    }
}

fn out_surface() -> Surface {
    Surface {
        base: BaseAddress::new(OUT).unwrap(),
        format: SurfaceFormat::new(16, Tiling::Linear, DataFormat::Float32_1).unwrap(),
        height: Some(H),
    }
}

/// b(i, j) = i + 10·j in the conditional buffer.
fn b(i: u32, j: u32) -> f32 {
    (i + 10 * j) as f32
}

/// A device with the conditional buffer (b) and output 0 bound, and an
/// array writing 1.0 to every element (conditional value from `export`).
fn device(export: impl Fn(u32, u32) -> Option<f32> + 'static, exports_w: bool) -> Device<FnArray> {
    let mut dev = Device::new(FnArray::new(move |_, i, j, _| ElementResult {
        conditional_value: export(i, j),
        ..target0(i, j, [1.0; 4])
    }));
    let img = image_with(
        |i| i.fg_depth_src.shader_exports_w = exports_w,
        Default::default(),
    );
    dev.memory_mut().write_bytes(CODE, img.text()).unwrap();
    dev.load_program(&img);
    let cond = cond_surface(DataFormat::Float32_1);
    let texels: Vec<[f32; 4]> = (0..H)
        .flat_map(|j| (0..W).map(move |i| [b(i, j), 0.0, 0.0, 0.0]))
        .collect();
    write_texels(dev.memory_mut(), &cond, W, H, &texels).unwrap();
    let out = out_surface();
    for c in [
        Command::SetInstFmt {
            base: BaseAddress::new(CODE).unwrap(),
            format: SurfaceFormat::default(),
        },
        Command::SetCondOutFmt {
            base: cond.base,
            format: cond.format,
            height: Height::new(H).unwrap(),
        },
        Command::SetOutFmt {
            output: OutputId::new(0).unwrap(),
            base: out.base,
            format: out.format,
            height: Height::new(H).unwrap(),
        },
        Command::SetDomain(Domain::sized(W, H).unwrap()),
    ] {
        dev.execute(&c).unwrap();
    }
    dev
}

fn setup(dev: &mut Device<FnArray>, test: CondTest, loc: CondLocation, v: f32, write: CondWrite) {
    for c in [
        Command::SetCondTest(test),
        Command::SetCondLoc(loc),
        Command::SetCondVal(v.to_bits()),
        Command::SetCondOutMask(write),
    ] {
        dev.execute(&c).unwrap();
    }
}

fn finish(dev: &mut Device<FnArray>) -> (Vec<f32>, Vec<f32>) {
    dev.execute(&Command::StartProgram).unwrap();
    dev.execute(&Command::WaitForIdle).unwrap();
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    dev.execute(&Command::Flush(FlushTarget::ConditionalOutput))
        .unwrap();
    let out = read_texels(dev.memory(), &out_surface(), W, H).unwrap();
    let cond = read_texels(dev.memory(), &cond_surface(DataFormat::Float32_1), W, H).unwrap();
    (
        out.iter().map(|t| t[0]).collect(),
        cond.iter().map(|t| t[0]).collect(),
    )
}

fn all_pairs() -> Vec<(u32, u32)> {
    Domain::sized(W, H).unwrap().pairs().collect()
}

#[test]
fn every_test_code() {
    // (v, b) → expected, by hand, for each code 0..7.
    let cases = [(1.0f32, 2.0f32), (2.0, 2.0), (3.0, 2.0)];
    let expect: [(CondTest, [bool; 3]); 8] = [
        (CondTest::Never, [false, false, false]),
        (CondTest::Less, [true, false, false]),
        (CondTest::LessEqual, [true, true, false]),
        (CondTest::Equal, [false, true, false]),
        (CondTest::GreaterEqual, [false, true, true]),
        (CondTest::Greater, [false, false, true]),
        (CondTest::NotEqual, [true, false, true]),
        (CondTest::Always, [true, true, true]),
    ];
    for (code, (test, results)) in expect.iter().enumerate() {
        assert_eq!(test.code(), code as u32);
        for ((v, b), r) in cases.iter().zip(results) {
            assert_eq!(test.evaluate(*v, *b), *r, "{test} {v} {b}");
        }
    }
}

#[test]
fn pe_location_skips_failing_pairs() {
    // v = 12: Less passes where 12 < i + 10j, i.e. j = 1 with i ≥ 3, and all of j = 2.
    let mut dev = device(|_, _| None, false);
    setup(
        &mut dev,
        CondTest::Less,
        CondLocation::Pe,
        12.0,
        CondWrite::Enabled,
    );
    let (out, cond) = finish(&mut dev);
    let expected: Vec<(u32, u32)> = all_pairs()
        .into_iter()
        .filter(|&(i, j)| 12.0 < b(i, j))
        .collect();
    assert_eq!(expected, [(3, 1), (0, 2), (1, 2), (2, 2), (3, 2)]);
    assert_eq!(dev.array().pairs[0], expected);
    assert_eq!(dev.stats().pairs_skipped, 12 - 5);
    for (k, (i, j)) in all_pairs().into_iter().enumerate() {
        let pass = expected.contains(&(i, j));
        assert_eq!(out[k], if pass { 1.0 } else { 0.0 }, "output ({i},{j})");
        // A passing test writes v to the buffer.
        assert_eq!(cond[k], if pass { 12.0 } else { b(i, j) }, "cond ({i},{j})");
    }
    assert_eq!(dev.stats().cond_reads, 12);
    assert_eq!(dev.stats().cond_writes, 5);
}

#[test]
fn dpp_location_suppresses_outputs_with_exported_values() {
    // Every pair runs; the program exports v = 2i + j; GreaterEqual against b = i + 10j
    // passes where 2i + j ≥ i + 10j, i.e. i ≥ 9j: (0..3, 0) only.
    let mut dev = device(|i, j| Some((2 * i + j) as f32), true);
    setup(
        &mut dev,
        CondTest::GreaterEqual,
        CondLocation::Dpp,
        -1.0,
        CondWrite::Enabled,
    );
    let (out, cond) = finish(&mut dev);
    assert_eq!(dev.array().pairs[0], all_pairs());
    for (k, (i, j)) in all_pairs().into_iter().enumerate() {
        let pass = j == 0;
        assert_eq!(out[k], if pass { 1.0 } else { 0.0 }, "output ({i},{j})");
        assert_eq!(
            cond[k],
            if pass { (2 * i) as f32 } else { b(i, j) },
            "cond ({i},{j})"
        );
    }
    assert_eq!(dev.stats().outputs_suppressed, 8);
}

#[test]
fn dpp_location_without_export_uses_the_pe_value() {
    // FG_DEPTH_SRC = 0: the exported value is ignored and v = set_cond_val = 5.
    let mut dev = device(|_, _| Some(1000.0), false);
    setup(
        &mut dev,
        CondTest::Greater,
        CondLocation::Dpp,
        5.0,
        CondWrite::Disabled,
    );
    let (out, cond) = finish(&mut dev);
    for (k, (i, j)) in all_pairs().into_iter().enumerate() {
        assert_eq!(out[k], if 5.0 > b(i, j) { 1.0 } else { 0.0 });
        assert_eq!(cond[k], b(i, j), "set_cond_out_mask 0: no buffer writes");
    }
    // An element that exports nothing also uses the PE value.
    let mut dev = device(|i, _| (i == 0).then_some(1000.0), true);
    setup(
        &mut dev,
        CondTest::Greater,
        CondLocation::Dpp,
        5.0,
        CondWrite::Disabled,
    );
    let (out, _) = finish(&mut dev);
    assert_eq!(&out[..4], [1.0, 1.0, 1.0, 1.0]); // (0,0) exports 1000 > 0; others 5 > 1..3
    assert_eq!(out[4], 1.0); // (0,1): 1000 > 10
    assert_eq!(out[5], 0.0); // (1,1): 5 > 11 fails
}

#[test]
fn never_and_always() {
    let mut dev = device(|_, _| None, false);
    setup(
        &mut dev,
        CondTest::Never,
        CondLocation::Pe,
        0.0,
        CondWrite::Enabled,
    );
    let (out, _) = finish(&mut dev);
    assert!(dev.array().pairs[0].is_empty());
    assert!(out.iter().all(|&v| v == 0.0));
    assert_eq!(dev.stats().cond_reads, 0, "Never does not read the buffer");

    let mut dev = device(|_, _| None, false);
    setup(
        &mut dev,
        CondTest::Always,
        CondLocation::Dpp,
        7.0,
        CondWrite::Enabled,
    );
    let (out, cond) = finish(&mut dev);
    assert!(out.iter().all(|&v| v == 1.0));
    assert!(cond.iter().all(|&v| v == 7.0), "Always writes v everywhere");
    assert_eq!(dev.stats().cond_reads, 0);
}

#[test]
fn pe_location_does_not_gate_outputs() {
    // With the test at the PE, DPP requests always pass (§2.2.3).
    let mut dev = device(|_, _| Some(-100.0), true);
    setup(
        &mut dev,
        CondTest::Always,
        CondLocation::Pe,
        0.0,
        CondWrite::Disabled,
    );
    let (out, _) = finish(&mut dev);
    assert!(out.iter().all(|&v| v == 1.0));
}

#[test]
fn killed_elements_write_nothing() {
    let mut dev = Device::new(FnArray::new(|_, i, j, _| ElementResult {
        killed: i % 2 == 1,
        conditional_value: Some(50.0),
        ..target0(i, j, [1.0; 4])
    }));
    let img = image_with(
        |i| i.fg_depth_src.shader_exports_w = true,
        Default::default(),
    );
    dev.memory_mut().write_bytes(CODE, img.text()).unwrap();
    dev.load_program(&img);
    let out = out_surface();
    let cond = cond_surface(DataFormat::Float32_1);
    for c in [
        Command::SetInstFmt {
            base: BaseAddress::new(CODE).unwrap(),
            format: SurfaceFormat::default(),
        },
        Command::SetCondOutFmt {
            base: cond.base,
            format: cond.format,
            height: Height::new(H).unwrap(),
        },
        Command::SetOutFmt {
            output: OutputId::new(0).unwrap(),
            base: out.base,
            format: out.format,
            height: Height::new(H).unwrap(),
        },
        Command::SetDomain(Domain::sized(W, 1).unwrap()),
    ] {
        dev.execute(&c).unwrap();
    }
    setup(
        &mut dev,
        CondTest::Always,
        CondLocation::Dpp,
        0.0,
        CondWrite::Enabled,
    );
    let (out, cond) = finish(&mut dev);
    assert_eq!(&out[..4], [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(&cond[..4], [50.0, 0.0, 50.0, 0.0]);
    assert_eq!(dev.stats().elements_killed, 2);
}

#[test]
fn buffer_needed_but_not_bound() {
    let mut dev = Device::new(FnArray::new(|_, i, j, _| target0(i, j, [1.0; 4])));
    let img = image(Default::default());
    dev.memory_mut().write_bytes(CODE, img.text()).unwrap();
    dev.load_program(&img);
    dev.execute(&Command::SetInstFmt {
        base: BaseAddress::new(CODE).unwrap(),
        format: SurfaceFormat::default(),
    })
    .unwrap();
    dev.execute(&Command::SetDomain(Domain::sized(1, 1).unwrap()))
        .unwrap();
    for (test, write) in [
        (CondTest::Less, CondWrite::Disabled),
        (CondTest::Always, CondWrite::Enabled),
    ] {
        setup(&mut dev, test, CondLocation::Pe, 0.0, write);
        assert!(matches!(
            dev.execute(&Command::StartProgram),
            Err(ExecError::NotConfigured {
                client: Client::ConditionalOutput
            })
        ));
    }
}

#[test]
fn cond_cache_sees_its_own_writes_and_needs_a_flush() {
    // Two runs at the PE with Equal: the first writes v = 0 where b = 0 … then
    // NotEqual against the cached (unflushed) values.
    let mut dev = device(|_, _| None, false);
    setup(
        &mut dev,
        CondTest::Always,
        CondLocation::Pe,
        42.0,
        CondWrite::Enabled,
    );
    dev.execute(&Command::StartProgram).unwrap();
    dev.execute(&Command::WaitForIdle).unwrap();
    // Memory still holds b; the cache holds 42 everywhere.
    assert_eq!(
        f32::from_bits(dev.memory().read_u32(COND + 4).unwrap()),
        b(1, 0)
    );
    setup(
        &mut dev,
        CondTest::Equal,
        CondLocation::Pe,
        42.0,
        CondWrite::Disabled,
    );
    dev.execute(&Command::StartProgram).unwrap();
    dev.execute(&Command::WaitForIdle).unwrap();
    assert_eq!(
        dev.array().pairs[1].len(),
        12,
        "reads see the cache's own writes"
    );
    // Invalidating without a flush loses the writes.
    dev.execute(&Command::Invalidate(InvalidateTarget::ConditionalOutput))
        .unwrap();
    dev.execute(&Command::Flush(FlushTarget::ConditionalOutput))
        .unwrap();
    assert_eq!(
        f32::from_bits(dev.memory().read_u32(COND + 4).unwrap()),
        b(1, 0)
    );
    dev.execute(&Command::StartProgram).unwrap();
    assert_eq!(
        dev.array().pairs[2].len(),
        0,
        "buffer back to b, nothing equals 42"
    );
}

#[test]
fn uint16_buffer_compares_integers() {
    let mut dev = device(|_, _| None, false);
    let cond = cond_surface(DataFormat::Uint16_1);
    dev.execute(&Command::SetCondOutFmt {
        base: cond.base,
        format: cond.format,
        height: Height::new(H).unwrap(),
    })
    .unwrap();
    let texels: Vec<[f32; 4]> = (0..W * H)
        .map(|k| [(k * 1000) as f32, 0.0, 0.0, 0.0])
        .collect();
    write_texels(dev.memory_mut(), &cond, W, H, &texels).unwrap();
    setup(
        &mut dev,
        CondTest::GreaterEqual,
        CondLocation::Pe,
        5000.0,
        CondWrite::Disabled,
    );
    dev.execute(&Command::StartProgram).unwrap();
    // 5000 ≥ k·1000 for k = 0..=5.
    assert_eq!(dev.array().pairs[0].len(), 6);
}

#[test]
fn cond_reads_clamp_and_writes_clip_outside_the_buffer() {
    // The buffer is 16 (pitch) × 3: (4, 0) and (5, 0) are inside it and read
    // their own (zero) elements.
    let mut dev = device(|_, _| None, false);
    dev.execute(&Command::SetDomain(Domain::new(0, 0, W + 1, 0).unwrap()))
        .unwrap();
    setup(
        &mut dev,
        CondTest::Equal,
        CondLocation::Pe,
        3.0,
        CondWrite::Enabled,
    );
    dev.execute(&Command::StartProgram).unwrap();
    assert_eq!(dev.array().pairs[0], [(3, 0)]);

    // Writes at i = 16, 17 lie outside 16 × 3, for the buffer and for output 0.
    let mut dev = device(|_, _| None, false);
    dev.execute(&Command::SetDomain(Domain::new(0, 0, 17, 0).unwrap()))
        .unwrap();
    setup(
        &mut dev,
        CondTest::Always,
        CondLocation::Pe,
        3.0,
        CondWrite::Enabled,
    );
    dev.execute(&Command::StartProgram).unwrap();
    assert_eq!(dev.stats().cond_writes, 16);
    assert_eq!(dev.stats().output_writes, 16);
    assert_eq!(dev.stats().clipped_writes, 4);

    // Reads clamp: for i = 16, 17 the element read is (15, 0).
    let mut dev = device(|_, _| None, false);
    dev.execute(&Command::SetDomain(Domain::new(14, 0, 17, 0).unwrap()))
        .unwrap();
    dev.memory_mut()
        .write_u32(COND + 15 * 4, 99.0f32.to_bits())
        .unwrap();
    setup(
        &mut dev,
        CondTest::Equal,
        CondLocation::Pe,
        99.0,
        CondWrite::Disabled,
    );
    dev.execute(&Command::StartProgram).unwrap();
    assert_eq!(dev.array().pairs[0], [(15, 0), (16, 0), (17, 0)]);
}
