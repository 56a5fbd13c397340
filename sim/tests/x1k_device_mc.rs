//! The memory controller through the device: write/read round trips for
//! every data format × tiling, the 2x2 superfine tiling, constants, faults,
//! clipping, and the cache model (what the invalidate and flush commands
//! change).

mod x1k_device_support;

use ctm_sim::x1k::device::command::{ConstKind, FlushTarget, InvalidateTarget};
use ctm_sim::x1k::device::host::read_texels;
use ctm_sim::x1k::device::memory::MemoryMap;
use ctm_sim::x1k::device::tiling::row_alignment;
use ctm_sim::x1k::device::{
    BaseAddress, ChannelMask, Client, Command, DataFormat, Device, Domain, ExecError, Height,
    InputId, McError, OutputId, Surface, SurfaceFormat, Tiling,
};
use ctm_sim::x1k::interface::{ElementResult, TargetWrite, UmrtWrite};
use x1k_device_support::{FnArray, copy_array, image, target0, text_bytes, umrt_image};

const CODE: u32 = 0x1000;
const OUT_A: u32 = 0x0010_0000;
const OUT_B: u32 = 0x0020_0000;

fn surface(base: u32, pitch: u32, tiling: Tiling, format: DataFormat, height: u32) -> Surface {
    Surface {
        base: BaseAddress::new(base).unwrap(),
        format: SurfaceFormat::new(pitch, tiling, format).unwrap(),
        height: Some(height),
    }
}

fn set_out(dev: &mut Device<FnArray>, k: u8, s: Surface) {
    dev.execute(&Command::SetOutFmt {
        output: OutputId::new(k).unwrap(),
        base: s.base,
        format: s.format,
        height: Height::new(s.height.unwrap()).unwrap(),
    })
    .unwrap();
}

fn set_inp(dev: &mut Device<FnArray>, k: u8, s: Surface) {
    dev.execute(&Command::SetInpFmt {
        input: InputId::new(k).unwrap(),
        base: s.base,
        format: s.format,
        height: Height::new(s.height.unwrap()).unwrap(),
    })
    .unwrap();
}

/// A device with the two-slot program loaded at `CODE`.
fn device(array: FnArray) -> Device<FnArray> {
    let mut dev = Device::new(array);
    let img = image(Default::default());
    dev.memory_mut().write_bytes(CODE, img.text()).unwrap();
    dev.load_program(&img);
    dev.execute(&Command::SetInstFmt {
        base: BaseAddress::new(CODE).unwrap(),
        format: SurfaceFormat::default(),
    })
    .unwrap();
    dev
}

fn run(dev: &mut Device<FnArray>, w: u32, h: u32) -> Result<(), ExecError> {
    dev.execute(&Command::SetDomain(Domain::sized(w, h).unwrap()))?;
    dev.execute(&Command::StartProgram)?;
    dev.execute(&Command::WaitForIdle)
}

/// A value exactly representable in `format`, different per (i, j).
fn value(format: DataFormat, i: u32, j: u32) -> [f32; 4] {
    match format {
        DataFormat::Uint16_1 => [((i * 37 + j * 1011) % 65536) as f32, 0.0, 0.0, 1.0],
        DataFormat::Uint8_4 => [0, 1, 2, 3].map(|c| ((i + 3 * j + 50 * c) % 256) as f32 / 255.0),
        DataFormat::Float32_1 => [i as f32 + j as f32 / 1024.0, 0.0, 0.0, 1.0],
        DataFormat::Float32_2 => [i as f32, -(j as f32), 0.0, 1.0],
        DataFormat::Float32_4 => [i as f32, j as f32, (i * j) as f32, -0.25],
    }
}

