// expect: CK0009
kernel k(x: In<f32>, r: Out<f32>) {
    r = if 0.0 < x < 1.0 { x } else { 0.0 };
}
