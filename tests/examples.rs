//! Every kernel and reduction in `examples/` run end to end with the
//! reference interpreter and checked against independently derived values.
//!
//! Each test drives the real command line,
//! `ctmc examples/NAME.ck --target ref --simulate --kernel ENTRY --domain ..
//! --input NAME=FILE.npy --uniform NAME=VALUE --output NAME=OUT.npy`,
//! with small fixed inputs written as `.npy` files to a temporary
//! directory, so the `.npy` reader and writer, the uniform parser and the
//! domain rules are exercised along with the interpreter.
//!
//! The expected values never come from ctm: they are written out by hand
//! (with the arithmetic in a comment) or computed here by plain `f64` Rust
//! that follows the mathematics the kernel's comment describes (an `f64`
//! Black-Scholes with the normal distribution integrated by Simpson's rule,
//! Collatz and Mandelbrot loops in integers and `f64`, Thomas Wang's hash in
//! wrapping `i32`, ...). Where a discontinuity (`floor`, `step`, `round`, a
//! loop's exit test) could let the `f32` rounding of the kernel and the
//! `f64` of the reference fall on different sides, the test first checks
//! that its inputs are far from it, so a failure always means ctm is wrong.
//!
//! Outputs are compared with the tolerance of spec §7:
//! `|g - r| <= tol * max(1, |r|)`, `tol = 1e-5` for an entry point without
//! transcendentals and `2e-3` with them (float `/` counts as one, as
//! `docs/cli.md` says); NaN matches only NaN.
//!
//! `every_example_is_covered` lists `examples/*.ck` and fails for any
//! kernel or reduction that no test here runs.

use ctm::io::{NpyArray, NpyData};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

// ---- the harness ----

/// Spec §7 tolerance of an entry point without transcendentals.
const BASIC: f64 = 1e-5;
/// Spec §7 tolerance of an entry point with transcendentals (or `/`).
const TRANSCENDENTAL: f64 = 2e-3;

/// The directory of the example kernels.
fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// One run of one example: its command line and its temporary directory.
struct Example {
    /// The file's stem, `examples/{file}.ck`.
    file: &'static str,
    /// Which case of the example this run is, for messages.
    case: String,
    /// The spec §7 tolerance for its outputs.
    tol: f64,
    dir: tempfile::TempDir,
    args: Vec<String>,
}

impl Example {
    /// A run of the entry point `entry` of `examples/{file}.ck`.
    fn new(file: &'static str, entry: &str, tol: f64) -> Example {
        let path = examples_dir().join(format!("{file}.ck"));
        let args = vec![
            path.to_string_lossy().into_owned(),
            "--target".into(),
            "ref".into(),
            "--simulate".into(),
            "--kernel".into(),
            entry.into(),
        ];
        Example {
            file,
            case: String::new(),
            tol,
            dir: tempfile::tempdir().expect("temporary directory"),
            args,
        }
    }

    /// Names the case this run checks, for failure messages.
    fn case(mut self, case: impl Into<String>) -> Example {
        self.case = case.into();
        self
    }

    /// The example and its case, as failure messages name them.
    fn what(&self) -> String {
        if self.case.is_empty() {
            format!("example `{}`", self.file)
        } else {
            format!("example `{}` ({})", self.file, self.case)
        }
    }

    /// `--domain WxH`.
    fn domain(mut self, width: usize, height: usize) -> Example {
        self.args.push("--domain".into());
        self.args.push(format!("{width}x{height}"));
        self
    }

    /// `--uniform NAME=VALUE`.
    fn uniform(mut self, name: &str, value: &str) -> Example {
        self.args.push("--uniform".into());
        self.args.push(format!("{name}={value}"));
        self
    }

    /// `--input NAME=NAME.npy`, the array written to the run's directory.
    fn input(mut self, name: &str, shape: &[usize], data: NpyData) -> Example {
        let path = self.dir.path().join(format!("{name}.npy"));
        let array = NpyArray {
            shape: shape.to_vec(),
            data,
        };
        ctm::io::write_npy_file(&path, &array).unwrap_or_else(|e| panic!("{e}"));
        self.args.push("--input".into());
        self.args.push(format!("{name}={}", path.display()));
        self
    }

    /// An `f32` input stream of the given shape.
    fn input_f32(self, name: &str, shape: &[usize], values: &[f64]) -> Example {
        let data = values.iter().map(|&v| v as f32).collect();
        self.input(name, shape, NpyData::F32(data))
    }

    /// Runs `ctmc` and reads back the `outputs` (each `--output
    /// NAME=NAME.out.npy`).
    #[track_caller]
    fn run(mut self, outputs: &[&str]) -> Outputs {
        for name in outputs {
            let path = self.dir.path().join(format!("{name}.out.npy"));
            self.args.push("--output".into());
            self.args.push(format!("{name}={}", path.display()));
        }
        let result = Command::new(env!("CARGO_BIN_EXE_ctmc"))
            .args(&self.args)
            .current_dir(self.dir.path())
            .env("NO_COLOR", "1")
            .output()
            .expect("run ctmc");
        assert!(
            result.status.success(),
            "{}: ctmc {:?} exited with {:?}\nstdout:\n{}\nstderr:\n{}",
            self.what(),
            self.args,
            result.status.code(),
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr),
        );
        let arrays = outputs
            .iter()
            .map(|name| {
                let path = self.dir.path().join(format!("{name}.out.npy"));
                let array = ctm::io::read_npy(&path).unwrap_or_else(|e| panic!("{e}"));
                (name.to_string(), array)
            })
            .collect();
        Outputs {
            what: self.what(),
            tol: self.tol,
            arrays,
        }
    }
}

/// The outputs of one run, read back from its `.npy` files.
struct Outputs {
    /// The example and case, for messages.
    what: String,
    tol: f64,
    arrays: BTreeMap<String, NpyArray>,
}

impl Outputs {
    /// The `f32` values of output `name`.
    #[track_caller]
    fn values(&self, name: &str) -> &[f32] {
        match &self.arrays[name].data {
            NpyData::F32(v) => v,
            other => panic!(
                "{}, output `{name}`: expected <f4 data, found {:?}",
                self.what,
                other.dtype()
            ),
        }
    }

