//! Every CTM command (CTM §2.2 Table 3): decoding from hand-written words,
//! encoding back, its effect on the device, and malformed buffers.

mod x1k_device_support;

use ctm_sim::x1k::device::command::{
    Command, CommandDecodeError, ConstKind, FlushTarget, InvalidateTarget, Opcode, decode_buffer,
    encode_buffer,
};
use ctm_sim::x1k::device::memory::{MemoryError, MemoryMap};
use ctm_sim::x1k::device::{
    BaseAddress, ChannelMask, Client, CondLocation, CondTest, CondWrite, DataFormat, Device,
    DeviceError, Domain, ExecError, Height, InputId, OutputId, PerfCounterMode, Surface,
    SurfaceFormat, Tiling,
};
use ctm_sim::x1k::interface::ElementResult;
use x1k_device_support::{FnArray, image, index_array};

const CMD: u32 = MemoryMap::REMOTE_BASE;

fn device() -> Device<FnArray> {
    Device::new(index_array())
}

fn submit(dev: &mut Device<FnArray>, words: &[u32]) -> Result<(), DeviceError> {
    dev.memory_mut().write_words(CMD, words).unwrap();
    dev.submit(CMD, words.len() as u32).map(|_| ())
}

/// One sample command per opcode; the match is exhaustive over the table.
fn sample(op: Opcode) -> Command {
    let fmt = SurfaceFormat::new(64, Tiling::Tiled, DataFormat::Uint8_4).unwrap();
    let base = BaseAddress::new(0x0004_0000).unwrap();
    let h = Height::new(33).unwrap();
    match op {
        Opcode::InitPerfCounters => Command::InitPerfCounters(PerfCounterMode::Enabled),
        Opcode::StartPerfCounters => Command::StartPerfCounters,
        Opcode::StopPerfCounters => Command::StopPerfCounters,
        Opcode::ReadPerfCounters => Command::ReadPerfCounters(base),
        Opcode::SetCondVal => Command::SetCondVal(0xDEAD_BEEF),
        Opcode::SetDomain => Command::SetDomain(Domain::new(1, 2, 4095, 7).unwrap()),
        Opcode::StartProgram => Command::StartProgram,
        Opcode::WaitForIdle => Command::WaitForIdle,
        Opcode::SetInstFmt => Command::SetInstFmt { base, format: fmt },
        Opcode::SetInpFmt => Command::SetInpFmt {
            input: InputId::new(15).unwrap(),
            base,
            format: fmt,
            height: h,
        },
        Opcode::SetOutFmt => Command::SetOutFmt {
            output: OutputId::new(3).unwrap(),
            base,
            format: fmt,
            height: h,
        },
        Opcode::SetCondOutFmt => Command::SetCondOutFmt {
            base,
            format: fmt,
            height: h,
        },
        Opcode::SetConstfFmt => Command::SetConstFmt {
            kind: ConstKind::Float,
            base,
            format: fmt,
        },
        Opcode::SetConstiFmt => Command::SetConstFmt {
            kind: ConstKind::Int,
            base,
            format: fmt,
        },
        Opcode::SetConstbFmt => Command::SetConstFmt {
            kind: ConstKind::Bool,
            base,
            format: fmt,
        },
        Opcode::InvInstCache => Command::Invalidate(InvalidateTarget::Instruction),
        Opcode::InvConstfCache => Command::Invalidate(InvalidateTarget::FloatConstant),
        Opcode::InvConstiCache => Command::Invalidate(InvalidateTarget::IntConstant),
        Opcode::InvConstbCache => Command::Invalidate(InvalidateTarget::BoolConstant),
        Opcode::InvCondOutCache => Command::Invalidate(InvalidateTarget::ConditionalOutput),
        Opcode::InvInpCache => Command::Invalidate(InvalidateTarget::Input),
        Opcode::FlushOutCache => Command::Flush(FlushTarget::Output),
        Opcode::FlushCondOutCache => Command::Flush(FlushTarget::ConditionalOutput),
        Opcode::SetOutMask => Command::SetOutMask(ChannelMask::new(0b1010).unwrap()),
        Opcode::SetCondOutMask => Command::SetCondOutMask(CondWrite::Enabled),
        Opcode::SetCondTest => Command::SetCondTest(CondTest::GreaterEqual),
        Opcode::SetCondLoc => Command::SetCondLoc(CondLocation::Pe),
    }
}

