// expect: CK0016
fn fact(n: f32) -> f32 {
    if n <= 1.0 { 1.0 } else { n * fact(n - 1.0) }
}
kernel k(x: In<f32>, r: Out<f32>) {
    r = fact(x);
}
