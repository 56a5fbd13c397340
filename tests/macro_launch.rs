//! `ctm_kernel!` kernels launched on the simulated X1K, checked against
//! the reference interpreter (spec §7 tolerance); kernels a device cannot
//! run report why; the host API's argument and size errors.

use ctm::prelude::*;
use ctm::{Role, Target};
use ctm_frontend::data::{KernelArgs, ParamData, StreamData, UniformValue};
use ctm_frontend::value::Value;

ctm_kernel! {
    // Several items in one invocation: a const, a helper, two kernels and
    // a reduction.
    const GAIN: f32 = 2.0;

    fn scale(v: f32, k: f32) -> f32 {
        v * k
    }

    kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {
        r = a * x + y;
    }

    /// Doc comments are comments.
    kernel shade(tint: vec4, w: [f32; 3], m: mat4, img: In<vec4>, lit: Out<vec4>, lum: Out<f32>) {
        let c = m * (img * tint);
        lit = c;
        lum = scale(w[0] * c.x + w[1] * c.y + w[2] * c.z, GAIN);
    }

    reduce total(a: f32, b: f32) -> f32 {
        a + b
    }

    reduce biggest(a: vec4, b: vec4) -> vec4 {
        max(a, b)
    }
}

ctm_kernel! {
    // x1k emulates integers in f32 and refuses `%` (CK0060): r700 only.
    kernel noise(seed: i32, r: Out<f32>) {
        let p = index();
        let id = (p.y as i32) * 7 + p.x as i32 + seed;
        r = (id % 13) as f32;
    }
}

fn close(got: f32, want: f32) -> bool {
    (got - want).abs() <= 1e-5 * want.abs().max(1.0) || (got.is_nan() && want.is_nan())
}

/// Runs `kernel` of `source` in the reference interpreter.
fn reference(source: &str, kernel: &str, args: KernelArgs) -> Vec<StreamData> {
    let options = ctm::CompileOptions {
        target: Target::Ref,
        kernel: Some(kernel.into()),
        ..Default::default()
    };
    let c = ctm::compile(source, &options).expect("reference source compiles");
    let data = ctm::RunData::Kernel(args);
    let run = ctm::simulate(&c, &data, &ctm::SimulateOptions::default()).expect("reference runs");
    run.outputs.into_iter().map(|o| o.data).collect()
}

#[test]
fn saxpy_matches_the_reference_interpreter() {
    let n = 300;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 7.0).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let x = Stream::from_vec(n, 1, xs.clone()).unwrap();
    let y = Stream::from_vec(n, 1, ys.clone()).unwrap();
    let mut r = Stream::zeros(n, 1);
    let mut dev = Device::x1k();
    let stats = saxpy::launch(&mut dev, 1.5, &x, &y, &mut r).unwrap();
    assert_eq!(stats.elements, n as u64);
    assert!(stats.cycles > 0);
    assert_eq!(dev.last_stats(), Some(&stats));
    let want = reference(
        "kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) { r = a * x + y; }",
        "saxpy",
        KernelArgs {
            domain: (n, 1),
            params: vec![
                ParamData::Uniform(UniformValue::Value(Value::f32(1.5))),
                ParamData::Input(x.to_data()),
                ParamData::Input(y.to_data()),
                ParamData::Output,
            ],
        },
    );
    let want = want[0].as_f32().unwrap();
    for (i, (g, w)) in r.as_slice().iter().zip(want).enumerate() {
        assert!(close(*g, *w), "element {i}: {g} vs {w}");
    }
}

#[test]
fn vectors_matrices_arrays_and_helpers() {
    let (w, h) = (5, 3);
    let pixels: Vec<[f32; 4]> = (0..w * h)
        .map(|k| [k as f32 * 0.1, 1.0 - k as f32 * 0.05, 0.5, 1.0])
        .collect();
    let img = Stream::from_vec(w, h, pixels).unwrap();
    let tint = [1.0, 0.5, 2.0, 1.0];
    let weights = [0.25, 0.5, 0.25];
    let mut m = [0.0; 16];
    for (k, v) in m.iter_mut().enumerate() {
        *v = if k % 5 == 0 { 1.0 } else { 0.1 * k as f32 };
    }
    let mut lit = Stream::zeros(w, h);
    let mut lum = Stream::zeros(w, h);
    let mut dev = Device::x1k();
    shade::launch(&mut dev, tint, weights, m, &img, &mut lit, &mut lum).unwrap();
    let source = "const GAIN: f32 = 2.0;
        fn scale(v: f32, k: f32) -> f32 { v * k }
        kernel shade(tint: vec4, w: [f32; 3], m: mat4, img: In<vec4>, lit: Out<vec4>, lum: Out<f32>) {
            let c = m * (img * tint); lit = c; lum = scale(w[0] * c.x + w[1] * c.y + w[2] * c.z, GAIN);
        }";
    let want = reference(
        source,
        "shade",
        KernelArgs {
            domain: (w, h),
            params: vec![
                ParamData::Uniform(UniformValue::Value(Value::floats(&tint))),
                ParamData::Uniform(UniformValue::Array(
                    weights.iter().map(|v| Value::f32(*v)).collect(),
                )),
                ParamData::Uniform(UniformValue::Mat4(m)),
                ParamData::Input(img.to_data()),
                ParamData::Output,
                ParamData::Output,
            ],
        },
    );
    let got_lit: Vec<f32> = lit.as_slice().iter().flatten().copied().collect();
    for (g, w) in got_lit.iter().zip(want[0].as_f32().unwrap()) {
        assert!(close(*g, *w), "{g} vs {w}");
    }
    for (g, w) in lum.as_slice().iter().zip(want[1].as_f32().unwrap()) {
        assert!(close(*g, *w), "{g} vs {w}");
    }
}