    /// Checks output `name`: its shape, then every element against
    /// `expected` (row-major, channel-minor) with the example's tolerance.
    #[track_caller]
    fn check(&self, name: &str, shape: &[usize], expected: &[f64]) -> &Outputs {
        let array = &self.arrays[name];
        assert_eq!(array.shape, shape, "{}, output `{name}`: shape", self.what);
        assert_eq!(expected.len(), array.data.len(), "the test's expectation");
        for (k, (&got, &want)) in self.values(name).iter().zip(expected).enumerate() {
            if !matches(got, want, self.tol) {
                panic!(
                    "{}, output `{name}`, element {}: got {got}, expected {want} \
                     (tolerance {} * max(1, |expected|))",
                    self.what,
                    element_name(shape, k),
                    self.tol,
                );
            }
        }
        self
    }
}

/// Spec §7: `g` matches `r` when `|g - r| <= tol * max(1, |r|)`; NaN matches
/// NaN, an infinity only the same infinity.
fn matches(got: f32, want: f64, tol: f64) -> bool {
    let got = f64::from(got);
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= tol * want.abs().max(1.0)
}

/// Names element `k` of an array of `shape`: `(i, j)` for a scalar stream
/// (i the column, j the row), `(i, j).y` for a vector stream, `[k]` for a
/// reduction's 1-D result.
fn element_name(shape: &[usize], k: usize) -> String {
    const LANES: [&str; 4] = ["x", "y", "z", "w"];
    match *shape {
        [_h, w] => format!("({}, {})", k % w, k / w),
        [_h, w, c] => {
            let e = k / c;
            format!("({}, {}).{}", e % w, e / w, LANES[k % c])
        }
        _ => format!("[{k}]"),
    }
}

/// `vec4` lanes of `points`, flattened.
fn flat4(points: &[[f64; 4]]) -> Vec<f64> {
    points.iter().flatten().copied().collect()
}

// ---- numerical helpers of the expected values (plain f64 maths) ----

/// `t * t * (3 - 2 t)` with `t = clamp((x - e0) / (e1 - e0), 0, 1)` (GLSL).
fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Distance of `x` to the nearest integer.
fn distance_to_integer(x: f64) -> f64 {
    (x - x.round()).abs()
}

/// The standard normal distribution function, `1/2 + ∫_0^x φ(t) dt` by
/// composite Simpson's rule on 2000 intervals (error far below 1e-10 for
/// |x| < 10).
fn normal_cdf(x: f64) -> f64 {
    let phi = |t: f64| (-0.5 * t * t).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let n = 2000;
    let h = x / n as f64;
    let mut s = phi(0.0) + phi(x);
    for k in 1..n {
        let weight = if k % 2 == 1 { 4.0 } else { 2.0 };
        s += weight * phi(k as f64 * h);
    }
    0.5 + s * h / 3.0
}

// ---- one test per example ----

#[test]
fn example_saxpy() {
    // r = a x + y with a = 2.5, on a 3x2 domain.
    let x = [1.0, 2.0, 3.0, -4.0, 0.5, 1000.0];
    let y = [0.0, -5.0, 0.25, 10.0, -1.25, 1.0];
    let out = Example::new("saxpy", "saxpy", BASIC)
        .uniform("a", "2.5")
        .input_f32("x", &[2, 3], &x)
        .input_f32("y", &[2, 3], &y)
        .run(&["r"]);
    // 2.5*1+0, 2.5*2-5, 2.5*3+0.25, 2.5*-4+10, 2.5*0.5-1.25, 2.5*1000+1
    out.check("r", &[2, 3], &[2.5, 0.0, 7.75, 0.0, 0.0, 2501.0]);
}

#[test]
fn example_polynomial() {
    let c = [1.0, -2.0, 0.5, 3.0, 0.0, -1.0, 0.25, 0.125];
    let x = [0.0, 1.0, -1.0, 2.0, 0.5, -1.5, 3.0, -0.25];
    // The sum of c[k] x^k term by term (not Horner's rule as the kernel).
    let expected: Vec<f64> = x
        .iter()
        .map(|&x| (0..8).map(|k| c[k] * f64::powi(x, k as i32)).sum())
        .collect();
    // By hand: x = 1 sums the coefficients, 1 - 2 + 0.5 + 3 + 0 - 1 + 0.25
    // + 0.125 = 1.875; x = 2: 1 - 4 + 2 + 24 + 0 - 32 + 16 + 16 = 23.
    assert_eq!((expected[0], expected[1], expected[3]), (1.0, 1.875, 23.0));
    let out = Example::new("polynomial", "polynomial", BASIC)
        .uniform("c", "1, -2, 0.5, 3, 0, -1, 0.25, 0.125")
        .input_f32("x", &[8], &x)
        .run(&["r"]);
    out.check("r", &[1, 8], &expected);
}

/// Iterations of `z -> z^2 + c` from 0 before `|z|^2 > 4`, at most 64.
fn mandelbrot_count(cx: f64, cy: f64) -> u32 {
    let (mut x, mut y) = (0.0f64, 0.0f64);
    let mut n = 0;
    while n < 64 && x * x + y * y <= 4.0 {
        (x, y) = (x * x - y * y + cx, 2.0 * x * y + cy);
        n += 1;
    }
    n
}

#[test]
fn example_mandelbrot() {
    // c = (index - domain / 2) * scale + center on an 8x6 domain:
    // c.x = -0.5 + 0.6 (i - 4), c.y = 0.1 + 0.6 (j - 3). The grid holds
    // points of the main cardioid and the period-2 bulb (-0.5+0.1i,
    // -1.1+0.1i: 64 iterations), far points that escape at once (-2.9-1.7i:
    // one step) and points in between.
    let (w, h) = (8, 6);
    let (scale, center) = (0.6, (-0.5, 0.1));
    let mut expected = Vec::new();
    for j in 0..h {
        for i in 0..w {
            let cx = (i as f64 - 0.5 * w as f64) * scale + center.0;
            let cy = (j as f64 - 0.5 * h as f64) * scale + center.1;
            let n = mandelbrot_count(cx, cy);
            // The count must not hang on the rounding of c: moving c by far
            // more than f32's error keeps it.
            for (dx, dy) in [(1e-4, 0.0), (-1e-4, 0.0), (0.0, 1e-4), (0.0, -1e-4)] {
                assert_eq!(
                    mandelbrot_count(cx + dx, cy + dy),
                    n,
                    "the test's point c = {cx} + {cy}i is too near the boundary"
                );
            }
            expected.push(f64::from(n) / 64.0);
        }
    }
    // Spot checks of the f64 loop by hand.
    let at = |i: usize, j: usize| expected[j * w + i] * 64.0;
    assert_eq!(at(4, 3), 64.0, "c = -0.5 + 0.1i is in the main cardioid");
    assert_eq!(at(3, 3), 64.0, "c = -1.1 + 0.1i is in the period-2 bulb");
    assert_eq!(at(0, 0), 1.0, "c = -2.9 - 1.7i: |z1|^2 = 11.3 > 4");
    assert!(expected.iter().any(|&r| r > 1.0 / 64.0 && r < 1.0));
    let out = Example::new("mandelbrot", "mandelbrot", TRANSCENDENTAL)
        .domain(w, h)
        .uniform("center", "-0.5, 0.1")
        .uniform("scale", "0.6")
        .run(&["r"]);
    out.check("r", &[h, w], &expected);
}