#[test]
fn opcode_words_match_the_guide_table() {
    // Table 3, typed in from the guide: (name, opcode, parameters, pipelined).
    let table: [(&str, u32, u32, bool); 27] = [
        ("init_perf_counters", 0xC0010200, 1, true),
        ("start_perf_counters", 0xC0000300, 1, true),
        ("stop_perf_counters", 0xC0000400, 1, true),
        ("read_perf_counters", 0xC0010500, 1, false),
        ("set_cond_val", 0xC0000600, 1, true),
        ("set_domain", 0xC0030700, 4, true),
        ("start_program", 0xC0000800, 1, true),
        ("wait_for_idle", 0xC0000900, 1, true),
        ("set_inst_fmt", 0xC0010A00, 2, false),
        ("set_inp_fmt", 0xC0030B00, 4, false),
        ("set_out_fmt", 0xC0030C00, 4, false),
        ("set_cond_out_fmt", 0xC0020D00, 3, false),
        ("set_constf_fmt", 0xC0010E00, 2, false),
        ("set_consti_fmt", 0xC0010F00, 2, false),
        ("set_constb_fmt", 0xC0011000, 2, false),
        ("inv_inst_cache", 0xC0001100, 1, true),
        ("inv_constf_cache", 0xC0001200, 1, true),
        ("inv_consti_cache", 0xC0001300, 1, true),
        ("inv_constb_cache", 0xC0001400, 1, true),
        ("inv_cond_out_cache", 0xC0001500, 1, true),
        ("inv_inp_cache", 0xC0001600, 1, true),
        ("flush_out_cache", 0xC0001700, 1, true),
        ("flush_cond_out_cache", 0xC0001800, 1, true),
        ("set_out_mask", 0xC0001900, 1, true),
        ("set_cond_out_mask", 0xC0001A00, 1, true),
        ("set_cond_test", 0xC0001B00, 1, true),
        ("set_cond_loc", 0xC0001C00, 1, true),
    ];
    assert_eq!(Opcode::ALL.len(), table.len());
    for (&op, (name, word, params, pipelined)) in Opcode::ALL.iter().zip(table) {
        assert_eq!(op.name(), name);
        assert_eq!(op.word(), word, "{name}");
        assert_eq!(op.param_count(), params, "{name}");
        assert_eq!(
            op.pipelined() == ctm_sim::x1k::device::command::Pipelined::Yes,
            pipelined,
            "{name}"
        );
    }
}

#[test]
fn every_command_round_trips() {
    let commands: Vec<Command> = Opcode::ALL.iter().map(|&op| sample(op)).collect();
    for c in &commands {
        assert_eq!(c.encode().len() as u32, 1 + c.opcode().param_count(), "{c}");
        assert_eq!(
            Command::decode(&c.encode()),
            Ok((*c, c.encode().len())),
            "{c}"
        );
    }
    let words = encode_buffer(&commands);
    let decoded = decode_buffer(&words).unwrap();
    assert_eq!(
        decoded.iter().map(|(_, c)| *c).collect::<Vec<_>>(),
        commands
    );
    // Offsets advance by each command's size.
    let mut at = 0;
    for (offset, c) in decoded {
        assert_eq!(offset, at);
        at += c.encode().len() as u32;
    }
}

#[test]
fn hand_written_words_decode() {
    let d = |w: &[u32]| Command::decode(w).map(|(c, _)| c);
    assert_eq!(
        d(&[0xC0030B00, 5, 0x0010_07FF, 128 | (3 << 16) | (2 << 24), 17]),
        Ok(Command::SetInpFmt {
            input: InputId::new(5).unwrap(),
            base: BaseAddress::new(0x0010_0000).unwrap(), // bits 10:0 ignored
            format: SurfaceFormat::new(128, Tiling::TiledInp2x2, DataFormat::Float32_1).unwrap(),
            height: Height::new(17).unwrap(),
        })
    );
    assert_eq!(
        d(&[0xC0030700, 0, 1, 4095, 2]),
        Ok(Command::SetDomain(Domain::new(0, 1, 4095, 2).unwrap()))
    );
    assert_eq!(
        d(&[0xC0010500, 0x8000_0123]),
        Ok(Command::ReadPerfCounters(
            BaseAddress::new(0x8000_0000).unwrap()
        ))
    );
    for code in 0..8 {
        assert_eq!(
            d(&[0xC0001B00, code]),
            Ok(Command::SetCondTest(CondTest::ALL[code as usize]))
        );
    }
    assert_eq!(
        d(&[0xC0001C00, 0]),
        Ok(Command::SetCondLoc(CondLocation::Dpp))
    );
    assert_eq!(
        d(&[0xC0001C00, 1]),
        Ok(Command::SetCondLoc(CondLocation::Pe))
    );
    assert_eq!(
        d(&[0xC0001A00, 0]),
        Ok(Command::SetCondOutMask(CondWrite::Disabled))
    );
    assert_eq!(
        d(&[0xC0010200, 0]),
        Ok(Command::InitPerfCounters(PerfCounterMode::Disabled))
    );
}

