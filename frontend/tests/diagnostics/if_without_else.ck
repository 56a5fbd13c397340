// expect: CK0044
kernel k(a: In<f32>, r: Out<f32>) {
    let y = if a > 0.0 { a };
    r = 0.0;
}