/// Black-Scholes prices (call, put) with the exact normal distribution.
fn black_scholes(s: f64, k: f64, t: f64, r: f64, sigma: f64) -> (f64, f64) {
    let d1 = ((s / k).ln() + (r + sigma * sigma / 2.0) * t) / (sigma * t.sqrt());
    let d2 = d1 - sigma * t.sqrt();
    let discount = (-r * t).exp();
    let call = s * normal_cdf(d1) - k * discount * normal_cdf(d2);
    let put = k * discount * normal_cdf(-d2) - s * normal_cdf(-d1);
    (call, put)
}

#[test]
fn example_black_scholes() {
    let (rate, vol) = (0.05, 0.2);
    // (price, strike, years): at the money, in and out of the money, short
    // and long maturities.
    let rows = [
        (100.0, 100.0, 1.0),
        (110.0, 100.0, 0.5),
        (90.0, 100.0, 2.0),
        (100.0, 120.0, 0.25),
        (50.0, 40.0, 3.0),
        (100.0, 80.0, 1.0),
    ];
    // The textbook case: call 10.4506, put 5.5735.
    let (call, put) = black_scholes(100.0, 100.0, 1.0, rate, vol);
    assert!((call - 10.4506).abs() < 1e-4 && (put - 5.5735).abs() < 1e-4);
    let (calls, puts): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .map(|&(s, k, t)| black_scholes(s, k, t, rate, vol))
        .unzip();
    let column = |f: fn(&(f64, f64, f64)) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    let shape = [2, 3];
    let out = Example::new("black_scholes", "black_scholes", TRANSCENDENTAL)
        .uniform("rate", "0.05")
        .uniform("volatility", "0.2")
        .input_f32("price", &shape, &column(|r| r.0))
        .input_f32("strike", &shape, &column(|r| r.1))
        .input_f32("years", &shape, &column(|r| r.2))
        .run(&["call", "put"]);
    out.check("call", &shape, &calls)
        .check("put", &shape, &puts);
    // Put-call parity on ctm's own outputs: C - P = S - K e^(-rT), within
    // the sum of the two outputs' tolerances.
    let (c, p) = (out.values("call"), out.values("put"));
    for (e, &(s, k, t)) in rows.iter().enumerate() {
        let parity = s - k * (-rate * t).exp();
        let (call, put) = (f64::from(c[e]), f64::from(p[e]));
        let got = call - put;
        assert!(
            (got - parity).abs() <= TRANSCENDENTAL * (call.abs().max(1.0) + put.abs().max(1.0)),
            "example `black_scholes`, row {e}: call - put = {got}, parity says {parity}"
        );
    }
}

/// `sum over dy, dx of w[3 dy + dx] img[clamp(j + dy - 1)][clamp(i + dx - 1)]`.
fn convolve(w: &[f64; 9], img: &[f64], width: usize, height: usize) -> Vec<f64> {
    let at = |i: isize, j: isize| {
        let i = i.clamp(0, width as isize - 1) as usize;
        let j = j.clamp(0, height as isize - 1) as usize;
        img[j * width + i]
    };
    let mut out = Vec::new();
    for j in 0..height as isize {
        for i in 0..width as isize {
            let mut acc = 0.0;
            for dy in 0..3 {
                for dx in 0..3 {
                    acc += w[(3 * dy + dx) as usize] * at(i + dx - 1, j + dy - 1);
                }
            }
            out.push(acc);
        }
    }
    out
}

/// Runs `convolve3x3` with the weights `w` on a `width` x `height` image.
fn run_convolution(case: &str, w: &[f64; 9], img: &[f64], width: usize, height: usize) -> Outputs {
    let weights: Vec<String> = w.iter().map(|v| v.to_string()).collect();
    Example::new("convolution", "convolve3x3", BASIC)
        .case(case)
        .uniform("w", &weights.join(","))
        .input_f32("img", &[height, width], img)
        .run(&["r"])
}