#[test]
fn bad_parameters_are_typed_errors() {
    let d = |w: &[u32]| Command::decode(w).map(|(c, _)| c);
    let reserved = |opcode, param, bits| CommandDecodeError::ReservedBits {
        opcode,
        param,
        bits,
    };
    assert_eq!(
        d(&[0xC0030B00, 16, 0, 0, 0]),
        Err(reserved(Opcode::SetInpFmt, 0, 16))
    );
    assert_eq!(
        d(&[0xC0030C00, 4, 0, 0, 0]),
        Err(reserved(Opcode::SetOutFmt, 0, 4))
    );
    assert_eq!(
        d(&[0xC0030B00, 0, 0, 0, 0x2000]),
        Err(reserved(Opcode::SetInpFmt, 3, 0x2000))
    );
    assert_eq!(
        d(&[0xC0020D00, 0, 6, 0]), // pitch with low bits set
        Err(reserved(Opcode::SetCondOutFmt, 1, 2))
    );
    assert_eq!(
        d(&[0xC0010E00, 0, 5 << 24]),
        Err(CommandDecodeError::ReservedDataFormat {
            opcode: Opcode::SetConstfFmt,
            param: 1,
            code: 5
        })
    );
    assert_eq!(
        d(&[0xC0030700, 0, 0, 0x1000, 0]),
        Err(reserved(Opcode::SetDomain, 2, 0x1000))
    );
    assert_eq!(
        d(&[0xC0000800, 1]),
        Err(reserved(Opcode::StartProgram, 0, 1))
    );
    assert_eq!(
        d(&[0xC0001700, 0x100]),
        Err(reserved(Opcode::FlushOutCache, 0, 0x100))
    );
    assert_eq!(
        d(&[0xC0001900, 0x10]),
        Err(reserved(Opcode::SetOutMask, 0, 0x10))
    );
    assert_eq!(
        d(&[0xC0001A00, 2]),
        Err(reserved(Opcode::SetCondOutMask, 0, 2))
    );
    assert_eq!(
        d(&[0xC0001B00, 8]),
        Err(reserved(Opcode::SetCondTest, 0, 8))
    );
    assert_eq!(d(&[0xC0001C00, 2]), Err(reserved(Opcode::SetCondLoc, 0, 2)));
    assert_eq!(
        d(&[0xC0010200, 3]),
        Err(reserved(Opcode::InitPerfCounters, 0, 2))
    );
    assert_eq!(
        d(&[0xC0000700, 0]),
        Err(CommandDecodeError::UnknownOpcode { word: 0xC0000700 })
    );
}

