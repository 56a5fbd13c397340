//! The host API's streams and uniforms (round trips, edges), warnings
//! carried by `ctm_kernel!`, and `#![targets(..)]`.

use ctm::prelude::*;
use ctm::{Element, Role};
use proptest::prelude::*;

ctm_kernel! {
    #![targets(x1k)]
    kernel unused(x: In<f32>, r: Out<f32>) {
        let t = x * 2.0;
        r = x;
    }
}

#[test]
fn warnings_are_carried_not_printed() {
    assert_eq!(unused::WARNINGS.len(), 1, "{:?}", unused::WARNINGS);
    assert!(
        unused::WARNINGS[0].starts_with("CK0052"),
        "{:?}",
        unused::WARNINGS
    );
    assert!(
        unused::WARNINGS[0].contains("`t`"),
        "{:?}",
        unused::WARNINGS
    );
    assert_eq!(unused::IMAGE.warnings, unused::WARNINGS);
}

#[test]
fn a_targets_attribute_limits_the_builds() {
    assert_eq!(unused::IMAGE.builds.len(), 1);
    assert_eq!(unused::IMAGE.builds[0].target, "x1k");
    assert_eq!(unused::PARAMS[1].role, Role::Output);
    let x = Stream::from_vec(2, 1, vec![1.0f32, 2.0]).unwrap();
    let mut r = Stream::zeros(2, 1);
    unused::launch(&mut Device::x1k(), &x, &mut r).unwrap();
    assert_eq!(r.to_vec(), [1.0, 2.0]);
    match unused::launch(&mut Device::r700(), &x, &mut r) {
        Err(Error::Unavailable { reason, .. }) => assert!(reason.contains("did not compile")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn uniforms_are_checked_against_the_parameter_type() {
    let src = "kernel k(v: vec3, m: mat4, a: [vec2; 2], n: [i32; 3], r: Out<f32>) {
        r = v.x + (m * vec4(1.0)).x + a[1].y + n[2] as f32;
    }";
    let p = compile_kernel(src, Target::X1k, &Options::default()).unwrap();
    let mut dev = Device::x1k();
    let bad = p
        .launch(
            &mut dev,
            &[
                Arg::uniform("v", [1.0f32, 2.0]),
                Arg::uniform("m", [0.0f32; 16]),
                Arg::uniform("a", [[0.0f32; 2]; 2]),
                Arg::uniform("n", [1, 2, 3]),
                Arg::Domain(2, 2),
            ],
        )
        .unwrap_err();
    assert!(
        matches!(&bad, Error::ArgumentType { name, expected, .. } if name == "v" && expected == "vec3"),
        "{bad}"
    );
    let good = p
        .launch(
            &mut dev,
            &[
                Arg::uniform("v", [1.0f32, 2.0, 3.0]),
                Arg::uniform("m", [1.0f32; 16]),
                Arg::uniform("a", [[0.0f32, 5.0], [6.0, 7.0]]),
                Arg::uniform("n", [1, 2, 3]),
                Arg::Domain(2, 2),
            ],
        )
        .unwrap();
    // v.x + (m * 1).x + a[1].y + n[2] = 1 + 4 + 7 + 3
    assert_eq!(good.output::<f32>("r").unwrap().to_vec(), [15.0; 4]);
}

fn round_trip<T: Element + PartialEq + std::fmt::Debug>(w: usize, h: usize, data: Vec<T>) {
    let s = Stream::from_vec(w, h, data.clone()).unwrap();
    let back = Stream::<T>::from_data(&s.to_data()).unwrap();
    assert_eq!(back.to_vec(), data);
    assert_eq!((back.width(), back.height()), (w, h));
}

proptest! {
    #[test]
    fn streams_round_trip(w in 1usize..9, h in 1usize..9, seed in any::<u32>()) {
        let n = w * h;
        let f: Vec<f32> = (0..n).map(|k| (k as u32 ^ seed) as f32 * 0.5).collect();
        round_trip(w, h, f.clone());
        round_trip(w, h, f.iter().map(|&v| [v, -v]).collect::<Vec<[f32; 2]>>());
        round_trip(w, h, f.iter().map(|&v| [v, 1.0, 2.0, -v]).collect::<Vec<[f32; 4]>>());
        round_trip(w, h, (0..n).map(|k| ctm::Unorm8x4([k as u8, seed as u8, 3, 4])).collect());
        round_trip(w, h, (0..n).map(|k| (k as u32 ^ seed) as u16).collect::<Vec<u16>>());
    }

    #[test]
    fn wrong_lengths_are_errors(w in 0usize..9, h in 0usize..9, extra in 1usize..5) {
        let e = Stream::from_vec(w, h, vec![0.0f32; w * h + extra]).unwrap_err();
        prop_assert!(matches!(e, Error::StreamSize(_)));
        let s: Stream<f32> = Stream::zeros(w, h);
        prop_assert_eq!(s.get(w, 0), None);
        prop_assert_eq!(s.as_slice().len(), w * h);
    }
}

// Names that are Rust keywords, a parameter called `dev`, and tokens
// handed through `macro_rules!`.
ctm_kernel! {
    kernel match(dev: In<f32>, type: f32, r: Out<f32>) {
        r = dev * type;
    }
}

macro_rules! wrapped {
    ($($t:tt)*) => { ctm_kernel! { $($t)* } };
}

wrapped! {
    kernel twice(x: In<f32>, r: Out<f32>) {
        r = 2.0 * x;
    }
}

#[test]
fn keyword_names_and_nested_macros() {
    let x = Stream::from_vec(3, 1, vec![1.0f32, 2.0, 3.0]).unwrap();
    let mut r = Stream::zeros(3, 1);
    r#match::launch(&mut Device::x1k(), &x, 3.0, &mut r).unwrap();
    assert_eq!(r.to_vec(), [3.0, 6.0, 9.0]);
    assert_eq!(r#match::PARAMS[1].name, "type");
    twice::launch(&mut Device::x1k(), &x, &mut r).unwrap();
    assert_eq!(r.to_vec(), [2.0, 4.0, 6.0]);
}

ctm_kernel! {
    // Scatter output; u16 and unorm8x4 inputs.
    kernel flip(x: In<u16>, s: Scatter<f32>) {
        let p = index();
        s[vec2(domain().x - 1.0 - p.x, p.y)] = x;
    }

    kernel bytes(px: In<unorm8x4>, r: Out<vec4>) {
        r = px;
    }
}

#[test]
fn scatter_u16_and_unorm8x4_streams() {
    let mut dev = Device::x1k();
    let x = Stream::from_vec(4, 2, vec![1u16, 2, 3, 4, 500, 600, 700, 65535]).unwrap();
    let mut s = Stream::zeros(4, 2);
    flip::launch(&mut dev, &x, &mut s).unwrap();
    assert_eq!(
        s.to_vec(),
        [4.0, 3.0, 2.0, 1.0, 65535.0, 700.0, 600.0, 500.0]
    );
    let px = Stream::from_vec(2, 1, vec![ctm::Unorm8x4([0, 51, 255, 102]); 2]).unwrap();
    let mut r = Stream::zeros(2, 1);
    bytes::launch(&mut dev, &px, &mut r).unwrap();
    for v in r.to_vec() {
        for (g, w) in v.iter().zip([0.0, 0.2, 1.0, 0.4]) {
            assert!((g - w).abs() < 1e-6, "{v:?}");
        }
    }
}
