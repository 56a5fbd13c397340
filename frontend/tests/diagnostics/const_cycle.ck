// expect: CK0043
const A: f32 = B + 1.0;
const B: f32 = A * 2.0;
kernel k(a: In<f32>, r: Out<f32>) {
    r = a * A;
}