#[test]
fn malformed_buffers_report_offsets() {
    // Unknown opcode at word 2, after a valid set_cond_val.
    let mut dev = device();
    let err = submit(&mut dev, &[0xC0000600, 7, 0x1234_5678]).unwrap_err();
    assert!(matches!(
        err,
        DeviceError::Decode {
            offset_words: 2,
            source: CommandDecodeError::UnknownOpcode { word: 0x1234_5678 }
        }
    ));
    assert_eq!(
        dev.co().value_bits,
        7,
        "commands before the error took effect"
    );

    // Truncated set_domain at word 2.
    let err = submit(&mut dev, &[0xC0000600, 8, 0xC0030700, 1, 2]).unwrap_err();
    assert!(matches!(
        err,
        DeviceError::Decode {
            offset_words: 2,
            source: CommandDecodeError::Truncated {
                opcode: Opcode::SetDomain,
                needed_words: 4,
                available_words: 2
            }
        }
    ));

    // A buffer that is only an opcode.
    let err = submit(&mut dev, &[0xC0000900]).unwrap_err();
    assert!(matches!(
        err,
        DeviceError::Decode {
            offset_words: 0,
            source: CommandDecodeError::Truncated { .. }
        }
    ));

    // The buffer runs off the end of remote memory.
    let end = MemoryMap::REMOTE_BASE + MemoryMap::REMOTE_BYTES - 8;
    dev.memory_mut().write_words(end, &[0xC0000600, 9]).unwrap();
    let err = dev.submit(end, 4).unwrap_err();
    assert!(matches!(
        err,
        DeviceError::CommandBuffer {
            offset_words: 2,
            source: MemoryError::Unmapped { .. }
        }
    ));
    // The PE reads sequentially: the command before the fault ran.
    assert_eq!(dev.co().value_bits, 9);

    // Unmapped and misaligned buffers.
    assert!(matches!(
        dev.submit(0x4000_0000, 2),
        Err(DeviceError::CommandBuffer {
            offset_words: 0,
            source: MemoryError::Unmapped {
                address: 0x4000_0000
            }
        })
    ));
    assert!(matches!(
        dev.submit(CMD + 2, 2),
        Err(DeviceError::CommandBuffer {
            offset_words: 0,
            source: MemoryError::Misaligned { .. }
        })
    ));
    // An empty buffer is fine; an absurd size costs nothing up front.
    assert!(dev.submit(CMD, 0).is_ok());
    assert!(matches!(
        dev.submit(CMD + 0x10_0000, u32::MAX),
        Err(DeviceError::Decode {
            offset_words: 0,
            source: CommandDecodeError::UnknownOpcode { word: 0 }
        })
    ));
}

#[test]
fn garbage_buffers_never_panic() {
    let mut dev = device();
    let mut x = 0x1234_5678u32;
    for _ in 0..200 {
        let words: Vec<u32> = (0..16)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                // Bias toward real opcodes so decoding goes deep.
                if x.is_multiple_of(3) {
                    Opcode::ALL[(x as usize / 3) % Opcode::ALL.len()].word()
                } else {
                    x % 64
                }
            })
            .collect();
        let _ = submit(&mut dev, &words);
        let _ = submit(&mut dev, &[Command::WaitForIdle.encode(), vec![]].concat());
    }
}

#[test]
fn pe_commands_take_effect() {
    let mut dev = device();
    submit(
        &mut dev,
        &encode_buffer(&[
            Command::SetCondVal(0x3F80_0000),
            Command::SetDomain(Domain::new(3, 4, 5, 6).unwrap()),
        ]),
    )
    .unwrap();
    assert_eq!(dev.co().value_bits, 0x3F80_0000);
    assert_eq!(dev.co().pe_value(), 1.0);
    assert_eq!(dev.domain(), Domain::new(3, 4, 5, 6));
}

#[test]
fn mc_format_commands_take_effect() {
    let mut dev = device();
    let commands: Vec<Command> = [
        Opcode::SetInstFmt,
        Opcode::SetInpFmt,
        Opcode::SetOutFmt,
        Opcode::SetCondOutFmt,
        Opcode::SetConstfFmt,
        Opcode::SetConstiFmt,
        Opcode::SetConstbFmt,
    ]
    .into_iter()
    .map(sample)
    .collect();
    submit(&mut dev, &encode_buffer(&commands)).unwrap();
    let fmt = SurfaceFormat::new(64, Tiling::Tiled, DataFormat::Uint8_4).unwrap();
    let base = BaseAddress::new(0x0004_0000).unwrap();
    let with_height = Some(Surface {
        base,
        format: fmt,
        height: Some(33),
    });
    let no_height = Some(Surface {
        base,
        format: fmt,
        height: None,
    });
    let mc = dev.mc();
    assert_eq!(mc.surface(Client::Instructions), no_height);
    assert_eq!(
        mc.surface(Client::Input(InputId::new(15).unwrap())),
        with_height
    );
    assert_eq!(mc.surface(Client::Input(InputId::new(0).unwrap())), None);
    assert_eq!(
        mc.surface(Client::Output(OutputId::new(3).unwrap())),
        with_height
    );
    assert_eq!(mc.surface(Client::ConditionalOutput), with_height);
    assert_eq!(mc.surface(Client::FloatConstants), no_height);
    assert_eq!(mc.surface(Client::IntConstants), no_height);
    assert_eq!(mc.surface(Client::BoolConstants), no_height);
}