#[test]
fn example_convolution() {
    let (width, height) = (6, 4);
    // An image with a step between columns 2 and 3 (0 to 8) and a ramp in j.
    let img: Vec<f64> = (0..height)
        .flat_map(|j| (0..width).map(move |i| if i < 3 { j as f64 } else { 8.0 + j as f64 }))
        .collect();

    // The identity kernel gives the image back.
    let identity = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    run_convolution("identity", &identity, &img, width, height).check("r", &[height, width], &img);

    // A box blur of a constant is the constant, at the borders too (the
    // gathers clamp to the edge).
    let boxed = [1.0 / 9.0; 9];
    run_convolution("box blur", &boxed, &[3.0; 12], 4, 3).check("r", &[3, 4], &[3.0; 12]);

    // The horizontal central difference img[i + 1] - img[i - 1] (weights
    // w[3] = -1 and w[5] = 1, the middle row): 8 on both sides of the step
    // (columns 2 and 3) and 0 elsewhere, also at columns 0 and 5 where the
    // clamp repeats the edge.
    let dx = [0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    let row = [0.0, 0.0, 8.0, 8.0, 0.0, 0.0];
    let expected: Vec<f64> = (0..height).flat_map(|_| row).collect();
    run_convolution("d/dx", &dx, &img, width, height).check("r", &[height, width], &expected);

    // The vertical difference (w[7] - w[1]): the ramp in j gives 2 inside
    // and 1 in the first and last rows, where the clamp repeats the edge.
    let dy = [0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let expected: Vec<f64> = [1.0, 2.0, 2.0, 1.0].iter().flat_map(|&v| [v; 6]).collect();
    run_convolution("d/dy", &dy, &img, width, height).check("r", &[height, width], &expected);

    // Arbitrary, asymmetric weights against the f64 convolution.
    let wild = [0.5, -1.0, 0.25, 2.0, -0.75, 1.5, -0.125, 0.375, 1.0];
    let expected = convolve(&wild, &img, width, height);
    run_convolution("asymmetric", &wild, &img, width, height).check(
        "r",
        &[height, width],
        &expected,
    );
}

/// `m v` for a row-major matrix `m[row][col]`.
fn mat_vec(m: &[[f64; 4]; 4], v: &[f64; 4]) -> [f64; 4] {
    std::array::from_fn(|r| (0..4).map(|c| m[r][c] * v[c]).sum())
}

/// The matrix as `--uniform` text: 16 numbers, column-major.
fn column_major(m: &[[f64; 4]; 4]) -> String {
    let numbers: Vec<String> = (0..16).map(|k| m[k % 4][k / 4].to_string()).collect();
    numbers.join(",")
}

#[test]
fn example_transform() {
    let v = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [2.0, 3.0, 4.0, 0.0],
        [1.0, -2.0, 0.5, 2.0],
    ];
    // A rotation by 90 degrees about z, then a translation by (1, 2, 3).
    let rotate = [
        [0.0, -1.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 2.0],
        [0.0, 0.0, 1.0, 3.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    // By hand: m (1,0,0,1) = (0,1,0) + (1,2,3) = (1,3,3,1); m (0,1,0,1) =
    // (-1,0,0) + (1,2,3) = (0,2,3,1); m (2,3,4,0) = (-3,2,4,0). As rows,
    // lane c is the dot product with column c of m (columns (0,1,0,0),
    // (-1,0,0,0), (0,0,1,0), (1,2,3,1)): (1,0,0,1) m = (0,-1,0,2),
    // (0,1,0,1) m = (1,0,0,3), (2,3,4,0) m = (3,-2,4,20).
    let hand_column = [
        [1.0, 3.0, 3.0, 1.0],
        [0.0, 2.0, 3.0, 1.0],
        [-3.0, 2.0, 4.0, 0.0],
    ];
    let hand_row = [
        [0.0, -1.0, 0.0, 2.0],
        [1.0, 0.0, 0.0, 3.0],
        [3.0, -2.0, 4.0, 20.0],
    ];
    // An arbitrary matrix with 16 different entries, so that a mix-up of
    // rows and columns shows.
    let general: [[f64; 4]; 4] =
        std::array::from_fn(|r| std::array::from_fn(|c| (4 * r + c) as f64 * 0.5 - 3.0));
    let identity: [[f64; 4]; 4] =
        std::array::from_fn(|r| std::array::from_fn(|c| if r == c { 1.0 } else { 0.0 }));
    for m in [rotate, general, identity] {
        let transposed: [[f64; 4]; 4] = std::array::from_fn(|r| std::array::from_fn(|c| m[c][r]));
        let column: Vec<[f64; 4]> = v.iter().map(|v| mat_vec(&m, v)).collect();
        let row: Vec<[f64; 4]> = v.iter().map(|v| mat_vec(&transposed, v)).collect();
        if m == rotate {
            assert_eq!((&column[..3], &row[..3]), (&hand_column[..], &hand_row[..]));
        }
        let out = Example::new("transform", "transform", BASIC)
            .case(format!("m = {m:?}"))
            .uniform("m", &column_major(&m))
            .input_f32("v", &[1, 4, 4], &flat4(&v))
            .run(&["column", "row"]);
        out.check("column", &[1, 4, 4], &flat4(&column))
            .check("row", &[1, 4, 4], &flat4(&row));
    }
}

/// The acceleration on every body from all others:
/// `sum of m_k d / (|d|^2 + eps^2)^(3/2)`, `d = p_k - p_me`.
fn accelerations(bodies: &[[f64; 4]], softening: f64) -> Vec<[f64; 4]> {
    bodies
        .iter()
        .enumerate()
        .map(|(me, b)| {
            let mut a = [0.0; 4];
            for (k, o) in bodies.iter().enumerate() {
                if k == me {
                    continue;
                }
                let d = [o[0] - b[0], o[1] - b[1], o[2] - b[2]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening * softening;
                for lane in 0..3 {
                    a[lane] += o[3] * d[lane] / r2.powf(1.5);
                }
            }
            a
        })
        .collect()
}

#[test]
fn example_nbody() {
    // Three bodies: mass 1 at the origin, 2 at (1,0,0), 4 at (0,2,0).
    let bodies = [
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 2.0],
        [0.0, 2.0, 0.0, 4.0],
    ];
    // By hand, without softening (a = m d / |d|^3):
    // body 0: 2 (1,0,0) / 1 + 4 (0,2,0) / 8 = (2, 1, 0);
    // body 1: 1 (-1,0,0) / 1 + 4 (-1,2,0) / 5^1.5 = (-1 - 4/11.18034,
    //         8/11.18034, 0) = (-1.357771, 0.715542, 0);
    // body 2: 1 (0,-2,0) / 8 + 2 (1,-2,0) / 5^1.5 = (0.178885, -0.607771, 0).
    let s5 = 5.0f64.powf(1.5);
    let hand = [
        [2.0, 1.0, 0.0, 0.0],
        [-1.0 - 4.0 / s5, 8.0 / s5, 0.0, 0.0],
        [2.0 / s5, -0.25 - 4.0 / s5, 0.0, 0.0],
    ];
    let out = Example::new("nbody", "nbody", TRANSCENDENTAL)
        .case("three bodies")
        .uniform("count", "3")
        .uniform("softening", "0")
        .input_f32("bodies", &[1, 3, 4], &flat4(&bodies))
        .run(&["accel"]);
    out.check("accel", &[1, 3, 4], &flat4(&hand));

    // Five bodies in 3-D with softening 0.5, against the f64 sum.
    let bodies = [
        [0.5, -1.0, 2.0, 3.0],
        [-2.0, 0.25, 1.0, 0.5],
        [1.5, 1.5, -1.0, 2.0],
        [0.0, 3.0, 0.5, 1.0],
        [-1.0, -2.0, -2.5, 4.0],
    ];
    let out = Example::new("nbody", "nbody", TRANSCENDENTAL)
        .case("five bodies, softened")
        .uniform("count", "5")
        .uniform("softening", "0.5")
        .input_f32("bodies", &[1, 5, 4], &flat4(&bodies))
        .run(&["accel"]);
    out.check("accel", &[1, 5, 4], &flat4(&accelerations(&bodies, 0.5)));
}

#[test]
fn example_matmul() {
    // A (2x3) times B (3x4); the domain is 4 columns by 2 rows.
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b = [
        1.0, 0.0, 2.0, -1.0, //
        0.0, 1.0, 3.0, 0.5, //
        2.0, -1.0, 0.0, 1.0,
    ];
    // By hand, row 0 of A is (1, 2, 3), row 1 is (4, 5, 6):
    // c00 = 1 + 0 + 6 = 7, c01 = 0 + 2 - 3 = -1, c02 = 2 + 6 + 0 = 8,
    // c03 = -1 + 1 + 3 = 3; c10 = 4 + 0 + 12 = 16, c11 = 0 + 5 - 6 = -1,
    // c12 = 8 + 15 + 0 = 23, c13 = -4 + 2.5 + 6 = 4.5.
    let c = [7.0, -1.0, 8.0, 3.0, 16.0, -1.0, 23.0, 4.5];
    let out = Example::new("matmul", "matmul", BASIC)
        .domain(4, 2)
        .uniform("k", "3")
        .input_f32("a", &[2, 3], &a)
        .input_f32("b", &[3, 4], &b)
        .run(&["c"]);
    out.check("c", &[2, 4], &c);
}

#[test]
fn example_sum() {
    let run = |shape: &[usize], values: &[f64]| {
        Example::new("sum", "sum", BASIC)
            .case(format!("shape {shape:?}, first {}", values[0]))
            .input_f32("a", shape, values)
            .run(&["sum"])
    };
    // 7x5 (odd in both directions, so the 2x2 blocks of the passes are
    // cut at the edges): a_k = (k - 10) / 4 for k = 0..35, whose sum is
    // (sum k - 35 * 10) / 4 = (595 - 350) / 4 = 61.25.
    let values: Vec<f64> = (0..35).map(|k| (k as f64 - 10.0) * 0.25).collect();
    run(&[5, 7], &values).check("sum", &[1], &[61.25]);
    // One row of 13 (blocks of 4x1) and one column of 13 (1x4):
    // a_k = 1.5 k - 4, sum = 1.5 * 78 - 52 = 65.
    let values: Vec<f64> = (0..13).map(|k| 1.5 * k as f64 - 4.0).collect();
    run(&[13], &values).check("sum", &[1], &[65.0]);
    run(&[13, 1], &values).check("sum", &[1], &[65.0]);
    // Decimal values that f32 cannot hold exactly: 0.1 * (k + 1) for k in
    // 0..35 sums to 0.1 * 630 = 63 (within the tolerance).
    let values: Vec<f64> = (0..35).map(|k| 0.1 * (k + 1) as f64).collect();
    run(&[5, 7], &values).check("sum", &[1], &[63.0]);
    // A single element is its own sum.
    run(&[1], &[-2.5]).check("sum", &[1], &[-2.5]);
}

#[test]
fn example_bounds() {
    // 35 points on 7x5, each as (x, y, x, y): x_k = (7k mod 11) - 5 takes
    // every integer in -5..=5, y_k = (5k mod 13) / 2 - 2 every half in
    // -2..=4, so the bounds are (-5, -2) and (5, 4).
    let points: Vec<[f64; 4]> = (0..35)
        .map(|k| {
            let x = ((7 * k) % 11) as f64 - 5.0;
            let y = ((5 * k) % 13) as f64 * 0.5 - 2.0;
            [x, y, x, y]
        })
        .collect();
    let lanes = |f: fn(&[f64; 4]) -> f64| points.iter().map(f);
    let computed = [
        lanes(|p| p[0]).fold(f64::INFINITY, f64::min),
        lanes(|p| p[1]).fold(f64::INFINITY, f64::min),
        lanes(|p| p[2]).fold(f64::NEG_INFINITY, f64::max),
        lanes(|p| p[3]).fold(f64::NEG_INFINITY, f64::max),
    ];
    assert_eq!(computed, [-5.0, -2.0, 5.0, 4.0]);
    let out = Example::new("bounds", "bounds", BASIC)
        .case("7x5")
        .input_f32("a", &[5, 7, 4], &flat4(&points))
        .run(&["bounds"]);
    out.check("bounds", &[4], &computed);

    // Three points in one row ((N, 4) = 1xN): (1, 2), (-3, 5), (0.5, -1):
    // min (-3, -1), max (1, 5).
    let points = [
        [1.0, 2.0, 1.0, 2.0],
        [-3.0, 5.0, -3.0, 5.0],
        [0.5, -1.0, 0.5, -1.0],
    ];
    let out = Example::new("bounds", "bounds", BASIC)
        .case("3x1")
        .input_f32("a", &[3, 4], &flat4(&points))
        .run(&["bounds"]);
    out.check("bounds", &[4], &[-3.0, -1.0, 1.0, 5.0]);
}

#[test]
fn example_transpose() {
    // A square 5x5 stream with src(i, j) = 10 j + i: dst(i, j) = src(j, i)
    // = 10 i + j.
    let n = 5;
    let src: Vec<f64> = (0..n * n).map(|k| (10 * (k / n) + k % n) as f64).collect();
    let dst: Vec<f64> = (0..n * n).map(|k| (10 * (k % n) + k / n) as f64).collect();
    let out = Example::new("transpose", "transpose", BASIC)
        .case("5x5")
        .input_f32("src", &[n, n], &src)
        .run(&["dst"]);
    out.check("dst", &[n, n], &dst);

    // Not square, 4x2: element (i, j) scatters to (j, i), which is inside
    // the domain only for i < 2; (2..4, j) are dropped, and dst(2..4, _),
    // which no element reaches, stays 0. src(i, j) = 10 j + i + 1:
    // dst(0,0) = src(0,0) = 1, dst(1,0) = src(0,1) = 11,
    // dst(0,1) = src(1,0) = 2, dst(1,1) = src(1,1) = 12.
    let src = [1.0, 2.0, 3.0, 4.0, 11.0, 12.0, 13.0, 14.0];
    let out = Example::new("transpose", "transpose", BASIC)
        .case("4x2, scatters dropped")
        .input_f32("src", &[2, 4], &src)
        .run(&["dst"]);
    out.check("dst", &[2, 4], &[1.0, 11.0, 0.0, 0.0, 2.0, 12.0, 0.0, 0.0]);
}

#[test]
fn example_threshold() {
    // limit 0.5: the elements below it discard and read back 0; 0.5 itself
    // is kept (the test is x < limit).
    let x = [-1.0, 0.49, 0.5, 0.51, 2.0, 0.0, 100.0, -0.5];
    let r = [0.0, 0.0, 0.5, 0.51, 2.0, 0.0, 100.0, 0.0];
    let out = Example::new("threshold", "threshold", BASIC)
        .case("limit 0.5")
        .uniform("limit", "0.5")
        .input_f32("x", &[2, 4], &x)
        .run(&["r"]);
    out.check("r", &[2, 4], &r);
    // A negative limit keeps them all.
    let out = Example::new("threshold", "threshold", BASIC)
        .case("limit -2")
        .uniform("limit", "-2")
        .input_f32("x", &[2, 4], &x)
        .run(&["r"]);
    out.check("r", &[2, 4], &x);
}

/// Collatz steps from `n` to 1, and the largest value on the way.
fn collatz(mut n: u64) -> (u32, u64) {
    let (mut steps, mut peak) = (0, n);
    while n > 1 {
        n = if n.is_multiple_of(2) {
            n / 2
        } else {
            3 * n + 1
        };
        peak = peak.max(n);
        steps += 1;
    }
    (steps, peak)
}

#[test]
fn example_collatz() {
    // Known step counts: 1 -> 0, 6 -> 8, 7 -> 16, 27 -> 111, 97 -> 118,
    // 871 -> 178, 6171 -> 261 (past the kernel's cap of 200).
    let known = [
        (1, 0),
        (6, 8),
        (7, 16),
        (27, 111),
        (97, 118),
        (871, 178),
        (6171, 261),
    ];
    for (n, steps) in known {
        assert_eq!(collatz(n).0, steps, "the test's Collatz loop for {n}");
    }
    // floor(x) is the start: 7.9 -> 7; 0, 0.5 and -3 are not above 1.
    let x = [
        27.0, 1.0, 6.0, 7.9, 97.0, 871.0, 6171.0, 0.0, 0.5, -3.0, 2.0, 3.0,
    ];
    let expected: Vec<f64> = x
        .iter()
        .map(|&x: &f64| {
            if x < 2.0 {
                return 0.0;
            }
            let (steps, peak) = collatz(x.floor() as u64);
            // Every value on the way is an exact f32 integer.
            assert!(peak < 1 << 24);
            f64::from(steps.min(200))
        })
        .collect();
    assert_eq!(expected[..4], [111.0, 0.0, 8.0, 16.0]);
    assert_eq!(expected[6], 200.0);
    let out = Example::new("collatz", "collatz", BASIC)
        .input_f32("x", &[3, 4], &x)
        .run(&["steps"]);
    out.check("steps", &[3, 4], &expected);
}

#[test]
fn example_blend() {
    let a = [1.0, -2.0, 3.5, 0.0, f64::NAN, 10.0];
    let b = [2.0, -3.0, 3.5, -0.5, 1.0, -10.0];
    let weight = 0.25;
    for use_max in [true, false] {
        // max/min with a NaN give the other operand (IEEE maxNum/minNum,
        // docs/language-decisions.md); the mix of a NaN is NaN.
        let picked: Vec<f64> = a
            .iter()
            .zip(&b)
            .map(|(&a, &b)| {
                if a.is_nan() {
                    b
                } else if use_max {
                    a.max(b)
                } else {
                    a.min(b)
                }
            })
            .collect();
        // mix(p, q, t) = p + (q - p) t: mix(a, b, w) if use_max, else
        // mix(b, a, w). E.g. a = 1, b = 2: 1.25 or 1.75.
        let mixed: Vec<f64> = a
            .iter()
            .zip(&b)
            .map(|(&a, &b)| {
                let (p, q) = if use_max { (a, b) } else { (b, a) };
                p + (q - p) * weight
            })
            .collect();
        assert_eq!(mixed[0], if use_max { 1.25 } else { 1.75 });
        let out = Example::new("blend", "blend", BASIC)
            .case(format!("use_max = {use_max}"))
            .uniform("use_max", &use_max.to_string())
            .uniform("weight", "0.25")
            .input_f32("a", &[6], &a)
            .input_f32("b", &[6], &b)
            .run(&["picked", "mixed"]);
        out.check("picked", &[1, 6], &picked)
            .check("mixed", &[1, 6], &mixed);
    }
}

#[test]
fn example_grayscale() {
    // RGBA bytes. Luma = 0.299 r + 0.587 g + 0.114 b in bytes, rounded:
    // white 255 -> 255; black 0; red 76.245 -> 76; green 149.685 -> 150;
    // blue 29.07 -> 29; (100, 150, 200): 29.9 + 88.05 + 22.8 = 140.75 -> 141;
    // (10, 20, 30): 2.99 + 11.74 + 3.42 = 18.15 -> 18;
    // (200, 100, 50): 59.8 + 58.7 + 5.7 = 124.2 -> 124.
    let pixels: [[u8; 4]; 8] = [
        [255, 255, 255, 255],
        [0, 0, 0, 0],
        [255, 0, 0, 128],
        [0, 255, 0, 255],
        [0, 0, 255, 7],
        [100, 150, 200, 255],
        [10, 20, 30, 40],
        [200, 100, 50, 1],
    ];
    let hand = [255.0, 0.0, 76.0, 150.0, 29.0, 141.0, 18.0, 124.0];
    let mut gray = Vec::new();
    let mut negative = Vec::new();
    for (p, want) in pixels.iter().zip(hand) {
        let luma = 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]);
        // Far from a rounding tie, so f32 rounds the same way.
        assert!((luma - luma.floor() - 0.5).abs() > 0.01);
        assert_eq!(luma.round(), want);
        gray.push(want / 255.0);
        let unorm = |c: u8| f64::from(c) / 255.0;
        negative.extend([
            1.0 - unorm(p[0]),
            1.0 - unorm(p[1]),
            1.0 - unorm(p[2]),
            unorm(p[3]),
        ]);
    }
    let bytes = pixels.iter().flatten().copied().collect();
    let out = Example::new("grayscale", "grayscale", TRANSCENDENTAL)
        .input("img", &[2, 4, 4], NpyData::U8(bytes))
        .run(&["gray", "negative"]);
    out.check("gray", &[2, 4], &gray)
        .check("negative", &[2, 4, 4], &negative);
}

/// Thomas Wang's 32-bit integer hash as the kernel writes it, in wrapping
/// `i32` arithmetic (`>>` arithmetic, as `i32` shifts are in the language).
fn wang_hash(x: i32) -> i32 {
    let mut h = (x ^ 61) ^ (x >> 16);
    h = h.wrapping_add(h << 3);
    h ^= h >> 4;
    h = h.wrapping_mul(0x27d4_eb2d);
    h ^ (h >> 15)
}

#[test]
fn example_hash() {
    // r700-only integer operations; `--target ref` runs them. The element
    // id is j W + i; seeds near i32::MAX make id + seed wrap, negative
    // seeds exercise the arithmetic shifts.
    let (w, h) = (5, 3);
    for seed in [0, 12345, -7, 2_147_483_640, i32::MIN] {
        let expected: Vec<f64> = (0..(w * h) as i32)
            .map(|id| f64::from(wang_hash(id.wrapping_add(seed)) & 0xFFFF) / 65535.0)
            .collect();
        let out = Example::new("hash", "noise", TRANSCENDENTAL)
            .case(format!("seed = {seed}"))
            .domain(w, h)
            .uniform("seed", &seed.to_string())
            .run(&["r"]);
        out.check("r", &[h, w], &expected);
    }
    // Hand check of the reference, wang_hash(0): (0 ^ 61) ^ (0 >> 16) = 61;
    // 61 + (61 << 3) = 61 + 488 = 549; 549 ^ (549 >> 4) = 549 ^ 34 = 519;
    // 519 * 0x27d4eb2d = 0x50_C0A8_C83B, wrapped 0xC0A8C83B (negative);
    // its arithmetic >> 15 is 0xFFFF8151, and the xor 0x3F57496A. So the
    // element 0 of seed 0 is 0x496A / 65535 = 18794 / 65535.
    assert_eq!(wang_hash(0) as u32, 0x3F57_496A);
    assert_eq!(0x496A, 18794);
}

#[test]
fn example_normals() {
    // A height ramp h(i, j) = 3 i + 5 j on 5x4, scale 0.5. Inside, the
    // central differences are hx = 6, hy = 10; at the first and last column
    // (row) the gather clamps and hx = 3 (hy = 5).
    // tangent (2, 0, hx s) x bitangent (0, 2, hy s) = (-2 hx s, -2 hy s, 4);
    // inside: (-6, -10, 4) / sqrt(36 + 100 + 16) = (-6, -10, 4) / sqrt(152).
    let (w, h, scale) = (5usize, 4usize, 0.5);
    let height = |i: usize, j: usize| (3 * i + 5 * j) as f64;
    let mut expected = Vec::new();
    for j in 0..h {
        for i in 0..w {
            let hx = height((i + 1).min(w - 1), j) - height(i.saturating_sub(1), j);
            let hy = height(i, (j + 1).min(h - 1)) - height(i, j.saturating_sub(1));
            let n = [-2.0 * hx * scale, -2.0 * hy * scale, 4.0];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            expected.extend([n[0] / len, n[1] / len, n[2] / len, 1.0]);
        }
    }
    let inside = 4 * (w + 1);
    let s152 = 152f64.sqrt();
    assert_eq!(
        expected[inside..inside + 4],
        [-6.0 / s152, -10.0 / s152, 4.0 / s152, 1.0]
    );
    let data = (0..h)
        .flat_map(|j| (0..w).map(move |i| height(i, j) as u16))
        .collect();
    let out = Example::new("normals", "normals", TRANSCENDENTAL)
        .uniform("scale", "0.5")
        .input("height", &[h, w], NpyData::U16(data))
        .run(&["n"]);
    out.check("n", &[h, w, 4], &expected);
}

#[test]
fn example_ripple() {
    use std::f64::consts::TAU;
    let (w, h) = (9usize, 7usize);
    let (time, center) = (0.3, [0.3, 0.5]);
    let mut expected = Vec::new();
    for j in 0..h {
        for i in 0..w {
            let uv = [i as f64 / w as f64, j as f64 / h as f64];
            let d = (uv[0] - center[0]).hypot(uv[1] - center[1]);
            // step(0.5, fract(10 d)) jumps where 10 d is a multiple of
            // 0.5: keep away from it, so f32 cannot land on the other side.
            assert!(
                distance_to_integer(20.0 * d) > 1e-3,
                "the test's pixel ({i}, {j}) is too near a ring edge"
            );
            let bend = (0.25 * (TAU * d).sin()).tan();
            let refracted = [uv[0] + bend * 0.01, uv[1] + bend * 0.01];
            let shade = 0.9 + 0.1 * (refracted[0] - center[0]).hypot(refracted[1] - center[1]);
            let wave = (TAU * (d * 8.0 - time)).sin() * (-4.0 * d).exp2();
            let edge = smoothstep(0.2, 0.25, d);
            let t = (0.5 + 0.5 * wave).clamp(0.0, 1.0);
            let ring = if (10.0 * d).fract() < 0.5 { 0.0 } else { 1.0 };
            let (deep, sand) = ([0.1, 0.2, 0.5], [0.9, 0.8, 0.3]);
            for lane in 0..3 {
                let base = deep[lane] + (sand[lane] - deep[lane]) * t;
                expected.push(shade * base * (1.0 - 0.3 * edge) + 0.05 * ring);
            }
            expected.push(1.0);
        }
    }
    // By a calculator, the pixel at (3, 4): uv = (1/3, 4/7), d = |(0.033333,
    // 0.071429)| = 0.078824; bend = tan(0.25 sin(2 pi d)) = tan(0.25
    // 0.475263) = 0.119378; shade = 0.9 + 0.1 |uv + 0.01 bend - c| =
    // 0.908041; the wave sin(2 pi (8 d - 0.3)) = sin(2 pi 0.330588) = 0.874520
    // damped by 2^(-4 d) = 0.803687 is 0.702840, so t = 0.851420; no edge
    // (d < 0.2); fract(10 d) = 0.788 >= 0.5, a ring: red = 0.908041 (0.1 +
    // 0.8 t) + 0.05 = 0.709304 + 0.05 = 0.759304.
    let red = expected[4 * (4 * w + 3)];
    assert!((red - 0.759304).abs() < 2e-6, "{red}");
    let out = Example::new("ripple", "ripple", TRANSCENDENTAL)
        .domain(w, h)
        .uniform("time", "0.3")
        .uniform("center", "0.3, 0.5")
        .run(&["r"]);
    out.check("r", &[h, w, 4], &expected);
}

/// The kernel's Newton iteration for the cube root of `x` in f64: the root,
/// the number of steps, and whether that count is safe from rounding.
///
/// The loop stops at the first step of at most 1e-6 y. In f32 a step is
/// the difference of two values near y, so it is a whole number of ulps of
/// y, off by at most about 2 ulps (2.4e-7 y) from the exact one. The count
/// is therefore certain when every step but the last is above 1.3e-6 y and
/// the last below 0.7e-6 y, or when the cap of 32 stops a loop whose steps
/// are still large.
fn cbrt_newton(x: f64) -> (f64, u32, bool) {
    if x == 0.0 {
        return (0.0, 0, true);
    }
    let a = x.abs();
    let mut y = a.max(1.0);
    let mut n = 0;
    let mut clear = true;
    loop {
        n += 1;
        let next = y - (y * y * y - a) / (3.0 * y * y);
        let step = (next - y).abs();
        let converged = step <= 1e-6 * y;
        let done = converged || n >= 32;
        clear &= if converged {
            step < 0.7e-6 * y
        } else {
            step > 1.3e-6 * y
        };
        y = next;
        if done {
            return (x.signum() * y, n, clear);
        }
    }
}

#[test]
fn example_cbrt() {
    let x = [8.0, 27.0, -64.0, 2.0, 0.0, 1.0, 0.001, -1e9];
    let mut roots = Vec::new();
    let mut steps = Vec::new();
    for &x in &x {
        let (root, n, clear) = cbrt_newton(x);
        assert!(clear, "the step count of cbrt({x}) hangs on rounding");
        roots.push(root);
        steps.push(f64::from(n));
    }
    // The converged roots are the cube roots: 2, 3, -4, 2^(1/3), 0, 1, 0.1.
    for (k, want) in [2.0, 3.0, -4.0, 2f64.cbrt(), 0.0, 1.0, 0.1]
        .iter()
        .enumerate()
    {
        assert!((roots[k] - want).abs() < 1e-9, "cbrt({})", x[k]);
    }
    // By hand: 0 stops at once with 0 steps; 1 starts at y = 1, where the
    // first step is 0, so 1 step; -1e9 starts at 1e9 and shrinks by about
    // 2/3 a step, far from 1e3 after 32 steps: the cap stops it.
    assert_eq!((steps[4], steps[5], steps[7]), (0.0, 1.0, 32.0));
    assert!(roots[7] < -1e3 * 1.5);
    let out = Example::new("cbrt", "cbrt", TRANSCENDENTAL)
        .input_f32("x", &[2, 4], &x)
        .run(&["root", "steps"]);
    out.check("root", &[2, 4], &roots)
        .check("steps", &[2, 4], &steps);
}

/// The tone mapping of one pixel in f64: `(ldr rgb, band)`.
fn tonemap(
    hdr: [f64; 3],
    exposure: f64,
    posterize: bool,
    vignette: f64,
    uv: [f64; 2],
) -> ([f64; 3], f64) {
    const WHITE: f64 = 4.0;
    const BANDS: f64 = 8.0;
    let luminance = |c: [f64; 3]| 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    // Extended Reinhard on the luminance, then gamma 2.2.
    let c0 = hdr.map(|v| v * exposure.exp2());
    let l0 = luminance(c0);
    let mapped = l0 * (1.0 + l0 / (WHITE * WHITE)) / (1.0 + l0);
    let mut c = c0.map(|v| (v * mapped / l0.max(1e-6)).clamp(0.0, 1.0).powf(1.0 / 2.2));
    let l = luminance(c);
    // The band must not hang on the rounding of l.
    let b_of = |l: f64| (l * BANDS).trunc().min(BANDS - 1.0);
    assert_eq!(
        b_of(l - 1e-4),
        b_of(l + 1e-4),
        "a pixel at a band edge (l = {l})"
    );
    let b = b_of(l);
    if posterize && l > 0.0 {
        c = c.map(|v| v * (b + 0.5) / (BANDS * l));
    } else if !posterize {
        c = c.map(|v| v * v * (3.0 - 2.0 * v));
    }
    let r2 = (uv[0] - 0.5).powi(2) + (uv[1] - 0.5).powi(2);
    c = c.map(|v| v - vignette * r2 * v);
    (c, (WHITE.log2() - b % 4.0).ceil())
}

#[test]
fn example_tonemap() {
    let (w, h) = (4usize, 3usize);
    // HDR pixels (rgb, alpha): black, grey levels, saturated colours, one
    // beyond the white point.
    let hdr = [
        [0.0, 0.0, 0.0, 1.0],
        [0.05, 0.05, 0.05, 0.5],
        [0.2, 0.2, 0.2, 1.0],
        [0.5, 0.4, 0.3, 0.25],
        [1.0, 1.0, 1.0, 1.0],
        [2.0, 0.5, 0.1, 0.0],
        [0.1, 1.5, 0.3, 1.0],
        [0.3, 0.2, 3.0, 1.0],
        [8.0, 8.0, 8.0, 1.0],
        [0.01, 0.02, 0.03, 0.75],
        [0.7, 0.7, 0.1, 1.0],
        [0.15, 0.6, 0.9, 1.0],
    ];
    let (exposure, vignette) = (0.5, 0.3);
    let mut bands_seen = Vec::new();
    for posterize in [false, true] {
        let mut ldr = Vec::new();
        let mut band = Vec::new();
        for (k, p) in hdr.iter().enumerate() {
            let uv = [(k % w) as f64 / w as f64, (k / w) as f64 / h as f64];
            let (c, b) = tonemap([p[0], p[1], p[2]], exposure, posterize, vignette, uv);
            ldr.extend([c[0], c[1], c[2], p[3]]);
            band.push(b);
        }
        bands_seen.extend(band.iter().copied());
        let out = Example::new("tonemap", "tonemap", TRANSCENDENTAL)
            .case(format!("posterize = {posterize}"))
            .uniform("exposure", "0.5")
            .uniform("posterize", &posterize.to_string())
            .uniform("vignette", "0.3")
            .input_f32("hdr", &[h, w, 4], &flat4(&hdr))
            .run(&["ldr", "band"]);
        out.check("ldr", &[h, w, 4], &ldr)
            .check("band", &[h, w], &band);
    }
    // Black stays black in both modes (with posterize, l = 0 takes neither
    // branch): band 0 -> ceil(2 - 0) = 2. The pixels span several bands.
    assert_eq!(bands_seen[0], 2.0);
    bands_seen.sort_by(f64::total_cmp);
    bands_seen.dedup();
    assert!(bands_seen.len() >= 3, "bands {bands_seen:?}");
}

// ---- coverage ----

/// The entry points (`kernel NAME` and `reduce NAME` items) of a source.
fn entry_points(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("kernel ")
                .or_else(|| line.strip_prefix("reduce "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            Some(name)
        })
        .collect()
}

#[test]
fn every_example_is_covered() {
    let this = include_str!("examples.rs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .expect("examples/")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ck"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "examples/ holds {} kernels", files.len());
    let mut missing = Vec::new();
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy();
        let source = std::fs::read_to_string(file).expect("read example");
        let entries = entry_points(&source);
        if entries.is_empty() {
            missing.push(format!("{stem}.ck: no kernel or reduction found"));
        }
        if !this.contains(&format!("#[test]\nfn example_{stem}() {{")) {
            missing.push(format!("{stem}.ck (no test `example_{stem}`)"));
        }
        for entry in entries {
            if !this.contains(&format!("Example::new(\"{stem}\", \"{entry}\"")) {
                missing.push(format!("{stem}.ck: `{entry}` is never run"));
            }
        }
    }
    assert!(missing.is_empty(), "examples without a test: {missing:#?}");
}
