//! End to end through the host helpers: ELF bytes → `read_elf` →
//! `JobBuilder` → memory image + command buffer → `Device::submit` with a
//! fake processor array → readback. Expected values are computed from the
//! host data directly.

mod x1k_device_support;

use ctm_backend_x1k::isa::IntConstId;
use ctm_sim::x1k::device::command::Opcode;
use ctm_sim::x1k::device::host::{ConditionalSetup, HostBuffer, HostError, JobBuilder, OutputSpec};
use ctm_sim::x1k::device::memory::MemoryMap;
use ctm_sim::x1k::device::{
    CondLocation, CondTest, CondWrite, DataFormat, Device, DeviceError, Domain, ExecError, InputId,
    OutputId, PerfCounterMode, ProgramNotes, Tiling, read_elf,
};
use ctm_sim::x1k::interface::{ElementResult, TargetWrite};
use x1k_device_support::{FnArray, elf_bytes, fake_cycles, image, index_array, index_value};

fn input(id: u8) -> InputId {
    InputId::new(id).unwrap()
}

fn output(id: u8) -> OutputId {
    OutputId::new(id).unwrap()
}

/// out0 = in0 · c0 + (i0 count), out1.r = in1 (u16) + b3; in0 is UINT8_4 tiled.
fn kernel_array() -> FnArray {
    FnArray::new(|_, i, j, mem| {
        let (w0, h0) = mem.input_size(0).unwrap();
        let a = mem.read_input(0, i.min(w0 - 1), j.min(h0 - 1));
        let c = mem.float_constant(0);
        let k = (mem.int_constant(1) & 0xFF) as f32;
        let (w1, h1) = mem.input_size(1).unwrap();
        let u = mem.read_input(1, i.min(w1 - 1), j.min(h1 - 1))[0];
        let b = if mem.bool_constant(3) { 1.0 } else { 0.0 };
        ElementResult {
            i,
            j,
            targets: [
                Some(TargetWrite {
                    value: [0, 1, 2, 3].map(|n| a[n] * c[n] + k),
                    mask: 0xF,
                }),
                Some(TargetWrite {
                    value: [u + b, 0.0, 0.0, 0.0],
                    mask: 0x1,
                }),
                None,
                None,
            ],
            ..Default::default()
        }
    })
}

#[test]
fn elf_to_readback() {
    let (w, h) = (45u32, 19u32);
    let notes = ProgramNotes {
        inputs: vec![input(0), input(1)],
        outputs: vec![output(0), output(1)],
        float_constants: vec![0],
        int_constants: vec![IntConstId::new(1).unwrap()],
        ..Default::default()
    };
    let program = read_elf(&elf_bytes(&image(notes))).unwrap();
    let bytes_in: Vec<[u8; 4]> = (0..w * h)
        .map(|k| [(k % 256) as u8, (k * 7 % 256) as u8, 255, 0])
        .collect();
    let in0: Vec<[f32; 4]> = bytes_in
        .iter()
        .map(|b| b.map(|x| f32::from(x) / 255.0))
        .collect();
    let in1: Vec<[f32; 4]> = (0..w * h)
        .map(|k| [(k * 101 % 65536) as f32, 0.0, 0.0, 0.0])
        .collect();
    let job = JobBuilder::new(program)
        .input(
            input(0),
            HostBuffer {
                format: DataFormat::Uint8_4,
                tiling: Tiling::Tiled,
                width: w,
                height: h,
                texels: in0.clone(),
            },
        )
        .input(
            input(1),
            HostBuffer {
                format: DataFormat::Uint16_1,
                tiling: Tiling::Linear,
                width: w,
                height: h,
                texels: in1.clone(),
            },
        )
        .output(
            output(0),
            OutputSpec {
                format: DataFormat::Float32_4,
                tiling: Tiling::Linear,
                width: w,
                height: h,
            },
        )
        .output(
            output(1),
            OutputSpec {
                format: DataFormat::Float32_1,
                tiling: Tiling::Tiled,
                width: w,
                height: h,
            },
        )
        .float_constants(vec![[2.0, 4.0, 0.5, 1.0]])
        .int_constants(vec![0, 0x0001_0203])
        .bool_constants(vec![false, false, false, true])
        .build()
        .unwrap();
    let mut dev = Device::new(kernel_array());
    job.run(&mut dev).unwrap();

    let out0 = job.read_output(dev.memory(), output(0)).unwrap();
    let out1 = job.read_output(dev.memory(), output(1)).unwrap();
    assert_eq!((out0.width, out0.height, out0.channels), (w, h, 4));
    assert_eq!(out1.channels, 1);
    for (k, &b) in bytes_in.iter().enumerate() {
        let expect0 = [
            f32::from(b[0]) / 255.0 * 2.0 + 3.0,
            f32::from(b[1]) / 255.0 * 4.0 + 3.0,
            1.0 * 0.5 + 3.0,
            0.0 * 1.0 + 3.0,
        ];
        assert_eq!(out0.data[4 * k..4 * k + 4], expect0, "out0 element {k}");
        assert_eq!(
            out1.data[k],
            (k as u32 * 101 % 65536) as f32 + 1.0,
            "out1 element {k}"
        );
    }
    // Counters: every command is 1 clock while counting (start_program and
    // wait_for_idle, stop_perf_counters), plus the array's cycles.
    let (total, active) = job.read_perf(dev.memory()).unwrap().unwrap();
    let cycles = fake_cycles((w * h) as usize);
    assert_eq!(u64::from(total), 3 + cycles.total_cycles);
    assert_eq!(u64::from(active), cycles.active_cycles);
    assert_eq!(dev.stats().output_writes, 2 * u64::from(w * h));
    assert_eq!(dev.caches().output.dirty_bytes(), 0, "the job flushed");
}