#[test]
fn mask_and_cond_commands_take_effect() {
    let mut dev = device();
    assert_eq!(dev.mc().out_mask, ChannelMask::ALL, "reset state");
    assert_eq!(dev.mc().cond_write, CondWrite::Disabled);
    assert_eq!(dev.co().test, CondTest::Always);
    assert_eq!(dev.co().location, CondLocation::Dpp);
    for op in [
        Opcode::SetOutMask,
        Opcode::SetCondOutMask,
        Opcode::SetCondTest,
        Opcode::SetCondLoc,
    ] {
        submit(&mut dev, &sample(op).encode()).unwrap();
    }
    assert_eq!(dev.mc().out_mask.bits(), 0b1010);
    assert_eq!(dev.mc().cond_write, CondWrite::Enabled);
    assert_eq!(dev.co().test, CondTest::GreaterEqual);
    assert_eq!(dev.co().location, CondLocation::Pe);
}

#[test]
fn cache_commands_reach_their_cache() {
    let mut dev = device();
    let ops = [
        Opcode::InvInstCache,
        Opcode::InvConstfCache,
        Opcode::InvConstiCache,
        Opcode::InvConstbCache,
        Opcode::InvCondOutCache,
        Opcode::InvInpCache,
        Opcode::FlushOutCache,
        Opcode::FlushCondOutCache,
    ];
    // Issue command k (k + 1) times, so each cache's count names its command.
    let mut words = Vec::new();
    for (k, &op) in ops.iter().enumerate() {
        for _ in 0..=k {
            words.extend(sample(op).encode());
        }
    }
    submit(&mut dev, &words).unwrap();
    let c = dev.caches();
    assert_eq!(c.instruction.stats().invalidations, 1);
    assert_eq!(c.float_constant.stats().invalidations, 2);
    assert_eq!(c.int_constant.stats().invalidations, 3);
    assert_eq!(c.bool_constant.stats().invalidations, 4);
    assert_eq!(c.conditional_output.stats().invalidations, 5);
    assert_eq!(c.input.stats().invalidations, 6);
    assert_eq!(c.output.stats().flushes, 7);
    assert_eq!(c.conditional_output.stats().flushes, 8);
    assert_eq!(c.output.stats().invalidations, 0);
}

/// Program, instructions and an output bound, ready to start.
fn ready_device() -> Device<FnArray> {
    let mut dev = device();
    let img = image(Default::default());
    dev.memory_mut().write_bytes(0x1000, img.text()).unwrap();
    dev.load_program(&img);
    let fmt = SurfaceFormat::new(16, Tiling::Linear, DataFormat::Float32_4).unwrap();
    submit(
        &mut dev,
        &encode_buffer(&[
            Command::SetInstFmt {
                base: BaseAddress::new(0x800).unwrap(), // code at 0x1000 is not here …
                format: fmt,
            },
            Command::SetInstFmt {
                base: BaseAddress::new(0x1000).unwrap(), // … the last command wins
                format: fmt,
            },
            Command::SetOutFmt {
                output: OutputId::new(0).unwrap(),
                base: BaseAddress::new(0x10_0000).unwrap(),
                format: fmt,
                height: Height::new(8).unwrap(),
            },
            Command::SetDomain(Domain::new(0, 0, 3, 1).unwrap()),
        ]),
    )
    .unwrap();
    dev
}

