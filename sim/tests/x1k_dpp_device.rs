//! The array behind the CTM device: a real program (a lookup scaled by a
//! constant) through `JobBuilder` → command buffer → `Device` with [`Dpp`]
//! → readback. Expected values are computed from the host data.

use ctm_backend_x1k::isa::program_regs::{
    FcMode, FgDepthSrcReg, UsCodeAddrReg, UsConfigReg, UsFcCtrlReg, UsPixsizeReg,
};
use ctm_backend_x1k::isa::{SlotIndex, TempReg, encode_program_bytes, parse_program};
use ctm_sim::x1k::device::host::{HostBuffer, JobBuilder, OutputSpec};
use ctm_sim::x1k::device::{
    DataFormat, Device, InputId, OutputId, ProgramImage, ProgramInfo, ProgramNotes, Tiling,
};
use ctm_sim::x1k::dpp::{Dpp, DppOptions};

#[test]
fn lookup_times_constant_through_the_device() {
    let insts = parse_program(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled
         out o0.rgb = mad(s0.rgb, s1.rgb, s1.000) ; o0.a = mad(s0.a, s1.a, s1.0) ; s0=r1 s1=c0 sem_wait",
    )
    .unwrap();
    let info = ProgramInfo {
        fg_depth_src: FgDepthSrcReg::default(),
        us_config: UsConfigReg::default(),
        us_pixsize: UsPixsizeReg {
            max_temp: TempReg::new(1).unwrap(),
        },
        us_fc_ctrl: UsFcCtrlReg {
            mode: FcMode::Partial,
        },
        us_code_addr: UsCodeAddrReg {
            start: SlotIndex::new(0).unwrap(),
            end: SlotIndex::new(1).unwrap(),
        },
        instr_cnt: 2,
    };
    let notes = ProgramNotes {
        inputs: vec![InputId::new(0).unwrap()],
        outputs: vec![OutputId::new(0).unwrap()],
        float_constants: vec![0],
        ..Default::default()
    };
    let image = ProgramImage::new(encode_program_bytes(&insts), info, notes).unwrap();
    let (w, h) = (37u32, 11u32);
    let texels: Vec<[f32; 4]> = (0..w * h)
        .map(|k| [k as f32, 0.5 * k as f32, -(k as f32), 1.0])
        .collect();
    let c0 = [2.0f32, 4.0, 0.25, 3.0];
    let job = JobBuilder::new(image)
        .input(
            InputId::new(0).unwrap(),
            HostBuffer {
                format: DataFormat::Float32_4,
                tiling: Tiling::Linear,
                width: w,
                height: h,
                texels: texels.clone(),
            },
        )
        .output(
            OutputId::new(0).unwrap(),
            OutputSpec {
                format: DataFormat::Float32_4,
                tiling: Tiling::Linear,
                width: w,
                height: h,
            },
        )
        .float_constants(vec![c0])
        .build()
        .unwrap();
    let mut dev = Device::new(Dpp::new(DppOptions::default()));
    job.run(&mut dev).unwrap();
    let out = job
        .read_output(dev.memory(), OutputId::new(0).unwrap())
        .unwrap();
    for (k, t) in texels.iter().enumerate() {
        let want: [f32; 4] = std::array::from_fn(|c| t[c] * c0[c]);
        assert_eq!(out.data[4 * k..4 * k + 4], want, "element {k}");
    }
    let runs = &dev.array().runs;
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].stats.elements, u64::from(w * h));
    assert_eq!(runs[0].stats.instructions.tex, runs[0].stats.batches);
    assert!(runs[0].stats.cycles > 0);
}