#[test]
fn reductions() {
    let mut dev = Device::x1k();
    let data: Vec<f32> = (1..=1000).map(|k| k as f32).collect();
    let s = Stream::from_vec(40, 25, data).unwrap();
    let (sum, stats) = total::reduce_with_stats(&mut dev, &s).unwrap();
    assert_eq!(sum, 500_500.0);
    assert!(stats.passes.unwrap() >= 2, "{stats:?}");
    let v: Vec<[f32; 4]> = (0..64)
        .map(|k| [k as f32, -(k as f32), (k % 7) as f32, 1.0])
        .collect();
    let s = Stream::from_vec(8, 8, v).unwrap();
    assert_eq!(
        biggest::reduce(&mut dev, &s).unwrap(),
        [63.0, 0.0, 6.0, 1.0]
    );
    let one = Stream::from_vec(1, 1, vec![4.5f32]).unwrap();
    assert_eq!(total::reduce(&mut dev, &one).unwrap(), 4.5);
}

#[test]
fn unguarded_reductions_on_odd_shapes_on_both_devices() {
    // `total` (a + b) pads its passes' inputs with 0 and `biggest`
    // (max) reads clamped (issue 12): rows, columns, odd and prime sides.
    for mut dev in [Device::x1k(), Device::r700()] {
        for (w, h) in [(3, 1), (1, 7), (13, 1), (1, 1), (7, 5), (2, 9), (31, 17)] {
            let n = w * h;
            let data: Vec<f32> = (1..=n).map(|k| k as f32).collect();
            let s = Stream::from_vec(w, h, data).unwrap();
            let want = (n * (n + 1) / 2) as f32;
            assert_eq!(total::reduce(&mut dev, &s).unwrap(), want, "{w}x{h}");
            let v: Vec<[f32; 4]> = (0..n)
                .map(|k| [k as f32, -(k as f32), ((k * 5) % 11) as f32, -1.5])
                .collect();
            let s = Stream::from_vec(w, h, v).unwrap();
            let top = ((0..n).map(|k| (k * 5) % 11).max().unwrap_or(0)) as f32;
            assert_eq!(
                biggest::reduce(&mut dev, &s).unwrap(),
                [(n - 1) as f32, 0.0, top, -1.5],
                "{w}x{h}"
            );
        }
    }
}

#[test]
fn metadata_describes_the_parameters() {
    let names: Vec<&str> = shade::PARAMS.iter().map(|p| p.name).collect();
    assert_eq!(names, ["tint", "w", "m", "img", "lit", "lum"]);
    assert_eq!(shade::PARAMS[1].ty, "[f32; 3]");
    assert_eq!(shade::PARAMS[3].role, Role::Input);
    assert_eq!(shade::PARAMS[3].ty, "vec4");
    assert_eq!(shade::PARAMS[5].role, Role::Output);
    assert!(saxpy::ELF_X1K.is_some());
    assert_eq!(saxpy::IMAGE.elf(Target::X1k), saxpy::ELF_X1K);
    assert!(total::PARAMS.is_empty());
}