#[test]
fn start_program_and_wait_for_idle() {
    let mut dev = ready_device();
    submit(&mut dev, &Command::StartProgram.encode()).unwrap();
    assert!(dev.busy());
    assert_eq!(
        dev.array().pairs[0],
        vec![
            (0, 0),
            (1, 0),
            (2, 0),
            (3, 0),
            (0, 1),
            (1, 1),
            (2, 1),
            (3, 1)
        ]
    );
    assert_eq!(dev.array().programs[0].insts.len(), 2);
    assert_eq!(dev.array().programs[0].us_code_addr, 1 << 16);
    // Non-pipelined commands need wait_for_idle first.
    let err = submit(&mut dev, &sample(Opcode::SetInpFmt).encode()).unwrap_err();
    assert!(matches!(
        err,
        DeviceError::Execute {
            offset_words: 0,
            opcode: Opcode::SetInpFmt,
            source: ExecError::NotIdle
        }
    ));
    for op in [
        Opcode::ReadPerfCounters,
        Opcode::SetInstFmt,
        Opcode::SetConstbFmt,
    ] {
        assert!(matches!(dev.execute(&sample(op)), Err(ExecError::NotIdle)));
    }
    // Pipelined ones are fine.
    dev.execute(&Command::SetCondVal(1)).unwrap();
    submit(&mut dev, &Command::WaitForIdle.encode()).unwrap();
    assert!(!dev.busy());
    dev.execute(&sample(Opcode::SetInpFmt)).unwrap();
    assert_eq!(dev.stats().programs_started, 1);
    assert_eq!(dev.stats().elements_run, 8);
    assert_eq!(dev.stats().output_writes, 8);
}

#[test]
fn start_program_preconditions() {
    let mut dev = device();
    assert!(matches!(
        dev.execute(&Command::StartProgram),
        Err(ExecError::NoProgram)
    ));
    dev.load_program(&image(Default::default()));
    assert!(matches!(
        dev.execute(&Command::StartProgram),
        Err(ExecError::DomainNotSet)
    ));
    dev.execute(&Command::SetDomain(Domain::new(0, 0, 0, 0).unwrap()))
        .unwrap();
    assert!(matches!(
        dev.execute(&Command::StartProgram),
        Err(ExecError::NotConfigured {
            client: Client::Instructions
        })
    ));
    // Instructions configured at unmapped memory: a fetch fault.
    dev.execute(&Command::SetInstFmt {
        base: BaseAddress::new(0x4000_0000).unwrap(),
        format: SurfaceFormat::default(),
    })
    .unwrap();
    assert!(matches!(
        dev.execute(&Command::StartProgram),
        Err(ExecError::Memory(ctm_sim::x1k::device::McError::Memory {
            client: Client::Instructions,
            ..
        }))
    ));
    // Fetched words that do not decode fail the command.
    dev.execute(&Command::SetInstFmt {
        base: BaseAddress::new(0x8000).unwrap(),
        format: SurfaceFormat::default(),
    })
    .unwrap();
    dev.memory_mut().write_u32(0x8000, 0xFFFF_FFFF).unwrap();
    assert!(matches!(
        dev.execute(&Command::StartProgram),
        Err(ExecError::ProgramDecode(_))
    ));
}

#[test]
fn empty_domain_runs_nothing() {
    let mut dev = ready_device();
    dev.execute(&Command::SetDomain(Domain::new(5, 0, 4, 0).unwrap()))
        .unwrap();
    dev.execute(&Command::StartProgram).unwrap();
    assert_eq!(dev.array().pairs[0], vec![]);
    assert_eq!(dev.stats().elements_run, 0);
}

#[test]
fn array_contract_is_checked() {
    let mut dev = ready_device();
    *dev.array_mut() = FnArray::new(|_, i, j, _| ElementResult {
        i: i + 1,
        j,
        ..Default::default()
    });
    assert!(matches!(
        dev.execute(&Command::StartProgram),
        Err(ExecError::ArrayContract {
            expected: 8,
            found: 8,
            first_mismatch: Some(0)
        })
    ));
}

#[test]
fn unbound_output_written_by_the_array_is_an_error() {
    let mut dev = ready_device();
    *dev.array_mut() = FnArray::new(|_, i, j, _| {
        let mut r = x1k_device_support::target0(i, j, [1.0; 4]);
        r.targets.swap(0, 2);
        r
    });
    assert!(matches!(
        dev.execute(&Command::StartProgram),
        Err(ExecError::Memory(ctm_sim::x1k::device::McError::NotConfigured {
            client: Client::Output(o)
        })) if o.get() == 2
    ));
}