#[test]
fn command_sequence_is_what_a_ctm_application_sends() {
    let job = JobBuilder::new(image(Default::default()))
        .output(
            output(0),
            OutputSpec {
                format: DataFormat::Float32_4,
                tiling: Tiling::Linear,
                width: 8,
                height: 2,
            },
        )
        .build()
        .unwrap();
    let ops: Vec<&str> = job.commands.iter().map(|c| c.opcode().name()).collect();
    assert_eq!(
        ops,
        [
            "init_perf_counters",
            "set_inst_fmt",
            "inv_inst_cache",
            "set_constf_fmt",
            "set_consti_fmt",
            "set_constb_fmt",
            "inv_constf_cache",
            "inv_consti_cache",
            "inv_constb_cache",
            "inv_inp_cache",
            "set_out_fmt",
            "set_out_mask",
            "set_cond_test",
            "set_cond_loc",
            "set_cond_val",
            "set_cond_out_mask",
            "set_domain",
            "start_perf_counters",
            "start_program",
            "wait_for_idle",
            "stop_perf_counters",
            "flush_out_cache",
            "flush_cond_out_cache",
            "read_perf_counters",
        ]
    );
    assert_eq!(job.domain, Domain::sized(8, 2).unwrap());
    // The buffer lives in remote memory; code and data in local memory.
    assert!(job.command_address >= MemoryMap::REMOTE_BASE);
    for (address, _) in &job.image {
        assert!(*address < MemoryMap::LOCAL_BYTES && address % 2048 == 0);
    }
    // Without counters the perf commands disappear.
    let quiet = JobBuilder::new(image(Default::default()))
        .output(
            output(0),
            OutputSpec {
                format: DataFormat::Float32_4,
                tiling: Tiling::Linear,
                width: 8,
                height: 2,
            },
        )
        .perf_counters(PerfCounterMode::Disabled)
        .build()
        .unwrap();
    assert!(
        quiet
            .commands
            .iter()
            .all(|c| !c.opcode().name().contains("perf"))
    );
    assert_eq!(quiet.perf_address, None);
}

#[test]
fn padding_columns_repeat_the_edge() {
    // Width 5 FLOAT32_1 linear gets pitch 8: reads clamped to the pitch see column 4.
    let program = image(ProgramNotes {
        inputs: vec![input(0)],
        ..Default::default()
    });
    let job = JobBuilder::new(program)
        .input(
            input(0),
            HostBuffer {
                format: DataFormat::Float32_1,
                tiling: Tiling::Linear,
                width: 5,
                height: 1,
                texels: (0..5).map(|x| [x as f32 * 10.0, 0.0, 0.0, 0.0]).collect(),
            },
        )
        .output(
            output(0),
            OutputSpec {
                format: DataFormat::Float32_1,
                tiling: Tiling::Linear,
                width: 8,
                height: 1,
            },
        )
        .build()
        .unwrap();
    let mut dev = Device::new(x1k_device_support::copy_array());
    job.run(&mut dev).unwrap();
    let out = job.read_output(dev.memory(), output(0)).unwrap();
    assert_eq!(out.data, [0.0, 10.0, 20.0, 30.0, 40.0, 40.0, 40.0, 40.0]);
}