#[test]
fn round_trip_every_format_and_tiling() {
    let (w, h) = (37u32, 23u32);
    for format in DataFormat::ALL {
        for tiling in Tiling::ALL {
            let name = format!("{} {}", format.name(), tiling.name());
            let pitch = w.div_ceil(row_alignment(tiling.is_tiled(), format.bytes_per_element()))
                * row_alignment(tiling.is_tiled(), format.bytes_per_element());
            let buffer = surface(OUT_A, pitch, tiling, format, h);

            // Pass 1: the array writes value(i, j) through the output path
            // (the superfine option is ignored for outputs).
            let mut dev = device(FnArray::new(move |_, i, j, _| {
                target0(i, j, value(format, i, j))
            }));
            set_out(&mut dev, 0, buffer);
            run(&mut dev, w, h).unwrap();
            dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
            // The host reader (same address function, separate decode) agrees.
            let host = read_texels(dev.memory(), &buffer, w, h).unwrap();
            for j in 0..h {
                for i in 0..w {
                    assert_eq!(
                        host[(j * w + i) as usize],
                        value(format, i, j),
                        "{name} ({i},{j})"
                    );
                }
            }

            // Pass 2: read it back as input 0 and copy to a FLOAT32_4 output.
            *dev.array_mut() = copy_array();
            set_inp(&mut dev, 0, buffer);
            set_out(
                &mut dev,
                0,
                surface(OUT_B, 64, Tiling::Linear, DataFormat::Float32_4, h),
            );
            dev.execute(&Command::Invalidate(InvalidateTarget::Input))
                .unwrap();
            let result = run(&mut dev, w, h);
            if tiling.is_superfine() && format.channels() != 1 {
                assert!(
                    matches!(
                        result,
                        Err(ExecError::Memory(McError::SuperfineMultiChannel { .. }))
                    ),
                    "{name}: undefined per CTM §2.1.4"
                );
                continue;
            }
            result.unwrap();
            dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
            let copy = read_texels(
                dev.memory(),
                &surface(OUT_B, 64, Tiling::Linear, DataFormat::Float32_4, h),
                w,
                h,
            )
            .unwrap();
            for j in 0..h {
                for i in 0..w {
                    let expect = if tiling.is_superfine() {
                        // (x+1, y), (x, y+1), (x+1, y+1), (x, y), clamped into pitch × height.
                        let (x1, y1) = ((i + 1).min(pitch - 1), (j + 1).min(h - 1));
                        let at = |x: u32, y: u32| {
                            if x < w { value(format, x, y)[0] } else { 0.0 }
                        };
                        [at(x1, j), at(i, y1), at(x1, y1), at(i, j)]
                    } else {
                        value(format, i, j)
                    };
                    assert_eq!(copy[(j * w + i) as usize], expect, "{name} ({i},{j})");
                }
            }
        }
    }
}

#[test]
fn tiled_output_lands_at_the_table_address() {
    // FLOAT32_1 TILED, base 0x20000, pitch 64: element (37, 21) is at 0x21F34
    // (worked by hand in x1k_device_tiling.rs).
    let mut dev = device(FnArray::new(|_, i, j, _| {
        target0(i, j, [(i * 100 + j) as f32; 4])
    }));
    set_out(
        &mut dev,
        0,
        surface(0x20000, 64, Tiling::Tiled, DataFormat::Float32_1, 32),
    );
    run(&mut dev, 64, 32).unwrap();
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    assert_eq!(
        f32::from_bits(dev.memory().read_u32(0x21F34).unwrap()),
        3721.0
    );
}

#[test]
fn masks_combine_per_channel() {
    // Element mask 0b0111 and set_out_mask 0b1101: only R and B written.
    let mut dev = device(FnArray::new(|_, i, j, _| ElementResult {
        i,
        j,
        targets: [
            Some(TargetWrite {
                value: [1.0, 2.0, 3.0, 4.0],
                mask: 0b0111,
            }),
            None,
            None,
            None,
        ],
        ..Default::default()
    }));
    let s = surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_4, 1);
    dev.memory_mut()
        .write_bytes(OUT_A, &DataFormat::Float32_4.encode_all([9.0; 4]))
        .unwrap();
    set_out(&mut dev, 0, s);
    dev.execute(&Command::SetOutMask(ChannelMask::new(0b1101).unwrap()))
        .unwrap();
    run(&mut dev, 1, 1).unwrap();
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    assert_eq!(
        read_texels(dev.memory(), &s, 1, 1).unwrap()[0],
        [1.0, 9.0, 3.0, 9.0]
    );
}