#[test]
fn perf_counter_commands() {
    // Clock model: 1 clock per command while counting, plus the array's cycles.
    let mut dev = ready_device();
    let perf = MemoryMap::REMOTE_BASE + 0x1_0000;
    // Disabled counters: start/stop/read have no effect.
    submit(
        &mut dev,
        &encode_buffer(&[
            Command::StartPerfCounters,
            Command::StartProgram,
            Command::WaitForIdle,
            Command::ReadPerfCounters(BaseAddress::new(perf).unwrap()),
        ]),
    )
    .unwrap();
    assert_eq!(dev.perf().values(), (0, 0));
    assert_eq!(dev.memory().read_words(perf, 2).unwrap(), [0, 0]);

    submit(
        &mut dev,
        &encode_buffer(&[
            Command::InitPerfCounters(PerfCounterMode::Enabled),
            Command::StartPerfCounters, // counting starts after this command
            Command::StartProgram,      // 1 + (7·8 + 3) total, 7·8 active
            Command::WaitForIdle,       // 1
            Command::StopPerfCounters,  // 1, then stopped
            Command::SetCondVal(0),     // not counted
            Command::ReadPerfCounters(BaseAddress::from_param(perf + 0x7FF)),
        ]),
    )
    .unwrap();
    let total = 1 + (7 * 8 + 3) + 1 + 1;
    assert_eq!(dev.perf().values(), (total, 56));
    assert_eq!(
        dev.memory().read_words(perf, 2).unwrap(),
        [total as u32, 56]
    );
    // Restarting zeroes them.
    dev.execute(&Command::StartPerfCounters).unwrap();
    assert_eq!(dev.perf().values(), (0, 0));
    // Reading to unmapped memory is an error.
    assert!(matches!(
        dev.execute(&Command::ReadPerfCounters(
            BaseAddress::new(0x4000_0000).unwrap()
        )),
        Err(ExecError::PerfWrite(MemoryError::Unmapped { .. }))
    ));
    // Disabling stops them.
    dev.execute(&Command::InitPerfCounters(PerfCounterMode::Disabled))
        .unwrap();
    assert!(!dev.perf().running());
}

#[test]
fn submissions_are_consumed() {
    let mut dev = device();
    dev.memory_mut()
        .write_words(CMD, &Command::WaitForIdle.encode())
        .unwrap();
    let a = dev.submit(CMD, 2).unwrap();
    let b = dev.submit(CMD, 2).unwrap();
    assert_ne!(a, b);
    assert!(dev.consumed(a) && dev.consumed(b));
    assert_eq!(dev.stats().submissions, 2);
    assert_eq!(dev.stats().commands, 2);
}

#[test]
fn display_uses_the_guide_names() {
    assert_eq!(
        sample(Opcode::SetInpFmt).to_string(),
        "set_inp_fmt 15 base=0x00040000 pitch=64 TILED UINT8_4 height=33"
    );
    assert_eq!(
        sample(Opcode::SetCondTest).to_string(),
        "set_cond_test greater_equal"
    );
    assert_eq!(Command::StartProgram.to_string(), "start_program");
}

/// The parameter holding a base address (its low 11 bits are ignored).
fn base_param(op: Opcode) -> Option<usize> {
    match op {
        Opcode::ReadPerfCounters
        | Opcode::SetInstFmt
        | Opcode::SetCondOutFmt
        | Opcode::SetConstfFmt
        | Opcode::SetConstiFmt
        | Opcode::SetConstbFmt => Some(0),
        Opcode::SetInpFmt | Opcode::SetOutFmt => Some(1),
        _ => None,
    }
}

proptest::proptest! {
    /// Decoding is strict: every accepted command re-encodes to the same
    /// words, except for the ignored low bits of base addresses.
    #[test]
    fn accepted_words_re_encode(
        op in 0..Opcode::ALL.len(),
        params in proptest::collection::vec(
            proptest::prop_oneof![0u32..16, 0u32..0x2000, proptest::num::u32::ANY],
            0..5,
        ),
    ) {
        let op = Opcode::ALL[op];
        let mut words = vec![op.word()];
        words.extend(&params);
        match Command::decode(&words) {
            Ok((command, used)) => {
                proptest::prop_assert_eq!(used as u32, 1 + op.param_count());
                let mut expect = words[..used].to_vec();
                if let Some(p) = base_param(op) {
                    expect[1 + p] &= !0x7FF;
                }
                proptest::prop_assert_eq!(command.encode(), expect);
            }
            Err(CommandDecodeError::Truncated { .. }) => {
                proptest::prop_assert!(params.len() < op.param_count() as usize);
            }
            Err(_) => {}
        }
    }
}