#[test]
fn conditional_job() {
    // Conditional execution at the PE: run where v = 2 < b, b = 0, 1, 2, 3, ...
    let job = JobBuilder::new(image(Default::default()))
        .output(
            output(0),
            OutputSpec {
                format: DataFormat::Float32_4,
                tiling: Tiling::Linear,
                width: 6,
                height: 1,
            },
        )
        .conditional(ConditionalSetup {
            test: CondTest::Less,
            location: CondLocation::Pe,
            value: 2.0,
            write: CondWrite::Enabled,
            buffer: HostBuffer {
                format: DataFormat::Float32_1,
                tiling: Tiling::Tiled,
                width: 6,
                height: 1,
                texels: (0..6).map(|k| [k as f32, 0.0, 0.0, 0.0]).collect(),
            },
        })
        .build()
        .unwrap();
    let mut dev = Device::new(index_array());
    job.run(&mut dev).unwrap();
    assert_eq!(dev.array().pairs[0], [(3, 0), (4, 0), (5, 0)]);
    let out = job.read_output(dev.memory(), output(0)).unwrap();
    for i in 0..6u32 {
        let expect = if i >= 3 { index_value(i, 0) } else { [0.0; 4] };
        assert_eq!(out.data[4 * i as usize..4 * i as usize + 4], expect);
    }
    let cond =
        ctm_sim::x1k::device::host::read_buffer(dev.memory(), &job.cond_buffer.unwrap()).unwrap();
    assert_eq!(cond.data, [0.0, 1.0, 2.0, 2.0, 2.0, 2.0]);
}

#[test]
fn environment_is_checked_against_the_notes() {
    // The program says it reads input 2, but the job binds none.
    let program = image(ProgramNotes {
        inputs: vec![input(2)],
        ..Default::default()
    });
    let job = JobBuilder::new(program)
        .output(
            output(0),
            OutputSpec {
                format: DataFormat::Float32_4,
                tiling: Tiling::Linear,
                width: 4,
                height: 1,
            },
        )
        .build()
        .unwrap();
    let mut dev = Device::new(index_array());
    let err = job.run(&mut dev).unwrap_err();
    let HostError::Device(DeviceError::Execute {
        opcode: Opcode::StartProgram,
        source: ExecError::NotConfigured { client },
        ..
    }) = err
    else {
        panic!("unexpected {err}")
    };
    assert_eq!(client, ctm_sim::x1k::device::Client::Input(input(2)));
}

#[test]
fn host_errors() {
    let base = || JobBuilder::new(image(Default::default()));
    let spec = |width, height| OutputSpec {
        format: DataFormat::Float32_1,
        tiling: Tiling::Linear,
        width,
        height,
    };
    assert!(matches!(base().build(), Err(HostError::NoDomain)));
    assert!(matches!(
        base().output(output(0), spec(0, 1)).build(),
        Err(HostError::BadSize { .. })
    ));
    assert!(matches!(
        base().output(output(0), spec(4097, 1)).build(),
        Err(HostError::BadSize { .. })
    ));
    assert!(matches!(
        base()
            .input(
                input(0),
                HostBuffer {
                    format: DataFormat::Float32_1,
                    tiling: Tiling::Linear,
                    width: 2,
                    height: 2,
                    texels: vec![[0.0; 4]; 3],
                }
            )
            .domain(Domain::sized(1, 1).unwrap())
            .build(),
        Err(HostError::DataLength {
            expected: 4,
            found: 3,
            ..
        })
    ));
    assert!(matches!(
        base()
            .int_constants(vec![0; 33])
            .domain(Domain::sized(1, 1).unwrap())
            .build(),
        Err(HostError::TooManyConstants { max: 32, .. })
    ));
    let job = base().output(output(0), spec(4, 1)).build().unwrap();
    let dev = Device::new(index_array());
    assert!(matches!(
        job.read_output(dev.memory(), output(3)),
        Err(HostError::UnknownOutput(3))
    ));
}