#[test]
fn writes_outside_the_rectangle_are_clipped() {
    let mut dev = device(FnArray::new(|_, i, j, _| target0(i, j, [1.0; 4])));
    set_out(
        &mut dev,
        0,
        surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_1, 2),
    );
    run(&mut dev, 6, 3).unwrap(); // 18 elements, 8 inside 4×2
    assert_eq!(dev.stats().output_writes, 8);
    assert_eq!(dev.stats().clipped_writes, 10);
}

#[test]
fn constants_read_through_their_formats() {
    let mut dev = device(FnArray::new(|_, i, j, mem| {
        let f = mem.float_constant(3);
        let k = mem.int_constant(31);
        let b = [mem.bool_constant(0), mem.bool_constant(1)];
        target0(
            i,
            j,
            [
                f[2],
                k as f32,
                f32::from(u8::from(b[0])),
                f32::from(u8::from(b[1])),
            ],
        )
    }));
    let fc = 0x3000;
    dev.memory_mut()
        .write_bytes(
            fc + 3 * 16,
            &DataFormat::Float32_4.encode_all([0.0, 0.0, 6.5, 0.0]),
        )
        .unwrap();
    let ic = 0x4000;
    dev.memory_mut()
        .write_u32(ic + 31 * 4, 0x00FE_0004)
        .unwrap();
    let bc = 0x5000;
    dev.memory_mut().write_u32(bc + 4, 1).unwrap();
    for (kind, base, format) in [
        (ConstKind::Float, fc, DataFormat::Float32_4),
        (ConstKind::Int, ic, DataFormat::Uint8_4),
        (ConstKind::Bool, bc, DataFormat::Uint8_4),
    ] {
        dev.execute(&Command::SetConstFmt {
            kind,
            base: BaseAddress::new(base).unwrap(),
            format: SurfaceFormat::new(256, Tiling::Linear, format).unwrap(),
        })
        .unwrap();
    }
    let out = surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_4, 1);
    set_out(&mut dev, 0, out);
    run(&mut dev, 1, 1).unwrap();
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    assert_eq!(
        read_texels(dev.memory(), &out, 1, 1).unwrap()[0],
        [6.5, 0x00FE_0004 as f32, 0.0, 1.0]
    );
}

#[test]
fn unconfigured_constants_and_unmapped_inputs_fault() {
    let mut dev = device(FnArray::new(|_, i, j, mem| {
        target0(i, j, mem.float_constant(0))
    }));
    set_out(
        &mut dev,
        0,
        surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_4, 1),
    );
    assert!(matches!(
        run(&mut dev, 1, 1),
        Err(ExecError::Memory(McError::NotConfigured {
            client: Client::FloatConstants
        }))
    ));

    // The fault reported is the smallest (client, x, y), whatever the order.
    let mut dev = device(copy_array());
    set_out(
        &mut dev,
        0,
        surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_4, 2),
    );
    set_inp(
        &mut dev,
        0,
        surface(0x4000_0000, 4, Tiling::Linear, DataFormat::Float32_4, 2),
    );
    assert!(matches!(
        run(&mut dev, 4, 2),
        Err(ExecError::Memory(McError::Memory { x: 0, y: 0, .. }))
    ));
}

#[test]
fn unbound_inputs_read_zero() {
    let mut dev = device(FnArray::new(|_, i, j, mem| {
        assert_eq!(mem.input_size(5), None);
        assert_eq!(mem.input_size(200), None);
        target0(i, j, mem.read_input(5, 0, 0))
    }));
    let out = surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_4, 1);
    set_out(&mut dev, 0, out);
    run(&mut dev, 1, 1).unwrap();
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    assert_eq!(read_texels(dev.memory(), &out, 1, 1).unwrap()[0], [0.0; 4]);
}

