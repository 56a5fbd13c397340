// expect: CK0042
fn half(x: f32) -> f32 { x * 0.5 }
const H: f32 = half(3.0);
kernel k(a: In<f32>, r: Out<f32>) {
    r = a * H;
}
