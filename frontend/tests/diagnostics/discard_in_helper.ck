// expect: CK0035
fn check(x: f32) -> f32 {
    if x < 0.0 { discard; }
    x
}
kernel k(a: In<f32>, r: Out<f32>) {
    r = check(a);
}