#[test]
fn umrt_writes_go_to_output_0_channel_0() {
    let mut dev = device(FnArray::new(|_, i, j, _| ElementResult {
        i,
        j,
        umrt: [
            UmrtWrite {
                target: 0,
                x: 2.7, // truncates to 2
                y: (j + 1) as f32,
                value: 10.0 + i as f32,
            },
            UmrtWrite {
                target: 2,
                x: -1.0, // clipped
                y: 0.0,
                value: 99.0,
            },
        ]
        .into_iter()
        .collect(),
        // Ignored in uncached mode.
        targets: [
            Some(TargetWrite {
                value: [7.0; 4],
                mask: 0xF,
            }),
            None,
            None,
            None,
        ],
        ..Default::default()
    }));
    let img = umrt_image();
    dev.load_program(&img);
    let out = surface(OUT_A, 8, Tiling::Linear, DataFormat::Float32_1, 4);
    set_out(&mut dev, 0, out);
    run(&mut dev, 2, 1).unwrap(); // (0,0) then (1,0): the later write wins
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    let got = read_texels(dev.memory(), &out, 4, 4).unwrap();
    assert_eq!(got[4 + 2][0], 11.0); // row 1, column 2 of the 4×4 read
    assert_eq!(got.iter().filter(|t| t[0] != 0.0).count(), 1);
    assert_eq!(dev.stats().umrt_writes, 2);
    assert_eq!(dev.stats().clipped_writes, 2);
}

#[test]
fn umrt_writes_before_a_kill_stay() {
    // Element (i, 0) wrote 10 + i at (i, 1) before (odd i) being killed:
    // the uncached writes stay, the render-target write does not.
    let mut dev = device(FnArray::new(|_, i, j, _| ElementResult {
        i,
        j,
        killed: i % 2 == 1,
        umrt: [UmrtWrite {
            target: 0,
            x: i as f32,
            y: 1.0,
            value: 10.0 + i as f32,
        }]
        .into_iter()
        .collect(),
        targets: [
            Some(TargetWrite {
                value: [7.0; 4],
                mask: 0xF,
            }),
            None,
            None,
            None,
        ],
        ..Default::default()
    }));
    let img = umrt_image();
    dev.load_program(&img);
    let out = surface(OUT_A, 8, Tiling::Linear, DataFormat::Float32_1, 4);
    set_out(&mut dev, 0, out);
    run(&mut dev, 4, 1).unwrap();
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    let got = read_texels(dev.memory(), &out, 4, 4).unwrap();
    let row1: Vec<f32> = got[4..8].iter().map(|t| t[0]).collect();
    assert_eq!(row1, [10.0, 11.0, 12.0, 13.0]);
    assert_eq!(got.iter().filter(|t| t[0] != 0.0).count(), 4);
    assert_eq!(dev.stats().umrt_writes, 4);
    assert_eq!(dev.stats().elements_killed, 2);
}

// ---- the cache model ----

#[test]
fn input_cache_is_stale_until_invalidated() {
    let mut dev = device(copy_array());
    let input = surface(0x8000, 4, Tiling::Linear, DataFormat::Float32_1, 1);
    let out = surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_1, 1);
    set_inp(&mut dev, 0, input);
    set_out(&mut dev, 0, out);
    let read_back = |dev: &mut Device<FnArray>| {
        run(dev, 1, 1).unwrap();
        dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
        read_texels(dev.memory(), &out, 1, 1).unwrap()[0][0]
    };
    dev.memory_mut()
        .write_u32(0x8000, 1.0f32.to_bits())
        .unwrap();
    assert_eq!(read_back(&mut dev), 1.0);
    dev.memory_mut()
        .write_u32(0x8000, 2.0f32.to_bits())
        .unwrap();
    assert_eq!(read_back(&mut dev), 1.0, "no inv_inp_cache: stale");
    dev.execute(&Command::Invalidate(InvalidateTarget::Input))
        .unwrap();
    assert_eq!(read_back(&mut dev), 2.0);
}

#[test]
fn outputs_reach_memory_only_on_flush() {
    let mut dev = device(FnArray::new(|_, i, j, _| target0(i, j, [5.0; 4])));
    let out = surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_1, 1);
    set_out(&mut dev, 0, out);
    run(&mut dev, 1, 1).unwrap();
    assert_eq!(dev.memory().read_u32(OUT_A).unwrap(), 0);
    assert_eq!(dev.caches().output.dirty_bytes(), 4);
    dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
    assert_eq!(f32::from_bits(dev.memory().read_u32(OUT_A).unwrap()), 5.0);
    assert_eq!(dev.caches().output.stats().bytes_written_back, 4);
}