#[test]
fn a_kernel_the_x1k_refuses_is_unavailable_there_and_says_why() {
    assert!(noise::ELF_X1K.is_none());
    let why = noise::UNAVAILABLE_X1K.unwrap();
    assert!(why.contains("CK0060"), "{why}");
    let mut r = Stream::zeros(4, 4);
    match noise::launch(&mut Device::x1k(), 3, &mut r) {
        Err(Error::Unavailable {
            entry,
            target,
            reason,
        }) => {
            assert_eq!((entry.as_str(), target), ("noise", Target::X1k));
            assert!(reason.contains("CK0060"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // The R700 front end accepts it; until the R700 backend lands its
    // code generator says it is unavailable. Once it lands, the launch
    // must succeed with the reference's values.
    match noise::launch(&mut Device::r700(), 3, &mut r) {
        Ok(_) => {
            let want: Vec<f32> = (0..16)
                .map(|k| (((k / 4) * 7 + k % 4 + 3) % 13) as f32)
                .collect();
            assert_eq!(r.to_vec(), want);
        }
        Err(Error::Unavailable { target, reason, .. }) => {
            assert_eq!(target, Target::R700);
            assert!(!reason.is_empty());
            assert_eq!(noise::UNAVAILABLE_R700, Some(reason.as_str()));
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn outputs_of_different_shapes_are_an_error() {
    let img = Stream::from_vec(2, 2, vec![[0.5f32; 4]; 4]).unwrap();
    let mut lit = Stream::zeros(2, 2);
    let mut lum = Stream::zeros(3, 2);
    let e = shade::launch(
        &mut Device::x1k(),
        [1.0; 4],
        [1.0; 3],
        [0.0; 16],
        &img,
        &mut lit,
        &mut lum,
    )
    .unwrap_err();
    assert!(matches!(e, Error::StreamSize(_)), "{e}");
    let mut empty = Stream::zeros(0, 0);
    let x = Stream::from_vec(0, 0, vec![]).unwrap();
    let e = saxpy::launch(&mut Device::x1k(), 1.0, &x, &x, &mut empty).unwrap_err();
    assert!(matches!(e, Error::StreamSize(_)), "{e}");
}

#[test]
fn runtime_programs_take_arguments_by_name() {
    let src = std::fs::read_to_string("examples/saxpy.ck").unwrap();
    let p = compile_kernel(&src, Target::X1k, &Options::default()).unwrap();
    assert_eq!(p.elf().unwrap(), saxpy::ELF_X1K.unwrap());
    let x = Stream::from_vec(3, 1, vec![1.0f32, 2.0, 3.0]).unwrap();
    let mut dev = Device::x1k();
    let out = p
        .launch(
            &mut dev,
            &[
                Arg::uniform("a", 2.0f32),
                Arg::input("x", &x),
                Arg::input("y", &x),
            ],
        )
        .unwrap();
    assert_eq!(out.output::<f32>("r").unwrap().to_vec(), [3.0, 6.0, 9.0]);
    let err = |args: &[Arg<'_>]| p.launch(&mut Device::x1k(), args).unwrap_err();
    assert!(matches!(
        err(&[Arg::uniform("a", 2.0f32), Arg::input("x", &x)]),
        Error::ArgumentCount { .. }
    ));
    assert!(matches!(
        err(&[
            Arg::uniform("a", 2i32),
            Arg::input("x", &x),
            Arg::input("y", &x)
        ]),
        Error::ArgumentType { .. }
    ));
    assert!(matches!(
        err(&[
            Arg::uniform("a", 1.0f32),
            Arg::input("x", &x),
            Arg::input("y", &x),
            Arg::input("zz", &x)
        ]),
        Error::ArgumentCount { .. }
    ));
    let v = Stream::from_vec(3, 1, vec![[1.0f32; 4]; 3]).unwrap();
    assert!(matches!(
        err(&[
            Arg::uniform("a", 1.0f32),
            Arg::input("x", &v),
            Arg::input("y", &x)
        ]),
        Error::ArgumentType { .. }
    ));
    assert!(matches!(
        p.launch(&mut Device::r700(), &[]).unwrap_err(),
        Error::Unavailable { .. }
    ));
    // ELF files load back and launch the same way.
    let loaded = Program::from_elf(&p.elf().unwrap()).unwrap();
    assert_eq!(loaded.name(), "saxpy");
    let again = loaded
        .launch(
            &mut dev,
            &[
                Arg::uniform("a", 2.0f32),
                Arg::input("x", &x),
                Arg::input("y", &x),
            ],
        )
        .unwrap();
    assert_eq!(again.output::<f32>("r").unwrap().to_vec(), [3.0, 6.0, 9.0]);
}

#[test]
fn runtime_compile_errors() {
    let bad = "kernel k(x: In<f32>, r: Out<f32>) { r = x + 1; }";
    match compile_kernel(bad, Target::X1k, &Options::default()) {
        Err(Error::Source(text)) => assert!(text.contains("CK0021"), "{text}"),
        other => panic!("{other:?}"),
    }
    let hash = std::fs::read_to_string("examples/hash.ck").unwrap();
    match compile_kernel(&hash, Target::X1k, &Options::default()) {
        Err(Error::Unavailable { target, reason, .. }) => {
            assert_eq!(target, Target::X1k);
            assert!(reason.contains("CK0060"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let sum = std::fs::read_to_string("examples/sum.ck").unwrap();
    let p = compile_kernel(&sum, Target::X1k, &Options::default()).unwrap();
    let s = Stream::from_vec(10, 10, vec![0.5f32; 100]).unwrap();
    let (v, stats) = p.reduce(&mut Device::x1k(), &s).unwrap();
    assert_eq!(v, vec![50.0]);
    assert!(stats.passes.is_some());
}

#[test]
fn streams_round_trip_through_npy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.npy");
    let s = Stream::from_vec(
        3,
        2,
        vec![
            [1.0f32, 2.0],
            [3.0, 4.0],
            [5.0, 6.0],
            [7.0, 8.0],
            [9.0, 10.0],
            [11.0, 12.0],
        ],
    )
    .unwrap();
    s.to_npy(&path).unwrap();
    assert_eq!(Stream::<[f32; 2]>::from_npy(&path).unwrap(), s);
    assert!(matches!(Stream::<f32>::from_npy(&path), Err(Error::Io(_))));
    assert!(matches!(
        Stream::<f32>::from_npy(dir.path().join("none.npy")),
        Err(Error::Io(_))
    ));
}
