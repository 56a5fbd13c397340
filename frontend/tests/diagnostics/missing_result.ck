// expect: CK0038
fn double(x: f32) -> f32 {
    x * 2.0;
}
kernel k(a: In<f32>, r: Out<f32>) {
    r = double(a);
}