#[test]
fn chaining_passes_needs_flush_and_invalidate() {
    // Pass 1 writes A; pass 2 reads A as input and writes B.
    let chain = |flush: bool, invalidate_after_prefetch: bool| {
        let mut dev = device(FnArray::new(|_, i, j, mem| {
            // Pass 1 (input unbound): write 3; pass 2: copy input 0 + 1.
            let v = match mem.input_size(0) {
                Some(_) => mem.read_input(0, i, j)[0] + 1.0,
                None => 3.0,
            };
            target0(i, j, [v; 4])
        }));
        let a = surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_1, 1);
        let b = surface(OUT_B, 4, Tiling::Linear, DataFormat::Float32_1, 1);
        if invalidate_after_prefetch {
            // Bind A as input 1 first so a run caches A's (zero) page.
            set_inp(&mut dev, 1, a);
            set_out(&mut dev, 0, b);
            run(&mut dev, 1, 1).unwrap();
        }
        set_out(&mut dev, 0, a);
        run(&mut dev, 1, 1).unwrap();
        if flush {
            dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
        }
        set_inp(&mut dev, 0, a);
        set_out(&mut dev, 0, b);
        run(&mut dev, 1, 1).unwrap();
        dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
        f32::from_bits(dev.memory().read_u32(OUT_B).unwrap())
    };
    assert_eq!(chain(true, false), 4.0, "flushed, never cached: fresh");
    assert_eq!(
        chain(false, false),
        1.0,
        "not flushed: input reads old memory (0)"
    );
    assert_eq!(
        chain(true, true),
        1.0,
        "flushed but input cache holds the old page"
    );
}

#[test]
fn instruction_cache_is_stale_until_invalidated() {
    let mut dev = device(FnArray::new(|_, i, j, _| target0(i, j, [0.0; 4])));
    set_out(
        &mut dev,
        0,
        surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_1, 1),
    );
    run(&mut dev, 1, 1).unwrap();
    // Overwrite slot 1 with slot 0 (both valid instructions).
    dev.memory_mut()
        .write_bytes(CODE + 24, &text_bytes(1))
        .unwrap();
    run(&mut dev, 1, 1).unwrap();
    dev.execute(&Command::Invalidate(InvalidateTarget::Instruction))
        .unwrap();
    run(&mut dev, 1, 1).unwrap();
    let p = &dev.array().programs;
    assert_eq!(p[0], p[1], "stale without inv_inst_cache");
    assert_ne!(p[1].insts[1], p[2].insts[1]);
    assert_eq!(p[2].insts[0], p[2].insts[1]);
}

#[test]
fn constant_cache_is_stale_until_invalidated() {
    let mut dev = device(FnArray::new(|_, i, j, mem| {
        target0(i, j, mem.float_constant(0))
    }));
    let out = surface(OUT_A, 4, Tiling::Linear, DataFormat::Float32_4, 1);
    set_out(&mut dev, 0, out);
    dev.execute(&Command::SetConstFmt {
        kind: ConstKind::Float,
        base: BaseAddress::new(0x3000).unwrap(),
        format: SurfaceFormat::new(256, Tiling::Linear, DataFormat::Float32_4).unwrap(),
    })
    .unwrap();
    let get = |dev: &mut Device<FnArray>| {
        run(dev, 1, 1).unwrap();
        dev.execute(&Command::Flush(FlushTarget::Output)).unwrap();
        read_texels(dev.memory(), &out, 1, 1).unwrap()[0]
    };
    assert_eq!(get(&mut dev), [0.0; 4]);
    dev.memory_mut()
        .write_bytes(0x3000, &DataFormat::Float32_4.encode_all([1.0; 4]))
        .unwrap();
    assert_eq!(get(&mut dev), [0.0; 4]);
    dev.execute(&Command::Invalidate(InvalidateTarget::FloatConstant))
        .unwrap();
    assert_eq!(get(&mut dev), [1.0; 4]);
}

#[test]
fn memory_map_bounds() {
    let mut dev = device(copy_array());
    // The last local page works; the next address does not.
    let last = MemoryMap::LOCAL_BASE + MemoryMap::LOCAL_BYTES - 4;
    dev.memory_mut().write_u32(last, 1).unwrap();
    assert!(dev.memory_mut().write_u32(last + 4, 1).is_err());
    assert!(dev.memory_mut().write_bytes(last, &[0; 8]).is_err());
}
